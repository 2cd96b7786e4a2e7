"""Record MindSpore 2.10's values for the wrong values issue 33 lists (its CPU op tests'
test_lstm_op.py, test_apply_adagrad_v2_op.py, test_sparse_to_dense_op.py, test_mish_op.py);
tests/ops/test_fix33_wrong_values.py reads them. Run once, in MindSpore's venv:

    /work/ms-venv/bin/python tests/oracle/record_fix33.py     # writes data/fix33.json

Not collected by pytest. Every value below comes from the wheel.
"""
import json
import os
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# nn.LSTM: (input size, hidden, layers, bidirectional, x shape, init seed)
LSTM_CASES = {"seq3_batch4_is32_hs16": (32, 16, 1, False, (3, 4, 32), 7),
              "two_layers_bidirectional": (5, 4, 2, True, (3, 2, 5), 11)}


def _lists(a):
    """float32 values in their shortest repr (read back as float32, they are the same numbers)."""
    a = np.asarray(a, np.float32)
    return np.array([float(repr(v)) for v in a.ravel()], np.float64).reshape(a.shape).tolist()


def record_lstm(ms, nn, ops, Tensor, ParameterTuple, Parameter):
    out = {}
    for name, (i_s, h_s, layers, bidi, xshape, seed) in LSTM_CASES.items():
        d = 2 if bidi else 1
        rs = np.random.RandomState(seed + 1000)
        x = rs.randn(*xshape).astype(np.float32)
        h0 = rs.randn(layers * d, xshape[1], h_s).astype(np.float32)
        c0 = rs.randn(layers * d, xshape[1], h_s).astype(np.float32)
        case = {"input_size": i_s, "hidden_size": h_s, "num_layers": layers, "bidirectional": bidi, "seed": seed,
                "x": _lists(x), "h0": _lists(h0), "c0": _lists(c0)}

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(i_s, h_s, num_layers=layers, has_bias=True, batch_first=False,
                                    bidirectional=bidi, dropout=0.0)

            def construct(self, inp, h, c):
                return self.lstm(inp, (h, c))

        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            ms.set_context(mode=getattr(ms, mode))
            np.random.seed(seed)                    # the layer draws its weights from NumPy's generator
            net = Net()
            if mode == "PYNATIVE_MODE":
                case["param_names"] = [p.name for p in net.trainable_params()]
                case["weights_sum"] = {p.name: float(p.asnumpy().astype(np.float64).sum())
                                       for p in net.trainable_params()}
            y, (hy, cy) = net(Tensor(x), Tensor(h0), Tensor(c0))
            params = ParameterTuple(net.trainable_params())
            grads = ops.GradOperation(get_all=True, get_by_list=True)(net, params)(Tensor(x), Tensor(h0), Tensor(c0))
            case[mode] = {"out": _lists(y.asnumpy()), "hy": _lists(hy.asnumpy()), "cy": _lists(cy.asnumpy()),
                          "grad_inputs": [_lists(g.asnumpy()) for g in grads[0]],
                          "grad_params": [_lists(g.asnumpy()) for g in grads[1]]}
        # weights replaced through the ParameterTuples, as test_lstm_op.py does
        rs = np.random.RandomState(seed + 2000)
        gate = 4 * h_s
        repl = {"w_ih": [], "w_hh": [], "b_ih": [], "b_hh": []}
        for layer in range(layers):
            for k in range(d):
                in_size = i_s if layer == 0 else h_s * d
                repl["w_ih"].append(rs.uniform(-0.5, 0.5, (gate, in_size)).astype(np.float32))
                repl["w_hh"].append(rs.uniform(-0.5, 0.5, (gate, h_s)).astype(np.float32))
                repl["b_ih"].append(rs.uniform(-0.5, 0.5, (gate,)).astype(np.float32))
                repl["b_hh"].append(rs.uniform(-0.5, 0.5, (gate,)).astype(np.float32))
        case["replaced"] = {k: [_lists(a) for a in v] for k, v in repl.items()}
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = Net()
        for k, v in repl.items():
            setattr(net.lstm, f"{k}_list", ParameterTuple([Parameter(Tensor(a), name=f"{k}_{i}") for i, a in enumerate(v)]))
        y, (hy, cy) = net(Tensor(x), Tensor(h0), Tensor(c0))
        case["replaced_out"] = {"out": _lists(y.asnumpy()), "hy": _lists(hy.asnumpy()), "cy": _lists(cy.asnumpy())}
        out[name] = case
    return out


ADAGRAD_BASE = [[0.59021956, 0.6402413, 0.26803252], [0.64904916, 0.5892827, 0.6982026],
                [0.4472826, 0.4589515, 0.29412633]]


