"""Each fast path equals its decomposition (docs/architecture.md, "The core"; ops/_table.py
`fast_path`): on the op fuzzer's inputs (tests/compiler/fuzz_ops.py `input_array`: normal values
at three scales, with NaN, +-inf, +-0 and +-1e4 planted), every fast-path row that has a
decomposition is compiled twice - as the compiler chooses it (its hand-written C) and as its
decomposition (PYCOMPILE_FAST_PATHS=0) - and both are compared with each other and with the row's
NumPy reference (`eager`). The GEMM and convolution epilogues (fusion's matrix-product heads,
the conv_epilogue pass's FusedConv) are fast paths of the same kind: with the knob off, the bias
and activation run as a loop of their own after the product or the convolution.

Where the fast path and its decomposition may round differently, the test says so and by how
much: the elementwise rows are the same C expression either way (bit for bit); the reductions
add in the same order except where a template's blocked sum and the row's parts block their sums
differently (a few ulps); softmax over another axis than the last takes exp in double in the
decomposition (expf's last-bit error in the template).
"""
from __future__ import annotations

import random
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import knobs
from pycompile.ops import core
from pycompile.ops import prims as P
from pycompile.ops._table import OPS, apply
from pycompile.ops.defs.resample import linear_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "compiler"))
import fuzz_ops as F  # noqa: E402  (the op fuzzer's input generator)

# one draw per (row, dtype, shape) with NaN, +-inf, -0 and +-1e4 planted; a soak
# (PYCOMPILE_FUZZ_EXAMPLES=10000, as the op fuzzer's) adds draws, up to 20 per case
SEEDS = range(min(20, 1 + max(0, knobs.get("PYCOMPILE_FUZZ_EXAMPLES") - 300) // 100))
FLOATS = ("float16", "float32", "float64")
LN = {"begin_norm_axis": 1, "begin_params_axis": -1, "epsilon": 1e-5}
SLICE = {"shape": (6, 7), "begin": (1, 0), "end": (5, 7), "strides": (2, 3)}
SLICE_BACK = {"shape": (5, 6), "begin": (4, 5), "end": (-1, -1), "strides": (-2, -1)}
SLICE_EMPTY = {"shape": (3, 7), "begin": (2, 0), "end": (2, 7), "strides": (1, 1)}
POOL_DT = ("float32", "float64")
# whole windows overlapping (the templates' vector paths); padded windows clipped, ceil mode (their walks)
POOL_WHOLE = {"kernel": (2, 3), "stride": (2, 1), "pads": (0, 0, 0, 0), "dilation": (1, 1), "ceil_mode": False}
POOL_PADDED = {"kernel": (3, 3), "stride": (2, 2), "pads": (1, 1, 1, 0), "dilation": (1, 1), "ceil_mode": True}
FUSED_CONV = {"stride": (1, 2), "dilation": (1, 1), "pads": (1, 1, 0, 1), "group": 1, "fold_scale": False,
              "program": (("Add", ("acc",), ("extra", 0)), ("Mul", ("step", 0), ("const", 0.5)),
                          ("ReLU", ("step", 1)))}
# convolutions, as (x's shape, w's shape, attributes): grouped, strided, dilated, padded unevenly
CONV2D_A = ((2, 4, 7, 6), (6, 2, 3, 2), {"stride": (2, 1), "dilation": (1, 2), "pads": (1, 0, 0, 1), "group": 2})
CONV2D_B = ((2, 3, 8, 7), (4, 3, 3, 3), {"stride": (2, 2), "dilation": (1, 1), "pads": (1, 1, 2, 1), "group": 1})
CONV3D = ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), {"stride": (2, 1, 2), "dilation": (1, 1, 1), "pads": (0, 1, 1, 0, 0, 1),
                                            "group": 1})


def _dy(case):
    x, w, attrs = case
    conv = P.Conv2D if len(x) == 4 else P.Conv3D
    return conv.infer([Tensor(np.zeros(x, np.float32))._abstract, Tensor(np.zeros(w, np.float32))._abstract],
                      **attrs).shape


# a linear resize of an axis of 7 to 11 (two taps), as ops.interpolate builds it
RESAMPLE = dict(zip(("index", "weight"), linear_table(7, 11, False, True)), axis=1)

