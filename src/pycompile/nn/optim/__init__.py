"""Optimizers (mindspore.nn.optim)."""
from pycompile.nn.optim.adam import AdaMax, Adam, AdamWeightDecay, LazyAdam  # noqa: F401
from pycompile.nn.optim.lamb import Lamb  # noqa: F401
from pycompile.nn.optim.lars import LARS  # noqa: F401
from pycompile.nn.optim.adaptive import FTRL, Adadelta, Adagrad, ProximalAdagrad, RMSProp  # noqa: F401
from pycompile.nn.optim.optimizer import Optimizer  # noqa: F401
from pycompile.nn.optim.sgd import SGD, Momentum  # noqa: F401
from pycompile.nn.optim.rprop_asgd import ASGD, AdaFactor, AdamOffload, Rprop  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "LazyAdam", "AdamWeightDecay", "AdaMax", "RMSProp", "Adagrad",
           "Adadelta", "FTRL", "ProximalAdagrad", "Lamb", "LARS", "Rprop", "ASGD", "AdamOffload", "AdaFactor"]
