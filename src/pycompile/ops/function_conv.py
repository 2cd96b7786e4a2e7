"""Functional convolution and pooling (`ops.conv2d`, `ops.conv1d`, `ops.conv3d`,
`ops.conv_transpose2d`, `ops.max_pool2d`, `ops.avg_pool2d`, `ops.avg_pool1d`,
`ops.adaptive_avg_pool1d/2d`, `ops.adaptive_max_pool1d/2d`, `ops.unfold`, `ops.fold`) with
MindSpore 2.10's signatures, defaults and messages.

Everything MindSpore decides from the static input shape - pad_mode 'same' / 'valid' / 'pad',
int or tuple paddings, ceil mode - is resolved here into the normalized attributes of the
table's ops (ops/defs/conv.py, ops/defs/pool.py). 1-D operations run as 2-D ones on an
(N, C, 1, L) view, as MindSpore computes them.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.defs import conv as CV
from pycompile.ops.defs import pool as PL


def _ttype(name, x, what="input") -> TensorType:
    return F._tensor_type(name, x, what)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def tuple_arg(name: str, what: str, value, n: int, allow_four: bool = False) -> tuple:
    """An int or a tuple of n ints (or of 4 with leading 1s, MindSpore's (1, 1, h, w)) as n ints > 0."""
    if _is_int(value):
        out = (int(value),) * n
    elif isinstance(value, (tuple, list)) and all(_is_int(v) for v in value) and (
            len(value) == n or (allow_four and len(value) == n + 2)):
        out = tuple(int(v) for v in value[-n:])
    else:
        raise OpValueError(f"For '{name}' attr '{what}' must be an positive int number or a tuple of {n}"
                           f"{' or ' + str(n + 2) if allow_four else ''} positive int numbers, but got {value}")
    if any(v <= 0 for v in out):
        raise OpValueError(f"For '{name}' attr '{what}' must be an positive int number or a tuple of {n} "
                           f"positive int numbers, but got {value}")
    return out


def check_pad_mode(name: str, pad_mode) -> str:
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise OpValueError(f"For '{name}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
                           f"but got '{pad_mode}'.")
    return pad_mode.lower()


def resolve_pads(name, pad_mode, pad, in_sp, kernel, stride, dilation) -> tuple:
    """Explicit (before, after) pads per spatial axis for MindSpore's pad_mode / pad."""
    sp = len(kernel)
    mode = check_pad_mode(name, pad_mode)
    if _is_int(pad):
        pad = (int(pad),) * (2 * sp)
    pad = tuple(pad)
    if mode != "pad" and any(pad):
        raise OpValueError(f"For '{name}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got 'pad': "
                           f"{pad[0] if len(set(pad)) == 1 else pad} and 'pad_mode': {mode}.")
    if mode == "same":
        return CV.same_pads(in_sp, kernel, stride, dilation)
    if mode == "valid":
        return (0,) * (2 * sp)
    if len(pad) != 2 * sp or any(not _is_int(p) or p < 0 for p in pad):
        raise OpValueError(f"For '{name}', 'pad' must be a non-negative int or a tuple of {2 * sp} non-negative ints, "
                           f"but got {pad}")
    return pad


# ---- convolution -----------------------------------------------------------------------------------
def convolution(name, x, w, stride, dilation, pad_mode, pad, group):
    """Conv2D / Conv3D by input rank, with MindSpore's pad_mode resolved."""
    xt, wt = _ttype(name, x, "x"), _ttype(name, w, "weight")
    nd = 5 if name == "Conv3D" else 4
    sp = nd - 2
    stride = tuple_arg(name, "stride", stride, sp, allow_four=True)
    dilation = tuple_arg(name, "dilation", dilation, sp, allow_four=True)
    if not _is_int(group) or group <= 0:
        raise OpValueError(f"For '{name}', 'group' must be a positive int, but got {group}")
    in_sp = xt.shape[2:] if xt.ndim == nd else (1,) * sp
    kernel = wt.shape[2:] if wt.ndim == nd else (1,) * sp
    pads = resolve_pads(name, pad_mode, pad, in_sp, kernel, stride, dilation)
    op = CV.CONV_OPS[nd][0]
    attrs = {"stride": stride, "dilation": dilation, "pads": pads, "group": int(group)}
    if xt.dtype is mstype.float16 and wt.dtype is mstype.float16:
        return F.cast(apply(op, [F.cast(x, mstype.float32), F.cast(w, mstype.float32)], attrs), mstype.float16)
    return apply(op, [x, w], attrs)


def conv_backprop_input(name, dout, w, input_size, stride, dilation, pad_mode, pad, group):
    """The transposed convolution producing `input_size` (Conv2DTranspose / Conv2DBackpropInput)."""
    nd = len(input_size)
    sp = nd - 2
    stride = tuple_arg(name, "stride", stride, sp, allow_four=True)
    dilation = tuple_arg(name, "dilation", dilation, sp, allow_four=True)
    wt = _ttype(name, w, "filter")
    kernel = wt.shape[2:] if wt.ndim == nd else (1,) * sp
    pads = resolve_pads(name, pad_mode, pad, tuple(input_size[2:]), kernel, stride, dilation)
    op = CV.CONV_OPS[nd][1]
    attrs = {"input_size": tuple(int(d) for d in input_size), "stride": stride, "dilation": dilation, "pads": pads,
             "group": int(group)}
    if _ttype(name, dout).dtype is mstype.float16 and wt.dtype is mstype.float16:
        return F.cast(apply(op, [F.cast(dout, mstype.float32), F.cast(w, mstype.float32)], attrs), mstype.float16)
    return apply(op, [dout, w], attrs)


def _bias(name, out, bias, k, nd):
    if bias is None:
        return out
    bt = _ttype(name, bias, "bias")
    if bt.ndim != 1 or bt.shape[0] != k:
        raise OpValueError(f"For '{name}', Given weight of size {k}, expected bias to be 1-dimensional with {k} "
                           f"elements, but got bias of size {bt.shape[0] if bt.shape else bt.shape} instead.")
    return out + F.reshape(bias, (1, k) + (1,) * (nd - 2))


def _padding_arg(name, padding, sp):
    if _is_int(padding):
        return (int(padding),) * (2 * sp)
    if isinstance(padding, (tuple, list)):
        if len(padding) != sp:
            raise OpValueError(f"For '{name}', 'padding' must be a tuple or list of {sp} integers, but got "
                               f"{tuple(padding)}.")
        return tuple(int(p) for p in padding for _ in range(2))
    raise OpTypeError(f"For '{name}', padding must be a tuple, list or int, but got {type(padding)}.")


def _groups_check(x, w, groups):
    c, k = _ttype("conv", x).shape[1], _ttype("conv", w).shape[0]
    if c % groups or k % groups:
        raise OpValueError(f"The argument 'groups' should be divisible by 'in_channel' and 'out_channel', but got "
                           f"group:{groups}, in_channel:{c}, out_channel:{k}.")


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    _groups_check(input, weight, groups)
    out = convolution("Conv2D", input, weight, stride, dilation, pad_mode, _padding_arg("conv2d", padding, 2), groups)
    return _bias("conv2d", out, bias, _ttype("conv2d", weight).shape[0], 4)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    _groups_check(input, weight, groups)
    out = convolution("Conv3D", input, weight, stride, dilation, pad_mode, _padding_arg("conv3d", padding, 3), groups)
    return _bias("conv3d", out, bias, _ttype("conv3d", weight).shape[0], 5)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    xt, wt = _ttype("conv1d", input), _ttype("conv1d", weight)
    if xt.ndim != 3:
        raise OpValueError(f"For 'conv1d', the input must be a 3D Tensor, but got input of {xt.ndim}D.")
    if wt.ndim != 3:
        raise OpValueError(f"For 'conv1d', the weight must be a 3D Tensor, but got input of {wt.ndim}D.")
    if isinstance(padding, (tuple, list)):
        if len(padding) != 1:
            raise OpValueError(f"For 'conv1d', padding must be a tuple or list with 1 element or int, but got {padding}.")
        padding = padding[0]
    _groups_check(input, weight, groups)
    s = stride[0] if isinstance(stride, (tuple, list)) else stride
    d = dilation[0] if isinstance(dilation, (tuple, list)) else dilation
    out = convolution("Conv2D", F.expand_dims(input, 2), F.expand_dims(weight, 2), (1, s), (1, d), pad_mode,
                      (0, 0, int(padding), int(padding)), groups)
    return _bias("conv1d", F.squeeze(out, 2), bias, wt.shape[0], 3)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch-style transposed convolution: H_out = (H - 1) s - 2 p + d (k - 1) + output_padding + 1,
    the output_padding rows being those the bottom / right padding would crop (torch's and MindSpore's
    Ascend kernel's result; MindSpore 2.10 CPU has no kernel for it). nn.Conv2dTranspose keeps the
    CPU wheel's own behaviour: zero rows appended."""
    xt, wt = _ttype("conv_transpose2d", input), _ttype("conv_transpose2d", weight)
    if xt.ndim != 4 or wt.ndim != 4:
        raise OpValueError(f"For 'conv_transpose2d', the input and weight must be 4D Tensors, but got {xt.ndim}D "
                           f"and {wt.ndim}D.")
    s = tuple_arg("conv_transpose2d", "stride", stride, 2)
    d = tuple_arg("conv_transpose2d", "dilation", dilation, 2)
    p = (padding,) * 2 if _is_int(padding) else tuple(padding)
    op_ = (output_padding,) * 2 if _is_int(output_padding) else tuple(output_padding)
    out_sp = tuple((xt.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (wt.shape[2 + i] - 1) + op_[i] + 1 for i in range(2))
    size = (xt.shape[0], wt.shape[1] * groups) + out_sp
    # output_padding rows extend the bottom / right: they are the rows the bottom / right padding
    # would crop, so that side is padded by p - op; rows beyond what any tap reaches (op > p) are 0
    extra = tuple(max(op_[i] - p[i], 0) for i in range(2))
    inner = (size[0], size[1], out_sp[0] - extra[0], out_sp[1] - extra[1])
    out = conv_backprop_input("Conv2DTranspose", input, weight, inner, s, d, "pad",
                              (p[0], max(p[0] - op_[0], 0), p[1], max(p[1] - op_[1], 0)), groups)
    if any(extra):
        out = F.pad(out, (0, extra[1], 0, extra[0]))
    return _bias("conv_transpose2d", out, bias, wt.shape[1] * groups, 4)


# ---- pooling ------------------------------------------------------------------------------------------
def in_f32(fn, x, *rest):
    """Run fn on x computed in float32 when x is float16 (the kernels take float32 / float64),
    casting float results back."""
    t = _ttype("pool", x)
    if t.dtype is not mstype.float16:
        return fn(x, *rest)
    out = fn(F.cast(x, mstype.float32), *rest)

    def back(o):
        return F.cast(o, mstype.float16) if _ttype("pool", o).dtype is mstype.float32 else o
    return tuple(back(o) for o in out) if isinstance(out, tuple) else back(out)


def pool(kind: str, x, kernel, stride, pads, dilation=None, ceil_mode=False, count_include_pad=True, divisor=0):
    """MaxPool / AvgPool of a 4-D or 5-D input with normalized attributes; kind 'argmax' gives
    (values, flat argmax within each channel's plane)."""
    attrs = {"kernel": tuple(kernel), "stride": tuple(stride), "pads": tuple(pads),
             "dilation": tuple(dilation or (1,) * len(kernel)), "ceil_mode": bool(ceil_mode)}

    def run(x):
        if kind == "avg":
            return apply(PL.AvgPool, [x], dict(attrs, count_include_pad=bool(count_include_pad),
                                               divisor=int(divisor or 0)))
        out = apply(PL.MaxPool, [x], attrs)
        return (out, apply(PL.MaxPoolArgmax, [x], attrs)) if kind == "argmax" else out
    return in_f32(run, x)


def pool_pad_mode(name, kind, x, kernel, stride, pad_mode):
    """MindSpore's MaxPool / AvgPool primitives: 'valid' or 'same' (padding never counts)."""
    xt = _ttype(name, x)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("valid", "same"):
        raise OpValueError(f"For '{name}', the 'pad_mode' must be str and must be in '['VALID', 'SAME']', "
                           f"but got '{pad_mode}'.")
    sp = len(kernel)
    in_sp = xt.shape[2:] if xt.ndim == sp + 2 else (1,) * sp
    pads = CV.same_pads(in_sp, kernel, stride, (1,) * sp) if mode == "same" else (0,) * (2 * sp)
    return pool(kind, x, kernel, stride, pads, count_include_pad=mode == "valid")


def _sym_pads(name, padding, sp, kernel=None):
    p = (int(padding),) * sp if _is_int(padding) else tuple(padding)
    if len(p) != sp or any(not _is_int(v) or v < 0 for v in p):
        raise OpValueError(f"For '{name}', 'padding' must be a non-negative int or a tuple of {sp} non-negative "
                           f"ints, but got {padding}")
    if kernel is not None and any(v > k // 2 for v, k in zip(p, kernel)):
        raise OpValueError(f"For '{name}', pad should be smaller than or equal to half of kernel size, but got "
                           f"padding {padding} and kernel_size {kernel}.")
    return tuple(v for v in p for _ in range(2))


def _rank_check(name, x, nd):
    xt = _ttype(name, x)
    if xt.ndim != nd:
        raise OpValueError(f"For '{name}', the input must be a {nd}D Tensor, but got a {xt.ndim}D one.")
    return xt


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    _rank_check("max_pool2d", x, 4)
    k = tuple_arg("MaxPoolWithArgmaxV2", "kernel_size", kernel_size, 2)
    s = tuple_arg("MaxPoolWithArgmaxV2", "strides", stride if stride is not None else kernel_size, 2)
    d = tuple_arg("MaxPoolWithArgmaxV2", "dilation", dilation, 2)
    out = pool("argmax", x, k, s, _sym_pads("max_pool2d", padding, 2, k), d, ceil_mode)
    return out if return_indices else out[0]


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    _rank_check("avg_pool2d", input_x, 4)
    k = tuple_arg("avg_pool2d", "kernel_size", kernel_size, 2)
    s = tuple_arg("avg_pool2d", "stride", stride, 2)
    if divisor_override is not None and divisor_override < 0:
        raise OpValueError(f"For 'avg_pool2d', 'divisor_override' must be >= 0, but got {divisor_override}.")
    return pool("avg", input_x, k, s, _sym_pads("avg_pool2d", padding, 2), None, ceil_mode, count_include_pad,
                divisor_override or 0)


def _lift1d(x):
    return F.expand_dims(x, 2)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    _rank_check("avg_pool1d", input_x, 3)
    k = tuple_arg("avg_pool1d", "kernel_size", kernel_size, 1)
    s = tuple_arg("avg_pool1d", "stride", stride, 1)
    out = pool("avg", _lift1d(input_x), (1,) + k, (1,) + s, (0, 0) + _sym_pads("avg_pool1d", padding, 1), None,
               ceil_mode, count_include_pad)
    return F.squeeze(out, 2)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    _rank_check("max_pool1d", x, 3)
    k = tuple_arg("max_pool1d", "kernel_size", kernel_size, 1)
    s = tuple_arg("max_pool1d", "stride", stride if stride is not None else kernel_size, 1)
    d = tuple_arg("max_pool1d", "dilation", dilation, 1)
    out, idx = pool("argmax", _lift1d(x), (1,) + k, (1,) + s, (0, 0) + _sym_pads("max_pool1d", padding, 1, k),
                    (1,) + d, ceil_mode)
    out, idx = F.squeeze(out, 2), F.squeeze(idx, 2)
    return (out, idx) if return_indices else out


def _adaptive_size(name, x, output_size, sp):
    xt = _ttype(name, x)
    if xt.ndim not in (sp + 1, sp + 2):
        raise OpValueError(f"For '{name}', the input must be a {sp + 1}D or {sp + 2}D Tensor, but got {xt.ndim}D.")
    sizes = (output_size,) * sp if _is_int(output_size) or output_size is None else tuple(output_size)
    if len(sizes) != sp:
        raise OpValueError(f"For '{name}', 'output_size' must be an int or a tuple of {sp} ints, but got {output_size}")
    out = tuple(xt.shape[-sp + i] if v is None else int(v) for i, v in enumerate(sizes))
    if any(v <= 0 for v in out):
        raise OpValueError(f"For '{name}', 'output_size' must be positive, but got {output_size}")
    return xt, out


def adaptive_pool(kind: str, x, size):
    """AdaptiveAvgPool / AdaptiveMaxPool of an (N, C, *spatial) or (C, *spatial) input."""
    xt = _ttype("adaptive_pool", x)
    batched = xt.ndim == len(size) + 2
    xin = x if batched else F.expand_dims(x, 0)
    attrs = {"output_size": tuple(size)}

    def run(x):
        if kind == "avg":
            return apply(PL.AdaptiveAvgPool, [x], attrs)
        return apply(PL.AdaptiveMaxPool, [x], attrs), apply(PL.AdaptiveMaxPoolArgmax, [x], attrs)
    out = in_f32(run, xin)
    if batched:
        return out
    return tuple(F.squeeze(o, 0) for o in out) if isinstance(out, tuple) else F.squeeze(out, 0)


def adaptive_avg_pool2d(input, output_size):
    _, size = _adaptive_size("AdaptiveAvgPool2D", input, output_size, 2)
    return adaptive_pool("avg", input, size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    _, size = _adaptive_size("AdaptiveMaxPool2D", input, output_size, 2)
    out = adaptive_pool("max", input, size)
    return out if return_indices else out[0]


def adaptive_avg_pool1d(input, output_size):
    xt = _ttype("adaptive_avg_pool1d", input)
    if not _is_int(output_size) or output_size < 1:
        raise OpValueError(f"For 'adaptive_avg_pool1d', 'output_size' must be a positive int, but got {output_size}.")
    if xt.ndim != 3:
        raise OpValueError(f"For adaptive_avg_pool1d input must have 3 dim, but got {xt.ndim}.")
    if xt.shape[2] < output_size:
        raise OpValueError(f"For adaptive_avg_pool1d input's last dimension must be greater or equal to output size "
                           f"{output_size}, but got {xt.shape[2]}.")
    if xt.shape[2] % output_size:
        raise OpValueError(f"For adaptive_avg_pool1d input's last dimension must be divisible by output size "
                           f"{output_size}, but got {xt.shape[2]}.")
    return F.squeeze(adaptive_pool("avg", _lift1d(input), (1, output_size)), 2)


def adaptive_max_pool1d(input, output_size):
    xt = _ttype("adaptive_max_pool1d", input)
    if xt.ndim not in (2, 3):
        raise OpValueError(f"For 'adaptive_max_pool1d', the input must be a 2D or 3D Tensor, but got {xt.ndim}D.")
    x = input if xt.ndim == 3 else F.expand_dims(input, 0)
    out = F.squeeze(adaptive_pool("max", _lift1d(x), (1, int(output_size)))[0], 2)
    return out if xt.ndim == 3 else F.squeeze(out, 0)


# ---- unfold / fold: depthwise convolutions with one-hot kernels ---------------------------------------------
def _one_hot_kernel(c: int, kernel, dtype):
    kk = int(np.prod(kernel))
    w = np.zeros((c * kk, 1) + tuple(kernel), dtype.np)
    for ch in range(c):
        for j in range(kk):
            w[(ch * kk + j, 0) + np.unravel_index(j, kernel)] = 1
    from pycompile.common.tensor import Tensor
    return Tensor(w)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), channel c * kh * kw + (i * kw + j) holding
    kernel offset (i, j) of channel c - a depthwise convolution with one-hot kernels."""
    xt = _rank_check("unfold", input, 4)
    k = tuple_arg("unfold", "kernel_size", kernel_size, 2)
    d = tuple_arg("unfold", "dilation", dilation, 2)
    s = tuple_arg("unfold", "stride", stride, 2)
    p = _sym_pads("unfold", padding, 2)
    w = _one_hot_kernel(xt.shape[1], k, xt.dtype)
    out = convolution("Conv2D", input, w, s, d, "pad", p, xt.shape[1])
    ot = _ttype("unfold", out)
    return F.reshape(out, (ot.shape[0], ot.shape[1], ot.shape[2] * ot.shape[3]))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the transpose of unfold: overlapping patches are summed. `output_size` is a
    Tensor of two ints, as MindSpore 2.10's Col2Im requires (a constant when compiling)."""
    xt = _rank_check("fold", input, 3)
    data = getattr(output_size, "_data", None)
    if data is None:
        raise OpTypeError(f"For Primitive[Col2Im], the type of input argument[output_size] must be Tensor but got "
                          f"{type(output_size).__name__}")
    values = [int(v) for v in np.asarray(data).reshape(-1)]
    if any(v < 0 for v in values):
        raise OpValueError(f"For 'Col2Im', the value of 'output_size' must not be negative, but got {values}.")
    size = tuple_arg("fold", "output_size", tuple(values), 2)
    k = tuple_arg("fold", "kernel_size", kernel_size, 2)
    d = tuple_arg("fold", "dilation", dilation, 2)
    s = tuple_arg("fold", "stride", stride, 2)
    p = _sym_pads("fold", padding, 2)
    kk = k[0] * k[1]
    if xt.shape[1] % kk:
        raise OpValueError(f"For 'fold', the second dimension of the input ({xt.shape[1]}) must be divisible by the "
                           f"kernel size product {kk}")
    c = xt.shape[1] // kk
    blocks = [CV.out_size(size[i], k[i], s[i], d[i], p[2 * i], p[2 * i + 1]) for i in range(2)]
    if blocks[0] * blocks[1] != xt.shape[2]:
        raise OpValueError(f"For 'fold', the input's last dimension ({xt.shape[2]}) must equal the number of sliding "
                           f"blocks {blocks[0] * blocks[1]}")
    cols = F.reshape(input, (xt.shape[0], xt.shape[1], blocks[0], blocks[1]))
    return conv_backprop_input("Conv2DBackpropInput", cols, _one_hot_kernel(c, k, xt.dtype),
                               (xt.shape[0], c) + size, s, d, "pad", p, c)


# max_pool1d is not exported: MindSpore 2.10's ops has no such function (nn.MaxPool1d is the API)
__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "max_pool2d", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "unfold",
           "fold"]
