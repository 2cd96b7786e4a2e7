"""Samplers shaped like mindspore.dataset's: which row indices a random-access source reads, in
what order, epoch after epoch.

MindSpore's samplers draw from C++'s `std::mt19937` seeded with `ds.config`'s seed, through
libstdc++'s `std::shuffle`, `uniform_int_distribution`, `discrete_distribution` and
`exponential_distribution`. They are reproduced here draw for draw (the generator is NumPy's
MT19937 with the same legacy seeding; the distributions are written out below as libstdc++ 9-10
defines them), so a seeded pipeline reads the same rows in the same order as MindSpore 2.10's
(tests/oracle/data/samplers.json). What each sampler does on epoch `e` (0-based, counting the
sampler's resets: each epoch of an iterator and each pass of a `repeat`):

- RandomSampler: the order of epoch e is the order of epoch e-1 shuffled with mt19937(seed + e),
  starting from 0..n-1; `replacement=True` draws num_samples uniform indices from mt19937(seed + e).
- DistributedSampler(shuffle=True): the same with seed + 1 + e, then MindSpore's shard split.
- SubsetRandomSampler: the previous order shuffled with mt19937(seed) each epoch.
- WeightedRandomSampler: mt19937(seed) afresh each epoch (every epoch alike).
- PKSampler: mt19937(seed) shuffles the classes (once) and draws epoch 0's rows; epoch e draws
  from mt19937(seed + e).

A child sampler (`add_child`) runs first; its parent samples positions in the child's output.
"""
from __future__ import annotations

import bisect
import itertools
import math
import threading

import numpy as np

_INT64_MAX = 9223372036854775807
_U32 = 0xFFFFFFFF


class _MT19937:
    """std::mt19937(seed): NumPy's MT19937 with its legacy (init_genrand) seeding, read in blocks."""

    def __init__(self, seed: int):
        self._bits = np.random.RandomState(seed & _U32)._bit_generator
        self._block, self._at = [], 0

    def __call__(self) -> int:
        if self._at == len(self._block):
            self._block, self._at = self._bits.random_raw(512).tolist(), 0
        self._at += 1
        return self._block[self._at - 1]


def _uniform(g, high: int) -> int:
    """uniform_int_distribution(0, high)(g) by libstdc++'s downscaling (rejection, then division)."""
    span = high + 1
    scaling = _U32 // span
    past = span * scaling
    while True:
        r = g()
        if r < past:
            return r // scaling


def _shuffle(items: list, g) -> list:
    """std::shuffle(items, g) as libstdc++ does it (two swap positions per draw while n*n fits)."""
    a, n = list(items), len(items)
    if n < 2:
        return a
    if _U32 // n >= n:
        i = 1
        if n % 2 == 0:
            j = _uniform(g, 1)
            a[1], a[j] = a[j], a[1]
            i = 2
        while i != n:
            span = i + 1
            x = _uniform(g, span * (span + 1) - 1)
            p1, p2 = divmod(x, span + 1)
            a[i], a[p1] = a[p1], a[i]
            a[i + 1], a[p2] = a[p2], a[i + 1]
            i += 2
        return a
    for i in range(1, n):
        j = _uniform(g, i)
        a[i], a[j] = a[j], a[i]
    return a


def _canonical(g) -> float:
    """generate_canonical<double, 53>(g): two 32-bit draws."""
    value = (g() + g() * 4294967296.0) / 18446744073709551616.0
    return value if value < 1.0 else math.nextafter(1.0, 0.0)


# -- argument checks (MindSpore's classes and words) ------------------------------------------------
def _check_num_samples(num_samples):
    if num_samples is None:
        return
    if not isinstance(num_samples, int) or isinstance(num_samples, bool):
        raise TypeError(f"num_samples must be integer but was: {num_samples}.")
    if not 0 <= num_samples <= _INT64_MAX:
        raise ValueError("num_samples exceeds the boundary between 0 and 9223372036854775807(INT64_MAX)!")


def _check_bool(value, message):
    if not isinstance(value, bool):
        raise TypeError(message.format(value))


def _check_int(value, name, low=0):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be integer but was: {value}.")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, but got {value}.")


