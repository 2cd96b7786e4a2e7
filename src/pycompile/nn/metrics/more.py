"""Perplexity, Dice, CosineSimilarity, ROC, auc and BleuScore, with MindSpore 2.10's arguments,
accumulation rules, return types and errors (recorded from the wheel in
tests/conformance/cases_metrics.py). Plain NumPy on the host, as every metric here."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from pycompile.nn.metrics.metric import Metric, rearrange_inputs


def _need_update(flag):
    if not flag:
        raise RuntimeError("Please call the 'update' method before calling 'eval' method.")


def _check(value, name, types, cls=None):
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        where = f" of '{cls}'" if cls else ""
        raise TypeError(f"The argument '{name}'{where} must be {' or '.join(t.__name__ for t in types)}, "
                        f"but got {type(value).__name__}.")
    return value


class Perplexity(Metric):
    """exp(mean negative log-probability of the labelled class); preds (N, C) probabilities,
    labels (N,) or any shape with N elements. Labels equal to `ignore_label` are left out."""

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = None if ignore_label is None else _check(ignore_label, "ignore_label", (int,))
        self.clear()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'Perplexity.update', it needs 2 inputs (predicted value, label), but got "
                             f"{len(inputs)}.")
        pred = self._convert_data(inputs[0])
        label = self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"For 'Perplexity.update', predicted value (input[0]) and label (input[1]) should have "
                               f"the same shape, but got predicted value shape {pred.shape}, label shape {label.shape}.")
        label = label.reshape(-1)
        picked = np.squeeze(pred[np.arange(label.size)[:, None], label.astype(int)[:, None]])
        count = picked.size
        if self.ignore_label is not None:
            ignored = (label == self.ignore_label).astype(picked.dtype)
            count -= np.sum(ignored)
            picked = picked * (1 - ignored) + ignored          # log(1) = 0 for the ignored ones
        self._sum_metric -= np.sum(np.log(np.maximum(1e-10, picked)))
        self._num_inst += count

    def eval(self):
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of samples is 0, please "
                               "check whether the update method has been called before calling eval method.")
        return math.exp(self._sum_metric / self._num_inst)


class Dice(Metric):
    """2 <pred, y> / (|pred|² + |y|² + smooth) per update, summed, divided by the number of samples
    (rows) seen: MindSpore's accumulation."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, float):
            raise TypeError(f"The 'smooth' must be float, but got '{type(smooth).__name__}'")
        if smooth <= 0:
            raise ValueError(f"The 'smooth' must be a positive float, but got {smooth}.")
        self.smooth = smooth
        self.clear()

    def clear(self):
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'Dice.update', it needs 2 inputs (predicted value, true value), but got "
                             f"{len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError("For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have same "
                             f"shape, but got predicted value shape: {y_pred.shape}, true value shape: {y.shape}.")
        p, t = y_pred.reshape(-1), y.reshape(-1)
        # np.dot, not `@`: the same summation order as MindSpore, so the same last bit
        both = float(np.dot(p, t))
        self._dice_coeff_sum += 2 * both / float(np.dot(p, p) + np.dot(t, t) + self.smooth)

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number of samples is 0, "
                               "please check whether your inputs(predicted value, true value) are empty, or has "
                               "called update method before calling eval method.")
        return self._dice_coeff_sum / float(self._samples_num)


