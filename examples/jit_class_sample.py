"""`@jit_class` (spec: "Using jit_class"): plain Python classes whose methods compile into the
graph of the Cell or `@jit` function that uses them.

What it shows:

- `Standardize` is created in `__init__` and kept as a Cell attribute; construct calls its method.
- `Affine` is created inside graph code with constant arguments, then called (`__call__`).
- `rescale` is a `@jit` function with an `input_signature`, so the CLI knows its inputs.

Run directly (`python examples/jit_class_sample.py`) to compare GRAPH_MODE with PyNative, or
through the CLI: `pycompile examples/jit_class_sample.py --check`.
"""
import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops


@ms.jit_class
class Standardize:
    """Zero mean, unit variance along the last axis."""

    def __init__(self, eps):
        self.eps = eps

    def apply(self, x):
        mean = x.mean(axis=-1, keep_dims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=-1, keep_dims=True)
        return centered / ops.sqrt(var + self.eps)


@ms.jit_class
class Affine:
    """y = scale * x + shift."""

    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = shift

    def __call__(self, x):
        return self.scale * x + self.shift


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(32, 16)
        self.norm = Standardize(1e-5)

    def construct(self, x):
        h = ops.relu(self.dense(x))
        post = Affine(2.0, 0.5)
        return post(self.norm.apply(h))


net = Net()
net.set_inputs(Tensor(shape=[8, 32], dtype=ms.float32))


@ms.jit(input_signature=(Tensor(shape=[8, 16], dtype=ms.float32),))
def rescale(x):
    return Affine(0.5, -1.0)(x) + Affine(2.0, 0.0).scale


def main():
    x = Tensor(np.random.default_rng(0).standard_normal((8, 32)).astype(np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(x).asnumpy()
    print(graph)
    print(f"Net: GRAPH_MODE vs PyNative max abs error {np.abs(graph - eager).max():.3g}")
    y = rescale(Tensor(graph))
    print(f"rescale: output {y.shape} {y.dtype}")


if __name__ == "__main__":
    main()
