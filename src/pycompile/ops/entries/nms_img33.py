"""Non-maximum suppression Primitives of MindSpore's CPU suite (issue 33, img33), as decompositions.

NMSWithMask(iou_threshold)(bboxes): bboxes (N, 5) rows (x1, y1, x2, y2, score), float16 / float32.
MindSpore 2.10's CPU kernel, whose results are followed (recorded: tests/conformance/cases_img33.py):

* the rows are ordered by score, highest first, by a bitonic sorting network over the scores
  padded to a power of two with the dtype's largest value, sorted ascending and read backwards.
  The network is not stable, so equal scores come out in its order, not the input's; it is
  written here as the same network (each stage a static pairing of places, one select per
  stage), so ties come out as MindSpore's do;
* the second output is 0, 1, ..., N - 1 (the kernel returns the positions in the sorted rows,
  not the input rows' indices);
* row j is suppressed by a kept row i < j when intersection / (area_i + area_j - intersection)
  > iou_threshold, the areas (x2 - x1) * (y2 - y1) as given (negative for a flipped box) and
  the intersection's sides clipped at 0; 0 / 0 (two empty boxes) suppresses nothing.

The kernel walks the rows in order, each kept row clearing the ones it overlaps. Here the kept
set is the fixed point of `keep[j] = no kept i < j overlaps j`, iterated from "all kept": after
t rounds the first t rows are settled, so it stops after at most N rounds (in practice the length
of the longest chain of suppressions), and the fixed point is unique, so it is the kernel's.
In graph code the rounds are one While loop.
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

_F16_32 = frozenset({mstype.float16, mstype.float32})


def _const(v):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(v, order="C"))


def _bitonic_order(keys, n: int):
    """Indices (int32, n) ordering `keys` (n,) by MindSpore's bitonic network: ascending over the
    keys padded to a power of two with the dtype's largest value."""
    p = 1
    while p < n:
        p <<= 1
    dt = keys.dtype
    if p > n:
        keys = F.concat((keys, _const(np.full(p - n, mstype.finfo(dt.np).max, dt.np))), 0)
    idx = _const(np.arange(p, dtype=np.int32))
    place = np.arange(p)
    i = 2
    while i <= p:
        j = i >> 1
        while j > 0:
            partner = place ^ j
            lower = _const(place < partner)
            ascending = _const((place & i) == 0)
            kp = F.gather(keys, _const(partner.astype(np.int32)), 0)
            ip = F.gather(idx, _const(partner.astype(np.int32)), 0)
            bigger = F.select(lower, keys > kp, kp > keys)          # the lower place holds the larger key
            smaller = F.select(lower, keys < kp, kp < keys)
            swap = F.select(ascending, bigger, smaller)
            keys, idx = F.select(swap, kp, keys), F.select(swap, ip, idx)
            j >>= 1
        i <<= 1
    return F.getitem(idx, slice(0, n))


def _suppress(keep, overlaps, changed):
    """The fixed point of keep[j] = not any(keep[i] and overlaps[i, j]) (overlaps only for i < j)."""
    while changed:
        new = F.logical_not(F.any(F.logical_and(F.expand_dims(keep, 1), overlaps), 0))
        changed = F.any(F.not_equal(new, keep))
        keep = new
    return keep


def _check_iou(v, op_name):
    if not isinstance(v, float) or isinstance(v, bool):
        raise OpTypeError(f"For '{op_name}', the type of 'iou_threshold' should be float, but got "
                          f"{type(v).__name__}.")


@op_entry("nms_with_mask_img33", primitive="NMSWithMask", functional=False,
          args=[Arg("bboxes", dtypes=_F16_32),
                Arg("iou_threshold", "value", default=0.5, init=True, check=_check_iou)])
