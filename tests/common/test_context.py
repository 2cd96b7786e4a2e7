"""set_context / get_context / set_device, with MindSpore 2.10's error types and messages."""
import os

import pytest

import pycompile as ms
from pycompile.common import context


def test_modes():
    assert ms.GRAPH_MODE == 0 and ms.PYNATIVE_MODE == 1
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == 0
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ms.get_context("mode") == 1


@pytest.mark.parametrize("key, value", [
    ("device_target", "CPU"), ("device_target", "Ascend"), ("device_id", 3), ("enable_compile_cache", True),
    ("compile_cache_path", "/tmp/pc-cache"), ("save_graphs", 2), ("save_graphs", True),
    ("save_graphs_path", "/tmp/pc-graphs"), ("runtime_num_threads", 2), ("jit_level", "O0"),
    ("max_call_depth", 50), ("pynative_synchronize", True), ("jit_syntax_level", ms.STRICT),
    ("deterministic", "ON"), ("runtime_num_threads", 0),
])
def test_set_then_get_each_key(key, value):
    ms.set_context(**{key: value})
    assert ms.get_context(key) == value


def test_path_like_values_are_stored_as_strings(tmp_path):
    ms.set_context(compile_cache_path=tmp_path)
    assert ms.get_context("compile_cache_path") == str(tmp_path)


def test_defaults():
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("device_id") == 0
    assert ms.get_context("save_graphs_path") == "."
    assert ms.get_context("max_call_depth") == 1000
    assert ms.get_context("pynative_synchronize") is False


def test_set_several_keys_at_once_and_reset():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    assert (ms.get_context("mode"), ms.get_context("device_target")) == (0, "Ascend")
    context.reset()
    assert (ms.get_context("mode"), ms.get_context("device_target")) == (1, "CPU")


def test_set_device():
    ms.set_device("Ascend")
    assert ms.get_context("device_target") == "Ascend"
    ms.set_device("CPU", 0)
    assert ms.get_context("device_target") == "CPU" and ms.get_context("device_id") == 0
    with pytest.raises(ValueError, match=r"must be one of \['CPU', 'GPU', 'Ascend'\], but got TPU."):
        ms.set_device("TPU")


@pytest.mark.parametrize("kwargs, exc, pattern", [
    # MindSpore 2.10's classes and messages (the whole recorded list: test_context_mindspore.py)
    ({"foo": 1}, ValueError, r"For 'context.set_context', the keyword argument foo is not recognized!"),
    ({"mode": 5}, ValueError,
     r"For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE \(0\) or "
     r"context.PYNATIVE_MODE \(1\), but got 5."),
    ({"mode": "graph"}, TypeError, r"The parameter 'mode' must be <class 'int'>, but got <class 'str'>"),
    ({"device_target": "TPU"}, ValueError, r"For 'context.set_context', the argument 'device_target' must be one "
                                           r"of \['CPU', 'GPU', 'Ascend', 'Davinci'\], but got TPU."),
    ({"device_target": "cpu"}, ValueError, r"'device_target'.*but got cpu"),
    ({"device_target": "GPU"}, RuntimeError, r"Unsupported device target GPU"),
    ({"device_target": 1}, TypeError, r"The parameter 'device_target' must be <class 'str'>"),
    ({"device_id": -1}, ValueError, r"'device_id' must be in range \[0, 4095\], but got -1"),
    ({"max_call_depth": 0}, ValueError, r"'max_call_depth' must be greater than 0, but got 0"),
    ({"runtime_num_threads": -1}, ValueError, r"The num of thread must bigger than or equal to 0."),
    ({"enable_compile_cache": 1}, TypeError, r"The parameter 'enable_compile_cache' must be <class 'bool'>"),
    ({"save_graphs": "x"}, TypeError, r"The parameter 'save_graphs' must be \(<class 'bool'>, <class 'int'>\)"),
    ({"save_graphs": 7}, ValueError, r"value for save_graphs should be 0-3 but got '7'"),
    # MindSpore's CPU wheel takes -1 and 'O5'; its documentation says 0-3 and 'O0' / 'O1' / 'O2'
    ({"save_graphs": -1}, ValueError, r"value for save_graphs should be 0-3 but got '-1'"),
    ({"jit_level": "O5"}, ValueError, r"'jit_level'.*'O5'"),
    ({"compile_cache_path": 3}, RuntimeError, r"Got illegal param 66 and value with type <class 'int'>"),
    ({"deterministic": "on"}, ValueError, r"'deterministic' must be one of \['ON', 'OFF'\], but got on."),
    ({"jit_syntax_level": 7}, ValueError, r"For 'jit_syntax_level', the value should be context.STRICT or "
                                          r"context.LAX, but got 7."),
    ({"jit_syntax_level": "a"}, TypeError, r"The parameter 'jit_syntax_level' must be <class 'int'>"),
])
def test_bad_settings(kwargs, exc, pattern):
    before = {k: ms.get_context(k) for k in ("mode", "device_target", "device_id")}
    with pytest.raises(exc, match=pattern):
        ms.set_context(**kwargs)
    assert {k: ms.get_context(k) for k in before} == before


def test_a_bad_key_sets_nothing():
    with pytest.raises(ValueError):
        ms.set_context(mode=ms.GRAPH_MODE, foo=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_get_context_unknown_key():
    with pytest.raises(ValueError, match="For 'context.get_context', the argument foo is not recognized!"):
        ms.get_context("foo")


def test_listeners_see_changes():
    seen = []
    context.on_change(seen.append)
    try:
        ms.set_context(device_target="Ascend")
    finally:
        context._listeners.remove(seen.append)
    assert seen == [{"device_target": "Ascend"}]


def test_default_cache_dir_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("MS_COMPILER_CACHE_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert context.compile_cache_settings()[1] == os.path.join(str(tmp_path), "pycompile")
    # unset or relative (invalid per the XDG spec): ~/.cache
    for value in ("", "relative/dir"):
        monkeypatch.setenv("XDG_CACHE_HOME", value)
        assert context.compile_cache_settings()[1] == os.path.join(os.path.expanduser("~"), ".cache", "pycompile")
    monkeypatch.setenv("MS_COMPILER_CACHE_PATH", str(tmp_path / "explicit"))
    assert context.compile_cache_settings()[1] == str(tmp_path / "explicit")
