"""The spec's Network (Accelerating with Static Graphs): Flatten -> Dense/ReLU stack -> logits.

Run directly (`python examples/network.py`) to build the model, run it on ones(64, 1, 28, 28)
and print the logits and timings; or through the CLI: `pycompile examples/network.py`.
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


def main(mode=None):
    ms.set_seed(0)
    if mode is not None:
        ms.set_context(mode=mode)
    model = Network()
    (x,) = example_inputs()
    t0 = time.perf_counter()
    output = model(x)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    n = 20
    for _ in range(n):
        output = model(x)
    steady = (time.perf_counter() - t0) / n
    print(output)
    mode_name = "GRAPH_MODE" if ms.get_context("mode") == ms.GRAPH_MODE else "PYNATIVE_MODE"
    print(f"{mode_name}: output {output.shape} {output.dtype}; first call {first * 1e3:.1f} ms, "
          f"steady {steady * 1e3:.3f} ms per call")
    return output


if __name__ == "__main__":
    main(ms.GRAPH_MODE if "--graph" in sys.argv else ms.PYNATIVE_MODE)
