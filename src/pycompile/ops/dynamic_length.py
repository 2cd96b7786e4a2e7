"""Values whose length is known only at run time in compiled code: masked_select's result (and
Unique's distinct values, selected the same way).

MindSpore's graph mode runs `ops.masked_select(x, x > 0)` with a dynamic shape. pycompile's
compiled code has static buffers, so such a value is a `Bounded`: a buffer as long as the bound
(the number of elements the mask could select) holding the selected elements first, plus a
0-d int32 `count` computed when the graph runs. The padding past `count` holds zeros, and
whatever an elementwise op makes of them; no result ever reads it:

  * elementwise ops and casts apply to the whole buffer and keep the count (a Bounded again);
    combined with a static tensor of k rows (k > 1), the first k rows are taken with a check
    when the graph runs that the count is k, and the result is static;
  * Gather of a static tensor's rows at such indices (`gather(x, unique(i)[0], 0)`, MindSpore's
    dynamic-shape pattern) is a value of as many rows (data (bound, ...)); returned, its first
    `count` rows come back;
  * the reductions sum / mean / max / min / prod / all / any first replace the padding with the
    reduction's identity (`select(arange(bound) < count, data, identity)`); mean divides by the
    count;
  * returned from the compiled function, the buffer and the count are two graph outputs and the
    call hands back `data[:count]` (compiler/builder.finish_graph, backend/compiled.Layout);
  * Reshape to a shape known at compile time (MindSpore's `Unique` then `Reshape(x, (3, 3))`; a -1
    stands for what the bound leaves)
    takes the first prod(shape) elements, an ordinary static tensor, and checks when the graph
    runs that the count is exactly that (RuntimeError at the user's line otherwise);
  * any other op raises RuntimeError at the user's line, naming the op.

A Bounded is a tracer of its own (the JAX / vmap design: `ops._table.apply` hands every op with
a Bounded argument to `BoundedTrace.emit`), so no op, pass or kernel knows about it; the graph
the compiler sees holds only ordinary static-shape ops. Gradients follow from those ops (the
selection is a TensorScatterAdd, whose gradient gathers g back to the mask's places).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, TensorType, type_of
from pycompile.common.tensor import TensorMethods
from pycompile.ops import prims as P
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import Kind, OpRuntimeError, apply, norm_axes
from pycompile.ops.tracing import OnTrace, Tracer

_SCATTERS = frozenset({"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMul",
                       "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin"})
# reduction -> the value the padding takes so it cannot change the result
_IDENTITY = {"ReduceSum": "zero", "ReduceMean": "zero", "ReduceProd": "one", "ReduceMax": "lowest",
             "ReduceMin": "highest", "ReduceAll": "one", "ReduceAny": "zero"}


def unsupported(op_name: str, what: str = "") -> OpRuntimeError:
    return OpRuntimeError(
        f"For '{op_name}', the input's length is known only at run time (it comes from MaskedSelect){what}: "
        "compiled code supports elementwise ops, casts, the reductions sum / mean / max / min / prod / all / any "
        "over it, and returning it. Run this in PyNative mode, or keep the shape with ops.masked_fill / ops.select.")


class BoundedTrace(Tracer):
    """One data-dependent length (one masked_select call): its count, bound and validity mask."""

    infers_itself = True     # ops._table.apply hands it every op before infer (its types are bounds)

    def __init__(self, count, bound: int):
        self.level = tracing.new_level()
        self.count, self.bound = count, bound
        self._valid = None

    def valid(self):
        """bool[bound]: True on the first `count` places."""
        if self._valid is None:
            positions = _const(np.arange(self.bound, dtype=np.int32))
            self._valid = F.less(positions, self.count)
        return self._valid

    def emit(self, op, inputs, attrs, out_type):
        if op.kind is Kind.ELEMENTWISE and not op.variadic:
            return self._elementwise(op, inputs, attrs, out_type)
        if op.name in _IDENTITY and len(inputs) == 1 and inputs[0].data.ndim == 1:
            return self._reduce(op, inputs[0], attrs)
        if op.name == "Gather" and len(inputs) == 2:
            return self._gather(op, inputs, attrs)
        if op.name in _SCATTERS and isinstance(inputs[0], Bounded) and inputs[0].trace is self \
                and not any(isinstance(x, Bounded) for x in inputs[1:]):
            return self._scatter_rows(op, inputs, attrs)
        raise unsupported(op.name)

    def _scatter_rows(self, op, inputs, attrs):
        """TensorScatter* into a value of run-time row count at static indices: the same rows
        updated, still counted at run time; an index at or past the count is the op's
        out-of-range RuntimeError when the graph runs (the buffer's padding rows exist, so the
        kernel itself would not see it)."""
        x, indices, updates = inputs
        it = type_of(indices)
        if x.data.ndim < 1 or not isinstance(it, TensorType) or it.ndim < 1 or it.shape[-1] < 1:
            raise unsupported(op.name)
        first = F.reshape(F.getitem(F.reshape(indices, (-1, it.shape[-1])), (slice(None), 0)), (-1,))
        inside = F.less(F.cast(first, mstype.int32), self.count)
        flag = F.select(F.all(inside),
                        _const(np.float32(0)), _const(np.float32(np.inf)))
        flag = apply(P.CheckFinite, [flag], {
            "message": f"For '{op.name}', an index is out of range: the input's first dimension is known only "
                       f"at run time (at most {self.bound}) and an index is not below it"})
        return Bounded(F.depend(apply(op, [x.data, indices, updates], attrs), flag), self)

    def _gather(self, op, inputs, attrs):
        """Rows of a static tensor at indices of run-time length (Unique's values, MindSpore's
        dynamic-shape pattern `gather(x, unique(i)[0], 0)`): as many rows, counted at run time.
        The padding indices are 0, an existing row, so the padding rows are read, never used."""
        params, indices = inputs
        if isinstance(params, Bounded) or not isinstance(indices, Bounded) or indices.trace is not self:
            raise unsupported(op.name)
        pt = type_of(params)
        if not isinstance(pt, TensorType) or pt.ndim == 0 or attrs.get("axis", 0) % pt.ndim != 0 \
                or indices.data.ndim != 1:
            raise unsupported(op.name, "; only rows (axis 0) can be gathered at indices counted at run time")
        return Bounded(apply(op, [params, indices.data], attrs), self)

    def rows(self, x: "Bounded", k: int, op_name: str):
        """The first k rows of x as an ordinary static tensor, with a check when the graph runs that
        the count is k (a tensor of k rows meets a value counted at run time: the shapes must agree,
        as MindSpore's dynamic shapes check when the kernel runs)."""
        if k > self.bound:
            raise OpRuntimeError(f"For '{op_name}', a tensor of {k} rows cannot match a value of at most "
                                 f"{self.bound} rows (a length known only at run time)")
        ok = F.equal(self.count, _const(np.array(k, np.int32)))
        flag = F.select(ok, _const(np.float32(0)), _const(np.float32(np.inf)))
        flag = apply(P.CheckFinite, [flag], {
            "message": f"For '{op_name}', the input's length is known only at run time (at most {self.bound}): "
                       f"it must be {k} to combine it with a tensor of {k} rows"})
        return F.depend(F.getitem(x.data, slice(0, k)), flag)

    def call_cell(self, cell, args, kwargs):
        outer = tracing.outer_of(self)
        if outer is not None:
            return outer.call_cell(cell, args, kwargs)
        return tracing.run_cell(cell, args, kwargs)

    def _elementwise(self, op, inputs, attrs, out_type):
        ndim = max(x.data.ndim for x in inputs if isinstance(x, Bounded))
        rows = None              # the row count of a static operand the run-time length must equal
        for x in inputs:
            if isinstance(x, Bounded):
                if x.trace is not self:
                    raise unsupported(op.name, " and so is another input's, from another MaskedSelect: the "
                                                "lengths may differ")
                continue
            t = type_of(x)
            if isinstance(t, TensorType) and t.ndim > ndim:
                raise unsupported(op.name, f"; it cannot be combined with a tensor of shape {list(t.shape)}")
            if isinstance(t, TensorType) and t.ndim == ndim and t.shape[0] != 1:
                rows = t.shape[0]
        if rows is not None:     # a static operand of `rows` rows: the result is static too
            args = [self.rows(x, rows, op.name) if isinstance(x, Bounded) else x for x in inputs]
            return apply(op, args, attrs)
        args = [x.data if isinstance(x, Bounded) else x for x in inputs]
        out = apply(op, args, attrs)
        if isinstance(out, tuple):
            return tuple(Bounded(o, self) for o in out)
        return Bounded(out, self)

    def _reduce(self, op, x: "Bounded", attrs):
        norm_axes(op.name, attrs.get("axis"), 1)          # the axis must be 0 / -1 / all
        dt = x.data.dtype
        fill = _const(_identity(_IDENTITY[op.name], dt))
        data = F.select(self.valid(), x.data, fill)
        keep = attrs.get("keep_dims", False)
        if op.name != "ReduceMean":
            return apply(op, [data], attrs)
        total = apply(P.ReduceSum, [data], attrs)
        if dt.is_float:
            return total / F.cast(self.count, dt)
        # an integer mean truncates, as MindSpore's does
        mean = F.cast(total, mstype.float64) / F.cast(self.count, mstype.float64)
        out = F.cast(F.select(mean < 0, F.ceil(mean), F.floor(mean)), dt)
        return F.reshape(out, (1,)) if keep else out


def _identity(kind: str, dt: mstype.DType) -> np.ndarray:
    npdt = dt.np
    if kind == "zero":
        v = 0
    elif kind == "one":
        v = 1
    elif dt.is_bool:
        v = kind == "highest"
    elif dt.is_float:
        v = -np.inf if kind == "lowest" else np.inf
    else:
        info = np.iinfo(npdt)
        v = info.min if kind == "lowest" else info.max
    return np.array(v, dtype=npdt)


def _const(arr):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(arr, order="C"))


