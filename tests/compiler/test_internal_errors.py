"""Honest errors: a failure inside pycompile is reported as an internal error with the original
exception chained (its traceback into pycompile kept), never as a mistake at the user's line;
errors about the user's program still point at the user's line."""
from __future__ import annotations

import traceback

import numpy as np
import pytest

from frontend_helpers import line_of

import pycompile as ms
from pycompile import Tensor
from pycompile.backend.c.codegen import CodeGen
from pycompile.compiler.builder import Builder
from pycompile.compiler.passes.cse import CSE
from pycompile.errors import CompileError, InternalCompilerError


def add_one(x):
    return x + 1


def _x():
    return Tensor(np.ones(3, np.float32))


def _break_builder(monkeypatch):
    monkeypatch.delattr(Builder, "sym")             # Builder.emit then fails inside pycompile


def _break_cse(monkeypatch):
    monkeypatch.setattr(CSE, "enter_block", lambda self, b: self.scopes.clear())


def _break_codegen(monkeypatch):
    monkeypatch.delattr(CodeGen, "_kinputs")


@pytest.mark.parametrize("breaker, kind, stage", [
    (_break_builder, AttributeError, "tracing"),
    (_break_cse, IndexError, "optimization"),
    (_break_codegen, AttributeError, "code generation"),
])
def test_internal_failures_are_reported_as_internal(monkeypatch, breaker, kind, stage):
    breaker(monkeypatch)
    with pytest.raises(InternalCompilerError) as info:
        ms.jit(add_one)(_x())
    err = info.value
    assert isinstance(err, RuntimeError) and not isinstance(err, CompileError)
    cause = err.__cause__
    assert type(cause) is kind, "the original exception is chained"
    text = str(err)
    assert text.startswith(f"internal error in pycompile during {stage}") and "bug in pycompile" in text
    assert "hint" not in text and "check the name" not in text
    # the chained traceback reaches pycompile's own frame that failed
    frames = traceback.extract_tb(cause.__traceback__)
    assert "pycompile" in frames[-1].filename and frames[-1].filename != __file__


def test_user_mistakes_stay_user_errors_at_the_users_line():
    def missing_attribute(x):
        return x.no_such_method()

    def missing_key(x):
        table = {"a": 1}
        return x + table["b"]

    def divide_by_zero(x):
        return x + 1 / 0

    def raises_in_helper(x):
        return x + _helper(3)

    for fn, kind in ((missing_attribute, AttributeError), (missing_key, KeyError),
                     (divide_by_zero, ZeroDivisionError), (raises_in_helper, ValueError)):
        with pytest.raises(CompileError) as info:
            ms.jit(fn)(_x())
        err = info.value
        assert not isinstance(err, InternalCompilerError), fn.__name__
        assert err.loc is not None and err.loc.file == __file__, fn.__name__
        assert kind.__name__ in str(err) or isinstance(err, kind) or err.loc.line > 0, fn.__name__


def _helper(n):
    if n > 2:
        raise ValueError("n is too large")
    return n


def test_a_library_argument_error_is_the_users():
    """ops validate what users pass them: a bad argument is the user's error, at their line."""
    def bad_axis(x):
        return ms.ops.sum(x, 5)

    with pytest.raises(CompileError) as info:
        ms.jit(bad_axis)(_x())
    assert info.value.loc.line == line_of(bad_axis, "ms.ops.sum")
