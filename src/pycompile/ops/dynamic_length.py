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
  * the reductions sum / mean / max / min / prod / all / any first replace the padding with the
    reduction's identity (`select(arange(bound) < count, data, identity)`); mean divides by the
    count;
  * returned from the compiled function, the buffer and the count are two graph outputs and the
    call hands back `data[:count]` (compiler/builder.finish_graph, backend/compiled.Layout);
  * Gather of rows by run-time-length indices (axis 0), and Multinomial of such rows, give rows
    of the same run-time count (each result row reads its own input row only);
  * TensorShape of it is [count] (an Int64 tensor computed when the graph runs), and
    StandardLaplace of that shape is a value of the same run-time length;
  * Reshape to a shape known at compile time (MindSpore's `Unique` then `Reshape(x, (3, 3))`; a -1
    stands for what the bound leaves)
    takes the first prod(shape) elements, an ordinary static tensor, and checks when the graph
    runs that the count is exactly that (RuntimeError at the user's line otherwise);
  * any other op raises RuntimeError at the user's line, naming the op.

Gathering rows with such a value (`Gather(x, unique_indices, axis)`, MindSpore's Unique then
Gather) gives an N-d Bounded: `data` is x's shape with the bound at `axis`, the first `count`
places along it valid. Ops that keep each slice along that axis apart work on the whole buffer:
elementwise ops with operands that do not span the axis, Transpose (the axis moves) and Reshape
that keeps the axis (DepthToSpace, the split of SpaceToBatchND). Returned, it is cut along that axis. A Reshape that merges the axis
with the axes after it makes a longer prefix (count * their size); one that merges it with the
axes before it (SpaceToBatchND's blocks into the batch) interleaves, so the valid elements are
gathered to the front when the graph runs (a Gather with indices computed from the count). The
length of the result is a new count, the old one times the merged size.

A Bounded is a tracer of its own (the JAX / vmap design: `ops._table.apply` hands every op with
a Bounded argument to `BoundedTrace.emit`), so no op, pass or kernel knows about it; the graph
the compiler sees holds only ordinary static-shape ops. Gradients follow from those ops (the
selection is a TensorScatterAdd, whose gradient gathers g back to the mask's places).
"""
from __future__ import annotations

from collections import OrderedDict

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
        if op is P.Gather and isinstance(inputs[1], Bounded) and not isinstance(inputs[0], Bounded) \
                and inputs[1].trace is self and inputs[1].data.ndim == 1:
            axis = attrs.get("axis", 0) % type_of(inputs[0]).ndim
            return Bounded(apply(op, [inputs[0], inputs[1].data], attrs), self, axis)
        row_op = _ROW_OPS.get(op.name)
        if row_op is not None and row_op(inputs, attrs, self):
            # rows of a run-time count: the op maps each row on its own (row r of the result
            # reads row r of the Bounded input alone), so the padding rows never reach a real one
            out = apply(op, [x.data if isinstance(x, Bounded) else x for x in inputs], attrs)
            return Bounded(out, self)
        if op.name in _SCATTERS and isinstance(inputs[0], Bounded) and inputs[0].trace is self \
                and inputs[0].axis == 0 and not any(isinstance(x, Bounded) for x in inputs[1:]):
            return self._scatter_rows(op, inputs, attrs)
        bounded = [x for x in inputs if isinstance(x, Bounded)]
        if op.kind is Kind.ELEMENTWISE and not op.variadic and all(x.axis == 0 for x in bounded):
            return self._elementwise(op, inputs, attrs, out_type)
        rows = [x for x in bounded if x.data.ndim > 1]
        if rows:
            return _rowwise(self, op, inputs, attrs, rows)
        if op.name in _IDENTITY and len(inputs) == 1 and type_of(inputs[0].data).ndim == 1:
            return self._reduce(op, inputs[0], attrs)
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


def _multinomial_rows(inputs, attrs, trace) -> bool:
    """Multinomial(state, rows of run-time count): row r's draws read words of row r only."""
    state, p = inputs
    return isinstance(p, Bounded) and p.trace is trace and p.axis == 0 and not isinstance(state, Bounded) \
        and type_of(p.data).ndim == 2


# ops that map rows of a run-time count (op name -> the check that this call does)
_ROW_OPS = {"Multinomial": _multinomial_rows}


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


def _rowwise(trace, op, inputs, attrs, rows):
    """An op on N-d Bounded values (run-time length along `axis`) that keeps the slices along that
    axis apart (module docstring); any other raises."""
    x = rows[0]
    if any(r.trace is not trace or r.axis != x.axis or r.data.ndim != x.data.ndim for r in rows):
        raise unsupported(op.name, " and so is another input's, along another axis or of another length")
    if op is P.Transpose:
        perm = attrs.get("perm")
        perm = tuple(range(x.data.ndim))[::-1] if perm is None else tuple(int(p) % x.data.ndim for p in perm)
        return Bounded(apply(op, [x.data], attrs), trace, perm.index(x.axis))
    if op is P.Reshape:
        return x.reshape_static(tuple(attrs["shape"]))
    if op.kind is Kind.ELEMENTWISE and not op.variadic:
        nd = max(type_of(v).ndim if isinstance(type_of(v), TensorType) else 0 for v in inputs)
        args = []
        for v in inputs:
            if isinstance(v, Bounded):
                args.append(v.data)
                continue
            t = type_of(v)
            if isinstance(t, TensorType):
                at = x.axis + nd - x.data.ndim - (nd - t.ndim)     # v's dimension facing the run-time axis
                if 0 <= at < t.ndim and t.shape[at] != 1:
                    raise unsupported(op.name, f"; it cannot be combined with a tensor of shape {list(t.shape)} "
                                               f"across its run-time axis")
            args.append(v)
        out = apply(op, args, attrs)
        return Bounded(out, trace, x.axis + nd - x.data.ndim)
    raise unsupported(op.name)


class Bounded(OnTrace, TensorMethods, Symbolic):
    """A value of run-time length `trace.count` (at most `trace.bound`) along `axis`, held in
    `data`: 1-D (masked_select's, Unique's values), or N-d (rows gathered with such values)."""

    __slots__ = ("data", "trace", "axis")
    run_time_length = True      # what F.reshape asks

    def __init__(self, data, trace: BoundedTrace, axis: int = 0):
        self.data, self.trace, self.axis = data, trace, axis

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
        asks for the bound). An N-d value follows the module docstring's rules."""
        if self.data.ndim > 1:
            return self._reshape_rows(tuple(shape))
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

    def _reshape_rows(self, shape: tuple):
        dims, axis, bound = tuple(type_of(self.data).shape), self.axis, self.trace.bound
        total = int(np.prod(dims, dtype=np.int64))
        if list(shape).count(-1) == 1:
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            shape = tuple(total // known if d == -1 else d for d in shape)
        pre, post = int(np.prod(dims[:axis], dtype=np.int64)), int(np.prod(dims[axis + 1:], dtype=np.int64))
        for k, d in enumerate(shape):
            before = int(np.prod(shape[:k], dtype=np.int64))
            after = int(np.prod(shape[k + 1:], dtype=np.int64))
            if d % bound or before * d * after != total:
                continue
            merged = d // bound
            if before == pre and after == post:                 # the axis kept
                return Bounded(F.reshape(self.data, shape), self.trace, k)
            if before == pre and after * merged == post and \
                    int(np.prod(dims[axis + 1:axis + 1 + _span(dims[axis + 1:], merged)], dtype=np.int64)) == merged:
                # merged with the axes after it: a longer prefix
                trace = BoundedTrace(self.trace.count * merged, bound * merged)
                return Bounded(F.reshape(self.data, shape), trace, k)
            if after == post and before * merged == pre and \
                    int(np.prod(dims[axis - _span(dims[:axis][::-1], merged):axis], dtype=np.int64)) == merged:
                # merged with the axes before it: place q * bound + i (i < count) goes to q * count + i
                data = F.reshape(self.data, shape)
                count = F.maximum(self.trace.count, _const(np.array(1, np.int32)))
                place = _const(np.arange(d, dtype=np.int32))
                source = F.floor_div(place, count) * bound + F.floor_mod(place, count)
                source = F.select(place < count * merged, source, F.zeros_like(source))
                trace = BoundedTrace(self.trace.count * merged, bound * merged)
                return Bounded(F.gather(data, source, k), trace, k)
        raise unsupported("Reshape", f"; reshaping it from {list(dims)} (at most {bound} along axis {axis}) into "
                                     f"{list(shape)} mixes its run-time axis with others")

    __hash__ = object.__hash__


def _span(dims, size: int) -> int:
    """How many of `dims`, from the first, multiply to `size` (-1 when none do)."""
    p = 1
    for i, d in enumerate(dims):
        if p == size:
            return i
        p *= d
    return len(dims) if p == size else -1


# TensorShape of a value of run-time length, by the id of the shape tensor returned: (that
# tensor, the trace, the static trailing dimensions); the last few only (a trace's shapes are
# used right after they are made)
_SHAPES: "OrderedDict[int, tuple]" = OrderedDict()


def shape_tensor(b: "Bounded"):
    """TensorShape of a value of run-time length: an Int64 tensor [count, *rest] computed when the
    graph runs. An op given it as a shape (StandardLaplace) makes a value of the same run-time
    length (`shaped_like`)."""
    if b.axis != 0:
        raise b.refused("TensorShape")
    rest = tuple(type_of(b.data).shape[1:])
    out = F.reshape(F.cast(b.trace.count, mstype.int64), (1,))
    if rest:
        out = F.concat([out, _const(np.array(rest, np.int64))], 0)
    _SHAPES[id(out)] = (out, b.trace, rest)
    while len(_SHAPES) > 64:
        _SHAPES.popitem(last=False)
    return out


def shaped_like(shape, make):
    """For a shape tensor `shape_tensor` made: `make(static shape)` of the run-time length's bound
    as a value of that run-time length; None for any other shape."""
    hit = _SHAPES.get(id(shape))
    if hit is None or hit[0] is not shape:
        return None
    _, trace, rest = hit
    return Bounded(make((trace.bound,) + rest), trace)


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
    """(data, count, axis) of a Bounded value returned from graph code (the call hands back the first
    `count` places along `axis`), else None."""
    if isinstance(v, Bounded):
        return v.data, v.trace.count, v.axis
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
