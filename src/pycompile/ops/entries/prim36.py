"""MindSpore 2.10 Primitives that were missing, each a decomposition into ops pycompile has, so
PyNative and graph code run one definition: the fused optimizer updates FusedCastAdamWeightDecay and
FusedWeightScaleApplyMomentum (they write their Parameters with an Assign each, ordered like any
Parameter update, as operations_optim_dense.py's Primitives do), and the small utility Primitives
ScalarCast, TensorToTuple and MapUniform.

FusedCastAdamWeightDecay's formula and dtypes are the wheel's CPU kernel's (recorded:
tests/conformance/cases_prim36.py); FusedWeightScaleApplyMomentum has only a GPU kernel, so it
follows that kernel's formula, checked against NumPy in tests/ops/test_prim36.py. Where the wheel
checks an argument differently in PyNative and in graph code (ScalarCast's dtypes, MapUniform's
messages), each mode gives the wheel's behaviour of that mode (`in_graph()` says which)."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entry import Arg, op_entry

_F16_32 = (mstype.float16, mstype.float32)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def in_graph() -> bool:
    """Whether graph code is being compiled (a graph builder is active; not a PyNative grad's tape)."""
    return any(getattr(t, "walks_code", False) for t in tracing.active())


def _dtype_name(d) -> str:
    s = str(d)
    return s[:1].upper() + s[1:]


def _shape_list(t) -> str:
    return "[" + ", ".join(str(int(n)) for n in t.shape) + "]"


def _is_param(t) -> bool:
    from pycompile.common.parameter import Parameter
    return isinstance(t, Parameter)


def _ref_type(t) -> str:
    inner = f"Tensor[{_dtype_name(t.dtype)}]"
    return f"Ref[{inner}]" if _is_param(t) else inner


def _check_bool(what):
    def check(v, op):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'bool', but got type '{type(v).__name__}'.")
    return check


# ---- FusedCastAdamWeightDecay -------------------------------------------------------------------------
def _float_scalar(v, what, op):
    """lr, beta1, beta2, epsilon, decay: a Python float or a float32 Tensor (the kernel's type)."""
    if isinstance(v, TensorMethods):
        if v.dtype is not mstype.float32:
            raise OpTypeError(f"For '{op}', the type of '{what}' must be in [mindspore.float32], but got "
                              f"{_dtype_name(v.dtype)}.")
    elif isinstance(v, bool) or not isinstance(v, float):
        raise OpTypeError(f"For '{op}', the type of '{what}' must be in [mindspore.float32], but got "
                          f"{type(v).__name__}.")


@op_entry("fused_cast_adam_weight_decay_primitive", primitive="FusedCastAdamWeightDecay", functional=False,
          args=[Arg("var"), Arg("m"), Arg("v"), Arg("lr", "tensor|number"), Arg("beta1", "tensor|number"),
                Arg("beta2", "tensor|number"), Arg("epsilon", "tensor|number"), Arg("decay", "tensor|number"),
                Arg("gradient"), Arg("global_norm", "tensor|number"),
                Arg("use_locking", "value", default=False, init=True, check=_check_bool("use_locking"))])
def fused_cast_adam_weight_decay_primitive(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm,
                                           use_locking=False):
    """AdamWeightDecay on a float16 or float32 var with float32 moments, computed in float32: the
    gradient (float16 or float32) is cast and divided by global_norm; m = beta1 m + (1 - beta1) g;
    v = beta2 v + (1 - beta2) g^2; update = m / (sqrt(v) + epsilon) + decay var; var -= lr update (cast back to var's dtype). Writes var, m and v; returns them (the wheel's CPU
    kernel returns uninitialised outputs, so the Parameters are what its records compare)."""
    op = "FusedCastAdamWeightDecay"
    if var.shape != m.shape:
        raise OpValueError(f"For '{op}', the 'var_shape' should be = m_shape: {_shape_list(m)}, but got "
                           f"{_shape_list(var)}.")
    if var.shape != v.shape:
        raise OpValueError(f"For '{op}', the 'var_shape' should be = v_shape: {_shape_list(v)}, but got "
                           f"{_shape_list(var)}.")
    if var.shape != gradient.shape:
        raise OpValueError(f"For '{op}', the 'var_shape' should be = grad_shape: {_shape_list(gradient)}, but got "
                           f"{_shape_list(var)}.")
    if m.dtype is not v.dtype:
        raise OpTypeError(f"For '{op}', the type of 'v' should be same as 'm', but got 'm' with type {_ref_type(m)} "
                          f"and 'v' with type {_ref_type(v)}.")
    if m.dtype is mstype.bool_:
        raise OpTypeError(f"For '{op}', the type of 'm' must be a number type, but got {_ref_type(m)}.")
    for what, t in (("var", var), ("grad", gradient)):
        if t.dtype not in _F16_32:
            raise OpTypeError(f"For '{op}', the type of '{what}' must be in [mindspore.float16, mindspore.float32], "
                              f"but got {_dtype_name(t.dtype)}.")
    for what, s in (("lr", lr), ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon), ("decay", decay)):
        _float_scalar(s, what, op)
    f32 = mstype.float32
    g = F.div(F.cast(gradient, f32), global_norm)
    var32, m32, v32 = F.cast(var, f32), F.cast(m, f32), F.cast(v, f32)
    m_new = F.add(F.mul(m32, beta1), F.mul(g, F.sub(1.0, beta1)))
    v_new = F.add(F.mul(v32, beta2), F.mul(F.mul(g, g), F.sub(1.0, beta2)))
    update = F.div(m_new, F.add(F.sqrt(v_new), epsilon))
    update = F.add(update, F.mul(var32, decay))     # any decay, negative too (the CPU kernel, recorded)
    var_new = F.cast(F.sub(var32, F.mul(update, lr)), var.dtype)
    return F.assign(var, var_new), F.assign(m, F.cast(m_new, m.dtype)), F.assign(v, F.cast(v_new, v.dtype))


