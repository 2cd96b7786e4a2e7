"""Every op spec of op_specs.py run on bfloat16, eagerly and compiled: the float32 inputs of each
case rounded to bfloat16 and passed as bfloat16 Tensors; the result must be the spec's NumPy
reference on those rounded values, rounded to bfloat16 once (src/pycompile/ops/_bf16.py: every op
computes in float32 and rounds its result), within one bfloat16 ulp - a float32 result's last bit
(libm against NumPy, a sum's order) can move its bfloat16 rounding by one - and one ulp of the
largest value, for the functions pycompile composes from several ops (each part rounds). Found this way: a Custom
op's Python function read the widened float32 buffer as bfloat16 in compiled code, and ops that
asked np.finfo for the input's type raised ValueError (NumPy's finfo has no bfloat16)."""
import ml_dtypes
import numpy as np
import pytest

from op_specs import BINARY, CASES, REDUCTIONS, UNARY, sample

import pycompile as ms
from pycompile import Tensor

BF = np.dtype(ml_dtypes.bfloat16)

# MindSpore's own type checks refuse bfloat16 here (its words): TypeError in both modes
REFUSED = {"batch dot, default axes", "LinSpace", "SquareSumAll"}
# float32 by construction: a float32 Parameter written, a float32 operand concatenated, an explicit
# dtype, or MindSpore's rule (its SVD norms return Float32 for every float input)
FLOAT32_RESULT = {"assign", "Assign class", "assign_add", "assign_sub", "AssignAdd AssignSub classes",
                  "ScatterNdUpdate class", "reduce_sum reduce_mean", "dot / logical_xor", "matrix norms 2 -2 nuc",
                  "Bernoulli"}
# cases whose call only runs eagerly (it makes a Parameter or reads a value on the host): the same
# in float32
EAGER_ONLY = {"assign", "Load", "UpdateState", "MakeTuple", "assign_add", "assign_sub", "AssignAdd AssignSub classes",
              "ScatterNdUpdate class", "ScatterAdd Parameter rows", "ScatterSub Parameter rows",
              "ScatterMul Parameter rows", "ScatterDiv Parameter rows", "ScatterMax Parameter rows",
              "ScatterMin Parameter rows", "ScatterUpdate Parameter rows", "IndexAdd / index_add axis 1"}


def rnd(a):
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def _flat(o):
    if isinstance(o, (tuple, list)):
        for x in o:
            yield from _flat(x)
    else:
        yield o


def _check(out, expected, name, float32_result=False):
    pairs = list(zip(_flat(out), _flat(expected)))
    assert pairs, name
    for got, want in pairs:
        if not hasattr(got, "asnumpy"):
            continue
        want = np.asarray(want)
        g = got.asnumpy()
        if want.dtype.kind == "f":
            if want.dtype == np.float32:
                assert got.dtype == (ms.float32 if float32_result else ms.bfloat16), name
            g = g.astype(np.float64)
            # a float32 +-max (an empty segment's fill) is bfloat16's own +-max there, not a rounding of it
            big = np.abs(want) == np.finfo(np.float32).max
            want = np.where(big, np.sign(want) * float(ml_dtypes.finfo(BF).max), want)
            w = rnd(want).astype(np.float64) if got.dtype == ms.bfloat16 else want.astype(np.float64)
            # one bfloat16 ulp of each value and of the largest: an op pycompile composes from several
            # (Custom's cos + 1, einsum's products then sum, arcsinh's log and sqrt) rounds after each
            scale = float(np.abs(w[np.isfinite(w)]).max(initial=0.0))
            np.testing.assert_allclose(g, w, rtol=2 ** -7, atol=2 ** -7 * scale + 2e-6, equal_nan=True, err_msg=name)
        elif g.shape == want.shape:
            np.testing.assert_array_equal(g, want, err_msg=name)


BF_CASES = [c for c in CASES if any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in c.args)]


@pytest.mark.parametrize("case,compiled", [pytest.param(c, False, id=f"{c.name}-pynative") for c in BF_CASES]
                         + [pytest.param(c, True, id=f"{c.name}-graph") for c in BF_CASES if c.name not in EAGER_ONLY])
def test_case_on_bfloat16(case, compiled):
    args = [rnd(a) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a for a in case.args]
    ins = [Tensor(a, ms.bfloat16) if isinstance(a, np.ndarray) and a.dtype == np.float32
           else Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    call = ms.jit(case.call) if compiled else case.call
    if case.name in REFUSED:
        with pytest.raises(TypeError, match="BFloat16"):
            call(*ins)
        return
    with np.errstate(all="ignore"):
        expected = case.ref(*args)
    if isinstance(expected, tuple) and not any(isinstance(e, np.ndarray) for e in _flat(expected)):
        assert call(*ins) == expected
        return
    _check(call(*ins), expected, case.name, case.name in FLOAT32_RESULT)


def _ref_takes_floats(spec):
    n = 1 if spec in UNARY else 2
    try:
        with np.errstate(all="ignore"):
            spec.ref(*[np.ones(2, np.float32)] * n)
    except TypeError:       # LogicalAnd / LogicalOr's references are bitwise: bools only
        return False
    return True


SPECS = [s for s in UNARY + BINARY if "f" in s.kinds and _ref_takes_floats(s)]


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
@pytest.mark.parametrize("spec", [pytest.param(s, id=s.op) for s in SPECS])
def test_elementwise_on_bfloat16(spec, compiled):
    n = 1 if spec in UNARY else 2
    doms = spec.domain if isinstance(spec.domain, tuple) else (spec.domain,) * n
    arrays = [rnd(sample(np.float32, (3, 5), doms[k], seed=k)) for k in range(n)]
    fn = ms.jit(lambda *a: spec.fn(*a)) if compiled else spec.fn
    with np.errstate(all="ignore"):
        expected = np.asarray(spec.ref(*arrays))
    if expected.dtype.kind == "f":
        expected = expected.astype(np.float32)
    _check(fn(*[Tensor(a, ms.bfloat16) for a in arrays]), expected, spec.op)


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
@pytest.mark.parametrize("axis", [None, 1])
@pytest.mark.parametrize("spec", [pytest.param(r, id=r.op) for r in REDUCTIONS if "f" in r.kinds])
def test_reduction_on_bfloat16(spec, axis, compiled):
    a = rnd(sample(np.float32, (3, 5), seed=2))
    fn = (lambda x: spec.fn(x, axis, False))
    out = (ms.jit(fn) if compiled else fn)(Tensor(a, ms.bfloat16))
    expected = np.asarray(spec.ref(a, None if axis is None else (axis,), False))
    _check(out, expected.astype(np.float32) if expected.dtype.kind == "f" else expected, spec.op)
