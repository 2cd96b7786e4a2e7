"""The compiled call's fast path (backend/executable.py make_caller, csrc/call.c, api.JitFunction's
guarded last-signature call) keeps every semantic of the plain path: a new shape or dtype after
many calls recompiles, a Tensor changed in place or replaced by the user and a Parameter updated
between calls are read fresh, in-place Assigns persist, a configuration change recompiles, a call
overlapping another (another thread) gets its own arena, runtime errors raise MindSpore's class,
and the Python caller (the fallback, and the path without the C helper) agrees with the C one.
Expected values come from NumPy."""

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile import api
from pycompile.backend import executable
from pycompile.common import context
from thread_helpers import run_in_threads

F32 = np.float32


@ms.jit
def add_one(x):
    return x + 1


W = Parameter(Tensor(np.array([1.0, 2.0, 3.0], F32)), name="w_call_path")


@ms.jit
def scale(x):
    return x * W


@ms.jit
def bump(x):
    ops.assign(W, W + x)
    return W * 1


@ms.jit
def several(x, y):
    return x + y, (x * y).sum(), [x - y]


def _compiled(fn):
    return list(fn._cache.values())


def test_many_calls_then_a_new_shape_and_dtype_recompile():
    x = Tensor(np.array([1.0], F32))
    for k in range(200):
        assert add_one(x).asnumpy()[0] == 2.0
    n = len(_compiled(add_one))
    if executable._CCaller is not None:
        assert add_one._last is not api._no_match          # the guarded call is in use
    x3 = np.array([1.0, 2.0, 3.0], F32)
    out = add_one(Tensor(x3))
    assert out.shape == (3,) and np.array_equal(out.asnumpy(), x3 + 1)
    xd = np.array([[1.5, 2.5]], np.float64)
    out = add_one(Tensor(xd))
    assert out.dtype == ms.float64 and np.array_equal(out.asnumpy(), xd + 1)
    xi = np.array([7], np.int32)
    out = add_one(Tensor(xi))
    assert out.dtype == ms.int32 and np.array_equal(out.asnumpy(), xi + 1)
    assert len(_compiled(add_one)) == n + 3
    # and back to the first signature, without compiling again
    assert add_one(x).asnumpy()[0] == 2.0
    assert len(_compiled(add_one)) == n + 3


def test_a_tensor_changed_in_place_or_replaced_is_read_fresh():
    t = Tensor(np.array([1.0, 2.0], F32))
    assert np.array_equal(add_one(t).asnumpy(), [2.0, 3.0])
    assert np.array_equal(add_one(t).asnumpy(), [2.0, 3.0])
    t[0] = 10.0                                    # written into the same buffer
    assert np.array_equal(add_one(t).asnumpy(), [11.0, 3.0])
    t.set_data(np.array([5.0, 6.0], F32))          # a new buffer, same signature
    assert np.array_equal(add_one(t).asnumpy(), [6.0, 7.0])
    t.set_data(np.array([1.0, 2.0, 3.0], F32))     # the same Tensor, a new shape: recompiles
    assert np.array_equal(add_one(t).asnumpy(), [2.0, 3.0, 4.0])


def test_outputs_are_fresh_arrays_each_call():
    t = Tensor(np.array([1.0], F32))
    a, b = add_one(t), add_one(t)
    assert a._data is not b._data and not np.shares_memory(a._data, b._data)
    a[0] = 100.0
    assert b.asnumpy()[0] == 2.0


def test_a_parameter_updated_between_calls_is_read_fresh():
    x = Tensor(np.array([2.0, 2.0, 2.0], F32))
    W.set_data(Tensor(np.array([1.0, 2.0, 3.0], F32)))
    assert np.array_equal(scale(x).asnumpy(), [2.0, 4.0, 6.0])
    W.set_data(Tensor(np.array([3.0, 3.0, 3.0], F32)))      # written into its buffer
    assert np.array_equal(scale(x).asnumpy(), [6.0, 6.0, 6.0])
    W._data = np.array([0.5, 1.0, 1.5], F32)                # a new buffer
    assert np.array_equal(scale(x).asnumpy(), [1.0, 2.0, 3.0])


def test_in_place_assigns_persist_across_fast_calls():
    W.set_data(Tensor(np.zeros(3, F32)))
    x = Tensor(np.array([1.0, 2.0, 3.0], F32))
    for k in range(1, 6):
        assert np.array_equal(bump(x).asnumpy(), np.array([1.0, 2.0, 3.0], F32) * k)
    assert np.array_equal(W.asnumpy(), [5.0, 10.0, 15.0])


def test_tuple_list_and_number_results():
    x, y = np.array([1.0, 2.0], F32), np.array([3.0, 5.0], F32)
    for _ in range(3):
        s, p, (d,) = several(Tensor(x), Tensor(y))
        assert np.array_equal(s.asnumpy(), x + y) and np.array_equal(d.asnumpy(), x - y)
        assert float(p.asnumpy() if isinstance(p, Tensor) else p) == float((x * y).sum())


def test_a_configuration_change_recompiles():
    x = Tensor(np.array([1.0], F32))
    add_one(x)
    n = len(_compiled(add_one))
    ms.set_context(mode=ms.PYNATIVE_MODE)         # any set_context bumps the generation
    assert add_one(x).asnumpy()[0] == 2.0
    assert len(_compiled(add_one)) == n + 1


