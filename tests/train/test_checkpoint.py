"""Checkpoints against MindSpore 2.10: files its wheel wrote load here with the same names, dtypes,
shapes and values; pycompile writes the same bytes the wheel writes; MindSpore read pycompile's
files back (recorded by record_ckpt_roundtrip.py); filters, load_param_into_net's results and
errors match; a save killed midway never damages the file under the final name."""
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ckpt_cases
import pycompile as ms
from pycompile import nn
from pycompile.train import _checkpoint_pb as pb
from pycompile.train import serialization

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ckpt")
with open(os.path.join(FIX, "ms_ckpt.json"), encoding="utf-8") as _f:
    MS = json.load(_f)
with open(os.path.join(FIX, "ms_reads_pycompile.json"), encoding="utf-8") as _f:
    MS_READS = json.load(_f)


def describe(value):
    """The same record record_ckpt_fixtures.describe makes from MindSpore's objects."""
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    arr = value.asnumpy()
    return {"kind": type(value).__name__, "name": getattr(value, "name", None),
            "requires_grad": getattr(value, "requires_grad", None),
            "dtype": str(value.dtype), "shape": list(arr.shape),
            "values": arr.astype(np.float64).tolist() if arr.dtype.kind == "f" else arr.tolist()}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def dtype_params():
    return {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in ckpt_cases.dtype_arrays().items()}


def fresh_net(spec=ckpt_cases.NET_SPEC):
    return ckpt_cases.build_net(nn.Cell, ms.Parameter, ms.Tensor, spec, {n: np.zeros(s, d) for n, s, d in spec})


# What the wheel saved into each ms_* fixture, rebuilt with pycompile's objects.
MS_FILES = {
    "ms_dtypes.ckpt": lambda: (dtype_params(), {"append_dict": ckpt_cases.append_values(ms.Tensor)}),
    "ms_dtypes_crc.ckpt": lambda: (dtype_params(), {"crc_check": True}),
    "ms_net.ckpt": lambda: (ckpt_cases.build_net(nn.Cell, ms.Parameter, ms.Tensor), {}),
    "ms_net_choice.ckpt": lambda: (ckpt_cases.build_net(nn.Cell, ms.Parameter, ms.Tensor),
                                   {"choice_func": lambda n: n.startswith("head.")}),
    "ms_list.ckpt": lambda: ([{"name": k, "data": ms.Tensor(v)}
                              for k, v in list(ckpt_cases.dtype_arrays().items())[:4]], {}),
    "ms_ndarray_dict.ckpt": lambda: (dict(list(ckpt_cases.dtype_arrays().items())[:3]), {}),
    "ms_dtypes.safetensors": lambda: (dtype_params(), {"format": "safetensors"}),
}


def fmt_of(name):
    return "safetensors" if name.endswith(".safetensors") else "ckpt"


def comparable(records):
    """Safetensors Parameters carry counter names ('Parameter#7') that differ between processes."""
    out = []
    for key, rec in records:
        rec = dict(rec)
        if rec.get("name", "").startswith("Parameter#"):
            rec["name"] = "Parameter#"
        out.append([key, rec])
    return out


@pytest.mark.parametrize("name", sorted(MS["files"]))
def test_loads_files_mindspore_wrote(name):
    loaded = ms.load_checkpoint(os.path.join(FIX, name), format=fmt_of(name))
    got = [[k, describe(v)] for k, v in loaded.items()]
    assert comparable(got) == comparable(MS["files"][name]["loaded"])


@pytest.mark.parametrize("name", sorted(MS_FILES))
def test_writes_the_bytes_mindspore_writes(name, tmp_path):
    obj, kwargs = MS_FILES[name]()
    path = tmp_path / name
    ms.save_checkpoint(obj, str(path), **kwargs)
    assert sha256(path) == MS["files"][name]["file"]["sha256"]
    assert oct(os.stat(path).st_mode & 0o777) == MS["files"][name]["file"]["mode"]  # read-only, as the wheel


