"""mindspore.nn names added by issue 33 (surface33): the autodiff Cells (Jvp, Vjp,
ForwardValueAndGrad), CellDict, ParameterUpdate, no_init_parameters, 3-D pooling Cells, the
mint-style `*Ext` Cells (PyTorch-shaped signatures over the same ops), BiDense, and the
MultilabelMarginLoss / MultiClassDiceLoss losses. Each is a composition of existing ops, so
PyNative, graph mode and the gradient agree by construction.
"""
from __future__ import annotations

import contextlib
import math
from collections import OrderedDict

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.layers import Dropout
from pycompile.nn.image import Dropout2d
from pycompile.ops.ctc_rand33 import _lse as _logsumexp  # one log-sum-exp of CTC terms, ops.ctc_loss's


# ---- autodiff Cells ---------------------------------------------------------------------------------
class Jvp(Cell):
    """`Jvp(fn)(*inputs, v)`: (fn(*inputs), the Jacobian-vector product with v) (forward mode)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        if len(inputs) == 1:
            return ops.jvp(self.fn, inputs[0], v)
        return ops.jvp(self.fn, tuple(inputs), v)


class Vjp(Cell):
    """`Vjp(fn)(*inputs, v)`: (fn(*inputs), the vector-Jacobian product v^T J): one gradient for one
    input, a tuple for several."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        output, pullback = ops.vjp(self.fn, *inputs)
        grads = pullback(v)
        if len(inputs) == 1:
            return output, grads[0]
        return output, grads


class ForwardValueAndGrad(Cell):
    """`(network(*inputs), gradients)` in one call, the gradients chosen as GradOperation's flags
    choose them: the first input's, all inputs' (`get_all`), the `weights`' (`get_by_list`), or
    both. With `sens_param` the last input is the output's sensitivity."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__()
        if not isinstance(network, (Cell, type(lambda: 0))):
            raise TypeError(f"For 'ForwardValueAndGrad', the argument 'network' must be cell or function, "
                            f"but got {type(network)}.")
        if not isinstance(get_all, bool) or not isinstance(get_by_list, bool) or not isinstance(sens_param, bool):
            raise TypeError("For 'ForwardValueAndGrad', 'get_all', 'get_by_list' and 'sens_param' must be bool.")
        if get_by_list and weights is None:
            raise TypeError("For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the argument 'weights' "
                            "cannot be None.")
        self.network, self.weights = network, weights
        self.get_by_list, self.sens_param = get_by_list, sens_param
        self.grad = ops.GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)

    def construct(self, *inputs):
        args = inputs[:-1] if self.sens_param else inputs
        loss = self.network(*args)
        if self.get_by_list:
            grads = self.grad(self.network, self.weights)(*inputs)
        else:
            grads = self.grad(self.network)(*inputs)
        return loss, grads


# ---- containers and parameter helpers ---------------------------------------------------------------
class CellDict(Cell):
    """An ordered dict of Cells under string keys (each registered as a sub-Cell under its key).
    Built from a dict, an OrderedDict, a CellDict or an iterable of (key, Cell) pairs."""

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        super().__init__(auto_prefix=auto_prefix)
        if len(args) > 1:
            raise TypeError(f"For 'CellDict', it takes at most 1 positional argument, but got {len(args)}.")
        if args and args[0] is not None:
            self.update(args[0])

    def _check(self, key, cell):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be string, but got {type(key).__name__}.")
        if key in dir(Cell):
            raise KeyError(f"For 'CellDict', the key {key} is an attribute of Cell and cannot be used.")
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', the type of cell should be Cell, but got {type(cell).__name__}.")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check(key, cell)
        setattr(self, key, cell)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def clear(self):
        for key in list(self._cells):
            delattr(self, key)

    def pop(self, key):
        cell = self._cells[key]
        delattr(self, key)
        return cell

    def update(self, cells):
        items = cells.items() if isinstance(cells, (dict, OrderedDict, CellDict)) else cells
        for pair in items:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError("For 'CellDict.update', each element of an iterable argument must be a (key, Cell) "
                                 "pair.")
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise NotImplementedError("For 'CellDict', the method 'construct' is not defined: index it and call the "
                                  "Cells it holds.")


class ParameterUpdate(Cell):
    """`ParameterUpdate(param)(x)` assigns x to param and returns x."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got {type(param)}.")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


@contextlib.contextmanager
def no_init_parameters():
    """MindSpore defers the initialization of Parameters created inside this block until they are
    loaded or used, to save time for weights a checkpoint overwrites. pycompile initializes them
    at creation (NumPy, on the host); the values after load_checkpoint / load_param_into_net are
    the same."""
    yield


