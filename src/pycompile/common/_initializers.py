"""Weight initializers (MindSpore's names and defaults), `set_seed`, and `init_array`, which
fills a NumPy array from any `init` a user may give. `pycompile.common.initializer` re-exports
them with `initializer()`, which wraps the array in a Tensor (Tensor(init=...) calls init_array
directly: this module sits below Tensor).

Every initializer draws from one NumPy generator; `set_seed(n)` reseeds it, so two runs with
the same seed build identical weights. Without a seed the generator starts from OS entropy.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype

_rng = None     # an unseeded Generator, made on first use (numpy.random is not imported with pycompile)
_seed: int | None = None


def set_seed(seed: int) -> None:
    global _rng, _seed
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed expects a non-negative int, but got {seed!r}")
    _seed = seed
    _rng = np.random.default_rng(seed)


def get_seed() -> int | None:
    return _seed


def rng() -> np.random.Generator:
    global _rng
    if _rng is None:
        _rng = np.random.default_rng()
    return _rng


def _fans(shape) -> tuple[int, int]:
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base: `__call__(shape) -> np.ndarray` (float64; the caller casts)."""

    def __call__(self, shape) -> np.ndarray:  # pragma: no cover - every subclass overrides
        raise TypeError(f"{type(self).__name__} does not define how to fill a tensor")

    def __repr__(self):
        return f"{type(self).__name__}()"


class Zero(Initializer):
    def __call__(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def __call__(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value):
        self.value = value

    def __call__(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = sigma, mean

    def __call__(self, shape):
        return rng().normal(self.mean, self.sigma, size=shape)


class TruncatedNormal(Initializer):
    """Normal(mean, sigma) redrawn outside [a, b]; a and b are absolute bounds, as in MindSpore."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        if not a < b:
            raise ValueError(f"For 'TruncatedNormal', 'a' must be less than 'b', but got a={a}, b={b}")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def __call__(self, shape):
        out = rng().normal(self.mean, self.sigma, size=shape)
        lo, hi = self.a, self.b
        bad = (out < lo) | (out > hi)
        while np.any(bad):
            out[bad] = rng().normal(self.mean, self.sigma, size=int(bad.sum()))
            bad = (out < lo) | (out > hi)
        return out


class Uniform(Initializer):
    def __init__(self, scale=0.07):
        self.scale = scale

    def __call__(self, shape):
        return rng().uniform(-self.scale, self.scale, size=shape)


def _gain(nonlinearity: str, slope: float) -> float:
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "tanh":
        return 5.0 / 3
    return 1.0


class HeUniform(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def __call__(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = math.sqrt(3.0) * _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        return rng().uniform(-bound, bound, size=shape)


class HeNormal(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def __call__(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return rng().normal(0, _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan), size=shape)


class XavierUniform(Initializer):
    def __init__(self, gain=1):
        self.gain = gain

    def __call__(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return rng().uniform(-bound, bound, size=shape)


_NAMES = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "he_uniform": HeUniform, "heuniform": HeUniform,
    "he_normal": HeNormal, "henormal": HeNormal, "xavier_uniform": XavierUniform,
    "xavieruniform": XavierUniform,
}


def init_array(init, shape, dtype=mstype.float32) -> np.ndarray:
    """A C-contiguous array of `shape` filled by `init`: an Initializer, its name ('normal', 'zeros',
    'he_uniform' ...), a number, or a Tensor (whose shape must match)."""
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    dt = mstype.to_dtype(dtype)
    data = getattr(init, "_data", None)
    if isinstance(data, np.ndarray):        # a Tensor
        if tuple(data.shape) != shape:
            raise ValueError(f"For 'initializer', the shape of the 'init' argument should be the same as the "
                             f"argument 'shape', but got {list(data.shape)} and {list(shape)}")
        return data.astype(dt.np, copy=True)
    return np.array(resolve(init)(shape), dtype=dt.np, order="C")


def resolve(init) -> Initializer:
    """The Initializer an `init` argument stands for: itself, its name's class ('normal', 'zeros',
    ...), Constant(number), or an instance of the class given."""
    if isinstance(init, str):
        key = init.lower()
        if key not in _NAMES:
            raise ValueError(f"For 'initializer', the class corresponding to {init!r} was not found; "
                             f"known: {', '.join(sorted(_NAMES))}")
        init = _NAMES[key]()
    elif isinstance(init, (int, float)) and not isinstance(init, bool):
        init = Constant(init)
    elif isinstance(init, type) and issubclass(init, Initializer):
        init = init()
    if not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', 'init' must be an Initializer, a name, a number or a Tensor, "
                        f"but got {init!r}")
    return init
