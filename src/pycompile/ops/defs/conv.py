"""Convolutions: Conv2D / Conv3D and the two ops their gradients need, ConvBackpropInput (also
the forward of a transposed convolution) and ConvBackpropFilter, in 2-D and 3-D.

Attributes are normalized by the functional layer (ops/function_cnn.py), which resolves
MindSpore's pad_mode against the static input shape: `stride` and `dilation` hold one int per
spatial axis, `pads` two per axis in axis order (before, after: MindSpore's (top, bottom, left,
right) for 2-D), `group` the number of channel groups. A 1-D convolution is a 2-D one on an
(N, C, 1, L) view, as MindSpore computes it. The three ops are closed under differentiation
(ops/grads/cnn.py), so every order of gradient stays within them.

The C kernels (backend/c/ops/conv.py) compute the forward directly, vectorized over output channels,
and the backward ops through im2col / col2im tiles and BLAS; the eager implementations here
are NumPy tensordots over the kernel's offsets.
"""
from __future__ import annotations

import itertools

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpDef, Kind, OpRuntimeError, OpTypeError, OpValueError, defop, describe, tensor_arg
from pycompile.ops.defs import conv_parts as _cp
from pycompile.ops.lowering import Template


def out_size(n: int, k: int, s: int, d: int, before: int, after: int) -> int:
    """Output length of a convolution / pooling window along one axis (floor mode)."""
    return (n + before + after - d * (k - 1) - 1) // s + 1


def same_pads(in_sizes, kernel, stride, dilation) -> tuple:
    """MindSpore's 'same' padding: output = ceil(input / stride), the odd pixel after."""
    pads = []
    for n, k, s, d in zip(in_sizes, kernel, stride, dilation):
        o = -(-n // s)
        need = max(0, (o - 1) * s + d * (k - 1) + 1 - n)
        pads += [need // 2, need - need // 2]
    return tuple(pads)


def _float_check(name, x):
    # float16 convolutions run in float32: the functional layer casts around the op
    if x.dtype not in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For '{name}', the input must be a float32 or float64 tensor, but got {describe(x)}")


def conv_out_shape(name: str, x: TensorType, w: TensorType, stride, dilation, pads, group) -> tuple:
    """Checks an input / weight pair and returns the output shape (MindSpore's messages)."""
    nd = x.ndim
    if w.ndim != nd:
        raise OpValueError(f"For primitive[{name}], the w shape size must be equal to {nd}, but got {w.ndim}.")
    if x.shape[1] % group or w.shape[0] % group:
        raise OpValueError(f"The argument 'groups' should be divisible by 'in_channel' and 'out_channel', but got "
                           f"group:{group}, in_channel:{x.shape[1]}, out_channel:{w.shape[0]}.")
    if x.shape[1] // group != w.shape[1]:
        raise OpRuntimeError(
            f"For '{name}', 'C_in' of input 'x' shape divide by parameter 'group' must be equal to 'C_in' of input "
            f"'weight' shape: {w.shape[1]}, but got 'C_in' of input 'x' shape: {x.shape[1]}, and 'group': {group}.")
    spatial = []
    for i in range(nd - 2):
        n, k = x.shape[2 + i], w.shape[2 + i]
        if n + pads[2 * i] + pads[2 * i + 1] < dilation[i] * (k - 1) + 1:
            axes = "h and w" if nd == 4 else "d, h and w"
            raise OpValueError(f"For '{name}', input shape's {axes} after padding must be greater than or equal to "
                               f"kernel_size's {axes} respectively. Got input {list(x.shape)}, kernel "
                               f"{list(w.shape[2:])}, dilation {list(dilation)} and pads {list(pads)}.")
        spatial.append(out_size(n, k, stride[i], dilation[i], pads[2 * i], pads[2 * i + 1]))
    return (x.shape[0], w.shape[0], *spatial)


def _check_rank(name, t, nd, what="x"):
    if t.ndim != nd:
        raise OpValueError(f"For primitive[{name}], the {what} shape size must be equal to {nd}, but got {t.ndim}.")


def _dtypes_match(name, a, b):
    if a.dtype is not b.dtype:
        raise OpTypeError(f"For '{name}', the inputs must have the same dtype, but got {describe(a)} and {describe(b)}")


def _conv_infer(name: str, nd: int):
    def infer(types, stride=None, dilation=None, pads=None, group=1):
        x = tensor_arg(name, types[0], "x")
        w = tensor_arg(name, types[1], "w")
        _check_rank(name, x, nd)
        _float_check(name, x)
        _dtypes_match(name, x, w)
        sp = nd - 2
        stride, dilation, pads = _norm(stride, dilation, pads, sp)
        return TensorType(x.dtype, conv_out_shape(name, x, w, stride, dilation, pads, group))
    return infer


def _norm(stride, dilation, pads, sp):
    return (tuple(stride or (1,) * sp), tuple(dilation or (1,) * sp), tuple(pads or (0,) * (2 * sp)))


# ---- NumPy ----------------------------------------------------------------------------------------
def _compute_dtype(dt):
    return np.float32 if dt == np.float16 else dt


def _padded(x, pads):
    sp = x.ndim - 2
    return np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(sp)])


