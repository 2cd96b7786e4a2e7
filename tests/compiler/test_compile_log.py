"""The pycompile logger (common/log.py, compile_log.py): silent by default; with the compiles /
recompiles / cache / output_code channels on, one line per compile with its signature and stage
times, and per recompile the argument that changed; a warning after RECOMPILE_LIMIT recompiles
for the same tensor shapes naming the changing argument and ms.mutable."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import compile_log
from pycompile.common import log


@pytest.fixture(autouse=True)
def _no_slow_notice(monkeypatch):
    # on a loaded machine even these tiny compiles can pass one second; the notice has its own test
    monkeypatch.setattr(compile_log, "SLOW_COMPILE_SECONDS", 120.0)


def _t(shape, dt=np.float32):
    return ms.Tensor(np.ones(shape, dt))


def scale(x, n):
    return x * n + 1


def test_silent_by_default(capsys, monkeypatch):
    monkeypatch.delenv("PYCOMPILE_LOG", raising=False)
    f = ms.jit(scale)
    f(_t((2, 3)), 2)
    f(_t((3, 3)), 2)
    assert capsys.readouterr().err == ""


def test_compile_and_recompile_lines_name_the_change(capsys):
    ms.set_context(log="compiles,recompiles")
    f = ms.jit(scale)
    out = f(_t((2, 3)), 2)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 3, np.float32))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    line = err[0]
    assert line.startswith("[pycompile] compiled scale (test_compile_log.py:")
    assert "(x: Tensor[Float32, (2, 3)], n: int=2)" in line
    for stage in ("trace", "passes", "codegen", "cc", "load"):
        assert f" {stage} " in line

    f(_t((2, 3)), 2)                               # same signature: nothing to say
    assert capsys.readouterr().err == ""
    f(_t((4, 3)), 2)
    f(_t((4, 3), np.float64), 2)
    f(_t((4, 3), np.float64), 5)
    err = [ln for ln in capsys.readouterr().err.splitlines() if "recompiling" in ln]
    assert "x changed shape (2, 3) -> (4, 3)" in err[0]
    assert "x changed dtype Float32 -> Float64" in err[1]
    assert "n changed value 2 -> 5" in err[2]
    assert all("recompiling scale (test_compile_log.py:" in ln for ln in err)


def test_environment_switch_and_channel_names(monkeypatch, capsys):
    monkeypatch.setenv("PYCOMPILE_LOG", "recompiles")
    f = ms.jit(scale)
    f(_t((2,)), 1)
    f(_t((2,)), 1.5)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "n changed from int=1 to float=1.5" in err[0]
    assert log.parse("all") == set(log.CHANNELS)
    with pytest.raises(ValueError, match="unknown pycompile log channel 'compile'.*compiles"):
        ms.set_context(log="compile")
    with pytest.raises(TypeError):
        ms.set_context(log=3)


def test_output_code_logs_the_generated_c(capsys):
    ms.set_context(log=["output_code"])
    ms.jit(scale)(_t((2, 2)), 3)
    err = capsys.readouterr().err
    assert "[pycompile] generated C for scale" in err and "pc_entry" in err


def test_recompile_limit_warns_once_naming_the_argument(capsys, monkeypatch):
    """Nine signatures differing only in `lr`: the eighth recompile warns (once), naming `lr`
    and ms.mutable. Keys are built as api._signature builds them; nothing is compiled."""
    monkeypatch.delenv("PYCOMPILE_LOG", raising=False)
    log.configure("")

    def step(x, lr, momentum):
        return x

    cache = compile_log.SpecCache()
    tensor = (np.dtype(np.float32), (64, 10))
    for k in range(12):
        key = ((tensor, (float, 0.1 * k), (float, 0.9)), (), 0)
        compile_log.before_compile(cache, step, key, "step", bound=False)
        cache.order.append(key)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert "step (test_compile_log.py:" in err[0]
    assert "recompiled 8 times for the same tensor shapes" in err[0]
    assert "argument 'lr'" in err[0] and "'momentum'" not in err[0]
    assert "ms.mutable" in err[0]


def test_no_limit_warning_when_shapes_change(capsys):
    log.configure("")

    def f(x):
        return x

    cache = compile_log.SpecCache()
    for k in range(12):
        key = (((np.dtype(np.float32), (k + 1, 4)),), (), 0)
        compile_log.before_compile(cache, f, key, "f", bound=False)
        cache.order.append(key)
    assert capsys.readouterr().err == ""


def lr_step(x, lr):
    return x - lr * x


def _lr_calls(f, values, wrap=lambda v: v):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    for lr in values:
        np.testing.assert_allclose(f(ms.Tensor(x), wrap(lr)).asnumpy(), x - np.float32(lr) * x, rtol=1e-6)


def test_recompile_warning_from_real_calls_names_the_argument(capsys, monkeypatch):
    """What a training loop with a Python-float learning rate sees: keys built by the jit layer
    itself, the warning printed with logging off, once. The limit is lowered to 2 so the test
    compiles three times instead of nine (the count itself: the test above)."""
    monkeypatch.setattr(compile_log, "RECOMPILE_LIMIT", 2)
    monkeypatch.delenv("PYCOMPILE_LOG", raising=False)
    ms.set_context(log="")
    _lr_calls(ms.jit(lr_step), (0.1, 0.2, 0.3, 0.4, 0.3))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("[pycompile] lr_step (test_compile_log.py:")
    assert "argument 'lr'" in err[0] and "ms.mutable(...)" in err[0] and "'x'" not in err[0]


def test_a_mutable_learning_rate_compiles_once_and_does_not_warn(capsys, monkeypatch):
    """The warning's advice works: the same loop with ms.mutable(lr) compiles one executable
    and says nothing (with the limit lowered as above, so a recompile per value would warn)."""
    monkeypatch.setattr(compile_log, "RECOMPILE_LIMIT", 2)
    ms.set_context(log="compiles")
    _lr_calls(ms.jit(lr_step), (0.1, 0.2, 0.3, 0.4), wrap=ms.mutable)
    err = capsys.readouterr().err.splitlines()
    assert len([ln for ln in err if ln.startswith("[pycompile] compiled lr_step")]) == 1, err
    assert not any("recompiled" in ln for ln in err), err
