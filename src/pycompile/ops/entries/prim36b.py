"""MindSpore 2.10 functions and Primitives that were missing, each a decomposition into ops pycompile
has, so PyNative and graph code run one definition (the siblings of prim36.py):

- ops.multi_scale_deformable_attn_function (Deformable DETR's multi-scale deformable attention): the
  wheel has only an Ascend kernel, so its values follow the documented algorithm (the reference
  formulation of Deformable DETR), checked against NumPy in tests/ops/test_prim36.py;
- TensorDump / ops.tensordump: a .npy file per call, in graph code through a host call kept on the
  effect chain (as the summary ops are);
- ScalarToArray / scalar_to_array: the documented 0-D Tensor (the wheel cannot run it);
- the graph utilities string_concat, string_eq, typeof and hastype: compile-time work on constants
  (the wheel's PyNative string utilities fail, and so do these);
- Morph: a user function inlined into graph code, with an optional bprop; graph-only, as in MindSpore.
"""
from __future__ import annotations

import inspect
import itertools
import os

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import U_TYPE, TensorType
from pycompile.common.dtype_types import Int, Number
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.defs.pyfunc import SITES, CustomPyFunc, Site
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entries.prim36 import in_graph
from pycompile.ops.entries.summary_ops import _ms_type
from pycompile.ops.entry import ENTRIES, Arg, op_entry

_F16_32 = (mstype.float16, mstype.float32)
_I32_64 = (mstype.int32, mstype.int64)


def _check_dtype(op, what, t, allowed, names):
    if t.dtype not in allowed:
        raise OpRuntimeError(f"For '{op}', the data type of '{what}' must be {names}, but got {t.dtype}.")


@op_entry("multi_scale_deformable_attn_function",
          args=[Arg("value"), Arg("shape"), Arg("offset"), Arg("locations"), Arg("weight")],
          prim_name="MultiScaleDeformableAttn")
def multi_scale_deformable_attn_function(value, shape, offset, locations, weight):
    """value (bs, num_keys, heads, dims) holds num_levels feature maps, map l being the H_l x W_l
    rows from offset[l] (shape[l] = (H_l, W_l)); each query samples every map at num_points
    locations (bs, queries, heads, levels, points, 2), (x, y) in [0, 1] over the map (bilinear,
    align_corners False, zero outside), and sums the samples weighted by weight (bs, queries, heads,
    levels, points). Output (bs, queries, heads * dims). shape and offset set how value is split,
    so graph code needs them as constants (or compiles once per value)."""
    op = "MultiScaleDeformableAttn"
    _check_dtype(op, "value", value, _F16_32, "float32 or float16")
    _check_dtype(op, "shape", shape, _I32_64, "int32 or int64")
    _check_dtype(op, "offset", offset, _I32_64, "int32 or int64")
    _check_dtype(op, "locations", locations, _F16_32, "float32 or float16")
    _check_dtype(op, "weight", weight, _F16_32, "float32 or float16")
    if value.ndim != 4 or locations.ndim != 6 or weight.ndim != 5:
        raise OpRuntimeError(f"For '{op}', value must be 4-D, locations 6-D and weight 5-D, but got "
                             f"{value.ndim}-D, {locations.ndim}-D and {weight.ndim}-D.")
    bs, num_keys, heads, dims = value.shape
    if dims % 8:
        raise OpRuntimeError(f"For '{op}', embed_dims must be a multiple of 8, but got {dims}.")
    sizes = np.asarray(shape_values(shape, "shape", op)).reshape(-1, 2)
    starts = np.asarray(shape_values(offset, "offset", op)).reshape(-1)
    _, queries, _, levels, points, _ = locations.shape
    if sizes.shape[0] != levels or starts.shape[0] != levels or tuple(weight.shape) != tuple(locations.shape[:5]):
        raise OpRuntimeError(f"For '{op}', shape ({sizes.shape[0]} levels), offset ({starts.shape[0]}), locations "
                             f"{tuple(locations.shape)} and weight {tuple(weight.shape)} do not agree.")
    grids = F.sub(F.mul(locations, 2.0), 1.0)                       # [0, 1] -> grid_sample's [-1, 1]
    sampled = []
    for lvl in range(levels):
        h, w, s = int(sizes[lvl, 0]), int(sizes[lvl, 1]), int(starts[lvl])
        if h * w + s > num_keys or s < 0:
            raise OpRuntimeError(f"For '{op}', level {lvl} ({h} x {w} from offset {s}) runs past the {num_keys} "
                                 f"keys of value.")
        v = value[:, s:s + h * w]                                   # (bs, h w, heads, dims)
        v = F.reshape(F.transpose(v, (0, 2, 3, 1)), (bs * heads, dims, h, w))
        g = F.reshape(F.transpose(grids[:, :, :, lvl], (0, 2, 1, 3, 4)), (bs * heads, queries, points, 2))
        sampled.append(ops.grid_sample(v, g, "bilinear", "zeros", False))      # (bs heads, dims, queries, points)
    stacked = F.stack(sampled, 3)                                   # (bs heads, dims, queries, levels, points)
    wts = F.reshape(F.transpose(weight, (0, 2, 1, 3, 4)), (bs * heads, 1, queries, levels, points))
    out = ops.sum(F.reshape(F.mul(stacked, wts), (bs * heads, dims, queries, levels * points)), -1)
    out = F.reshape(out, (bs, heads * dims, queries))
    return F.transpose(out, (0, 2, 1))


