"""Small networks the ONNX export tests write and run (graph code lives in a file)."""
import numpy as np

import pycompile as ms
from pycompile import nn, ops


class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
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


class MLP(nn.Cell):
    """Dense with GELU, tanh / sigmoid, arithmetic with Python numbers, two outputs."""

    def __init__(self):
        super().__init__()
        self.d1 = nn.Dense(8, 16, activation='gelu')
        self.d2 = nn.Dense(16, 16)
        self.d3 = nn.Dense(16, 4)
        self.sig = nn.Sigmoid()
        self.tanh = nn.Tanh()
        self.sm = nn.Softmax()
        self.lsm = nn.LogSoftmax()

    def construct(self, x):
        h = self.d1(x)
        h = self.tanh(self.d2(h)) * self.sig(h) - h / 2.0 + 1
        y = self.d3(h)
        return self.sm(y), self.lsm(y)


class BasicBlock(nn.Cell):
    """ResNet's basic block (inference BatchNorm), then average pooling."""

    def __init__(self, c=4):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, pad_mode='pad', padding=1, has_bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, pad_mode='same', has_bias=False)
        self.b2 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU()
        self.pool = nn.AvgPool2d(2, 2)

    def construct(self, x):
        y = self.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        y = self.relu(y + x)
        return self.pool(y)


class Encoder(nn.Cell):
    """Embedding, a two-layer transformer encoder (GELU feed-forward, a final LayerNorm), mean over the
    sequence, a classifier."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                           activation="gelu")
        self.layer = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm((8,)))
        self.head = nn.Dense(8, 3)

    def construct(self, ids):
        h = self.layer(self.emb(ids))
        return self.head(ops.mean(h, axis=1))


class LSTM(nn.Cell):
    """A two-layer LSTM over a static sequence (its time loop is unrolled in the file)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True)

    def construct(self, x):
        y, (h, c) = self.lstm(x)
        return y, h, c


class Layout(nn.Cell):
    """LayerNorm, Transpose, Concat, ReduceMean / ReduceSum, Reshape, Cast, slicing."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.ln = nn.LayerNorm((6,))

    def construct(self, ids, x):
        e = self.ln(self.emb(ids))                    # (B, T, 6)
        t = ops.transpose(e, (0, 2, 1))               # (B, 6, T)
        c = ops.concat((t, t * 2), axis=1)            # (B, 12, T)
        m = ops.mean(c, axis=2, keep_dims=True)
        s = ops.sum(c, dim=-1)
        r = ops.reshape(c, (-1, 12 * 3))
        return m, s, r[:, 1:7:2], ops.cast(ids, ms.float32) + x


class Elementwise(nn.Cell):
    """One op per rule family: unary math, activations, comparisons, Select, reductions."""

    def construct(self, x, y):
        a = ops.sqrt(ops.abs(x) + 1) + ops.rsqrt(ops.abs(y) + 1) + ops.exp(-ops.square(x)) + ops.log(ops.abs(y) + 1)
        b = ops.maximum(x, y) - ops.minimum(x, y) + ops.pow(ops.abs(x), 1.5) + ops.floor(x) + ops.ceil(y)
        c = ops.relu6(x * 4) + ops.silu(y) + ops.hardsigmoid(x) + ops.hardswish(y) + ops.softplus(x) + ops.erf(y)
        d = ops.where(x > y, x, y) + ops.cast(ops.logical_and(x < 1, y >= 0), ms.float32) + ops.sin(x) * ops.cos(y)
        e = ops.gelu(x, approximate='none') + ops.gelu(y) + ops.mish(x) + ops.elu(y) + ops.neg(x) + ops.sigmoid(y)
        f = ops.amax(x, axis=1, keepdims=True) + ops.amin(y, axis=0)
        f = f + ops.argmax(x, dim=1, keepdim=True).astype(ms.float32)
        g = ops.stack((x, y), axis=1).sum(axis=1) + ops.broadcast_to(y[0:1], x.shape) + ops.cumsum(x, axis=1)
        return a, b, c, d, e, f, g


class MoreMath(nn.Cell):
    """The remaining math rules: inverse trigonometry, hyperbolics, logs, division, logic."""

    def construct(self, x, y):
        u = ops.clamp(x, -0.9, 0.9)
        a = ops.tan(u) + ops.acos(u) + ops.asin(u) + ops.atan(x) + ops.asinh(x) + ops.acosh(ops.abs(x) + 1)
        b = ops.atanh(u) + ops.cosh(u) + ops.sinh(u) + ops.erfc(x) + ops.expm1(u) + ops.log1p(ops.abs(x))
        c = ops.log2(ops.abs(y) + 1) + ops.reciprocal(ops.abs(y) + 1) + ops.round(x * 3) + ops.sign(y)
        d = ops.selu(x) + ops.softsign(y) + ops.logsigmoid(x) + ops.floor_divide(x, 0.7) + ops.floor_mod(x, 0.7)
        e = ops.fmod(x, 0.7) + ops.isfinite(x / y).astype(ms.float32) + ops.isnan(x).astype(ms.float32)
        e = e + ops.isinf(x / y).astype(ms.float32) + ops.addn((x, y, x))
        f = ops.prod(ops.abs(x) + 0.5, axis=1, keep_dims=True) + ops.all(x > -3, axis=1, keep_dims=True)
        f = f + ops.any(x > 1, axis=1, keep_dims=True) + ops.argmin(y, axis=1, keepdims=True)
        g = ops.gather_elements(x, 1, ms.Tensor([[3, 0, 2, 1], [1, 1, 0, 3]], ms.int32)) + ops.ones((1, 4), ms.float32)
        h = ops.tensor_scatter_add(x, ms.Tensor([[0], [1]], ms.int32), y) + ops.exp(ops.not_equal(x, y) * 0.5)
        k = ops.logical_or(ops.equal(ops.round(x), 0), ops.logical_not(x <= y)).astype(ms.float32)
        return a, b, c, d, e, f, g, h, k + ops.fill(ms.float32, (2, 4), 0.25)    # (Fill folds to a constant)


class IntOps(nn.Cell):
    """Integer division and remainder keep Python's (floor) rules; global average pooling."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)

    def construct(self, i, j, img):
        return ops.floor_divide(i, j), ops.floor_mod(i, j), ops.fmod(i, j), self.pool(img)