def record_adagrad_v2(ms, nn, ops, Tensor, Parameter):
    from mindspore.ops import functional as F
    from mindspore.ops import operations as P

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = P.ApplyAdagradV2(1e-6)

        def construct(self, var, accum, lr, grad):
            return self.op(var, accum, lr, grad)

    out = {"base": ADAGRAD_BASE, "cases": []}
    grad = np.arange(9).reshape(3, 3)
    for var_dt, lr_dt, grad_dt, lr, vmap in [("float64", "float32", "float16", [0.001, 0.1, 3.0], True),
                                            ("float64", "float32", "float16", 0.1, False),
                                            ("float64", "float64", "float64", 0.1, False),
                                            ("float16", "float16", "float16", 0.1, False),
                                            ("float32", "float32", "float16", 0.1, False)]:
        case = {"var": var_dt, "lr_dtype": lr_dt, "grad_dtype": grad_dt, "lr": lr, "vmap": vmap}
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            ms.set_context(mode=getattr(ms, mode))
            base = np.array(ADAGRAD_BASE, var_dt)
            var, accum = Parameter(Tensor(base.copy()), name="var"), Parameter(Tensor(base.copy()), name="accum")
            args = (var, accum, Tensor(np.array(lr, lr_dt)), Tensor(grad.astype(grad_dt)))
            res = F.vmap(Net(), in_axes=(0, 0, 0, 0))(*args) if vmap else Net()(*args)
            case[mode] = {"dtype": str(res[0].dtype), "var": res[0].asnumpy().astype(np.float64).tolist(),
                          "accum": res[1].asnumpy().astype(np.float64).tolist()}
        out["cases"].append(case)
    return out


def record_sparse_to_dense(ms, nn, ops, Tensor):
    from mindspore.ops import composite as C
    from mindspore.ops import operations as P

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = P.SparseToDense()

        def construct(self, i, v, s):
            return self.op(i, v, s)

    class Grad(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.grad = C.GradOperation(get_all=True, sens_param=True)
            self.net = net

        def construct(self, i, v, s, sens):
            return self.grad(self.net)(i, v, s, sens)

    indices = [[0, 1], [1, 2], [0, 1]]          # (0, 1) twice: the last value is kept
    out = {"indices": indices, "values": [7, 8, 5], "shape": [3, 3], "cases": []}
    for vt in ("bool", "uint8", "int8", "int32", "int64", "float16", "float32"):
        case = {"dtype": vt}
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            ms.set_context(mode=getattr(ms, mode))
            i = Tensor(np.array(indices, np.int32))
            v = Tensor(np.array(out["values"]).astype(vt))
            sens = Tensor(np.arange(9).reshape(3, 3).astype(vt))
            dense = Net()(i, v, (3, 3))
            g = Grad(Net())(i, v, (3, 3), sens)
            case[mode] = {"dense": dense.asnumpy().astype(np.float64).tolist(), "dense_dtype": str(dense.dtype),
                          "grad_values": g[1].asnumpy().astype(np.float64).tolist(), "grad_dtype": str(g[1].dtype)}
        out["cases"].append(case)
    return out


def record_mish(ms, nn, Tensor):
    from mindspore.ops import operations as P

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = P.Mish()

        def construct(self, x):
            return self.op(x)

    # every float16 in [0, 1) (the suite's np.random.random inputs) and in (-1, 0)
    pos = np.arange(0, 0x3C00, dtype=np.uint16).view(np.float16)
    x = np.concatenate([pos, -pos[1:]])
    out = {"x": "every float16 in [0, 1), then their negatives from the smallest up (bits 0..0x3bff)"}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        out[mode] = Net()(Tensor(x)).asnumpy().view(np.uint16).tolist()
    assert out["GRAPH_MODE"] == out["PYNATIVE_MODE"]
    out["GRAPH_MODE"] = "same as PYNATIVE_MODE"
    return out


def main():
    os.chdir(tempfile.mkdtemp())
    import mindspore as ms
    from mindspore import Parameter, ParameterTuple, Tensor, nn, ops
    data = {"lstm": record_lstm(ms, nn, ops, Tensor, ParameterTuple, Parameter),
            "apply_adagrad_v2": record_adagrad_v2(ms, nn, ops, Tensor, Parameter),
            "sparse_to_dense": record_sparse_to_dense(ms, nn, ops, Tensor),
            "mish_float16": record_mish(ms, nn, Tensor),
            "meta": {"mindspore": ms.__version__, "numpy": np.__version__}}
    with open(os.path.join(HERE, "data", "fix33.json"), "w") as f:
        json.dump(data, f, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
