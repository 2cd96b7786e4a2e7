"""CTC and sequence Primitives of MindSpore 2.10's `F.operations`: CTCLoss, CTCLossV2 (and
`F.ctc_loss`), CTCGreedyDecoder (and `F.ctc_greedy_decoder`), UniqueWithPad (and
`F.unique_with_pad`), NoRepeatNGram.

The CTC losses are decompositions: the forward (alpha) recursion in log space over the extended
label sequence (blank, l1, blank, l2, ..., blank), one step per frame, so the gradient is
autodiff's through the recursion and PyNative, graph mode and vmap share one definition.
CTCLoss (TensorFlow's) takes unnormalized logits (log-softmax is applied), sparse labels
(indices, values) and blank = num_classes - 1, and also returns d loss / d logits; CTCLossV2
(PyTorch's) takes log-probabilities, padded targets and a `blank`, and also returns the alphas.
UniqueWithPad and NoRepeatNGram are decompositions of comparisons over static shapes.
CTCGreedyDecoder's outputs have a data-dependent length: in graph code they are values of
run-time length (ops/dynamic_length.py).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor
from pycompile.ops import function_array as FA
from pycompile.ops import function_index as FI
from pycompile.ops import function_math as FM
from pycompile.ops import functional as F
from pycompile.ops.autodiff import api as AD
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.primitive import Primitive

_FLT_MAX = 3.4028235e+38


def _lse(*terms):
    """log(sum(exp(terms))), -inf where every term is -inf (with finite gradients there)."""
    m = terms[0]
    for t in terms[1:]:
        m = F.maximum(m, t)
    dead = F.logical_and(FM.isinf(m), m < 0)
    m_safe = F.select(dead, F.zeros_like(m), m)
    total = 0.0
    for t in terms:
        total = total + F.exp(t - m_safe)
    empty = total <= 0
    return F.select(empty, F.fill(m.dtype, m.shape, float("-inf")),
                      F.log(F.select(empty, F.ones_like(total), total)) + m_safe)


def ctc_alphas(log_probs, targets, input_lengths, target_lengths, blank: int):
    """(per-batch negative log-likelihood (N,), the alphas (N, T, 2S + 1)) of log_probs (T, N, C)
    and padded int targets (N, S). Frames past input_lengths[n] leave alpha as it was at the
    last real frame."""
    t_max, n, _ = log_probs.shape
    s_max = targets.shape[1]
    width = 2 * s_max + 1
    dt = log_probs.dtype
    targets = F.cast(targets, mstype.int32)
    blanks = F.fill(mstype.int32, (n, s_max + 1), blank)
    ext = F.reshape(F.stack([blanks[:, :s_max], targets], 2), (n, 2 * s_max))
    ext = F.concat([ext, blanks[:, :1]], 1)
    prev2 = F.concat([F.fill(mstype.int32, (n, 2), -1), ext[:, :width - 2]], 1)
    skip = F.logical_and(ext != blank, ext != prev2)
    neg_inf = F.fill(dt, (n, width), float("-inf"))
    pad1, pad2 = F.fill(dt, (n, 1), float("-inf")), F.fill(dt, (n, 2), float("-inf"))
    lengths = F.cast(input_lengths, mstype.int32)
    start = F.broadcast_to(F.cast(FA.arange(width) < 2, mstype.bool_), (n, width))
    alpha = F.select(start, FI.gather_elements(log_probs[0], 1, ext), neg_inf)
    history, final = [alpha], alpha
    for t in range(1, t_max):
        a1 = F.concat([pad1, alpha[:, :width - 1]], 1)
        a2 = F.select(skip, F.concat([pad2, alpha[:, :width - 2]], 1), neg_inf)
        stepped = _lse(alpha, a1, a2) + FI.gather_elements(log_probs[t], 1, ext)
        live = F.broadcast_to(F.expand_dims(lengths > t, 1), (n, width))
        alpha = F.select(live, stepped, alpha)
        history.append(F.select(live, stepped, neg_inf))
        final = alpha
    tl = F.cast(target_lengths, mstype.int32)
    end_blank = FI.gather_elements(final, 1, F.expand_dims(2 * tl, 1))
    end_label = F.select(F.expand_dims(tl > 0, 1),
                           FI.gather_elements(final, 1, F.expand_dims(F.maximum(2 * tl - 1, F.zeros_like(tl)), 1)),
                           pad1)
    nll = -F.reshape(_lse(end_blank, end_label), (n,))
    # the alphas of the padding past each target (2 * target_length + 1 places) are -inf
    inside = F.expand_dims(F.expand_dims(FA.arange(width, dtype=mstype.int32), 0) < F.expand_dims(2 * tl + 1, 1), 1)
    alphas = F.stack(history, 1)
    return nll, F.select(F.broadcast_to(inside, alphas.shape), alphas, F.fill(dt, alphas.shape, float("-inf")))


# ---- CTCLossV2 / F.ctc_loss ----------------------------------------------------------------------
def _check_int_tensor(name, what, v):
    t = getattr(v, "_abstract", None)
    if t is None and isinstance(v, (tuple, list)):
        kinds = {type(e) for e in v}
        got = "Float32" if float in kinds else "Int64" if kinds <= {int} else "a tuple"
        if got != "Int64":
            raise OpTypeError(f"For primitive[{name}], the input argument[{what}] must be a type of "
                              f"{{Int32, Int64}}, but got {got}.")
        return Tensor(np.asarray(v, np.int64))
    if t is None or t.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For primitive[{name}], the input argument[{what}] must be a type of {{Int32, Int64}}, "
                          f"but got {getattr(t, 'dtype', type(v).__name__)}.")
    return v


class CTCLossV2(Primitive):
    """(neg_log_likelihood (N,), log_alpha (N, T, 2S + 1)) of log_probs (T, N, C), padded targets
    (N, S) and the lengths. The Primitive takes reduction 'none' only, as MindSpore's; F.ctc_loss
    reduces."""

    def __init__(self, blank=0, reduction="none", zero_infinity=False):
        super().__init__()
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise OpValueError(f"For 'CTCLossV2', 'blank' must be a non-negative int, but got {blank!r}.")
        if reduction != "none":
            raise OpValueError(f"For 'CTCLossV2', the 'reduction' must be str and must be in '['none']', "
                               f"but got '{reduction}'.")
        if not isinstance(zero_infinity, bool):
            raise OpTypeError(f"For 'CTCLossV2', 'zero_infinity' must be bool, but got {type(zero_infinity).__name__}.")
        self.blank, self.zero_infinity = blank, zero_infinity
        self.add_prim_attrs(blank=blank, reduction=reduction, zero_infinity=zero_infinity)

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        t = F._tensor_type("CTCLossV2", log_probs, "log_probs")
        if t.dtype not in (mstype.float32, mstype.float64) or t.ndim != 3:
            raise OpTypeError(f"For 'CTCLossV2', 'log_probs' must be a 3-D float32 or float64 tensor, "
                              f"but got {t.dtype} of rank {t.ndim}.")
        targets = _check_int_tensor("CTCLossV2", "targets", targets)
        input_lengths = _check_int_tensor("CTCLossV2", "input_lengths", input_lengths)
        target_lengths = _check_int_tensor("CTCLossV2", "target_lengths", target_lengths)
        if self.blank >= t.shape[2]:
            raise OpValueError(f"For 'CTCLossV2', 'blank' must be less than the number of classes {t.shape[2]}, "
                               f"but got {self.blank}.")
        # zero_infinity: MindSpore 2.10's CPU kernel returns an impossible alignment's loss as inf
        # whatever it says (recorded in tests/conformance/cases_rand33.py); so does this
        return ctc_alphas(log_probs, targets, input_lengths, target_lengths, self.blank)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """(loss, log_alpha) of CTCLossV2(blank, 'none', zero_infinity), reduced: 'sum', or 'mean' (each
    loss over its target length, at least 1, in float32, then averaged), or 'none'."""
    if reduction not in ("none", "mean", "sum"):
        raise OpValueError(f"For 'ctc_loss', 'reduction' must be 'none', 'mean' or 'sum', but got {reduction!r}.")
    loss, alphas = CTCLossV2(blank, "none", zero_infinity)(log_probs, targets, input_lengths, target_lengths)
    if reduction == "sum":
        loss = F.sum(loss)
    elif reduction == "mean":
        tl = F.cast(_check_int_tensor("CTCLossV2", "target_lengths", target_lengths), mstype.float32)
        per = F.cast(loss, mstype.float32) / F.maximum(tl, F.ones_like(tl))
        loss = F.cast(F.mean(per), loss.dtype)
    return loss, alphas


# ---- CTCLoss (TensorFlow's) -----------------------------------------------------------------------
class CTCLoss(Primitive):
    """(loss (N,), gradient (T, N, C)) of logits x (T, N, C), sparse labels (labels_indices (K, 2)
    int64, labels_values (K,) int32) and sequence_length (N,); blank is C - 1. The gradient is
    d loss / d x. Only MindSpore's defaults for preprocess_collapse_repeated (False) and
    ctc_merge_repeated (True) are supported."""

    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        super().__init__()
        for what, v in (("preprocess_collapse_repeated", preprocess_collapse_repeated),
                        ("ctc_merge_repeated", ctc_merge_repeated),
                        ("ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)):
            if not isinstance(v, bool):
                raise OpTypeError(f"For 'CTCLoss', the '{what}' must be bool, but got {type(v).__name__}.")
        if preprocess_collapse_repeated or not ctc_merge_repeated:
            raise NotImplementedError("For 'CTCLoss', pycompile supports preprocess_collapse_repeated=False and "
                                      "ctc_merge_repeated=True (MindSpore's defaults) only.")
        self.ignore_longer = ignore_longer_outputs_than_inputs
        self.add_prim_attrs(preprocess_collapse_repeated=preprocess_collapse_repeated,
                            ctc_merge_repeated=ctc_merge_repeated,
                            ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs)

    def _loss(self, x, targets, sequence_length, target_lengths):
        nll, _ = ctc_alphas(F.log_softmax(x, -1), targets, sequence_length, target_lengths, x.shape[2] - 1)
        if self.ignore_longer:
            too_long = F.cast(target_lengths, mstype.int32) > F.cast(sequence_length, mstype.int32)
            nll = F.select(too_long, F.zeros_like(nll), nll)
        return nll

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        t = F._tensor_type("CTCLoss", x, "x")
        if t.dtype not in (mstype.float16, mstype.float32, mstype.float64) or t.ndim != 3:
            raise OpTypeError(f"For 'CTCLoss', 'x' must be a 3-D float tensor, but got {t.dtype} of rank {t.ndim}.")
        it = F._tensor_type("CTCLoss", labels_indices, "labels_indices")
        if it.ndim != 2 or it.shape[1] != 2:
            raise OpValueError(f"For 'CTCLoss', 'labels_indices' must have shape (K, 2), but got {list(it.shape)}.")
        k, n = it.shape[0], t.shape[1]
        # the sparse labels as dense (N, K) targets (K bounds every sequence's length)
        rows = F.cast(labels_indices[:, 0], mstype.int32)
        cols = F.cast(labels_indices[:, 1], mstype.int32)
        hit = F.cast(F.expand_dims(rows, 1) == F.expand_dims(FA.arange(n, dtype=mstype.int32), 0), mstype.float64)
        at = F.cast(F.expand_dims(cols, 1) == F.expand_dims(FA.arange(k, dtype=mstype.int32), 0), mstype.float64)
        vals = F.cast(labels_values, mstype.float64)
        targets = F.cast(F.matmul(F.transpose(hit * F.expand_dims(vals, 1), (1, 0)), at), mstype.int32)
        target_lengths = F.cast(F.sum(hit, 0), mstype.int32)
        xf = F.cast(x, mstype.float32) if t.dtype is mstype.float16 else x
        loss = self._loss(xf, targets, sequence_length, target_lengths)
        grad = AD.grad(lambda v: F.sum(self._loss(v, targets, sequence_length, target_lengths)))(xf)
        return F.cast(loss, t.dtype), F.cast(grad, t.dtype)


# ---- CTCGreedyDecoder -----------------------------------------------------------------------------
class CTCGreedyDecoder(Primitive):
    """Greedy CTC decoding of inputs (T, N, C) (blank C - 1): per batch, the best class of each
    of its first sequence_length[n] frames, repeats merged (merge_repeated), blanks dropped.
    Returns (decoded_indices (K, 2), decoded_values (K,), decoded_shape (2,), log_probability
    (N, 1)), K the number of decoded labels. One definition for both modes: the labels are
    scattered to their rank among the kept frames (batch-major) in buffers of N * T rows, with
    K counted; PyNative cuts the buffers to K, graph code returns them as values of run-time
    length (ops/dynamic_length.py)."""

    def __init__(self, merge_repeated=True):
        super().__init__()
        if not isinstance(merge_repeated, bool):
            raise OpTypeError(f"For 'CTCGreedyDecoder', the 'merge_repeated' must be bool, "
                              f"but got {type(merge_repeated).__name__}.")
        self.merge_repeated = merge_repeated
        self.add_prim_attr("merge_repeated", merge_repeated)

    def __call__(self, inputs, sequence_length):
        t = F._tensor_type("CTCGreedyDecoder", inputs, "inputs")
        lt = F._tensor_type("CTCGreedyDecoder", sequence_length, "sequence_length")
        if t.dtype not in (mstype.float32, mstype.float64) or t.ndim != 3:
            raise OpTypeError(f"For 'CTCGreedyDecoder', 'inputs' must be a 3-D float32 or float64 tensor, "
                              f"but got {t.dtype} of rank {t.ndim}.")
        if lt.dtype is not mstype.int32 or lt.shape != (t.shape[1],):
            raise OpTypeError(f"For 'CTCGreedyDecoder', 'sequence_length' must be an int32 tensor of shape "
                              f"({t.shape[1]},), but got {lt.dtype} {list(lt.shape)}.")
        t_max, n, classes = t.shape
        total = n * t_max
        lengths = F.depend(sequence_length, _check_lengths(sequence_length, t_max))
        best = F.transpose(F.cast(F.argmax(inputs, -1), mstype.int32), (1, 0))          # (N, T)
        best_val = F.transpose(F.amax(inputs, -1), (1, 0))
        valid = F.expand_dims(FA.arange(t_max, dtype=mstype.int32), 0) < F.expand_dims(lengths, 1)
        keep = F.logical_and(valid, best != classes - 1)
        if self.merge_repeated:
            prev = F.concat([F.fill(mstype.int32, (n, 1), -1), best[:, :t_max - 1]], 1)
            keep = F.logical_and(keep, best != prev)
        log_prob = -F.sum(F.select(valid, best_val, F.zeros_like(best_val)), 1, keepdim=True)
        flags = F.cast(keep, mstype.int32)
        pos = FM.cumsum(flags, 1) - flags                          # place within its batch
        flat = F.reshape(keep, (total,))
        rank = FM.cumsum(F.reshape(flags, (total,)), 0) - F.reshape(flags, (total,))
        where = F.reshape(F.select(flat, rank, F.fill(mstype.int32, (total,), total)), (total, 1))
        rows = F.broadcast_to(F.expand_dims(FA.arange(n, dtype=mstype.int64), 1), (n, t_max))
        pairs = F.reshape(F.stack([rows, F.cast(pos, mstype.int64)], 2), (total, 2))
        indices = FI.tensor_scatter_add(F.zeros((total + 1, 2), mstype.int64), where, pairs)[:total]
        values = FI.tensor_scatter_add(F.zeros((total + 1,), mstype.int64), where,
                                        F.cast(F.reshape(best, (total,)), mstype.int64))[:total]
        count = F.sum(flags, dtype=mstype.int32)
        shape = F.stack([F.fill(mstype.int64, (), n), F.cast(F.amax(F.sum(flags, 1)), mstype.int64)])
        if any(isinstance(v, Symbolic) for v in (inputs, sequence_length)):
            from pycompile.ops.dynamic_length import Bounded, BoundedTrace
            trace = BoundedTrace(count, total)
            return Bounded(indices, trace), Bounded(values, trace), shape, log_prob
        k = int(count.asnumpy())
        return indices[:k], values[:k], shape, log_prob


def _check_lengths(sequence_length, t_max):
    """RuntimeError when the program runs if a sequence is longer than the inputs' frames."""
    ok = F.all(sequence_length <= t_max)
    flag = F.select(ok, F.zeros((), mstype.float32), F.fill(mstype.float32, (), float("inf")))
    return apply(P.CheckFinite, [flag], {
        "message": f"For 'CTCGreedyDecoder', sequence_length should be less than {t_max}, the max_time of "
                   "'inputs' (a sequence_length is longer)"})


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """CTCGreedyDecoder(merge_repeated)(inputs, sequence_length)."""
    return CTCGreedyDecoder(merge_repeated)(inputs, sequence_length)