def _window(xp, offs, stride, dilation, out_sp):
    """The strided view of xp read by kernel offset `offs` for every output position."""
    idx = [slice(None), slice(None)]
    for o, s, d, n in zip(offs, stride, dilation, out_sp):
        idx.append(slice(o * d, o * d + s * (n - 1) + 1, s))
    return xp[tuple(idx)]


def conv_eager(x, w, stride=None, dilation=None, pads=None, group=1):
    sp = x.ndim - 2
    stride, dilation, pads = _norm(stride, dilation, pads, sp)
    dt = x.dtype
    ct = _compute_dtype(dt)
    x, w = x.astype(ct, copy=False), w.astype(ct, copy=False)
    n, c = x.shape[:2]
    k = w.shape[0]
    cg, kg = c // group, k // group
    out_sp = [out_size(x.shape[2 + i], w.shape[2 + i], stride[i], dilation[i], pads[2 * i], pads[2 * i + 1])
              for i in range(sp)]
    xp = _padded(x, pads)
    out = np.zeros((n, k, *out_sp), ct)
    for offs in itertools.product(*(range(kk) for kk in w.shape[2:])):
        win = _window(xp, offs, stride, dilation, out_sp)
        for g in range(group):
            wk = w[(slice(g * kg, (g + 1) * kg), slice(None), *offs)]            # (kg, cg)
            out[:, g * kg:(g + 1) * kg] += np.moveaxis(
                np.tensordot(win[:, g * cg:(g + 1) * cg], wk, axes=([1], [1])), -1, 1)
    return out.astype(dt, copy=False)


def conv_backprop_input_eager(dout, w, input_size=(), stride=None, dilation=None, pads=None, group=1):
    sp = dout.ndim - 2
    stride, dilation, pads = _norm(stride, dilation, pads, sp)
    dt = dout.dtype
    ct = _compute_dtype(dt)
    dout, w = dout.astype(ct, copy=False), w.astype(ct, copy=False)
    n, k = dout.shape[:2]
    c = w.shape[1] * group
    cg, kg = c // group, k // group
    padded = [input_size[2 + i] + pads[2 * i] + pads[2 * i + 1] for i in range(sp)]
    # room for every window the output grid reads, even past the covered input
    room = [max(padded[i], (dout.shape[2 + i] - 1) * stride[i] + dilation[i] * (w.shape[2 + i] - 1) + 1)
            for i in range(sp)]
    dxp = np.zeros((n, c, *room), ct)
    for offs in itertools.product(*(range(kk) for kk in w.shape[2:])):
        win = _window(dxp, offs, stride, dilation, dout.shape[2:])
        for g in range(group):
            wk = w[(slice(g * kg, (g + 1) * kg), slice(None), *offs)]            # (kg, cg)
            win[:, g * cg:(g + 1) * cg] += np.moveaxis(
                np.tensordot(dout[:, g * kg:(g + 1) * kg], wk, axes=([1], [0])), -1, 1)
    crop = tuple([slice(None), slice(None)] + [slice(pads[2 * i], pads[2 * i] + input_size[2 + i]) for i in range(sp)])
    return np.ascontiguousarray(dxp[crop]).astype(dt, copy=False)


