"""The functional forms MindSpore 2.10 gives some in-place Tensor methods: `ops.clamp_(x, min, max)`
is `x.clamp_(min, max)` (ops/entries/inplace.py: the result written into x, x returned), likewise
exponential_, normal_, put_, random_, tanh_, zero_, uniform_, bernoulli_ and inplace_sigmoid
(`x.sigmoid_()`). In graph code the frontend rebinds the name passed first, as it does for the
method form (`__pycompile_inplace_fn__`; compiler/expressions.py, compiler/control.py).
MindSpore 2.10's CPU wheel has no kernel for them ("The kernel InplaceClampScalar unregistered"):
tests/ops/test_inplace_functions.py checks them against the methods and NumPy."""
from __future__ import annotations

# name -> the Tensor method it calls; the frontend rebinds the first argument's name after these
INPLACE_FUNCTIONS: dict = {}


def _declare(name, method, doc):
    def fn(input, *args, **kwargs):
        return getattr(input, method)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__pycompile_inplace_fn__ = True
    INPLACE_FUNCTIONS[name] = fn
    return fn


for _name, _method, _doc in (
        ("clamp_", "clamp_", "clamp_(input, min=None, max=None): input clamped in place."),
        ("exponential_", "exponential_", "exponential_(input, lambd=1, *, generator=None): exponential samples in place."),
        ("normal_", "normal_", "normal_(input, mean=0, std=1, *, generator=None): normal samples in place."),
        ("put_", "put_", "put_(input, index, source, accumulate=False): source written at the flat indices."),
        ("random_", "random_", "random_(input, from_=0, to=None, *, generator=None): integers drawn in place."),
        ("tanh_", "tanh_", "tanh_(input): tanh in place."),
        ("zero_", "zero_", "zero_(input): zeros in place."),
        ("uniform_", "uniform_", "uniform_(input, from_=0, to=1, *, generator=None): uniform samples in place."),
        ("bernoulli_", "bernoulli_", "bernoulli_(input, p=0.5, *, generator=None): 0 / 1 samples in place."),
        ("inplace_sigmoid", "sigmoid_", "inplace_sigmoid(input): sigmoid in place.")):
    _declare(_name, _method, _doc)
del _name, _method, _doc


__all__ = list(INPLACE_FUNCTIONS)
globals().update(INPLACE_FUNCTIONS)
