"""`mindspore.experimental`: the PyTorch-style optimizers (`experimental.optim`, also `mint.optim`)."""
from pycompile.experimental import optim  # noqa: F401
