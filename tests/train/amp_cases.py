"""Automatic mixed precision scripts, written once and run twice: by MindSpore 2.10
(tests/oracle/record_amp.py -> tests/oracle/data/amp.json) and by pycompile (tests/train/test_amp.py).
Each case takes the framework module (`mindspore` or `pycompile`; this file imports neither) and
returns plain JSON data: per-step losses and their dtypes, the dtypes of the network's and of its
layers' outputs after the level was applied, the Parameters' dtypes and values after training, and
the errors (exception class and first line) of what a level refuses.

Two small networks with fixed NumPy weights: Dense -> ReLU -> Dense ("mlp") and
Dense -> BatchNorm1d -> ReLU -> Dense ("bn"), trained with Momentum on fixed batches.
"""
from __future__ import annotations

import numpy as np

N, N_IN, N_HID, N_OUT, STEPS = 8, 6, 10, 3, 4


def data():
    rng = np.random.RandomState(11)
    xs = [rng.randn(N, N_IN).astype(np.float32) for _ in range(STEPS)]
    ys = [rng.randint(0, N_OUT, size=N).astype(np.int32) for _ in range(STEPS)]
    w1 = (rng.randn(N_HID, N_IN) * 0.4).astype(np.float32)
    b1 = (rng.randn(N_HID) * 0.1).astype(np.float32)
    w2 = (rng.randn(N_OUT, N_HID) * 0.4).astype(np.float32)
    b2 = (rng.randn(N_OUT) * 0.1).astype(np.float32)
    return xs, ys, (w1, b1, w2, b2)


def make_net(ms, kind):
    nn = ms.nn
    w1, b1, w2, b2 = data()[2]
    if kind == "prim":
        return _prim_net(ms)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(N_IN, N_HID, weight_init=ms.Tensor(w1), bias_init=ms.Tensor(b1))
            self.bn = nn.BatchNorm1d(N_HID) if kind == "bn" else None
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(N_HID, N_OUT, weight_init=ms.Tensor(w2), bias_init=ms.Tensor(b2))

        def construct(self, x):
            h = self.fc1(x)
            if self.bn is not None:
                h = self.bn(h)
            return self.fc2(self.relu(h))

    # MindSpore's O1 (ms.rewrite) re-reads the class's source and resolves its name in this
    # module: a class local to this function must be visible here
    globals()["Net"] = Net
    return Net()


def _prim_net(ms):
    """The MLP written with Primitive instances (MatMul, ReLU: O1's white-listed primitives)."""
    nn = ms.nn
    w1, b1, w2, b2 = data()[2]

    class PrimNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1, self.b1 = ms.Parameter(ms.Tensor(w1), name="w1"), ms.Parameter(ms.Tensor(b1), name="b1")
            self.w2, self.b2 = ms.Parameter(ms.Tensor(w2), name="w2"), ms.Parameter(ms.Tensor(b2), name="b2")
            self.matmul = ms.ops.MatMul(transpose_b=True)
            self.relu = ms.ops.ReLU()

        def construct(self, x):
            h = self.relu(self.matmul(x, self.w1) + self.b1)
            return self.matmul(h, self.w2) + self.b2

    globals()["PrimNet"] = PrimNet
    return PrimNet()


def _floats(t):
    return np.asarray(t.asnumpy(), np.float64).round(6).reshape(-1).tolist()


def _error(e):
    return [type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""]


def _params(net):
    return {p.name: [str(p.dtype), _floats(p)] for p in net.get_parameters()}


def _layer_dtypes(ms, net, x):
    """Output dtypes of the network and of its first Dense, called on a float32 batch."""
    net.set_train(False)
    out = {"net": str(net(x).dtype), "fc1": str(net.fc1(x).dtype),
           "fc1_weight": str(net.fc1.weight.dtype)}
    net.set_train(True)
    return out


