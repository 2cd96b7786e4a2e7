"""Tensor.index_add, MindSpore 2.10's two overloads: `x.index_add(dim, index, source, *, alpha=1)`
(source scaled by alpha) and the older `x.index_add(indices, y, axis, use_lock, check_index_bound)`,
both ops.index_add (a Parameter is updated in place, as the wheel does)."""
from pycompile.common.tensor import TensorMethods
from pycompile.ops import function_scatter as FS
from pycompile.ops._table import OpTypeError
from pycompile.ops.entry import Arg, op_entry


@op_entry("tensor_index_add", tensor_method="index_add", functional=False, prim_name="IndexAdd",
          args=[Arg("input"), Arg("dim", "value"), Arg("index", "value"), Arg("source", "value"),
                Arg("use_lock", "value", default=True), Arg("check_index_bound", "value", default=True),
                Arg("alpha", "value", default=1, keyword=True)])
def tensor_index_add(input, dim, index, source, use_lock=True, check_index_bound=True, alpha=1):
    """`input` with alpha * source's slices added at `index` along `dim`."""
    if isinstance(dim, TensorMethods):             # the older overload: (indices, y, axis, ...)
        return FS.index_add(input, dim, index, source, use_lock, check_index_bound)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise OpTypeError(f"For 'index_add', 'alpha' must be an int or a float, but got {type(alpha).__name__}.")
    if alpha != 1:
        source = source * alpha
    return FS.index_add(input, index, source, dim)