# ---- TensorDump / tensordump --------------------------------------------------------------------------
_DUMP_IDS = itertools.count()       # MindSpore's one auto-increment id over every dump of the process
_DUMP_SITES: dict = {}              # (file, TensorType) -> CustomPyFunc site number
_DUMP_RESULT = TensorType(mstype.int32, (1,))


def _dump_file(file: str, dtype_name: str) -> str:
    """Where MindSpore's CPU TensorDump writes: `<file without .npy>_<dtype>_<id>.npy` (the mode is
    not in the name on CPU), the directory made (0700) when missing."""
    base = file[:-4] if file.endswith(".npy") else file
    folder = os.path.dirname(base)
    if folder:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    return f"{base}_{dtype_name}_{next(_DUMP_IDS)}.npy"


def _write_dump(file: str, dtype_name: str, array) -> None:
    path = _dump_file(file, dtype_name)
    arr = np.asarray(array)
    np.save(path, arr.astype(np.float32) if dtype_name == "bfloat16" else arr)
    os.chmod(path, 0o400)             # read-only, as MindSpore leaves its dump files


class _Dump:
    """The host call's function in graph code: write the value as the PyNative call does."""

    def __init__(self, file: str, dtype_name: str):
        self.file, self.dtype_name = file, dtype_name
        self.__name__ = f"TensorDump[{file}]"

    def __call__(self, array):
        _write_dump(self.file, self.dtype_name, array)
        return np.zeros((1,), np.int32)


def _check_dump_mode(v, op):
    if v not in ("in", "out"):
        raise OpValueError(f"The 'input_output' argument should be one of ['in', 'out'], but got: {v}")


def _tensor_dump(file, tensor, mode):
    """Write `tensor` to a .npy file now (PyNative), or where the compiled code reaches this call
    (graph code: one host call, ops.Custom's CustomPyFunc, kept on the effect chain as the summary
    ops are, its input under StopGradient). Returns None."""
    op = "TensorDump"
    graph = tracing.capturing()
    if not isinstance(file, str):
        if graph is not None:
            raise OpTypeError(f"For primitive[{op}], the input argument[file] must be a type of {{String}}, but got "
                              f"{_ms_type(file)}.")
        raise OpTypeError(f"For '{op}', the type of 'file' should be 'str', but got type '{type(file).__name__}'.")
    if not isinstance(tensor, TensorMethods):
        raise OpTypeError(f"For '{op}', the type of 'input_x' should be 'Tensor', but got type "
                          f"'{type(tensor).__name__}'.")
    dtype_name = str(tensor.dtype).lower()
    if graph is not None and hasattr(graph, "u"):
        from pycompile.ops.functional import stop_gradient
        t = TensorType(tensor.dtype, tuple(tensor.shape))
        site = _DUMP_SITES.get((file, t))
        if site is None:
            SITES.append(Site(_Dump(file, dtype_name), (t,), _DUMP_RESULT, op))
            site = _DUMP_SITES[(file, t)] = len(SITES) - 1
        value = tensor
        if getattr(value, "_tracer", None) is not graph:      # a constant Tensor of the traced code
            value = graph.sym(graph.value(value))
        out = apply(CustomPyFunc, [[stop_gradient(value)]], {"site": site})
        graph.u = graph.add(P.UpdateState, (graph.u, out._value), U_TYPE)
        return None
    _write_dump(file, dtype_name, tensor.asnumpy())
    return None