def _steps(ms, step):
    xs, ys, _ = data()
    losses = []
    for x, y in zip(xs, ys):
        loss = step(ms.Tensor(x), ms.Tensor(y))
        loss = loss[0] if isinstance(loss, tuple) else loss
        losses.append([str(loss.dtype), float(loss.asnumpy())])
    return losses


def _loss(ms):
    return ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _opt(ms, net, loss_scale=1.0):
    return ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9, loss_scale=loss_scale)


def build(ms, kind, level, loss_scale=1.0, **kwargs):
    """amp.build_train_network(net, opt, loss, level) trained STEPS steps."""
    net = make_net(ms, kind)
    try:
        step = ms.amp.build_train_network(net, _opt(ms, net, loss_scale), _loss(ms), level=level, **kwargs)
    except Exception as e:  # noqa: BLE001 - what the level refuses is part of the record
        return {"error": _error(e)}
    x = ms.Tensor(data()[0][0])
    out = {"before": _layer_dtypes(ms, net, x), "losses": _steps(ms, step)}
    out["params"] = _params(net)
    out["after"] = _layer_dtypes(ms, net, x)
    out["predict"] = _floats(net(x).astype(ms.float32))
    return out


def auto(ms, kind, level):
    """amp.auto_mixed_precision(net, level), then a plain TrainOneStepCell loop; level "white" /
    "black": amp.custom_mixed_precision with the built-in white / black list."""
    net = make_net(ms, kind)
    try:
        if level == "white":
            amp_net = ms.amp.custom_mixed_precision(net, white_list=ms.amp.get_white_list())
        elif level == "black":
            amp_net = ms.amp.custom_mixed_precision(net, black_list=ms.amp.get_black_list())
        else:
            amp_net = ms.amp.auto_mixed_precision(net, level)
    except Exception as e:  # noqa: BLE001
        return {"error": _error(e)}
    x = ms.Tensor(data()[0][0])
    amp_net.set_train(False)
    first = amp_net(x)
    out = {"out_dtype": str(first.dtype), "fc1": str(net.fc1(x).dtype) if hasattr(net, "fc1") else None,
           "forward": _floats(first),
           "same_object": amp_net is net}
    amp_net.set_train(True)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(amp_net, _loss(ms)), _opt(ms, net))
    out["losses"] = _steps(ms, step)
    out["params"] = _params(net)
    return out


def model(ms, kind, level, **kwargs):
    """Model(net, loss, opt, amp_level=level).train(1 epoch) with per-step losses from a callback."""
    net = make_net(ms, kind)
    try:
        m = ms.Model(net, _loss(ms), _opt(ms, net), amp_level=level, **kwargs)
    except Exception as e:  # noqa: BLE001
        return {"error": _error(e)}
    xs, ys, _ = data()
    ds = ms.dataset.NumpySlicesDataset({"data": np.concatenate(xs), "label": np.concatenate(ys)},
                                       shuffle=False).batch(N)
    losses = []

    class Rec(ms.train.Callback):
        def on_train_step_end(self, run_context):
            o = run_context.original_args().net_outputs
            o = o[0] if isinstance(o, (tuple, list)) else o
            losses.append([str(o.dtype), float(o.asnumpy())])

    try:
        m.train(1, ds, callbacks=[Rec()], dataset_sink_mode=False)
    except Exception as e:  # noqa: BLE001
        return {"train_error": _error(e)}
    return {"losses": losses, "params": _params(net)}


def to_float(ms):
    """Cell.to_float on a Dense and on a whole network: outputs, dtypes, the flags' scope."""
    xs, _, (w1, b1, _, _) = data()
    x = ms.Tensor(xs[0])
    dense = ms.nn.Dense(N_IN, N_HID, weight_init=ms.Tensor(w1), bias_init=ms.Tensor(b1))
    same = dense.to_float(ms.float16) is dense
    y = dense(x)
    out = {"returns_self": same, "dense": [str(y.dtype), _floats(y)], "weight": str(dense.weight.dtype)}
    net = make_net(ms, "bn").to_float(ms.float16)
    net.bn.to_float(ms.float32)
    net.set_train(False)
    out["net_bn32"] = [str(net(x).dtype), str(net.bn(net.fc1(x)).dtype), _floats(net(x))]
    net.to_float(ms.float32)
    out["back_to_32"] = str(net(x).dtype)
    try:
        dense.to_float(ms.int32)
    except Exception as e:  # noqa: BLE001
        out["bad_dtype"] = _error(e)
    return out


