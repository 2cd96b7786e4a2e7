"""LeNet-5 as MindSpore's model zoo writes it (Conv2d 'valid' + ReLU + MaxPool2d twice, then
three Dense layers), on (64, 1, 32, 32) images - the W9 benchmark (bench/README.md).

What it shows: a convolutional network compiled as it is written; each convolution takes its
bias and ReLU into its kernel. examples/quickstart.py and examples/train_lenet_digits.py train it.
How to run:

    pycompile examples/lenet.py --check --bench 20     compile, compare with PyNative, time it
    python examples/lenet.py                           run it compiled and eagerly
"""
import time

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn


class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def example_inputs():
    return (Tensor(np.random.default_rng(0).standard_normal((64, 1, 32, 32)).astype(np.float32)),)


def main():
    ms.set_seed(0)
    net = LeNet5()
    (x,) = example_inputs()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    t0 = time.perf_counter()
    out = net(x)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(20):
        out = net(x)
    steady = (time.perf_counter() - t0) / 20
    err = float(np.abs(out.asnumpy() - eager.asnumpy()).max())
    print(f"LeNet5 {tuple(x.shape)} -> {tuple(out.shape)}: first call {first * 1e3:.0f} ms, then "
          f"{steady * 1e3:.3f} ms per call; max |graph - pynative| = {err:.2e}")
    return out


if __name__ == "__main__":
    main()
