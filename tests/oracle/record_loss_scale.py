"""Record MindSpore loss scaling, TrainOneStep wrappers and gradient clipping into
data/loss_scale.json.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_loss_scale.py

Sections (each entry carries its own "code" description and inputs):
  update_cells        nn.DynamicLossScaleUpdateCell / nn.FixedLossScaleUpdateCell called as
                      cell(scale_param, Tensor(overflow_flag)) for a sequence of flags
  managers            ms.amp.FixedLossScaleManager / DynamicLossScaleManager
  scalers             ms.amp.StaticLossScaler / DynamicLossScaler, ms.amp.all_finite
  train_loss_scale    nn.TrainOneStepWithLossScaleCell on the tiny model, 8 steps, some
                      steps with inputs that overflow
  train_one_step      nn.TrainOneStepCell(WithLossCell(net, MSELoss), opt, sens=...)
  clip                ops.clip_by_global_norm / clip_by_value / clip_by_norm
Modes: "pynative" (PYNATIVE_MODE) and "graph" (GRAPH_MODE: the Cells' construct is
compiled); graph results equal to pynative (rtol=atol=1e-6) are {"same_as": "pynative"}.
"""
import inspect
import os
import sys
import tempfile
import textwrap

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, ops, Tensor, Parameter  # noqa: E402

rng = np.random.default_rng(11)
X = np.round(rng.standard_normal((5, 4)), 3).astype(np.float32)
Y = np.round(rng.standard_normal((5, 3)), 3).astype(np.float32)
W0 = np.round(rng.standard_normal((3, 4)) * 0.5, 3).astype(np.float32)
B0 = np.round(rng.standard_normal((3,)) * 0.5, 3).astype(np.float32)

FLAGS = [False, False, False, True, False, False, False, False, True, True, False]
FLAGS_MANY_OVERFLOWS = [True] * 6 + [False] * 4


def set_mode(mode):
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)


def both_modes(fn):
    """fn(mode) -> dict; returns {"pynative": ..., "graph": ... or same_as}, agree."""
    res = {}
    for mode in ("pynative", "graph"):
        set_mode(mode)
        try:
            res[mode] = fn(mode)
        except Exception as e:  # noqa: BLE001
            res[mode] = rc.encode_error(e)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    agree = rc.same(res["pynative"], res["graph"])
    if agree:
        res["graph"] = {"same_as": "pynative"}
    return res, agree


def plain(t):
    enc = rc.encode(t)
    enc["tensor"].pop("class", None)
    enc["tensor"].pop("name", None)
    return enc


# ---------------------------------------------------------------------------------------
def update_cell_seq(make, init_scale, flags):
    def fn(mode):
        cell = make()
        scale = Parameter(Tensor(init_scale, ms.float32), name="scale")
        out = {"initial_cell_state": {n: plain(p) for n, p in cell.parameters_and_names()}, "steps": []}
        for f in flags:
            r = rc.capture(cell, scale, Tensor(f))
            out["steps"].append({"overflow": f, "returned": r, "scale_after": plain(scale),
                                 "cell_state": {n: plain(p) for n, p in cell.parameters_and_names()}})
        return out
    return fn


def record_update_cells():
    entries = []
    for code, make, init, flags in [
        ("nn.DynamicLossScaleUpdateCell(loss_scale_value=2**12, scale_factor=2, scale_window=3)",
         lambda: nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2, scale_window=3),
         2.0 ** 12, FLAGS),
        ("nn.DynamicLossScaleUpdateCell(loss_scale_value=4.0, scale_factor=2, scale_window=2)",
         lambda: nn.DynamicLossScaleUpdateCell(loss_scale_value=4.0, scale_factor=2, scale_window=2),
         4.0, FLAGS_MANY_OVERFLOWS),
        ("nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=4, scale_window=1)",
         lambda: nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=4, scale_window=1),
         1024.0, FLAGS),
        ("nn.FixedLossScaleUpdateCell(loss_scale_value=1024.0)",
         lambda: nn.FixedLossScaleUpdateCell(loss_scale_value=1024.0), 1024.0, FLAGS),
    ]:
        res, agree = both_modes(update_cell_seq(make, init, flags))
        entries.append({"code": code,
                        "protocol": "scale = Parameter(Tensor(init_scale, float32)); for each flag: "
                                    "returned = cell(scale, Tensor(flag)); record scale and the cell's "
                                    "Parameters (parameters_and_names)",
                        "init_scale": init, "flags": flags, "results": res, "modes_agree": agree})
        print(("   " if agree else "!! ") + code, file=sys.stderr)
    return entries