# ---- pooling ----------------------------------------------------------------------------------------
def _triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * 3


class MaxPool3d(Cell):
    """3-D max pooling over (N, C, D, H, W) (or (C, D, H, W)); pad_mode 'valid', 'same' or 'pad'
    (with `padding`), as nn.MaxPool2d does in 2-D."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For 'MaxPool3d', the 'pad_mode' must be 'valid', 'same' or 'pad', but got {pad_mode}.")
        if mode != "PAD" and padding != 0:
            raise ValueError("For 'MaxPool3d', the 'padding' must be 0 when 'pad_mode' is not 'pad'.")
        self.kernel_size, self.stride, self.pad_mode = _triple(kernel_size), _triple(stride), mode
        self.padding, self.dilation = _triple(padding), _triple(dilation)
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def construct(self, x):
        squeeze = x.ndim == 4
        if squeeze:
            x = ops.expand_dims(x, 0)
        padding = self.padding
        if self.pad_mode == "SAME":
            pads = []
            for size, k, s, d in zip(x.shape[2:], self.kernel_size, self.stride, self.dilation):
                out = -(-size // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
                pads.append(total)
            if any(p % 2 for p in pads):
                neg = float("-inf")
                x = ops.pad(x, (pads[2] // 2, pads[2] - pads[2] // 2, pads[1] // 2, pads[1] - pads[1] // 2,
                                pads[0] // 2, pads[0] - pads[0] // 2), value=neg)
                padding = (0, 0, 0)
            else:
                padding = tuple(p // 2 for p in pads)
        out = ops.max_pool3d(x, self.kernel_size, self.stride, padding, self.dilation, self.ceil_mode,
                             self.return_indices)
        if squeeze:
            return tuple(ops.squeeze(o, 0) for o in out) if self.return_indices else ops.squeeze(out, 0)
        return out


class AvgPool3d(Cell):
    """3-D average pooling over (N, C, D, H, W) (or (C, D, H, W))."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("VALID", "PAD"):
            raise ValueError(f"For 'AvgPool3d', the 'pad_mode' must be 'valid' or 'pad', but got {pad_mode}.")
        if mode != "PAD" and padding != 0:
            raise ValueError("For 'AvgPool3d', the 'padding' must be 0 when 'pad_mode' is not 'pad'.")
        self.kernel_size, self.stride, self.padding = _triple(kernel_size), _triple(stride), _triple(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override or 0

    def construct(self, x):
        squeeze = x.ndim == 4
        if squeeze:
            x = ops.expand_dims(x, 0)
        d, h, w = self.padding
        out = ops.avg_pool3d(x, self.kernel_size, self.stride, (d, d, h, h, w, w), self.ceil_mode,
                             self.count_include_pad, self.divisor_override)
        return ops.squeeze(out, 0) if squeeze else out


class AvgPool1dExt(Cell):
    """mint.nn.AvgPool1d: `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.args = (kernel_size, kernel_size if stride is None else stride, padding, ceil_mode, count_include_pad)

    def construct(self, x):
        return ops.avg_pool1d(x, *self.args)


class AvgPool2dExt(Cell):
    """mint.nn.AvgPool2d: `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.args = (kernel_size, kernel_size if stride is None else stride, padding, ceil_mode, count_include_pad,
                     divisor_override or 0)

    def construct(self, x):
        return ops.avg_pool2d(x, *self.args)


class AvgPool3dExt(Cell):
    """mint.nn.AvgPool3d: `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.args = (kernel_size, kernel_size if stride is None else stride, padding, ceil_mode, count_include_pad,
                     divisor_override or 0)

    def construct(self, x):
        return ops.avg_pool3d(x, *self.args)


class MaxPool2dExt(Cell):
    """mint.nn.MaxPool2d: `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.args = (kernel_size, kernel_size if stride is None else stride, padding, dilation, return_indices,
                     ceil_mode)

    def construct(self, x):
        return ops.max_pool2d(x, *self.args)


# ---- mint-style Cells -------------------------------------------------------------------------------
class L1LossExt(Cell):
    """mint.nn.L1Loss: mean (or sum / none) |input - target|."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return ops.l1_loss(input, target, self.reduction)


class LogSoftmaxExt(Cell):
    """mint.nn.LogSoftmax: log_softmax over `dim` (None: axis 0 for 0-, 1- and 3-D inputs, else 1)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, x):
        dim = self.dim
        if dim is None:
            dim = 0 if x.ndim in (0, 1, 3) else 1
        return ops.log_softmax(x, dim)


class DropoutExt(Dropout):
    """mint.nn.Dropout(p): zero elements with probability p in training, identity in eval."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=p)


class Dropout2dExt(Dropout2d):
    """mint.nn.Dropout2d(p): zero whole channels with probability p in training."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=p)


# ---- BiDense and losses -----------------------------------------------------------------------------
class BiDense(Cell):
    """y = x1^T A x2 + b, A of shape (out, in1, in2): `weight`, `bias` Parameters initialized
    uniform in (-1/sqrt(in1), 1/sqrt(in1)) unless initializers are given."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32):
        super().__init__()
        for name, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'BiDense', the '{name}' must be a positive int, but got {v}.")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = has_bias
        bound = 1.0 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(self._init(weight_init, shape, bound, dtype), name="weight")
        if has_bias:
            self.bias = Parameter(self._init(bias_init, (out_channels,), bound, dtype), name="bias")

    @staticmethod
    def _init(init, shape, bound, dtype):
        if init is None:
            return Tensor(np.random.uniform(-bound, bound, shape), dtype)
        if isinstance(init, Tensor):
            if tuple(init.shape) != shape:
                raise ValueError(f"For 'BiDense', the initializer's shape must be {list(shape)}, "
                                 f"but got {list(init.shape)}.")
            return Tensor(init.asnumpy(), dtype)
        return Tensor(shape=shape, dtype=dtype, init=init)

    def construct(self, input1, input2):
        lead = input1.shape[:-1]
        x1 = ops.reshape(input1, (-1, self.in1_channels))
        x2 = ops.reshape(input2, (-1, self.in2_channels))
        # (n, in1) @ (in1, out * in2) -> (n, out, in2), then contract in2 with x2
        w = ops.reshape(ops.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        t = ops.reshape(ops.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = ops.reduce_sum(t * ops.expand_dims(x2, 1), 2)
        if self.has_bias:
            y = y + self.bias
        return ops.reshape(y, tuple(lead) + (self.out_channels,))


class MultilabelMarginLoss(Cell):
    """sum over targets j (the leading non-negative entries of `target`) and non-targets i of
    max(0, 1 - (x[j] - x[i])) / C, per sample; reduced by 'mean', 'sum' or 'none'."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For 'MultilabelMarginLoss', the 'reduction' must be in ['mean', 'sum', 'none'], "
                             f"but got {reduction}.")
        self.reduction = reduction

    def construct(self, x, target):
        squeeze = x.ndim == 1
        if squeeze:
            x, target = ops.expand_dims(x, 0), ops.expand_dims(target, 0)
        n, c = x.shape
        # a target counts until its first negative entry
        valid = ops.cast(ops.cumprod(ops.cast(target >= 0, mstype.int32), 1), mstype.bool_)
        safe = ops.select(valid, target, ops.zeros_like(target))
        onehot = ops.one_hot(ops.cast(safe, mstype.int32), c, Tensor(1.0, x.dtype), Tensor(0.0, x.dtype))
        onehot = onehot * ops.expand_dims(ops.cast(valid, x.dtype), 2)           # (n, k, c)
        is_target = ops.clip_by_value(ops.reduce_sum(onehot, 1), 0.0, 1.0)       # (n, c)
        x_target = ops.reduce_sum(onehot * ops.expand_dims(x, 1), 2)              # (n, k)
        margins = ops.relu(1.0 - (ops.expand_dims(x_target, 2) - ops.expand_dims(x, 1)))   # (n, k, c)
        weight = ops.expand_dims(ops.cast(valid, x.dtype), 2) * ops.expand_dims(1.0 - is_target, 1)
        loss = ops.reduce_sum(margins * weight, (1, 2)) / c
        if squeeze:
            loss = ops.squeeze(loss, 0) if self.reduction == "none" else loss
        if self.reduction == "mean":
            return ops.reduce_mean(loss)
        if self.reduction == "sum":
            return ops.reduce_sum(loss)
        return loss


class MultiClassDiceLoss(Cell):
    """The mean over classes of the dice loss 1 - 2|X∩Y| / (|X| + |Y|) (smooth 1e-5) of
    activation(logits) and one-hot labels (N, C, ...); `weights` (C, C) scale the per-class losses
    as MindSpore's do, `ignore_indiex` leaves one class out."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if activation not in (None, "softmax", "sigmoid") and not isinstance(activation, Cell):
            raise ValueError(f"For 'MultiClassDiceLoss', the 'activation' must be 'softmax', 'sigmoid', a Cell or "
                             f"None, but got {activation}.")
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'weights' must be a Tensor, but got {type(weights)}.")
        if ignore_indiex is not None and not isinstance(ignore_indiex, int):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'ignore_indiex' must be int, "
                            f"but got {type(ignore_indiex)}.")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation

    def construct(self, logits, label):
        if self.activation == "softmax":
            logits = ops.softmax(logits, 1)
        elif self.activation == "sigmoid":
            logits = ops.sigmoid(logits)
        elif self.activation is not None:
            logits = self.activation(logits)
        total = 0.0
        c = label.shape[1]
        for i in range(c):
            if i != self.ignore_indiex:
                x, y = logits[:, i], label[:, i]
                inter = ops.reduce_sum(x * y)
                union = ops.reduce_sum(x * x) + ops.reduce_sum(y * y)
                loss = 1.0 - (2.0 * inter + 1e-5) / (union + 1e-5)
                if self.weights is not None:
                    loss = loss * self.weights[i]
                total = total + loss
        return total / c


class CTCLoss(Cell):
    """Connectionist temporal classification loss of log-probabilities (T, N, C) (or (T, C)) and
    padded targets (N, S): -log of the summed probability of every alignment of target n to the
    first input_lengths[n] frames (blank `blank`), by the forward (alpha) recursion in log space.
    'mean' divides each loss by its target length, then averages; `zero_infinity` turns impossible
    alignments' infinite losses into 0. Gradients come from autodiff through the recursion."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"For 'CTCLoss', the 'blank' must be a non-negative int, but got {blank}.")
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For 'CTCLoss', the 'reduction' must be in ['mean', 'sum', 'none'], "
                             f"but got {reduction}.")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLoss', the 'zero_infinity' must be bool, but got {type(zero_infinity)}.")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        unbatched = log_probs.ndim == 2
        if unbatched:
            log_probs = ops.expand_dims(log_probs, 1)
            if targets.ndim == 1:
                targets = ops.expand_dims(targets, 0)
        t_max, n, _ = log_probs.shape
        s_max = targets.shape[1]
        width = 2 * s_max + 1
        targets = ops.cast(targets, mstype.int32)
        blanks = ops.fill(mstype.int32, (n, s_max + 1), self.blank)
        # the extended label sequence: blank, l1, blank, l2, ..., blank
        ext = ops.reshape(ops.stack([blanks[:, :s_max], targets], 2), (n, 2 * s_max))
        ext = ops.concat([ext, blanks[:, :1]], 1)
        prev2 = ops.concat([ops.fill(mstype.int32, (n, 2), -1), ext[:, :width - 2]], 1)
        skip = (ext != self.blank) & (ext != prev2)
        neg_inf = ops.fill(log_probs.dtype, (n, width), float("-inf"))
        pad1 = ops.fill(log_probs.dtype, (n, 1), float("-inf"))
        pad2 = ops.fill(log_probs.dtype, (n, 2), float("-inf"))
        lengths = ops.cast(input_lengths, mstype.int32)
        first = ops.gather_elements(log_probs[0], 1, ext)
        start = ops.cast(ops.arange(width) < 2, mstype.bool_)
        alpha = ops.select(ops.broadcast_to(start, (n, width)), first, neg_inf)
        final = alpha
        for t in range(1, t_max):
            a1 = ops.concat([pad1, alpha[:, :width - 1]], 1)
            a2 = ops.select(skip, ops.concat([pad2, alpha[:, :width - 2]], 1), neg_inf)
            alpha = _logsumexp(alpha, a1, a2) + ops.gather_elements(log_probs[t], 1, ext)
            here = ops.broadcast_to(ops.expand_dims(lengths == t + 1, 1), (n, width))
            final = ops.select(here, alpha, final)
        tl = ops.cast(target_lengths, mstype.int32)
        last = ops.expand_dims(2 * tl, 1)
        before = ops.expand_dims(ops.maximum(2 * tl - 1, ops.zeros_like(tl)), 1)
        end_blank = ops.gather_elements(final, 1, last)
        end_label = ops.select(ops.expand_dims(tl > 0, 1), ops.gather_elements(final, 1, before), pad1)
        loss = -ops.reshape(_logsumexp(end_blank, end_label), (n,))
        if self.zero_infinity:
            loss = ops.select(ops.isinf(loss), ops.zeros_like(loss), loss)
        if self.reduction == "mean":
            return ops.mean(loss / ops.cast(ops.maximum(tl, ops.ones_like(tl)), loss.dtype))
        if self.reduction == "sum":
            return ops.sum(loss)
        return ops.squeeze(loss, 0) if unbatched else loss
