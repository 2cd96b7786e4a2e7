"""Record MindSpore 2.10's answers for the Primitives and modules fix33 added (CdistGrad from
ops.auto_generate, UpdateCache, SubAndFilter from _embedding_cache_ops, Assert, mint.nn.GLU);
tests/ops/test_fix33_names.py reads them. Run once, in MindSpore's venv:

    /work/ms-venv/bin/python tests/oracle/record_fix33_names.py     # writes data/fix33_names.json

Not collected by pytest.
"""
import json
import os
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = np.arange(20).reshape(5, 4).tolist()
CACHE_INDICES = [[-1, 3, 4], [0, 7, 2]]
CACHE_UPDATES = (np.arange(24).reshape(6, 4) + 100).tolist()
CDIST = {"grad": [[[1.0, -1.0], [2.0, 0.5]]], "x1": [[[1.0, 1.0], [2.0, 2.5]]], "x2": [[[3.0, 3.0], [2.0, 2.5]]]}
CDIST_P = [0.0, 0.5, 1.0, 2.0, 3.0, "inf"]
SUB_X = [1, 3, 5, 8, 9, 16, 5]
GLU_X = np.linspace(-2, 2, 48).reshape(2, 4, 6).tolist()


def ada_factor_cases():
    """(name, shape, flags, global norm, inputs) of the FusedAdaFactor cases, drawn once."""
    rs = np.random.RandomState(5)
    cases = []
    for shape in ((2, 3, 2), (4,)):
        rc = (shape[:-1], shape[:-2] + shape[-1:]) if len(shape) > 1 else ((1,), (1,))
        for flags in ((False, False, False), (True, True, True), (True, False, True), (False, True, False)):
            for gn in (None, 10.0, 0.5):
                inputs = {"grad": rs.randn(*shape), "param": rs.uniform(0.5, 1.5, shape),
                          "exp_avg": rs.uniform(0, .1, shape), "row": rs.uniform(0.1, 1, rc[0]),
                          "col": rs.uniform(0.1, 1, rc[1]), "sq": rs.uniform(0.1, 1, shape if len(shape) == 1 else (1,))}
                inputs = {k: v.astype(np.float32).tolist() for k, v in inputs.items()}
                cases.append({"shape": list(shape), "flags": list(flags), "global_norm": gn, "inputs": inputs})
    return cases


def record_ada_factor(ms, Tensor, Parameter, ops):
    out = []
    for c in ada_factor_cases():
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            ms.set_context(mode=getattr(ms, mode))
            ps = [Parameter(Tensor(np.array(c["inputs"][k], np.float32)), name=k)
                  for k in ("param", "exp_avg", "row", "col", "sq")]
            op = ops.FusedAdaFactor(*c["flags"]) if c["global_norm"] is None else \
                ops.FusedAdaFactorWithGlobalNorm(*c["flags"])
            args = [(1e-30, 1e-3), 1.0, 0.9, 0.8, 1e-2, 0.03, Tensor(np.array(c["inputs"]["grad"], np.float32)), *ps]
            res = op(*args) if c["global_norm"] is None else op(*args, c["global_norm"])
            # the output buffer is never written (stale memory in graph mode): its shapes only
            c[mode] = {"out_shapes": [list(r.shape) for r in res],
                       "after": {p.name: p.asnumpy().tolist() for p in ps}}
        out.append(c)
    return out


BF16_X = [-2.5, -1.0, 0.1, 1.7, 3.14159, 65504.0, 1e-8, float("inf"), float("nan")]


def record_bfloat16(ms, Tensor, ops):
    """test_cast_op.py's mstype.bfloat16 (not a pycompile dtype yet): the wheel's CPU Cast to
    BFloat16 from each source dtype (values read back as float32), in both modes."""
    from mindspore.common import dtype as mstype
    out = {"x": BF16_X}
    for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        for dt in ("bool", "float16", "float32", "float64", "int8", "int32", "uint8", "complex64"):
            x = np.array(BF16_X) > 0 if dt == "bool" else np.array(BF16_X[:6]).astype(dt) if "int" in dt \
                else np.array(BF16_X).astype(dt)
            y = ops.Cast()(Tensor(x), mstype.bfloat16)
            out[f"{dt}/{mode}"] = {"dtype": str(y.dtype), "as_float32": y.astype(mstype.float32).asnumpy().tolist()}
    return out


def main():
    os.chdir(tempfile.mkdtemp())
    import mindspore as ms
    import mindspore.ops.operations._embedding_cache_ops as E
    from mindspore import Parameter, Tensor, nn, ops
    from mindspore.mint.nn import GLU
    from mindspore.ops import auto_generate as gen
    from mindspore.ops import operations as P

    class Cache(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = P.UpdateCache()
            self.x = Parameter(Tensor(np.array(CACHE, np.int32)), name="x")

        def construct(self, i, u):
            return self.op(self.x, i, u, 4)

    class Sub(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = E.SubAndFilter()

        def construct(self, x):
            return self.op(x, 10, 5)

    ms.set_context(mode=ms.GRAPH_MODE)      # PyNative's UpdateCache output is uninitialised memory
    net = Cache()
    out = net(Tensor(np.array(CACHE_INDICES, np.int32)), Tensor(np.array(CACHE_UPDATES, np.int32)))
    data = {"update_cache": {"out": out.asnumpy().tolist(), "out_dtype": str(out.dtype),
                             "cache_after": net.x.asnumpy().tolist()}}
    data["sub_and_filter"] = {}
    for dt in ("int32", "int64"):
        for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
            ms.set_context(mode=getattr(ms, mode))
            v, i = Sub()(Tensor(np.array(SUB_X, dt)))
            data["sub_and_filter"][f"{dt}/{mode}"] = {"values": v.asnumpy().tolist(), "positions": i.asnumpy().tolist(),
                                                     "dtypes": [str(v.dtype), str(i.dtype)]}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g, x1, x2 = (Tensor(np.array(CDIST[k], np.float32)) for k in ("grad", "x1", "x2"))
    data["cdist_grad"] = {}
    for p in CDIST_P:
        pv = float(p)
        data["cdist_grad"][str(p)] = gen.CdistGrad(pv)(g, x1, x2, ops.cdist(x1, x2, pv)).asnumpy().tolist()
    from mindspore.common.api import _pynative_executor
    a = P.Assert(3)
    ok = a(True, [Tensor(np.array([1.0, 2.0], np.float32))])
    ok_value, ok_dtype = list(ok.shape), str(ok.dtype)      # its value is an unwritten buffer
    try:
        a(False, [Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))])
        _pynative_executor.sync()
        err = None
    except RuntimeError as e:
        err = [type(e).__name__, str(e).splitlines()[0]]
    data["assert"] = {"true_shape": ok_value, "true_dtype": ok_dtype, "false": err}
    data["glu"] = {}
    for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        x = Tensor(np.array(GLU_X, np.float32))
        for dim in (0, 1, -1):
            y = GLU(dim)(x)
            gx = ops.GradOperation()(GLU(dim))(x)
            data["glu"][f"{dim}/{mode}"] = {"y": y.asnumpy().tolist(), "grad": gx.asnumpy().tolist()}
    data["fused_ada_factor"] = record_ada_factor(ms, Tensor, Parameter, ops)
    data["bfloat16_cast"] = record_bfloat16(ms, Tensor, ops)
    with open(os.path.join(HERE, "data", "fix33_names.json"), "w") as f:
        json.dump(data, f, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
