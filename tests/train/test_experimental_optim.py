"""mindspore.experimental.optim (also mint.optim): Adam, AdamW and SGD step by step against torch's
(the PyTorch algorithms MindSpore documents; its 2.10 CPU wheel builds these optimizers but cannot
run a step: "The kernel AdamW unregistered"), in PyNative and compiled; their state Parameters
named as the wheel names them."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, mint
from pycompile.experimental import optim

ORACLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle")
sys.path.insert(0, ORACLE)
import optim_step_cases as C  # noqa: E402

with open(os.path.join(ORACLE, "data", "torch_optim_steps.json")) as _f:
    TORCH = json.load(_f)["cases"]


def _build(name):
    cls, groups, kw = C.CASES[name]
    ws = [Parameter(Tensor(w.copy()), name=n) for w, n in zip(C.W0, ("w", "v"))]
    params = ws if groups is None else [dict(params=[w], **g) for w, g in zip(ws, groups)]
    return ws, getattr(optim, cls)(params, **kw)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(C.CASES))
def test_steps_equal_torchs(name, mode):
    ms.set_context(mode=mode)
    ws, opt = _build(name)
    for k, grads in enumerate(C.GRADS):
        opt(tuple(Tensor(g) for g in grads))
        for w, want in zip(ws, TORCH[name][k]):
            np.testing.assert_allclose(w.asnumpy(), np.array(want), rtol=2e-6, atol=2e-7,
                                       err_msg=f"{name}, step {k + 1}, {w.name}")


def test_state_parameters_are_named_as_the_wheel_names_them():
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    assert [p.name for p in mint.optim.AdamW([w]).get_parameters()] == ["w", "exp_avg.w", "exp_avg_sq.w",
                                                                        "state_step"]
    assert [p.name for p in mint.optim.SGD([w], 0.1, momentum=0.9).get_parameters()] == ["w", "momentum_buf.w",
                                                                                        "step_t"]
    assert mint.optim.Adam is optim.Adam


def test_a_training_step_with_a_compiled_grad():
    """optimizer(grads) after ms.value_and_grad, the way the PyTorch-style tutorials write it."""
    net = ms.nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
    opt = mint.optim.AdamW(net.trainable_params(), lr=0.05)
    loss_fn = ms.nn.MSELoss()

    def forward(x, y):
        return loss_fn(net(x), y)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 1), np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(5)]
    assert losses[-1] < losses[0]


import lr_scheduler_cases as LRC  # noqa: E402

with open(os.path.join(ORACLE, "data", "lr_scheduler_steps.json")) as _f:
    MS_LR = json.load(_f)["cases"]


@pytest.mark.parametrize("name", sorted(LRC.CASES))
def test_scheduler_rates_equal_mindsporess(name):
    cls, kw = LRC.CASES[name]
    w, v = (Parameter(Tensor(np.ones(2, np.float32)), name=n) for n in ("w", "v"))
    opt = optim.SGD([{"params": [w], "lr": 0.1}, {"params": [v], "lr": 0.05}], lr=0.1)
    sch = getattr(optim.lr_scheduler, cls)(opt, **kw)
    got = [[float(x.asnumpy()) for x in sch.get_last_lr()]]
    for _ in range(LRC.STEPS):
        sch.step()
        got.append([float(x.asnumpy()) for x in sch.get_last_lr()])
    np.testing.assert_allclose(got, MS_LR[name], rtol=2e-6, atol=1e-9)


def _two_groups():
    w, v = (Parameter(Tensor(np.ones(2, np.float32)), name=n) for n in ("w", "v"))
    return optim.SGD([{"params": [w], "lr": 0.1}, {"params": [v], "lr": 0.05}], lr=0.1)


def _rates(sch):
    return [float(x.asnumpy()) for x in sch.get_last_lr()]


@pytest.mark.parametrize("name", sorted(LRC.PLATEAU))
def test_reduce_lr_on_plateau_rates_equal_mindsporess(name):
    sch = optim.lr_scheduler.ReduceLROnPlateau(_two_groups(), **LRC.PLATEAU[name])
    got = [_rates(sch)]
    for m in LRC.METRICS:
        sch.step(m)
        got.append(_rates(sch))
    np.testing.assert_allclose(got, MS_LR[name], rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(LRC.EPOCHS))
def test_warm_restarts_stepped_to_epochs_equal_mindsporess(name):
    kw, epochs = LRC.EPOCHS[name]
    sch = optim.lr_scheduler.CosineAnnealingWarmRestarts(_two_groups(), **kw)
    got = [_rates(sch)]
    for e in epochs:
        sch.step(e)
        got.append(_rates(sch))
    np.testing.assert_allclose(got, MS_LR[name], rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(LRC.SEQUENTIAL))
def test_sequential_rates_equal_mindsporess(name):
    opt = _two_groups()
    parts, milestones = LRC.SEQUENTIAL[name]
    scheds = [getattr(optim.lr_scheduler, cls)(opt, **kw) for cls, kw in parts]
    sch = optim.lr_scheduler.SequentialLR(opt, schedulers=scheds, milestones=milestones)
    got = [_rates(sch)]
    for _ in range(LRC.STEPS + 4):
        sch.step()
        got.append(_rates(sch))
    np.testing.assert_allclose(got, MS_LR[name], rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(LRC.JUMPS))
def test_schedules_stepped_to_epochs_equal_mindsporess(name):
    cls, kw = LRC.JUMPS[name]
    sch = getattr(optim.lr_scheduler, cls)(_two_groups(), **kw)
    got = [_rates(sch)]
    for e in LRC.JUMP_EPOCHS:
        sch.step(e)
        got.append(_rates(sch))
    np.testing.assert_allclose(got, MS_LR[name], rtol=2e-6, atol=1e-9)


def test_multistep_stepped_to_an_epoch_counts_the_milestones_passed():
    """MultiStepLR.step(epoch) (the wheel's raises AttributeError: its closed form reads a
    step_size): the base rate times gamma to the number of milestones <= epoch, PyTorch's rule."""
    sch = optim.lr_scheduler.MultiStepLR(_two_groups(), milestones=[2, 5, 5], gamma=0.1)
    for e, passed in ((0, 0), (2, 1), (4, 1), (5, 3), (9, 3), (1, 0)):
        sch.step(e)
        np.testing.assert_allclose(_rates(sch), [0.1 * 0.1 ** passed, 0.05 * 0.1 ** passed], rtol=1e-6)


