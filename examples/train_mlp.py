"""Train the W4 MLP (784-512-512-10, bench/README.md) on the handwritten digits that ship inside
scikit-learn (no download), written as a MindSpore user writes it - only the import differs.

The 8x8 digit images are scaled to 0..1 and enlarged to 28x28 (each pixel repeated 3x3, then 2
pixels of border), so the network is exactly the W4 MLP. 1,437 images train, 360 test (a fixed
split). The whole step - forward, backward, Momentum update of every weight - is one compiled
call (`nn.TrainOneStepCell` in GRAPH_MODE); the last partial batch of an epoch is dropped so that
every step has the same shape and nothing recompiles.

What it shows: a hand-written training loop over a compiled TrainOneStepCell. How to run:

    pip install '.[examples]'          # scikit-learn and tqdm
    python examples/train_mlp.py       # about 10 s on 2 cores: test accuracy >= 95 %
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import pycompile as ms
from pycompile import nn

try:
    from sklearn.datasets import load_digits
except ImportError:         # pragma: no cover - the examples extra installs it
    sys.exit("this example needs scikit-learn: pip install 'pycompile[examples]'")

try:
    from tqdm import tqdm
except ImportError:         # pragma: no cover - a plain loop without a progress bar
    def tqdm(it, **_):
        return it


def digits():
    """(x_train, y_train, x_test, y_test): float32 images (N, 1, 28, 28) in [0, 1], int32 labels."""
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)
    x = np.kron(x, np.ones((3, 3), np.float32))                 # 8x8 -> 24x24
    x = np.pad(x, ((0, 0), (2, 2), (2, 2)))[:, None]             # -> 1 x 28 x 28
    y = d.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    n_test = 360
    return x[n_test:], y[n_test:], x[:n_test], y[:n_test]


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(784, 512)
        self.fc2 = nn.Dense(512, 512)
        self.fc3 = nn.Dense(512, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def build(lr=0.05, momentum=0.9):
    ms.set_seed(0)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=momentum)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def accuracy(net, x, y) -> float:
    logits = net(ms.Tensor(x)).asnumpy()
    return float((logits.argmax(-1) == y).mean())


def steps_per_second(step, x, y, n) -> float:
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    step(tx, ty)                                 # compiled (or warmed up) outside the timing
    t0 = time.perf_counter()
    for _ in range(n):
        step(tx, ty)
    return n / (time.perf_counter() - t0)


def train(epochs=10, batch=64, progress=True, compare=True):
    """Train for `epochs`; returns (test accuracy, compiled steps/s, PyNative steps/s or None)."""
    x_train, y_train, x_test, y_test = digits()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, step = build()
        rng = np.random.default_rng(1)
        steps = len(y_train) // batch
        for epoch in range(epochs):
            order = rng.permutation(len(y_train))
            bar = tqdm(range(steps), desc=f"epoch {epoch + 1}/{epochs}", leave=False, disable=not progress)
            total = 0.0
            for s in bar:
                idx = order[s * batch:(s + 1) * batch]
                loss = float(step(ms.Tensor(x_train[idx]), ms.Tensor(y_train[idx])).asnumpy())
                total += loss
            if progress:
                print(f"epoch {epoch + 1:2d}: mean loss {total / steps:.4f}")
        acc = accuracy(net, x_test, y_test)
        compiled_rate = steps_per_second(step, x_train[:batch], y_train[:batch], 50) if compare else None
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_rate = None
    if compare:
        _, eager_step = build()
        eager_rate = steps_per_second(eager_step, x_train[:batch], y_train[:batch], 10)
    return acc, compiled_rate, eager_rate


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch", type=int, default=64)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    acc, compiled_rate, eager_rate = train(args.epochs, args.batch)
    print(f"test accuracy: {acc * 100:.1f} %  ({time.perf_counter() - t0:.1f} s in all)")
    print(f"steps per second: compiled {compiled_rate:.0f}, PyNative {eager_rate:.0f} "
          f"({compiled_rate / eager_rate:.1f}x)")


if __name__ == "__main__":
    main()
