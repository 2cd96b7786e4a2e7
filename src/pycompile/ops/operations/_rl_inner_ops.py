"""`mindspore.ops.operations._rl_inner_ops` under pycompile's name: GRUV2, the GRU primitive with one
flat weight that MindSpore's CPU tests run. It is defined in nn/gru_primitive.py (it runs on nn.GRU's
time loop, in the layer above ops) and set here by `pycompile.nn`, which every `import pycompile`
loads first, as ops.LSTM is. The package's LSTMV2 and CudnnGRU are GPU primitives (MindSpore 2.10's
CPU wheel: "Unsupported op [LSTMV2] on CPU"): not here."""

__all__ = ["GRUV2"]
