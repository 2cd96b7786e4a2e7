"""Models tests/export/test_emit_lib.py builds with `pycompile --emit lib` (graph code lives in a
file). Their weights come from set_seed(7) at import, so every import holds the same values."""
import pycompile as ms
from onnx_models import LeNet5, MLP

ms.set_seed(7)
lenet = LeNet5()
lenet.set_inputs(ms.Tensor(shape=[1, 1, 32, 32], dtype=ms.float32))
mlp = MLP()                     # two outputs
mlp.set_inputs(ms.Tensor(shape=[3, 8], dtype=ms.float32))
