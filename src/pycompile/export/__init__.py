"""`ms.export`: a network to a model file, with MindSpore 2.10's signature and argument errors.

file_format "ONNX" is written by export/onnx.py; "MINDIR" by export/mindir.py
(`export_mindir(net, inputs, file_name, **kwargs)`); "AIR" (Ascend's format, deprecated in
MindSpore) is not written. The checks below are MindSpore's, in its order, with its messages
(tests/oracle/data/export_errors.json records them from the wheel).
"""
from __future__ import annotations

from pycompile.common import log
from pycompile.export.checks import check_file_name, check_isinstance

SUPPORTED_FORMATS = ['AIR', 'ONNX', 'MINDIR']


def _check_key_mode(file_format: str, kwargs: dict) -> None:
    check_isinstance("enc_key", kwargs.get("enc_key"), bytes)
    enc_mode = kwargs.get("enc_mode")
    if callable(enc_mode):
        return
    enc_mode = check_isinstance("enc_mode", enc_mode, str) if "enc_mode" in kwargs else "AES-GCM"
    if file_format in ("AIR", "ONNX"):
        raise ValueError(f"AIR/ONNX only support customized encryption, but got {enc_mode}.")
    if enc_mode not in ("AES-CBC", "AES-GCM", "SM4-CBC"):
        raise ValueError(f"MindIR only support AES-GCM/AES-CBC/SM4-CBC encryption, but got {enc_mode}")


def export(net, *inputs, file_name, file_format, **kwargs):
    """Export `net` called on `inputs` to `file_name` in `file_format` ('MINDIR' or 'ONNX'; the
    suffix `.mindir` / `.onnx` is added when file_name lacks it). MindSpore 2.10's arguments:
    `file_format` has no default; `enc_key` / `enc_mode` encrypt (MINDIR only: ONNX takes a
    customized `enc_mode` function, as MindSpore); `custom_func` is MINDIR only.

    ONNX: the Cell traced in inference mode, opset 17, Parameters as named initializers; the ops
    it maps are listed in docs/guide/export.md. An op with no ONNX form raises a CompileError (a
    RuntimeError) naming it and the user's line.

    Returns the path written (MindSpore returns None; code that ignores the result is unaffected)."""
    if 'obf_func' in kwargs:
        raise NotImplementedError("Dynamic model structure obfuscation is no longer supported.")
    if file_format not in SUPPORTED_FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {SUPPORTED_FORMATS}, but got {file_format}.")
    check_file_name(file_name)
    if 'enc_key' in kwargs:
        _check_key_mode(file_format, kwargs)
    if kwargs.get("custom_func") is not None and file_format != "MINDIR":
        raise ValueError(f"Currently only support custom_func for MindIR format, but got {file_format} format.")
    if file_format == "AIR":
        raise NotImplementedError("pycompile cannot export AIR (Ascend's format, deprecated in MindSpore): use "
                                  "file_format='MINDIR' or 'ONNX'.")
    if file_format == "ONNX":
        log.logger.warning("mindspore.export(file_format='ONNX') will be deleted, please use mindspore.onnx.export()")
        from pycompile.nn.cell import Cell
        if not isinstance(net, Cell):
            raise ValueError(f"Export ONNX format model only support nn.Cell object, but got {type(net)}.")
        from pycompile.export.onnx import export_onnx
        path = export_onnx(net, inputs, file_name)
        enc_mode = kwargs.get("enc_mode")
        if "enc_key" in kwargs and callable(enc_mode):
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(enc_mode(data, kwargs["enc_key"]))
        return path
    from pycompile.export.mindir import export_mindir
    return export_mindir(net, inputs, file_name, **kwargs)


def _install_for_callbacks() -> None:
    """OnRequestExit (train, a layer below) writes MINDIR files through this module's export."""
    from pycompile.train.callback import _backup_exit
    _backup_exit.EXPORT[0] = export


_install_for_callbacks()