def conv_backprop_filter_eager(dout, x, filter_size=(), stride=None, dilation=None, pads=None, group=1):
    sp = x.ndim - 2
    stride, dilation, pads = _norm(stride, dilation, pads, sp)
    dt = x.dtype
    ct = _compute_dtype(dt)
    dout, x = dout.astype(ct, copy=False), x.astype(ct, copy=False)
    c = x.shape[1]
    k = dout.shape[1]
    cg, kg = c // group, k // group
    xp = _padded(x, pads)
    dw = np.zeros(tuple(filter_size), ct)
    red = [0] + list(range(2, 2 + sp))
    for offs in itertools.product(*(range(kk) for kk in filter_size[2:])):
        win = _window(xp, offs, stride, dilation, dout.shape[2:])
        for g in range(group):
            dw[(slice(g * kg, (g + 1) * kg), slice(None), *offs)] = np.tensordot(
                dout[:, g * kg:(g + 1) * kg], win[:, g * cg:(g + 1) * cg], axes=(red, red))
    return dw.astype(dt, copy=False)


# ---- the backprop ops' inference -------------------------------------------------------------------
def _bpi_infer(name: str, nd: int):
    def infer(types, input_size=(), stride=None, dilation=None, pads=None, group=1):
        dout = tensor_arg(name, types[0], "out_backprop")
        w = tensor_arg(name, types[1], "filter")
        _check_rank(name, dout, nd, "out_backprop")
        _check_rank(name, w, nd, "filter")
        _float_check(name, dout)
        _dtypes_match(name, dout, w)
        stride, dilation, pads = _norm(stride, dilation, pads, nd - 2)
        size = tuple(int(d) for d in input_size)
        if len(size) != nd or size[0] != dout.shape[0] or size[1] != w.shape[1] * group:
            raise OpValueError(f"For '{name}', 'input_size' {list(size)} does not match out_backprop "
                               f"{list(dout.shape)}, filter {list(w.shape)} and group {group}")
        expect = conv_out_shape(name, TensorType(dout.dtype, size), w, stride, dilation, pads, group)
        if expect != dout.shape:
            raise OpValueError(f"For '{name}', a convolution of an input of shape {list(size)} gives shape "
                               f"{list(expect)}, but out_backprop has shape {list(dout.shape)}")
        return TensorType(dout.dtype, size)
    return infer


def _bpf_infer(name: str, nd: int):
    def infer(types, filter_size=(), stride=None, dilation=None, pads=None, group=1):
        dout = tensor_arg(name, types[0], "out_backprop")
        x = tensor_arg(name, types[1], "input")
        _check_rank(name, dout, nd, "out_backprop")
        _check_rank(name, x, nd)
        _float_check(name, dout)
        _dtypes_match(name, dout, x)
        stride, dilation, pads = _norm(stride, dilation, pads, nd - 2)
        size = tuple(int(d) for d in filter_size)
        w = TensorType(x.dtype, size)
        if len(size) != nd or conv_out_shape(name, x, w, stride, dilation, pads, group) != dout.shape:
            raise OpValueError(f"For '{name}', 'filter_size' {list(size)} does not match input {list(x.shape)} and "
                               f"out_backprop {list(dout.shape)}")
        return w
    return infer


_CONV_ATTRS = {"stride": None, "dilation": None, "pads": None, "group": 1}

Conv2D = defop("Conv2D", ("x", "w"), attrs=dict(_CONV_ATTRS), infer=_conv_infer("Conv2D", 4), eager=conv_eager,
               kind=Kind.REDUCE, batch="conv", eager_kernel=True, lower=Template("conv"))
Conv3D = defop("Conv3D", ("x", "w"), attrs=dict(_CONV_ATTRS), infer=_conv_infer("Conv3D", 5), eager=conv_eager,
               kind=Kind.REDUCE, batch="conv", eager_kernel=True, lower=Template("conv"))
Conv2DBackpropInput = defop("Conv2DBackpropInput", ("out_backprop", "filter"),
                            attrs=dict(_CONV_ATTRS, input_size=()), infer=_bpi_infer("Conv2DBackpropInput", 4),
                            eager=conv_backprop_input_eager, kind=Kind.REDUCE, batch="conv_input", eager_kernel=True,
                            lower=Template("conv_backprop_input"), decompose=_cp.backprop_input_parts, fast_path=True)
