"""The C rendering of every loop template, keyed by the template's name (`Template.name` in the
op table), and of BLAS products.

A renderer is `render(ctx, w, n)`: it writes the C statements computing node `n` into `w`
(a CWriter). `ctx` is the renderer's view of the function being built (see
pycompile/backend/c/codegen.py, which implements it):

    ctx.out(n)              C pointer the node's result is written to (declared on first use)
    ctx.input(n, k)         input k: a C pointer expression, or - for input 0 of a template
                            whose fused elementwise producers are computed inline - a function
                            index -> C expression of that element
    ctx.ptr(v), ctx.scalar(v)   C expressions of any tensor / scalar value
    ctx.rows(n)             (r0, r1) C expressions when a row-chunk driver runs the template on
                            those rows of a last-axis template; None for all rows
    ctx.runtime_error(msg)  registers a runtime error message; returns its code. A message starting
                            "RuntimeError: " / "ValueError: " raises that class (else IndexError)
    ctx.elementwise_chain(n, op)   one elementwise kernel folding `op` over the node's inputs
    ctx.use_blas()          the module links BLAS

Adding a template op: declare its row with `Template("name", ...)` in ops/defs and register its
renderer here with `@template("name")`. `tests/backend` checks every Template in the table has one.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.ops import prims as P
from pycompile.ops._table import norm_axes
from pycompile.backend.c.naming import nid
from pycompile.backend.c.ops import kernels as K
from pycompile.backend.c.ops import memops
from pycompile.backend.c.ops.gemm_call import GEMM_RELU
from pycompile.ops.defs.array import norm_perm
from pycompile.ops.defs.reduce import softmax_axis

TEMPLATES: dict = {}


def template(name: str):
    def register(fn):
        if name in TEMPLATES:
            raise ValueError(f"template {name} rendered twice")
        TEMPLATES[name] = fn
        return fn
    return register


def render(ctx, w, n) -> None:
    """Emit node `n` whose lowering is a Template."""
    TEMPLATES[n.op.lower.name](ctx, w, n)


@template("reduce")
def _reduce(ctx, w, n):
    out = ctx.out(n)
    x = n.inputs[0]
    axes = norm_axes(n.op.name, n.attrs.get("axis"), x.type.ndim)
    K.reduce(w, n.op.lower.rule, ctx.input(n, 0), x.type, out, n.type, axes, rows=ctx.rows(n))


@template("argmax")
def _argmax(ctx, w, n):
    out = ctx.out(n)
    x = n.inputs[0]
    axis = n.attrs.get("axis")
    K.argmax(w, ctx.input(n, 0), x.type, out, n.type, None if axis is None else axis % x.type.ndim,
             n.op.lower.rule or "max")


@template("softmax")
def _softmax(ctx, w, n):
    out = ctx.out(n)
    x = n.inputs[0]
    axis = softmax_axis(n.op.name, n.attrs.get("axis", -1), x.type.ndim)
    if x.type.size:
        K.softmax(w, ctx.input(n, 0), x.type, out, axis, log=n.op.lower.rule == "log", rows=ctx.rows(n))


@template("layernorm")
def _layernorm(ctx, w, n):
    out = ctx.out(n)
    x, gamma, _ = n.inputs
    K.layernorm(w, ctx.input(n, 0), x.type, ctx.input(n, 1), ctx.input(n, 2), gamma.type, out,
                n.attrs.get("begin_norm_axis", -1), n.attrs.get("epsilon", 1e-7), rows=ctx.rows(n))


@template("transpose")
def _transpose(ctx, w, n):
    out = ctx.out(n)
    x = n.inputs[0]
    K.transpose(w, ctx.input(n, 0), x.type, out, norm_perm("Transpose", n.attrs["perm"], x.type.ndim))


@template("slice")
def _slice(ctx, w, n):
    x = n.inputs[0]
    if ctx.is_view(n):
        # a box its elementwise readers read in place, through its strides (views.strided_view)
        ctx.declare_ptr(w, n, f"({ctx.ptr(x)} + {ctx.plan.views[id(n)][0]}L)")
        return
    out = ctx.out(n)
    K.strided_slice(w, ctx.input(n, 0), x.type, out, n.type, n.attrs["begin"], n.attrs["end"], n.attrs["strides"])


@template("broadcast")
def _broadcast(ctx, w, n):
    out = ctx.out(n)
    x = n.inputs[0]
    K.broadcast(w, ctx.input(n, 0), x.type, out, n.type)


@template("concat")
def _concat(ctx, w, n):
    """Concat, and Stack (rule 'stack': Concat of inputs with a size-1 axis each)."""
    out = ctx.out(n)
    stack = n.op.lower.rule == "stack"
    axis = n.attrs.get("axis", 0) % n.type.ndim
    types = [x.type if not stack else TensorType(x.type.dtype, x.type.shape[:axis] + (1,) + x.type.shape[axis:])
             for x in n.inputs]
    K.concat(w, [ctx.ptr(x) for x in n.inputs], types, out, n.type, axis, stack)


@template("gather")
def _gather(ctx, w, n):
    x, idx = n.inputs
    axis = n.attrs.get("axis", 0) % x.type.ndim
    loc = f" at {n.loc}" if n.loc else ""
    code = ctx.runtime_error(f"RuntimeError: For 'Gather', the 'input_indices' should be in the range "
                             f"[0, {x.type.shape[axis]}) (axis {axis}){loc}")
    if ctx.is_view(n):
        # one row, read where it is (views.row_view): the index checked, no copy
        i = f"({ctx.scalar(idx)})" if isinstance(idx.type, ScalarType) else f"{ctx.ptr(idx)}[0]"
        ctx.declare_ptr(w, n, memops.row_view(w, ctx.ptr(x), x.type, i, axis, code, n.type.dtype, f"ix{nid(n)}"))
        return
    out = ctx.out(n)
    if isinstance(idx.type, ScalarType):
        K.gather(w, ctx.ptr(x), x.type, f"({ctx.scalar(idx)})", TensorType(mstype.int64, ()), out, axis, code)
    else:
        K.gather(w, ctx.ptr(x), x.type, ctx.ptr(idx), idx.type, out, axis, code)


@template("addn")
def _addn(ctx, w, n):
    """x0 + x1 + ... as one elementwise kernel: the table's Add folded over the inputs."""
    ctx.elementwise_chain(n, P.Add)


def blas_supported(n) -> bool:
    """BLAS computes float32 / float64 products of operands of the result's dtype, and float16
    ones (converted to float32 around sgemm: kernels.gemm); other products run as plain loops in
    the same template."""
    dt = n.type.dtype
    return dt in (mstype.float32, mstype.float64, mstype.float16) and all(i.type.dtype is dt for i in n.inputs)


def render_blas(ctx, w, n, a=None, b=None, dest=None, epilogue=None, addend=None, bias=None,
                residual=None, relu=False) -> None:
    """A matrix product (MatMul / BatchMatMul). A fused group's head passes its operands, the
    destination, its epilogue `epilogue(r0, r1)` -> C statement and the bias, residual and ReLU
    the product makes as it stores (kernels.gemm)."""
    a = n.inputs[0] if a is None else a
    b = n.inputs[1] if b is None else b
    dest = ctx.out(n) if dest is None else dest
    if blas_supported(n):
        ctx.use_blas()
    K.gemm(w, ctx.ptr(a), a.type, ctx.ptr(b), b.type, dest, n.type,
           n.attrs.get("transpose_a", False), n.attrs.get("transpose_b", False), epilogue, addend, bias, residual,
           ctx.weight_flags(b) | (GEMM_RELU if relu else 0))