@op_entry("tensor_dump_primitive", primitive="TensorDump", functional=False,
          args=[Arg("file", "value"), Arg("input_x", "value"),
                Arg("input_output", "value", default="out", init=True, check=_check_dump_mode)])
def tensor_dump_primitive(file, input_x, input_output="out"):
    """Save input_x as `<file>_<dtype>_<id>.npy` (id: one counter over the process's dumps)."""
    return _tensor_dump(file, input_x, input_output)


def _check_tensordump_mode(v, op):
    if v not in ("in", "out"):
        raise OpValueError(f"Argument [mode] has been not supported value of '{v}'.")


def _check_file_name(v, op):
    if not isinstance(v, str):
        raise OpTypeError(f"Parameter file_name should only be build_in str type but got: {type(v)}")


def _check_dump_tensor(v, op):
    if not isinstance(v, TensorMethods):
        raise OpTypeError(f"Parameter tensor should only be Tensor type, but got: {type(v)}")


@op_entry("tensordump", prim_name="TensorDump",
          args=[Arg("file_name", "value", check=_check_file_name), Arg("tensor", "value", check=_check_dump_tensor),
                Arg("mode", "value", default="out", check=_check_tensordump_mode)])
def tensordump(file_name, tensor, mode="out"):
    """ops.tensordump: TensorDump(mode)(file_name, tensor)."""
    return _tensor_dump(file_name, tensor, mode)


# ---- ScalarToArray / scalar_to_array ------------------------------------------------------------------
def _scalar_to_array(input_x):
    """A Python int or float as a 0-D Tensor of the scalar's MindSpore type (an int Int64, a float
    Float32: the tensor type of its input's type, as MindSpore 1.x's infer of this op gives it; the
    2.10 wheel cannot run it - 'no attr __infer__' - and documents it only as "use scalar_to_tensor
    instead"); anything else is a TypeError."""
    if isinstance(input_x, bool) or not isinstance(input_x, (int, float)):
        raise OpTypeError(f"For 'ScalarToArray', the type of 'x' should be one of '['int', 'float']', but got type "
                          f"'{type(input_x).__name__}'.")
    return F.scalar_to_tensor(input_x, mstype.int64 if isinstance(input_x, int) else mstype.float32)


@op_entry("scalar_to_array", args=[Arg("input_x", "value")], prim_name="ScalarToArray")
def scalar_to_array(input_x):
    """ops.functional.scalar_to_array: a constant int or float as a 0-D Tensor (deprecated for
    ops.scalar_to_tensor)."""
    return _scalar_to_array(input_x)


@op_entry("scalar_to_array_primitive", primitive="ScalarToArray", functional=False, args=[Arg("input_x", "value")])
def scalar_to_array_primitive(input_x):
    """ScalarToArray()(x): ops.functional.scalar_to_array."""
    return _scalar_to_array(input_x)


# ---- string_concat / string_eq ------------------------------------------------------------------------
def _string_args(name, a, b):
    """MindSpore's string utilities exist only in graph code: PyNative calls fail there ('has no
    attr __infer__'), and so do they here; in graph code both operands must be strings."""
    if not in_graph():
        raise OpRuntimeError(f"prim:{name} has no attr:__infer__")
    for v in (a, b):
        if not isinstance(v, str):
            raise OpRuntimeError(f"The expected is String, not {_ms_type(v)}")