@pytest.mark.parametrize("name", sorted(MS_READS["files"]))
def test_mindspore_read_what_pycompile_writes(name, tmp_path):
    """MindSpore loaded the committed pyc_* files (and wrote identical bytes itself); pycompile
    still writes exactly those bytes, and what MindSpore read is the content we meant."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import record_ckpt_roundtrip
    obj, kwargs = record_ckpt_roundtrip.contents(ms)[name]
    path = tmp_path / name
    ms.save_checkpoint(obj, str(path), **kwargs)
    rec = MS_READS["files"][name]
    assert sha256(path) == sha256(os.path.join(FIX, name)) == rec["sha256"] == rec["mindspore_own_sha256"]
    expected = dict(ckpt_cases.dtype_arrays())
    expected.update(ckpt_cases.net_values())
    for key, seen in rec["loaded"]:
        if seen["kind"] == "str":
            assert seen["value"] == ckpt_cases.append_values(ms.Tensor)[key]
            continue
        want = expected.get(key)
        if want is None:      # an append_dict scalar or Tensor
            want = np.asarray(ckpt_cases.append_values(ms.Tensor)[key])
        assert seen["shape"] == list(want.shape)
        np.testing.assert_array_equal(np.array(seen["values"]), want.astype(np.float64) if want.dtype.kind == "f"
                                      else want)


def test_mindspore_loaded_pycompile_net_into_its_net():
    rec = MS_READS["pyc_net_into_net"]
    values = ckpt_cases.net_values()
    assert rec["keys"] == [n for n, _, _ in ckpt_cases.NET_SPEC if n == "step"] + \
        [n for n, _, _ in ckpt_cases.NET_SPEC if n != "step"]
    for name, seen in rec["after"]:
        np.testing.assert_array_equal(np.array(seen["values"]), values[name])


def test_append_dict_values_come_back_as_mindspore_types(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint({"w": ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")}, path,
                       append_dict={"epoch_num": 3, "lr": 0.5, "flag": False, "tag": "x"})
    out = ms.load_checkpoint(path)
    assert [(k, str(v.dtype), v.shape) for k, v in out.items() if k != "tag"] == \
        [("w", "Float32", (2,)), ("epoch_num", "Int64", ()), ("lr", "Float32", ()), ("flag", "Bool", ())]
    assert out["tag"] == "x" and isinstance(out["tag"], str)
    assert isinstance(out["w"], ms.Parameter) and out["w"].name == "w"


@pytest.mark.parametrize("case", sorted(k for k in MS["filters"] if k != "filter_everything"))
def test_load_filters_match(case):
    path = os.path.join(FIX, "ms_dtypes.ckpt")
    kwargs = {
        "specify_prefix_f": {"specify_prefix": "f"},
        "specify_prefix_list": {"specify_prefix": ["i8", "u"]},
        "filter_prefix_f": {"filter_prefix": "f"},
        "both": {"specify_prefix": "f", "filter_prefix": "f32"},
        "choice_func_bool": {"choice_func": lambda n: n.startswith("bool")},
        "choice_and_prefix": {"specify_prefix": "i8", "choice_func": lambda n: False},
    }[case]
    assert list(ms.load_checkpoint(path, **kwargs)) == MS["filters"][case]


def test_filtering_everything_raises_like_mindspore():
    rec = MS["filters"]["filter_everything"]
    path = os.path.join(FIX, "ms_dtypes.ckpt")
    with pytest.raises(Exception) as info:
        ms.load_checkpoint(path, filter_prefix=["f", "i", "u", "b", "e", "l", "n", "m"])
    assert type(info.value).__name__ == rec["raises"]
    assert rec["message"] in str(info.value)


@pytest.mark.parametrize("case", sorted(ckpt_cases.LOAD_CASES))
def test_load_param_into_net_matches(case):
    net_spec, dict_spec, strict = ckpt_cases.LOAD_CASES[case]
    rec = MS["load_into_net"][case]
    net = fresh_net(net_spec)
    values = ckpt_cases.net_values(dict_spec)
    pdict = {n: ms.Parameter(ms.Tensor(values[n]), name=n) for n, _, _ in dict_spec}
    if case == "exact":
        pdict["note"] = "a string entry"
    if "raises" in rec:
        with pytest.raises(Exception) as info:
            ms.load_param_into_net(net, pdict, strict_load=strict)
        assert type(info.value).__name__ == rec["raises"]
        assert str(info.value) == rec["message"]
    else:
        param_not_load, ckpt_not_load = ms.load_param_into_net(net, pdict, strict_load=strict)
        assert [param_not_load, ckpt_not_load] == rec["returns"]
    assert [[p.name, describe(p)] for _, p in net.parameters_and_names()] == rec["after"]


def test_load_checkpoint_with_net_loads_it():
    net = fresh_net()
    out = ms.load_checkpoint(os.path.join(FIX, "ms_net.ckpt"), net=net)
    assert list(out) == [e[0] for e in MS["files"]["ms_net.ckpt"]["loaded"]]
    for name, value in ckpt_cases.net_values().items():
        np.testing.assert_array_equal(dict(net.parameters_and_names())[name].asnumpy(), value)


def test_loading_keeps_parameters_live_in_place():
    """Same shape and dtype: the value is written into the Parameter's buffer (compiled code
    holding that buffer sees it)."""
    net = fresh_net()
    weight = dict(net.parameters_and_names())["fc1.weight"]
    buffer = weight._data
    ms.load_checkpoint(os.path.join(FIX, "ms_net.ckpt"), net=net)
    assert weight._data is buffer
    np.testing.assert_array_equal(buffer, ckpt_cases.net_values()["fc1.weight"])


ERROR_CASES = ["truncated_last_byte", "truncated_half", "truncated_10", "foreign_png", "foreign_text", "empty"]


@pytest.mark.parametrize("case", ERROR_CASES)
def test_broken_files_raise_mindspores_error_naming_the_file(case, tmp_path):
    with open(os.path.join(FIX, "ms_dtypes.ckpt"), "rb") as f:
        good = f.read()
    blob = {"truncated_last_byte": good[:-1], "truncated_half": good[:len(good) // 2], "truncated_10": good[:10],
            "empty": b"", "foreign_png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
            "foreign_text": b"this is not a checkpoint\n" * 10}[case]
    path = tmp_path / f"{case}.ckpt"
    path.write_bytes(blob)
    rec = MS["errors"][case]
    with pytest.raises(Exception) as info:
        ms.load_checkpoint(str(path))
    assert type(info.value).__name__ == rec["raises"]
    assert str(path) in str(info.value)
    assert rec["message"].replace("<DIR>", str(tmp_path)) in str(info.value)


def test_argument_errors_match(tmp_path):
    cases = {
        "missing_file": lambda: ms.load_checkpoint(str(tmp_path / "nope.ckpt")),
        "wrong_suffix": lambda: ms.load_checkpoint(str(tmp_path / "x.bin")),
        "save_into_directory": lambda: ms.save_checkpoint(dtype_params(), str(tmp_path)),
        "save_bad_object": lambda: ms.save_checkpoint(42, str(tmp_path / "a.ckpt")),
        "save_bad_append": lambda: ms.save_checkpoint(dtype_params(), str(tmp_path / "a.ckpt"),
                                                      append_dict={"x": [1, 2]}),
        "save_list_of_non_dicts": lambda: ms.save_checkpoint([1, 2], str(tmp_path / "a.ckpt")),
        "load_into_non_cell": lambda: ms.load_param_into_net(object(), {}),
        "load_dict_bad_value": lambda: ms.load_param_into_net(nn.Dense(2, 2), {"weight": np.zeros((2, 2))}),
    }
    for case, fn in cases.items():
        rec = MS["errors"][case]
        with pytest.raises(Exception) as info:
            fn()
        assert type(info.value).__name__ == rec["raises"], case
        assert str(info.value) == rec["message"].replace("<DIR>", str(tmp_path)), case


def test_suffix_is_appended_like_mindspore(tmp_path):
    ms.save_checkpoint(dtype_params(), str(tmp_path / "noext"))
    assert "noext.ckpt" in MS["errors"]["suffix_added"]
    assert os.listdir(tmp_path) == ["noext.ckpt"]


def test_crc_trailer_detects_corruption(tmp_path):
    path = tmp_path / "c.ckpt"
    ms.save_checkpoint(dtype_params(), str(path), crc_check=True)
    assert sorted(ms.load_checkpoint(str(path), crc_check=True)) == sorted(ckpt_cases.dtype_arrays())
    blob = bytearray(path.read_bytes())
    at = bytes(blob).index(ckpt_cases.dtype_arrays()["u64.vec"].tobytes())
    blob[at + 3] ^= 0x01                  # one bit of a tensor's content: still parses, wrong value
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="crc check is failed"):
        ms.load_checkpoint(str(bad), crc_check=True)
    assert "bool.scalar" in ms.load_checkpoint(str(bad))      # without the check it still parses


def test_sliced_entries_are_joined(tmp_path):
    """MindSpore writes entries over 512 MB as consecutive slices with one tag."""
    full = np.arange(24, dtype=np.float32).reshape(6, 4)
    blob = b"".join(pb.encode_entry("big", full.shape, "Float32", part.tobytes()) for part in np.array_split(full, 3))
    blob += pb.encode_entry("small", [2], "Int32", np.array([5, 6], np.int32).tobytes())
    path = tmp_path / "s.ckpt"
    path.write_bytes(blob)
    out = ms.load_checkpoint(str(path))
    np.testing.assert_array_equal(out["big"].asnumpy(), full)
    np.testing.assert_array_equal(out["small"].asnumpy(), [5, 6])


def test_bfloat16_entries_load_as_bfloat16(tmp_path):
    values = np.array([1.0, -2.5, 3.140625, 0.0], np.float32)
    bf16 = (values.view(np.uint32) >> 16).astype(np.uint16)    # exact: these need 8 mantissa bits
    path = tmp_path / "b.ckpt"
    path.write_bytes(pb.encode_entry("w", [4], "BFloat16", bf16.tobytes()))
    out = ms.load_checkpoint(str(path))["w"]
    assert out.dtype == ms.bfloat16
    np.testing.assert_array_equal(out.asnumpy().astype(np.float32), values)


def test_wrong_content_size_names_the_file(tmp_path):
    path = tmp_path / "w.ckpt"
    path.write_bytes(pb.encode_entry("w", [3], "Float32", b"\0" * 8))
    with pytest.raises(ValueError, match="failed to load the checkpoint file .*w.ckpt"):
        ms.load_checkpoint(str(path))


def test_safetensors_roundtrip_and_bytesio(tmp_path):
    path = tmp_path / "m.safetensors"
    ms.save_checkpoint(dtype_params(), str(path), format="safetensors")
    out = ms.load_checkpoint(io.BytesIO(path.read_bytes()), format="safetensors",
                             choice_func=lambda n: n.startswith("u"))
    assert list(out) == sorted(k for k in ckpt_cases.dtype_arrays() if k.startswith("u"))
    np.testing.assert_array_equal(out["u64.vec"].asnumpy(), ckpt_cases.dtype_arrays()["u64.vec"])


def test_missing_safetensors_package_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    with pytest.raises(ImportError, match=r"pip install 'pycompile\[safetensors\]'"):
        ms.save_checkpoint(dtype_params(), str(tmp_path / "m.safetensors"), format="safetensors")
    assert os.listdir(tmp_path) == []


def test_async_save_writes_a_snapshot(tmp_path):
    p = ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float32)), name="p")
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint([p], path, async_save=True)
    p.set_data(ms.Tensor(np.zeros(4, np.float32)))           # after the call: not in the file
    serialization._wait_async_saves()
    np.testing.assert_array_equal(ms.load_checkpoint(path)["p"].asnumpy(), [0, 1, 2, 3])


def test_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "k.ckpt"
    ms.save_checkpoint(dtype_params(), str(path))
    before = path.read_bytes()
    calls = []

    def failing(*args):
        calls.append(args)
        if len(calls) > 3:
            raise OSError("disk full")
        return original(*args)
    original = pb.encode_entry
    monkeypatch.setattr(pb, "encode_entry", failing)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint({"x": ms.Tensor(np.ones((5, 5), np.float32))} | dtype_params(), str(path))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["k.ckpt"]


KILLED_WRITER = textwrap.dedent("""
    import sys, time
    import numpy as np
    import pycompile as ms
    from pycompile.train import _checkpoint_pb as pb
    original = pb.encode_entry
    def slow(*args):                 # make the save long enough to be caught in the middle
        time.sleep(0.01)
        return original(*args)
    pb.encode_entry = slow
    ms.save_checkpoint({f"w{i}": np.full(16384, i, np.float32) for i in range(400)}, sys.argv[1])