# op -> (dtypes, [(shape, attrs)]); the rows with a decomposition that keep their fast lowering
CASES_BY_OP = {
    P.Sigmoid: (FLOATS + ("int32",), [((5, 7), {})]),
    P.ReLU: (FLOATS + ("int32", "int8"), [((5, 7), {})]),
    P.GeLU: (FLOATS, [((5, 7), {})]),
    P.GeLUErf: (FLOATS, [((5, 7), {})]),
    P.ReduceMean: (FLOATS + ("int32",), [((5, 7), {"axis": (1,), "keep_dims": False}),
                                         ((3, 4, 5), {"axis": (0, 2), "keep_dims": True}),
                                         ((3, 0), {"axis": (1,), "keep_dims": False})]),
    P.Softmax: (FLOATS, [((5, 37), {"axis": -1}), ((6, 3, 4), {"axis": 1})]),
    P.LogSoftmax: (FLOATS, [((5, 37), {"axis": -1}), ((6, 3, 4), {"axis": 0})]),
    P.LayerNorm: (FLOATS, [((4, 3, 10), LN)]),
    # (the indices: `GATHER_INDICES`, in [-n, n) along the axis)
    P.Gather: (FLOATS + ("int32", "bool_"), [((5, 7), {"axis": 1}), ((4, 6, 3), {"axis": 0}), ((2, 5), {"axis": -1})]),
    # (the first input's shape: for the gradients, dy's)
    P.TopKIndices: (FLOATS + ("int32",), [((5, 7), {"k": 3, "axis": -1, "largest": True}),
                                          ((6, 4, 3), {"k": 2, "axis": 1, "largest": False}),
                                          ((), {"k": 1, "axis": -1, "largest": True})]),
    P.StridedSliceGrad: (FLOATS + ("int32",), [((2, 3), SLICE), ((3, 6), SLICE_BACK), ((0, 7), SLICE_EMPTY)]),
    P.GatherGrad: (FLOATS + ("int32",), [((5, 3, 2), {"shape": (5, 7), "axis": 1}),
                                         ((4, 6), {"shape": (3, 6), "axis": 0}), ((4,), {"shape": (2, 4), "axis": 0})]),
    P.BatchNormStats: (("float32", "float64"), [((4, 3, 5, 6), {}), ((3, 2), {})]),
    P.AxisResample: (FLOATS, [((3, 7, 4), RESAMPLE), ((5, 7), dict(RESAMPLE, axis=-1))]),
    P.AxisResampleGrad: (FLOATS, [((3, 11, 4), dict(RESAMPLE, size=7)), ((5, 11), dict(RESAMPLE, axis=-1, size=7))]),
    P.MaxPoolArgmax: (POOL_DT, [((2, 3, 6, 8), POOL_WHOLE), ((2, 2, 7, 6), POOL_PADDED)]),
    P.MaxPoolGrad: (POOL_DT, [((2, 3, 6, 8), POOL_WHOLE), ((2, 2, 7, 6), POOL_PADDED)]),
    P.AvgPoolGrad: (POOL_DT, [((2, 3, 6, 8), dict(POOL_WHOLE, count_include_pad=True, divisor=0)),
                              ((2, 2, 7, 6), dict(POOL_PADDED, count_include_pad=False, divisor=0)),
                              ((1, 2, 7, 6), dict(POOL_PADDED, count_include_pad=True, divisor=5))]),
    P.AdaptiveAvgPool: (POOL_DT, [((2, 3, 7, 5), {"output_size": (3, 2)})]),
    P.AdaptiveMaxPool: (POOL_DT, [((2, 3, 7, 5), {"output_size": (3, 2)})]),
    P.AdaptiveMaxPoolArgmax: (POOL_DT, [((2, 3, 7, 5), {"output_size": (3, 2)})]),
    P.AdaptiveAvgPoolGrad: (POOL_DT, [((2, 3, 7, 5), {"output_size": (3, 2)})]),
    P.AdaptiveMaxPoolGrad: (POOL_DT, [((2, 3, 7, 5), {"output_size": (3, 2)})]),
    # (a convolution with its epilogue, as the conv_epilogue pass makes it: its extras a per-channel bias)
    P.FusedConv: (POOL_DT, [((2, 3, 6, 5), FUSED_CONV)]),
    P.ReduceAll: (FLOATS + ("int32", "bool_"), [((5, 7), {"axis": (1,), "keep_dims": False}),
                                                ((3, 4, 5), {"axis": None, "keep_dims": True})]),
    P.ReduceAny: (FLOATS + ("int32", "bool_"), [((5, 7), {"axis": (0,), "keep_dims": True}),
                                                ((3, 4, 5), {"axis": (0, 2), "keep_dims": False})]),
    # (indices repeated, negative and out of range; 'add' and 'none')
    P.TensorScatterElements: (FLOATS + ("int32", "bool_"), [((4, 5), {"axis": 1, "reduction": "none"}),
                                                    ((4, 5), {"axis": 0, "reduction": "add"})]),
    # (p: the input; the state: a fixed [seed, offset, seed set])
    P.Bernoulli: (FLOATS, [((5, 7), {"shape": (5, 7), "dtype": ms.float32, "seed": 3})]),
    # (the first input's shape: dy's, what the forward convolution gives)
    P.Conv2DBackpropInput: (POOL_DT, [(_dy(a), a[2]) for a in (CONV2D_A, CONV2D_B)]),
    P.Conv2DBackpropFilter: (POOL_DT, [(_dy(a), a[2]) for a in (CONV2D_A, CONV2D_B)]),
    P.Conv3DBackpropInput: (POOL_DT, [(_dy(CONV3D), CONV3D[2])]),
    P.Conv3DBackpropFilter: (POOL_DT, [(_dy(CONV3D), CONV3D[2])]),
}
# a pooling gradient's dout has its forward's output shape
POOL_FORWARD = {P.MaxPoolGrad: P.MaxPool, P.AvgPoolGrad: P.AvgPool, P.AdaptiveAvgPoolGrad: P.AdaptiveAvgPool,
                P.AdaptiveMaxPoolGrad: P.AdaptiveMaxPool}
