"""Max pooling with its argmax, the backward ops that route a gradient through that argmax, and the
second-order MaxPool gradients, as MindSpore 2.10's Primitives (issue 33, pool33):

* MaxPoolWithArgmax (pad_mode 'valid' / 'same', argmax int32: the flat index within each sample's
  (C, H, W) block, TensorFlow's convention) and MaxPoolWithArgmaxV2 (explicit pads, dilation,
  ceil_mode, argmax_type; the flat index within each (N, C) plane) over the pooling rows
  (ops/defs/pool.py), in the unpadded input's coordinates;
* MaxPoolGradWithArgmax / MaxPoolGradWithArgmaxV2 (`ops.operations._grad_ops`): the gradient added
  at each argmax (a TensorScatterElements 'add'), with the argmax convention of their forward;
* MaxPoolGradGrad / MaxPool3DGradGrad (inputs x, the forward output, and a gradient of x's shape):
  the gradient read at each window's argmax of x, so the result has the pooled shape;
  MaxPoolGradGradWithArgmax: the same with the argmax given.

Every one is a decomposition (pooling rows, gather / scatter along the flattened plane), so graph
mode, PyNative and vmap share it. Values recorded from the wheel in
tests/conformance/cases_pool33.py.
"""
from pycompile.common import dtype as mstype
from pycompile.ops import function_conv as FC
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.defs import conv as CV
from pycompile.ops.entry import FLOAT, Arg, op_entry

import pycompile.ops as ops


def _pad_mode(name, pad_mode) -> str:
    if not isinstance(pad_mode, str):
        raise OpTypeError(f"For '{name}', the type of 'pad_mode' should be str, but got {type(pad_mode).__name__}.")
    if pad_mode.upper() not in ("VALID", "SAME"):
        raise OpValueError(f"For '{name}', the 'pad_mode' must be str and must be in '['VALID', 'SAME']', but got "
                           f"'{pad_mode.upper()}'.")
    return pad_mode.upper()


def _check_pad_mode(v, op_name):
    _pad_mode(op_name, v)


def _rank(name, x, nd):
    if len(x.shape) != nd:
        raise OpValueError(f"For '{name}', the dimension of 'x' must be equal to {nd}, but got {len(x.shape)}.")


def _mode_pads(name, x, kernel, strides, pad_mode) -> tuple:
    sp = len(kernel)
    if _pad_mode(name, pad_mode) == "SAME":
        return CV.same_pads(tuple(x.shape[2:]), kernel, strides, (1,) * sp)
    return (0,) * (2 * sp)


