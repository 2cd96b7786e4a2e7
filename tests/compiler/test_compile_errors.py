"""Graph code pycompile cannot compile fails with `pycompile.CompileError` (a RuntimeError, like
MindSpore's) or its TypeError / ValueError / NameError kinds, pointing at the user's line:
`<file>:<line>:<col>:`, the source line, a caret under the column and a hint - and never naming
a pycompile file (STYLE rule 6, as Triton's test_compile_errors.py checks)."""
import math  # noqa: F401  (used by the graph code below)

import numpy as np
import pytest

from frontend_helpers import assert_points_at, line_of, t

import pycompile as ms
from pycompile import CompileError, Parameter, Tensor, nn, ops
from pycompile.errors import CompileTypeError

COUNTER = 0


def uses_try(x):
    try:
        x = x + 1
    except ValueError:
        x = x - 1
    return x


def uses_with(x):
    with open("/dev/null"):
        x = x + 1
    return x


def uses_import(x):
    import math as m
    return x * m.pi


def uses_from_import(x):
    from math import pi
    return x * pi


def uses_global(x):
    global COUNTER
    COUNTER = 1
    return x


def uses_nonlocal(x):
    k = 1

    def bump():
        nonlocal k
        k = 2
    bump()
    return x * k


def uses_class(x):
    class Local:
        pass
    return x


def uses_yield(x):
    yield x + 1


def uses_walrus(x):
    return (y := x + 1) * y


def raise_under_tensor(x):
    if x.sum() > 0:
        raise ValueError("positive")
    return x


def raise_constant(x):
    if x.shape[0] == 2:
        raise ValueError("two rows are not allowed")
    return x


def item_assign(x):
    t = (x, x)          # (item assignment on a tensor is a functional update: test_setitem.py)
    t[0] = 1
    return t[0]


def numpy_on_tensor(x):
    return np.sum(x) + 1


def numpy_exp_on_tensor(x):
    return np.exp(x)


def asnumpy_on_tensor(x):
    return x.asnumpy()


def int_of_tensor(x):
    n = int(x.sum())
    return x * n


def bool_of_tensor(x):
    flag = bool(x[0] > 0)
    return x, flag


def range_of_tensor(x):
    out = x
    for _ in range(x.sum()):
        out = out + 1
    return out


def multi_element_condition(x):
    if x > 0:
        return x
    return -x


def multi_element_while(x):
    while x < 10:
        x = x + 1
    return x


def multi_element_and(x, y):
    return x and y


def undefined_name(x):
    return x + not_defined_anywhere


