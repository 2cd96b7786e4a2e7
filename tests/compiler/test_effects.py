"""Side effects in compiled code (issue 7): Parameters + assign, Load / UpdateState / TensorMove,
MS_DEV_SIDE_EFFECT_LOAD_ELIM levels, Depend, Print order, the Ascend-style float-status stub."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile import dtype as mstype
from pycompile.compiler import ir


class ForwardNet(nn.Cell):
    """The spec's ForwardNet (Optimizing Redundant Memory Copy)."""

    def __init__(self):
        super().__init__()
        self.weight = Parameter(ms.tensor(np.array(0), ms.int32), name="param")

    @ms.jit
    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            ops.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


def _ops(report, name):
    return [n for n in ir.iter_nodes(report.graph_after.body) if n.op.name == name]


@pytest.mark.parametrize("level", ["0", "1", "2", "3"])
def test_forward_net_levels(monkeypatch, level):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    net = ForwardNet()
    x = ms.tensor(np.array(1), ms.int32)
    out = net(x)
    # each Load sees the value assigned just before it: x * (0 + 1 + 2); level 3 reads the
    # Parameter when the fused kernel runs, after the last Assign: x * (2 + 2 + 2)
    assert int(out.asnumpy()) == (6 if level == "3" else 3)
    assert int(net.weight.asnumpy()) == 2
    report = ms.inspect(net.construct, x)
    loads, moves = _ops(report, "Load"), _ops(report, "TensorMove")
    assert len(loads) == 3
    if level in ("0", "1"):
        assert len(moves) == 3                      # one TensorMove per Load, as the spec's IR
        for load in loads:
            assert any(m.inputs[0] is load for m in moves)
    else:
        assert moves == []
    assert report.copied_bytes == (12 if level in ("0", "1") else 0)


def test_forward_net_ir_text_matches_spec_form(monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "1")
    net = ForwardNet()
    text = ms.inspect(net.construct, ms.tensor(np.array(1), ms.int32)).ir_after
    expected = [
        "%para1_x : <Tensor[Int32], ()>",
        "%para2_param : <Ref[Tensor[Int32]], (), ref_key=:param>  :  has_default",
        "%0 = Assign(%para2_param, Tensor(shape=[], dtype=Int32, value=0), U)",
        "%1 = UpdateState(U, %0)",
        "%2 = Load(%para2_param, %1)",
        "%3 = TensorMove(%2)",
        "%4 = UpdateState(%1, %3)",
        "%5 = Assign(%para2_param, Tensor(shape=[], dtype=Int32, value=1), %4)",
    ]
    for line in expected:
        assert line in text, line
    assert text.rstrip().endswith("Return(%17)\n}") or "Depend(" in text


def test_level2_copies_less_than_level1(monkeypatch):
    sizes = {}
    for level in ("1", "2"):
        monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.arange(16, dtype=np.float32)), name="w")

            def construct(self, x):
                y = x * self.w
                ops.assign(self.w, x)
                return y + self.w

        net = Net()
        x = Tensor(np.full(16, 2.0, np.float32))
        ms.set_context(mode=ms.GRAPH_MODE)
        out = net(x)
        np.testing.assert_allclose(out.asnumpy(), 2 * np.arange(16) + 2)
        sizes[level] = ms.inspect(net, x).copied_bytes
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert sizes["1"] == 128 and sizes["2"] == 0     # level 1 copies both loads of w


def test_parameter_buffer_is_shared_not_copied():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.zeros(4, np.float32)), name="w")

        @ms.jit
        def construct(self, x):
            ops.assign(self.w, self.w + x)
            return self.w * 1

    net = Net()
    buf = net.w._data
    x = Tensor(np.ones(4, np.float32))
    for k in range(1, 4):
        out = net(x)
        np.testing.assert_array_equal(out.asnumpy(), np.full(4, k, np.float32))
    assert net.w._data is buf                      # compiled code wrote the Parameter in place
    np.testing.assert_array_equal(net.w.asnumpy(), np.full(4, 3.0))
    net.w.set_data(Tensor(np.full(4, 10.0, np.float32)))   # PyNative write, same buffer
    np.testing.assert_array_equal(net(x).asnumpy(), np.full(4, 11.0))


def test_assign_in_runtime_loop_and_branch():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.acc = Parameter(Tensor(np.zeros(3, np.float32)), name="acc")

        @ms.jit
        def construct(self, x, n):
            for i in range(10):
                if (x.sum() > n):
                    ops.assign(self.acc, self.acc + x)
                else:
                    ops.assign(self.acc, self.acc - 1)
                x = x + 1
            return self.acc * 1

    net = Net()
    x = np.array([0.0, 1.0, 2.0], np.float32)
    out = net(Tensor(x), Tensor(np.float32(12.0)))
    acc = np.zeros(3, np.float32)
    for _ in range(10):
        acc = acc + x if x.sum() > 12 else acc - 1
        x = x + 1
    np.testing.assert_allclose(out.asnumpy(), acc)
    np.testing.assert_allclose(net.acc.asnumpy(), acc)
    report = ms.inspect(net.construct, Tensor(np.zeros(3, np.float32)), Tensor(np.float32(12.0)))
    assert len([n for n in report.graph_after.body.nodes if n.op is ir.FOR]) == 1


