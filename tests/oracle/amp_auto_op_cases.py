"""The ops of MindSpore 2.10's amp_level="auto" lists, each called once inside
`amp.auto_mixed_precision(fn, "auto")`: the recorded output dtype (and values) say which class
the wheel gave the op - "low" ops turn float32 inputs into a float16 result, "full" ops float16
inputs into a float32 one, "promote" ops a float16 and a float32 input into float32. Shared by
tests/oracle/record_amp_auto_ops.py (run under MindSpore) and tests/train/test_amp_auto_ops.py
(run under pycompile); `ms` is either module."""
import numpy as np


def _r(seed, *shape, lo=-1.0, hi=1.0):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(np.float32)


def cases(ms):
    ops, T = ms.ops, ms.Tensor
    f32 = lambda a: T(a, ms.float32)
    f16 = lambda a: T(a.astype(np.float16), ms.float16)
    x34, w54, b5 = _r(1, 3, 4), _r(2, 5, 4), _r(3, 5)
    return {
        # white list (low): float32 in, float16 out
        "dense": (lambda: ops.dense(f32(x34), f32(w54), f32(b5))),
        "matmul": (lambda: ops.matmul(f32(x34), f32(w54.T))),
        "prelu": (lambda: ops.prelu(f32(x34), f32(np.full(4, 0.25, np.float32)))),
        "einsum": (lambda: ops.einsum("ij,kj->ik", f32(x34), f32(w54))),
        "mv": (lambda: ops.mv(f32(w54), f32(x34[0]))),
        "baddbmm": (lambda: ops.baddbmm(f32(_r(4, 2, 3, 5)), f32(_r(5, 2, 3, 4)), f32(_r(6, 2, 4, 5)))),
        "addmm": (lambda: ops.addmm(f32(_r(4, 3, 5)), f32(x34), f32(w54.T))),
        "addmv": (lambda: ops.addmv(f32(b5), f32(w54), f32(x34[0]))),
        "addbmm": (lambda: ops.addbmm(f32(_r(4, 3, 5)), f32(_r(5, 2, 3, 4)), f32(_r(6, 2, 4, 5)))),
        # black list (full): float16 in, float32 out
        "cdist": (lambda: ops.cdist(f16(x34), f16(w54))),
        "pdist": (lambda: ops.pdist(f16(x34))),
        "renorm": (lambda: ops.renorm(f16(x34), 2, 0, 1.0)),
        "log10": (lambda: ops.log10(f16(_r(7, 3, 4, lo=0.5, hi=2.0)))),
        "norm": (lambda: ops.norm(f16(x34))),
        "nll_loss": (lambda: ops.nll_loss(f16(np.log(_r(8, 3, 4, lo=0.1, hi=1.0))), T(np.array([0, 3, 1], np.int32)))),
        "soft_margin_loss": (lambda: ops.soft_margin_loss(f16(x34), f16(np.sign(_r(9, 3, 4))))),
        "triplet_margin_loss": (lambda: ops.triplet_margin_loss(f16(x34), f16(_r(10, 3, 4)), f16(_r(11, 3, 4)))),
        "kl_div_loss": (lambda: ops.KLDivLoss("sum")(f16(np.log(_r(12, 3, 4, lo=0.1, hi=1.0))), f16(_r(13, 3, 4, lo=0.1, hi=1.0)))),
        "smooth_l1_loss": (lambda: ops.SmoothL1Loss()(f16(x34), f16(_r(14, 3, 4)))),
        "bce_with_logits": (lambda: ops.BCEWithLogitsLoss()(f16(x34), f16(_r(15, 3, 4, lo=0.0, hi=1.0)),
                                                            f16(np.ones((3, 4), np.float32)), f16(np.ones(4, np.float32)))),
        "group_norm": (lambda: ops.group_norm(f16(_r(16, 2, 4, 3)), 2)),
        "softmax": (lambda: ops.softmax(f16(x34))),
        "log_softmax": (lambda: ops.log_softmax(f16(x34))),
        "exp": (lambda: ops.exp(f16(x34))),
        "pow": (lambda: ops.pow(f16(_r(23, 3, 4, lo=0.5, hi=2.0)), 2.5)),
        "cumsum": (lambda: ops.cumsum(f16(x34), 1)),
        "cumprod": (lambda: ops.cumprod(f16(x34), 1)),
        "sum": (lambda: ops.sum(f16(x34))),
        "reduce_sum": (lambda: ops.ReduceSum()(f16(x34), 1)),
        "prod": (lambda: ops.prod(f16(x34))),
        "reduce_prod": (lambda: ops.ReduceProd()(f16(x34), 1)),
        "l1_loss": (lambda: ops.l1_loss(f16(x34), f16(_r(24, 3, 4)))),
        "mse_loss": (lambda: ops.mse_loss(f16(x34), f16(_r(24, 3, 4)))),
        "layer_norm": (lambda: ops.LayerNorm(1, 1)(f16(x34), f16(np.ones(4, np.float32)), f16(np.zeros(4, np.float32)))[0]),
        "softplus": (lambda: ops.softplus(f16(x34))),
        # promote list: float16 with float32 -> float32
        "addcdiv": (lambda: ops.addcdiv(f16(x34), f32(_r(17, 3, 4)), f32(_r(18, 3, 4, lo=1.0, hi=2.0)), 0.5)),
        "addcmul": (lambda: ops.addcmul(f16(x34), f32(_r(17, 3, 4)), f32(_r(18, 3, 4)), 0.5)),
        "cross": (lambda: ops.cross(f16(_r(19, 2, 3)), f32(_r(20, 2, 3)), 1)),
        "dot": (lambda: ops.dot(f16(x34), f32(w54.T))),
        "bias_add": (lambda: ops.bias_add(f16(x34), f32(_r(21, 4)))),
        "concat": (lambda: ops.concat((f16(x34), f32(_r(22, 3, 4))))),
        "addn": (lambda: ops.addn((f16(x34), f32(_r(22, 3, 4))))),
    }


def run(ms, name):
    """{"dtype": str, "values": flat float list} of case `name` under amp 'auto', or {"error": ...}."""
    fn = cases(ms)[name]
    try:
        out = ms.amp.auto_mixed_precision(lambda: fn(), "auto")()
        return {"dtype": str(out.dtype), "values": [float(v) for v in out.astype(ms.float32).asnumpy().reshape(-1)]}
    except Exception as e:  # noqa: BLE001 - what the wheel refuses is part of the record
        return {"error": [type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""]}
