"""pycompile.train: checkpoints, callbacks and metrics (shaped like mindspore.train)."""
from pycompile.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