class CosineSimilarity(Metric):
    """The (N, N) similarity matrix of the rows of the last update ('cosine' or 'dot'), its diagonal
    zeroed if `zero_diagonal`, reduced over the last axis by 'sum' / 'mean' or kept ('none')."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        for value, name, allowed in ((similarity, "similarity", ("dot", "cosine")),
                                     (reduction, "reduction", ("none", "sum", "mean"))):
            _check(value, name, (str,))
            if value not in allowed:
                raise ValueError(f"The '{name}' must be str and must be in '{list(allowed)}', but got '{value}'.")
        self.similarity, self.reduction = similarity, reduction
        self.zero_diagonal = _check(zero_diagonal, "zero_diagonal", (bool,))
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        x = self._convert_data(inputs)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = np.dot(x, x.T)
        self._is_update = True

    def eval(self):
        _need_update(self._is_update)
        if self.zero_diagonal:
            np.fill_diagonal(self.sqr_mtx_res, 0)
        if self.reduction == "mean":
            self.sqr_mtx_res = np.mean(self.sqr_mtx_res, axis=-1)
        elif self.reduction == "sum":
            self.sqr_mtx_res = np.sum(self.sqr_mtx_res, axis=-1)
        return self.sqr_mtx_res


def _binary_curve(scores, target, pos_label):
    """(false positives, true positives, thresholds) at each distinct score, highest first."""
    order = np.argsort(-scores)
    scores, target = scores[order], target[order]
    last = np.append(np.nonzero(scores[1:] - scores[:-1])[0], target.shape[0] - 1)
    positive = (target == pos_label).astype(np.int64)
    tps = np.cumsum(positive)[last]
    return 1 + last - tps, tps, scores[last]


def _curve_inputs(y_pred, y, class_num, pos_label):
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError("For 'ROC', when predicted value (input[0]) and true value (input[1]) have the same "
                             f"shape, the 'class_num' must be 1, but got {class_num}.")
        return y_pred.reshape(-1), y.reshape(-1), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError("For 'ROC', when the dimension of predicted value (input[0]) equals the dimension of true "
                             f"value (input[1]) add 1, the 'pos_label' must be None, but got {pos_label}.")
        if class_num != y_pred.shape[1]:
            raise ValueError("For 'ROC', the 'class_num' must equal the number of classes from predicted value "
                             f"(input[0]), but got 'class_num' {class_num}, the number of classes from predicted value "
                             f"{y_pred.shape[1]}.")
        # (N, C) scores, column c for class c. (The wheel reshapes the (N, C) array to (C, N) without
        # transposing, so its result is right only when N == C, the case its documentation shows.)
        return y_pred.reshape(-1, class_num), y.reshape(-1), class_num, pos_label
    raise ValueError("For 'ROC', predicted value (input[0]) and true value (input[1]) must have same dimensions, or "
                     "the dimension of predicted value equal the dimension of true value add 1, but got predicted value "
                     f"ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")


class ROC(Metric):
    """The ROC curve: (fpr, tpr, thresholds) arrays for a binary problem (the first threshold is the
    highest score + 1), or lists of them, one per class, for (N, C) scores."""

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = None if class_num is None else _check(class_num, "class_num", (int,))
        self.pos_label = None if pos_label is None else _check(pos_label, "pos_label", (int,))
        self.clear()

    def clear(self):
        self.y_pred = 0
        self.y = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ROC.update', it needs 2 inputs (predicted value, true value), but got "
                             f"{len(inputs)}")
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(
            self._convert_data(inputs[0]), self._convert_data(inputs[1]), self.class_num, self.pos_label)
        self._is_update = True

    def _one(self, scores, y, pos_label):
        fps, tps, thresholds = _binary_curve(scores, y, pos_label)
        fps = np.concatenate([np.zeros(1, fps.dtype), fps])
        tps = np.concatenate([np.zeros(1, tps.dtype), tps])
        thresholds = np.concatenate([thresholds[:1] + 1, thresholds])
        if fps[-1] <= 0:
            raise ValueError("For 'ROC.eval', there is no negative samples in true value, false positive value is "
                             "meaningless.")
        if tps[-1] <= 0:
            raise ValueError("For 'ROC.eval', there is no positive samples in true value, true positive value is "
                             "meaningless.")
        return fps / fps[-1], tps / tps[-1], thresholds

    def eval(self):
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        y_pred, y = np.squeeze(self.y_pred), np.squeeze(self.y)
        if self.class_num == 1:
            return self._one(y_pred, y, self.pos_label)
        curves = [self._one(y_pred[:, c], y, c) for c in range(self.class_num)]
        return [c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves]


def auc(x, y, reorder=False):
    """The area under the curve through the points (x, y), by the trapezoidal rule; x must be
    monotonic unless `reorder` sorts the points by x."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got {type(x)}, {type(y)}")
    for a in (x, y):
        if a.ndim == 0:
            raise TypeError(f"Singleton array {a} cannot be considered as a valid collection.")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {[x.shape[0], y.shape[0]]}.")
    for a in (x, y):
        if not (a.ndim == 1 or a.ndim == 2 and a.shape[1] == 1):
            raise ValueError("For 'auc', the input must be a 1-dimensional array, or a 2-dimensional array with the "
                             f"second dimension of 1, but got shape {a.shape}.")
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the shape of the argument 'x' in axis 0 must be greater than 2, but got "
                         f"{x.shape[0]}.")
    sign = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError("For 'auc', if the argument is False, the argument 'x' array must be increasing or "
                                 f"decreasing, but got 'x': {x}")
            sign = -1
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    return sign * trapezoid(y, x)


def _ngrams(tokens, n_max) -> Counter:
    return Counter(tuple(tokens[j:j + n]) for n in range(1, n_max + 1) for j in range(len(tokens) - n + 1))


class BleuScore(Metric):
    """Corpus BLEU over n-grams up to `n_gram` (1-4): clipped n-gram precisions' geometric mean
    (add-one smoothed if `smooth`) times the brevity penalty; 0 if some order has no match."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = _check(n_gram, "n_gram", (int,))
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.smooth = _check(smooth, "smooth", (bool,))
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError("For 'BleuScore.update', it needs 2 inputs (candidate_corpus, reference_corpus), but got "
                             f"{len(inputs)}.")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError("For 'BleuScore.update', 'translate_corpus' (inputs[0]) and 'reference_corpus' (inputs[1]) "
                             f"should be equal in length, but got {len(candidates)}, {len(references)}")
        for cand, refs in zip(candidates, references):
            self._c += len(cand)
            lengths = [len(r) for r in refs]
            gaps = [abs(len(cand) - n) for n in lengths]
            self._r += lengths[gaps.index(min(gaps))]            # the closest reference length, first on ties
            counts = _ngrams(cand, self.n_gram)
            best = Counter()
            for r in refs:
                best |= _ngrams(r, self.n_gram)
            for gram, k in (counts & best).items():
                self._numerator[len(gram) - 1] += k
            for gram, k in counts.items():
                self._denominator[len(gram) - 1] += k
        self._is_update = True

    def eval(self):
        _need_update(self._is_update)
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1) / (self._denominator + 1)
        else:
            precision = self._numerator / self._denominator
        mean = np.exp(np.sum(np.full(self.n_gram, 1.0 / self.n_gram) * np.log(precision)))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - np.array(self._r) / np.array(self._c))
        return penalty * mean