GATHER_INDICES = {(5, 7): ((3, 2), "int32"), (4, 6, 3): ((5,), "int64"), (2, 5): ((), "int32")}
# GatherGrad's indices (repeated and negative ones among them), by the gradient's shape
GATHER_GRAD_INDICES = {(5, 7): ((3, 2), "int32"), (3, 6): ((4,), "int64"), (2, 4): ((), "int32")}


def _cases():
    cases = []
    for op, (dtypes, shapes) in CASES_BY_OP.items():
        for dt in dtypes:
            if op is P.ReduceMean and dt == "int32":
                shapes = [s for s in shapes if 0 not in s[0]]        # an integer mean of nothing raises
            for j, (shape, attrs) in enumerate(shapes):
                if j and dt != "float32" and len(SEEDS) == 1:
                    continue                  # (other shapes in float32 only, unless soaking)
                for seed in SEEDS:
                    r = random.Random(zlib.crc32(repr((op.name, dt, shape, seed)).encode()))
                    x = F.input_array(r, dt, shape)
                    if seed == 0 and dt.startswith("float") and x.size:
                        x.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, -0.0, 1e4, -1e4][:x.size]
                    arrays = [x]
                    if op is P.LayerNorm:
                        arrays += [F.input_array(r, dt, shape[-1:]), F.input_array(r, dt, shape[-1:])]
                    if op is P.Gather:
                        ishape, idt = GATHER_INDICES[shape]
                        n = shape[attrs["axis"]]
                        arrays.append(np.random.default_rng(seed).integers(-n, n, ishape).astype(idt))
                    if op in POOL_FORWARD:
                        fwd = POOL_FORWARD[op]
                        fattrs = {k: v for k, v in attrs.items() if k in fwd.attrs}
                        dshape = fwd.infer([Tensor(x)._abstract], **fattrs).shape
                        arrays.append(F.input_array(r, dt, dshape))
                    if op in (P.Conv2DBackpropInput, P.Conv3DBackpropInput, P.Conv2DBackpropFilter,
                              P.Conv3DBackpropFilter):
                        case = next(c for c in (CONV2D_A, CONV2D_B, CONV3D) if c[2] is attrs)
                        data = op in (P.Conv2DBackpropFilter, P.Conv3DBackpropFilter)
                        arrays.append(F.input_array(r, dt, case[0] if data else case[1]))
                        cases.append((op, dt, dict(attrs, **({"filter_size": case[1]} if data else
                                                             {"input_size": case[0]})), arrays))
                        continue
                    if op is P.TensorScatterElements and dt == "bool_" and attrs["reduction"] == "add":
                        continue                      # (MindSpore refuses to add bools)
                    if op is P.TensorScatterElements:
                        idx = np.random.default_rng(seed).integers(-7, 7, (3, 4)).astype("int32")
                        arrays += [idx, F.input_array(r, dt, idx.shape)]
                    if op is P.Bernoulli:
                        arrays = [np.array([17, 5, 1], np.int64), x]
                    if op is P.FusedConv:
                        arrays += [F.input_array(r, dt, (4, 3, 3, 2)), F.input_array(r, dt, (1, 4, 1, 1))]
                    if op is P.GatherGrad:
                        ishape, idt = GATHER_GRAD_INDICES[attrs["shape"]]
                        n = attrs["shape"][attrs["axis"]]
                        arrays.append(np.random.default_rng(seed).integers(-n, n, ishape).astype(idt))
                    cases.append((op, dt, attrs, arrays))
    return cases