def record_managers():
    out = []
    for code, make in [("ms.amp.FixedLossScaleManager(128, drop_overflow_update=False)",
                        lambda: ms.amp.FixedLossScaleManager(128, drop_overflow_update=False)),
                       ("ms.amp.FixedLossScaleManager(128, drop_overflow_update=True)",
                        lambda: ms.amp.FixedLossScaleManager(128, drop_overflow_update=True)),
                       ("ms.amp.FixedLossScaleManager()", lambda: ms.amp.FixedLossScaleManager()),
                       ("ms.amp.DynamicLossScaleManager(2**10, 2, 3)",
                        lambda: ms.amp.DynamicLossScaleManager(2 ** 10, 2, 3)),
                       ("ms.amp.DynamicLossScaleManager()", lambda: ms.amp.DynamicLossScaleManager())]:
        m = make()
        e = {"code": code, "get_loss_scale": rc.capture(m.get_loss_scale),
             "get_drop_overflow_update": rc.capture(m.get_drop_overflow_update)}
        cell = m.get_update_cell()
        e["get_update_cell_type"] = None if cell is None else type(cell).__name__
        if cell is not None:
            e["update_cell_get_loss_scale"] = rc.capture(cell.get_loss_scale)
            e["update_cell_parameters"] = {n: plain(p) for n, p in cell.parameters_and_names()}
        seq = []
        for f in FLAGS:
            r = rc.capture(m.update_loss_scale, f)
            seq.append({"overflow": f, "returned": r, "get_loss_scale_after": rc.capture(m.get_loss_scale)})
        e["update_loss_scale_sequence"] = seq
        out.append(e)
    # errors
    for code, thunk in [("ms.amp.FixedLossScaleManager(0.5)", lambda: ms.amp.FixedLossScaleManager(0.5)),
                        ("ms.amp.DynamicLossScaleManager(2**10, 1, 3)",
                         lambda: ms.amp.DynamicLossScaleManager(2 ** 10, 1, 3)),
                        ("ms.amp.DynamicLossScaleManager(2**10, 2, 0)",
                         lambda: ms.amp.DynamicLossScaleManager(2 ** 10, 2, 0))]:
        out.append({"code": code, "construct": rc.capture(lambda: type(thunk()).__name__)})
    return out


def record_scalers():
    out = []
    g = (Tensor(np.array([1.0, -2.0], np.float32)), Tensor(np.array([[4096.0]], np.float32)))
    s = ms.amp.StaticLossScaler(1024)
    out.append({"code": "ms.amp.StaticLossScaler(1024)",
                "scale(Tensor(1.5))": rc.capture(s.scale, Tensor(np.float32(1.5))),
                "unscale((Tensor([1., -2.]), Tensor([[4096.]])))": rc.capture(s.unscale, g),
                "adjust(Tensor(False))": rc.capture(s.adjust, Tensor(False)),
                "scale_value": rc.encode(s.scale_value)})
    d = ms.amp.DynamicLossScaler(1024, 2, 3)
    e = {"code": "ms.amp.DynamicLossScaler(1024, 2, 3)",
         "scale(Tensor(1.5))": rc.capture(d.scale, Tensor(np.float32(1.5))),
         "scale((Tensor([1., -2.]), Tensor([[4096.]])))": rc.capture(d.scale, g),
         "unscale((Tensor([1., -2.]), Tensor([[4096.]])))": rc.capture(d.unscale, g),
         "initial": {"scale_value": plain(d.scale_value), "counter": plain(d.counter)},
         "adjust_sequence": []}
    for finite in [not f for f in FLAGS]:
        r = rc.capture(d.adjust, Tensor(finite))
        e["adjust_sequence"].append({"grads_finite": finite, "returned": r, "scale_value": plain(d.scale_value),
                                     "counter": plain(d.counter)})
    out.append(e)
    af = []
    for desc, arrs in [("finite", [np.array([1.0, 2.0], np.float32), np.array([[3.0]], np.float32)]),
                       ("inf", [np.array([1.0, np.inf], np.float32), np.array([[3.0]], np.float32)]),
                       ("nan", [np.array([1.0, 2.0], np.float32), np.array([[np.nan]], np.float32)]),
                       ("-inf float16", [np.array([-np.inf, 2.0], np.float16)])]:
        af.append({"inputs": [rc.tensor_spec(a) for a in arrs], "desc": desc,
                   "all_finite": rc.capture(ms.amp.all_finite, tuple(Tensor(a) for a in arrs))})
    out.append({"code": "ms.amp.all_finite(tuple_of_tensors)", "cases": af})
    return out