def _argmax_pads(name, x, kernel, strides, pad_mode) -> tuple:
    """MaxPoolWithArgmax's 'same' windows, which are not MaxPool's: ceil(in / s) outputs, the first
    window starting max(0, (k - s) // 2) before the input (the wheel's CPU kernel: a 6-wide axis,
    kernel 3, stride 2 starts at 0, where MaxPool pads 0 before and 1 after; a 7-wide one at 0,
    where MaxPool pads 1 and 1)."""
    if _pad_mode(name, pad_mode) != "SAME":
        return (0, 0, 0, 0)
    pads = []
    for n, k, s in zip(x.shape[2:], kernel, strides):
        before = max(0, (k - s) // 2)
        pads += [before, max(0, (-(-n // s) - 1) * s + k - n - before)]
    return tuple(pads)


def _sym_pads(name, pads, sp) -> tuple:
    p = (int(pads),) * sp if FC._is_int(pads) else tuple(pads)
    if len(p) == sp + 2:
        p = p[2:]
    if len(p) != sp or any(not FC._is_int(v) or v < 0 for v in p):
        raise OpValueError(f"For '{name}', 'pads' must be a non-negative int or a tuple of {sp} non-negative ints, "
                           f"but got {pads}.")
    return tuple(int(v) for v in p for _ in range(2))


def _planes(t, sp):
    """t as (blocks, elements of one block): the axes before the last sp flattened."""
    lead = 1
    for d in t.shape[:-sp]:
        lead *= d
    return F.reshape(t, (lead, -1))


def _gather_planes(values, argmax, sp):
    """values read at argmax, flat within each block of the last sp axes."""
    out = ops.gather_elements(_planes(values, sp), 1, F.cast(_planes(argmax, sp), mstype.int64))
    return F.reshape(out, tuple(argmax.shape))


def _scatter_planes(x, grad, argmax, sp):
    """grad (N, C, *out_spatial) added at argmax into zeros of x's shape."""
    flat_x = _planes(x, sp)
    out = ops.tensor_scatter_elements(F.zeros(tuple(flat_x.shape), grad.dtype), F.cast(_planes(argmax, sp), mstype.int64),
                                      _planes(grad, sp), 1, "add")
    return F.reshape(out, tuple(x.shape))


def _grad_check(name, x, grad, argmax):
    if grad.dtype != x.dtype:
        raise OpTypeError(f"For '{name}', the dtype of 'grad' must be the same as 'x' ({x.dtype}), but got "
                          f"{grad.dtype}.")
    if argmax.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{name}', the type of 'argmax' should be one of [Int32, Int64], but got "
                          f"{argmax.dtype}.")
    if tuple(grad.shape) != tuple(argmax.shape):
        raise OpValueError(f"For '{name}', 'grad' and 'argmax' must have the same shape, but got "
                           f"{list(grad.shape)} and {list(argmax.shape)}.")


def _format(name, data_format, allowed="NCHW"):
    if data_format != allowed:
        raise OpValueError(f"For '{name}', the 'data_format' must be '{allowed}' on CPU, but got {data_format}.")


_MODE_ARGS = [Arg("kernel_size", "value", default=1, init=True), Arg("strides", "value", default=1, init=True)]


@op_entry("max_pool_with_argmax_primitive", primitive="MaxPoolWithArgmax", functional=False,
          args=[Arg("x", dtypes=FLOAT)] + _MODE_ARGS + [Arg("pad_mode", "value", default="valid", init=True, check=_check_pad_mode),
                                                       Arg("data_format", "value", default="NCHW", init=True)])
def max_pool_with_argmax_primitive(x, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
    """(max over each window, its flat index within the (N, C) plane as int32) of an NCHW tensor."""
    name = "MaxPoolWithArgmax"
    _format(name, data_format)
    _rank(name, x, 4)
    k = FC.tuple_arg(name, "kernel_size", kernel_size, 2, allow_four=True)
    s = FC.tuple_arg(name, "strides", strides, 2, allow_four=True)
    out, idx = FC.pool("argmax", x, k, s, _argmax_pads(name, x, k, s, pad_mode))
    c, h, w = x.shape[1:]
    offset = F.reshape(ops.arange(0, c * h * w, h * w, dtype=mstype.int64), (1, c, 1, 1))
    return out, F.cast(idx + offset, mstype.int32)


def _v2_attrs(name, kernel_size, strides, pads, dilation, argmax_type):
    k = FC.tuple_arg(name, "kernel_size", kernel_size, 2, allow_four=True)
    s = FC.tuple_arg(name, "strides", kernel_size if strides is None else strides, 2, allow_four=True)
    d = FC.tuple_arg(name, "dilation", dilation, 2, allow_four=True)
    if argmax_type not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{name}', the 'argmax_type' must be mstype.int32 or mstype.int64, but got "
                          f"{argmax_type}.")
    return k, s, _sym_pads(name, pads, 2), d


_V2_ARGS = [Arg("kernel_size", "value", init=True), Arg("strides", "value", default=None, init=True),
            Arg("pads", "value", default=0, init=True), Arg("dilation", "value", default=(1, 1), init=True),
            Arg("ceil_mode", "value", default=False, init=True),
            Arg("argmax_type", "value", default=mstype.int64, init=True)]


@op_entry("max_pool_with_argmax_v2_primitive", primitive="MaxPoolWithArgmaxV2", functional=False,
          args=[Arg("x")] + _V2_ARGS)
def max_pool_with_argmax_v2_primitive(x, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                                      argmax_type=mstype.int64):
    """(max over each window, its flat index within the plane as argmax_type), with explicit
    symmetric pads, dilation and ceil mode."""
    name = "MaxPoolWithArgmaxV2"
    _rank(name, x, 4)
    k, s, p, d = _v2_attrs(name, kernel_size, strides, pads, dilation, argmax_type)
    out, idx = FC.pool("argmax", x, k, s, p, d, bool(ceil_mode))
    return out, F.cast(idx, argmax_type)


@op_entry("max_pool_grad_with_argmax_primitive", primitive="MaxPoolGradWithArgmax", functional=False,
          args=[Arg("x", dtypes=FLOAT), Arg("grad", dtypes=FLOAT), Arg("argmax")] + _MODE_ARGS +
          [Arg("pad_mode", "value", default="VALID", init=True, check=_check_pad_mode), Arg("data_format", "value", default="NCHW", init=True)])
def max_pool_grad_with_argmax_primitive(x, grad, argmax, kernel_size=1, strides=1, pad_mode="VALID",
                                        data_format="NCHW"):
    """MaxPoolWithArgmax's backward: each gradient added at its argmax, zeros elsewhere (x's shape)."""
    name = "MaxPoolGradWithArgmax"
    _format(name, data_format)
    _pad_mode(name, pad_mode)
    FC.tuple_arg(name, "kernel_size", kernel_size, 2, allow_four=True)
    FC.tuple_arg(name, "strides", strides, 2, allow_four=True)
    _rank(name, x, 4)
    _grad_check(name, x, grad, argmax)
    return _scatter_planes(x, grad, argmax, 3)


@op_entry("max_pool_grad_with_argmax_v2_primitive", primitive="MaxPoolGradWithArgmaxV2", functional=False,
          args=[Arg("x"), Arg("grad"), Arg("argmax")] + _V2_ARGS)
def max_pool_grad_with_argmax_v2_primitive(x, grad, argmax, kernel_size, strides=None, pads=0, dilation=(1, 1),
                                           ceil_mode=False, argmax_type=mstype.int64):
    """MaxPoolWithArgmaxV2's backward: each gradient added at its argmax, zeros elsewhere."""
    name = "MaxPoolGradWithArgmaxV2"
    _v2_attrs(name, kernel_size, strides, pads, dilation, argmax_type)
    _rank(name, x, 4)
    _grad_check(name, x, grad, argmax)
    return _scatter_planes(x, grad, argmax, 2)


def _grad_grad(name, sp, x, out, grad, kernel_size, strides, pad_mode):
    _rank(name, x, sp + 2)
    if tuple(grad.shape) != tuple(x.shape):
        raise OpValueError(f"For '{name}', 'grad' must have the shape of 'origin_input' {list(x.shape)}, but got "
                           f"{list(grad.shape)}.")
    if grad.dtype != x.dtype or out.dtype != x.dtype:
        raise OpTypeError(f"For '{name}', 'origin_output' and 'grad' must have the dtype of 'origin_input' "
                          f"({x.dtype}), but got {out.dtype} and {grad.dtype}.")
    k = FC.tuple_arg(name, "kernel_size", kernel_size, sp, allow_four=True)
    s = FC.tuple_arg(name, "strides", strides, sp, allow_four=True)
    _, idx = FC.pool("argmax", x, k, s, _mode_pads(name, x, k, s, pad_mode))
    return _gather_planes(grad, idx, sp)


_GG_ARGS = [Arg("origin_input", dtypes=FLOAT), Arg("origin_output", dtypes=FLOAT), Arg("grad", dtypes=FLOAT)]


@op_entry("max_pool_grad_grad_primitive", primitive="MaxPoolGradGrad", functional=False,
          args=_GG_ARGS + _MODE_ARGS + [Arg("pad_mode", "value", default="VALID", init=True, check=_check_pad_mode)])
def max_pool_grad_grad_primitive(origin_input, origin_output, grad, kernel_size=1, strides=1, pad_mode="VALID"):
    """MaxPool's second-order gradient: `grad` (the input's shape) read at each window's argmax
    of origin_input (the pooled shape)."""
    return _grad_grad("MaxPoolGradGrad", 2, origin_input, origin_output, grad, kernel_size, strides, pad_mode)


@op_entry("max_pool3d_grad_grad_primitive", primitive="MaxPool3DGradGrad", functional=False,
          args=_GG_ARGS + [Arg("kernel_size", "value", default=(1, 1, 1, 1, 1), init=True),
                           Arg("strides", "value", default=(1, 1, 1, 1, 1), init=True),
                           Arg("pad_mode", "value", default="VALID", init=True, check=_check_pad_mode),
                           Arg("data_format", "value", default="NCDHW", init=True)])
def max_pool3d_grad_grad_primitive(origin_input, origin_output, grad, kernel_size=(1, 1, 1, 1, 1),
                                   strides=(1, 1, 1, 1, 1), pad_mode="VALID", data_format="NCDHW"):
    """MaxPool3D's second-order gradient (NCDHW): `grad` read at each window's argmax."""
    _format("MaxPool3DGradGrad", data_format, "NCDHW")
    return _grad_grad("MaxPool3DGradGrad", 3, origin_input, origin_output, grad, kernel_size, strides, pad_mode)


@op_entry("max_pool_grad_grad_with_argmax_primitive", primitive="MaxPoolGradGradWithArgmax", functional=False,
          args=[Arg("x", dtypes=FLOAT), Arg("grad", dtypes=FLOAT), Arg("argmax")] + _MODE_ARGS +
          [Arg("pad_mode", "value", default="VALID", init=True, check=_check_pad_mode)])
def max_pool_grad_grad_with_argmax_primitive(x, grad, argmax, kernel_size=1, strides=1, pad_mode="VALID"):
    """MaxPoolGradWithArgmax's gradient: `grad` (x's shape) read at each argmax (the pooled shape)."""
    name = "MaxPoolGradGradWithArgmax"
    _pad_mode(name, pad_mode)
    FC.tuple_arg(name, "kernel_size", kernel_size, 2, allow_four=True)
    FC.tuple_arg(name, "strides", strides, 2, allow_four=True)
    _rank(name, x, 4)
    if tuple(grad.shape) != tuple(x.shape) or grad.dtype != x.dtype:
        raise OpValueError(f"For '{name}', 'grad' must have the shape and dtype of 'x' ({list(x.shape)}, {x.dtype}), "
                           f"but got {list(grad.shape)}, {grad.dtype}.")
    if argmax.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{name}', the type of 'argmax' should be one of [Int32, Int64], but got "
                          f"{argmax.dtype}.")
    return _gather_planes(grad, argmax, 3)
