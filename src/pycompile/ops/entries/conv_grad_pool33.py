"""Conv3DTranspose (`ops.operations.nn_ops`) and Conv2DBackpropFilter (`ops.operations._grad_ops`)
as MindSpore 2.10's Primitives over the convolution rows (ops/defs/conv.py): the transposed 3-D
convolution is Conv3DBackpropInput producing the output size MindSpore's pad modes give
('valid': (in - 1) s + d (k - 1) + 1, 'same': in * s, 'pad': the former less the pads plus
output_padding), and the filter gradient is the Conv2DBackpropFilter row. Values recorded from
the wheel in tests/conformance/cases_pool33.py (issue 33, pool33)."""
from pycompile.ops import function_conv as FC
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.defs import conv as CV
from pycompile.ops.entry import FLOAT, Arg, op_entry


def _check_format(name, data_format, allowed):
    if data_format != allowed:
        raise OpValueError(f"For '{name}', the 'data_format' must be '{allowed}' on CPU, but got {data_format}.")


def _ints(name, what, value, n):
    v = (int(value),) * n if FC._is_int(value) else tuple(value)
    if len(v) != n or any(not FC._is_int(p) or p < 0 for p in v):
        raise OpValueError(f"For '{name}', '{what}' must be a non-negative int or a tuple of {n} non-negative ints, "
                           f"but got {value}.")
    return tuple(int(p) for p in v)


@op_entry("conv3d_transpose_primitive", primitive="Conv3DTranspose", functional=False,
          args=[Arg("dout", dtypes=FLOAT), Arg("weight", dtypes=FLOAT),
                Arg("in_channel", "value", init=True), Arg("out_channel", "value", init=True),
                Arg("kernel_size", "value", init=True), Arg("mode", "value", default=1, init=True),
                Arg("pad_mode", "value", default="valid", init=True), Arg("pad", "value", default=0, init=True),
                Arg("stride", "value", default=1, init=True), Arg("dilation", "value", default=1, init=True),
                Arg("group", "value", default=1, init=True), Arg("output_padding", "value", default=0, init=True),
                Arg("data_format", "value", default="NCDHW", init=True)])
def conv3d_transpose_primitive(dout, weight, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
                               stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW"):
    """The transposed 3-D convolution of an (N, C_in, D, H, W) tensor by a (C_in, C_out / group,
    kd, kh, kw) weight."""
    name = "Conv3DTranspose"
    _check_format(name, data_format, "NCDHW")
    if mode != 1:
        raise OpValueError(f"For '{name}', 'mode' must be 1, but got {mode}.")
    mode_ = FC.check_pad_mode(name, pad_mode)
    FC.tuple_arg(name, "kernel_size", kernel_size, 3)
    s = FC.tuple_arg(name, "stride", stride, 3, allow_four=True)
    d = FC.tuple_arg(name, "dilation", dilation, 3, allow_four=True)
    pads = _ints(name, "pad", pad, 6)
    op_ = _ints(name, "output_padding", output_padding, 3)
    if mode_ != "pad" and any(pads):
        raise OpValueError(f"For '{name}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is not "
                           f"\"pad\", but got 'pad' is {pad} and 'pad_mode' is {pad_mode}.")
    if mode_ != "pad" and any(op_):
        raise OpValueError(f"For '{name}', the 'output_padding' must be zero or (0, 0, 0) when 'pad_mode' is not "
                           f"\"pad\", but got 'output_padding' is {output_padding} and 'pad_mode' is {pad_mode}.")
    if len(dout.shape) != 5 or len(weight.shape) != 5:
        raise OpValueError(f"For '{name}', 'dout' and 'weight' must be 5-D, but got {len(dout.shape)}-D and "
                           f"{len(weight.shape)}-D.")
    if dout.shape[1] != weight.shape[0]:
        raise OpValueError(f"For '{name}', the channels of 'dout' ({dout.shape[1]}) must equal the first dimension "
                           f"of 'weight' ({weight.shape[0]}).")
    k = tuple(weight.shape[2:])
    full = tuple((dout.shape[2 + i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 for i in range(3))
    if mode_ == "same":
        out_sp = tuple(dout.shape[2 + i] * s[i] for i in range(3))
        conv_pads = CV.same_pads(out_sp, k, s, d)
    elif mode_ == "valid":
        out_sp, conv_pads = full, (0,) * 6
    else:
        out_sp = tuple(full[i] - pads[2 * i] - pads[2 * i + 1] + op_[i] for i in range(3))
        # output_padding rows extend the far side: rows the far padding would crop (as torch)
        conv_pads = tuple(v for i in range(3) for v in (pads[2 * i], max(pads[2 * i + 1] - op_[i], 0)))
    extra = tuple(max(out_sp[i] - (full[i] - conv_pads[2 * i] - conv_pads[2 * i + 1]), 0) if mode_ == "pad" else 0
                  for i in range(3))
    inner = tuple(out_sp[i] - extra[i] for i in range(3))
    size = (dout.shape[0], weight.shape[1] * group) + inner
    out = FC.conv_backprop_input("Conv3DTranspose", dout, weight, size, s, d, "pad", conv_pads, group)
    if any(extra):
        out = F.pad(out, (0, extra[2], 0, extra[1], 0, extra[0]))
    return out


@op_entry("conv2d_backprop_filter_primitive", primitive="Conv2DBackpropFilter", functional=False,
          args=[Arg("out_backprop", dtypes=FLOAT), Arg("input", dtypes=FLOAT), Arg("filter_size", "value"),
                Arg("out_channel", "value", init=True), Arg("kernel_size", "value", init=True),
                Arg("pad_mode", "value", default="valid", init=True), Arg("pad", "value", default=0, init=True),
                Arg("pad_list", "value", default=(0, 0, 0, 0), init=True), Arg("mode", "value", default=1, init=True),
                Arg("stride", "value", default=(1, 1), init=True),
                Arg("dilation", "value", default=(1, 1, 1, 1), init=True), Arg("group", "value", default=1, init=True),
                Arg("data_format", "value", default="NCHW", init=True)])
def conv2d_backprop_filter_primitive(out_backprop, input, filter_size, out_channel, kernel_size, pad_mode="valid",
                                     pad=0, pad_list=(0, 0, 0, 0), mode=1, stride=(1, 1), dilation=(1, 1, 1, 1),
                                     group=1, data_format="NCHW"):
    """The gradient of Conv2D's weight (shape `filter_size`) from its output gradient and input."""
    name = "Conv2DBackpropFilter"
    _check_format(name, data_format, "NCHW")
    if mode != 1:
        raise OpValueError(f"For '{name}', 'mode' must be 1, but got {mode}.")
    size = tuple(int(v) for v in filter_size)
    if len(size) != 4:
        raise OpValueError(f"For '{name}', 'filter_size' must have 4 elements, but got {filter_size}.")
    s = FC.tuple_arg(name, "stride", stride, 2, allow_four=True)
    d = FC.tuple_arg(name, "dilation", dilation, 2, allow_four=True)
    explicit = tuple(pad_list) if any(pad_list) else pad
    pads = FC.resolve_pads(name, pad_mode, explicit if FC.check_pad_mode(name, pad_mode) == "pad" else 0,
                           tuple(input.shape[2:]), size[2:], s, d)
    attrs = {"filter_size": size, "stride": s, "dilation": d, "pads": pads, "group": int(group)}
    return FC.apply(CV.Conv2DBackpropFilter, [out_backprop, input], attrs)