# ---------------------------------------------------------------------------------------
class Backbone(nn.Cell):
    def __init__(self, w0, b0):
        super().__init__()
        self.w = Parameter(Tensor(w0), name="w")
        self.b = Parameter(Tensor(b0), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w.T) + self.b


def step_inputs():
    """x per step: steps 4 and 7 (1-based) overflow: one has an inf, one has 1e30 entries
    (finite in float32, but the squared error overflows)."""
    xs = [X.copy() for _ in range(8)]
    xs[3][1, 2] = np.inf
    xs[6][0, :] = 1e30
    return xs


class InfNanCheckLossScaleCell(nn.TrainOneStepWithLossScaleCell):
    """Workaround: on CPU, TrainOneStepWithLossScaleCell.get_overflow_status takes its
    Ascend-910A branch (NPUGetFloatStatusV2, not implemented on CPU; its GPU branch needs
    FloatStatus, not implemented on CPU either).  This subclass detects overflow with the
    public ms.amp.all_finite on the (scaled) gradients instead; everything else is
    MindSpore's TrainOneStepWithLossScaleCell."""

    def get_overflow_status(self, status, compute_output):
        return ops.logical_not(ms.amp.all_finite(compute_output))


def train_loss_scale(scale_kind, cls=nn.TrainOneStepWithLossScaleCell,
                     opt_expr="nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)"):
    def fn(mode):
        net = Backbone(W0.copy(), B0.copy())
        opt = eval(opt_expr, {"nn": nn, "net": net})  # noqa: S307
        if scale_kind == "dynamic":
            sense = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2, scale_window=3)
        elif scale_kind == "fixed_tensor":
            sense = Tensor(1024.0, ms.float32)
        else:
            sense = nn.FixedLossScaleUpdateCell(loss_scale_value=1024.0)
        train = cls(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense=sense)
        train.set_train()
        out = {"train_cell_parameter_names": [n for n, _ in train.parameters_and_names()], "steps": []}
        for k, x in enumerate(step_inputs()):
            r = train(Tensor(x), Tensor(Y))
            extra = {n: plain(p) for n, p in train.parameters_and_names()
                     if p is not net.w and p is not net.b}
            out["steps"].append({"step": k + 1, "returned": rc.encode(r),
                                 "params": {"w": plain(net.w), "b": plain(net.b)},
                                 "other_parameters": extra})
        return out
    return fn


def amp_functional(mode):
    """The functional recipe: ms.amp.DynamicLossScaler + ms.amp.all_finite."""
    net = Backbone(W0.copy(), B0.copy())
    loss_fn = nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    scaler = ms.amp.DynamicLossScaler(scale_value=2 ** 12, scale_factor=2, scale_window=3)

    def forward_fn(x, y):
        return scaler.scale(loss_fn(net(x), y))
    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        loss = scaler.unscale(loss)
        grads = scaler.unscale(grads)
        is_finite = ms.amp.all_finite(grads)
        if is_finite:
            opt(grads)
        scaler.adjust(is_finite)
        return loss, is_finite
    step = ms.jit(train_step) if mode == "graph" else train_step
    out = {"steps": []}
    for k, x in enumerate(step_inputs()):
        r = step(Tensor(x), Tensor(Y))
        out["steps"].append({"step": k + 1, "returned": rc.encode(r),
                             "params": {"w": plain(net.w), "b": plain(net.b)},
                             "scale_value": plain(scaler.scale_value), "counter": plain(scaler.counter),
                             "moments": {"moments.w": plain(opt.moments[0]), "moments.b": plain(opt.moments[1])}})
    return out


def record_train_loss_scale():
    entries = []
    senses = [("dynamic", "scale_sense=nn.DynamicLossScaleUpdateCell(loss_scale_value=2**12, "
                          "scale_factor=2, scale_window=3)"),
              ("fixed_tensor", "scale_sense=Tensor(1024.0, ms.float32)"),
              ("fixed_cell", "scale_sense=nn.FixedLossScaleUpdateCell(loss_scale_value=1024.0)")]
    for cls, cls_name in ((nn.TrainOneStepWithLossScaleCell, "nn.TrainOneStepWithLossScaleCell"),
                          (InfNanCheckLossScaleCell, "InfNanCheckLossScaleCell")):
        for kind, desc in senses:
            res, agree = both_modes(train_loss_scale(kind, cls))
            entries.append({"name": f"{cls_name.split('.')[-1]}_{kind}",
                            "code": "net = Backbone(w0, b0); opt = nn.Momentum(net.trainable_params(), "
                                    f"learning_rate=0.1, momentum=0.9); train = {cls_name}("
                                    f"nn.WithLossCell(net, nn.MSELoss()), opt, {desc}); train.set_train(); "
                                    "for x in xs: returned = train(x, y)",
                            "results": res, "modes_agree": agree})
            print(("   " if agree else "!! ") + entries[-1]["name"], file=sys.stderr)
    res, agree = both_modes(amp_functional)
    entries.append({"name": "amp_functional_DynamicLossScaler",
                    "code": textwrap.dedent(inspect.getsource(amp_functional)),
                    "results": res, "modes_agree": agree})
    print(("   " if agree else "!! ") + entries[-1]["name"], file=sys.stderr)
    return entries


