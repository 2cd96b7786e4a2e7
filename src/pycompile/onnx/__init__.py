"""`mindspore.onnx`: `export(net, *inputs, file_name, input_names=None, output_names=None,
export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None)` (pycompile/export/onnx.py)."""
from pycompile.export.onnx import onnx_export as export  # noqa: F401

__all__ = ["export"]
