"""C expressions of the activation rows (pycompile.ops.defs.activation), added to the EXPR
table the elementwise renderer reads. expm1 / log1p / exp / tanh of the compute type vectorize
through glibc's libmvec like the other transcendental functions."""
from __future__ import annotations

from pycompile.ops.c.elementwise import EXPR, fm, lit
from pycompile.ops.defs import activation as A


def _softplus(x, ct):
    """max(x, 0) + log1p(exp(-|x|)): no overflow for large x, no lost tail for negative x."""
    return f"(({x} > 0 ? {x} : {lit(0, ct)}) + {fm('log1p', ct)}({fm('exp', ct)}(-{fm('fabs', ct)}({x}))))"


def _neg_expm1(x, ct):
    """The negative branch of Elu / SeLU (a NaN input stays NaN through it)."""
    return f"{fm('expm1', ct)}({x})"


EXPR.update({
    A.ReLU6: lambda a, ct: f"(pc_clamp_{ct}({a[0]}, {lit(0, ct)}, {lit(6, ct)}) + {lit(0, ct)})",   # -0 -> +0
    A.SiLU: lambda a, ct: f"({a[0]} / ({lit(1, ct)} + {fm('exp', ct)}(-{a[0]})))",
    A.Elu: lambda a, ct: f"({a[0]} > 0 ? {a[0]} : {_neg_expm1(a[0], ct)})",
    A.SeLU: lambda a, ct: (f"({lit(A.SELU_SCALE, ct)} * ({a[0]} > 0 ? {a[0]} : "
                           f"{lit(A.SELU_ALPHA, ct)} * {_neg_expm1(a[0], ct)}))"),
    A.Softplus: lambda a, ct: _softplus(a[0], ct),
    A.Softsign: lambda a, ct: f"({a[0]} / ({lit(1, ct)} + {fm('fabs', ct)}({a[0]})))",
    A.Mish: lambda a, ct: f"({a[0]} * {fm('tanh', ct)}({_softplus(a[0], ct)}))",
    A.LogSigmoid: lambda a, ct: (f"(({a[0]} < 0 ? {a[0]} : {lit(0, ct)}) - "
                                 f"{fm('log1p', ct)}({fm('exp', ct)}(-{fm('fabs', ct)}({a[0]}))))"),
})
