"""ResNet-18's first stage (conv 7x7 / 2 + BatchNorm + ReLU + max-pool 3x3 / 2, then two basic
blocks at 64 channels) in eval mode on (8, 3, 224, 224) - the W10 benchmark (bench/README.md).

What it shows: convolution epilogue fusion.
Compiled, each convolution takes its BatchNorm (the scale folded into the packed weights, the
shift into the epilogue), ReLU and the residual add into one kernel: the stage runs as five
convolution kernels and one pooling loop. How to run:

    pycompile examples/resnet_block.py --check --bench 5
    python examples/resnet_block.py
"""
import time

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops


def _bn(c):
    return nn.BatchNorm2d(c)


class BasicBlock(nn.Cell):
    def __init__(self, channels=64):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode="pad", padding=1)
        self.bn1 = _bn(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="pad", padding=1)
        self.bn2 = _bn(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + x)


class ResNetStage1(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3)
        self.bn1 = _bn(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.layer1 = nn.SequentialCell([BasicBlock(64), BasicBlock(64)])

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        return self.layer1(x)


class ResNetStage1Classifier(nn.Cell):
    """The stage with a global average pool and a 10-way Dense head: the network of W10's
    training step (bench/w12.py, bench/workloads_cnn_train.py)."""

    def __init__(self):
        super().__init__()
        self.stage = ResNetStage1()
        self.head = nn.Dense(64, 10)

    def construct(self, x):
        return self.head(ops.mean(self.stage(x), (2, 3)))


def init_eval(net, seed=0):
    """Deterministic weights and BatchNorm statistics (as a trained network has), eval mode."""
    rng = np.random.default_rng(seed)
    for _, p in net.parameters_and_names():
        shape = p.shape
        if "conv" in p.name:
            v = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
        elif p.name.endswith(("gamma", "variance")):
            v = rng.uniform(0.5, 1.5, shape)
        else:
            v = rng.uniform(-0.2, 0.2, shape)
        p.set_data(Tensor(v.astype(np.float32)))
    net.set_train(False)
    return net


model = init_eval(ResNetStage1())


def example_inputs():
    return (Tensor(np.random.default_rng(1).standard_normal((8, 3, 224, 224)).astype(np.float32)),)


def main():
    (x,) = example_inputs()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = model(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    t0 = time.perf_counter()
    out = model(x)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(5):
        out = model(x)
    steady = (time.perf_counter() - t0) / 5
    err = float(np.abs(out.asnumpy() - eager.asnumpy()).max() / np.abs(eager.asnumpy()).max())
    print(f"ResNet-18 stage 1 {tuple(x.shape)} -> {tuple(out.shape)}: first call {first:.2f} s, then "
          f"{steady * 1e3:.1f} ms per call; max relative |graph - pynative| = {err:.1e}")
    return out


if __name__ == "__main__":
    main()
