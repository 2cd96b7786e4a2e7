"""Random class-form ops of MindSpore 2.10's `ops.operations` (and `operations.random_ops`) with
their functional forms: RandomCategorical, RandomChoiceWithMask, UniformCandidateSampler,
LogUniformCandidateSampler, Uniform, TruncatedNormal, ParameterizedTruncatedNormal, RandomGamma,
MultinomialWithReplacement.

Two kinds of draws:

* RandomCategorical, RandomChoiceWithMask and the candidate samplers follow MindSpore's CPU
  kernels exactly (MindSpore's suite pins their values for fixed seeds): they run as host calls
  on the kernels' own generator (ops/host_random_rand33.py), each Primitive instance keeping
  its stream as the kernel object does. The kernels' logic is data-dependent loops (rejection
  until `num_sampled` distinct values, a shuffle of the nonzero positions), which a host call
  expresses directly.
* The distributions (Uniform, TruncatedNormal, ParameterizedTruncatedNormal, RandomGamma,
  MultinomialWithReplacement) draw from pycompile's counter-based generator like the rest of
  ops/function_random.py; with a seed set, an instance draws from a Generator of its own
  (operations_cnn._Seeded: two instances built alike draw alike). MindSpore's numbers are not
  followed there; its tests check shapes, dtypes, ranges and seeded equality only.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, TensorType
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.host_random_rand33 import (Minstd0, PhiloxStream, canonical, get_seed, host_call, shuffle,
                                              uniform_int)
from pycompile.ops.primitive import Primitive

_INT_OUT = (mstype.int16, mstype.int32, mstype.int64)
_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _int_value(name, what, v, allow_tensor=True) -> int:
    if allow_tensor and hasattr(v, "asnumpy") and not isinstance(v, Symbolic) and np.size(v.asnumpy()) == 1:
        v = v.asnumpy().reshape(()).item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise OpTypeError(f"For '{name}', '{what}' must be an int known at compile time, but got {v!r}.")
    return int(v)


def _check_int(name, what, v, low=None):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise OpTypeError(f"For '{name}', the '{what}' must be int, but got {type(v).__name__}.")
    if low is not None and v < low:
        raise OpValueError(f"For '{name}', the '{what}' must be >= {low}, but got {v}.")
    return int(v)


# ---- RandomCategorical ----------------------------------------------------------------------------
class RandomCategorical(Primitive):
    """Samples from a categorical distribution of (batch, classes) logits: `num_sample` class
    indices per row. MindSpore's CPU kernel draws one uniform per sample column, shared by every
    row, from minstd_rand0 seeded with GetSeed(0, seed) (seed 0: an entropy seed each call). One
    instance keeps a stream per seed value, continued call after call, as MindSpore 2.10 does
    (seeds 5, 5, 6, 5 draw the 5-stream's first two blocks, the 6-stream's first, then the
    5-stream's third)."""

    def __init__(self, dtype=mstype.int64):
        super().__init__()
        if dtype not in _INT_OUT:
            raise OpTypeError(f"For 'RandomCategorical', the 'dtype' should be one of [mindspore.int32, "
                              f"mindspore.int16, mindspore.int64], but got 'mindspore.{str(dtype).lower()}'.")
        self.dtype = dtype
        self.add_prim_attr("dtype", dtype)
        self._rngs: dict = {}        # seed -> its stream

    def _uniforms(self, n: int, seed: int) -> np.ndarray:
        rng = self._rngs.get(seed)
        if rng is None or seed == 0:
            rng = self._rngs[seed] = Minstd0(get_seed(0, seed))
        return np.array([canonical(rng) for _ in range(n)], np.float32)

    def __call__(self, logits, num_sample, seed=0):
        t = F._tensor_type(self.name, logits, "logits")
        if t.dtype not in _FLOATS:
            raise OpTypeError(f"For 'RandomCategorical', the type of 'logits' should be one of "
                              f"[Float16, Float32, Float64], but got {t.dtype}.")
        if t.ndim != 2:
            raise OpValueError(f"For 'RandomCategorical', the rank of 'logits' must be 2, but got {t.ndim}.")
        num_sample = _int_value(self.name, "num_sample", num_sample)
        seed = _int_value(self.name, "seed", seed)
        if num_sample <= 0:
            raise OpValueError(f"For 'RandomCategorical', 'num_sample' must be > 0, but got {num_sample}.")
        out_np = self.dtype.np

        def run(x):
            cdt = x.dtype.type
            m = np.float32(x.max(axis=1)).astype(cdt)[:, None]
            terms = np.exp((x - m).astype(np.float32)).astype(cdt)
            cdf = np.empty_like(terms)
            cdf[:, 0] = terms[:, 0]
            for i in range(1, terms.shape[1]):
                cdf[:, i] = cdf[:, i - 1] + terms[:, i]
            u = self._uniforms(num_sample, seed).astype(cdt)
            to_find = (cdf[:, -1:] * u[None, :]).astype(cdt)
            idx = (cdf[:, None, :] < to_find[:, :, None]).sum(axis=2)
            return np.minimum(idx, terms.shape[1] - 1).astype(out_np)

        return host_call(self, "RandomCategorical", run, [logits], TensorType(self.dtype, (t.shape[0], num_sample)),
                         params=(num_sample, seed))


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """Class indices sampled from the (batch, classes) logits: (batch, num_sample) of `dtype`."""
    return RandomCategorical(dtype)(logits, num_sample, seed)


# ---- RandomChoiceWithMask -------------------------------------------------------------------------
class RandomChoiceWithMask(Primitive):
    """`count` random coordinates of True elements of a bool tensor (rank 1-5) and a mask saying
    which are real: MindSpore's kernel shuffles the nonzero positions with std::shuffle on
    minstd_rand0 seeded by GetSeed(seed, seed2) (one engine per instance, drawn on call after
    call), padding with zeros / False past their number."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__()
        self.count = _check_int(self.name, "count", count, 1)
        self.seed, self.seed2 = _check_int(self.name, "seed", seed), _check_int(self.name, "seed2", seed2)
        self.add_prim_attrs(count=self.count, seed=self.seed, seed2=self.seed2)
        self._rng = None            # the kernel's engine: seeded on the first call, then kept

    def __call__(self, input_x):
        t = F._tensor_type(self.name, input_x, "input_x")
        if t.dtype is not mstype.bool_:
            raise OpTypeError(f"For primitive[RandomChoiceWithMask], the input argument[input_x] must be a type of "
                              f"{{Tensor[Bool]}}, but got Tensor[{t.dtype}].")
        if not 1 <= t.ndim <= 5:
            raise OpValueError(f"For 'RandomChoiceWithMask', the rank of 'input_x' must be in [1, 5], "
                               f"but got {t.ndim}.")
        count, rank = self.count, t.ndim
        if count * rank >= 2 ** 31 - 1:
            raise OpRuntimeError(f"For 'RandomChoiceWithMask', output size exceed INT_MAX: count {count} times "
                                 f"rank {rank}.")
        def run(x):
            if self._rng is None:
                self._rng = Minstd0(get_seed(self.seed, self.seed2))
            positions = np.flatnonzero(x.reshape(-1))
            order = shuffle(list(range(positions.size)), self._rng)
            chosen = positions[np.asarray(order[:count], np.int64)]
            out = np.zeros((count, rank + 1), np.int32)
            if x.ndim:
                out[:chosen.size, :rank] = np.stack(np.unravel_index(chosen, x.shape), axis=1)
            out[:chosen.size, rank] = 1
            return out

        packed = host_call(self, "RandomChoiceWithMask", run, [input_x], TensorType(mstype.int32, (count, rank + 1)))
        return packed[:, :rank], F.cast(packed[:, rank], mstype.bool_)


def choice_with_mask(input_x, count=256, seed=None):
    """`(indices, mask)` of RandomChoiceWithMask(count, seed)."""
    return RandomChoiceWithMask(count, seed or 0, 0)(input_x)


# ---- candidate samplers ---------------------------------------------------------------------------
def _expected(p, num_sampled: int, tries: int) -> np.float32:
    """MindSpore's ApproximateExpectedCount in float32."""
    p = np.float32(p)
    if tries == num_sampled:
        return np.float32(p * np.float32(num_sampled))
    return np.float32(-np.expm1(np.float32(tries) * np.log1p(-p)))


class _CandidateSampler(Primitive):
    def _check_true(self, true_classes):
        t = F._tensor_type(self.name, true_classes, "true_classes")
        if t.dtype not in self._in_dtypes:
            allowed = ", ".join(str(d) for d in self._in_dtypes)
            raise OpTypeError(f"For '{self.name}', the type of 'true_classes' should be one of [{allowed}], "
                              f"but got {t.dtype}.")
        if t.ndim != 2:
            raise OpValueError(f"For '{self.name}', the dimension of input 'true_classes' must be 2, but got {t.ndim}")
        if t.shape[1] != self.num_true:
            raise OpValueError(f"For primitive[{self.name}], the num_true must be equal to {t.shape[1]}, "
                               f"but got {self.num_true}.")
        return t

    def _sample(self, draw_one, rejected=frozenset()):
        """num_sampled candidates (distinct if unique, skipping `rejected`) and the number of tries."""
        if not self.unique:
            return [draw_one() for _ in range(self.num_sampled)], self.num_sampled
        picked, seen, tries = [], set(), 0
        while len(picked) < self.num_sampled:
            s = draw_one()
            tries += 1
            if s not in seen and s not in rejected:
                seen.add(s)
                picked.append(s)
        return picked, tries

    def _packed_call(self, true_classes, run):
        t = self._check_true(true_classes)
        n, k = self.num_sampled, t.shape[0] * t.shape[1]
        packed = host_call(self, self.name, run, [true_classes], TensorType(mstype.float64, (2 * n + k,)))
        cands = F.cast(packed[:n], t.dtype)
        return cands, F.reshape(F.cast(packed[n:n + k], mstype.float32), t.shape), \
            F.cast(packed[n + k:], mstype.float32)


class UniformCandidateSampler(_CandidateSampler):
    """`num_sampled` classes drawn uniformly from [0, range_max) (distinct when `unique`), with
    the expected counts of the true and sampled classes (MindSpore's CPU kernel: minstd_rand0
    seeded once with GetSeed(seed, 0), std::uniform_int_distribution draws)."""
    _in_dtypes = (mstype.int32, mstype.int64)

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0, remove_accidental_hits=False):
        super().__init__()
        for what, v in (("num_true", num_true), ("num_sampled", num_sampled), ("range_max", range_max),
                        ("seed", seed)):
            _check_int(self.name, what, v)
        for what, v in (("unique", unique), ("remove_accidental_hits", remove_accidental_hits)):
            if not isinstance(v, bool):
                raise OpTypeError(f"For '{self.name}', the '{what}' must be bool, but got {type(v).__name__}.")
        if num_true <= 0 or num_sampled <= 0 or range_max <= 0:
            raise OpValueError(f"For 'UniformCandidateSampler', the parameters must be larger than 0, but got "
                               f"'num_true' = {num_true}, 'num_sampled' = {num_sampled}, 'range_max' = {range_max}")
        if seed < 0:
            raise OpValueError(f"For 'UniformCandidateSampler', the parameter 'seed' can not be less than 0, "
                               f"but got: {seed}")
        if unique and num_sampled > range_max:
            raise OpValueError(f"For 'UniformCandidateSampler', the parameter 'num_sampled' can not be larger "
                               f"than'range_max', but got 'num_sampled' = {num_sampled}, 'range_max' = {range_max}")
        self.num_true, self.num_sampled, self.unique, self.range_max = num_true, num_sampled, unique, range_max
        self.seed, self.remove_accidental_hits = seed, remove_accidental_hits
        self.add_prim_attrs(num_true=num_true, num_sampled=num_sampled, unique=unique, range_max=range_max,
                            seed=seed, remove_accidental_hits=remove_accidental_hits)
        self._rng = Minstd0(get_seed(seed, 0))

    def __call__(self, true_classes):
        def run(x):
            rejected = frozenset()
            if self.remove_accidental_hits:
                rejected = frozenset(int(v) for v in x.reshape(-1))
                if self.num_sampled + len(rejected) > self.range_max:
                    self.remove_accidental_hits = False      # the kernel turns it off for good
                    rejected = frozenset()
            cands, tries = self._sample(lambda: uniform_int(self._rng, 0, self.range_max - 1), rejected)
            value = _expected(np.float32(1.0) / np.float32(self.range_max), self.num_sampled, tries)
            return np.concatenate([np.asarray(cands, np.float64), np.full(x.size + self.num_sampled, value)])
        return self._packed_call(true_classes, run)