CASES = _cases()
IDS = [f"{op.name}-{dt}-{'x'.join(map(str, a[0].shape))}-{k}" for k, (op, dt, _, a) in enumerate(CASES)]


def _compile(fast: bool, monkeypatch):
    """Every case in one compiled module, with the fast paths on or off."""
    monkeypatch.setenv("PYCOMPILE_FAST_PATHS", "1" if fast else "0")

    def inputs(op, a):          # (a variadic row's last inputs as its tuple)
        n = len(op.inputs) - 1
        return list(a[:n]) + [tuple(a[n:])] if op.variadic else list(a)

    def graph(xs):
        return tuple(apply(op, inputs(op, a), dict(attrs)) for (op, _, attrs, _), a in zip(CASES, xs))
    fn = ms.jit(graph)
    xs = tuple(tuple(Tensor(a) for a in arrays) for _, _, _, arrays in CASES)
    outs = fn(xs)
    return [o.asnumpy() for o in outs], ms.inspect(fn, xs)


@pytest.fixture(scope="module")
def both():
    with pytest.MonkeyPatch.context() as mp:
        fast, fast_report = _compile(True, mp)
        parts, parts_report = _compile(False, mp)
    return fast, parts, fast_report, parts_report


def test_every_fast_path_has_a_tested_decomposition():
    """Every fast-path row states its composition and is in CASES_BY_OP."""
    assert not [op.name for op in core.FAST_PATHS if op.decompose is None]
    with_parts = {op for op in core.FAST_PATHS if op.decompose is not None}
    assert with_parts == set(CASES_BY_OP), sorted(op.name for op in with_parts ^ set(CASES_BY_OP))
    assert all(op.fast_path and not op.expands for op in with_parts)
    assert not [op.name for op in OPS.values() if op.fast_path and op not in core.FAST_PATHS]


def test_the_decomposition_is_compiled_without_the_row(both):
    *_, fast_report, parts_report = both
    for op in CASES_BY_OP:
        assert op.name in fast_report.ir_after, op.name
        assert f"{op.name}(" not in parts_report.ir_after and f"{op.name}]" not in parts_report.ir_after, op.name


# ulps of the output dtype the fast path and its decomposition may differ by (0: bit for bit)
# (a soak of 20 draws per case measured 0 for all but Softmax 2 and LogSoftmax 7 ulps of a result
# near 0 over an outer axis: the template's scalar expf and the parts' vectorized one (libmvec)
# differ in their last bits; BatchNormStats in float64 adds in another order than the template's
# vectorized sums: a mean near 0 of values near 1 differs in the last bits of 1's ulps; the soak's
# 20 draws per case found 5 ulps once, 30 Nov: a sum of 120 terms in two orders)
ULPS = {P.Sigmoid: 0, P.ReLU: 0, P.GeLU: 0, P.GeLUErf: 0, P.ReduceMean: 0, P.Softmax: 4, P.LogSoftmax: 4,
        P.LayerNorm: 0, P.Gather: 0, P.TopKIndices: 0, P.StridedSliceGrad: 0, P.GatherGrad: 0,
        P.BatchNormStats: 8, P.AxisResample: 0, P.AxisResampleGrad: 0, P.MaxPoolArgmax: 0, P.MaxPoolGrad: 0,
        P.AvgPoolGrad: 0, P.AdaptiveAvgPool: 0, P.AdaptiveMaxPool: 0, P.AdaptiveMaxPoolArgmax: 0,
        P.AdaptiveAvgPoolGrad: 0, P.AdaptiveMaxPoolGrad: 0, P.FusedConv: 0, P.TensorScatterElements: 0, P.ReduceAll: 0, P.ReduceAny: 0,
        P.Bernoulli: 0,
        # (the backprop templates add through im2col tiles and BLAS: within the fuzzers' tolerance)
        P.Conv2DBackpropInput: None, P.Conv3DBackpropInput: None, P.Conv2DBackpropFilter: None,
        P.Conv3DBackpropFilter: None}