Conv3DBackpropInput = defop("Conv3DBackpropInput", ("out_backprop", "filter"),
                            attrs=dict(_CONV_ATTRS, input_size=()), infer=_bpi_infer("Conv3DBackpropInput", 5),
                            eager=conv_backprop_input_eager, kind=Kind.REDUCE, batch="conv_input", eager_kernel=True,
                            lower=Template("conv_backprop_input"), decompose=_cp.backprop_input_parts, fast_path=True)
Conv2DBackpropFilter = defop("Conv2DBackpropFilter", ("out_backprop", "input"),
                             attrs=dict(_CONV_ATTRS, filter_size=()), infer=_bpf_infer("Conv2DBackpropFilter", 4),
                             eager=conv_backprop_filter_eager, kind=Kind.REDUCE, batch="conv_filter", eager_kernel=True,
                             lower=Template("conv_backprop_filter"), decompose=_cp.backprop_filter_parts, fast_path=True)
Conv3DBackpropFilter = defop("Conv3DBackpropFilter", ("out_backprop", "input"),
                             attrs=dict(_CONV_ATTRS, filter_size=()), infer=_bpf_infer("Conv3DBackpropFilter", 5),
                             eager=conv_backprop_filter_eager, kind=Kind.REDUCE, batch="conv_filter", eager_kernel=True,
                             lower=Template("conv_backprop_filter"), decompose=_cp.backprop_filter_parts, fast_path=True)

CONV_OPS = {4: (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter), 5: (Conv3D, Conv3DBackpropInput, Conv3DBackpropFilter)}


# ---- a convolution with its elementwise consumers (made by compiler/passes/conv_epilogue.py) -------------
def run_program(program, acc, extras, dtype):
    """The epilogue `program` on NumPy values: each step (op name, *args) applies a table op to
    args ('acc',) the convolution, ('step', j) an earlier step, ('extra', k) an extra input,
    ('const', v) a number; the last step is the result."""
    from pycompile.ops._table import OPS
    vals = []
    for name, *args in program:
        ins = []
        for a in args:
            v = {"acc": lambda: acc, "step": lambda: vals[a[1]], "extra": lambda: extras[a[1]],
                 "const": lambda: a[1]}[a[0]]()
            ins.append(np.asarray(v).astype(dtype) if not isinstance(v, (int, float)) else v)
        vals.append(np.asarray(OPS[name].eager(*ins)).astype(dtype))
    return vals[-1] if vals else acc


def _fused_infer(types, stride=None, dilation=None, pads=None, group=1, program=(), fold_scale=False):
    out = _conv_infer("Conv2D", types[0].ndim if isinstance(types[0], TensorType) else 4)(
        types[:2], stride, dilation, pads, group)
    return out


def _fused_eager(x, w, extras, stride=None, dilation=None, pads=None, group=1, program=(), fold_scale=False):
    acc = conv_eager(x, w, stride, dilation, pads, group)
    return run_program(program, acc, [np.asarray(e) for e in extras], acc.dtype)


def _fused_parts(x, w, *extras, stride=None, dilation=None, pads=None, group=1, program=(), fold_scale=False):
    """The convolution, then each step of the epilogue program as its row (the meaning; with
    `fold_scale` the template multiplies the weights by the first step's per-channel scale
    instead, which rounds differently: that is the fast path's own choice)."""
    from pycompile.common.abstract import type_of
    from pycompile.ops._table import OPS, apply
    if len(extras) == 1 and isinstance(extras[0], (tuple, list)):     # (PyNative hands the tuple)
        extras = tuple(extras[0])
    conv = CONV_OPS[type_of(x).ndim][0]
    acc = apply(conv, [x, w], dict(stride=stride, dilation=dilation, pads=pads, group=group))
    vals = []
    for name, *args in program:
        ins = [acc if a[0] == "acc" else vals[a[1]] if a[0] == "step" else extras[a[1]] if a[0] == "extra"
               else a[1] for a in args]
        vals.append(apply(OPS[name], ins, {}))
    return vals[-1] if vals else acc


# inputs: the convolution's two, then the epilogue's extra tensors
FusedConv = defop("FusedConv", ("x", "w", "extras"), attrs=dict(_CONV_ATTRS, program=(), fold_scale=False),
                  infer=_fused_infer, eager=_fused_eager, kind=Kind.REDUCE, batch="loop", variadic=True,
                  lower=Template("conv"), decompose=_fused_parts, fast_path=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