class LogUniformCandidateSampler(_CandidateSampler):
    """`num_sampled` classes from the log-uniform (Zipfian) distribution over [0, range_max):
    P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), with the expected counts of the true and
    sampled classes. MindSpore's CPU kernel: a class is (floor(exp(u log(range_max + 1))) - 1)
    mod range_max for a uniform double u of a Philox stream keyed by 87654321 with `seed` as its
    counter's high half; each call reserves 2048 * num_sampled words of it; distinct classes
    when `unique`, the expected counts from the number of tries."""
    _in_dtypes = (mstype.int64,)

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        super().__init__()
        for what, v in (("num_true", num_true), ("num_sampled", num_sampled), ("range_max", range_max),
                        ("seed", seed)):
            _check_int(self.name, what, v, 0 if what == "seed" else 1)
        if not isinstance(unique, bool):
            raise OpTypeError(f"For '{self.name}', the 'unique' must be bool, but got {type(unique).__name__}.")
        if unique and num_sampled > range_max:
            raise OpValueError(f"For '{self.name}', the 'range_max' must be greater than or equal to "
                               f"'num_sampled' when 'unique' is True, but got {range_max} and {num_sampled}.")
        self.num_true, self.num_sampled, self.unique, self.range_max, self.seed = \
            num_true, num_sampled, unique, range_max, seed
        self.add_prim_attrs(num_true=num_true, num_sampled=num_sampled, unique=unique, range_max=range_max, seed=seed)
        self._gen = PhiloxStream(87654321, seed)

    def __call__(self, true_classes):
        log_range = np.log1p(float(self.range_max))

        def expected(c, tries):
            p = (np.log((np.asarray(c, np.float64) + 2.0) / (np.asarray(c, np.float64) + 1.0)) / log_range)
            p = p.astype(np.float32)
            if tries == self.num_sampled:
                return p * np.float32(self.num_sampled)
            return -np.expm1(np.float32(tries) * np.log1p(-p))

        def run(x):
            stream = self._gen.reserve(2048 * self.num_sampled)
            cands, tries = self._sample(lambda: (int(np.exp(stream.double() * log_range)) - 1) % self.range_max)
            return np.concatenate([np.asarray(cands, np.float64), expected(x.reshape(-1), tries),
                                   expected(cands, tries)])
        return self._packed_call(true_classes, run)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count) of UniformCandidateSampler."""
    return UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed,
                                   remove_accidental_hits)(true_classes)


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """(sampled_candidates, true_expected_count, sampled_expected_count) of LogUniformCandidateSampler."""
    return LogUniformCandidateSampler(num_true, num_sampled, unique, range_max, seed)(true_classes)
