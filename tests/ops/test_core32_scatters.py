"""The arithmetic scatters as decompositions of one core row (issue 32, branch rows32;
docs/architecture.md, "The core"): TensorScatterAdd / Sub / Mul / Div / Max / Min are
TensorScatterCombine with their `combine` rule and their own name as `op_name`.

* on edge values in float16 / float32 / float64 and int32, with a repeated index (the updates
  combine one after the other), PyNative and compiled code give MindSpore 2.10's CPU result bit
  for bit (recorded by tests/oracle/record_scatter_combine.py; TensorScatterUpdate too);
* a negative or out-of-range index raises MindSpore's exception class naming the op the user
  called, in PyNative and from the compiled code at run time (the core row carries the name);
* the rows are gone before rendering, each become TensorScatterCombine with its rule; their
  gradient rules (Add, Sub) and batch rule still apply, eagerly and compiled.
"""
from __future__ import annotations

import json
import re
import pathlib
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.compiler import ir
from pycompile.ops import core
from pycompile.ops import prims as P

ORACLE = pathlib.Path(__file__).resolve().parent.parent / "oracle"
sys.path.insert(0, str(ORACLE))
import scatter_combine_cases as S  # noqa: E402

RECORDED = {r["name"]: r for r in json.loads((ORACLE / "data" / "scatter_combine.json").read_text())["results"]}
CASES = S.cases()
VALUES = [n for n in CASES if "result" in RECORDED[n]]
ERRORS = [n for n in CASES if "error" in RECORDED[n]]
FNS = {op: getattr(ops, f"tensor_scatter_{op}") for op in S.OPS}
ROWS = {"add": P.TensorScatterAdd, "sub": P.TensorScatterSub, "mul": P.TensorScatterMul,
        "div": P.TensorScatterDiv, "max": P.TensorScatterMax, "min": P.TensorScatterMin}
# MindSpore's messages differ for TensorScatterUpdate's negative index ("The int value(-1) is less
# than 0.", a RuntimeError): pycompile names the op and raises its out-of-range class, ValueError
UPDATE_NEGATIVE = "update negative index"


def _recorded(name) -> np.ndarray:
    r = RECORDED[name]["result"]
    dt = np.dtype(r["dtype"])
    bits = np.array([int(b, 16) for b in r["bits"]], f"u{dt.itemsize}")
    return bits.view(dt).reshape(r["shape"])


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(f"u{a.itemsize}")


@ms.jit
def _all(args, xg, ig, ug, xb, ub):
    outs = tuple(FNS[CASES[n][0]](*a) for n, a in zip(VALUES, args))
    grads = ms.grad(lambda x, u: (ops.tensor_scatter_sub(x, ig, u) * ops.tensor_scatter_add(x, ig, u)).sum(),
                    grad_position=(0, 1))(xg, ug)
    batched = ms.vmap(lambda x, u: ops.tensor_scatter_max(x, ig, u))(xb, ub)
    return outs, grads, batched


@ms.jit
def _one_of(k, x, i, u):
    out = x
    if k == 0:
        out = ops.tensor_scatter_update(x, i, u)
    elif k == 1:
        out = ops.tensor_scatter_add(x, i, u)
    elif k == 2:
        out = ops.tensor_scatter_sub(x, i, u)
    elif k == 3:
        out = ops.tensor_scatter_mul(x, i, u)
    elif k == 4:
        out = ops.tensor_scatter_div(x, i, u)
    elif k == 5:
        out = ops.tensor_scatter_max(x, i, u)
    else:
        out = ops.tensor_scatter_min(x, i, u)
    return out


_RS = np.random.RandomState(0)
XG, UG = _RS.randn(4, 3), _RS.randn(5, 3)
IG = np.array(S.INDEX, np.int32)
XB, UB = _RS.randn(2, 4, 3).astype(np.float32), _RS.randn(2, 5, 3).astype(np.float32)


