"""More mindspore.nn names added by issue 33 (surface33): DenseBnAct, the micro-batch wrappers
(MicroBatchInterleaved, PipelineCell, GradAccumulationCell) with their single-device meaning,
Unfold (image patches), adaptive 3-D pooling, and the mint-style LayerNormExt / EmbeddingExt /
PReLUExt Cells. Compositions of existing ops: PyNative, graph mode and gradients agree.

On one device a pipeline stage / micro-batch wrapper computes what MindSpore computes across
devices: the network on each equal slice of the batch (axis 0), the outputs summed. The
interleaving, stage placement and gradient accumulation across stages are scheduling only.
"""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor
from pycompile.nn.activation import LeakyReLU
from pycompile.nn.cell import Cell
from pycompile.nn.layers import Dense, get_activation
from pycompile.nn.normalization import BatchNorm1d


class DenseBnAct(Cell):
    """Dense, then (with has_bn) BatchNorm1d, then the activation (a name, a Cell, or
    'leakyrelu' with slope `alpha`). Sub-Cells `dense`, `batchnorm`, `activation` as in MindSpore."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        for name, v in (("has_bn", has_bn), ("after_fake", after_fake)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'DenseBnAct', the '{name}' must be bool, but got {type(v).__name__}.")
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn, self.has_act, self.after_fake = has_bn, activation is not None, after_fake
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        if activation == "leakyrelu":
            self.activation = LeakyReLU(alpha)
        else:
            self.activation = get_activation(activation) if isinstance(activation, str) else activation
            if activation is not None and not callable(self.activation):
                raise TypeError(f"For 'DenseBnAct', the 'activation' must be str or Cell or Primitive, "
                                f"but got {type(activation).__name__}.")

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


def _micro_slices(inputs, parts, i, where):
    out = ()
    for x in inputs:
        if x.shape[0] % parts:
            raise ValueError(f"For '{where}', the size of the inputs' axis 0 ({x.shape[0]}) must be divisible by "
                             f"{parts}.")
        step = x.shape[0] // parts
        out += (x[step * i:step * (i + 1)],)
    return out


class _MicroSum(Cell):
    _what = ""

    def __init__(self, network, parts, arg):
        super().__init__(auto_prefix=False)       # the network's Parameter names stay as they are
        if not isinstance(network, Cell):
            raise TypeError(f"For '{self._what}', the argument 'network' must be a Cell, "
                            f"but got {type(network).__name__}.")
        if isinstance(parts, bool) or not isinstance(parts, int):
            raise TypeError(f"For '{self._what}', the argument '{arg}' must be integer, but got the type : "
                            f"{type(parts)}.")
        if parts <= 0:
            raise ValueError(f"For '{self._what}', the argument '{arg}' must be large than 0, but got {parts}.")
        self.network, self._parts = network, parts

    def construct(self, *inputs):
        out = None
        for i in range(self._parts):
            y = self.network(*_micro_slices(inputs, self._parts, i, self._what))
            out = y if out is None else out + y
        return out


class MicroBatchInterleaved(_MicroSum):
    """The network on `interleave_num` equal slices of the batch, outputs summed (MindSpore
    overlaps the slices' communication with computation; on one device it is this sum)."""

    _what = "MicroBatchInterleaved"

    def __init__(self, network, interleave_num=2):
        super().__init__(network, interleave_num, "interleave_num")
        self.interleave_num = interleave_num


class PipelineCell(_MicroSum):
    """The network on `micro_size` micro-batches, outputs summed (a pipeline's stages run them in
    turn; on one device every stage is here). `stage_config` / `segment_config` set the named
    sub-Cells' `pipeline_stage` / `pipeline_segment`, which one device does not use."""

    _what = "PipelineCell"

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(network, micro_size, "micro_size")
        self.micro_size = micro_size
        cells = dict(network.cells_and_names())
        for attr, config in (("pipeline_stage", stage_config), ("pipeline_segment", segment_config)):
            for name, value in (config or {}).items():
                if name not in cells:
                    raise KeyError(f"For 'PipelineCell', the argument '{attr[9:]}_config' : {{{name!r}: {value}}} "
                                   f"is not found in 'network' : {type(network).__name__}")
                object.__setattr__(cells[name], attr, value)


class GradAccumulationCell(_MicroSum):
    """The network on `micro_size` micro-batches, outputs summed, so gradients accumulate over
    them in one backward."""

    _what = "GradAccumulationCell"

    def __init__(self, network, micro_size):
        super().__init__(network, micro_size, "micro_size")
        self.micro_size = micro_size


class VirtualDatasetCellTriple(Cell):
    """Wraps a backbone of three inputs for auto-parallel's dataset slicing; on one device the
    backbone gets the inputs as they are."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, a, b, c):
        return self._backbone(a, b, c)


class PipelineGradReducer(Cell):
    """The gradient reducer of pipeline training: returns the gradients divided by `scale_sense`.
    MindSpore reads them from `accu_grads.<name>` buffers that its pipeline backward fills across
    stages (and zeroes them); on one device the gradients a PipelineCell's backward gives are that
    accumulated sum already, so they are used directly (the buffers exist, named as MindSpore's,
    and stay zero)."""

    def __init__(self, parameters, scale_sense=1.0, opt_shard=None):
        super().__init__(auto_prefix=False)
        if not isinstance(parameters, ParameterTuple):
            parameters = ParameterTuple(parameters)
        self.accu_grads = parameters.clone(prefix="accu_grads", init="zeros")
        self.scale_sense = Parameter(Tensor(np.float32(scale_sense)), name="scale_sense")
        self.opt_shard = bool(opt_shard)

    def construct(self, grads):
        return tuple(g / ops.cast(self.scale_sense, g.dtype) for g in grads)


class Unfold(Cell):
    """Image patches (TensorFlow's extract_image_patches, MindSpore's ExtractImagePatches) of an
    (N, C, H, W) input: `ksizes`, `strides`, `rates` are [1, row, col, 1]; padding 'valid' or
    'same'. Output (N, C * kh * kw, out_h, out_w), the depth ordered (kernel row, kernel column,
    channel). MindSpore 2.10's CPU build has no kernel for it; this follows the documentation."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        for name, v in (("ksize", ksizes), ("stride", strides), ("rate", rates)):
            if not isinstance(v, (tuple, list)) or len(v) != 4 or v[0] != 1 or v[3] != 1:
                raise ValueError(f"For 'Unfold' the format of '{name}s' must be [1, {name}_row, {name}_col, 1], "
                                 f"but got {v}.")
            if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in v[1:3]):
                raise ValueError(f"For 'Unfold' the {name}_row and {name}_col in '{name}s' must be an positive "
                                 f"integer number, but got {name}_row is {v[1]}, {name}_col is {v[2]}")
        pad = padding.upper() if isinstance(padding, str) else padding
        if pad not in ("VALID", "SAME"):
            raise ValueError(f"For 'Unfold', the 'padding' must be 'valid' or 'same', but got {padding}.")
        self.k, self.s, self.r, self.padding = tuple(ksizes[1:3]), tuple(strides[1:3]), tuple(rates[1:3]), pad

    def construct(self, x):
        n, c, h, w = x.shape
        span = [(k - 1) * r + 1 for k, r in zip(self.k, self.r)]
        if self.padding == "VALID":
            out = [(size - sp) // s + 1 for size, sp, s in zip((h, w), span, self.s)]
        else:
            out = [-(-size // s) for size, s in zip((h, w), self.s)]
            need = [max((o - 1) * s + sp - size, 0) for o, s, sp, size in zip(out, self.s, span, (h, w))]
            x = ops.pad(x, (need[1] // 2, need[1] - need[1] // 2, need[0] // 2, need[0] - need[0] // 2))
        patches = []
        for i in range(self.k[0]):
            for j in range(self.k[1]):
                r0, c0 = i * self.r[0], j * self.r[1]
                patches.append(x[:, :, r0:r0 + (out[0] - 1) * self.s[0] + 1:self.s[0],
                                 c0:c0 + (out[1] - 1) * self.s[1] + 1:self.s[1]])
        return ops.reshape(ops.stack(patches, 1), (n, self.k[0] * self.k[1] * c, out[0], out[1]))


def _adaptive_axis(x, axis, size, reduce):
    length = x.shape[axis]
    if size is None or size == length:
        return x
    parts = []
    for i in range(size):
        start, end = (i * length) // size, -((-(i + 1) * length) // size)
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, end)
        parts.append(reduce(x[tuple(index)], axis))
    return ops.stack(parts, axis)


class _AdaptivePool3d(Cell):
    _what = ""

    def __init__(self, output_size):
        super().__init__()
        size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
        if len(size) != 3 or not all(s is None or (isinstance(s, int) and s > 0) for s in size):
            raise ValueError(f"For '{self._what}', the 'output_size' must be a positive int or a tuple of 3 "
                             f"positive ints or None, but got {output_size}.")
        self.output_size = tuple(size)

    def _pool(self, x, reduce):
        if x.ndim not in (4, 5):
            raise ValueError(f"For '{self._what}', the input must be 4-D or 5-D, but got {x.ndim}-D.")
        for k, size in enumerate(self.output_size):
            x = _adaptive_axis(x, x.ndim - 3 + k, size, reduce)
        return x


class AdaptiveAvgPool3d(_AdaptivePool3d):
    """Average pooling of a (N, C, D, H, W) or (C, D, H, W) input to `output_size` (None keeps an
    axis): output cell i of an axis of length L averages [floor(i L / o), ceil((i + 1) L / o))."""

    _what = "AdaptiveAvgPool3d"

    def construct(self, x):
        return self._pool(x, lambda part, axis: ops.reduce_mean(part, axis))


class AdaptiveMaxPool3d(_AdaptivePool3d):
    """Max pooling over the same windows as AdaptiveAvgPool3d (the values; `return_indices`
    is not supported)."""

    _what = "AdaptiveMaxPool3d"

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        if return_indices:
            raise ValueError("For 'AdaptiveMaxPool3d', 'return_indices=True' is not supported by pycompile; use "
                             "return_indices=False.")
        self.return_indices = return_indices

    def construct(self, x):
        return self._pool(x, lambda part, axis: ops.reduce_max(part, axis))


# ---- mint-style Cells -------------------------------------------------------------------------------
class LayerNormExt(Cell):
    """mint.nn.LayerNorm: normalize over the trailing `normalized_shape` axes, then `weight` (ones)
    and `bias` (zeros) when elementwise_affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        dt = dtype or mstype.float32
        self.weight = Parameter(Tensor(np.ones(shape), dt), name="weight") if elementwise_affine else None
        self.bias = Parameter(Tensor(np.zeros(shape), dt), name="bias") if elementwise_affine and bias else None

    def construct(self, x):
        axes = tuple(range(x.ndim - len(self.normalized_shape), x.ndim))
        mean = ops.mean(x, axes, True)
        var = ops.mean(ops.square(x - mean), axes, True)
        y = (x - mean) / ops.sqrt(var + self.eps)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y


class EmbeddingExt(Cell):
    """mint.nn.Embedding: rows of `weight` (num_embeddings, embedding_dim), drawn from N(0, 1)
    unless `_weight` is given; the `padding_idx` row starts at zero. `max_norm` renormalizes the
    looked-up rows to at most that `norm_type` norm."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        dt = dtype or mstype.float32
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'EmbeddingExt', 'padding_idx' must be within [{-num_embeddings}, "
                                 f"{num_embeddings}), but got {padding_idx}.")
            padding_idx %= num_embeddings
        if _weight is None:
            data = np.random.standard_normal((num_embeddings, embedding_dim))
            if padding_idx is not None:
                data[padding_idx] = 0
            weight = Tensor(data, dt)
        else:
            weight = _weight if isinstance(_weight, Tensor) else Tensor(_weight, dt)
        self.weight = Parameter(weight, name="weight", requires_grad=not _freeze)
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type

    def construct(self, input):
        rows = ops.gather(self.weight, input, 0)
        if self.max_norm is not None:
            norm = ops.pow(ops.sum(ops.pow(ops.abs(rows), self.norm_type), -1, True),
                           1.0 / self.norm_type)
            rows = rows * ops.minimum(ops.ones_like(norm), self.max_norm / (norm + 1e-7))
        return rows


class PReLUExt(Cell):
    """mint.nn.PReLU: max(0, x) + weight * min(0, x), `weight` of `num_parameters` values (one per
    channel, axis 1) initialized to `init`."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(Tensor(np.full((num_parameters,), init), dtype or mstype.float32), name="weight")

    def construct(self, x):
        w = self.weight
        if x.ndim >= 2 and self.num_parameters > 1:
            w = ops.reshape(w, (self.num_parameters,) + (1,) * (x.ndim - 2))
        return ops.maximum(x, 0.0) + w * ops.minimum(x, 0.0)


__all__ = ["MultiFieldEmbeddingLookup", "FractionalMaxPool2d", "FractionalMaxPool3d", "VirtualDatasetCellTriple", "PipelineGradReducer", "DenseBnAct", "MicroBatchInterleaved", "PipelineCell", "GradAccumulationCell", "Unfold",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LayerNormExt", "EmbeddingExt", "PReLUExt"]


class _FractionalMaxPool(Cell):
    """Fractional max pooling (Graham): output cell i of an axis of length L (window k, o outputs)
    starts at int((i + u) a) - int(u a), a = (L - k) / (o - 1), the last at L - k, for one uniform
    sample u per (batch, channel, axis) (`_random_samples` (N, C, dims): (W, H) in 2-D, (D, H, W)
    in 3-D, as MindSpore reads them; drawn when not given). Indices are flat positions in the spatial dims."""

    _dims = 2
    _what = ""
    _samples_reversed = True

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        d = self._dims
        self.kernel_size = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * d
        if output_size is None and output_ratio is None:
            raise ValueError(f"For '{self._what}', 'output_size' and 'output_ratio' can not be None at the same "
                             f"time.")
        self.output_size = None if output_size is None else (
            tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * d)
        self.output_ratio = None if output_ratio is None else (
            tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * d)
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"For '{self._what}', 'output_ratio' must be in (0, 1), but got {output_ratio}.")
        self.return_indices, self._random_samples = return_indices, _random_samples

    def _starts(self, u, length, k, out):
        """(N, C, out) int32 window starts along one axis for samples u (N, C)."""
        if out == 1:
            return ops.zeros(u.shape + (1,), mstype.int32)
        alpha = (length - k) / (out - 1)
        i = Tensor(np.arange(out - 1, dtype=np.float64))
        u64 = ops.expand_dims(ops.cast(u, mstype.float64), -1)
        first = ops.floor((i + u64) * alpha) - ops.floor(u64 * alpha)
        last = ops.fill(mstype.float64, u.shape + (1,), float(length - k))
        return ops.cast(ops.concat([first, last], -1), mstype.int32)

    def construct(self, x):
        d = self._dims
        unbatched = x.ndim == d + 1
        if unbatched:
            x = ops.expand_dims(x, 0)
        n, c = x.shape[:2]
        spatial = x.shape[2:]
        out = self.output_size or tuple(int(s * r) for s, r in zip(spatial, self.output_ratio))
        for s, k, o in zip(spatial, self.kernel_size, out):
            if o + k - 1 > s:
                raise ValueError(f"For '{self._what}', the output size {out} with kernel {self.kernel_size} does not "
                                 f"fit the input's spatial size {tuple(spatial)}.")
        samples = self._random_samples if self._random_samples is not None else ops.rand((n, c, d))
        # the samples' last axis runs (W, H) in 2-D but (D, H, W) in 3-D, as MindSpore's kernels read it
        order = [d - 1 - a for a in range(d)] if self._samples_reversed else list(range(d))
        starts = [self._starts(samples[:, :, order[a]], spatial[a], self.kernel_size[a], out[a]) for a in range(d)]
        values, flats = [], []
        for offset in np.ndindex(*self.kernel_size):
            v = x
            flat = None
            for a in range(d):
                idx = starts[a] + int(offset[a])                       # (N, C, out_a)
                shape = [n, c] + [1] * d
                shape[2 + a] = out[a]
                full = [n, c] + [out[b] if b <= a else v.shape[2 + b] for b in range(d)]
                index = ops.broadcast_to(ops.reshape(idx, tuple(shape)), tuple(full))
                v = ops.gather_elements(v, 2 + a, index)
                stride = int(np.prod(spatial[a + 1:]))
                term = ops.cast(ops.reshape(idx, tuple(shape)), mstype.int64) * stride
                flat = term if flat is None else flat + term
            values.append(v)
            flats.append(ops.broadcast_to(flat, v.shape))
        stacked = ops.stack(values, 0)
        result = ops.max(stacked, 0)[0]
        if self.return_indices:
            which = ops.expand_dims(ops.argmax(stacked, 0), 0)
            indices = ops.squeeze(ops.gather_elements(ops.stack(flats, 0), 0, which), 0)
            return (ops.squeeze(result, 0), ops.squeeze(indices, 0)) if unbatched else (result, indices)
        return ops.squeeze(result, 0) if unbatched else result


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, H, W) or (C, H, W); see _FractionalMaxPool."""

    _dims = 2
    _what = "FractionalMaxPool2d"


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, D, H, W) or (C, D, H, W); see _FractionalMaxPool."""

    _dims = 3
    _what = "FractionalMaxPool3d"
    _samples_reversed = False


class MultiFieldEmbeddingLookup(Cell):
    """Embeddings of `input_indices` (B, L) weighted by `input_values` (B, L) and merged per field
    (`field_ids` (B, L) in [0, field_size)) into (B, field_size, embedding_size): 'SUM', 'MEAN'
    (the sum over the sum of |values|, 0 for an empty field) or 'MAX' (zero-valued entries left out,
    an empty field 0). Out-of-range ids give zero rows on the CPU target, as nn.EmbeddingLookup."""

    _OPERATORS = ("SUM", "MAX", "MEAN")

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):
        super().__init__()
        from pycompile.nn.embedding import EmbeddingLookup
        if operator not in self._OPERATORS:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' must be one of {list(self._OPERATORS)},"
                             f" but got {operator}.")
        if isinstance(field_size, bool) or not isinstance(field_size, int) or field_size <= 0:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'field_size' must be a positive int, "
                             f"but got {field_size}.")
        lookup = EmbeddingLookup(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list,
                                 max_norm, sparse, dtype=dtype)          # its checks and its initialized table
        self.embedding_table = Parameter(lookup.embedding_table.asnumpy(), name="embedding_table")
        self.vocab_size, self.max_norm = vocab_size, max_norm
        self.field_size, self.embedding_size, self.operator = field_size, embedding_size, operator

    def construct(self, input_indices, input_values, field_ids):
        for name, x in (("input_indices", input_indices), ("input_values", input_values), ("field_ids", field_ids)):
            if x.ndim != 2:
                raise ValueError(f"For 'MultiFieldEmbeddingLookup', the dimension of '{name}' must be 2, "
                                 f"but got {x.ndim}.")
        valid = ops.logical_and(input_indices >= 0, input_indices < self.vocab_size)
        rows = ops.gather(self.embedding_table, ops.select(valid, input_indices, ops.zeros_like(input_indices)), 0)
        rows = rows * ops.cast(ops.expand_dims(valid, -1), rows.dtype)           # (B, L, E)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.sum(rows * rows, -1, keepdim=True))
            rows = rows * (self.max_norm / ops.maximum(norm, self.max_norm))
        weights = ops.expand_dims(input_values, -1)
        emb = rows * weights
        member = ops.one_hot(ops.cast(field_ids, mstype.int32), self.field_size,
                             Tensor(1.0, emb.dtype), Tensor(0.0, emb.dtype))       # (B, L, F)
        per_field = ops.transpose(member, (0, 2, 1))                              # (B, F, L)
        if self.operator == "MAX":
            emb = emb + ops.cast(weights == 0, emb.dtype) * -3.402823466e38
            inside = ops.expand_dims(per_field, -1) > 0                           # (B, F, L, 1)
            lowest = ops.fill(emb.dtype, (1,), -3.402823466e38)
            merged = ops.max(ops.select(ops.broadcast_to(inside, inside.shape[:3] + (self.embedding_size,)),
                                        ops.broadcast_to(ops.expand_dims(emb, 1), inside.shape[:3] +
                                                         (self.embedding_size,)), lowest), 2)[0]
            count = ops.matmul(per_field, ops.expand_dims(ops.abs(input_values), -1))
            return merged * ops.cast(count != 0, emb.dtype)
        merged = ops.matmul(per_field, emb)                                       # (B, F, E)
        if self.operator == "MEAN":
            count = ops.matmul(per_field, ops.expand_dims(ops.abs(input_values), -1))
            merged = ops.select(ops.broadcast_to(count == 0, merged.shape), ops.zeros_like(merged),
                                merged / ops.select(count == 0, ops.ones_like(count), count))
        return merged