def one_branch_only(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1


def defined_in_while_body(x):
    while x.sum() < 10:
        x = x + 1
        last = x * 2
    return last


def helper2(a, b):
    return a + b


def wrong_arg_count(x):
    return helper2(x)


def too_many_args(x):
    return helper2(x, x, x)


def lambda_wrong_args(x):
    f = lambda a: a + 1  # noqa: E731
    return f(x, x)


def branch_dtype_mismatch(x):
    if x.sum() > 0:
        y = x.astype(ms.int32)
    else:
        y = x
    return y


def branch_shape_mismatch(x):
    if x.sum() > 0:
        y = x
    else:
        y = x.sum()
    return y


def branch_float_into_int_tensor(x):
    if x.sum() > 0:
        y = 0.5                     # would silently become 0 as an int tensor
    else:
        y = x
    return y


def unpack_mismatch(x):
    a, b = (x, x, x)
    return a + b


def tuple_index_with_tensor(x):
    table = (1.0, 2.0, 3.0)
    return x * table[ops.cast(x.sum(), ms.int32)]


def bad_op_argument(x):
    return ops.reshape(x, (5, 7))


def undefined_attribute(x):
    return x.no_such_method()


def str_format_tensor(x):
    print(f"value {x}")
    return x


def runtime_recursion(x):
    if x.sum() > 100:
        return x
    return runtime_recursion(x * 2)


def nested_decorator(x):
    @staticmethod
    def inner(v):
        return v
    return inner(x)


class SetsAttribute(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = 0

    def construct(self, x):
        self.count = 1
        return x


class CallsNumpyInConstruct(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        return np.maximum(x, self.w)


X = np.array([1.0, -2.0], np.float32)

# (function, args, expected exception kinds, text of the line, text at the column, words in the message)
CASES = [
    (uses_try, (X,), (CompileError, RuntimeError), "try:", "try", ["Try"]),
    (uses_with, (X,), (CompileError,), 'with open("/dev/null"):', "with", ["With"]),
    (uses_import, (X,), (CompileError,), "import math as m", "import", ["Import"]),
    (uses_from_import, (X,), (CompileError,), "from math import pi", "from", ["Import"]),
    (uses_global, (X,), (CompileError,), "global COUNTER", "global", ["Global"]),
    (uses_nonlocal, (X,), (CompileError,), "nonlocal k", "nonlocal", ["Nonlocal"]),
    (uses_class, (X,), (CompileError,), "class Local:", "class", ["ClassDef"]),
    (uses_yield, (X,), (CompileError,), "yield x + 1", "yield", ["Yield"]),
    (uses_walrus, (X,), (CompileError,), "(y := x + 1)", "y := x + 1", ["NamedExpr"]),
    (raise_under_tensor, (X,), (CompileError,), 'raise ValueError("positive")', "raise", ["raise"]),
    (raise_constant, (X.reshape(2, 1),), (CompileError, ValueError), "raise ValueError", "raise",
     ["two rows are not allowed"]),
    (item_assign, (X,), (CompileError,), "t[0] = 1", "t[0]", ["item assignment"]),
    (numpy_on_tensor, (X,), (CompileError, TypeError), "return np.sum(x) + 1", "np.sum(x)", ["sum"]),
    (numpy_exp_on_tensor, (X,), (CompileError, TypeError), "return np.exp(x)", "np.exp(x)", ["exp"]),
    (asnumpy_on_tensor, (X,), (CompileError,), "return x.asnumpy()", "x.asnumpy()", ["asnumpy"]),
    (int_of_tensor, (X,), (CompileError,), "n = int(x.sum())", "int(x.sum())", ["int()"]),
    (bool_of_tensor, (X,), (CompileError,), "flag = bool(x[0] > 0)", "bool(x[0] > 0)", ["bool()"]),
    (range_of_tensor, (X,), (CompileError,), "for _ in range(x.sum()):", "range(x.sum())", ["range"]),
    (multi_element_condition, (X,), (CompileError, ValueError), "if x > 0:", "x > 0", ["2 elements"]),
    (multi_element_while, (X,), (CompileError, ValueError), "while x < 10:", "x < 10", ["2 elements"]),
    (multi_element_and, (X, X), (CompileError, ValueError), "return x and y", "x", ["2 elements"]),
    (undefined_name, (X,), (CompileError, NameError), "return x + not_defined_anywhere", "not_defined_anywhere",
     ["not_defined_anywhere"]),
    (one_branch_only, (X,), (CompileError, NameError, UnboundLocalError), "return y + 1", "y",
     ["'y'", "only one branch"]),
    (defined_in_while_body, (X,), (CompileError, UnboundLocalError), "return last", "last",
     ["'last'", "while"]),
    (wrong_arg_count, (X,), (CompileError, TypeError), "return helper2(x)", "helper2(x)", ["helper2", "b"]),
    (too_many_args, (X,), (CompileError, TypeError), "return helper2(x, x, x)", "helper2(x, x, x)",
     ["helper2", "argument"]),
    (lambda_wrong_args, (X,), (CompileError, TypeError), "return f(x, x)", "f(x, x)", ["argument"]),
    (branch_dtype_mismatch, (X,), (CompileError, TypeError), "if x.sum() > 0:", "if", ["'y'", "Int32", "Float32"]),
    (branch_shape_mismatch, (X,), (CompileError, TypeError), "if x.sum() > 0:", "if", ["'y'", "(2)", "()"]),
    (branch_float_into_int_tensor, (X.astype(np.int32),), (CompileError, TypeError), "if x.sum() > 0:", "if",
     ["'y'", "0.5", "Int32"]),
    (unpack_mismatch, (X,), (CompileError,), "a, b = (x, x, x)", "a, b", ["3", "2"]),
    (tuple_index_with_tensor, (X,), (CompileError,), "return x * table[", "table[", ["compile time"]),
    (bad_op_argument, (X,), (CompileError, ValueError), "return ops.reshape(x, (5, 7))", "ops.reshape",
     ["Reshape", "[5, 7]"]),
    (undefined_attribute, (X,), (CompileError,), "return x.no_such_method()", "x.no_such_method",
     ["no_such_method"]),
    (str_format_tensor, (X,), (CompileError,), 'print(f"value {x}")', "x}", ["string"]),
    (runtime_recursion, (X,), (CompileError,), "return runtime_recursion(x * 2)", "runtime_recursion(",
     ["runtime_recursion", "nest too deeply"]),
    (nested_decorator, (X,), (CompileError,), "@staticmethod", "staticmethod", ["decorator"]),
]


@pytest.mark.parametrize("fn, args, kinds, text, col_text, words", CASES, ids=[c[0].__name__ for c in CASES])
def test_unsupported_construct_points_at_the_user_line(fn, args, kinds, text, col_text, words):
    tensors = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    with pytest.raises(CompileError) as info:
        ms.jit(fn)(*tensors)
    err = info.value
    for kind in kinds:
        assert isinstance(err, kind), f"{type(err).__name__} is not a {kind.__name__}"
    msg = str(err)
    assert_points_at(msg, fn, text, col_text)
    for w in words:
        assert w in msg, f"{w!r} not in:\n{msg}"
    if fn not in (raise_constant, bad_op_argument):      # the user's own message / an op's shape check
        assert "\nhint: " in msg, f"no hint in:\n{msg}"
    assert err.__cause__ is None and err.__suppress_context__, "internal exceptions must not be chained"


@pytest.mark.parametrize("cell_cls, text, col_text, kinds", [
    (SetsAttribute, "self.count = 1", "self.count", (CompileError,)),
    (CallsNumpyInConstruct, "return np.maximum(x, self.w)", "np.maximum", (CompileError, TypeError)),
])
def test_unsupported_construct_in_cell_construct(cell_cls, text, col_text, kinds):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = cell_cls()
    with pytest.raises(CompileError) as info:
        net(t([1.0, 2.0]))
    for kind in kinds:
        assert isinstance(info.value, kind)
    assert_points_at(str(info.value), cell_cls.construct, text, col_text)
    assert "\nhint: " in str(info.value)


def inner_bad(v):
    return v.reshape((3, 3))


def outer_calls_inner(x):
    y = x + 1
    return inner_bad(y)


def test_error_in_a_called_user_function_points_at_that_function():
    with pytest.raises(ValueError) as info:
        ms.jit(outer_calls_inner)(t([1.0, 2.0]))
    assert_points_at(str(info.value), inner_bad, "return v.reshape((3, 3))", "v.reshape")


def test_every_error_message_is_an_exception_users_can_catch_as_mindspore_kinds():
    # TypeError kinds are also CompileErrors (RuntimeError), so `except RuntimeError` works too
    assert issubclass(CompileTypeError, RuntimeError) and issubclass(CompileTypeError, TypeError)
    assert issubclass(CompileError, RuntimeError)


class MyError(Exception):
    pass


def raise_custom(x):
    if x.ndim == 1:
        raise MyError("custom failure")
    return x


def test_raise_on_a_constant_condition_raises_the_users_exception_class():
    with pytest.raises(MyError) as info:
        ms.jit(raise_custom)(t([1.0]))
    assert isinstance(info.value, CompileError)
    assert "MyError: custom failure" in str(info.value)
    assert_points_at(str(info.value), raise_custom, 'raise MyError("custom failure")', "raise")
    np.testing.assert_allclose(ms.jit(raise_custom)(t([[1.0]])).asnumpy(), [[1.0]])


def reads_a_missing_op(x):
    return ops.certainly_not_an_op(x)


def test_a_missing_attribute_in_graph_code_is_an_attribute_error_at_the_line():
    """MindSpore 2.10's graph mode raises AttributeError for `ops.no_such_name` (it was a
    RuntimeError here); the message names the module and the line."""
    with pytest.raises(AttributeError) as info:
        ms.jit(reads_a_missing_op)(t([1.0, 2.0]))
    assert type(info.value).__name__ == "AttributeError" and isinstance(info.value, CompileError)
    assert "module 'pycompile.ops' has no attribute 'certainly_not_an_op'" in str(info.value)
    assert_points_at(str(info.value), reads_a_missing_op, "return ops.certainly_not_an_op(x)", "ops.certainly")


def returns_two_structures(a):
    if a.sum() > 0:
        return a
    b = a + 1
    return b, b


def returns_in_both_branches(a):
    if a.sum() > 0:
        b = a * 2
        return b
    else:
        return a, a


def test_returns_of_different_structures_under_a_tensor_if_say_so():
    """An early `return` in a tensor `if` and a later one of another structure: the message spoke
    of "the two branches of this `if`" at the line after the `if`, which is no `if`; it names the
    later `return` now, and the other's line."""
    with pytest.raises(TypeError) as info:
        ms.jit(returns_two_structures)(t([1.0, 2.0]))
    msg = str(info.value)
    assert (f"this `return` gives a tuple of 2 but the `return` at line "
            f"{line_of(returns_two_structures, 'return a')} gives <Tensor" in msg), msg
    assert "every `return`" in msg and "branches" not in msg
    assert_points_at(msg, returns_two_structures, "return b, b")
    with pytest.raises(TypeError) as info:
        ms.jit(returns_in_both_branches)(t([1.0, 2.0]))
    msg = str(info.value)
    assert f"but the `return` at line {line_of(returns_in_both_branches, 'return b')} gives <Tensor" in msg, msg
    assert_points_at(str(info.value), returns_in_both_branches, "return a, a")