def test_print_order_mixed_with_assign_and_python_print(capsys):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        @ms.jit
        def construct(self, x):
            print("before", self.w)
            ops.assign(self.w, x)
            ops.Print()("after", self.w)
            return x

    net = Net()
    print("python first")
    net(Tensor(np.array([3.0, 4.0], np.float32)))
    print("python last")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "python first",
        "before",
        "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])",
        "after",
        "Tensor(shape=[2], dtype=Float32, value=[ 3.00000000e+00  4.00000000e+00])",
        "python last",
    ]


def test_depend_orders_independent_work():
    @ms.jit
    def f(x, y):
        a = x * 2
        y2 = ops.Depend()(y, a)
        b = y2 + 1
        return ops.depend(b, a), a

    b, a = f(Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(b.asnumpy(), np.ones(3))
    np.testing.assert_array_equal(a.asnumpy(), np.full(3, 2.0))


class StatusNet(nn.Cell):
    """The spec's Depend / float-status sample."""

    def __init__(self):
        super().__init__()
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = ops.NPUGetFloatStatus()
        self.clear_status = ops.NPUClearFloatStatus()

    def construct(self, x):
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        x = ops.Depend()(x, clear_status)
        res = ops.sub(x, ops.neg(x))
        init = ops.Depend()(init, res)
        get_status = self.get_status(init)
        res = ops.Depend()(res, get_status)
        return res, get_status


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_ascend_float_status_sample(mode, capsys):
    ms.set_context(mode=mode, device_target="Ascend")
    net = StatusNet()
    res, status = net(Tensor(np.full((2, 3), 5, np.float16), dtype=mstype.float16))
    print(res)
    assert capsys.readouterr().out == "[[10. 10. 10.]\n [10. 10. 10.]]\n"
    assert res.dtype == ms.float16
    assert not status.asnumpy().any()
    res, status = net(Tensor(np.full((2, 3), 60000, np.float16), dtype=mstype.float16))
    assert np.isinf(res.asnumpy()).all()
    assert status.asnumpy().any()


class StatusInitNet(nn.Cell):
    """The spec's sample returning `init` after the get, as loss-scale code reads it."""

    def __init__(self):
        super().__init__()
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = ops.NPUGetFloatStatus()
        self.clear_status = ops.NPUClearFloatStatus()

    def construct(self, x):
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        x = ops.Depend()(x, clear_status)
        res = ops.sub(x, ops.neg(x))
        init = ops.Depend()(init, res)
        get_status = self.get_status(init)
        res = ops.Depend()(res, get_status)
        return res, init, ops.ReduceSum()(ops.Depend()(init, get_status), (0,))


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_get_float_status_writes_the_status_into_init(mode):
    """NPUGetFloatStatus updates the tensor NPUAllocFloatStatus made (MindSpore's op docs), in
    both modes: `init` holds the overflow flag after the get and the next call clears it."""
    ms.set_context(mode=mode, device_target="Ascend")
    net = StatusInitNet()
    res, init, total = net(Tensor(np.full((2, 3), 60000, np.float16)))
    assert np.isinf(res.asnumpy()).all()
    np.testing.assert_array_equal(init.asnumpy(), [1, 0, 0, 0, 0, 0, 0, 0])
    assert init.dtype == ms.float32 and float(total.asnumpy()) == 1.0
    res, init, total = net(Tensor(np.full((2, 3), 5, np.float16)))
    np.testing.assert_array_equal(res.asnumpy(), np.full((2, 3), 10))
    assert not init.asnumpy().any() and float(total.asnumpy()) == 0.0


def test_status_is_cleared_and_ordered_by_depend():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    net = StatusNet()
    x = Tensor(np.full((2, 3), 60000, np.float16))
    assert net(x)[1].asnumpy().any()
    # the next call clears the register before computing: a finite input reads all zeros
    assert not net(Tensor(np.full((2, 3), 1, np.float16)))[1].asnumpy().any()


def test_float_status_ops_need_ascend():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    net = StatusNet()
    with pytest.raises(ms.CompileError) as info:
        net(Tensor(np.ones((2, 3), np.float16)))
    msg = str(info.value)
    assert "need the Ascend device" in msg and "test_effects.py" in msg and "ops.isfinite" in msg
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="need the Ascend device"):
        ops.NPUAllocFloatStatus()()


def test_unknown_device_lists_available():
    """MindSpore's CPU build: RuntimeError "Unsupported device target GPU. This process only
    supports one of the [...]", the list being the registered devices."""
    with pytest.raises(RuntimeError, match=r"Unsupported device target GPU.*\['CPU', 'Ascend'\]"):
        ms.set_context(device_target="GPU")
    with pytest.raises(RuntimeError, match="Unsupported device target GPU"):
        ms.set_device("GPU")


def test_portable_finite_checks_compiled():
    @ms.jit
    def check(x):
        return ops.isfinite(x), ops.all_finite(x, x * 2)

    fin, ok = check(Tensor(np.array([1.0, np.inf, np.nan], np.float32)))
    np.testing.assert_array_equal(fin.asnumpy(), [True, False, False])
    assert not bool(ok.asnumpy())
    fin, ok = check(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    assert fin.asnumpy().all() and bool(ok.asnumpy())


def test_select_broadcasting_fuses():
    @ms.jit
    def f(c, x, y):
        return ops.select(c, x * 2, y + 1)

    c = np.array([[True], [False]])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.float32(5.0)
    out = f(Tensor(c), Tensor(x), Tensor(y))
    np.testing.assert_array_equal(out.asnumpy(), np.where(c, x * 2, y + 1))
    report = ms.inspect(f, Tensor(c), Tensor(x), Tensor(y))
    fused = [n for n in report.graph_after.body.nodes if n.op is ir.FUSED]
    assert len(fused) == 1
