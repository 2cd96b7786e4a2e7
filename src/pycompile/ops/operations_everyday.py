"""Class forms of the everyday ops (`ops.Split(axis=1, output_num=3)(x)`, `ops.TopK()(x, 2)`,
`ops.OneHot()(idx, depth, on, off)` ...), as MindSpore 2.10 spells their constructors and calls.
Each calls the functional view, so the two forms cannot disagree."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.ops import function_array as A
from pycompile.ops import function_index as X
from pycompile.ops import function_math as M
from pycompile.ops import function_scatter as S
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.primitive import Primitive, _simple


def _with_init(name: str, params: dict, call, doc: str = ""):
    """A Primitive whose constructor takes `params` (name -> default) and whose call is
    `call(self, *args)`."""
    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        values = dict(params)
        keys = list(params)
        if len(args) > len(keys):
            raise TypeError(f"For '{name}', expected at most {len(keys)} constructor arguments, but got {len(args)}")
        values.update(zip(keys, args))
        for k, v in kwargs.items():
            if k not in params:
                raise TypeError(f"For '{name}', unknown constructor argument '{k}'")
            values[k] = v
        for k, v in values.items():
            setattr(self, k, v)
    return type(name, (Primitive,), {"__init__": __init__, "__call__": call, "__doc__": doc or f"MindSpore's {name}."})


# ---- elementwise -----------------------------------------------------------------------------------
Log1p = _simple("Log1p", M.log1p)
Expm1 = _simple("Expm1", M.expm1)
Erfc = _simple("Erfc", M.erfc)
Tan = _simple("Tan", M.tan)
Asin = _simple("Asin", M.asin)
ACos = _simple("ACos", M.acos)
Atan = _simple("Atan", M.atan)
Sinh = _simple("Sinh", M.sinh)
Cosh = _simple("Cosh", M.cosh)
Asinh = _simple("Asinh", M.asinh)
Acosh = _simple("Acosh", M.acosh)
Atanh = _simple("Atanh", M.atanh)
Atan2 = _simple("Atan2", M.atan2)
IsNan = _simple("IsNan", M.isnan)
IsInf = _simple("IsInf", M.isinf)
Sign = _simple("Sign", M.sign)
Trunc = _simple("Trunc", M.trunc)
Inv = _simple("Inv", M.inv)
Invert = _simple("Invert", M.invert)
Ger = _simple("Ger", M.ger)
Mod = _simple("Mod", M.fmod, "The truncated remainder (C's fmod): -4 mod 3 is -1; FloorMod is the floored one.")
Round = _with_init("Round", {}, lambda self, input, decimals=0: M.round(input, decimals=decimals))

# ---- queries and small helpers --------------------------------------------------------------------------
Partial = _with_init("Partial", {}, lambda self, *args: A.partial(*args))
TupleToArray = _with_init("TupleToArray", {}, lambda self, input_x: A.tuple_to_array(input_x))
ScalarToTensor = _with_init("ScalarToTensor", {},
                            lambda self, x, dtype=mstype.float32: A.scalar_to_tensor(x, dtype))
DType = _simple("DType", A.dtype)
Rank = _simple("Rank", A.rank)
Eye = _with_init("Eye", {}, lambda self, n, m, dtype: A.eye(n, m, dtype))
Range = _with_init("Range", {"maxlen": 1000000}, lambda self, start, end, step: A.range(start, end, step))
Meshgrid = _with_init("Meshgrid", {"indexing": "xy"}, lambda self, inputs: A.meshgrid(*inputs, indexing=self.indexing))
Flatten = _simple("Flatten", lambda input_x: F.flatten(input_x))

InplaceAdd = _with_init("InplaceAdd", {"indices": None}, lambda self, x, v: X.inplace_add(x, v, self.indices))
InplaceSub = _with_init("InplaceSub", {"indices": None}, lambda self, x, v: X.inplace_sub(x, v, self.indices))
InplaceUpdate = _with_init("InplaceUpdate", {"indices": None},
                           lambda self, x, v: X.inplace_update(x, v, self.indices))

# ---- split, stack, slices ------------------------------------------------------------------------------
Split = _with_init("Split", {"axis": 0, "output_num": 1},
                   lambda self, input_x: A.split_equal(input_x, self.axis, self.output_num))
Unstack = _with_init("Unstack", {"axis": 0, "num": None}, lambda self, input_x: A.unstack(input_x, self.axis))
Slice = _with_init("Slice", {}, lambda self, input, begin, size: A.slice(input, begin, size))
StridedSlice = _with_init(
    "StridedSlice", {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0},
    lambda self, input_x, begin, end, strides: A.strided_slice(
        input_x, begin, end, strides, self.begin_mask, self.end_mask, self.ellipsis_mask, self.new_axis_mask,
        self.shrink_axis_mask))
ReverseV2 = _with_init("ReverseV2", {"axis": ()}, lambda self, input: A.flip(input, self.axis))
Tril = _with_init("Tril", {"diagonal": 0}, lambda self, input: A.tril(input, self.diagonal))
Triu = _with_init("Triu", {"diagonal": 0}, lambda self, input: A.triu(input, self.diagonal))
OneHot = _with_init("OneHot", {"axis": -1},
                    lambda self, indices, depth, on_value, off_value: A.one_hot(indices, depth, on_value, off_value,
                                                                                self.axis))

# ---- reductions, scans, orderings -------------------------------------------------------------------------
ReduceProd = _with_init("ReduceProd", {"keep_dims": False},
                        lambda self, x, axis=(): M.reduce_prod_keep(x, axis, self.keep_dims))
Argmin = _with_init("Argmin", {"axis": -1, "output_type": mstype.int32},
                    lambda self, x: F.cast(M.argmin_int64(x, self.axis), self.output_type))
ArgMaxWithValue = _with_init(
    "ArgMaxWithValue", {"axis": 0, "keep_dims": False},
    lambda self, input: (F.argmax(input, self.axis, self.keep_dims), F.amax(input, self.axis, self.keep_dims)),
    "(Int64 indices of the maxima, the maxima) along axis.")
ArgMinWithValue = _with_init(
    "ArgMinWithValue", {"axis": 0, "keep_dims": False},
    lambda self, input: (M.argmin_int64(input, self.axis, self.keep_dims), F.amin(input, self.axis, self.keep_dims)))
CumSum = _with_init("CumSum", {"exclusive": False, "reverse": False},
                    lambda self, input, axis: M.scan("CumSum", input, axis, self.exclusive, self.reverse))
CumProd = _with_init("CumProd", {"exclusive": False, "reverse": False},
                     lambda self, x, axis: M.scan("CumProd", x, axis, self.exclusive, self.reverse))
Sort = _with_init("Sort", {"axis": -1, "descending": False},
                  lambda self, x: M.sort(x, self.axis, self.descending))
TopK = _with_init("TopK", {"sorted": True}, lambda self, input_x, k: M.topk(input_x, k, None, True, self.sorted),
                  "(the k largest values along the last axis, their Int32 indices).")

# ---- norms, products --------------------------------------------------------------------------------
L2Normalize = _with_init("L2Normalize", {"axis": 0, "epsilon": 1e-4},
                         lambda self, x: M.l2_normalize(x, self.axis, self.epsilon))
LpNorm = _with_init("LpNorm", {"axis": 0, "p": 2, "keep_dims": False, "epsilon": 1e-12},
                    lambda self, input: M.lp_norm(input, self.axis, self.p, self.keep_dims, self.epsilon))
Einsum = _with_init("Einsum", {"equation": ""}, lambda self, operands: M.einsum(self.equation, *operands))

BatchToSpaceND = _with_init("BatchToSpaceND", {"block_shape": 2, "crops": ((0, 0), (0, 0))},
                            lambda self, input_x: A.batch_to_space_nd(input_x, self.block_shape, self.crops),
                            "The batch moved into the last len(block_shape) axes in blocks, then cropped.")
Cummax = _with_init("Cummax", {"axis": 0}, lambda self, input: M.cummax(input, self.axis),
                    "(running maximum along axis, Int64 index where it was reached).")
Cummin = _with_init("Cummin", {"axis": 0}, lambda self, input: M.cummin(input, self.axis),
                    "(running minimum along axis, Int32 index where it was reached).")
DepthToSpace = _with_init("DepthToSpace", {"block_size": 2}, lambda self, x: A.depth_to_space(x, self.block_size),
                          "(N, C * b * b, H, W) to (N, C, H * b, W * b), depth-column-row order.")
SpaceToDepth = _with_init("SpaceToDepth", {"block_size": 2}, lambda self, x: A.space_to_depth(x, self.block_size),
                          "(N, C, H * b, W * b) to (N, b * b * C, H, W).")
def _square_sum_all(x, y):
    """MindSpore 2.10's checks: float16 / float32 inputs of one dtype and one shape."""
    tx, ty = F._tensor_type("SquareSumAll", x, "x"), F._tensor_type("SquareSumAll", y, "y")
    for what, t in (("x", tx), ("y", ty)):
        if t.dtype not in (mstype.float16, mstype.float32):
            raise OpTypeError(f"For primitive[SquareSumAll], the input argument[{what}] must be a type of "
                              f"{{Tensor[Float16], Tensor[Float32]}}, but got Tensor[{t.dtype}].")
    if tx.dtype != ty.dtype:
        raise OpTypeError("For primitive[SquareSumAll], the input type must be same.")
    if tx.shape != ty.shape:
        raise OpValueError(f"For primitive[SquareSumAll], the x: {list(tx.shape)} must be equal to {list(ty.shape)}")
    return F.reduce_sum(F.square(x)), F.reduce_sum(F.square(y))


