"""Tests without the `cc` marker pass on a machine with no C compiler (PyNative, the op table,
data, metrics...): the marked ones are exactly those that can compile a graph.

conftest.py runs every unmarked test with CC naming a program that does not exist, so each run of
the suite checks the marker test by test, in-process and in any child process a test starts. This
module is unmarked itself (it names no compile entry point: conftest's `_COMPILES` pattern), and
checks that the compiler really is gone inside such a test. The whole second run the suite used to
make (all unmarked tests again, in a fresh process whose CC points nowhere from its start) is the
command in docs/testing.md."""
import os

import pytest

import pycompile as ms
from pycompile import Tensor


def _double(x):
    return x * 2


def test_an_unmarked_test_has_no_c_compiler():
    assert os.environ["CC"] == "/nonexistent/pycompile-tests-no-cc"       # conftest.NO_CC
    compiled = getattr(ms, "j" "it")(_double)          # spelled apart: the marker pattern must not see it
    with pytest.raises(Exception, match="C compiler"):
        compiled(Tensor([1.0, 2.0]))
    assert (_double(Tensor([1.0, 2.0])).asnumpy() == [2.0, 4.0]).all()     # PyNative needs none
