"""nn.Lamb. MindSpore 2.10's CPU build constructs it (the recorded names and initial state below
come from the wheel) but fails at the first step ("Unsupported op [Lamb] on CPU"), so the steps
are checked against a NumPy transcription of the update MindSpore's GPU kernel computes (written
out here, independent of pycompile), in PyNative and compiled."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

from oracle_data import array, assert_tensor, load

DATA = load("optimizers.json")
RECORD = next(c for c in DATA["configs"] if c["name"] == "Lamb")["results"]["pynative"]
X, Y, W0, B0 = (array(DATA["inputs"][k]) for k in ("x", "y", "w0", "b0"))


class Model(nn.Cell):
    def __init__(self, w0, b0, dtype=ms.float32):
        super().__init__()
        self.w = Parameter(Tensor(w0, dtype), name="w")
        self.b = Parameter(Tensor(b0, dtype), name="b")

    def construct(self, x, y):
        out = ops.matmul(x, ops.cast(self.w, ms.float32).T) + ops.cast(self.b, ms.float32)
        return ops.mean(ops.square(out - y))


def _numpy_grads(w, b):
    out = X @ w.T + b
    d = 2.0 * (out - Y) / out.size
    return d.T @ X, d.sum(0)


def _numpy_lamb(params, grads, state, t, lr, wds, b1=0.9, b2=0.999, eps=1e-6):
    """One step of MindSpore's Lamb kernel (float32 arithmetic); state: name -> (m, v)."""
    f = np.float32
    out = {}
    for name, p in params.items():
        g = grads[name]
        m, v = state[name]
        m = f(b1) * m + (f(1) - f(b1)) * g
        v = f(b2) * v + (f(1) - f(b2)) * g * g
        u = (m / (f(1) - f(b1) ** f(t))) / (np.sqrt(v / (f(1) - f(b2) ** f(t))) + f(eps)) + f(wds[name]) * p
        wn, un = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(u * u))
        r = wn / un if wn > 0 and un > 0 else f(1)
        out[name] = (p - f(lr) * r * u).astype(np.float32)
        state[name] = (m, v)
    return out


def _train(mode, make_opt, steps=5, b0=B0, dtype=ms.float32):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net = Model(W0, b0, dtype)
    opt = make_opt(net)
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    if mode == "graph":
        step = ms.jit(step)
    history = []
    for _ in range(steps):
        step(Tensor(X), Tensor(Y))
        history.append((net.w.asnumpy().astype(np.float32), net.b.asnumpy().astype(np.float32)))
    return net, opt, history


def _reference(lr, wds, steps=5, b0=B0):
    params = {"w": W0.astype(np.float32), "b": b0.astype(np.float32)}
    state = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    history = []
    for t in range(1, steps + 1):
        gw, gb = _numpy_grads(params["w"], params["b"])
        params = _numpy_lamb(params, {"w": gw, "b": gb}, state, t, lr, wds)
        history.append((params["w"], params["b"]))
    return history


def test_construction_matches_mindspore():
    net = Model(W0, B0)
    opt = nn.Lamb(net.trainable_params(), learning_rate=0.1)
    assert [n for n, _ in opt.parameters_and_names()] == RECORD["param_names_in_order"]
    assert [p.name for p in opt.parameters] == RECORD["opt_parameters"]
    state = dict(opt.parameters_and_names())
    for name, enc in RECORD["initial_state"].items():
        assert_tensor(state[name], enc, f"initial {name}")


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_steps_match_the_kernel_formula(mode):
    _, _, got = _train(mode, lambda net: nn.Lamb(net.trainable_params(), learning_rate=0.1))
    want = _reference(0.1, {"w": 0.0, "b": 0.0})
    for k, ((gw, gb), (ww, wb)) in enumerate(zip(got, want)):
        np.testing.assert_allclose(gw, ww, rtol=2e-5, atol=2e-6, err_msg=f"w after step {k + 1}")
        np.testing.assert_allclose(gb, wb, rtol=2e-5, atol=2e-6, err_msg=f"b after step {k + 1}")


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_groups_weight_decay_and_a_zero_parameter(mode):
    """Per-group decay (w decays, b does not) and a bias that starts at zero: its norm is 0, so its
    trust ratio is 1 on the first step."""
    zero_b = np.zeros_like(B0)

    def make(net):
        return nn.Lamb([{"params": [net.w], "weight_decay": 0.05}, {"params": [net.b], "lr": 0.02}],
                       learning_rate=0.1)
    _, _, got = _train(mode, make, b0=zero_b)
    params = {"w": W0.astype(np.float32), "b": zero_b}
    state = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    for t, (gw, gb) in enumerate(got, start=1):
        grads = dict(zip(("w", "b"), _numpy_grads(params["w"], params["b"])))
        new = {}
        for name, lr, wd in (("w", 0.1, 0.05), ("b", 0.02, 0.0)):
            new.update(_numpy_lamb({name: params[name]}, {name: grads[name]}, state, t, lr, {name: wd}))
        params = new
        np.testing.assert_allclose(gw, params["w"], rtol=2e-5, atol=2e-6, err_msg=f"w after step {t}")
        np.testing.assert_allclose(gb, params["b"], rtol=2e-5, atol=2e-6, err_msg=f"b after step {t}")


def test_float16_parameters_update_in_float32_and_round():
    """A float16 Parameter keeps its dtype; the update is computed in float32 from its value."""
    _, opt, got = _train("pynative", lambda net: nn.Lamb(net.trainable_params(), learning_rate=0.1),
                         steps=1, dtype=ms.float16)
    assert opt.parameters[0].dtype == ms.float16
    assert opt.moments1[0].dtype == ms.float16
    w16 = W0.astype(np.float16).astype(np.float32)
    b16 = B0.astype(np.float16).astype(np.float32)
    gw, gb = _numpy_grads(w16, b16)
    state = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in (("w", w16), ("b", b16))}
    want = _numpy_lamb({"w": w16, "b": b16}, {"w": gw, "b": gb}, state, 1, 0.1, {"w": 0.0, "b": 0.0})
    np.testing.assert_allclose(got[0][0], want["w"].astype(np.float16).astype(np.float32), rtol=2e-3, atol=1e-3)


def test_arguments_are_checked_as_mindspore_does():
    net = Model(W0, B0)
    with pytest.raises(TypeError):
        nn.Lamb(net.trainable_params(), 0.1, beta1=1)
    with pytest.raises(ValueError):
        nn.Lamb(net.trainable_params(), 0.1, beta2=1.0)
    with pytest.raises(ValueError):
        nn.Lamb(net.trainable_params(), 0.1, eps=0.0)
    with pytest.raises(ValueError):
        nn.Lamb(net.trainable_params(), 0.1, weight_decay=-1.0)
