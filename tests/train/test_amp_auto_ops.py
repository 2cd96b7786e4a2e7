"""amp_level="auto" per op against MindSpore 2.10: each op of the wheel's auto white / black /
promote lists that pycompile has, called once inside `amp.auto_mixed_precision(fn, "auto")`
(tests/oracle/amp_auto_op_cases.py; recorded by tests/oracle/record_amp_auto_ops.py into
tests/oracle/data/amp_auto_ops.json). The result's dtype says which class the op got (float32
inputs give a float16 result only for a white-listed op, float16 inputs a float32 one only for a
black-listed op); the values agree to float16 precision. Cases the wheel cannot run on its CPU
(Einsum, TripletMarginLoss, SoftMarginLoss, a mixed-dtype Dot) are checked for their dtype class
by the same rule where pycompile runs them.

Also: every name of pycompile's auto lists (ops/amp_auto.py) is an op object."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import pycompile as ms
from oracle_data import load

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "oracle"))
import amp_auto_op_cases as C  # noqa: E402

RECORDED = load("amp_auto_ops.json")["cases"]
RUN = sorted(n for n, r in RECORDED.items() if "dtype" in r)


@pytest.mark.parametrize("name", RUN)
def test_auto_class_and_values_match_the_wheel(name):
    want = RECORDED[name]
    got = C.run(ms, name)
    assert "error" not in got, got
    assert got["dtype"] == want["dtype"], f"{name}: dtype {got['dtype']}, MindSpore 2.10 gives {want['dtype']}"
    np.testing.assert_allclose(got["values"], want["values"], rtol=4e-3, atol=2e-3)


# ---- the lists are objects ---------------------------------------------------------------------------

from pycompile import ops  # noqa: E402
from pycompile.ops import _mixed, amp_auto  # noqa: E402
from pycompile.ops._table import OPS, OpDef  # noqa: E402
from pycompile.ops.entry import ENTRIES  # noqa: E402

# MindSpore 2.10's list names whose op is a pycompile row of another name (ROWS), or a pycompile
# front end carrying the same class (MAPPED; None: deliberately left to the classes of its parts,
# the reasons in ops/amp_auto.py's docstring)
ROWS = {"Conv2DExt": "Conv2D", "Conv3DExt": "Conv3D", "ConvTranspose2D": "Conv2DBackpropInput",
        "Conv2DTranspose": "Conv2DBackpropInput", "Conv3DTranspose": "Conv3DBackpropInput", "Convolution": "Conv2D",
        "MatMulExt": "MatMul", "BatchMatMulExt": "BatchMatMul", "SoftplusExt": "Softplus", "LayerNormExt": "LayerNorm",
        "BatchNorm": "BatchNormStats", "BatchNormExt": "BatchNormStats", "LogSoftmaxExt": "LogSoftmax",
        "CumsumExt": "CumSum"}
MAPPED = {
    "Dense": "dense", "PReLU": "prelu", "MultilabelMarginLoss": "multilabel_margin_loss",
    "Einsum": None, "Addmm": None, "Addbmm": None, "Addmv": None, "Baddbmm": None, "Mv": None,
    "Log10": "log10", "GroupNorm": "group_norm", "Norm": None, "KLDivLoss": "kl_div", "SmoothL1Loss": "smooth_l1_loss",
    "SoftMarginLoss": None, "TripletMarginLoss": None, "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "Pdist": "pdist", "Cdist": "cdist", "Renorm": "renorm", "ProdExt": "prod", "SumExt": "sum", "L1LossExt": None, "MSELossExt": None, "NLLLoss": "nll_loss",
    "Addcdiv": "addcdiv", "Addcmul": "addcmul", "Cross": "cross", "_PyboostCrossPrim": "cross", "Dot": None,
    "BiasAdd": "bias_add", "Erfinv": "erfinv", "MultiMarginLoss": "multi_margin_loss",
    "GridSampler2D": "grid_sample", "GridSampler3D": "grid_sample",
}


def _class_of(fn):
    entry = getattr(fn, "__wrapped_entry__", None)
    return entry.amp if entry is not None else getattr(fn, "amp_class", None)


def test_the_rows_classes_are_op_objects():
    assert _mixed.AUTO_CLASS, "ops/amp_auto.py installed nothing"
    for op, cls in _mixed.AUTO_CLASS.items():
        assert isinstance(op, OpDef) and OPS[op.name] is op, op
        assert cls in ("low", "full", "promote")


def test_every_name_of_the_wheels_auto_lists_resolves():
    """Each name of MindSpore 2.10's auto lists is a classified row of that name, a pycompile op
    carrying the same class (MAPPED), a name deliberately left to its parts (MAPPED None, reason in
    ops/amp_auto.py), or a MindSpore op pycompile lacks (amp_auto.ABSENT: then it is absent)."""
    rows = {op.name: cls for op, cls in _mixed.AUTO_CLASS.items()}
    lists = load("amp_auto_ops.json")["lists"]
    unresolved = []
    for cls, names in lists.items():
        for name in names:
            if name in rows:
                assert rows[name] == cls, (name, rows[name], cls)
            elif name in ROWS:
                assert rows.get(ROWS[name]) == cls, (name, ROWS[name])
            elif name in amp_auto.ABSENT:
                snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
                assert not hasattr(ops, name) and not hasattr(ops, snake), f"{name} exists now: classify it"
            elif name in MAPPED:
                if MAPPED[name] is not None:
                    assert _class_of(getattr(ops, MAPPED[name])) == cls, (name, MAPPED[name])
            else:
                unresolved.append(name)
    assert not unresolved, f"MindSpore auto-list names with no pycompile op: {unresolved}"


def test_front_end_classes():
    found = {n: f for n, f in vars(ops).items() if isinstance(getattr(f, "amp_class", None), str)}
    assert {"dense", "prelu", "cdist", "renorm", "nll_loss", "sum", "prod"} <= set(found)
    for name, fn in found.items():
        assert fn.amp_class in ("low", "full", "promote"), name
    for e in ENTRIES.values():
        assert e.amp in (None, "low", "full", "promote"), e
