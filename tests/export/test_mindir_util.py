"""ms.load_mindir / ms.save_mindir / ms.export_split_mindir (and ms.train.export): MindSpore
2.10's names, checks and messages (tests/oracle/record_mindir.py util recorded the wheel's)."""
import json
import os
import shutil
import sys

import numpy as np
import pytest

import pycompile as ms

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "oracle", "data", "mindir")
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
from record_mindir import util_cases  # noqa: E402  (needs no MindSpore)

with open(os.path.join(DATA, "util_errors.json")) as _f:
    RECORDED = json.load(_f)["cases"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(DATA, "mlp.mindir"), "m.mindir")
    with open("junk.mindir", "wb") as f:
        f.write(b"hello\n")
    return str(tmp_path)


@pytest.mark.parametrize("case", sorted(util_cases()))
def test_errors_as_mindspore(case, work):
    fn, args = util_cases()[case]
    if fn == "save_mindir" and args[0] is None:
        args = [ms.load_mindir("m.mindir"), args[1]]
    want = RECORDED[case]["error"]
    with pytest.raises(Exception) as info:
        getattr(ms, fn)(*args)
    assert type(info.value).__name__ == want["type"]
    first = str(info.value).splitlines()[0].replace(os.path.realpath(work), "<dir>")
    if case == "load_junk":           # the protobuf runtime's own words differ between its implementations
        assert first
    else:
        assert first == want["message_first_line"]


def test_user_info_saved_and_loaded_back(work):
    want = RECORDED["save_then_load"]
    md = ms.load_mindir("m.mindir")
    assert md.graph.name == want["graph_name"] and len(md.graph.node) == want["nodes"]
    md.user_info["version"] = "pangu v100"
    ms.save_mindir(md, "out/new")
    assert oct(os.stat("out/new.mindir").st_mode & 0o777) == want["mode"]
    assert dict(ms.load_mindir("out/new.mindir").user_info) == want["user_info"]
    ms.save_mindir(md, "out/new")           # a read-only file from before is overwritten, as MindSpore does
    cell = ms.nn.GraphCell(ms.load("out/new.mindir"))    # the saved file still runs
    assert cell(ms.Tensor(np.ones((4, 16), np.float32))).shape == (4, 10)


def test_split_of_an_existing_file_is_not_supported(work):
    with pytest.raises(NotImplementedError, match=r"For 'Split MindIR', pycompile does not split"):
        ms.export_split_mindir("m.mindir")


def test_train_namespace_has_export_names():
    from pycompile.train.serialization import export_split_mindir
    assert ms.train.export is ms.export and ms.train.export_split_mindir is export_split_mindir is ms.export_split_mindir
