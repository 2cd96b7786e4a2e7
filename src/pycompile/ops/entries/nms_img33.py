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
        keys = F.concat((keys, _const(np.full(p - n, np.finfo(dt.np).max, dt.np))), 0)
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
