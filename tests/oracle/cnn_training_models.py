"""LeNet-5 and a ResNet basic block trained for 20 steps with Momentum, written once for both
frameworks: `make(ms)` builds them with `ms` bound to mindspore (record_cnn_training.py) or to
pycompile (tests/nn/test_cnn_training.py). Every weight is set from a generator seeded by its
Parameter's name, the data from a fixed seed; BatchNorm trains with batch statistics."""
from __future__ import annotations

import zlib

import numpy as np

STEPS = 20
LR, MOMENTUM = 0.01, 0.9


def param_value(name: str, shape, dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if name.endswith("gamma"):
        return rng.uniform(0.8, 1.2, shape).astype(dtype)
    if name.endswith(("beta", "bias")):
        return rng.uniform(-0.1, 0.1, shape).astype(dtype)
    if name.endswith("mean"):
        return np.zeros(shape, dtype)
    if name.endswith("variance"):
        return np.ones(shape, dtype)
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, shape).astype(dtype)


def batches(name: str, x_shape, classes: int):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return [(rng.standard_normal(x_shape).astype(np.float32), rng.integers(0, classes, x_shape[0]).astype(np.int32))
            for _ in range(STEPS)]


def make(ms):
    nn, ops = ms.nn, ms.ops

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    class BasicBlockNet(nn.Cell):
        """A ResNet basic block (conv-bn-relu-conv-bn, + x, relu), global average pooling, Dense."""

        def __init__(self, c=8):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, pad_mode="pad", padding=1)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, pad_mode="pad", padding=1)
            self.bn2 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(c, 10)

        def construct(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)) + x)
            return self.fc(self.flatten(self.pool(y)))

    out = {}
    for name, cls, shape in (("lenet5", LeNet5, (16, 1, 32, 32)), ("basic_block", BasicBlockNet, (4, 8, 8, 8))):
        net = cls()
        for _, p in net.parameters_and_names():
            p.set_data(ms.Tensor(param_value(p.name, p.shape)))
        net.set_train(True)
        out[name] = (net, batches(name, shape, 10))
    return out
