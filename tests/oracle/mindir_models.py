"""Small networks for the MINDIR round trips, written once for both frameworks.

Each builder takes the framework module (`mindspore` in the oracle venv, `pycompile` in the
tests) and returns (net, inputs as NumPy arrays). Weights are overwritten from a seeded NumPy
generator in `parameters_and_names()` order, so both frameworks hold the same numbers without
sharing an initializer.
"""
import numpy as np


def _seed_weights(ms, net, seed):
    rng = np.random.RandomState(seed)
    for _, p in net.parameters_and_names():
        value = (rng.standard_normal(p.shape) * 0.3).astype(np.float32)
        p.set_data(ms.Tensor(value))


def mlp(ms):
    nn = ms.nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d1 = nn.Dense(16, 32)
            self.d2 = nn.Dense(32, 10)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.d2(self.relu(self.d1(x)))

    net = MLP()
    _seed_weights(ms, net, 1)
    return net, [np.random.RandomState(11).standard_normal((4, 16)).astype(np.float32)]


def lenet(ms):
    nn = ms.nn

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

    net = LeNet5()
    _seed_weights(ms, net, 2)
    return net, [np.random.RandomState(12).standard_normal((2, 1, 32, 32)).astype(np.float32)]


def resblock(ms):
    nn = ms.nn

    class BasicBlock(nn.Cell):
        def __init__(self, c=8):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, stride=1, pad_mode="same", has_bias=False)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, stride=1, pad_mode="same", has_bias=False)
            self.bn2 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU()

        def construct(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + x)

    net = BasicBlock()
    _seed_weights(ms, net, 3)
    # moving variance must stay positive
    for name, p in net.parameters_and_names():
        if "moving_variance" in name:
            p.set_data(ms.Tensor(np.abs(p.asnumpy()) + 0.5))
    net.set_train(False)
    return net, [np.random.RandomState(13).standard_normal((2, 8, 8, 8)).astype(np.float32)]


def lstm(ms):
    nn = ms.nn

    class LSTMNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, num_layers=1, batch_first=True)
            self.fc = nn.Dense(16, 4)

        def construct(self, x):
            y, _ = self.lstm(x)
            return self.fc(y[:, -1, :])

    net = LSTMNet()
    _seed_weights(ms, net, 4)
    return net, [np.random.RandomState(14).standard_normal((2, 5, 8)).astype(np.float32)]


def transformer(ms):
    nn = ms.nn

    class Encoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)

        def construct(self, x):
            return self.layer(x)

    net = Encoder()
    _seed_weights(ms, net, 5)
    net.set_train(False)
    return net, [np.random.RandomState(15).standard_normal((2, 6, 16)).astype(np.float32)]


def encoder2(ms):
    """A two-layer transformer encoder (nn.TransformerEncoder over two copies of one layer)."""
    nn = ms.nn

    class Encoder2(nn.Cell):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2)

        def construct(self, x):
            return self.encoder(x)

    net = Encoder2()
    _seed_weights(ms, net, 6)
    net.set_train(False)
    return net, [np.random.RandomState(16).standard_normal((2, 6, 16)).astype(np.float32)]


MODELS = {"mlp": mlp, "lenet": lenet, "resblock": resblock, "lstm": lstm, "transformer": transformer,
          "encoder2": encoder2}
# what pycompile's export writes and MindSpore must load (tests/oracle/record_mindir.py check-export);
# the LSTM's time loop is unrolled in pycompile's file
EXPORT_MODELS = ("mlp", "lenet", "resblock", "transformer", "lstm", "encoder2")
# exported by MindSpore with a None batch dimension too (NAME_dyn.mindir)
DYNAMIC_MODELS = ("mlp", "lenet")
# exported by pycompile with a None batch dimension (pycompile_NAME_dyn.mindir), run by MindSpore
# at batch 1 and 3 (the LSTM's zero initial state sized by the batch: Zeros of the input's Shape)
DYNAMIC_EXPORT_MODELS = ("mlp", "lenet", "resblock", "encoder2", "lstm")
DYNAMIC_BATCHES = (1, 3)