@op_entry("string_concat", args=[Arg("x", "value"), Arg("y", "value")], prim_name="string_concat")
def string_concat(x, y):
    """x + y of two strings, when graph code is compiled."""
    _string_args("string_concat", x, y)
    return x + y


@op_entry("string_eq", args=[Arg("x", "value"), Arg("y", "value")], prim_name="string_eq")
def string_eq(x, y):
    """x == y of two strings, when graph code is compiled."""
    _string_args("string_eq", x, y)
    return x == y


# ---- typeof / hastype ---------------------------------------------------------------------------------
@op_entry("typeof", args=[Arg("x", "value")], prim_name="typeof")
def typeof(x):
    """The MindSpore type of a value: Tensor[<dtype>] for a Tensor, Int64 / Float64 / Bool for a
    Python number (a constant in graph code)."""
    return mstype.get_py_obj_dtype(x)


@op_entry("hastype", args=[Arg("x", "value"), Arg("t", "value")], prim_name="hastype")
def hastype(x, t):
    """Whether typeof(x) is t or one of its kinds: a generic type (ms.tensor_type, ms.number, Int())
    admits every type of its kind."""
    got = mstype.get_py_obj_dtype(x)
    if got == t:
        return True
    if isinstance(t, mstype.TensorType):
        return t.element_type() is None and isinstance(got, mstype.TensorType)
    if isinstance(t, (Number, Int)) and not isinstance(t, mstype.DType):      # number, Int(): generic kinds
        return isinstance(got, type(t))
    return False


# ---- Morph --------------------------------------------------------------------------------------------
class _MorphBprop:
    """What call_with_bprop needs of a Cell: its name in messages and its bprop."""

    def __init__(self, bprop_fn):
        self.bprop = bprop_fn


_MorphBprop.__name__ = _MorphBprop.__qualname__ = "Morph"


@op_entry("morph_primitive", primitive="Morph", functional=False,
          args=[Arg("inputs", "value"), Arg("fn", "value", init=True), Arg("infer_shape", "value", init=True),
                Arg("infer_dtype", "value", init=True), Arg("bprop_fn", "value", default=None, init=True)])
def morph_primitive(inputs, fn, infer_shape, infer_dtype, bprop_fn=None):
    """fn(*inputs) in graph code, walked as user code (so its gradient is that of the ops it runs),
    or, with bprop_fn, with the gradient bprop_fn(*inputs, out, dout) gives (a Cell's bprop rule).
    MindSpore runs Morph only in GRAPH_MODE (its PyNative call raises RuntimeError), and so does
    this; infer_shape / infer_dtype are kept, the traced values carry their own shapes."""
    if not in_graph():
        raise OpRuntimeError("Morph is only supported in GRAPH_MODE.")
    from pycompile.ops.autodiff.custom import call_user, call_with_bprop
    if bprop_fn is None:
        return call_user(fn, list(inputs))
    return call_with_bprop(_MorphBprop(bprop_fn), list(inputs), {}, lambda args, kwargs: call_user(fn, args))


def _morph_class():
    """Morph's Primitive takes any number of inputs (`Morph(fn, ...)(x, y)`): the entry's class
    with a variadic call."""
    entry = ENTRIES["morph_primitive"]
    base = entry.primitive_cls

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        if bprop_fn is not None:
            for p in inspect.signature(fn).parameters.values():
                if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD or p.default is not inspect.Parameter.empty:
                    raise OpValueError(f"When use `bprop` in Morph, Morph `fn` only support positional or keyword "
                                       f"parameters with default value is empty, but got param '{p.name}' of kind "
                                       f"'{p.kind.name}' with default value '{p.default}'.")
        base.__init__(self, fn, infer_shape, infer_dtype, bprop_fn)

    def __call__(self, *args):
        return entry.functional(args, **self._init_values)

    entry.primitive_cls = type("Morph", (base,), {"__init__": __init__, "__call__": __call__,
                                                   "__module__": base.__module__, "__doc__": base.__doc__})


_morph_class()
