"""The NumPy reference of the op fuzzer (fuzz_ops.py): the ops a generated program calls
(`apply(P.<Op>, ...)`, `ops.*`, `ms.<dtype>`, `Tensor`), each written the obvious NumPy way, so
that a float64 program run on it checks the op table's eager code independently of it."""
from __future__ import annotations

import numpy as np


def _hswish(x):
    """x * relu6(x + 3) / 6, piecewise so that -inf gives 0 (its limit, and MindSpore's value) and
    +inf gives inf, where the product form gives inf * 0 = nan (op fuzzer seeds 6140 and 6420)."""
    with np.errstate(invalid="ignore"):
        return np.where(x <= -3, np.zeros_like(x), np.where(x >= 3, x, x * (x + 3) / 6)).astype(np.result_type(x))


def numpy_namespace(elementwise: list, dtypes: list) -> dict:
    """`apply`, `P`, `ops`, `ms` and `Tensor` for a program run on plain NumPy arrays, each op
    written the obvious NumPy way with MindSpore's documented rules where they differ (float
    floor division is floor(x / y); the mean of integers is truncated; ReLU(NaN) is 0, as
    `x > 0 ? x : 0`)."""
    import math
    import types
    erf = np.vectorize(math.erf, otypes=[np.float64])
    erfc = np.vectorize(math.erfc, otypes=[np.float64])

    def power(x, y):
        """MindSpore's integer power: a negative exponent gives 1 / x ** -y truncated toward
        zero (0 for |x| > 1 and for x = 0); NumPy refuses it."""
        x, y = np.asarray(x), np.asarray(y)
        if np.result_type(x, y).kind not in "iu" or not np.any(y < 0):
            return np.power(x, y)
        dt = np.result_type(x, y)
        pos = np.power(x, np.where(y < 0, 0, y))
        xf = np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape)).astype(np.float64)
        inv = np.trunc(np.divide(1.0, np.power(xf, -y.astype(np.float64)), out=np.zeros_like(xf), where=xf != 0))
        return np.where(y < 0, inv.astype(dt), pos).astype(dt)

    def floor_div(x, y):
        """floor(x / y) for floats; integers stay integers (op fuzzer seed 21465 took FloorMod of
        argmax's int64 result, and the float form made it float64): NumPy's floor_divide, whose
        x // 0 = 0 is pycompile's value (MindSpore's CPU kernel gives the dtype's extremes there,
        an integer division by zero it leaves undefined: docs/RELIABILITY.md, edge values)."""
        if np.result_type(x, y).kind in "iu":
            with np.errstate(divide="ignore"):
                return np.floor_divide(x, y)
        return np.floor(np.true_divide(x, y))

    def floor_mod(x, y):
        """x - floor(x / y) * y for floats; integers stay integers (np.mod: x mod 0 is 0)."""
        if np.result_type(x, y).kind in "iu":
            with np.errstate(divide="ignore"):
                return np.mod(x, y)
        return x - np.floor(np.true_divide(x, y)) * y

    def sig(x):
        return 1 / (1 + np.exp(-x))

    def gelu(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))

    ew = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.true_divide,
          "FloorDiv": floor_div, "FloorMod": floor_mod, "Pow": power,
          "Maximum": np.maximum, "Minimum": np.minimum, "Equal": np.equal, "NotEqual": np.not_equal,
          "Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
          "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or, "LogicalNot": np.logical_not,
          "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
          "IsFinite": np.isfinite, "Neg": np.negative, "Abs": np.abs, "Square": np.square, "Exp": np.exp,
          "Log": np.log, "Sqrt": np.sqrt, "Rsqrt": lambda x: 1 / np.sqrt(x), "Sin": np.sin, "Cos": np.cos,
          "Tanh": np.tanh, "Erf": erf, "Reciprocal": lambda x: 1 / x, "Floor": np.floor, "Sigmoid": sig,
          "ReLU": lambda x: np.where(x > 0, x, 0).astype(np.result_type(x)),
          "HSwish": _hswish, "HSigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
          "GeLU": gelu, "GeLUErf": lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))), "Select": np.where,
          # the math and activation rows added after the fuzzer was written (MindSpore's rules:
          # Round is half to even, Sign(NaN) is 0, Mod truncates like C's fmod, Elu's alpha is 1)
          "Log1p": np.log1p, "Expm1": np.expm1, "Erfc": erfc, "Log2": np.log2, "Tan": np.tan,
          "Asin": np.arcsin, "ACos": np.arccos, "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh,
          "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh, "Atan2": np.arctan2,
          "Trunc": np.trunc, "Ceil": np.ceil, "Round": np.round, "IsNan": np.isnan, "IsInf": np.isinf,
          "Sign": lambda x: np.where(np.isnan(x), 0, np.sign(x)), "Mod": np.fmod,
          "ReLU6": lambda x: np.minimum(np.maximum(x, 0), 6), "SiLU": lambda x: x * sig(x),
          "Elu": lambda x: np.where(x > 0, x, np.expm1(x)),
          "SeLU": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
          "Softplus": lambda x: np.logaddexp(0, x), "Softsign": lambda x: x / (1 + np.abs(x)),
          "Mish": lambda x: x * np.tanh(np.logaddexp(0, x)), "LogSigmoid": lambda x: -np.logaddexp(0, -x)}
    missing = set(elementwise) - set(ew)
    assert not missing, f"the NumPy reference lacks {missing}"

    keeps_bool = {"Add", "Mul", "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
                  "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                  "Select", "IsFinite", "IsNan", "IsInf"}

    def apply_(op, args, attrs=None):
        # NumPy computes a bool in float16 (np.sin(True)) or refuses it (-True); MindSpore in float
        args = [a if isinstance(a, (int, float)) else np.asarray(a) for a in args]
        if op not in keeps_bool:
            # (in float32, as MindSpore: tan(asin(True)) is tan of float32's pi / 2, -2.3e7; soak seed 9110)
            args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.bool_ else a for a in args]
        return np.asarray(ew[op](*args))

    def axes(axis):
        return tuple(axis) if isinstance(axis, (list, tuple)) else axis

    def mean(x, axis=None, keep=False):
        m = np.mean(x, axis=axes(axis), keepdims=keep)
        return np.trunc(m).astype(x.dtype) if x.dtype.kind in "iu" else m

    def softmax(x, axis=-1):
        x = x if x.dtype.kind == "f" else x.astype(np.float32)       # (as MindSpore: integers in float32)
        e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
        return e / np.sum(e, axis=axis, keepdims=True)

    def log_softmax(x, axis=-1):
        x = x if x.dtype.kind == "f" else x.astype(np.float32)
        d = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)
        return d - np.log(np.sum(np.exp(d), axis=axis, keepdims=True))

    def layer_norm(x, g, b):
        m = np.mean(x, -1, keepdims=True)
        return (x - m) / np.sqrt(np.mean((x - m) ** 2, -1, keepdims=True) + 1e-7) * g + b

    def total(x, axis=None, keep=False):
        return np.sum(x.astype(np.int64) if x.dtype.kind in "biu" else x, axis=axes(axis), keepdims=keep)

    np_ops = types.SimpleNamespace(
        cast=lambda x, dt: np.asarray(x).astype(dt), sum=total, mean=mean,
        amax=lambda x, axis=None, keep=False: np.max(x, axis=axes(axis), keepdims=keep),
        amin=lambda x, axis=None, keep=False: np.min(x, axis=axes(axis), keepdims=keep),
        all=lambda x, axis=None, keep=False: np.all(x, axis=axes(axis), keepdims=keep),
        any=lambda x, axis=None, keep=False: np.any(x, axis=axes(axis), keepdims=keep),
        argmax=lambda x, axis, keep=False: np.argmax(x, axis=axis, keepdims=keep),
        reshape=np.reshape, transpose=np.transpose, broadcast_to=np.broadcast_to, expand_dims=np.expand_dims,
        gather=lambda x, idx, axis: np.take(x, idx, axis=axis), matmul=np.matmul, select=np.where,
        concat=lambda xs, axis=0: np.concatenate(xs, axis), stack=lambda xs, axis=0: np.stack(xs, axis),
        softmax=softmax, log_softmax=log_softmax, layer_norm=layer_norm,
        ones=lambda shape, dt: np.ones(shape, dt), zeros=lambda shape, dt: np.zeros(shape, dt),
        maximum=np.maximum, logical_not=np.logical_not, logical_and=np.logical_and)
    dtype_ns = types.SimpleNamespace(**{d: np.dtype(d.rstrip("_")) for d in dtypes})
    return {"apply": apply_, "P": types.SimpleNamespace(**{name: name for name in elementwise}),
            "ops": np_ops, "ms": dtype_ns, "Tensor": np.asarray}