""")


def test_killed_writer_never_leaves_a_partial_file_under_the_final_name(tmp_path):
    path = tmp_path / "model.ckpt"
    ms.save_checkpoint(dtype_params(), str(path))
    before = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            temps = [f for f in os.listdir(tmp_path) if f != "model.ckpt"]
            if temps and os.path.getsize(tmp_path / temps[0]) > 64 * 1024:   # well into writing
                break
            assert proc.poll() is None, "the writer finished before it could be killed"
            time.sleep(0.002)
        else:
            pytest.fail("the writer never started writing")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before                 # the previous checkpoint, intact
    assert sorted(ms.load_checkpoint(str(path))) == sorted(ckpt_cases.dtype_arrays())
    leftovers = [f for f in os.listdir(tmp_path) if f != "model.ckpt"]
    assert all(f.startswith(".model.ckpt.") and f.endswith(".tmp") for f in leftovers)
    ms.save_checkpoint({"w": ms.Tensor(np.ones(2, np.float32))}, str(path))    # and the name is reusable
    assert list(ms.load_checkpoint(str(path))) == ["w"]


def test_public_names_are_where_mindspore_has_them():
    import pycompile.train as train
    assert ms.save_checkpoint is train.save_checkpoint is serialization.save_checkpoint
    assert ms.load_checkpoint is train.load_checkpoint
    assert ms.load_param_into_net is train.load_param_into_net