SquareSumAll = _simple("SquareSumAll", _square_sum_all, "(sum of x^2, sum of y^2) over all elements.")
Renorm = _with_init("Renorm", {"p": 2, "dim": 0, "maxnorm": 1.0},
                    lambda self, x: M.renorm(x, self.p, self.dim, self.maxnorm),
                    "Slices along dim whose p-norm exceeds maxnorm scaled down to it.")
Padding = _with_init("Padding", {"pad_dim_size": 8}, lambda self, x: A.padding(x, self.pad_dim_size),
                     "x of shape (..., 1) as (..., pad_dim_size): its value, then zeros.")

# ---- masks, gathers, scatters ---------------------------------------------------------------------------
MaskedFill = _simple("MaskedFill", X.masked_fill)
MaskedSelect = _simple("MaskedSelect", X.masked_select)
Unique = _simple("Unique", X._unique_1d)
GatherD = _simple("GatherD", X.gather_d)
GatherNd = _simple("GatherNd", X.gather_nd)
GatherV2 = _simple("GatherV2", F.gather)
ScatterNd = _simple("ScatterNd", X.scatter_nd)
TensorScatterUpdate = _simple("TensorScatterUpdate", X.tensor_scatter_update)
TensorScatterAdd = _simple("TensorScatterAdd", X.tensor_scatter_add)
TensorScatterElements = _with_init(
    "TensorScatterElements", {"axis": 0, "reduction": "none"},
    lambda self, input_x, indices, updates: X.tensor_scatter_elements(input_x, indices, updates, self.axis,
                                                                      self.reduction))