def nms_with_mask(bboxes, iou_threshold=0.5):
    """(the rows sorted by score, highest first; 0..N-1 as int32; which sorted rows are kept)."""
    op = "NMSWithMask"
    shape = tuple(bboxes.shape)
    if len(shape) != 2 or shape[1] != 5:
        raise OpValueError(f"For '{op}', the shape of 'bboxes' must be [N, 5], but got {list(shape)}.")
    n = shape[0]
    dt = bboxes.dtype
    if n == 0:
        return bboxes, F.zeros((0,), mstype.int32), F.zeros((0,), mstype.bool_)
    scores = F.reshape(F.getitem(bboxes, (slice(None), slice(4, 5))), (n,))
    order = F.gather(_bitonic_order(scores, n), _const(np.arange(n - 1, -1, -1, dtype=np.int32)), 0)
    boxes = F.gather(bboxes, order, 0)
    x1, y1, x2, y2 = (F.reshape(F.getitem(boxes, (slice(None), slice(k, k + 1))), (n,)) for k in range(4))

    # C++'s std::max(a, b) is (a < b) ? b : a and std::min(a, b) is (b < a) ? b : a
    def cmax(a, b):
        return F.select(a < b, b, a)

    def cmin(a, b):
        return F.select(b < a, b, a)

    def pair(v, fn):
        return fn(F.expand_dims(v, 1), F.expand_dims(v, 0))

    zero = _const(np.array(0, dt.np))
    width = cmax(pair(x2, cmin) - pair(x1, cmax), zero)
    height = cmax(pair(y2, cmin) - pair(y1, cmax), zero)
    inter = width * height
    area = (x2 - x1) * (y2 - y1)
    iou = inter / (pair(area, F.add) - inter)
    later = _const(np.triu(np.ones((n, n), bool), 1))
    overlaps = F.logical_and(iou > _const(np.array(np.float32(iou_threshold), dt.np)), later)
    keep = F.ones((n,), mstype.bool_)
    changed = _const(np.array(True))
    walked, out = tracing.walk_as_graph_code(_suppress, (keep, overlaps, changed))
    keep = out if walked else _suppress(keep, overlaps, changed)
    return boxes, _const(np.arange(n, dtype=np.int32)), keep


# ---- CombinedNonMaxSuppression ------------------------------------------------------------------------
def _suppress_from(keep, valid, overlaps, changed):
    """The fixed point of keep[j] = valid[j] and not any(keep[i] and overlaps[i, j])."""
    while changed:
        new = F.logical_and(valid, F.logical_not(F.any(F.logical_and(F.expand_dims(keep, -1), overlaps), -2)))
        changed = F.any(F.not_equal(new, keep))
        keep = new
    return keep


def _rank(scores, live):
    """Each live entry's place when the live entries are ordered by score, highest first, ties by
    position (the first first): the number of live entries before it. scores / live (..., M)."""
    m = tuple(scores.shape)[-1]
    pos = np.arange(m)
    earlier = _const(pos[None, :] < pos[:, None])                        # [i, j]: j before i
    si, sj = F.expand_dims(scores, -1), F.expand_dims(scores, -2)
    before = F.logical_or(sj > si, F.logical_and(F.equal(sj, si), earlier))
    before = F.logical_and(before, F.expand_dims(live, -2))
    return F.sum(F.cast(before, mstype.int32), -1)


def _order(rank, live, n_out: int):
    """(index of the entry at each of the first n_out places, whether a live entry is there)."""
    m = tuple(rank.shape)[-1]
    places = _const(np.arange(n_out, dtype=np.int32).reshape(n_out, 1))
    at = F.logical_and(F.equal(F.expand_dims(rank, -2), places), F.expand_dims(live, -2))     # (..., n_out, m)
    index = F.sum(F.cast(at, mstype.int32) * _const(np.arange(m, dtype=np.int32)), -1)
    return index, F.any(at, -1)


def _c_clip01(v):
    """std::max(std::min(v, 1), 0) (a NaN stays NaN)."""
    one, zero = _const(np.float32(1)), _const(np.float32(0))
    v = F.select(one < v, F.broadcast_to(one, v.shape), v)
    return F.select(v < zero, F.broadcast_to(zero, v.shape), v)


def _scalar_int(t, what, op):
    from pycompile.ops.entries.image_img33 import shape_values
    v = shape_values(t, what, op).reshape(-1)
    if v.size != 1:
        raise OpValueError(f"For '{op}', the '{what}' must be a 0-D tensor, but got {v.size} values.")
    return int(v[0])


