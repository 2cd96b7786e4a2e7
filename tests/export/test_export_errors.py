"""ms.export's and ms.onnx.export's argument errors equal MindSpore 2.10's, class and message
(tests/oracle/record_export.py -> tests/oracle/data/export_errors.json); the files a call writes
(`.onnx` appended unless the name ends so)."""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import nn

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle", "data", "export_errors.json")
with open(DATA, encoding="utf-8") as _f:
    ORACLE = json.load(_f)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x))


KEY = b"0123456789abcdef"
CASES = {   # the recorder's calls (tests/oracle/record_export.py: errors())
    "format_lowercase_onnx": dict(file_name="m", file_format="onnx"),
    "format_unknown": dict(file_name="m", file_format="TFLITE"),
    "format_none": dict(file_name="m", file_format=None),
    "file_name_not_str": dict(file_name=3, file_format="ONNX"),
    "file_name_directory": dict(file_name="out/", file_format="ONNX"),
    "file_name_illegal": dict(file_name="my model", file_format="ONNX"),
    "enc_key_onnx": dict(file_name="m", file_format="ONNX", enc_key=KEY),
    "enc_key_onnx_mode": dict(file_name="m", file_format="ONNX", enc_key=KEY, enc_mode="AES-CBC"),
    "enc_key_not_bytes": dict(file_name="m", file_format="ONNX", enc_key="0123456789abcdef"),
    "enc_mode_not_str": dict(file_name="m", file_format="ONNX", enc_key=KEY, enc_mode=3),
    "custom_func_onnx": dict(file_name="m", file_format="ONNX", custom_func=lambda m: None),
    "obf_func": dict(file_name="m", file_format="ONNX", obf_func=lambda m: None),
}


def _expect(case):
    err = ORACLE["errors"][case]["error"] if case in ORACLE["errors"] else ORACLE[case]["error"]
    return err["type"], err["message_first_line"]


def _check(call, case):
    kind, message = _expect(case)
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value).__name__ == kind
    assert str(info.value).splitlines()[0] == message


@pytest.mark.parametrize("case", sorted(CASES))
def test_export_argument_errors(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _check(lambda: ms.export(Net(), ms.Tensor(np.ones((2, 4), np.float32)), **CASES[case]), case)
    assert os.listdir(tmp_path) == []


def test_file_format_has_no_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _check(lambda: ms.export(Net(), ms.Tensor(np.ones((2, 4), np.float32)), file_name="m"), "missing_file_format")


def test_onnx_of_a_function_or_dynamic_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    _check(lambda: ms.export(lambda a: a, x, file_name="m", file_format="ONNX"), "onnx_function_not_cell")
    _check(lambda: ms.export(Net(), ms.Tensor(shape=[None, 4], dtype=ms.float32), file_name="m", file_format="ONNX"),
           "onnx_dynamic_input")
    _check(lambda: ms.onnx.export(Net(), x, file_name="m", input_names="x"), "onnx_module_input_names_not_list")
    kind, message = _expect("onnx_module_not_cell")     # MindSpore's message names its own Cell class
    with pytest.raises(ValueError, match="^The parameter 'net' must be isinstance of <class '[a-z.]*Cell'>, but got "
                                         "<function"):
        ms.onnx.export(lambda a: a, x, file_name="m")
    assert kind == "ValueError" and message.startswith("The parameter 'net' must be isinstance of <class ")


def test_files_written(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    monkeypatch.chdir(tmp_path)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    for name, want in ORACLE["written"].items():
        before = set(_files("."))
        if name.startswith("mindspore.onnx.export "):
            ms.onnx.export(Net(), x, file_name=name.split()[-1])
        else:
            ms.export(Net(), x, file_name=name, file_format="ONNX")
        assert sorted(set(_files(".")) - before) == want, name


def _files(root):
    for d, _, fs in os.walk(root):
        for f in fs:
            yield os.path.relpath(os.path.join(d, f), root)


def test_onnx_without_the_onnx_package_says_how_to_install_it(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "onnx", None)      # `import onnx` raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'pycompile\[onnx\]'"):
        ms.export(Net(), ms.Tensor(np.ones((2, 4), np.float32)), file_name=str(tmp_path / "m"), file_format="ONNX")
    assert os.listdir(tmp_path) == []


def test_mindir_goes_to_export_mindir(tmp_path, monkeypatch):
    """MINDIR is written by pycompile.export.mindir.export_mindir(net, inputs, file_name, **kwargs)."""
    import sys
    import types
    calls = []
    fake = types.ModuleType("pycompile.export.mindir")
    fake.export_mindir = lambda net, inputs, file_name, **kw: calls.append((net, inputs, file_name, kw))
    monkeypatch.setitem(sys.modules, "pycompile.export.mindir", fake)
    net, x = Net(), ms.Tensor(np.ones((2, 4), np.float32))
    ms.export(net, x, file_name="m", file_format="MINDIR", enc_key=KEY, enc_mode="AES-CBC")
    assert calls == [(net, (x,), "m", {"enc_key": KEY, "enc_mode": "AES-CBC"})]
    _check(lambda: ms.export(net, x, file_name="m", file_format="MINDIR", enc_key=KEY, enc_mode="DES"),
           "enc_mode_mindir_unknown")