def errors(ms):
    net = make_net(ms, "mlp")
    out = {}
    for name, call in [("auto_bad_level", lambda: ms.amp.auto_mixed_precision(net, "O5")),
                       ("auto_bad_dtype", lambda: ms.amp.auto_mixed_precision(net, "O2", ms.float32)),
                       ("auto_not_cell", lambda: ms.amp.auto_mixed_precision(lambda x: x, "O2")),
                       ("build_bad_level", lambda: ms.amp.build_train_network(net, _opt(ms, net), level="O4")),
                       ("build_bad_kwarg", lambda: ms.amp.build_train_network(net, _opt(ms, net), level="O2",
                                                                             foo=1)),
                       ("build_bad_cast", lambda: ms.amp.build_train_network(net, _opt(ms, net), level="O2",
                                                                            cast_model_type=ms.int32)),
                       ("model_bad_level", lambda: ms.Model(net, _loss(ms), _opt(ms, net), amp_level="O7"))]:
        try:
            call()
            out[name] = None
        except Exception as e:  # noqa: BLE001
            out[name] = _error(e)
    out["white_list"] = [c.__name__ for c in ms.amp.get_white_list()]
    out["black_list"] = [c.__name__ for c in ms.amp.get_black_list()]
    return out


def _cases():
    cases = {}
    for kind in ("mlp", "bn"):
        for level in ("O0", "O1", "O2", "O3"):
            cases[f"build_{kind}_{level}"] = lambda ms, k=kind, lv=level: build(ms, k, lv)
            cases[f"auto_{kind}_{level}"] = lambda ms, k=kind, lv=level: auto(ms, k, lv)
            cases[f"model_{kind}_{level}"] = lambda ms, k=kind, lv=level: model(ms, k, lv)
        cases[f"build_{kind}_O2_nolsm"] = lambda ms, k=kind: build(ms, k, "O2", loss_scale_manager=None)
        cases[f"model_{kind}_O2_nolsm"] = lambda ms, k=kind: model(ms, k, "O2", loss_scale_manager=None)
        cases[f"build_{kind}_O2_fixed"] = lambda ms, k=kind: build(
            ms, k, "O2", 128.0, loss_scale_manager=ms.FixedLossScaleManager(128.0, drop_overflow_update=False))
        cases[f"build_{kind}_O3_bn32"] = lambda ms, k=kind: build(ms, k, "O3", keep_batchnorm_fp32=True)
        cases[f"build_{kind}_O2_cast32"] = lambda ms, k=kind: build(ms, k, "O2", loss_scale_manager=None,
                                                                   cast_model_type=ms.float32)
        cases[f"model_{kind}_auto"] = lambda ms, k=kind: model(ms, k, "auto")
        cases[f"auto_{kind}_auto"] = lambda ms, k=kind: auto(ms, k, "auto")
        cases[f"build_{kind}_auto"] = lambda ms, k=kind: build(ms, k, "auto")
        cases[f"custom_{kind}_white"] = lambda ms, k=kind: auto(ms, k, "white")
        cases[f"custom_{kind}_black"] = lambda ms, k=kind: auto(ms, k, "black")
    for level in ("O1", "O2", "O3", "auto", "white"):
        cases[f"prim_{level}"] = lambda ms, lv=level: auto(ms, "prim", lv)
    cases["to_float"] = to_float
    cases["errors"] = errors
    return cases


CASES = _cases()
