"""ops.addmm / addmv / addr / addbmm (and their Tensor forms): beta * input + alpha * product,
and ops.isclose / allclose."""
import pycompile.ops as ops
from pycompile.ops import functional as F
from pycompile.ops.entry import Arg, op_entry

_SCALE = [Arg("beta", "value", default=1, keyword=True), Arg("alpha", "value", default=1, keyword=True)]


def _combine(input, product, beta, alpha):
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:                       # beta 0 ignores input (nan and inf in it included)
        return scaled + F.zeros_like(input)
    return (input if beta == 1 else input * beta) + scaled


@op_entry("addmm", tensor_method=True, args=[Arg("input"), Arg("mat1"), Arg("mat2"), *_SCALE])
def addmm(input, mat1, mat2, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    return _combine(input, ops.matmul(mat1, mat2), beta, alpha)


@op_entry("addmv", tensor_method=True, args=[Arg("input"), Arg("mat"), Arg("vec"), *_SCALE])
def addmv(input, mat, vec, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    return _combine(input, ops.matmul(mat, vec), beta, alpha)


@op_entry("addr", tensor_method=True,
          args=[Arg("x"), Arg("vec1"), Arg("vec2"), *_SCALE])
def addr(x, vec1, vec2, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2)."""
    return _combine(x, ops.outer(vec1, vec2), beta, alpha)


@op_entry("addbmm", tensor_method=True, args=[Arg("input"), Arg("batch1"), Arg("batch2"), *_SCALE])
def addbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    return _combine(input, ops.sum(ops.bmm(batch1, batch2), 0), beta, alpha)


_CLOSE = [Arg("input"), Arg("other"), Arg("rtol", "value", default=1e-05), Arg("atol", "value", default=1e-08),
          Arg("equal_nan", "value", default=False)]


def _close(input, other, rtol, atol, equal_nan):
    ok = F.less_equal(F.abs(input - other), atol + rtol * F.abs(other))
    if input.dtype.is_float:        # an infinity is close only to itself
        finite = F.logical_and(F.isfinite(input), F.isfinite(other))
        ok = F.logical_or(F.logical_and(ok, finite), F.equal(input, other))
        if equal_nan:
            ok = F.logical_or(ok, F.logical_and(F.isnan(input), F.isnan(other)))
    return ok


@op_entry("isclose", tensor_method=True, args=_CLOSE)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (infinities close to themselves; nan
    close to nan only with equal_nan)."""
    return _close(input, other, rtol, atol, equal_nan)


@op_entry("allclose", tensor_method=True, args=_CLOSE, functional=False)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere: a Python bool in PyNative, as MindSpore returns (in graph
    code, where the values are not known while tracing, a bool tensor of shape ())."""
    out = ops.all(_close(input, other, rtol, atol, equal_nan))
    return bool(out.asnumpy()) if hasattr(out, "asnumpy") else out
