"""Networks whose training-step FLOPs MindSpore 2.10's FlopsUtilizationCollector counts
(record_flops.py) and pycompile's must equal (tests/train/test_flops_collector.py). Written against
whichever framework is passed in (`ms`, MindSpore or pycompile)."""
import numpy as np


def networks(ms):
    nn, ops = ms.nn, ms.ops

    class Conv(nn.Cell):
        def __init__(self, group=1):
            super().__init__()
            self.c1 = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, weight_init="normal")
            self.c2 = nn.Conv2d(4, 6, 3, stride=2, pad_mode="valid", group=group, weight_init="normal")
            self.flat = nn.Flatten()
            self.dense = nn.Dense(6 * 3 * 3, 5, weight_init="normal")

        def construct(self, x):
            return self.dense(self.flat(self.c2(ops.relu(self.c1(x)))))

    class Bmm(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q = nn.Dense(8, 8, weight_init="normal")
            self.out = nn.Dense(8, 3, weight_init="normal")

        def construct(self, x):
            q = self.q(x)
            att = ops.softmax(ops.BatchMatMul(transpose_b=True)(q, x), -1)
            return self.out(ops.BatchMatMul()(att, x)).sum(1)

    class FrozenFirst(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(6, 7, weight_init="normal")
            self.b = nn.Dense(7, 4, has_bias=False, weight_init="normal")
            self.a.weight.requires_grad = False

        def construct(self, x):
            return self.b(ops.tanh(self.a(x)))

    class Rnn(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(4, 3, batch_first=True)
            self.dense = nn.Dense(3, 2, weight_init="normal")

        def construct(self, x):
            y, _ = self.rnn(x)
            return self.dense(y[:, -1])

    return {
        "rnn": (Rnn, (2, 5, 4), (2, 2)),
        "mlp": (lambda: nn.SequentialCell([nn.Dense(8, 16, weight_init="normal"), nn.ReLU(),
                                           nn.Dense(16, 2, weight_init="normal")]), (8, 8), (8, 2)),
        "conv": (Conv, (2, 3, 8, 8), (2, 5)),
        # MindSpore counts a grouped convolution as an ungrouped one (this one's 81864, as group=1's):
        # pycompile counts the multiply-adds it does (input channels / groups): 70200
        "conv_grouped": (lambda: Conv(group=2), (2, 3, 8, 8), (2, 5)),
        "bmm": (Bmm, (2, 5, 8), (2, 3)),
        "frozen_first": (FrozenFirst, (4, 6), (4, 4)),
    }


def data(shape_x, shape_y, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape_x).astype(np.float32), rng.standard_normal(shape_y).astype(np.float32)
