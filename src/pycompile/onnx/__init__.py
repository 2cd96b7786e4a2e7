"""`mindspore.onnx`: `export(net, *inputs, file_name, input_names=None, output_names=None,
export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None)` (pycompile/export/onnx.py),
and pycompile's `load(file_name)`: an ONNX file as an nn.GraphCell (pycompile/export/onnx_load.py;
MindSpore has no ONNX importer)."""
from pycompile.export.onnx import onnx_export as export  # noqa: F401
from pycompile.export.onnx_load import load  # noqa: F401

__all__ = ["export", "load"]