@pytest.fixture(scope="module")
def compiled():
    args = (tuple(tuple(Tensor(v) for v in CASES[n][2:]) for n in VALUES), Tensor(XG), Tensor(IG), Tensor(UG),
            Tensor(XB), Tensor(UB))
    return _all(*args), ms.inspect(_all, *args)


@pytest.mark.parametrize("name", VALUES)
def test_pynative_and_compiled_equal_mindspore(name, compiled):
    op, dt, x, i, u = CASES[name]
    want = _recorded(name)
    with np.errstate(all="ignore"):
        eager = FNS[op](Tensor(x), Tensor(i), Tensor(u)).asnumpy()
    got = compiled[0][0][VALUES.index(name)].asnumpy()
    assert eager.dtype == got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(eager), _bits(want), err_msg=f"PyNative {name}")
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"compiled {name}")


@pytest.mark.parametrize("name", ERRORS)
def test_a_bad_index_names_the_users_op_in_both_modes(name):
    op, _, x, i, u = CASES[name]
    err = RECORDED[name]["error"]
    cls = {"RuntimeError": RuntimeError, "ValueError": ValueError}[err["type"]]
    cls = ValueError if name == UPDATE_NEGATIVE else cls
    prefix = f"For 'TensorScatter{op.capitalize()}'"
    if name != UPDATE_NEGATIVE:
        assert err["message_first_line"].startswith(prefix)
    # the arithmetic scatters: MindSpore's whole message (the tuple's position, its values, the
    # dimensions it indexes; branch rows32b), compiled too (then followed by the user's line)
    want = f"^{re.escape(err['message_first_line'])}" if op != "update" else re.escape(prefix)
    with pytest.raises(cls, match=want):
        FNS[op](Tensor(x), Tensor(i), Tensor(u))
    with pytest.raises(cls, match=want) as info:
        _one_of(Tensor(S.OPS.index(op)), Tensor(x), Tensor(i.astype(np.int32)), Tensor(u))
    if op != "update":
        assert "test_core32_scatters.py" in str(info.value)


def test_the_rows_are_one_core_row_before_rendering(compiled):
    _, report = compiled
    nodes = list(ir.iter_nodes(report.graph_after.body))
    assert not [n.op for n in nodes if n.op in ROWS.values()]
    seen = {(n.attrs["combine"], n.attrs["op_name"]) for n in nodes if n.op is P.TensorScatterCombine}
    assert seen == {(rule, row.name) for rule, row in ROWS.items()}
    assert all(row.expands for row in ROWS.values())
    assert P.TensorScatterCombine in core.CORE and P.TensorScatterUpdate in core.CORE


def test_gradient_and_batch_rules_stay(compiled):
    """d/dx and d/du of sum(scatter_sub(x, i, u) * scatter_add(x, i, u)): the rows' rules
    (Sub: g and -g at the rows; Add: g and g at the rows), eagerly and compiled; vmap of
    tensor_scatter_max equals the scatter of each example."""
    (_, (dx, du), batched), _ = compiled
    sub, add = XG.copy(), XG.copy()
    for r, v in zip(IG[:, 0], UG):
        sub[r] -= v
        add[r] += v
    want_dx = add + sub
    want_du = np.stack([sub[r] - add[r] for r in IG[:, 0]])
    eager = ms.grad(lambda x, u: (ops.tensor_scatter_sub(x, Tensor(IG), u) * ops.tensor_scatter_add(
        x, Tensor(IG), u)).sum(), grad_position=(0, 1))(Tensor(XG), Tensor(UG))
    for got in ((dx, du), eager):
        np.testing.assert_allclose(got[0].asnumpy(), want_dx, rtol=1e-12)
        np.testing.assert_allclose(got[1].asnumpy(), want_du, rtol=1e-12)
    want = XB.copy()
    for b in range(2):
        for r, v in zip(IG[:, 0], UB[b]):
            want[b, r] = np.where(want[b, r] < v, v, want[b, r])
    np.testing.assert_array_equal(batched.asnumpy(), want)