# ---- FusedWeightScaleApplyMomentum --------------------------------------------------------------------
def _param_conversion(what, t, want, op):
    raise OpTypeError(f"Data type conversion is not supported for a 'Parameter', nor for the input tensor of an "
                      f"in-place operator, the argument[{what}]'s data type of primitive[{op}] is "
                      f"{_dtype_name(t.dtype)}, which cannot be converted to data type {_dtype_name(want)} "
                      f"automatically.")


@op_entry("fused_weight_scale_apply_momentum_primitive", primitive="FusedWeightScaleApplyMomentum",
          functional=False,
          args=[Arg("weight_decay", "tensor|number"), Arg("loss_scale", "tensor|number"), Arg("variable"),
                Arg("accumulation"), Arg("learning_rate", "tensor|number"), Arg("gradient"),
                Arg("momentum", "tensor|number")])
def fused_weight_scale_apply_momentum_primitive(weight_decay, loss_scale, variable, accumulation, learning_rate,
                                                gradient, momentum):
    """Momentum with weight decay and loss scale, as MindSpore's GPU kernel (the only one it has):
    g = (variable weight_decay + gradient) loss_scale; accumulation = momentum accumulation + g;
    variable -= learning_rate accumulation. Writes variable and accumulation; returns variable.
    variable, accumulation and gradient share one dtype (float16 or float32): the Parameters are
    never converted (the wheel's TypeError), the gradient is converted to theirs."""
    op = "FusedWeightScaleApplyMomentum"
    want = variable.dtype
    rank = {mstype.float16: 1, mstype.float32: 2, mstype.float64: 3}
    if want not in _F16_32:                 # MindSpore's implicit conversion would have to convert the Parameter
        _param_conversion("variable", variable, gradient.dtype if gradient.dtype in rank else mstype.float32, op)
    if rank.get(gradient.dtype, 0) > rank[want]:
        _param_conversion("variable", variable, gradient.dtype, op)
    if accumulation.dtype is not want:
        _param_conversion("accumulation", accumulation, want, op)
    grad = gradient if gradient.dtype is want else F.cast(gradient, want)
    step = F.mul(F.add(F.mul(variable, weight_decay), grad), loss_scale)
    acc = F.add(F.mul(accumulation, momentum), step)
    new_var = F.sub(variable, F.mul(acc, learning_rate))
    F.assign(accumulation, F.cast(acc, want))
    return F.assign(variable, F.cast(new_var, want))


# ---- ScalarCast ---------------------------------------------------------------------------------------
_SCALAR_CAST = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}
_SCALAR_CAST_GRAPH = {mstype.int64: int, mstype.bool_: bool, mstype.float64: lambda v: float(np.float32(v)),
                      mstype.float32: lambda v: float(np.float32(v))}


@op_entry("scalar_cast_primitive", primitive="ScalarCast", functional=False,
          args=[Arg("input_x", "value"), Arg("input_y", "value")])
