"""3-D pooling's public forms over the pooling rows (ops/defs/pool.py pools 2 or 3 spatial axes):
the MaxPool3D / AvgPool3D Primitives (pad modes 'valid', 'same', 'pad') and ops.max_pool3d /
ops.avg_pool3d. Values recorded from the wheel in tests/conformance/cases_tail.py."""
from pycompile.ops import function_conv as FC
from pycompile.ops._table import OpValueError
from pycompile.ops.defs import conv as CV
from pycompile.ops.entry import Arg, op_entry


def _rank5(name, x):
    if len(x.shape) != 5:
        raise OpValueError(f"For primitive[{name}], the x_rank must be equal to 5, but got {len(x.shape)}.")


def _pads(name, what, value) -> tuple:
    """An int, or 6 ints (front, back, top, bottom, left, right), as (before, after) per axis."""
    p = (int(value),) * 6 if FC._is_int(value) else tuple(value)
    if len(p) != 6 or any(not FC._is_int(v) or v < 0 for v in p):
        raise OpValueError(f"For '{name}', '{what}' must be a non-negative int or a tuple of 6 non-negative ints, "
                           f"but got {value}.")
    return tuple(int(v) for v in p)


def _mode_pads(name, x, kernel, strides, pad_mode, pad) -> tuple:
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("valid", "same", "pad"):
        raise OpValueError(f"For '{name}', the 'pad_mode' must be in ['VALID', 'SAME', 'PAD'], but got {pad_mode}.")
    pads = _pads(name, "pad", pad)
    if mode != "pad" and any(pads):
        raise OpValueError(f"For '{name}', the 'pad' must be 0 when 'pad_mode' is not 'pad', but got {pad}.")
    if mode == "same":
        return mode, CV.same_pads(tuple(x.shape[2:]), kernel, strides, (1, 1, 1))
    return mode, pads


def _format(name, data_format):
    if data_format != "NCDHW":
        raise OpValueError(f"For '{name}', 'data_format' must be 'NCDHW', but got {data_format}.")


_INIT = [Arg("kernel_size", "value", default=1, init=True), Arg("strides", "value", default=1, init=True)]


@op_entry("max_pool3d_primitive", primitive="MaxPool3D", functional=False,
          args=[Arg("x")] + _INIT + [Arg("pad_mode", "value", default="VALID", init=True),
                        Arg("pad_list", "value", default=0, init=True),
                        Arg("ceil_mode", "value", default=None, init=True),
                        Arg("data_format", "value", default="NCDHW", init=True)])
def max_pool3d_primitive(x, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                         data_format="NCDHW"):
    """Max over 3-D windows of an (N, C, D, H, W) tensor."""
    _format("MaxPool3D", data_format)
    _rank5("MaxPool3D", x)
    k = FC.tuple_arg("MaxPool3D", "kernel_size", kernel_size, 3, allow_four=True)
    s = FC.tuple_arg("MaxPool3D", "strides", strides, 3, allow_four=True)
    _, pads = _mode_pads("MaxPool3D", x, k, s, pad_mode, pad_list)
    return FC.pool("max", x, k, s, pads, None, bool(ceil_mode))


@op_entry("avg_pool3d_primitive", primitive="AvgPool3D", functional=False,
          args=[Arg("x")] + _INIT + [Arg("pad_mode", "value", default="valid", init=True),
                                     Arg("pad", "value", default=0, init=True),
                        Arg("ceil_mode", "value", default=False, init=True),
                        Arg("count_include_pad", "value", default=True, init=True),
                        Arg("divisor_override", "value", default=0, init=True),
                        Arg("data_format", "value", default="NCDHW", init=True)])
def avg_pool3d_primitive(x, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                         count_include_pad=True, divisor_override=0, data_format="NCDHW"):
    """Mean over 3-D windows of an (N, C, D, H, W) tensor."""
    _format("AvgPool3D", data_format)
    _rank5("AvgPool3D", x)
    k = FC.tuple_arg("AvgPool3D", "kernel_size", kernel_size, 3, allow_four=True)
    s = FC.tuple_arg("AvgPool3D", "strides", strides, 3, allow_four=True)
    _, pads = _mode_pads("AvgPool3D", x, k, s, pad_mode, pad)
    return FC.pool("avg", x, k, s, pads, None, bool(ceil_mode), bool(count_include_pad), int(divisor_override or 0))


@op_entry("avg_pool3d", prim_name="AvgPool3D",
          args=[Arg("input_x"), Arg("kernel_size", "value", default=1), Arg("stride", "value", default=1),
                Arg("padding", "value", default=0), Arg("ceil_mode", "value", default=False),
                Arg("count_include_pad", "value", default=True), Arg("divisor_override", "value", default=0)])
def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """Mean over 3-D windows; `padding`: an int, or 6 ints (front, back, top, bottom, left, right)."""
    _rank5("AvgPool3D", input_x)
    k = FC.tuple_arg("AvgPool3D", "kernel_size", kernel_size, 3)
    s = FC.tuple_arg("AvgPool3D", "stride", stride, 3)
    pads = _pads("AvgPool3D", "padding", padding)
    return FC.pool("avg", input_x, k, s, pads, None, bool(ceil_mode), bool(count_include_pad),
                   int(divisor_override or 0))


@op_entry("max_pool3d", prim_name="MaxPool3DWithArgmax",
          args=[Arg("x"), Arg("kernel_size", "value"), Arg("stride", "value", default=None),
                Arg("padding", "value", default=0), Arg("dilation", "value", default=1),
                Arg("ceil_mode", "value", default=False), Arg("return_indices", "value", default=False)])
def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over 3-D windows (`padding` an int or one per axis, on both sides); with
    `return_indices`, also each maximum's flat index within its channel's D * H * W volume."""
    _rank5("MaxPool3DWithArgmax", x)
    name = "MaxPool3DWithArgmax"
    k = FC.tuple_arg(name, "kernel_size", kernel_size, 3)
    s = FC.tuple_arg(name, "strides", stride if stride is not None else kernel_size, 3)
    d = FC.tuple_arg(name, "dilation", dilation, 3)
    out = FC.pool("argmax", x, k, s, FC._sym_pads("max_pool3d", padding, 3, k), d, bool(ceil_mode))
    return out if return_indices else out[0]
