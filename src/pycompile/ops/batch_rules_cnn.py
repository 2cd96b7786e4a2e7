"""vmap's batch rules for the CNN family: convolutions, their two backprop ops, pooling and its
gradients, batch statistics. Each folds the vmap axis into an axis the op already loops over,
so vmap(conv2d) is one convolution whatever the batch size (the C does not grow with it):

* the input batched, the weights not: the vmap axis joins the images (B, N, ...) -> (B * N, ...);
* the weights batched: a grouped convolution, the vmap axis folded into the channels: each
  example's C input and K output channels are groups of their own (group -> B * group), the
  images (N, B * C, ...) and the weights (B * K, C / group, ...) - or, with one group and the
  input unbatched, just B * K output channels of one convolution;
* the filter gradient: the same grouping (per-example gradients of a convolution are one
  grouped backprop-filter), or the vmap axis in the filter's output / input channels;
* pooling and its gradients: the vmap axis joins the images;
* BatchNormStats: the vmap axis joins the channels (each example has its own statistics).
"""
from __future__ import annotations

from pycompile.ops import functional as F
from pycompile.ops._table import apply
from pycompile.ops.batch_util import fold, front, move_axis, shape_of, to_front, unfold


def channels_in(v):
    """(B, N, C, ...) as (N, B * C, ...): each example's channels a block of their own."""
    s = shape_of(v)
    return F.reshape(move_axis(v, 0, 1), (s[1], s[0] * s[2]) + s[3:])


def channels_out(v, size):
    """(N, B * C, ...) as (N, B, C, ...): the result of a convolution over channel blocks."""
    s = shape_of(v)
    return F.reshape(v, (s[0], size, s[1] // size) + s[2:])


def _group(attrs) -> int:
    return int(attrs.get("group") or 1)


def conv(op, args, attrs, size):
    (x, bx), (w, bw) = args
    if bw is None:
        return unfold(apply(op, [fold(to_front(x, bx)), w], attrs), size), 0
    wk = fold(to_front(w, bw))                                      # (B * K, C / g, k...)
    if bx is None and _group(attrs) == 1:
        return channels_out(apply(op, [x, wk], attrs), size), 1    # B * K output channels
    x = channels_in(front((x, bx), size))
    return channels_out(apply(op, [x, wk], dict(attrs, group=size * _group(attrs))), size), 1


def conv_input(op, args, attrs, size):
    """ConvBackpropInput (also a transposed convolution's forward)."""
    (dy, bd), (w, bw) = args
    n, c, *sp = attrs["input_size"]
    if bw is None:
        out = apply(op, [fold(front((dy, bd), size)), w], dict(attrs, input_size=(size * n, c, *sp)))
        return unfold(out, size), 0
    attrs = dict(attrs, group=size * _group(attrs), input_size=(n, size * c, *sp))
    return channels_out(apply(op, [channels_in(front((dy, bd), size)), fold(to_front(w, bw))], attrs), size), 1


def conv_filter(op, args, attrs, size):
    """ConvBackpropFilter: per-example filter gradients."""
    (dy, bd), (x, bx) = args
    k, cg, *ks = attrs["filter_size"]
    g = _group(attrs)
    if bx is None and g == 1:          # the vmap axis in the filter's output channels
        out = apply(op, [channels_in(to_front(dy, bd)), x], dict(attrs, filter_size=(size * k, cg, *ks)))
        return unfold(out, size), 0
    if bd is None and g == 1:          # ... in its input channels
        out = apply(op, [dy, channels_in(to_front(x, bx))], dict(attrs, filter_size=(k, size * cg, *ks)))
        return F.reshape(out, (k, size, cg, *ks)), 1
    attrs = dict(attrs, group=size * g, filter_size=(size * k, cg, *ks))
    out = apply(op, [channels_in(front((dy, bd), size)), channels_in(front((x, bx), size))], attrs)
    return unfold(out, size), 0


def pool(op, args, attrs, size):
    (x, b), = args
    return unfold(apply(op, [fold(to_front(x, b))], attrs), size), 0


def pool_grad(op, args, attrs, size):
    x, dy = (fold(front(a, size)) for a in args)
    return unfold(apply(op, [x, dy], attrs), size), 0


def batchnorm_stats(op, args, attrs, size):
    (x, b), = args
    out = apply(op, [channels_in(to_front(x, b))], attrs)          # (2, B * C)
    return F.reshape(out, (2, size, shape_of(out)[1] // size)), 1


RULES = {"conv": conv, "conv_input": conv_input, "conv_filter": conv_filter, "pool": pool,
         "pool_grad": pool_grad, "batchnorm_stats": batchnorm_stats}
