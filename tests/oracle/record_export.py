"""Record what MindSpore 2.10's `export` (and `mindspore.onnx.export`) do with their arguments
(run ONLY in the MindSpore venv):

    /work/ms-venv/bin/python tests/oracle/record_export.py     # data/export_errors.json

* errors: each bad call (format, file name, enc_key / enc_mode, custom_func, obf_func, a dynamic
  input with ONNX, a function instead of a Cell) as the exception's class and first line;
* missing_file_format: calling export without file_format (MindSpore 2.10 has no default);
* written: the file names a call writes (the `.onnx` suffix added or kept), relative to the
  working directory;
* onnx_dense: MindSpore's own ONNX file of a small Dense net, copied to
  data/export_mindspore_dense.onnx (the MindSpore venv has no `onnx` package: tests read it with
  theirs), so that pycompile's initializer names can be compared with MindSpore's.
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_common import DATA_DIR, capture, meta, write_json  # noqa: E402


def _net():
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.fc(x))
    return Net()


def errors():
    import mindspore as ms
    from mindspore import Tensor
    net = _net()
    x = Tensor(np.ones((2, 4), np.float32))
    dyn = Tensor(shape=[None, 4], dtype=ms.float32)
    cases = {
        "format_lowercase_onnx": dict(file_name="m", file_format="onnx"),
        "format_unknown": dict(file_name="m", file_format="TFLITE"),
        "format_none": dict(file_name="m", file_format=None),
        "file_name_not_str": dict(file_name=3, file_format="ONNX"),
        "file_name_directory": dict(file_name="out/", file_format="ONNX"),
        "file_name_illegal": dict(file_name="my model", file_format="ONNX"),
        "enc_key_onnx": dict(file_name="m", file_format="ONNX", enc_key=b"0123456789abcdef"),
        "enc_key_onnx_mode": dict(file_name="m", file_format="ONNX", enc_key=b"0123456789abcdef",
                                  enc_mode="AES-CBC"),
        "enc_key_not_bytes": dict(file_name="m", file_format="ONNX", enc_key="0123456789abcdef"),
        "enc_mode_not_str": dict(file_name="m", file_format="ONNX", enc_key=b"0123456789abcdef", enc_mode=3),
        "enc_mode_mindir_unknown": dict(file_name="m", file_format="MINDIR", enc_key=b"0123456789abcdef",
                                        enc_mode="DES"),
        "custom_func_onnx": dict(file_name="m", file_format="ONNX", custom_func=lambda m: None),
        "obf_func": dict(file_name="m", file_format="ONNX", obf_func=lambda m: None),
    }
    out = {name: capture(ms.export, net, x, **kw) for name, kw in cases.items()}
    out["onnx_dynamic_input"] = capture(ms.export, net, dyn, file_name="m", file_format="ONNX")
    out["onnx_function_not_cell"] = capture(ms.export, lambda a: a, x, file_name="m", file_format="ONNX")
    out["onnx_module_not_cell"] = capture(ms.onnx.export, lambda a: a, x, file_name="m")
    out["onnx_module_input_names_not_list"] = capture(ms.onnx.export, net, x, file_name="m", input_names="x")
    return out


def missing_file_format():
    import mindspore as ms
    from mindspore import Tensor
    return capture(ms.export, _net(), Tensor(np.ones((2, 4), np.float32)), file_name="m")


def written():
    import mindspore as ms
    from mindspore import Tensor
    out = {}
    x = Tensor(np.ones((2, 4), np.float32))
    for name in ("plain", "with_suffix.onnx", "with_other.suffix", "sub/dir/model"):
        before = set(_files("."))
        ms.export(_net(), x, file_name=name, file_format="ONNX")
        out[name] = sorted(set(_files(".")) - before)
    before = set(_files("."))
    ms.onnx.export(_net(), x, file_name="module_export")
    out["mindspore.onnx.export module_export"] = sorted(set(_files(".")) - before)
    return out


def _files(root):
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.relpath(os.path.join(d, f), root)
            if not p.startswith("rank_"):
                yield p


def onnx_lenet():
    import mindspore as ms
    from mindspore import Tensor
    import shutil
    ms.set_seed(0)
    ms.export(_net(), Tensor(np.ones((2, 4), np.float32)), file_name="dense", file_format="ONNX")
    shutil.copy("dense.onnx", os.path.join(DATA_DIR, "export_mindspore_dense.onnx"))
    os.chmod(os.path.join(DATA_DIR, "export_mindspore_dense.onnx"), 0o644)
    return "data/export_mindspore_dense.onnx"


def main():
    os.chdir(tempfile.mkdtemp())
    data = meta("tests/oracle/record_export.py")
    data["errors"] = errors()
    data["missing_file_format"] = missing_file_format()
    data["written"] = written()
    data["onnx_dense"] = capture(onnx_lenet)
    write_json(os.path.join(DATA_DIR, "export_errors.json"), data)


if __name__ == "__main__":
    main()
