"""Layout ops MindSpore 2.10 composes from others: flips and rot90, diff, atleast_Nd, the
hstack family, axis moves, ravel, msort, kron, narrow, tensor_split and its h / v / d forms.
Values recorded from the wheel in tests/conformance/cases_entries.py."""
import pycompile.ops as ops
from pycompile.common.tensor import TensorMethods
from pycompile.ops._table import OpRuntimeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


@op_entry("flipud", tensor_method=True, args=[Arg("input")])
def flipud(input):
    """Reverse the first axis."""
    return ops.flip(input, (0,))


@op_entry("fliplr", tensor_method=True, args=[Arg("input")])
def fliplr(input):
    """Reverse the second axis."""
    return ops.flip(input, (1,))


@op_entry("rot90", tensor_method=True, args=[Arg("input"), Arg("k", "value"), Arg("dims", "value")])
def rot90(input, k, dims):
    """Rotate by 90 degrees k times in the plane of `dims`, from the first axis toward the second."""
    d0, d1 = (d % input.ndim for d in dims)
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return ops.flip(input, (d0, d1))
    return ops.swapaxes(ops.flip(input, (d1 if k == 1 else d0,)), d0, d1)


@op_entry("narrow", tensor_method=True,
          args=[Arg("input"), Arg("axis", "value"), Arg("start", "value"), Arg("length", "value")])
def narrow(input, axis, start, length):
    """`length` elements of `axis` from `start`."""
    axis %= input.ndim
    begin = [0] * input.ndim
    end = list(input.shape)
    begin[axis], end[axis] = start, start + length
    return ops.strided_slice(input, tuple(begin), tuple(end), (1,) * input.ndim)


@op_entry("diff", tensor_method=True,
          args=[Arg("x"), Arg("n", "value", default=1), Arg("axis", "value", default=-1),
                Arg("prepend", "value", default=None), Arg("append", "value", default=None)])
def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The first difference along `axis`, after concatenating `prepend` and `append` (MindSpore
    2.10 supports only n = 1)."""
    if n != 1:
        raise OpRuntimeError(f"For 'diff', 'n' must be 1, but got {n}")
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = ops.concat(parts, axis)
    size = x.shape[axis % x.ndim]
    return narrow(x, axis, 1, size - 1) - narrow(x, axis, 0, size - 1)


def _atleast(inputs, nd, make):
    if isinstance(inputs, (tuple, list)):
        return tuple(_atleast(t, nd, make) for t in inputs)
    return inputs if inputs.ndim >= nd else make(inputs)


def _as_2d(t):
    return ops.reshape(t, (1, 1) if t.ndim == 0 else (1, t.shape[0]))


def _as_3d(t):
    if t.ndim == 0:
        return ops.reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return ops.reshape(t, (1, t.shape[0], 1))
    return ops.expand_dims(t, 2)


@op_entry("atleast_1d", args=[Arg("inputs", "value")])
def atleast_1d(inputs):
    """Each tensor with at least one axis (a tuple for a sequence of tensors)."""
    return _atleast(inputs, 1, lambda t: ops.reshape(t, (1,)))


@op_entry("atleast_2d", args=[Arg("inputs", "value")])
def atleast_2d(inputs):
    """Each tensor with at least two axes (new axes in front)."""
    return _atleast(inputs, 2, _as_2d)


@op_entry("atleast_3d", args=[Arg("inputs", "value")])
def atleast_3d(inputs):
    """Each tensor with at least three axes: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(inputs, 3, _as_3d)


@op_entry("hstack", args=[Arg("tensors", "value")])
def hstack(tensors):
    """Concatenate along the second axis (the first for 1-D tensors)."""
    ts = atleast_1d(tuple(tensors))
    return ops.concat(ts, 0 if ts[0].ndim == 1 else 1)


@op_entry("vstack", args=[Arg("inputs", "value")])
def vstack(inputs):
    """Concatenate along the first axis, 1-D tensors as rows."""
    return ops.concat(atleast_2d(tuple(inputs)), 0)


@op_entry("row_stack", args=[Arg("tensors", "value")])
def row_stack(tensors):
    """vstack's alias."""
    return vstack(tensors)


@op_entry("dstack", args=[Arg("tensors", "value")])
def dstack(tensors):
    """Concatenate along the third axis, after atleast_3d."""
    return ops.concat(atleast_3d(tuple(tensors)), 2)


@op_entry("column_stack", args=[Arg("tensors", "value")])
def column_stack(tensors):
    """1-D tensors as columns, 2-D ones as they are, concatenated along the second axis."""
    cols = tuple(ops.reshape(t, (t.shape[0], 1)) if t.ndim == 1 else t for t in tensors)
    return ops.concat(cols, 1)