def train_one_step(sens, opt_expr):
    def fn(mode):
        net = Backbone(W0.copy(), B0.copy())
        opt = eval(opt_expr, {"nn": nn, "net": net})  # noqa: S307
        kwargs = {} if sens is None else {"sens": sens}
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, **kwargs)
        train.set_train()
        steps = []
        for k in range(5):
            r = train(Tensor(X), Tensor(Y))
            steps.append({"step": k + 1, "returned": rc.encode(r),
                          "params": {"w": plain(net.w), "b": plain(net.b)}})
        return {"steps": steps}
    return fn


def record_train_one_step():
    entries = []
    for sens in (None, 1.0, 2.0):
        for opt_expr in ("nn.SGD(net.trainable_params(), learning_rate=0.1)",
                         "nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)"):
            res, agree = both_modes(train_one_step(sens, opt_expr))
            sens_txt = "" if sens is None else f", sens={sens}"
            entries.append({"name": f"TrainOneStepCell(sens={sens}) {opt_expr.split('(')[0]}",
                            "code": f"net = Backbone(w0, b0); opt = {opt_expr}; train = nn.TrainOneStepCell("
                                    f"nn.WithLossCell(net, nn.MSELoss()), opt{sens_txt}); train.set_train(); "
                                    "5 x: returned = train(x, y)",
                            "results": res, "modes_agree": agree})
            print(("   " if agree else "!! ") + entries[-1]["name"], file=sys.stderr)
    return entries


# ---------------------------------------------------------------------------------------
def _clip0(g1, g2):
    return ops.clip_by_global_norm((g1, g2), clip_norm=1.0)


def _clip1(g1, g2):
    return ops.clip_by_global_norm([g1, g2], clip_norm=1.0)


def _clip2(g1, g2):
    return ops.clip_by_global_norm((g1, g2), clip_norm=100.0)


def _clip3(small):
    return ops.clip_by_global_norm((small,), clip_norm=1.0)


def _clip4(g1, g2):
    return ops.clip_by_global_norm((g1, g2), clip_norm=1.0, use_norm=Tensor(5.0))


def _clip5(g1, g_inf):
    return ops.clip_by_global_norm((g1, g_inf), clip_norm=1.0)


def _clip6(g1):
    return ops.clip_by_global_norm(g1, clip_norm=1.0)


def _clip7(g1):
    return ops.clip_by_value(g1, -1.0, 2.5)


def _clip8(g1):
    return ops.clip_by_value(g1, clip_value_max=2.0)


def _clip9(g1):
    return ops.clip_by_value(g1, Tensor(-1.0), Tensor(1.0))


def _clip10(g1, g2):
    return ops.clip_by_value([g1, g2], -1.0, 1.0)


def _clip11(g1):
    return ops.clip_by_value(g1, 2.0, -1.0)


def _clip12(g1):
    return ops.clip_by_norm(g1, max_norm=1.0)


def _clip13(g1):
    return ops.clip_by_norm(g1, max_norm=1.0, norm_type=1.0)


def _clip14(g1):
    return ops.clip_by_norm(g1, max_norm=1.0, norm_type=float("inf"))


def _clip15(g1):
    return ops.clip_by_norm(g1, max_norm=100.0)


def _clip16(g1, g2):
    return ops.clip_by_norm([g1, g2], max_norm=1.0)


def _clip17(g1, g2):
    return ops.clip_by_norm((g1, g2), max_norm=1.0)


def _clip18(g_inf):
    return ops.clip_by_norm(g_inf, max_norm=1.0, error_if_nonfinite=True)


def _clip19(g_inf):
    return ops.clip_by_norm(g_inf, max_norm=1.0)