def test_runtime_errors_raise_at_every_call():
    @ms.jit
    def pick(x, i):
        return ops.gather(x, i, 0) * 2

    x = Tensor(np.arange(5, dtype=F32))
    assert np.array_equal(pick(x, Tensor(np.array([4], np.int32))).asnumpy(), [8.0])
    for _ in range(2):
        with pytest.raises(RuntimeError, match="For 'Gather'"):
            pick(x, Tensor(np.array([5], np.int32)))
    assert np.array_equal(pick(x, Tensor(np.array([1], np.int32))).asnumpy(), [2.0])


def test_a_call_overlapping_another_gets_its_own_arena():
    """The executable's lock held (another thread inside the call): the call takes the Python
    caller with its own argument array and arena, and the result is right."""
    x = Tensor(np.array([1.0, 2.0], F32))
    add_one(x)
    exe = add_one._cache[(api._positional_key((x,)), (), context.generation())].exe
    assert exe._busy.acquire(False)
    try:
        assert np.array_equal(add_one(x).asnumpy(), [2.0, 3.0])
        assert np.array_equal(add_one(Tensor(np.array([5.0, 6.0], F32))).asnumpy(), [6.0, 7.0])
    finally:
        exe._busy.release()
    assert np.array_equal(add_one(x).asnumpy(), [2.0, 3.0])


def test_threads_calling_one_function():
    @ms.jit
    def work(x):
        return ops.sin(x) * 2 + x

    data = [np.linspace(k, k + 1, 4096, dtype=F32) for k in range(4)]
    work(Tensor(data[0]))

    def run(k):
        for _ in range(50):
            out = work(Tensor(data[k])).asnumpy()
            np.testing.assert_allclose(out, np.sin(data[k]) * 2 + data[k], rtol=1e-5, atol=1e-5)

    run_in_threads(run)


def test_a_non_contiguous_array_behind_a_tensor():
    """_wrap_array does not check; the caller copes with a strided array (the Python fallback)."""
    base = np.arange(8, dtype=F32)
    t = Tensor._wrap_array(base[::2])
    assert np.array_equal(add_one(t).asnumpy(), base[::2] + 1)


def test_the_python_caller_agrees(monkeypatch):
    """Without the C helper (a source tree whose extension is not built) the Python caller is the
    whole fast path."""
    monkeypatch.setattr(executable, "_CCaller", None)

    @ms.jit
    def f(x, y):
        return x * y + 1, x - y

    x, y = np.array([1.0, 2.0], F32), np.array([3.0, 4.0], F32)
    for _ in range(3):
        a, b = f(Tensor(x), Tensor(y))
        assert np.array_equal(a.asnumpy(), x * y + 1) and np.array_equal(b.asnumpy(), x - y)
    (compiled,) = _compiled(f)
    assert compiled.guarded is None
    t = Tensor(x)
    assert np.array_equal(f(t, Tensor(y))[0].asnumpy(), x * y + 1)
    t[1] = 0.0                                     # the pinned pointer still reads the live buffer
    assert np.array_equal(f(t, Tensor(y))[0].asnumpy(), [4.0, 1.0])
    t.set_data(np.array([2.0, 2.0], F32))
    assert np.array_equal(f(t, Tensor(y))[0].asnumpy(), [7.0, 9.0])


def test_an_empty_result_and_many_outputs():
    """() takes the Python caller; 70 outputs - more than the C helper keeps on its stack (csrc/call.c
    MAX_HELD) - take the C helper with room from the heap."""
    @ms.jit
    def nothing(x):
        return ()

    @ms.jit
    def fan(x):
        return tuple(x * k for k in range(70))

    x = Tensor(np.array([1.0, 2.0], F32))
    for _ in range(2):
        assert nothing(x) == ()
        outs = fan(x)
        assert len(outs) == 70 and all(np.array_equal(o.asnumpy(), x.asnumpy() * k) for k, o in enumerate(outs))


def test_more_parameters_than_the_stack_holds():
    """A model with 100 Parameters (W6 L=12 has 194) runs through the C helper too, and sees
    set_data and in-place updates of any of them on the next call."""
    class Many(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = nn.CellList([nn.Dense(2, 2) for _ in range(50)])

        def construct(self, x):
            for d in self.ws:
                x = d(x) * 0.5
            return x

    net = Many()
    x = Tensor(np.array([[1.0, -2.0]], F32))

    def want():
        h = x.asnumpy()
        for d in net.ws:
            h = (h @ d.weight.asnumpy().T + d.bias.asnumpy()) * 0.5
        return h

    f = ms.jit(lambda t: net(t))
    for _ in range(2):
        np.testing.assert_allclose(f(x).asnumpy(), want(), rtol=1e-5, atol=1e-7)
    if executable._CCaller is not None:
        (compiled,) = _compiled(f)
        assert compiled.guarded is not None         # the C helper, not the Python caller
    net.ws[49].bias.set_data(Tensor(np.array([3.0, -1.0], F32)))
    np.testing.assert_allclose(f(x).asnumpy(), want(), rtol=1e-5, atol=1e-7)
    ops.assign(net.ws[0].weight, Tensor(np.full((2, 2), 0.25, F32)))
    np.testing.assert_allclose(f(x).asnumpy(), want(), rtol=1e-5, atol=1e-7)