def test_sequential_checks_its_arguments_as_mindspore():
    opt, other = _two_groups(), _two_groups()
    a = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    b = optim.lr_scheduler.ExponentialLR(other, gamma=0.9)
    with pytest.raises(ValueError, match="got scheduler at index 1 is different from the optimizer passed in"):
        optim.lr_scheduler.SequentialLR(opt, schedulers=[a, b], milestones=[2])
    with pytest.raises(ValueError, match="number of schedulers 1 and the number of milestones 1"):
        optim.lr_scheduler.SequentialLR(opt, schedulers=[a], milestones=[2])


def test_warm_restarts_with_t_mult_jump_to_where_single_steps_lead():
    """step(epoch) with T_mult > 1 (the wheel raises TypeError inside it: its Log takes one input):
    the rates of a jump to epoch e are those of e single steps, as PyTorch's documentation says."""
    for e in (1, 2, 5, 6, 13, 14):
        walk = optim.lr_scheduler.CosineAnnealingWarmRestarts(_two_groups(), T_0=2, T_mult=2, eta_min=0.001)
        for _ in range(e):
            walk.step()
        jump = optim.lr_scheduler.CosineAnnealingWarmRestarts(_two_groups(), T_0=2, T_mult=2, eta_min=0.001)
        jump.step(e)
        np.testing.assert_allclose(_rates(jump), _rates(walk), rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_a_scheduled_rate_reaches_compiled_steps(mode):
    """The group's lr is a Parameter: after StepLR halves it, the next (already compiled) SGD step
    moves the weight by half as much."""
    ms.set_context(mode=mode)
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = optim.SGD([w], lr=1.0)
    sch = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    grad = (Tensor(np.ones(1, np.float32)),)
    moves = []
    for _ in range(3):
        before = float(w.asnumpy()[0])
        opt(grad)
        moves.append(before - float(w.asnumpy()[0]))
        sch.step()
    np.testing.assert_allclose(moves, [1.0, 0.5, 0.25])
    opt.param_groups[0]["lr"].set_data(Tensor(np.array(2.0, np.float32)))
    before = float(w.asnumpy()[0])
    opt(grad)
    assert before - float(w.asnumpy()[0]) == 2.0


def test_the_base_scheduler_keeps_the_rates():
    w = Parameter(Tensor(np.ones(1, np.float32)), name="w")
    opt = optim.SGD([w], lr=0.1)
    sch = optim.lr_scheduler.LRScheduler(opt)
    sch.step()
    assert sch.last_epoch == 1
    np.testing.assert_allclose(float(sch.get_last_lr()[0].asnumpy()), 0.1, rtol=1e-7)