def _move(x, source, destination):
    src = [s % x.ndim for s in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [d % x.ndim for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    if len(src) != len(dst):
        raise OpValueError(f"For 'moveaxis', 'source' and 'destination' must have the same number of elements, "
                           f"but got {len(src)} and {len(dst)}.")
    rest = [a for a in range(x.ndim) if a not in src]
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    it = iter(rest)
    return ops.transpose(x, tuple(o if o is not None else next(it) for o in order))


@op_entry("moveaxis", tensor_method=True, args=[Arg("x"), Arg("source", "value"), Arg("destination", "value")])
def moveaxis(x, source, destination):
    """Move axes `source` to positions `destination`, the others keeping their order."""
    return _move(x, source, destination)


@op_entry("movedim", tensor_method=True, args=[Arg("x"), Arg("source", "value"), Arg("destination", "value")])
def movedim(x, source, destination):
    """moveaxis's alias."""
    return _move(x, source, destination)


@op_entry("swapdims", tensor_method=True, args=[Arg("input"), Arg("dim0", "value"), Arg("dim1", "value")])
def swapdims(input, dim0, dim1):
    """swapaxes' alias."""
    return ops.swapaxes(input, dim0, dim1)


@op_entry("t", args=[Arg("input")])
def t(input):
    """The transpose of a 2-D tensor; a 1-D tensor as it is."""
    if input.ndim > 2:
        raise OpValueError(f"For 't', the input must be a Tensor with dimension at most 2, but got {input.ndim}.")
    return input if input.ndim < 2 else ops.transpose(input, (1, 0))


@op_entry("ravel", tensor_method=True, args=[Arg("input")])
def ravel(input):
    """The elements as a 1-D tensor."""
    return ops.reshape(input, (-1,))


@op_entry("msort", tensor_method=True, args=[Arg("input")])
def msort(input):
    """The values sorted along the first axis."""
    return ops.sort(input, axis=0)[0]


@op_entry("kron", args=[Arg("input"), Arg("other")])
def kron(input, other):
    """The Kronecker product (the smaller rank padded with leading 1s)."""
    nd = max(input.ndim, other.ndim)
    a = ops.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = ops.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    a = ops.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    b = ops.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return ops.reshape(a * b, tuple(x * y for x, y in zip(
        (1,) * (nd - input.ndim) + tuple(input.shape), (1,) * (nd - other.ndim) + tuple(other.shape))))


def _split(input, indices_or_sections, axis):
    axis %= input.ndim
    n = input.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise OpValueError(f"For 'tensor_split', 'indices_or_sections' must be positive, but got {k}.")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = [sum(sizes[:i]) for i in range(k + 1)]
    elif isinstance(indices_or_sections, (tuple, list)):
        bounds = [0] + [min(max(i if i >= 0 else i + n, 0), n) for i in indices_or_sections] + [n]
    else:
        raise OpValueError(f"For 'tensor_split', 'indices_or_sections' must be an int or a tuple / list of ints, "
                           f"but got {type(indices_or_sections).__name__}.")
    return tuple(narrow(input, axis, lo, max(hi - lo, 0)) for lo, hi in zip(bounds, bounds[1:]))


@op_entry("tensor_split", tensor_method=True,
          args=[Arg("input"), Arg("indices_or_sections", "value"), Arg("axis", "value", default=0)])
def tensor_split(input, indices_or_sections, axis=0):
    """Split `axis` into k nearly equal parts (the first n % k one longer), or at the given indices."""
    return _split(input, indices_or_sections, axis)


def _needs(input, nd, name):
    if not isinstance(input, TensorMethods) or input.ndim < nd:
        got = input.ndim if isinstance(input, TensorMethods) else type(input).__name__
        raise OpValueError(f"{name} expect `x` is a Tensor with at least {nd} dimension, but got {got}")


@op_entry("hsplit", tensor_method=True, args=[Arg("input"), Arg("indices_or_sections", "value")])
def hsplit(input, indices_or_sections):
    """tensor_split along the second axis (2-D or more)."""
    _needs(input, 2, "hsplit")
    return _split(input, indices_or_sections, 1)


@op_entry("vsplit", tensor_method=True, args=[Arg("input"), Arg("indices_or_sections", "value")])
def vsplit(input, indices_or_sections):
    """tensor_split along the first axis (2-D or more)."""
    _needs(input, 2, "vsplit")
    return _split(input, indices_or_sections, 0)


@op_entry("dsplit", tensor_method=True, args=[Arg("input"), Arg("indices_or_sections", "value")])
def dsplit(input, indices_or_sections):
    """tensor_split along the third axis (3-D or more)."""
    _needs(input, 3, "dsplit")
    return _split(input, indices_or_sections, 2)
