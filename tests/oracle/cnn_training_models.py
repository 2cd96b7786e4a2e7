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


# ---- one step's per-Parameter gradients (issue 31, item 7) ------------------------------------
# Small ShuffleNet-v2 and DenseNet networks: the gradients of one training step's loss
# (SoftmaxCrossEntropyWithLogits(sparse=True, 'mean') of the net's logits) with respect to every
# Parameter and the input, recorded by record_cnn_training.py. A whole net, then one piece of it
# per op kind, so that a difference in the whole net is bisected to the op whose backward differs.

GRAD_SHAPE = (4, 8, 8, 8)        # the input of the gradient nets: N, C, H, W
BIG_SHAPE = (8, 3, 32, 32)       # the input of the two nets of the whole networks' shape


def make_grad_nets(ms):
    """{name: (net, x, labels)}: nets in training mode (BatchNorm with batch statistics)."""
    nn, ops = ms.nn, ms.ops

    def channel_shuffle(x, groups):
        n, c, h, w = x.shape
        x = ops.reshape(x, (n, groups, c // groups, h, w))
        x = ops.transpose(x, (0, 2, 1, 3, 4))
        return ops.reshape(x, (n, c, h, w))

    def conv_bn(cin, cout, k, stride=1, group=1):
        return nn.SequentialCell([nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad", padding=k // 2,
                                            group=group), nn.BatchNorm2d(cout)])

    class ShuffleUnit(nn.Cell):
        """ShuffleNet-v2's unit: split the channels in two, one half through 1x1 conv-bn-relu,
        3x3 depthwise conv-bn, 1x1 conv-bn-relu, concat with the other half, shuffle; stride 2:
        both halves are the whole input, the left one through depthwise conv-bn, 1x1 conv-bn-relu."""

        def __init__(self, cin, cout, stride):
            super().__init__()
            self.stride = stride
            h = cout // 2
            bin_ = cin if stride == 2 else cin // 2
            self.right = nn.SequentialCell([conv_bn(bin_, h, 1), nn.ReLU(), conv_bn(h, h, 3, stride, group=h),
                                            conv_bn(h, h, 1), nn.ReLU()])
            if stride == 2:
                self.left = nn.SequentialCell([conv_bn(cin, cin, 3, 2, group=cin), conv_bn(cin, h, 1), nn.ReLU()])

        def construct(self, x):
            if self.stride == 2:
                out = ops.concat((self.left(x), self.right(x)), 1)
            else:
                a, b = ops.split(x, x.shape[1] // 2, 1)
                out = ops.concat((a, self.right(b)), 1)
            return channel_shuffle(out, 2)

    class ShuffleNet(nn.Cell):
        def __init__(self, pieces=("down", "unit", "unit")):
            super().__init__()
            cells = []
            for p in pieces:
                cells.append(ShuffleUnit(8, 8, 1) if p == "unit" else ShuffleUnit(8, 8, 2))
            self.body = nn.SequentialCell(cells)
            self.fc = nn.Dense(8, 10)

        def construct(self, x):
            return self.fc(ops.mean(self.body(x), (2, 3)))

    class DenseLayer(nn.Cell):
        def __init__(self, cin, growth):
            super().__init__()
            self.bn1, self.conv1 = nn.BatchNorm2d(cin), nn.Conv2d(cin, 2 * growth, 1)
            self.bn2 = nn.BatchNorm2d(2 * growth)
            self.conv2 = nn.Conv2d(2 * growth, growth, 3, pad_mode="pad", padding=1)
            self.relu = nn.ReLU()

        def construct(self, x):
            y = self.conv1(self.relu(self.bn1(x)))
            y = self.conv2(self.relu(self.bn2(y)))
            return ops.concat((x, y), 1)

    class DenseNet(nn.Cell):
        """A dense block (three layers of growth 4), a transition (bn-relu-1x1 conv-2x2 average
        pooling), bn-relu, global average pooling, Dense."""

        def __init__(self, layers=3, transition=True):
            super().__init__()
            c = 8
            cells = []
            for _ in range(layers):
                cells.append(DenseLayer(c, 4))
                c += 4
            self.block = nn.SequentialCell(cells)
            self.transition = transition
            if transition:
                self.tbn, self.tconv = nn.BatchNorm2d(c), nn.Conv2d(c, c // 2, 1)
                self.pool = nn.AvgPool2d(2, 2)
                c //= 2
            self.bn = nn.BatchNorm2d(c)
            self.relu = nn.ReLU()
            self.fc = nn.Dense(c, 10)

        def construct(self, x):
            x = self.block(x)
            if self.transition:
                x = self.pool(self.tconv(self.relu(self.tbn(x))))
            return self.fc(ops.mean(self.relu(self.bn(x)), (2, 3)))

    class ShuffleNetStem(nn.Cell):
        """ShuffleNet-v2's shape at a small size: 3x3 conv (stride 2)-bn-relu, 3x3 max pooling
        (stride 2, pad 1), a stage of a downsampling unit and three units, 1x1 conv-bn-relu,
        global average pooling, Dense."""

        def __init__(self, c=24):
            super().__init__()
            self.stem = nn.SequentialCell([conv_bn(3, c, 3, 2), nn.ReLU()])
            self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
            self.stage = nn.SequentialCell([ShuffleUnit(c, 2 * c, 2)] + [ShuffleUnit(2 * c, 2 * c, 1) for _ in range(3)])
            self.last = nn.SequentialCell([conv_bn(2 * c, 64, 1), nn.ReLU()])
            self.fc = nn.Dense(64, 10)

        def construct(self, x):
            x = self.stage(self.pool(self.stem(x)))
            return self.fc(ops.mean(self.last(x), (2, 3)))

    class DenseNetStem(nn.Cell):
        """DenseNet's shape at a small size: 3x3 conv, a dense block of four layers (growth 12), a
        transition, a second block of four layers, bn-relu, global average pooling, Dense."""

        def __init__(self, growth=12):
            super().__init__()
            c = 2 * growth
            self.stem = nn.Conv2d(3, c, 3, pad_mode="pad", padding=1)
            cells = []
            for block in range(2):
                for _ in range(4):
                    cells.append(DenseLayer(c, growth))
                    c += growth
                if block == 0:
                    cells += [nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1), nn.AvgPool2d(2, 2)]
                    c //= 2
            self.body = nn.SequentialCell(cells + [nn.BatchNorm2d(c), nn.ReLU()])
            self.fc = nn.Dense(c, 10)

        def construct(self, x):
            return self.fc(ops.mean(self.body(self.stem(x)), (2, 3)))

    class Pieces(nn.Cell):
        """One op kind between a 1x1 conv and the head, for bisection."""

        def __init__(self, kind):
            super().__init__()
            self.kind = kind
            self.conv = nn.Conv2d(8, 8, 1)
            self.bn = nn.BatchNorm2d(8)
            self.dw = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, group=8)
            self.conv3 = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1)
            self.pool = nn.AvgPool2d(2, 2)
            self.fc = nn.Dense(8 if kind not in ("concat", "split_concat") else 16 if kind == "concat" else 8, 10)

        def construct(self, x):
            y = self.conv(x)
            if self.kind == "batchnorm":
                y = self.bn(y)
            elif self.kind == "depthwise":
                y = self.dw(y)
            elif self.kind == "conv3x3":
                y = self.conv3(y)
            elif self.kind == "shuffle":
                y = channel_shuffle(y * x, 2)
            elif self.kind == "split_concat":
                a, b = ops.split(y, 4, 1)
                y = ops.concat((b * 2.0, a), 1)
            elif self.kind == "concat":
                y = ops.concat((y, x), 1)
            elif self.kind == "avgpool":
                y = self.pool(y)
            elif self.kind == "relu":
                y = ops.relu(y)
            return self.fc(ops.mean(y * y, (2, 3)))

    nets = {"shufflenet": ShuffleNet(), "shuffle_unit": ShuffleNet(("unit",)), "shuffle_down": ShuffleNet(("down",)),
            "densenet": DenseNet(), "dense_layer": DenseNet(1, False), "dense_transition": DenseNet(1, True)}
    for kind in ("batchnorm", "depthwise", "conv3x3", "shuffle", "split_concat", "concat", "avgpool", "relu"):
        nets["piece_" + kind] = Pieces(kind)
    big = {"shufflenet_stem": ShuffleNetStem(), "densenet_stem": DenseNetStem()}
    out = {}
    for name, net in list(nets.items()) + list(big.items()):
        for _, p in net.parameters_and_names():
            p.set_data(ms.Tensor(param_value(name + "." + p.name, p.shape)))
        net.set_train(True)
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        shape = GRAD_SHAPE if name in nets else BIG_SHAPE
        out[name] = (net, rng.standard_normal(shape).astype(np.float32), rng.integers(0, 10, shape[0]).astype(np.int32))
    return out


def step_gradients(ms, net, x, labels, compiled=False):
    """(loss, {Parameter name: gradient}, gradient of x) of one step, as numpy arrays; compiled:
    the gradient function run through ms.jit."""
    nn = ms.nn
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    params = net.trainable_params()
    fn = ms.value_and_grad(loss_net, 0, params)
    if compiled:
        fn = ms.jit(fn)
    loss, (gx, gw) = fn(ms.Tensor(x), ms.Tensor(labels))
    return float(loss.asnumpy()), {p.name: g.asnumpy() for p, g in zip(params, gw)}, gx.asnumpy()
