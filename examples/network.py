"""The spec's Network (Accelerating with Static Graphs): Flatten -> Dense/ReLU stack -> logits.

What it shows: the first model of MindSpore's static-graph tutorial, run unchanged in GRAPH_MODE,
and what the `pycompile` command does with a model file (summary, --check, --emit ir,c,so). At
batch 64 this small MLP is as fast eagerly as compiled (its three products are the whole cost):
examples/quickstart.py shows a job where compiling pays.

Run directly (`python examples/network.py`) to build the model, run it on ones(64, 1, 28, 28)
and print the first two rows of the logits and the timings (six lines); or through the CLI:
`pycompile examples/network.py`.
"""
import sys
import time

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10)
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def example_inputs():
    return (Tensor(np.ones([64, 1, 28, 28]).astype(np.float32)),)


def run(model, x, n=20):
    t0 = time.perf_counter()
    output = model(x)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n):
        output = model(x)
    return output, first, (time.perf_counter() - t0) / n


def main():
    """Compile the Network (GRAPH_MODE), run it, and compare with PyNative (eager NumPy)."""
    ms.set_seed(0)
    model = Network()
    (x,) = example_inputs()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager, _, eager_t = run(model, x)
    ms.set_context(mode=ms.GRAPH_MODE)
    output, first, steady = run(model, x)
    # 64 identical rows of 10 logits: two are enough to see them
    print(f"logits {output.shape}, first two rows:")
    print(output[:2])
    err = float(abs(output.asnumpy() - eager.asnumpy()).max())
    print(f"GRAPH_MODE: first call (compile + run) {first * 1e3:.1f} ms, then {steady * 1e3:.3f} ms per call")
    print(f"PyNative: {eager_t * 1e3:.3f} ms per call; max |graph - pynative| = {err:.2e}")
    return output


if __name__ == "__main__":
    main()
