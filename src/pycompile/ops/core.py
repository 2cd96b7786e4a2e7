"""The core: the primitive ops every device renders, and where each other row of the table
stands (docs/architecture.md, "The core", is this list in words; tests/ops/test_core.py checks
that every row is in exactly one place and prints the counts).

* CORE - the numerical primitives, each with one semantics, implemented twice only (the NumPy
  reference `eager` and the C renderer), their edge values matched to MindSpore 2.10's CPU
  results (tests/compiler/test_edge_values.py). About 80 (87: the libm functions no composition
  reproduces and the random draws, each placed with its measured reason in the docs).
* MACHINERY - not arithmetic: effects and their ordering (Assign, Load, Depend, UpdateState,
  MakeTuple, TensorMove, Print), autodiff's markers and loop stacks, the float-status register,
  the collectives.
* FAST_PATHS - rows kept for speed whose semantics is a composition (softmax, LayerNorm, the
  convolution backprops, pooling gradients, ...): each is a *lowering* the compiler chooses for a
  decomposed op. Each states that composition (`decompose=` with `fast_path=True`), and
  tests/ops/test_core32_fast_paths.py checks the two agree on the fuzzers' inputs.
* TO_DECOMPOSE - rows that are compositions but not converted yet (none left: issue 32's rows
  were each decomposed or placed with a measured reason, branch rows32).
* decomposed - rows with `decompose=` (ops/_table.py): defined by their parts, which every call
  runs; they are not listed here, the attribute says it.

A device renders at least CORE and MACHINERY (they have no decomposition); each row it does not
render (`renders(op)` of backend/devices.Device: a fast path it lacks) the pre-render pass replaces
by its decomposition.
"""
from __future__ import annotations

from pycompile.ops import prims as P

CORE = (
    # elementwise arithmetic and math (47: Log2 and the hyperbolic functions are libm calls that no
    # composition reproduces bit for bit; tools/libm_decompositions.py measures it; IsNan and
    # LessEqual are decompositions, Trunc stays: its select of Ceil and Floor ran 8.7x slower)
    P.Add, P.Sub, P.Mul, P.RealDiv, P.FloorDiv, P.FloorMod, P.Mod, P.Pow, P.Maximum, P.Minimum, P.Neg, P.Abs,
    P.Exp, P.Expm1, P.Log, P.Log1p, P.Log2, P.Sqrt, P.Sin, P.Cos, P.Tan, P.Tanh, P.Asin, P.ACos, P.Atan, P.Atan2,
    P.Sinh, P.Cosh, P.Asinh, P.Acosh, P.Atanh,
    P.Erf, P.Erfc, P.Floor, P.Ceil, P.Round, P.Trunc,
    P.Equal, P.Less, P.LogicalAnd, P.LogicalOr, P.LogicalNot,
    P.BitwiseAnd, P.BitwiseOr, P.BitwiseXor, P.Select, P.Cast,
    # reductions and scans (9)
    P.ReduceSum, P.ReduceProd, P.ReduceMax, P.ReduceMin, P.Argmax, P.Argmin, P.CumSum, P.CumProd, P.CumMinMax,
    # layout, indexing, creation (11)
    P.Reshape, P.Transpose, P.BroadcastTo, P.StridedSlice, P.Concat, P.GatherD, P.GatherNd,
    P.TensorScatterUpdate, P.TensorScatterCombine, P.Argsort, P.Fill,
    # random draws (5): the uniform bits, and the draws that are not uniform-then-a-transform of
    # the core's parts bit for bit (Box-Muller's double log / sin / cos vectorize differently as
    # parts; RandomInt reads 32 bits a draw, RandomUniform has 24; Multinomial and Randperm walk a
    # CDF and sort); Bernoulli is `RandomUniform < p` (a fast path)
    P.RandomUniform, P.RandomNormal, P.RandomInt, P.Multinomial, P.Randperm,
    # products, convolutions, pooling windows (6)
    P.MatMul, P.BatchMatMul, P.Conv2D, P.Conv3D, P.MaxPool, P.AvgPool,
    # linear algebra no composition gives (2)
    P.Svd, P.MatrixSolve,
    # complex numbers: their parts, the conjugate, modulus and argument, building one, the DFT (7)
    P.Real, P.Imag, P.Conj, P.ComplexAbs, P.Angle, P.Complex, P.DFT,
)

MACHINERY = (
    P.Assign, P.Load, P.Depend, P.UpdateState, P.MakeTuple, P.TensorMove, P.Print, P.StopGradient, P.CustomGrad,
    P.CustomPyFunc,
    P.StackNew, P.StackPush, P.StackGet, P.StackLen, P.StackFree,
    P.NPUAllocFloatStatus, P.NPUClearFloatStatus, P.NPUGetFloatStatus,
    P.CheckFinite,      # an effect: raises when the program reaches it with a non-finite value
    P.AllReduce, P.AllReduceStart, P.AllReduceWait, P.AllGather, P.ReduceScatter, P.Broadcast,
)

FAST_PATHS = (
    P.Softmax, P.LogSoftmax, P.LayerNorm, P.BatchNormStats, P.FusedConv, P.ReduceMean,
    P.Conv2DBackpropInput, P.Conv2DBackpropFilter, P.Conv3DBackpropInput, P.Conv3DBackpropFilter,
    P.MaxPoolArgmax, P.MaxPoolGrad, P.AvgPoolGrad, P.AdaptiveAvgPool, P.AdaptiveAvgPoolGrad,
    P.AdaptiveMaxPool, P.AdaptiveMaxPoolArgmax, P.AdaptiveMaxPoolGrad,
    P.AxisResample, P.AxisResampleGrad, P.Gather, P.GatherGrad, P.StridedSliceGrad, P.TopKIndices,
    P.Sigmoid, P.ReLU, P.GeLU, P.GeLUErf, P.TensorScatterElements, P.ReduceAll, P.ReduceAny,
    P.Bernoulli,        # RandomUniform < p, the same stream; its one loop is faster (dropout)
)

TO_DECOMPOSE = ()