@op_entry("combined_non_max_suppression_img33", primitive="CombinedNonMaxSuppression", functional=False,
          args=[Arg("boxes", dtypes=frozenset({mstype.float32})), Arg("scores", dtypes=frozenset({mstype.float32})),
                Arg("max_output_size_per_class", dtypes=frozenset({mstype.int32})),
                Arg("max_total_size", dtypes=frozenset({mstype.int32})),
                Arg("iou_threshold", dtypes=frozenset({mstype.float32})),
                Arg("score_threshold", dtypes=frozenset({mstype.float32})),
                Arg("pad_per_class", "value", default=False, init=True),
                Arg("clip_boxes", "value", default=True, init=True)])
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                                 score_threshold, pad_per_class=False, clip_boxes=True):
    """TensorFlow's combined NMS, as MindSpore 2.10's CPU kernel runs it: per image and class, the
    boxes scoring above score_threshold taken greedily by score (ties: the first box first),
    skipping any whose IoU with a taken one exceeds iou_threshold, at most
    max_output_size_per_class; then every class's picks ordered by score (ties: class, then pick
    order; MindSpore's std::sort keeps that order up to 16 picks) and the first max_total_size
    kept. Returns (boxes (B, D, 4), scores (B, D), classes (B, D) as float32, counts (B,) int32),
    D = max_total_size (with pad_per_class: at most max_output_size_per_class * classes), zeros
    past each image's count, the boxes clipped to [0, 1] with clip_boxes."""
    op = "CombinedNonMaxSuppression"
    bs, ss = tuple(boxes.shape), tuple(scores.shape)
    if len(bs) != 4 or len(ss) != 3 or bs[3] != 4 or bs[:2] != ss[:2] or bs[2] not in (1, ss[2]):
        raise OpValueError(f"For '{op}', 'boxes' must be (batch, boxes, 1 or classes, 4) and 'scores' "
                           f"(batch, boxes, classes), but got {list(bs)} and {list(ss)}.")
    for name, t in (("iou_threshold", iou_threshold), ("score_threshold", score_threshold)):
        if t.ndim != 0:
            raise OpValueError(f"For '{op}', the '{name}' must be a 0-D tensor, but got {t.ndim}-D.")
    per_class = _scalar_int(max_output_size_per_class, "max_output_size_per_class", op)
    total = _scalar_int(max_total_size, "max_total_size", op)
    if per_class <= 0 or total <= 0:
        raise OpValueError(f"For '{op}', 'max_output_size_per_class' and 'max_total_size' must be positive, but "
                           f"got {per_class} and {total}.")
    b, n, _, _ = bs
    c = ss[2]
    n_det = min(total, per_class * c) if pad_per_class else total
    sc = F.transpose(scores, (0, 2, 1))                                           # (B, C, N)
    bx = F.transpose(F.broadcast_to(boxes, (b, n, c, 4)), (0, 2, 1, 3))           # (B, C, N, 4)
    valid = sc > score_threshold
    order, live = _order(_rank(sc, valid), valid, n)
    sc = F.gather_elements(sc, 2, order)
    bx = F.gather_elements(bx, 2, F.broadcast_to(F.expand_dims(order, 3), (b, c, n, 4)))
    coord = [F.getitem(bx, (Ellipsis, k)) for k in range(4)]
    lo = [F.select(coord[k] > coord[k + 2], coord[k + 2], coord[k]) for k in (0, 1)]
    hi = [F.select(coord[k] > coord[k + 2], coord[k], coord[k + 2]) for k in (0, 1)]
    area = (hi[0] - lo[0]) * (hi[1] - lo[1])

    def pair(v, pick):          # (B, C, N, N): pick(v_i, v_j)
        a, z = F.expand_dims(v, 3), F.expand_dims(v, 2)
        return pick(a, z)

    side = [pair(hi[k], lambda a, z: F.select(a < z, a, z)) - pair(lo[k], lambda a, z: F.select(a > z, a, z))
            for k in (0, 1)]
    side = [F.select(s > 0.0, s, F.zeros_like(s)) for s in side]
    inter = side[0] * side[1]
    iou = inter / (pair(area, F.add) - inter)
    empty = F.logical_or(pair(area, lambda a, z: a <= 0.0), pair(area, lambda a, z: z <= 0.0))
    iou = F.select(empty, F.zeros_like(iou), iou)
    later = _const(np.triu(np.ones((n, n), bool), 1))
    overlaps = F.logical_and(iou > iou_threshold, later)
    changed = _const(np.array(True))
    walked, keep = tracing.walk_as_graph_code(_suppress_from, (live, live, overlaps, changed))
    if not walked:
        keep = _suppress_from(live, live, overlaps, changed)
    taken = F.cumsum(F.cast(keep, mstype.int32), 2)
    picked = F.logical_and(keep, taken <= per_class)                             # (B, C, N)
    m = c * n
    picked, sc = F.reshape(picked, (b, m)), F.reshape(sc, (b, m))
    at, present = _order(_rank(sc, picked), picked, n_det)                         # (B, D)
    classes = _const(np.repeat(np.arange(c, dtype=np.float32), n))
    zero = F.zeros((b, n_det), mstype.float32)
    out_scores = F.select(present, F.gather_elements(sc, 1, at), zero)
    out_classes = F.select(present, F.gather(classes, at, 0), zero)
    out_boxes = F.gather_elements(F.reshape(bx, (b, m, 4)), 1, F.broadcast_to(F.expand_dims(at, 2), (b, n_det, 4)))
    if clip_boxes:
        out_boxes = _c_clip01(out_boxes)
    out_boxes = F.select(F.broadcast_to(F.expand_dims(present, 2), (b, n_det, 4)), out_boxes,
                         F.zeros((b, n_det, 4), mstype.float32))
    count = F.cast(F.sum(F.cast(present, mstype.int32), 1), mstype.int32)
    return out_boxes, out_scores, out_classes, count