class BuiltinSampler:
    """Base of the samplers: `num_samples` caps the indices of an epoch; `add_child` chains."""

    def __init__(self, num_samples=None):
        _check_num_samples(num_samples)
        self.num_samples = num_samples
        self.child_sampler = None
        self._memo = {}
        self._lock = threading.Lock()

    def add_child(self, sampler):
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError("Cannot add child sampler: it is not a sampler of mindspore.dataset.")
        if self.child_sampler is not None:
            raise RuntimeError("Cannot add child sampler, this sampler already has a child.")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def get_num_samples(self):
        return self.num_samples

    def is_shuffled(self) -> bool:
        return False

    def is_sharded(self) -> bool:
        return self.child_sampler.is_sharded() if self.child_sampler is not None else False

    def __getstate__(self):
        return {**self.__dict__, "_memo": {}, "_lock": None}

    def __setstate__(self, state):
        self.__dict__.update(state, _lock=threading.Lock())

    def _cap(self, ids: list) -> list:
        return ids[:self.num_samples] if self.num_samples else ids

    def indices(self, source, seed: int, epoch: int) -> list:
        """The row indices of `source` (a random-access source) this sampler reads in `epoch`."""
        if self.child_sampler is None:
            return self._cap(self._ids(source._length(), seed, epoch, source))
        under = self.child_sampler.indices(source, seed, epoch)
        return [under[i] for i in self._cap(self._ids(len(under), seed, epoch, source))]

    def _ids(self, n: int, seed: int, epoch: int, source) -> list:
        raise NotImplementedError

    def _chained(self, key, epoch, first, step):
        """Epoch `epoch` of a sequence where each epoch is `step(previous, e)`: memoised, since
        each epoch builds on the last and an iterator asks for them in order."""
        with self._lock:
            at, value = self._memo.get(key, (0, None))
            if value is None or at > epoch:
                at, value = 0, first()
            for e in range(at + 1, epoch + 1):
                value = step(value, e)
            self._memo[key] = (epoch, value)
            return value


class SequentialSampler(BuiltinSampler):
    """Indices start_index, start_index + 1, ... to the end (at most num_samples)."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        if start_index is not None:
            _check_int(start_index, "start_index")
        self.start_index = start_index or 0

    def _ids(self, n, seed, epoch, source):
        return list(range(min(self.start_index, n), n))


class SubsetSampler(BuiltinSampler):
    """The given indices, in order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        if not isinstance(indices, (list, tuple, np.ndarray, range)):
            indices = [indices]
        for i, value in enumerate(indices):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise TypeError(f"{type(self).__name__}: Type of indices element must be int, but got "
                                f"list[{i}]: {value}, type: {type(value)}.")
        self.indices_list = [int(i) for i in indices]

    def _ids(self, n, seed, epoch, source):
        return list(self.indices_list)


class SubsetRandomSampler(SubsetSampler):
    """The given indices, shuffled (again each epoch)."""

    def is_shuffled(self):
        return True

    def _ids(self, n, seed, epoch, source):
        # MindSpore keeps the first num_samples indices, then shuffles those
        return self._chained(("subset", seed), epoch, lambda: _shuffle(self._cap(self.indices_list), _MT19937(seed)),
                             lambda prev, e: _shuffle(prev, _MT19937(seed)))


class RandomSampler(BuiltinSampler):
    """All n indices shuffled (num_samples of them), or num_samples (default n) uniform draws
    with replacement."""

    def __init__(self, replacement=False, num_samples=None):
        _check_bool(replacement, "replacement must be a boolean value but was: {}.")
        super().__init__(num_samples)
        self.replacement = replacement

    def is_shuffled(self):
        return True

    def _ids(self, n, seed, epoch, source):
        if self.replacement:
            g = _MT19937(seed + epoch)
            return [_uniform(g, n - 1) for _ in range(self.num_samples or n)] if n else []
        return self._chained(("random", seed, n), epoch, lambda: _shuffle(range(n), _MT19937(seed)),
                             lambda prev, e: _shuffle(prev, _MT19937(seed + e)))


class WeightedRandomSampler(BuiltinSampler):
    """num_samples indices drawn with probability proportional to `weights` (index i < len(weights))."""

    def __init__(self, weights, num_samples=None, replacement=True):
        _check_bool(replacement, "replacement must be a boolean value but was: {}.")
        super().__init__(num_samples)
        weights = [float(w) for w in weights]
        if not weights:
            raise ValueError("weights size should not be 0")
        if any(w < 0 or math.isnan(w) for w in weights):
            raise ValueError("weights should not contain negative numbers or NaN.")
        if not any(w > 0 for w in weights):
            raise ValueError("The sum of weights should be greater than 0.")
        if num_samples is not None and num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got num_samples: "
                             f"{num_samples}.")
        self.weights, self.replacement = weights, replacement

    def is_shuffled(self):
        return True

    def _ids(self, n, seed, epoch, source):
        g, count = _MT19937(seed), self.num_samples or len(self.weights)
        if self.replacement:
            total = sum(self.weights)
            cumulative = list(itertools.accumulate(w / total for w in self.weights))
            cumulative[-1] = 1.0
            return [bisect.bisect_left(cumulative, _canonical(g)) for _ in range(count)]
        keys = [-math.log(1.0 - _canonical(g)) / w if w > 0 else math.inf for w in self.weights]
        return sorted(range(len(keys)), key=keys.__getitem__)[:count]