# ---- UniqueWithPad, NoRepeatNGram ------------------------------------------------------------------
class UniqueWithPad(Primitive):
    """(the distinct values of the 1-D x in first-seen order, padded with pad_num to x's length;
    each element's position in that list)."""

    def __call__(self, x, pad_num):
        t = F._tensor_type("UniqueWithPad", x, "x")
        if t.dtype not in (mstype.int32, mstype.int64, mstype.float32):
            raise OpTypeError(f"For 'UniqueWithPad', the type of 'x' should be one of [Int32, Int64, Float32], "
                              f"but got {t.dtype}.")
        if t.ndim != 1:
            raise OpValueError(f"For primitive[UniqueWithPad], the input_shape_size must be equal to 1, "
                               f"but got {t.ndim}.")
        n = t.shape[0]
        idx_dt = mstype.int32 if t.dtype is mstype.float32 else t.dtype
        if n == 0:
            return x, F.cast(x, idx_dt)
        eq = F.expand_dims(x, 1) == F.expand_dims(x, 0)                            # (n, n)
        ar = FA.arange(n, dtype=mstype.int32)
        before = F.expand_dims(ar, 0) < F.expand_dims(ar, 1)                      # j < i
        first = F.logical_not(F.any(F.logical_and(eq, before), 1))          # (n,)
        rank = FM.cumsum(F.cast(first, mstype.int32), 0) - 1
        first_pos = F.argmax(F.cast(eq, mstype.int32), 1)
        idx = F.gather(rank, first_pos, 0)
        place = F.logical_and(F.expand_dims(first, 0), F.expand_dims(rank, 0) == F.expand_dims(ar, 1))   # (k, i)
        filled = F.any(place, 1)
        picked = F.sum(F.cast(place, mstype.float64 if t.dtype is mstype.float32 else t.dtype)
                         * F.cast(F.expand_dims(x, 0), mstype.float64 if t.dtype is mstype.float32 else t.dtype), 1)
        pad = F.fill(t.dtype, (n,), pad_num)
        return F.select(filled, F.cast(picked, t.dtype), pad), F.cast(idx, idx_dt)


