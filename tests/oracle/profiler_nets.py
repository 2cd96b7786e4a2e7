"""The networks the profiler's files are recorded on (record_profiler.py, with MindSpore) and
tested on (tests/profiler, with pycompile): each a function of the framework module, returning
(a callable, its arguments)."""
import numpy as np


def dense_relu(ms):
    nn, ops = ms.nn, ms.ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(4, 3)

        def construct(self, x):
            return ops.relu(self.d(x))
    return Net(), (ms.Tensor(np.ones((2, 4), np.float32)),)


def lenet_step(ms):
    nn = ms.nn

    class LeNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.pool = nn.MaxPool2d(2, 2)
            self.relu = nn.ReLU()
            self.flat = nn.Flatten()
            self.fc1 = nn.Dense(256, 120)
            self.fc2 = nn.Dense(120, 10)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            return self.fc2(self.relu(self.fc1(self.flat(x))))

    ms.set_seed(1)
    net = LeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.random((8, 1, 28, 28), dtype=np.float32))
    y = ms.Tensor(np.arange(8).astype(np.int32))
    return step, (x, y)
