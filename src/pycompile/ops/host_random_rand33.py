"""MindSpore's CPU kernels' host generator, for the few random ops whose values MindSpore's own
tests pin, and a host call (the `CustomPyFunc` op of ops.Custom) to run such an op from
PyNative and compiled code alike.

pycompile's random ops draw from its counter-based generator (ops/defs/random.py; MindSpore's
stream is not a goal there). A handful of MindSpore 2.10 CPU kernels instead draw on the host
with libstdc++'s `std::default_random_engine` (`minstd_rand0`: x <- 16807 x mod 2^31 - 1),
seeded through MindSpore's `random::GetSeed(seed, seed2)` (one Philox-4x32-10 block of the two
seeds, TensorFlow's seed mixing), and MindSpore's suite checks their exact values
(RandomCategorical with seed 5, RandomChoiceWithMask with seed 9). Those ops follow the same
recipe here, in Python: `get_seed`, `Minstd0`, `canonical` (std::generate_canonical<double, 53>:
two draws), `uniform_int` (std::uniform_int_distribution's rejection path) and `shuffle`
(libstdc++'s std::shuffle, two positions per draw when the range allows). A seed of 0 (both
seeds 0) takes an entropy seed, as MindSpore's std::random_device does.

The ops run as host calls: one `CustomPyFunc` node whose function is NumPy code holding the
generator's state, so a Primitive instance keeps drawing from its stream call after call (the
kernel's `rng_` member), eagerly and from compiled code.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpTypeError, apply
from pycompile.ops.defs.pyfunc import SITES, CustomPyFunc, Site

_MASK32 = 0xFFFFFFFF
_M0, _M1, _W0, _W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
_MINSTD_M = 2147483647            # minstd_rand0: modulus 2^31 - 1, min 1, max 2^31 - 2
_MINSTD_RANGE = _MINSTD_M - 3     # max - min


def _philox_block(counter, key) -> list:
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & _MASK32, p1 & _MASK32, ((p0 >> 32) ^ c3 ^ k1) & _MASK32, p0 & _MASK32
        k0, k1 = (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32
    return [c0, c1, c2, c3]


def get_seed(seed: int, seed2: int) -> int:
    """MindSpore's random::GetSeed(global_seed, ops_seed): an entropy seed when both are 0, else
    the first two words of one Philox block of the seeds."""
    seed, seed2 = int(seed) % (1 << 64), int(seed2) % (1 << 64)
    if seed == 0 and seed2 == 0:
        return int.from_bytes(os.urandom(4), "little")
    r = _philox_block([seed & _MASK32, seed >> 32, seed2 & _MASK32, seed2 >> 32], [0x3EC8F720, 0x02461E29])
    return (r[1] << 32) | r[0]


class Minstd0:
    """libstdc++'s std::minstd_rand0 (std::default_random_engine)."""

    def __init__(self, seed: int):
        self.x = int(seed) % _MINSTD_M or 1

    def __call__(self) -> int:
        self.x = self.x * 16807 % _MINSTD_M
        return self.x


def canonical(g: Minstd0) -> float:
    """std::generate_canonical<double, 53>(g) (std::uniform_real_distribution<>(0, 1)): two draws."""
    r = float(_MINSTD_RANGE + 1)
    lo = g() - 1
    hi = g() - 1
    v = (lo + hi * r) / (r * r)
    return v if v < 1.0 else float(np.nextafter(1.0, 0.0))


def uniform_int(g: Minstd0, a: int, b: int) -> int:
    """std::uniform_int_distribution<>(a, b)(g): rejection from the engine's range, scaled down."""
    span = b - a + 1
    if span > _MINSTD_RANGE + 1:
        raise OpTypeError(f"uniform_int: a range of {span} values is wider than the generator's")
    scaling = (_MINSTD_RANGE + 1) // span
    past = span * scaling
    while True:
        v = g() - 1
        if v < past:
            return v // scaling + a


def shuffle(items: list, g: Minstd0) -> list:
    """std::shuffle(items, g) as libstdc++ writes it (in place; returns items)."""
    n = len(items)
    if n <= 1:
        return items
    if _MINSTD_RANGE // n >= n:          # two swap positions from one draw
        i = 1
        if n % 2 == 0:
            j = uniform_int(g, 0, 1)
            items[i], items[j] = items[j], items[i]
            i += 1
        while i != n:
            r = i + 1
            x = uniform_int(g, 0, r * (r + 1) - 1)
            p1, p2 = x // (r + 1), x % (r + 1)
            items[i], items[p1] = items[p1], items[i]
            i += 1
            items[i], items[p2] = items[p2], items[i]
            i += 1
        return items
    for i in range(1, n):
        j = uniform_int(g, 0, i)
        items[i], items[j] = items[j], items[i]
    return items


class PhiloxStream:
    """MindSpore's GuardedPhiloxRandom (TensorFlow's): Philox-4x32-10 keyed by `seed`, its
    128-bit counter starting at `seed2` << 64; `reserve(n)` hands out the stream of the next n
    32-bit words (a copy at the current counter) and skips past them. `words()` of a reserved
    stream yields its words in order (SinglePhiloxRandom), `double()` MindSpore's GenDouble."""

    def __init__(self, seed: int, seed2: int):
        seed, seed2 = int(seed) % (1 << 64), int(seed2) % (1 << 64)
        self.key = [seed & _MASK32, seed >> 32]
        self.counter = seed2 << 64
        self._buf, self._pos = [], 0

    def reserve(self, n32: int) -> "PhiloxStream":
        local = PhiloxStream.__new__(PhiloxStream)
        local.key, local.counter, local._buf, local._pos = self.key, self.counter, [], 0
        self.counter = (self.counter + (n32 + 3) // 4) % (1 << 128)
        return local

    def word(self) -> int:
        if self._pos == len(self._buf):
            c = self.counter
            self._buf = _philox_block([(c >> s) & _MASK32 for s in (0, 32, 64, 96)], self.key)
            self._pos, self.counter = 0, (c + 1) % (1 << 128)
        self._pos += 1
        return self._buf[self._pos - 1]

    def double(self) -> float:
        """Uint64ToDouble(lo, hi): 20 bits of the first word and the second word, in [0, 1)."""
        lo, hi = self.word(), self.word()
        return (((lo & 0xFFFFF) << 32) | hi) * 2.0 ** -52


# ---- host calls ------------------------------------------------------------------------------------
def host_call(owner, name: str, fn, inputs: list, out: TensorType, params: tuple = ()):
    """`fn(*arrays) -> array of out's shape and dtype` as one CustomPyFunc node (a host call from
    compiled code, a direct call in PyNative). The site is kept per (owner, input signature,
    `params`: the Python values `fn` closes over), so tracing again does not register a new one."""
    types = []
    for a in inputs:
        t = getattr(a, "_abstract", None)
        if not isinstance(t, TensorType):
            raise OpTypeError(f"For '{name}', the inputs must be Tensors, but got {type(a).__name__}")
        types.append(TensorType(t.dtype, tuple(t.shape)))
    sites = owner.__dict__.setdefault("_host_sites", {})
    key = (name, tuple(types), out, params)
    site = sites.get(key)
    if site is None:
        SITES.append(Site(fn, tuple(types), out, name))
        site = sites[key] = len(SITES) - 1
    return apply(CustomPyFunc, [list(inputs)], {"site": site})
