"""Who is to blame for an exception raised while a graph is traced: the user's program, or
pycompile itself.

Only errors about the user's program become user errors at the user's line: deliberate ones
(CompileError, an op's infer error, `errors.UserError`, a MindSpore name pycompile lacks), exceptions raised in the user's own
code or in code outside pycompile, exceptions raised by a Python operation the interpreter
performs on the user's values (a subscript, an attribute, an operator, a call: the methods
marked `@user_site`), and argument errors (TypeError / ValueError / IndexError) of pycompile's
library layers (ops, nn, common), which check what users pass them. Anything else - an
AttributeError or KeyError inside the compiler, say - is an internal error, reported as such
with its traceback chained.
"""
from __future__ import annotations

import os

from pycompile.common.missing import unsupported
from pycompile.errors import CompileError, UserError
from pycompile.ops._table import OpError

_PKG = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# layers whose functions users call directly and that validate the arguments they are given
_LIBRARY = tuple(os.path.join(_PKG, d) + os.sep for d in ("ops", "nn", "common", "dataset", "train",
                                                                    "numpy"))
_ARGUMENT_ERRORS = (TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError)
_BUG_ERRORS = (AttributeError, KeyError, NameError, AssertionError)

USER_SITES: set = set()


def user_site(fn):
    """Mark an interpreter method that performs an operation the user's code asked for: an
    exception raised right there (by Python itself) is about the user's values."""
    USER_SITES.add(fn.__code__)
    return fn


def _innermost(exc: BaseException):
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last.tb_frame.f_code if last is not None else None


def is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, (CompileError, OpError, UserError)) or unsupported(exc):
        return True             # unsupported: the program uses a MindSpore name pycompile lacks
    code = _innermost(exc)
    if code is None or code in USER_SITES:
        return True
    path = os.path.realpath(code.co_filename)
    if not path.startswith(_PKG + os.sep):
        return True             # the user's code, NumPy, the standard library
    return path.startswith(_LIBRARY) and isinstance(exc, _ARGUMENT_ERRORS) and not isinstance(exc, _BUG_ERRORS)
