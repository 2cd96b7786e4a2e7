"""FractionalMaxPool / FractionalAvgPool (`ops.operations.nn_ops`) and their gradients
FractionalMaxPoolGrad / FractionalAvgPoolGrad (`ops.operations._grad_ops`), MindSpore 2.10's
(TensorFlow's) fractional pooling of an NHWC tensor (issue 33, pool33).

Output size per pooled axis: floor(input / ratio). The pooling sequence of an axis (its output
size + 1 cumulative boundaries, 0 first, the input size last) is TensorFlow's
GeneratePoolingSequence: steps of input / output when that divides; else 'pseudo_random' steps
ceil(alpha (i + u)) - ceil(alpha (i - 1 + u)) for one uniform u, or (default) a random
permutation of the steps k and k + 1. The wheel draws with Philox, pycompile with NumPy
(seeded by (seed, seed2) when either is set), so only the non-random cases (the divisible
ones) agree value for value; every sequence is a valid one. In graph code the sequence is drawn
when the graph is compiled (a constant of that graph).

Window i of an axis covers [seq[i], seq[i + 1]) or, with `overlapping`, [seq[i], seq[i + 1]].
Everything is written with the windows as membership matrices built from the sequences, so the
gradients take the sequences as Tensors known only when the graph runs:

* max: separable (rows, then columns) masked maxima; its gradient adds out_backprop at each
  window's first maximum in row-major order (TensorFlow's);
* avg: (Mr @ X @ Mc^T) / window area with Mr, Mc the rows' and columns' membership, in float64
  and cast back (int inputs truncate, as TensorFlow's integer division of positive sums); its
  gradient Ar^T @ dY @ Ac with Ar = Mr / window height (TensorFlow's dY / area shared out).
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.errors import InputValueNeeded
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

import pycompile.ops as ops

_TYPES = frozenset({mstype.float32, mstype.float64, mstype.int32, mstype.int64})


def _check_ratio(v, op_name):
    if not isinstance(v, (tuple, list)) or len(v) != 4 or \
            any(not isinstance(r, (int, float)) or isinstance(r, bool) for r in v):
        raise OpTypeError(f"For '{op_name}', 'pooling_ratio' must be a tuple or list of 4 floats, but got {v}.")
    if v[0] != 1.0 or v[3] != 1.0:
        raise OpValueError(f"For '{op_name}', the first and fourth elements of 'pooling_ratio' must be 1.0, but got "
                           f"{v[0]} and {v[3]}.")
    if v[1] < 1.0 or v[2] < 1.0:
        raise OpValueError(f"For '{op_name}', the second and third elements of 'pooling_ratio' must be >= 1.0, but "
                           f"got {v[1]} and {v[2]}.")


def _check_bool(what):
    def check(v, op_name):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be bool, but got {type(v).__name__}.")
    return check


def _check_int(what):
    def check(v, op_name):
        if not isinstance(v, int) or isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be int, but got {type(v).__name__}.")
    return check


def pooling_sequence(n_in: int, n_out: int, rng, pseudo_random: bool) -> np.ndarray:
    """TensorFlow's GeneratePoolingSequence as cumulative boundaries (n_out + 1 values, 0 .. n_in)."""
    k = n_in // n_out
    if n_in % n_out == 0:
        diff = np.full(n_out, k, np.int64)
    elif pseudo_random:
        alpha = n_in / n_out
        max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = rng.random() * max_u
        cum = [1] + [int(np.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
        diff = np.diff(np.asarray(cum, np.int64))
    else:
        diff = np.full(n_out, k, np.int64)
        diff[:n_in % n_out] = k + 1
        rng.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _membership(seq, n_in: int, overlapping: bool):
    """(n_out, n_in) bool: input position h lies in window i. `seq` is a Tensor (known or not)."""
    n_out = seq.shape[0] - 1
    lo = F.reshape(ops.strided_slice(seq, (0,), (n_out,), (1,)), (n_out, 1))
    hi = F.reshape(ops.strided_slice(seq, (1,), (n_out + 1,), (1,)), (n_out, 1))
    if overlapping:
        hi = hi + 1
    pos = Tensor(np.arange(n_in, dtype=np.int64).reshape(1, n_in))
    return ops.logical_and(pos >= lo, pos < hi)


def _lowest(dtype):
    return float("-inf") if dtype.is_float else int(np.iinfo(dtype.np).min)


def _masked_max(x, member, axis):
    """max over `axis` of x within each window: x (.., n, ..) -> (.., n_out, ..)."""
    nd = len(x.shape)
    xe = F.expand_dims(x, axis)                                   # (.., 1, n, ..)
    shape = [1] * (nd + 1)
    shape[axis], shape[axis + 1] = member.shape
    m = F.reshape(member, tuple(shape))
    fill = Tensor(np.array(_lowest(x.dtype), x.dtype.np))
    return ops.amax(F.select(F.broadcast_to(m, tuple(np.broadcast_shapes(tuple(shape), tuple(xe.shape)))),
                             F.broadcast_to(xe, tuple(np.broadcast_shapes(tuple(shape), tuple(xe.shape)))), fill),
                    axis + 1)


def _weights(member):
    m = F.cast(member, mstype.float64)
    return m / ops.sum(m, 1, keepdim=True)


def _avg(x, ar, ac):
    """ar @ X @ ac^T over the H and W axes of an NHWC tensor, in float64."""
    xt = F.transpose(F.cast(x, mstype.float64), (0, 3, 1, 2))                     # N C H W
    out = ops.matmul(ops.matmul(ar, xt), F.transpose(ac, (1, 0)))
    return F.transpose(out, (0, 2, 3, 1))


def _rng(deterministic, seed, seed2):
    return np.random.default_rng((seed, seed2)) if (seed or seed2) else np.random.default_rng()


def _forward(name, kind, x, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2):
    if len(x.shape) != 4:
        raise OpValueError(f"For '{name}', the dimension of 'x' must be 4, but got {len(x.shape)}.")
    n, h, w, c = x.shape
    oh, ow = int(np.floor(h / pooling_ratio[1])), int(np.floor(w / pooling_ratio[2]))
    if oh <= 0 or ow <= 0:
        raise OpValueError(f"For '{name}', the output size (input / pooling_ratio) must be positive, but got "
                           f"({oh}, {ow}) from input {list(x.shape)}.")
    rng = _rng(deterministic, seed, seed2)
    rows = Tensor(pooling_sequence(h, oh, rng, pseudo_random))
    cols = Tensor(pooling_sequence(w, ow, rng, pseudo_random))
    mr, mc = _membership(rows, h, overlapping), _membership(cols, w, overlapping)
    if kind == "max":
        y = _masked_max(_masked_max(x, mr, 1), mc, 2)
    else:
        # the window sums divided by the window sizes (exact for int inputs, then truncated)
        fr, fc = F.cast(mr, mstype.float64), F.cast(mc, mstype.float64)
        area = F.reshape(ops.sum(fr, 1), (1, oh, 1, 1)) * F.reshape(ops.sum(fc, 1), (1, 1, ow, 1))
        y = F.cast(_avg(x, fr, fc) / area, x.dtype)
    return y, rows, cols


_FWD_ARGS = [Arg("x", dtypes=_TYPES), Arg("pooling_ratio", "value", init=True, check=_check_ratio),
             Arg("pseudo_random", "value", default=False, init=True, check=_check_bool("pseudo_random")),
             Arg("overlapping", "value", default=False, init=True, check=_check_bool("overlapping")),
             Arg("deterministic", "value", default=False, init=True, check=_check_bool("deterministic")),
             Arg("seed", "value", default=0, init=True, check=_check_int("seed")),
             Arg("seed2", "value", default=0, init=True, check=_check_int("seed2"))]


@op_entry("fractional_max_pool_primitive", primitive="FractionalMaxPool", functional=False, args=_FWD_ARGS)
def fractional_max_pool_primitive(x, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                                  seed=0, seed2=0):
    """(y, row_pooling_sequence, col_pooling_sequence): the max over each fractional window."""
    return _forward("FractionalMaxPool", "max", x, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                    seed2)


@op_entry("fractional_avg_pool_primitive", primitive="FractionalAvgPool", functional=False, args=_FWD_ARGS)
def fractional_avg_pool_primitive(x, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                                  seed=0, seed2=0):
    """(y, row_pooling_sequence, col_pooling_sequence): the mean over each fractional window."""
    return _forward("FractionalAvgPool", "avg", x, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                    seed2)


def _seq_check(name, seq, n_out, what):
    if seq.dtype != mstype.int64 or len(seq.shape) != 1:
        raise OpTypeError(f"For '{name}', '{what}' must be a 1-D int64 Tensor, but got {seq.dtype} of rank "
                          f"{len(seq.shape)}.")
    if seq.shape[0] < n_out + 1:
        raise OpValueError(f"For '{name}', '{what}' must have at least {n_out + 1} elements (the output size + 1), "
                           f"but got {seq.shape[0]}.")
    return seq if seq.shape[0] == n_out + 1 else ops.strided_slice(seq, (0,), (n_out + 1,), (1,))


@op_entry("fractional_max_pool_grad_primitive", primitive="FractionalMaxPoolGrad", functional=False,
          args=[Arg("orig_input", dtypes=_TYPES), Arg("orig_output", dtypes=_TYPES), Arg("out_backprop", dtypes=_TYPES),
                Arg("row_pooling_sequence"), Arg("col_pooling_sequence"),
                Arg("overlapping", "value", default=False, init=True, check=_check_bool("overlapping"))])
def fractional_max_pool_grad_primitive(orig_input, orig_output, out_backprop, row_pooling_sequence,
                                       col_pooling_sequence, overlapping=False):
    """FractionalMaxPool's backward: each gradient added at its window's first maximum of orig_input."""
    name = "FractionalMaxPoolGrad"
    x = orig_input
    if len(x.shape) != 4 or len(out_backprop.shape) != 4:
        raise OpValueError(f"For '{name}', 'orig_input' and 'out_backprop' must be 4-D, but got {len(x.shape)}-D "
                           f"and {len(out_backprop.shape)}-D.")
    if tuple(orig_output.shape) != tuple(out_backprop.shape):
        raise OpValueError(f"For '{name}', 'orig_output' and 'out_backprop' must have the same shape, but got "
                           f"{list(orig_output.shape)} and {list(out_backprop.shape)}.")
    n, h, w, c = x.shape
    oh, ow = out_backprop.shape[1:3]
    mr = _membership(_seq_check(name, row_pooling_sequence, oh, "row_pooling_sequence"), h, overlapping)
    mc = _membership(_seq_check(name, col_pooling_sequence, ow, "col_pooling_sequence"), w, overlapping)
    window = ops.logical_and(F.reshape(mr, (1, oh, 1, h, 1, 1)), F.reshape(mc, (1, 1, ow, 1, w, 1)))
    shape = (n, oh, ow, h, w, c)
    xs = F.broadcast_to(F.reshape(x, (n, 1, 1, h, w, c)), shape)
    fill = Tensor(np.array(_lowest(x.dtype), x.dtype.np))
    masked = F.select(F.broadcast_to(window, shape), xs, fill)
    idx = ops.argmax(F.reshape(masked, (n, oh * ow, h * w, c)), 2)                 # (n, oh*ow, c)
    out = ops.tensor_scatter_elements(F.zeros((n, h * w, c), out_backprop.dtype), idx,
                                      F.reshape(out_backprop, (n, oh * ow, c)), 1, "add")
    return F.reshape(out, (n, h, w, c))


def _shape_values(name, shape) -> tuple:
    if isinstance(shape, Symbolic):
        # an argument of the compiled function is then compiled by value (pycompile.api)
        raise InputValueNeeded(f"For '{name}', the values of 'orig_input_tensor_shape' must be known when the graph "
                               f"is compiled: pass a tuple, or a Tensor argument of the compiled function or created "
                               f"in __init__ (not one computed in the graph).", shape)
    if isinstance(shape, TensorMethods):
        if shape.dtype != mstype.int64 or len(shape.shape) != 1:
            raise OpTypeError(f"For '{name}', 'orig_input_tensor_shape' must be a 1-D int64 Tensor, but got "
                              f"{shape.dtype} of rank {len(shape.shape)}.")
        shape = shape.asnumpy().tolist()
    dims = tuple(int(d) for d in shape)
    if len(dims) != 4 or any(d <= 0 for d in dims):
        raise OpValueError(f"For '{name}', 'orig_input_tensor_shape' must hold 4 positive sizes, but got {dims}.")
    return dims


@op_entry("fractional_avg_pool_grad_primitive", primitive="FractionalAvgPoolGrad", functional=False,
          args=[Arg("orig_input_tensor_shape", "value"), Arg("out_backprop", dtypes=_TYPES),
                Arg("row_pooling_sequence"), Arg("col_pooling_sequence"),
                Arg("overlapping", "value", default=False, init=True, check=_check_bool("overlapping"))])
def fractional_avg_pool_grad_primitive(orig_input_tensor_shape, out_backprop, row_pooling_sequence,
                                       col_pooling_sequence, overlapping=False):
    """FractionalAvgPool's backward: each gradient shared equally by its window's elements."""
    name = "FractionalAvgPoolGrad"
    n, h, w, c = _shape_values(name, orig_input_tensor_shape)
    if len(out_backprop.shape) != 4 or out_backprop.shape[0] != n or out_backprop.shape[3] != c:
        raise OpValueError(f"For '{name}', 'out_backprop' must be 4-D with the batch and channels of "
                           f"{[n, h, w, c]}, but got {list(out_backprop.shape)}.")
    oh, ow = out_backprop.shape[1:3]
    ar = _weights(_membership(_seq_check(name, row_pooling_sequence, oh, "row_pooling_sequence"), h, overlapping))
    ac = _weights(_membership(_seq_check(name, col_pooling_sequence, ow, "col_pooling_sequence"), w, overlapping))
    return F.cast(_avg(out_backprop, F.transpose(ar, (1, 0)), F.transpose(ac, (1, 0))), out_backprop.dtype)