def scalar_cast_primitive(input_x, input_y):
    """A Python number converted to the kind of a dtype (int64: int, truncated toward zero; float64:
    float; bool: bool). PyNative takes only those three dtypes (the wheel's ValueError); graph code,
    where it is a compile-time constant, also takes float32 and rounds a float result to float32
    (its float constants are float32), as the wheel's GRAPH_MODE does."""
    op = "ScalarCast"
    table = _SCALAR_CAST_GRAPH if in_graph() else _SCALAR_CAST
    conv = table.get(input_y)
    if conv is None:
        stop = "." if in_graph() else ""
        raise OpValueError(f"For '{op}', the supported type is in the list: [mindspore.int64, mindspore.float64, "
                           f"mindspore.bool], but got {_dtype_name(input_y)}{stop}")
    if isinstance(input_x, TensorMethods):
        if input_x.ndim != 0 and input_x.size != 1:
            raise OpValueError(f"For '{op}', the input must be a scalar, but got a Tensor of shape "
                               f"{_shape_list(input_x)}.")
        input_x = input_x.asnumpy().reshape(()).item()
    if not isinstance(input_x, (bool, int, float, np.number, np.bool_)):
        raise OpTypeError(f"For '{op}', the input must be a number, but got {type(input_x).__name__}.")
    return conv(input_x)


# ---- TensorToTuple ------------------------------------------------------------------------------------
@op_entry("tensor_to_tuple_primitive", primitive="TensorToTuple", functional=False, args=[Arg("input_x", "value")])
def tensor_to_tuple_primitive(input_x):
    """A 1-D Tensor as a tuple of Python numbers. In graph code the Tensor's values are needed when
    compiling (a constant, or a Tensor argument the call is compiled once per value of, as
    MindSpore's value-depend inputs); a Tensor computed in the graph gives its elements as 0-D Tensors."""
    op = "TensorToTuple"
    if not isinstance(input_x, TensorMethods):
        raise OpTypeError(f"For Primitive[{op}], the input must be a Tensor, but got {type(input_x).__name__}.")
    if input_x.ndim != 1:
        dims = ", ".join(str(int(n)) for n in input_x.shape)
        raise OpValueError(f"For Primitive[{op}], the input must be a 1-D Tensor, but got Tensor with shape: "
                           f"[const vector]{{{dims}}}.")
    try:        # known in PyNative; in graph code a constant, or compiled once per value of the argument
        values = shape_values(input_x, "input_x", op)
    except OpValueError:        # a value computed in the graph: its elements as 0-D Tensors
        return tuple(input_x[i] for i in range(input_x.shape[0]))
    return tuple(np.asarray(values).tolist())


# ---- MapUniform ---------------------------------------------------------------------------------------
_MAP_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64)


@op_entry("map_uniform_primitive", primitive="MapUniform", functional=False,
          args=[Arg("input", "value"), Arg("per_group_size", "value"), Arg("group_num", "value")])
def map_uniform_primitive(input, per_group_size, group_num):
    """input % group_num * per_group_size + input // group_num, in input's integer dtype (the order
    that spreads consecutive keys over the groups, as MindSpore's embedding cache does)."""
    op = "MapUniform"
    graph = in_graph()
    if not isinstance(input, TensorMethods) or input.dtype not in _MAP_INTS:
        got = f"Tensor[{_dtype_name(input.dtype)}]" if isinstance(input, TensorMethods) else type(input).__name__
        if graph:
            raise OpTypeError(f"For '{op}', the element of 'input' must be one of Tensor[Int8], Tensor[Int16], "
                              f"Tensor[Int32], Tensor[Int64], but got {got}.The supported data types depend on the "
                              f"hardware that executes the operator, for more details, please refer to the MindSpore "
                              f"official website to get more information about the data type.")
        raise OpTypeError(f"For primitive[{op}], the input argument[input] must be a type of {{Tensor[Int16], "
                          f"Tensor[Int32], Tensor[Int64], Tensor[Int8]}}, but got {got}.")
    for what, v in (("per_group_size", per_group_size), ("group_num", group_num)):
        if not _is_int(v):
            kind = "Float" if isinstance(v, float) else type(v).__name__
            if graph:
                raise OpTypeError(f"For '{op}', the type of '{what}' should be 'Int', but got type '{kind}'.")
            got = "Float32" if isinstance(v, float) else type(v).__name__
            raise OpTypeError(f"For primitive[{op}], the input argument[{what}] must be a type of {{Int32, Int64}}, "
                              f"but got {got}.")
    return F.add(F.mul(F.floor_mod(input, group_num), per_group_size), F.floor_div(input, group_num))