class Unsupported(nn.Cell):
    def construct(self, x):
        y = x * 2
        return ops.cumprod(y, dim=0)


class WhileLoop(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            x = x + 1
        return x


def inputs(name: str, batch: int = 2, seed: int = 0):
    """Inputs for model `name` (NumPy arrays) at a batch size."""
    rng = np.random.default_rng(seed)
    return {
        "LeNet5": lambda: [rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)],
        "MLP": lambda: [rng.standard_normal((batch, 8)).astype(np.float32)],
        "BasicBlock": lambda: [rng.standard_normal((batch, 4, 8, 8)).astype(np.float32)],
        "Encoder": lambda: [rng.integers(0, 20, (batch, 5)).astype(np.int32)],
        "LSTM": lambda: [rng.standard_normal((batch, 5, 4)).astype(np.float32)],
        "Layout": lambda: [rng.integers(0, 20, (batch, 3)).astype(np.int32),
                           rng.standard_normal((batch, 3)).astype(np.float32)],
        "Elementwise": lambda: [rng.standard_normal((batch, 4)).astype(np.float32),
                                rng.standard_normal((batch, 4)).astype(np.float32)],
        "MoreMath": lambda: [rng.standard_normal((batch, 4)).astype(np.float32),
                             np.where(np.arange(4) == 3, 0, rng.standard_normal((batch, 4))).astype(np.float32)],
        "IntOps": lambda: [rng.integers(-20, 20, (batch, 6)).astype(np.int32),
                           np.array([3, -3, 4, -4, 7, -7] * batch, np.int32).reshape(batch, 6),
                           rng.standard_normal((batch, 3, 4, 5)).astype(np.float32)],
    }[name]()


def build(name: str, seed: int = 0):
    """Model `name` in inference mode, its BatchNorm statistics made non-trivial."""
    ms.set_seed(seed)
    net = globals()[name]()
    rng = np.random.default_rng(seed + 1)
    for p in net.get_parameters():
        if any(k in p.name for k in ("moving_mean", "beta")):
            p.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
        elif any(k in p.name for k in ("moving_variance", "gamma")):
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    net.set_train(False)
    return net


class BatchMean(nn.Cell):
    """Divides by the batch size read from the shape: a number the traced graph holds as a constant."""

    def construct(self, x):
        return x.sum(axis=0) / x.shape[0]


class Scaled(nn.Cell):
    """A Python number before the tensor argument: a constant of the trace, not a file input."""

    def construct(self, k, x):
        return x * k