def _scatter_nd_update(self, input_x, indices, updates):
    return F.assign(input_x, X.tensor_scatter_update(input_x, indices, updates))


ScatterNdUpdate = _with_init("ScatterNdUpdate", {"use_locking": True}, _scatter_nd_update,
                             "Writes `updates` into the Parameter at the index tuples; returns the Parameter.")
TensorScatterSub = _simple("TensorScatterSub", S.tensor_scatter_sub)
TensorScatterMul = _simple("TensorScatterMul", S.tensor_scatter_mul)
TensorScatterDiv = _simple("TensorScatterDiv", S.tensor_scatter_div)
TensorScatterMax = _simple("TensorScatterMax", S.tensor_scatter_max)
TensorScatterMin = _simple("TensorScatterMin", S.tensor_scatter_min)


def _in_place(name: str, fn):
    """ScatterNdAdd(use_locking=False)(param, indices, updates) and the like: fn writes the Parameter."""
    return _with_init(name, {"use_locking": False}, lambda self, input_x, indices, updates: fn(input_x, indices, updates),
                      f"Writes into the Parameter its rows combined with the updates ({fn.__name__}); returns it.")


ScatterNdAdd = _in_place("ScatterNdAdd", S.scatter_nd_add)
ScatterNdSub = _in_place("ScatterNdSub", S.scatter_nd_sub)
ScatterNdMul = _in_place("ScatterNdMul", S.scatter_nd_mul)
ScatterNdDiv = _in_place("ScatterNdDiv", S.scatter_nd_div)
ScatterNdMax = _in_place("ScatterNdMax", S.scatter_nd_max)
ScatterNdMin = _in_place("ScatterNdMin", S.scatter_nd_min)
ScatterAdd = _in_place("ScatterAdd", S.scatter_add)
ScatterSub = _in_place("ScatterSub", S.scatter_sub)
ScatterMul = _in_place("ScatterMul", S.scatter_mul)
ScatterDiv = _in_place("ScatterDiv", S.scatter_div)
ScatterMax = _in_place("ScatterMax", S.scatter_max)
ScatterMin = _in_place("ScatterMin", S.scatter_min)
ScatterUpdate = _in_place("ScatterUpdate", S.scatter_update)
IndexAdd = _with_init("IndexAdd", {"axis": 0, "use_lock": True, "check_index_bound": True},
                      lambda self, input_x, indices, y: S.index_add(input_x, indices, y, self.axis),
                      "Adds y's slices to input_x's slices `indices` along `axis`, in place; returns it.")
UnsortedSegmentSum = _simple("UnsortedSegmentSum", S.unsorted_segment_sum)
UnsortedSegmentMax = _simple("UnsortedSegmentMax", S.unsorted_segment_max)
UnsortedSegmentMin = _simple("UnsortedSegmentMin", S.unsorted_segment_min)
UnsortedSegmentProd = _simple("UnsortedSegmentProd", S.unsorted_segment_prod)
AssignAdd = _simple("AssignAdd", X.assign_add)
AssignSub = _simple("AssignSub", X.assign_sub)

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and isinstance(v, type) and issubclass(v, Primitive) and v is not Primitive]
