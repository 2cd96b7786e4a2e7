"""Graph functions on ms.mutable numbers, shared by the recorder (record_mutable_numbers.py, run with
MindSpore 2.10's wheel) and the test (tests/compiler/test_mutable_numbers.py): what a compiled
function returns when it computes with mutable numbers - Python numbers for Python operators and
builtins, Tensors for ops.* and anything mixed with a Tensor. `ms` is the framework under test."""
import numpy as np


def cases(ms):
    ops = ms.ops

    def arith(a, b):
        return a + b, a - b, a * b, a / b, -a, a ** 2

    def compare(a, b):
        return a < b, a >= b, a == b, (a > b) and (b > 0)

    def builtins_(a, b):
        return int(a), float(b), min(a, 1.0)

    def loop(a, b):
        c = a
        for _ in range(3):
            c = c + b
        return c

    def while_(a, b):
        c = a
        while c < 10:
            c = c * 2 + b
        return c

    def branch(a, b):
        return a if a > b else a * 2

    def with_ops(a, b):
        return ops.add(a, b), ops.mul(a, 2.0), ms.Tensor(a)

    def with_tensor(a, x):
        return x * a, x.sum() + a, a + 1

    def from_tuple(t):
        return t[0] * 2, t[1] > 0, t[0] + t[1]

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    m = ms.mutable
    return [
        ("arith_float", arith, lambda: (m(0.1), m(0.2))),
        ("arith_int_float", arith, lambda: (m(7), m(2.5))),
        ("arith_big", arith, lambda: (m(1e20), m(3.0))),
        ("compare_float_int", compare, lambda: (m(2.0), m(3))),
        ("compare_int", compare, lambda: (m(5), m(3))),
        ("builtins", builtins_, lambda: (m(2.7), m(3))),
        ("for_loop", loop, lambda: (m(2.0), m(3))),
        ("while_loop", while_, lambda: (m(2.0), m(3))),
        ("if_branch", branch, lambda: (m(2.0), m(3.0))),
        ("ops_give_tensors", with_ops, lambda: (m(2.0), m(3))),
        ("mixed_with_tensor", with_tensor, lambda: (m(2.0), x)),
        ("mutable_tuple", from_tuple, lambda: (m((1.5, -2)),)),
    ]


def describe(v):
    """A returned value as JSON: its Python type and value (a Tensor: dtype, shape and values)."""
    if isinstance(v, tuple):
        return [describe(x) for x in v]
    if hasattr(v, "asnumpy"):
        a = v.asnumpy()
        return {"type": "Tensor", "dtype": str(v.dtype), "shape": list(a.shape), "value": a.astype(np.float64).tolist()}
    return {"type": type(v).__name__, "value": v}