def _ulp_diff(a, b, floor=0.0):
    """|a - b| in ulps of the larger magnitude (at least `floor`: log_softmax's outputs near 0
    carry the absolute error of the log of the sum, log(1 + small), in ulps of 1)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind != "f":
        return np.where(a == b, 0, np.inf)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.maximum(np.maximum(np.abs(a), np.abs(b)), floor).astype(a.dtype))
        # values at or below the smallest normal (the flush to 0) count as equal
        tiny = np.finfo(a.dtype).tiny
        close = (np.abs(a) <= tiny) & (np.abs(b) <= tiny)
        d = np.abs(a.astype(np.float64) - b.astype(np.float64)) / spacing.astype(np.float64)
    d = np.where(a == b, 0, d)
    return np.where(both_nan | close, 0, np.nan_to_num(d, nan=np.inf))


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_fast_path_equals_its_decomposition_and_numpy(k, both):
    op, dt, attrs, arrays = CASES[k]
    fast, parts = both[0][k], both[1][k]
    assert fast.dtype == parts.dtype and fast.shape == parts.shape
    if ULPS[op] is None:
        problem = F.compare(Tensor(fast), Tensor(parts), f"{op.name} {dt}: fast path vs decomposition")
        assert problem is None, problem
    worst = 0 if ULPS[op] is None else _ulp_diff(fast, parts, 1.0 if op in (P.LogSoftmax, P.BatchNormStats) else 0.0).max(initial=0)
    assert ULPS[op] is None or worst <= ULPS[op], f"{op.name} {dt}: fast path and decomposition differ by {worst} ulps\n{fast}\n{parts}"
    # the row's NumPy reference (float16 computed in float32, as the table's PyNative plan runs it)
    types = [Tensor(a)._abstract for a in arrays]
    cdt = op.lower.compute(types, op.infer(types, **attrs)).np if hasattr(op.lower, "compute") else None
    ins = [a.astype(np.float32) if a.dtype == np.float16 and op.kind.value == "elementwise" else a for a in arrays]
    if cdt is not None and cdt != np.float16:
        ins = [a.astype(cdt) for a in ins]
    if op.variadic:
        ins = ins[:len(op.inputs) - 1] + [ins[len(op.inputs) - 1:]]
    with np.errstate(all="ignore"):
        want = np.asarray(op.eager(*ins, **attrs)).astype(fast.dtype)
    # within the op fuzzer's tolerance (fuzz_ops.compare): the row's NumPy reference is not the C
    problem = F.compare(Tensor(parts), Tensor(want), f"{op.name} {dt}")
    assert problem is None, problem


# ---- the product and convolution epilogues ------------------------------------------------------
def _dense_relu(x, w, b):
    return ops.relu(ops.dense(x, w, b))


def _conv_silu(x, w, b):
    y = ops.conv2d(x, w, stride=1, pad_mode="pad", padding=1)
    return ops.silu(y + b.reshape(1, -1, 1, 1)) * 0.5


EPILOGUES = [
    (_dense_relu, ((16, 24), (10, 24), (10,)), "GEMM epilogue"),
    (_conv_silu, ((2, 3, 9, 8), (4, 3, 3, 3), (4,)), "FusedConv"),
]


@pytest.mark.parametrize("fn,shapes,marker", EPILOGUES, ids=["gemm_bias_relu", "conv_bias_silu"])
@pytest.mark.parametrize("seed", range(3))
def test_epilogue_fast_path_equals_the_unfused_composition(fn, shapes, marker, seed, monkeypatch):
    r = random.Random(seed)
    args = [F.input_array(r, "float32", s) for s in shapes]
    results = {}
    for fast in (True, False):
        monkeypatch.setenv("PYCOMPILE_FAST_PATHS", "1" if fast else "0")
        j = ms.jit(lambda *a: fn(*a))
        results[fast] = j(*[Tensor(a) for a in args]).asnumpy()
        report = ms.inspect(j, *[Tensor(a) for a in args])
        # the fast path runs the bias and activation inside the convolution's kernel (FusedConv),
        # or on each chunk of the product's rows right after BLAS wrote it (a `_rows` epilogue), or
        # - a ReLU after a product the small-product kernel runs - as that kernel stores (issue 37)
        src = report.c_source
        fused = marker in report.ir_after if marker == "FusedConv" else "_rows(" in src or "pc_sgemm_epr(" in src
        assert fused == fast, (marker, fast)
    # the epilogue applies the same expression to the product's stored values: bit for bit
    np.testing.assert_array_equal(results[True], results[False])
    eager = fn(*[Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(results[True], eager, rtol=2e-5, atol=2e-5)

