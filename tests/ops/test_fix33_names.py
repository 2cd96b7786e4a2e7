"""The Primitives and modules fix33 added for MindSpore's CPU op tests, against the wheel's answers
(tests/oracle/record_fix33_names.py -> data/fix33_names.json): ops.auto_generate.CdistGrad,
UpdateCache, _embedding_cache_ops.SubAndFilter (a run-time length in graph code), Assert and
mindspore.mint.nn.GLU. Each name was missing on main."""
import importlib
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.ops import operations as P

DATA = json.load(open(os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "fix33_names.json")))
MODES = ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)]


@pytest.mark.parametrize("p", sorted(DATA["cdist_grad"]))
def test_cdist_grad_from_auto_generate(p):
    gen = importlib.import_module("pycompile.ops.auto_generate")
    g, x1, x2 = (Tensor(np.array(v, np.float32)) for v in ([[[1.0, -1.0], [2.0, 0.5]]], [[[1.0, 1.0], [2.0, 2.5]]],
                                                          [[[3.0, 3.0], [2.0, 2.5]]]))
    out = gen.CdistGrad(float(p))(g, x1, x2, ops.cdist(x1, x2, float(p)))
    np.testing.assert_allclose(out.asnumpy(), DATA["cdist_grad"][p], rtol=1e-5, atol=1e-6)


class _Cache(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.UpdateCache()
        self.x = Parameter(Tensor(np.arange(20).reshape(5, 4).astype(np.int32)), name="x")

    def construct(self, i, u):
        return self.op(self.x, i, u, 4)


@pytest.mark.parametrize("mode", MODES)
def test_update_cache_skips_indices_outside_max_num(mode):
    ms.set_context(mode=getattr(ms, mode))
    net = _Cache()
    out = net(Tensor(np.array([[-1, 3, 4], [0, 7, 2]], np.int32)), Tensor(np.arange(24).reshape(6, 4).astype(np.int32) + 100))
    want = DATA["update_cache"]
    assert str(out.dtype) == want["out_dtype"] and out.asnumpy().tolist() == want["out"]
    assert net.x.asnumpy().tolist() == want["cache_after"]


class _Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = importlib.import_module("pycompile.ops.operations._embedding_cache_ops").SubAndFilter()

    def construct(self, x):
        return self.op(x, 10, 5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dt", ["int32", "int64"])
def test_sub_and_filter(mode, dt):
    ms.set_context(mode=getattr(ms, mode))
    v, i = _Sub()(Tensor(np.array([1, 3, 5, 8, 9, 16, 5], dt)))
    want = DATA["sub_and_filter"][f"{dt}/{mode}"]
    assert [str(v.dtype), str(i.dtype)] == want["dtypes"]
    assert v.asnumpy().tolist() == want["values"] and i.asnumpy().tolist() == want["positions"]


def test_assert(capsys):
    a = P.Assert(3)
    ok = a(True, [Tensor(np.array([1.0, 2.0], np.float32))])
    assert str(ok.dtype) == DATA["assert"]["true_dtype"] and list(ok.shape) == DATA["assert"]["true_shape"]
    with pytest.raises(RuntimeError, match=DATA["assert"]["false"][1]):
        a(False, [Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))])
    assert "input data: [1. 2. 3.]" in capsys.readouterr().out      # the first `summarize` elements


class _AssertNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.Assert(2)

    def construct(self, x):
        return self.op(x.sum() > 0, [x])


@pytest.mark.cc
def test_assert_on_a_run_time_condition():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _AssertNet()
    assert net(Tensor(np.ones(3, np.float32))).asnumpy().tolist() == [0]
    with pytest.raises(RuntimeError, match="assert failed"):
        net(Tensor(-np.ones(3, np.float32))).asnumpy()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_mint_nn_glu_and_its_gradient(mode, dim):
    GLU = importlib.import_module("pycompile.mint.nn").GLU
    ms.set_context(mode=getattr(ms, mode))
    x = Tensor(np.linspace(-2, 2, 48).reshape(2, 4, 6).astype(np.float32))
    want = DATA["glu"][f"{dim}/{mode}"]
    np.testing.assert_allclose(GLU(dim)(x).asnumpy(), want["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.GradOperation()(GLU(dim))(x).asnumpy(), want["grad"], rtol=1e-5, atol=1e-6)


class _AdaFactor(nn.Cell):
    def __init__(self, case):
        super().__init__()
        self.gn = case["global_norm"]
        self.op = ops.FusedAdaFactor(*case["flags"]) if self.gn is None else \
            ops.FusedAdaFactorWithGlobalNorm(*case["flags"])
        self.ps = [Parameter(Tensor(np.array(case["inputs"][k], np.float32)), name=k)
                   for k in ("param", "exp_avg", "row", "col", "sq")]
        self.p, self.m, self.r, self.c, self.s = self.ps

    def construct(self, grad):
        args = ((1e-30, 1e-3), 1.0, 0.9, 0.8, 1e-2, 0.03, grad, self.p, self.m, self.r, self.c, self.s)
        return self.op(*args) if self.gn is None else self.op(*args, self.gn)


# every case in PyNative; compiled: one per flag combination, both shapes, with and without a norm
_ADA_GRAPH = {0, 4, 8, 10, 13, 16, 20, 23}


@pytest.mark.parametrize("mode, k", [("PYNATIVE_MODE", k) for k in range(len(DATA["fused_ada_factor"]))] + [
    pytest.param("GRAPH_MODE", k, marks=pytest.mark.cc) for k in sorted(_ADA_GRAPH)])
def test_fused_ada_factor(mode, k):
    """FusedAdaFactor / WithGlobalNorm: factored (2, 3, 2) and vector (4,) parameters, each flag
    combination, a global norm above and below 1; the Parameters after one step. The kernel's
    output is an unwritten buffer (zeros in PyNative, stale memory in the wheel's graph mode):
    pycompile returns zeros of param's shape."""
    case = DATA["fused_ada_factor"][k]
    ms.set_context(mode=getattr(ms, mode))
    net = _AdaFactor(case)
    out = net(Tensor(np.array(case["inputs"]["grad"], np.float32)))
    want = case[mode]
    assert [list(o.shape) for o in out] == want["out_shapes"]
    assert all(not o.asnumpy().any() for o in out)
    for p in net.ps:
        np.testing.assert_allclose(p.asnumpy(), want["after"][p.name], rtol=2e-5, atol=1e-6)