def unique_with_pad(x, pad_num):
    """UniqueWithPad()(x, pad_num)."""
    return UniqueWithPad()(x, pad_num)


class NoRepeatNGram(Primitive):
    """log_probs with -FLT_MAX at every token that would repeat an n-gram of state_seq: for each
    earlier window matching the last ngram_size - 1 tokens, the token that followed it."""

    def __init__(self, ngram_size=1):
        super().__init__()
        if isinstance(ngram_size, bool) or not isinstance(ngram_size, int) or ngram_size <= 0:
            raise OpValueError(f"For 'NoRepeatNGram', the 'ngram_size' must be a positive int, but got {ngram_size!r}.")
        self.ngram_size = ngram_size
        self.add_prim_attr("ngram_size", ngram_size)

    def __call__(self, state_seq, log_probs):
        st = F._tensor_type("NoRepeatNGram", state_seq, "state_seq")
        lt = F._tensor_type("NoRepeatNGram", log_probs, "log_probs")
        if st.dtype is not mstype.int32:
            raise OpTypeError(f"For 'NoRepeatNGram', the type of 'state_seq' should be Int32, but got {st.dtype}.")
        if lt.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise OpTypeError(f"For 'NoRepeatNGram', 'log_probs' must be a float tensor, but got {lt.dtype}.")
        if st.ndim < 1 or st.shape[:-1] != lt.shape[:-1]:
            raise OpValueError(f"For 'NoRepeatNGram', 'state_seq' {list(st.shape)} and 'log_probs' "
                               f"{list(lt.shape)} must agree in every dimension but the last.")
        seq_len, vocab, n = st.shape[-1], lt.shape[-1], self.ngram_size
        if n > seq_len:
            return F.tensor_move(log_probs)
        vocab_ids = FA.arange(vocab, dtype=mstype.int32)
        tail = state_seq[..., seq_len - n + 1:]
        banned = None
        for i in range(seq_len - n + 1):
            match = F.all(state_seq[..., i:i + n - 1] == tail, -1) if n > 1 else \
                F.ones(st.shape[:-1], mstype.bool_)
            hit = F.logical_and(F.expand_dims(match, -1), F.expand_dims(state_seq[..., i + n - 1], -1) == vocab_ids)
            banned = hit if banned is None else F.logical_or(banned, hit)
        return F.select(banned, F.fill(lt.dtype, lt.shape, -_FLT_MAX), log_probs)
