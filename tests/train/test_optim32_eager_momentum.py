"""PyNative's Momentum update on NumPy buffers (nn/optim/_eager_update.py, issue 32 W9): the
Parameters after N PyNative steps are bit for bit those of the table-op update (the path
`_eager_update._FAST[0] = False` keeps), for float32 and float16, with weight decay, loss
scale, use_nesterov and per-group rates; under a tracer (grad tape, @jit) the table ops run;
and a compiled training step still equals the PyNative one."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn
from pycompile.nn.optim import _eager_update

_SHAPES = [(4, 3), (3,), (2, 2, 3), ()]


def _params(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [Parameter(Tensor(rng.standard_normal(s).astype(dtype)), name=f"w{i}") for i, s in enumerate(_SHAPES)]


def _run(fast, dtype, steps=4, **kw):
    params = _params(dtype)
    if kw.pop("groups", False):
        params = [{"params": params[:2], "lr": 0.05}, {"params": params[2:]}]
    opt = nn.Momentum(params, kw.pop("lr", 0.1), 0.9, **kw)
    rng = np.random.default_rng(1)
    calls = []
    saved = _eager_update._FAST[0]
    _eager_update._FAST[0] = fast
    real = _eager_update.momentum_update

    def spy(*a):
        done = real(*a)
        calls.append(done)
        return done
    _eager_update.momentum_update = spy
    try:
        import pycompile.nn.optim.sgd as sgd
        sgd.momentum_update = spy
        for _ in range(steps):
            grads = tuple(Tensor((rng.standard_normal(s) * 3).astype(dtype)) for s in _SHAPES)
            opt(grads)
    finally:
        _eager_update._FAST[0] = saved
        _eager_update.momentum_update = real
        sgd.momentum_update = real
    state = [p.asnumpy() for p in opt.parameters] + [m.asnumpy() for m in opt.moments]
    return state + [opt.global_step.asnumpy()], calls


CASES = [
    dict(dtype=np.float32),
    dict(dtype=np.float16),
    dict(dtype=np.float64),
    dict(dtype=np.float32, weight_decay=0.01),
    dict(dtype=np.float16, weight_decay=0.01, loss_scale=4.0),
    dict(dtype=np.float32, use_nesterov=True),
    dict(dtype=np.float32, groups=True),
    dict(dtype=np.float32, lr=[0.1, 0.05, 0.02, 0.01]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={getattr(v, '__name__', v)}" for k, v in c.items()))
def test_fast_update_is_bit_identical_to_the_table_ops(case):
    case = dict(case)
    dtype = case.pop("dtype")
    fast, calls = _run(True, dtype, **dict(case))
    slow, _ = _run(False, dtype, **dict(case))
    assert calls and all(calls), "the fast path did not run"
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), (a, b)


def _net_step():
    ms.set_seed(3)
    net = nn.SequentialCell(nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=0.001)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def test_pynative_training_steps_match_the_table_ops_and_the_compiled_step():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((5, 6)).astype(np.float32))
    y = Tensor(rng.integers(0, 3, 5).astype(np.int32))
    results = []
    for fast in (True, False):
        saved, _eager_update._FAST[0] = _eager_update._FAST[0], fast
        try:
            net, step = _net_step()
            losses = [step(x, y).asnumpy() for _ in range(3)]
        finally:
            _eager_update._FAST[0] = saved
        results.append((losses, [p.asnumpy() for p in net.trainable_params()]))
    (l_fast, p_fast), (l_slow, p_slow) = results
    assert [a.tobytes() for a in l_fast + p_fast] == [b.tobytes() for b in l_slow + p_slow]
    net, step = _net_step()
    compiled = ms.jit(step.construct)
    got = [compiled(x, y).asnumpy() for _ in range(3)]
    np.testing.assert_allclose(got, l_fast, rtol=1e-5)
    for a, b in zip(net.trainable_params(), p_fast):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-5, atol=1e-7)


def test_not_taken_under_a_tracer():
    """Inside a grad tape the update's ops are the tape's to see: no fast path."""
    params = _params(np.float32)
    opt = nn.Momentum(params, 0.1, 0.9)
    grads = tuple(Tensor(np.ones(s, np.float32)) for s in _SHAPES)
    before = params[0].asnumpy()
    seen = []

    def f(x):
        seen.append(_eager_update.eager_ready())
        opt(grads)
        return x * 2.0
    assert _eager_update.eager_ready()
    ms.grad(f)(Tensor(np.float32(1.0)))
    assert seen == [False]
    assert not np.array_equal(params[0].asnumpy(), before)     # the table ops updated it


def test_global_step_wraps_as_the_table_add():
    out = []
    for fast in (True, False):
        opt = nn.Momentum(_params(np.float32), 0.1, 0.9)
        opt.global_step.set_data(Tensor(np.array([2**31 - 1], np.int32)))
        saved, _eager_update._FAST[0] = _eager_update._FAST[0], fast
        try:
            opt(tuple(Tensor(np.ones(s, np.float32)) for s in _SHAPES))
        finally:
            _eager_update._FAST[0] = saved
        out.append(opt.global_step.asnumpy())
    assert out[0].dtype == out[1].dtype and out[0].tobytes() == out[1].tobytes()
