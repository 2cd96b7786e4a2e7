"""Quick start: train LeNet-5 compiled, and see what compiling buys.

What it shows: the model zoo's LeNet-5 (examples/lenet.py) trained the way a MindSpore script
trains it - `TrainOneStepCell(WithLossCell(net, loss), nn.Momentum)` - first in PyNative mode
(every op run eagerly on NumPy), then in GRAPH_MODE, where the whole training step (forward,
backward, every Parameter update) is compiled to C and runs as one native call. Both start from
the same weights and see the same batches, so their losses agree (PyNative runs only the first
10 steps: it is the slow side); the script prints the time per step of each, the speed-up, and
where the generated C is.

The data is synthetic and needs no download: noisy 32x32 images with a bright 6x6 square whose
position (one of 10) is the class, so the loss visibly falls within a few dozen steps.

How to run:

    python examples/quickstart.py               # 60 compiled steps and 10 PyNative ones, batch 64
    python examples/quickstart.py --steps 5     # a quick check (tests/examples runs this)
    PYCOMPILE_LOG=compiles python examples/quickstart.py    # also log what is compiled, and how long it took

Change `import pycompile as ms` to `import mindspore as ms` and the training code runs on MindSpore.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import pycompile as ms                      # the one line that differs from a MindSpore script
from pycompile import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lenet import LeNet5  # noqa: E402  (the model zoo's network, unchanged)


def batches(n, batch=64, seed=0):
    """n batches of (images (batch, 1, 32, 32) float32, labels (batch,) int32): a 6x6 square on a
    noisy background, its position one of 10 places, which is the label."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        y = rng.integers(0, 10, batch).astype(np.int32)
        x = rng.normal(0.0, 0.3, (batch, 1, 32, 32)).astype(np.float32)
        for i, c in enumerate(y):
            r, col = 4 + 12 * (c // 5), 2 + 6 * (c % 5)
            x[i, 0, r:r + 6, col:col + 6] += 2.0
        out.append((Tensor(x), Tensor(y)))
    return out


def build():
    """A fresh LeNet-5 with seeded weights and its training step."""
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def train(mode, data):
    """Train a fresh LeNet-5 on `data` in `mode`; return (losses, seconds of the first step,
    seconds per step after it, the step Cell)."""
    ms.set_context(mode=mode)
    step = build()
    step.set_train()
    losses = []
    t0 = time.perf_counter()
    losses.append(float(step(*data[0]).asnumpy()))      # in GRAPH_MODE: compiles, then runs
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for x, y in data[1:]:
        losses.append(float(step(x, y).asnumpy()))
    rest = (time.perf_counter() - t0) / max(len(data) - 1, 1)
    return losses, first, rest, step


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=int(os.environ.get("QUICKSTART_STEPS", 60)),
                   help="training steps in each mode (default 60)")
    p.add_argument("--eager-steps", type=int, default=10,
                   help="of those, how many PyNative runs to compare with (default 10: it is slow)")
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "pycompile-quickstart"),
                   help="directory for the generated C (default: $TMPDIR/pycompile-quickstart)")
    args = p.parse_args(argv)
    data = batches(max(args.steps, 2))
    try:
        eager, _, eager_t, _ = train(ms.PYNATIVE_MODE, data[:max(min(args.eager_steps, len(data)), 2)])
        graph, first, graph_t, step = train(ms.GRAPH_MODE, data)
        x, y = data[0]
        report = ms.inspect(step, x, y)              # the compiled step's report (no new compile)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    os.makedirs(args.out, exist_ok=True)
    c_file = os.path.join(args.out, "lenet_train_step.c")
    with open(c_file, "w") as f:
        f.write(report.c_source)
    n = len(data)
    print(f"LeNet-5 training, batch 64, {n} steps: loss {graph[0]:.3f} -> {graph[-1]:.3f}")
    print(f"PyNative:   {eager_t * 1e3:7.2f} ms per step")
    print(f"GRAPH_MODE: {graph_t * 1e3:7.2f} ms per step "
          f"(first step {first:.2f} s: compiles the whole step to C)")
    print(f"speed-up:   {eager_t / graph_t:.1f}x; "
          f"max |loss difference| = {max(abs(a - b) for a, b in zip(graph, eager)):.1e}")
    print(f"generated C ({report.c_lines} lines): {c_file}")
    return {"eager": eager, "graph": graph, "eager_t": eager_t, "graph_t": graph_t, "c_file": c_file}


if __name__ == "__main__":
    main()