class Bounded(OnTrace, TensorMethods, Symbolic):
    """A 1-D value of run-time length `trace.count` (at most `trace.bound`), held in `data`."""

    __slots__ = ("data", "trace")
    run_time_length = True      # what F.reshape asks


    def __init__(self, data, trace: BoundedTrace):
        self.data, self.trace = data, trace

    @property
    def _abstract(self):
        return type_of(self.data)

    @property
    def shape(self):
        raise unsupported("shape", "; its shape is known only when the graph runs")

    def __len__(self):
        raise unsupported("len", "")

    def __bool__(self):
        raise unsupported("bool", "")

    def __repr__(self):
        return f"<{self.data.dtype} values, at most {self.trace.bound}, counted at run time>"

    def refused(self, op_name: str) -> OpRuntimeError:
        """The error for an op that cannot take a value of run-time length (F.matmul asks)."""
        return unsupported(op_name)

    def reshape_static(self, shape: tuple):
        """Reshaped to a shape known at compile time (MindSpore's Unique then Reshape((3, 3))): the
        first n = prod(shape) elements, an ordinary static tensor, with a check when the graph runs
        that the count is n (RuntimeError otherwise). (-1,) keeps the run-time length; another shape
        with one -1 takes that dimension from the bound (every element selected: the check then
        asks for the bound)."""
        if tuple(shape) == (-1,):
            return self
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if list(shape).count(-1) == 1 and all(d > 0 or d == -1 for d in shape) and self.trace.bound % known == 0:
            shape = tuple(self.trace.bound // known if d == -1 else d for d in shape)
        if any(d < 0 for d in shape):
            raise unsupported("Reshape", f"; reshaping it into {list(shape)} needs a size computed at run time")
        n = int(np.prod(shape, dtype=np.int64))
        if n > self.trace.bound:
            raise OpRuntimeError(f"For 'Reshape', cannot reshape a tensor of at most {self.trace.bound} elements "
                                 f"(a length known only at run time) into {list(shape)}")
        ok = F.equal(self.trace.count, _const(np.array(n, np.int32)))
        flag = F.select(ok, _const(np.float32(0)), _const(np.float32(np.inf)))
        flag = apply(P.CheckFinite, [flag], {
            "message": f"For 'Reshape', the input's length is known only at run time (at most {self.trace.bound}): "
                       f"it must be {n} to reshape it into {list(shape)}"})
        out = F.reshape(F.getitem(self.data, slice(0, n)), shape)
        return F.depend(out, flag)

    __hash__ = object.__hash__


def padded_rows(grad, indices: "Bounded", n: int, op_name: str):
    """A sparse update's (grad rows, indices) of run-time length as static buffers of the bound's
    length, the padding indices set to n: outside [0, n), so the update skips them (the sparse
    optimizer Primitives' rule for out-of-range indices)."""
    trace = indices.trace
    if not isinstance(grad, Bounded) or grad.trace is not trace or indices.data.ndim != 1:
        raise unsupported(op_name, "; its grad and indices must both be rows of that one length")
    pad = _const(np.array(n, type_of(indices.data).dtype.np))
    return grad.data, F.select(trace.valid(), indices.data, pad)


def graph_parts(v):
    """(data, count) of a Bounded value returned from graph code, else None."""
    if isinstance(v, Bounded):
        return v.data, v.trace.count
    return None


def masked_select_graph(x, mask):
    """masked_select on graph values: scatter-add the selected elements to their rank among the
    selected (a running count of the mask), every other element to one extra place past the
    bound, which is then cut off."""
    shape = np.broadcast_shapes(tuple(type_of(x).shape), tuple(type_of(mask).shape))
    n = int(np.prod(shape, dtype=np.int64))
    dt = type_of(x).dtype
    xs = F.reshape(F.broadcast_to(x, shape), (n,))
    ms = F.reshape(F.broadcast_to(mask, shape), (n,))
    if dt.is_bool:
        xs = F.cast(xs, mstype.int8)
    flags = F.cast(ms, mstype.int32)
    rank = apply(P.CumSum, [flags], {"axis": 0, "exclusive": True, "reverse": False})
    index = F.reshape(F.select(ms, rank, _const(np.array(n, np.int32))), (n, 1))
    zeros = _const(np.zeros(n + 1, type_of(xs).dtype.np))
    data = apply(P.TensorScatterAdd, [zeros, index, xs])
    data = F.getitem(data, slice(0, n))
    if dt.is_bool:
        data = F.cast(data, mstype.bool_)
    count = F.sum(flags, dtype=mstype.int32)
    return Bounded(data, BoundedTrace(count, n))
