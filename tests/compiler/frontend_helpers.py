"""Shared checks for compiled-vs-eager tests: run a function eagerly (PyNative: plain Python
on NumPy-backed Tensors) and compiled with `ms.jit`, and compare the results leaf by leaf."""
import inspect
import linecache
import os

import numpy as np

import pycompile as ms
from pycompile import Tensor

PKG_DIR = os.path.dirname(ms.__file__)


def t(values, dtype=np.float32) -> Tensor:
    return Tensor(np.asarray(values, dtype))


def assert_same(got, expected, rtol=1e-5, atol=1e-6, path="out"):
    """Same structure, Tensor dtype / shape / values, Python number values."""
    if isinstance(expected, Tensor):
        assert isinstance(got, Tensor), f"{path}: expected a Tensor, got {type(got).__name__} {got!r}"
        assert got.dtype == expected.dtype, f"{path}: dtype {got.dtype} != {expected.dtype}"
        assert got.shape == expected.shape, f"{path}: shape {got.shape} != {expected.shape}"
        np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{path}: expected a sequence, got {got!r}"
        assert len(got) == len(expected), f"{path}: length {len(got)} != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, rtol, atol, f"{path}[{i}]")
    elif isinstance(expected, (bool, int, float, np.number)):
        g = got.asnumpy().item() if isinstance(got, Tensor) and got.size == 1 else got
        assert np.isclose(g, expected, rtol=rtol, atol=atol), f"{path}: {got!r} != {expected!r}"
    else:
        assert got == expected, f"{path}: {got!r} != {expected!r}"


def check(fn, *args, rtol=1e-5, atol=1e-6):
    """fn compiled equals fn run eagerly; returns the compiled result."""
    expected = fn(*args)
    got = ms.jit(fn)(*args)
    assert_same(got, expected, rtol, atol)
    return got


def line_of(fn, text: str) -> int:
    """The file line number of the first line of fn's source containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in the source of {fn.__name__}")


def col_of(fn, text: str) -> int:
    lines, _ = inspect.getsourcelines(fn)
    for line in lines:
        if text in line:
            return line.index(text)
    raise AssertionError(f"{text!r} not in the source of {fn.__name__}")


def check_many(fn, *arg_sets, rtol=1e-5, atol=1e-6):
    """check() for several argument tuples through one jit function (one compile per signature)."""
    jf = ms.jit(fn)
    for args in arg_sets:
        assert_same(jf(*args), fn(*args), rtol, atol)
    return jf


def assert_points_at(msg: str, fn, text: str, col_text: str | None = None):
    """The error message starts at `<file>:<line>:<col>:` of the first line of fn containing `text`
    (col of `col_text` in it, default `text`), quotes that line and puts a caret under col."""
    line = line_of(fn, text)
    src = linecache.getline(inspect.getsourcefile(fn), line).rstrip("\n")
    col = src.index(col_text or text)
    head = f"{inspect.getsourcefile(fn)}:{line}:{col}: "
    assert msg.startswith(head), f"expected the message to start with {head!r}:\n{msg}"
    lines = msg.splitlines()
    stripped = src.lstrip()
    assert "    " + stripped in lines, f"source line not quoted:\n{msg}"
    i = lines.index("    " + stripped)
    caret = "    " + " " * (col - (len(src) - len(stripped))) + "^"
    assert lines[i + 1] == caret, f"caret not under column {col}:\n{msg}"
    assert PKG_DIR not in msg and "pycompile/" not in msg, f"a pycompile file leaks into:\n{msg}"