class DistributedSampler(BuiltinSampler):
    """Shard `shard_id` of `num_shards`: the (shuffled) order extended cyclically to
    ceil(n / num_shards) * num_shards entries, every num_shards-th from shard_id; with `offset`
    >= 0, row i goes to shard (i + offset) % num_shards and nothing is repeated."""

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        _check_int(num_shards, "num_shards", 1)
        _check_int(shard_id, "shard_id")
        if shard_id >= num_shards:
            raise ValueError(f"shard_id should be less than num_shards, but got shard_id {shard_id} and num_shards "
                             f"{num_shards}.")
        _check_bool(shuffle, "shuffle must be a boolean value or valid shuffle mode but was: {}.")
        super().__init__(num_samples)
        _check_int(offset, "offset", -1)
        self.num_shards, self.shard_id, self.shuffle, self.offset = num_shards, shard_id, shuffle, offset

    def is_shuffled(self):
        return self.shuffle

    def is_sharded(self):
        return True

    def _ids(self, n, seed, epoch, source):
        order = list(range(n))
        if self.shuffle:
            order = self._chained(("distributed", seed, n), epoch, lambda: _shuffle(order, _MT19937(seed + 1)),
                                  lambda prev, e: _shuffle(prev, _MT19937(seed + 1 + e)))
        if self.offset >= 0:
            return [order[i] for i in range(n) if (i + self.offset) % self.num_shards == self.shard_id]
        per_shard = math.ceil(n / self.num_shards)
        return [order[i % n] for i in range(self.shard_id, per_shard * self.num_shards, self.num_shards)] if n else []


class PKSampler(BuiltinSampler):
    """num_val rows of each class (by `class_column`): the classes in sorted order, or shuffled
    once; each row drawn uniformly (with replacement) from its class."""

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label", num_samples=None):
        _check_int(num_val, "num_val", 1)
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        _check_bool(shuffle, "shuffle must be a boolean value but was: {}.")
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str value but was: {class_column}.")
        super().__init__(num_samples)
        self.num_val, self.shuffle, self.class_column = num_val, shuffle, class_column

    def is_shuffled(self):
        return self.shuffle

    def _ids(self, n, seed, epoch, source):
        by_class = {}
        for i, label in enumerate(source._class_labels(self.class_column)[:n]):
            by_class.setdefault(label, []).append(i)
        g = _MT19937(seed)
        classes = sorted(by_class)
        if self.shuffle:
            classes = _shuffle(classes, g)        # once: later epochs keep this order
        if epoch:
            g = _MT19937(seed + epoch)
        slots = [by_class[c] for c in classes for _ in range(self.num_val)]
        return [ids[_uniform(g, len(ids) - 1)] for ids in self._cap(slots)]


class Sampler(BuiltinSampler):
    """Base of a user's sampler: define `__iter__` yielding row indices; `self.dataset_size` is the
    source's row count when it runs (each epoch), `reset()` is called before each epoch after the first."""

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self.dataset_size = 0
        if self.num_samples is None and hasattr(self, "__len__"):
            self.num_samples = len(self)

    def __iter__(self):
        raise NotImplementedError("a ds.Sampler subclass must define __iter__")

    def reset(self):
        """Called before each epoch after the first; override if needed."""

    def _ids(self, n, seed, epoch, source):
        self.dataset_size = n
        if epoch:
            self.reset()
        ids = []
        for i in self:
            ids.extend(int(j) for j in (i if isinstance(i, (list, tuple, np.ndarray)) else [i]))
        return ids


def implied_sampler(shuffle, num_samples, num_shards, shard_id):
    """The sampler MindSpore builds from a source's own shuffle / num_samples / sharding arguments."""
    shuffle = True if shuffle is None else shuffle
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=bool(shuffle), num_samples=num_samples)
    if shuffle:
        if num_samples is not None:
            return RandomSampler(replacement=True, num_samples=num_samples)
        return RandomSampler(num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)


class _IndexedSampler:
    """A user sampler written as __getitem__ / __len__ (the sampler tutorial's second form): its
    indices sampler[0] ... sampler[len - 1]."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        return (self.sampler[i] for i in range(len(self.sampler)))

    def __len__(self):
        return len(self.sampler)


def as_sampler(sampler, num_samples=None):
    """A source's `sampler=` argument: a sampler, a list of indices, or any iterable of them
    (num_samples caps the last two, as in MindSpore)."""
    if isinstance(sampler, BuiltinSampler):
        return sampler
    if isinstance(sampler, (list, tuple, np.ndarray)):
        return SubsetSampler(list(sampler), num_samples)
    if hasattr(sampler, "__iter__") and not isinstance(sampler, str):
        return sampler
    if hasattr(sampler, "__getitem__") and hasattr(sampler, "__len__"):
        return _IndexedSampler(sampler)
    raise TypeError("sampler should be either iterable or from mindspore.dataset.samplers.")