def record_clip():
    g1 = np.array([[3.0, -4.0], [1.0, 2.0]], np.float32)
    g2 = np.array([0.5, -12.0, 2.5], np.float32)
    small = np.array([0.1, -0.2], np.float32)
    g_inf = np.array([1.0, np.inf], np.float32)
    cases = [
        ("ops.clip_by_global_norm((g1, g2), clip_norm=1.0)", {"g1": g1, "g2": g2}, _clip0),
        ("ops.clip_by_global_norm([g1, g2], clip_norm=1.0)", {"g1": g1, "g2": g2}, _clip1),
        ("ops.clip_by_global_norm((g1, g2), clip_norm=100.0)", {"g1": g1, "g2": g2}, _clip2),
        ("ops.clip_by_global_norm((small,), clip_norm=1.0)", {"small": small}, _clip3),
        ("ops.clip_by_global_norm((g1, g2), clip_norm=1.0, use_norm=Tensor(5.0))", {"g1": g1, "g2": g2}, _clip4),
        ("ops.clip_by_global_norm((g1, g_inf), clip_norm=1.0)", {"g1": g1, "g_inf": g_inf}, _clip5),
        ("ops.clip_by_global_norm(g1, clip_norm=1.0)  (a single Tensor)", {"g1": g1}, _clip6),
        ("ops.clip_by_value(g1, -1.0, 2.5)", {"g1": g1}, _clip7),
        ("ops.clip_by_value(g1, clip_value_max=2.0)", {"g1": g1}, _clip8),
        ("ops.clip_by_value(g1, Tensor(-1.0), Tensor(1.0))", {"g1": g1}, _clip9),
        ("ops.clip_by_value([g1, g2], -1.0, 1.0)", {"g1": g1, "g2": g2}, _clip10),
        ("ops.clip_by_value(g1, 2.0, -1.0)  (min > max)", {"g1": g1}, _clip11),
        ("ops.clip_by_norm(g1, max_norm=1.0)", {"g1": g1}, _clip12),
        ("ops.clip_by_norm(g1, max_norm=1.0, norm_type=1.0)", {"g1": g1}, _clip13),
        ("ops.clip_by_norm(g1, max_norm=1.0, norm_type=float('inf'))", {"g1": g1}, _clip14),
        ("ops.clip_by_norm(g1, max_norm=100.0)", {"g1": g1}, _clip15),
        ("ops.clip_by_norm([g1, g2], max_norm=1.0)", {"g1": g1, "g2": g2}, _clip16),
        ("ops.clip_by_norm((g1, g2), max_norm=1.0)", {"g1": g1, "g2": g2}, _clip17),
        ("ops.clip_by_norm(g_inf, max_norm=1.0, error_if_nonfinite=True)", {"g_inf": g_inf}, _clip18),
        ("ops.clip_by_norm(g_inf, max_norm=1.0)", {"g_inf": g_inf}, _clip19),
    ]
    out = []
    for code, arrs, fn in cases:
        def run(mode, arrs=arrs, fn=fn):
            ts = [Tensor(v) for v in arrs.values()]
            return rc.capture(ms.jit(fn) if mode == "graph" else fn, *ts)
        res, agree = both_modes(run)
        out.append({"code": code, "inputs": {k: rc.tensor_spec(v) for k, v in arrs.items()},
                    "results": res, "modes_agree": agree})
        print(("   " if agree else "!! ") + code, file=sys.stderr)
    return out


def main():
    out = rc.meta("tests/oracle/record_loss_scale.py")
    out["inputs"] = {"x": rc.tensor_spec(X), "y": rc.tensor_spec(Y),
                     "w0": rc.tensor_spec(W0), "b0": rc.tensor_spec(B0),
                     "xs_loss_scale_steps": [rc.tensor_spec(x) for x in step_inputs()]}
    out["backbone_source"] = textwrap.dedent(inspect.getsource(Backbone))
    out["workaround_source"] = textwrap.dedent(inspect.getsource(InfNanCheckLossScaleCell))
    out["notes"] = ("train_loss_scale feeds xs_loss_scale_steps[k] with y at step k+1 (step 4 has an inf, "
                    "step 7 has 1e30 entries); train_one_step feeds x, y five times. 'graph' mode of clip "
                    "runs the op inside ms.jit.")
    out["update_cells"] = record_update_cells()
    out["managers"] = record_managers()
    out["scalers"] = record_scalers()
    out["train_loss_scale"] = record_train_loss_scale()
    out["train_one_step"] = record_train_one_step()
    out["clip"] = record_clip()
    rc.write_json(os.path.join(rc.DATA_DIR, "loss_scale.json"), out)


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp(prefix="oracle_ls_"))
    main()
