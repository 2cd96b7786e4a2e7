"""amp_level="auto" by op object: the class of every op of MindSpore 2.10's auto lists that
pycompile has (`mindspore/train/amp.py`: AMP_AUTO_WHITE_LIST -> "low", AMP_AUTO_BLACK_LIST ->
"full", the promote list -> "promote"; see ops/_mixed.py for what each class does to the inputs).

Three kinds of op carry a class, each on the object itself, so a misspelling fails at import:

* rows of the op table, listed here by object (`P.MatMul`), installed into `_mixed.AUTO_CLASS`;
* op entries, by their `amp=` (ops/entries/: cross, addcdiv, addcmul, bias_add promote; log10,
  pdist full);
* front-end functions that compose table ops for one MindSpore Primitive, by the
  `_mixed.amp_class` decorator on their definition (dense, prelu: low; cdist, renorm, nll_loss,
  smooth_l1_loss, kl_div, binary_cross_entropy_with_logits, group_norm, sum, prod: full).
  tests/train/test_amp_auto_ops.py walks them.

How MindSpore's names map (tests/train/test_amp_auto_ops.py checks each present op's class
against the wheel's recorded result, tests/oracle/data/amp_auto_ops.json):

* Dense / BiasAdd are MatMul + Add here, BatchNorm is BatchNormStats, Conv2DTranspose is
  Conv2DBackpropInput; the `*Ext` names are the wheel's pyboost forms of the same ops (SumExt and
  ProdExt are its ops.sum / ops.prod, CumsumExt its ops.cumsum, SoftplusExt / LogSoftmaxExt /
  LayerNormExt / BatchNormExt / MatMulExt / BatchMatMulExt / Conv2DExt / Conv3DExt /
  ConvTranspose2D / Convolution the same ops again).
* Addmm, Addbmm, Addmv, Baddbmm: on the wheel's CPU, ops.addmm & co. are compositions whose
  product reads float16 and whose sum with `input` is float32 (recorded: a float32 result), so
  here too they carry no class of their own - their MatMul / BatchMatMul does.
* Mv, Einsum, Norm: compositions of listed rows here (Mv's MatMul, Einsum's BatchMatMul /
  products; ops.norm's, as the wheel's ops.norm, does not reach its Norm Primitive - recorded:
  float16 in, float16 out).
* L1LossExt, MSELossExt: the wheel's ops.l1_loss / ops.mse_loss do not reach them (recorded:
  float16 in, float16 out); here they are entries without a class.
* Dot: the wheel's ops.dot does not reach its Dot Primitive (it refuses float16 with float32,
  recorded); here ops.dot is an entry without a class.
* Not in pycompile (no op to classify; `ABSENT`, checked absent by the test so that adding one
  means classifying it): NLLLoss2d. (GridSampler2D / 3D: the grid_sample entries, 'promote'.)
  (Erfinv, MultiMarginLoss and MultilabelMarginLoss are op entries now, classified 'full' by their
  `amp=`.) SoftMarginLoss and TripletMarginLoss have no CPU kernel in the
  wheel; pycompile's compositions get no class (their parts' classes apply).
"""
from __future__ import annotations

from pycompile.ops import _mixed
from pycompile.ops import prims as P

LOW = (P.MatMul, P.BatchMatMul, P.Conv2D, P.Conv3D, P.Conv2DBackpropInput, P.Conv3DBackpropInput)
FULL = (P.Pow, P.ACos, P.Asin, P.Cosh, P.Exp, P.Expm1, P.Log, P.Log1p, P.Log2, P.Reciprocal, P.Rsqrt,
        P.Sinh, P.Tan, P.Softplus, P.LayerNorm, P.BatchNormStats, P.ReduceProd, P.Softmax, P.LogSoftmax,
        P.CumProd, P.CumSum)
PROMOTE = (P.AddN, P.Concat)

# MindSpore 2.10 auto-list names pycompile has no op for (see the module docstring)
ABSENT = ("NLLLoss2d",)


def _install():
    for cls, ops in (("low", LOW), ("full", FULL), ("promote", PROMOTE)):
        for op in ops:
            if op in _mixed.AUTO_CLASS:
                raise ValueError(f"amp auto: {op} is classified twice")
            _mixed.AUTO_CLASS[op] = cls


_install()

