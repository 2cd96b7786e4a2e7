"""Record MindSpore's autodiff behaviour into data/autodiff.json.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_autodiff.py

Every case is a small function below; its source text is written into the JSON
("source") together with the actual input arrays and parameter values, and the
encoded result in each execution mode:

    pynative    PYNATIVE_MODE, the call is made eagerly from Python
    graph_jit   GRAPH_MODE context, the call is made inside an @ms.jit function
    graph_cell  GRAPH_MODE context, the call is made inside a Cell's construct

"agree" says whether all modes gave the same encoding (floats compared with
rtol=atol=1e-6); cases where they differ are also listed in "disagreements".  A mode whose
result equals the pynative one (within that tolerance) is written {"same_as": "pynative"}.
"""
import inspect
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, ops, Tensor, Parameter, ParameterTuple  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("pynative", "graph_jit", "graph_cell")

# ---------------------------------------------------------------------------------------
# Fixed inputs (float32); their exact values are written into the JSON.
rng = np.random.default_rng(20240601)
X = np.round(rng.standard_normal((2, 3)), 2).astype(np.float32)
Y = np.round(rng.standard_normal((2, 2)), 2).astype(np.float32)
W = np.round(rng.standard_normal((3, 2)), 2).astype(np.float32)
B = np.round(rng.standard_normal((2,)), 2).astype(np.float32)
SENS = np.round(rng.standard_normal((2, 2)), 2).astype(np.float32)
BVEC = np.array([0.5, -1.0, 2.0], np.float32)


class Wrap(nn.Cell):
    """graph_cell mode: the body runs as this Cell's construct."""

    def __init__(self, body):
        super().__init__()
        self.body = body

    def construct(self, *args):
        return self.body(*args)


class Runner:
    def __init__(self, mode):
        self.mode = mode

    def __call__(self, body, *args):
        if self.mode == "pynative":
            return body(*args)
        if self.mode == "graph_jit":
            return ms.jit(body)(*args)
        return Wrap(body)(*args)


def set_mode(mode):
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)


class Net(nn.Cell):
    """out = matmul(x, w) * y + b   (x: (2,3), y: (2,2), w: (3,2), b: (2,))"""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W.copy()), name="w")
        self.b = Parameter(Tensor(B.copy()), name="b")

    def construct(self, x, y):
        return ops.matmul(x, self.w) * y + self.b


class LossNet(Net):
    """loss = sum(matmul(x, w) * y + b)"""

    def construct(self, x, y):
        return (ops.matmul(x, self.w) * y + self.b).sum()


class AuxNet(Net):
    """returns (loss, out) with out = matmul(x, w) * y + b, loss = sum(out * out)"""

    def construct(self, x, y):
        out = ops.matmul(x, self.w) * y + self.b
        return (out * out).sum(), out


class Aux2Net(Net):
    """returns (loss, out, x * 2)"""

    def construct(self, x, y):
        out = ops.matmul(x, self.w) * y + self.b
        return (out * out).sum(), out, x * 2


NET_SOURCES = "\n".join(textwrap.dedent(inspect.getsource(c)) for c in (Net, LossNet, AuxNet, Aux2Net))

CASES = []


def case(name, desc, modes=MODES, config=None):
    """config: for cases made by a factory, the factory's arguments (repr strings), since
    the recorded source refers to them by name."""
    def deco(f):
        CASES.append({"name": name, "desc": desc, "fn": f, "modes": modes, "config": config})
        return f
    return deco


def T(a):
    return Tensor(np.asarray(a).copy())


def std_inputs():
    return {"x": rc.tensor_spec(X), "y": rc.tensor_spec(Y)}


def std_params():
    return {"w": rc.tensor_spec(W), "b": rc.tensor_spec(B)}


# =======================================================================================
# 1. ops.GradOperation on Net (non-scalar output: implicit sens of ones)
def _gradop_case(kw, sens=False):
    def f(run):
        net = Net()
        go = ops.GradOperation(**kw)
        params = ParameterTuple(net.trainable_params())
        byl = kw.get("get_by_list", False)

        def body(x, y, *s):
            if byl:
                return go(net, params)(x, y, *s)
            return go(net)(x, y, *s)
        args = [T(X), T(Y)] + ([T(SENS)] if sens else [])
        inputs = std_inputs()
        if sens:
            inputs["sens"] = rc.tensor_spec(SENS)
        return inputs, std_params(), (lambda: run(body, *args))
    return f


for _kw, _nm in [({}, "default"), ({"get_all": True}, "get_all"),
                 ({"get_by_list": True}, "get_by_list"),
                 ({"get_all": True, "get_by_list": True}, "get_all_get_by_list")]:
    case(f"GradOperation_{_nm}",
         f"ops.GradOperation(**{_kw})(net[, ParameterTuple(net.trainable_params())])(x, y); "
         "Net returns a (2,2) tensor, implicit sens = ones",
         config={"kw": repr(_kw), "sens": "False"})(_gradop_case(_kw))

case("GradOperation_sens_param",
     "ops.GradOperation(sens_param=True)(net)(x, y, sens) with sens (2,2)",
     config={"kw": "{'sens_param': True}", "sens": "True"})(
    _gradop_case({"sens_param": True}, sens=True))
case("GradOperation_get_all_sens_param",
     "ops.GradOperation(get_all=True, sens_param=True)(net)(x, y, sens)",
     config={"kw": "{'get_all': True, 'sens_param': True}", "sens": "True"})(
    _gradop_case({"get_all": True, "sens_param": True}, sens=True))
case("GradOperation_get_all_get_by_list_sens_param",
     "ops.GradOperation(get_all=True, get_by_list=True, sens_param=True)(net, params)(x, y, sens)",
     config={"kw": "{'get_all': True, 'get_by_list': True, 'sens_param': True}", "sens": "True"})(
    _gradop_case({"get_all": True, "get_by_list": True, "sens_param": True}, sens=True))


@case("GradOperation_sens_wrong_shape",
      "ops.GradOperation(sens_param=True)(net)(x, y, sens) with sens of shape (3,) instead of (2,2)")
def _(run):
    net = Net()
    go = ops.GradOperation(sens_param=True)
    s = np.array([1.0, 2.0, 3.0], np.float32)

    def body(x, y, s):
        return go(net)(x, y, s)
    inputs = std_inputs()
    inputs["sens"] = rc.tensor_spec(s)
    return inputs, std_params(), (lambda: run(body, T(X), T(Y), T(s)))


@case("GradOperation_sens_broadcastable_shape",
      "ops.GradOperation(sens_param=True)(net)(x, y, sens) with sens of shape (2,) (broadcastable, "
      "not equal to the output shape (2,2))")
def _(run):
    net = Net()
    go = ops.GradOperation(sens_param=True)
    s = np.array([1.0, 2.0], np.float32)

    def body(x, y, s):
        return go(net)(x, y, s)
    inputs = std_inputs()
    inputs["sens"] = rc.tensor_spec(s)
    return inputs, std_params(), (lambda: run(body, T(X), T(Y), T(s)))


@case("GradOperation_sens_missing",
      "ops.GradOperation(sens_param=True)(net)(x, y) -- sens not passed")
def _(run):
    net = Net()
    go = ops.GradOperation(sens_param=True)

    def body(x, y):
        return go(net)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("GradOperation_tuple_output",
      "ops.GradOperation(get_all=True)(aux2net)(x, y) where the net returns a 3-tuple "
      "(loss, out, x*2): every output gets sens = ones")
def _(run):
    net = Aux2Net()
    go = ops.GradOperation(get_all=True)

    def body(x, y):
        return go(net)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("GradOperation_cell_style",
      "The classic style: a GradNet Cell holding GradOperation(get_all=True, get_by_list=True) and "
      "ParameterTuple, calling self.grad(self.net, self.params)(x, y) inside construct "
      "(pynative: called eagerly; graph modes: the GradNet itself is run in GRAPH_MODE)")
def _(run):
    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.params = ParameterTuple(net.trainable_params())
            self.grad = ops.GradOperation(get_all=True, get_by_list=True)

        def construct(self, x, y):
            return self.grad(self.net, self.params)(x, y)
    g = GradNet(Net())
    return std_inputs(), std_params(), (lambda: g(T(X), T(Y)))


# =======================================================================================
# 2. ms.grad / ms.value_and_grad
def _fgrad_case(netcls, kw, weights_kind=None, vag=False):
    def f(run):
        net = netcls()
        kw2 = dict(kw)
        if weights_kind == "ParameterTuple":
            kw2["weights"] = ParameterTuple(net.trainable_params())
        elif weights_kind == "trainable_params":
            kw2["weights"] = net.trainable_params()
        elif weights_kind == "single_parameter":
            kw2["weights"] = net.w
        gf = (ms.value_and_grad if vag else ms.grad)(net, **kw2)

        def body(x, y):
            return gf(x, y)
        return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))
    return f


_GRAD_CONFIGS = [
    ({"grad_position": 0}, None),
    ({"grad_position": 1}, None),
    ({"grad_position": (0, 1)}, None),
    ({"grad_position": (1,)}, None),
    ({"grad_position": (1, 0)}, None),
    ({"grad_position": None}, "ParameterTuple"),
    ({"grad_position": None}, "trainable_params"),
    ({"grad_position": None}, "single_parameter"),
    ({"grad_position": 0}, "ParameterTuple"),
    ({"grad_position": (0, 1)}, "ParameterTuple"),
    ({"grad_position": 0, "return_ids": True}, None),
    ({"grad_position": (0, 1), "return_ids": True}, None),
    ({"grad_position": None, "return_ids": True}, "ParameterTuple"),
    ({"grad_position": (0, 1), "return_ids": True}, "ParameterTuple"),
]
_NETS = {"Net": Net, "LossNet": LossNet, "AuxNet": AuxNet, "Aux2Net": Aux2Net}

for _vag in (False, True):
    _api = "value_and_grad" if _vag else "grad"
    for _netname in ("LossNet", "Net"):
        _configs = _GRAD_CONFIGS if _netname == "LossNet" else [
            ({"grad_position": 0}, None), ({"grad_position": (0, 1)}, None),
            ({"grad_position": None}, "ParameterTuple")]
        for _kw, _wk in _configs:
            _nm = f"ms.{_api}({_netname}, " + ", ".join(f"{k}={v!r}" for k, v in _kw.items()) + \
                (f", weights={_wk}" if _wk else "") + ")"
            case(_nm.replace(" ", ""),
                 f"{_nm}(x, y); weights given as {_wk or 'None'} of the net's w, b"
                 if _wk else f"{_nm}(x, y)",
                 config={"netcls": _netname, "kw": repr(_kw), "weights_kind": repr(_wk), "vag": repr(_vag)})(
                _fgrad_case(_NETS[_netname], _kw, _wk, _vag))
    for _netname in ("AuxNet", "Aux2Net"):
        for _kw, _wk in [({"grad_position": 0, "has_aux": True}, None),
                         ({"grad_position": (0, 1), "has_aux": True}, None),
                         ({"grad_position": None, "has_aux": True}, "ParameterTuple"),
                         ({"grad_position": 0, "has_aux": True}, "ParameterTuple"),
                         ({"grad_position": (0, 1), "has_aux": True, "return_ids": True}, "ParameterTuple"),
                         ({"grad_position": 0, "has_aux": False}, None),
                         ({"grad_position": None, "has_aux": False}, "ParameterTuple")]:
            _nm = f"ms.{_api}({_netname}, " + ", ".join(f"{k}={v!r}" for k, v in _kw.items()) + \
                (f", weights={_wk}" if _wk else "") + ")"
            case(_nm.replace(" ", ""), f"{_nm}(x, y); {_netname} returns a tuple (loss, aux...)",
                 config={"netcls": _netname, "kw": repr(_kw), "weights_kind": repr(_wk), "vag": repr(_vag)})(
                _fgrad_case(_NETS[_netname], _kw, _wk, _vag))


@case("ms.grad_sens_param",
      "ms.grad(net, grad_position=(0, 1), sens_param=True)(x, y, sens): Net returns (2,2), sens given")
def _(run):
    net = Net()
    gf = ms.grad(net, grad_position=(0, 1), sens_param=True)

    def body(x, y, s):
        return gf(x, y, s)
    inputs = std_inputs()
    inputs["sens"] = rc.tensor_spec(SENS)
    return inputs, std_params(), (lambda: run(body, T(X), T(Y), T(SENS)))


@case("ms.value_and_grad_sens_param",
      "ms.value_and_grad(net, grad_position=0, sens_param=True)(x, y, sens)")
def _(run):
    net = Net()
    gf = ms.value_and_grad(net, grad_position=0, sens_param=True)

    def body(x, y, s):
        return gf(x, y, s)
    inputs = std_inputs()
    inputs["sens"] = rc.tensor_spec(SENS)
    return inputs, std_params(), (lambda: run(body, T(X), T(Y), T(SENS)))


@case("ms.grad_plain_function_closure_weights_list",
      "ms.grad(fn, grad_position=0, weights=[w]) where fn is a plain function reading a "
      "module-level Parameter w (weights given as a Python list)")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        return (ops.matmul(x, w) * y).sum()
    gf = ms.grad(fn, grad_position=0, weights=[w])

    def body(x, y):
        return gf(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_plain_function_closure_weights_list_return_ids",
      "ms.grad(fn, grad_position=(0, 1), weights=[w], return_ids=True), fn a plain function "
      "reading Parameter w")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        return (ops.matmul(x, w) * y).sum()
    gf = ms.grad(fn, grad_position=(0, 1), weights=[w], return_ids=True)

    def body(x, y):
        return gf(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_plain_function_closure_weights_ParameterTuple_return_ids",
      "as above with weights=ParameterTuple([w])")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        return (ops.matmul(x, w) * y).sum()
    gf = ms.grad(fn, grad_position=(0, 1), weights=ParameterTuple([w]), return_ids=True)

    def body(x, y):
        return gf(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_weights_list_created_inside",
      "ms.grad(net, 0, weights=net.trainable_params()) (a Python list) created inside the traced body")
def _(run):
    net = LossNet()
    weights = net.trainable_params()

    def body(x, y):
        return ms.grad(net, 0, weights)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("ms.grad_weights_list_created_inside_return_ids",
      "ms.grad(net, (0, 1), weights=net.trainable_params(), return_ids=True) created inside the body")
def _(run):
    net = LossNet()
    weights = net.trainable_params()

    def body(x, y):
        return ms.grad(net, (0, 1), weights, return_ids=True)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("ms.value_and_grad_weights_ParameterTuple_created_inside",
      "ms.value_and_grad(net, None, ParameterTuple(net.trainable_params())) created inside the body")
def _(run):
    net = LossNet()
    weights = ParameterTuple(net.trainable_params())

    def body(x, y):
        return ms.value_and_grad(net, None, weights)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("ms.value_and_grad_weights_list_created_inside",
      "ms.value_and_grad(net, None, net.trainable_params()) (list) created inside the body")
def _(run):
    net = LossNet()
    weights = net.trainable_params()

    def body(x, y):
        return ms.value_and_grad(net, None, weights)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("ms.grad_weights_list_literal_inside",
      "fn a plain function reading a free Parameter w; inside the body: "
      "ms.grad(fn, grad_position=0, weights=[w])(x, y) (list literal in the traced code)")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        return (ops.matmul(x, w) * y).sum()

    def body(x, y):
        return ms.grad(fn, grad_position=0, weights=[w])(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_weights_list_literal_inside_kwargs",
      "as above but the arguments come from a closure dict: ms.grad(fn, **kw) with "
      "kw = dict(grad_position=None, weights=[w])")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        return (ops.matmul(x, w) * y).sum()
    kw = dict(grad_position=None, weights=[w])

    def body(x, y):
        return ms.grad(fn, **kw)(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_weights_list_literal_inside_return_ids",
      "inside the body: ms.grad(fn, (0, 1), weights=[w], has_aux=True, return_ids=True)(x, y), "
      "fn returns (loss, aux)")
def _(run):
    w = Parameter(Tensor(W.copy()), name="w")

    def fn(x, y):
        z = ops.matmul(x, w) * y
        return z.sum(), z

    def body(x, y):
        return ms.grad(fn, (0, 1), weights=[w], has_aux=True, return_ids=True)(x, y)
    return std_inputs(), {"w": rc.tensor_spec(W)}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_called_inside",
      "ms.grad(fn, (0, 1)) created AND called inside the traced body (fn(x, y) = sum(x * x * y[0,0]))")
def _(run):
    def fn(x, y):
        return (x * x * y[0, 0]).sum()

    def body(x, y):
        return ms.grad(fn, (0, 1))(x, y)
    return std_inputs(), {}, (lambda: run(body, T(X), T(Y)))


@case("ms.grad_of_grad",
      "second derivative: ms.grad(ms.grad(f))(x) with f(x) = sum(x**3)")
def _(run):
    def f(x):
        return (x * x * x).sum()

    def g(x):
        return ms.grad(f)(x).sum()

    def body(x):
        return ms.grad(g)(x)
    return {"x": rc.tensor_spec(X)}, {}, (lambda: run(body, T(X)))


# =======================================================================================
# 3. stop_gradient, unused inputs
@case("stop_gradient",
      "f(x, y) = sum(stop_gradient(x * y[:, :1]) * x + y[:, :1] * x); ms.grad(f, (0, 1))")
def _(run):
    def f(x, y):
        z = ops.stop_gradient(x * y[:, :1])
        return (z * x + y[:, :1] * x).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)
    return std_inputs(), {}, (lambda: run(body, T(X), T(Y)))


@case("stop_gradient_whole_output",
      "f(x) = stop_gradient(sum(x * x)); ms.grad(f)(x)")
def _(run):
    def f(x):
        return ops.stop_gradient((x * x).sum())

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(X)}, {}, (lambda: run(body, T(X)))


@case("unused_input",
      "f(x, y) = sum(y * 2); ms.grad(f, (0, 1))(x, y) -- output does not depend on x")
def _(run):
    def f(x, y):
        return (y * 2).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)
    return std_inputs(), {}, (lambda: run(body, T(X), T(Y)))


@case("unused_input_int",
      "f(x, n) = sum(x * 2) with n an int32 tensor; ms.grad(f, (0, 1))(x, n)")
def _(run):
    n = np.array([1, 2, 3], np.int32)

    def f(x, n):
        return (x * 2).sum()

    def body(x, n):
        return ms.grad(f, (0, 1))(x, n)
    return {"x": rc.tensor_spec(X), "n": rc.tensor_spec(n)}, {}, (lambda: run(body, T(X), T(n)))


@case("unused_parameter",
      "net.b unused in the output: ms.grad(net, None, ParameterTuple([w, b])) with "
      "construct = sum(matmul(x, w) * y)")
def _(run):
    class N(Net):
        def construct(self, x, y):
            return (ops.matmul(x, self.w) * y).sum()
    net = N()
    gf = ms.grad(net, None, ParameterTuple(net.trainable_params()))

    def body(x, y):
        return gf(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("constant_output",
      "f(x) = ops.ones((2, 3), float32) (does not depend on x); ms.grad(f)(x)")
def _(run):
    def f(x):
        return ops.ones((2, 3), ms.float32)

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(X)}, {}, (lambda: run(body, T(X)))


@case("requires_grad_false_parameter",
      "Parameter b with requires_grad=False; ms.grad(net, None, net.trainable_params()) and "
      "the list of trainable params")
def _(run):
    net = LossNet()
    net.b.requires_grad = False
    gf = ms.grad(net, None, net.trainable_params())

    def body(x, y):
        return gf(x, y)
    names = [p.name for p in net.trainable_params()]
    return std_inputs(), std_params(), (lambda: (names, run(body, T(X), T(Y))))


# =======================================================================================
# 4. integer / bool inputs and outputs
XI = np.array([1, -2, 3], np.int32)
XB = np.array([True, False, True])
XF3 = np.array([0.5, 1.5, -2.0], np.float32)


@case("int_input_float_fn", "f(x_int32) = x * 2.0; ms.grad(f)(x)  (x int32 (3,))")
def _(run):
    def f(x):
        return x * 2.0

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_input_float_fn_value_and_grad", "ms.value_and_grad(f)(x) with f(x_int32) = x * 2.5")
def _(run):
    def f(x):
        return x * 2.5

    def body(x):
        return ms.value_and_grad(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_input_cast", "f(x_int32) = cast(x, float32) * 3.0; ms.grad(f)(x)")
def _(run):
    def f(x):
        return ops.cast(x, ms.float32) * 3.0

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_input_mixed", "f(x_int32, y_f32) = sum(cast(x, f32) * y * y); ms.grad(f, (0, 1))")
def _(run):
    def f(x, y):
        return (ops.cast(x, ms.float32) * y * y).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)
    return {"x": rc.tensor_spec(XI), "y": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XI), T(XF3)))


@case("int_output", "f(x_int32) = x * 2 (int32 output); ms.grad(f)(x)")
def _(run):
    def f(x):
        return x * 2

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_output_value_and_grad", "f(x_int32) = x * x + 1 (int32 output); ms.value_and_grad(f)(x)")
def _(run):
    def f(x):
        return x * x + 1

    def body(x):
        return ms.value_and_grad(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_output_gradoperation_get_all", "ops.GradOperation(get_all=True)(f)(x) with f(x_int32) = x * 3")
def _(run):
    def f(x):
        return x * 3
    go = ops.GradOperation(get_all=True)

    def body(x):
        return go(f)(x)
    return {"x": rc.tensor_spec(XI)}, {}, (lambda: run(body, T(XI)))


@case("int_scalar_tensor_input", "f(x) = x * 2.0 with x = Tensor(3, int32) (0-d); ms.grad(f)")
def _(run):
    xi = np.array(3, np.int32)

    def f(x):
        return x * 2.0

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(xi)}, {}, (lambda: run(body, T(xi)))


@case("int64_input_float_fn", "f(x_int64) = x * 2.0 ; ms.grad(f)(x)")
def _(run):
    xi = XI.astype(np.int64)

    def f(x):
        return x * 2.0

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(xi)}, {}, (lambda: run(body, T(xi)))


@case("bool_input_cast", "f(m_bool, x) = sum(cast(m, f32) * x * x); ms.grad(f, (0, 1))(m, x)")
def _(run):
    def f(m, x):
        return (ops.cast(m, ms.float32) * x * x).sum()

    def body(m, x):
        return ms.grad(f, (0, 1))(m, x)
    return {"m": rc.tensor_spec(XB), "x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XB), T(XF3)))


@case("bool_input_select", "f(m_bool, x, y) = sum(ops.select(m, x, y*y)); ms.grad(f, (0, 1, 2))")
def _(run):
    yy = np.array([2.0, -1.0, 4.0], np.float32)

    def f(m, x, y):
        return ops.select(m, x, y * y).sum()

    def body(m, x, y):
        return ms.grad(f, (0, 1, 2))(m, x, y)
    return ({"m": rc.tensor_spec(XB), "x": rc.tensor_spec(XF3), "y": rc.tensor_spec(yy)}, {},
            (lambda: run(body, T(XB), T(XF3), T(yy))))


@case("bool_input_only", "f(m_bool) = m * 2.0 (bool * float); ms.grad(f)(m)")
def _(run):
    def f(m):
        return m * 2.0

    def body(m):
        return ms.grad(f)(m)
    return {"m": rc.tensor_spec(XB)}, {}, (lambda: run(body, T(XB)))


@case("float16_input", "f(x_f16) = sum(x * x); ms.grad(f)(x)")
def _(run):
    xh = XF3.astype(np.float16)

    def f(x):
        return (x * x).sum()

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(xh)}, {}, (lambda: run(body, T(xh)))


@case("float64_input", "f(x_f64) = sum(x * x * x); ms.grad(f)(x)")
def _(run):
    xd = XF3.astype(np.float64)

    def f(x):
        return (x * x * x).sum()

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(xd)}, {}, (lambda: run(body, T(xd)))


@case("mixed_f16_f32", "f(a_f16, b_f32) = sum(a * b) (promotes to f32); ms.grad(f, (0, 1))")
def _(run):
    a = XF3.astype(np.float16)
    b = np.array([1.0, 2.0, 3.0], np.float32)

    def f(a, b):
        return (a * b).sum()

    def body(a, b):
        return ms.grad(f, (0, 1))(a, b)
    return {"a": rc.tensor_spec(a), "b": rc.tensor_spec(b)}, {}, (lambda: run(body, T(a), T(b)))


# =======================================================================================
# 5. broadcasting
@case("broadcast_b_3", "f(x, b) = sum(x + b), x (2,3), b (3,); ms.grad(f, (0, 1))")
def _(run):
    def f(x, b):
        return (x + b).sum()

    def body(x, b):
        return ms.grad(f, (0, 1))(x, b)
    return {"x": rc.tensor_spec(X), "b": rc.tensor_spec(BVEC)}, {}, (lambda: run(body, T(X), T(BVEC)))


@case("broadcast_b_1x3", "f(x, b) = sum(x * b), x (2,3), b (1,3); ms.grad(f, (0, 1))")
def _(run):
    b13 = BVEC.reshape(1, 3)

    def f(x, b):
        return (x * b).sum()

    def body(x, b):
        return ms.grad(f, (0, 1))(x, b)
    return {"x": rc.tensor_spec(X), "b": rc.tensor_spec(b13)}, {}, (lambda: run(body, T(X), T(b13)))


@case("broadcast_b_2x1", "f(x, b) = sum(x * b * x), x (2,3), b (2,1); ms.grad(f, (0, 1))")
def _(run):
    b21 = np.array([[1.5], [-0.5]], np.float32)

    def f(x, b):
        return (x * b * x).sum()

    def body(x, b):
        return ms.grad(f, (0, 1))(x, b)
    return {"x": rc.tensor_spec(X), "b": rc.tensor_spec(b21)}, {}, (lambda: run(body, T(X), T(b21)))


@case("broadcast_b_0d_tensor", "f(x, b) = sum(x * b), x (2,3), b a 0-d float32 tensor 1.5; ms.grad(f, (0, 1))")
def _(run):
    b0 = np.array(1.5, np.float32)

    def f(x, b):
        return (x * b).sum()

    def body(x, b):
        return ms.grad(f, (0, 1))(x, b)
    return {"x": rc.tensor_spec(X), "b": rc.tensor_spec(b0)}, {}, (lambda: run(body, T(X), T(b0)))


@case("broadcast_b_python_float", "f(x, b) = sum(x * b), b = 1.5 a Python float argument; ms.grad(f, (0, 1))")
def _(run):
    def f(x, b):
        return (x * b).sum()

    def body(x):
        return ms.grad(f, (0, 1))(x, 1.5)
    return {"x": rc.tensor_spec(X), "b": {"scalar": 1.5, "type": "float"}}, {}, (lambda: run(body, T(X)))


@case("broadcast_b_python_float_pos0", "f(x, b) = sum(x * b), b = 1.5 a Python float argument; ms.grad(f, 0)")
def _(run):
    def f(x, b):
        return (x * b).sum()

    def body(x):
        return ms.grad(f, 0)(x, 1.5)
    return {"x": rc.tensor_spec(X), "b": {"scalar": 1.5, "type": "float"}}, {}, (lambda: run(body, T(X)))


@case("broadcast_nonscalar_output", "f(x, b) = x + b (2,3) output, b (3,); ms.grad(f, (0, 1)) (sens = ones)")
def _(run):
    def f(x, b):
        return x + b

    def body(x, b):
        return ms.grad(f, (0, 1))(x, b)
    return {"x": rc.tensor_spec(X), "b": rc.tensor_spec(BVEC)}, {}, (lambda: run(body, T(X), T(BVEC)))


# =======================================================================================
# 6. user errors ("misuse_*": some raise, some do not -- see the results)
@case("misuse_output_python_int", "f(x) = 3 (a Python int, not a tensor); ms.grad(f)(x)")
def _(run):
    def f(x):
        return 3

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_output_python_float_gradoperation", "f(x) = 2.5; ops.GradOperation()(f)(x)")
def _(run):
    def f(x):
        return 2.5
    go = ops.GradOperation()

    def body(x):
        return go(f)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_output_none", "f(x) returns None; ms.grad(f)(x)")
def _(run):
    def f(x):
        return None

    def body(x):
        return ms.grad(f)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_grad_position_out_of_range", "ms.grad(f, grad_position=2)(x, y) with 2 inputs")
def _(run):
    def f(x, y):
        return (x * y).sum()

    def body(x, y):
        return ms.grad(f, grad_position=2)(x, y)
    return {"x": rc.tensor_spec(XF3), "y": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3), T(XF3)))


@case("misuse_grad_position_tuple_out_of_range", "ms.grad(f, grad_position=(0, 5))(x, y)")
def _(run):
    def f(x, y):
        return (x * y).sum()

    def body(x, y):
        return ms.grad(f, grad_position=(0, 5))(x, y)
    return {"x": rc.tensor_spec(XF3), "y": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3), T(XF3)))


@case("misuse_grad_position_negative", "ms.grad(f, grad_position=-1)(x, y)")
def _(run):
    def f(x, y):
        return (x * y * y).sum()

    def body(x, y):
        return ms.grad(f, grad_position=-1)(x, y)
    return {"x": rc.tensor_spec(XF3), "y": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3), T(XF3)))


@case("misuse_grad_position_float", "ms.grad(f, grad_position=0.5)")
def _(run):
    def f(x):
        return (x * x).sum()

    def body(x):
        return ms.grad(f, grad_position=0.5)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_grad_position_none_no_weights", "ms.grad(f, grad_position=None, weights=None)")
def _(run):
    def f(x):
        return (x * x).sum()

    def body(x):
        return ms.grad(f, grad_position=None, weights=None)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_weights_not_parameters", "ms.grad(f, 0, weights=[Tensor]) -- weights a list of plain Tensors")
def _(run):
    t = Tensor(XF3.copy())

    def f(x):
        return (x * t).sum()

    def body(x):
        return ms.grad(f, 0, weights=[t])(x)
    return {"x": rc.tensor_spec(XF3), "t": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_weights_single_tensor", "ms.grad(f, 0, weights=Tensor) -- weights a plain Tensor")
def _(run):
    t = Tensor(XF3.copy())

    def f(x):
        return (x * t).sum()

    def body(x):
        return ms.grad(f, 0, weights=t)(x)
    return {"x": rc.tensor_spec(XF3), "t": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_gradoperation_get_by_list_without_params",
      "ops.GradOperation(get_by_list=True)(net)(x, y) -- no params argument")
def _(run):
    net = Net()
    go = ops.GradOperation(get_by_list=True)

    def body(x, y):
        return go(net)(x, y)
    return std_inputs(), std_params(), (lambda: run(body, T(X), T(Y)))


@case("misuse_has_aux_single_output", "ms.grad(f, 0, has_aux=True) with f returning a single tensor")
def _(run):
    def f(x):
        return (x * x).sum()

    def body(x):
        return ms.grad(f, 0, has_aux=True)(x)
    return {"x": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


@case("misuse_grad_position_is_python_int",
      "ms.grad(f, 0)(3, y): position 0 is a Python int")
def _(run):
    def f(a, y):
        return (a * y).sum()

    def body(y):
        return ms.grad(f, 0)(3, y)
    return {"a": {"scalar": 3, "type": "int"}, "y": rc.tensor_spec(XF3)}, {}, (lambda: run(body, T(XF3)))


# =======================================================================================
# 7. control flow
XP = np.array([[0.5, 1.0, 1.5], [2.0, -0.5, 1.0]], np.float32)   # sum > 0
XN = -XP                                                            # sum < 0


def _if_case(xv):
    def f(run):
        def f_(x):
            if x.sum() > 0:
                out = x * x
            else:
                out = x * 3.0
            return out.sum()

        def body(x):
            return ms.value_and_grad(f_)(x)
        return {"x": rc.tensor_spec(xv)}, {}, (lambda: run(body, T(xv)))
    return f


case("control_if_positive", "if x.sum() > 0: out = x*x else: out = x*3; value_and_grad of sum(out), x with sum > 0")(
    _if_case(XP))
case("control_if_negative", "same, x with sum < 0")(_if_case(XN))


@case("control_if_return_in_branches", "if x.sum() > 0: return sum(x*x*x) / else return sum(2*x); two inputs")
def _(run):
    def f_(x, y):
        if x.sum() > y.sum():
            return (x * x * y).sum()
        return (2 * x - y).sum()

    def body(x, y):
        return ms.grad(f_, (0, 1))(x, y)
    y1 = np.full((2, 3), 0.25, np.float32)
    return {"x": rc.tensor_spec(XP), "y": rc.tensor_spec(y1)}, {}, (lambda: run(body, T(XP), T(y1)))


@case("control_for_range_accumulate", "out = x; for i in range(3): out = out * x  (x**4); grad of sum(out)")
def _(run):
    def f_(x):
        out = x
        for i in range(3):
            out = out * x
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(XP)}, {}, (lambda: run(body, T(XP)))


@case("control_for_range_with_index", "out = 0; for i in range(3): out = out + x * i + out * x; grad of sum(out)")
def _(run):
    def f_(x):
        out = ops.zeros_like(x)
        for i in range(3):
            out = out + x * i + out * x
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(XP)}, {}, (lambda: run(body, T(XP)))


@case("control_while_tensor_cond",
      "while out.sum() < 20: out = out * x + 1 (tensor condition); grad of sum(out)")
def _(run):
    xv = np.array([1.5, 2.0, 0.5], np.float32)

    def f_(x):
        out = x
        while out.sum() < 20:
            out = out * x + 1
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(xv)}, {}, (lambda: run(body, T(xv)))


@case("control_while_tensor_counter",
      "i = Tensor(0); while i < n: out = out * x; i += 1 (n a tensor input 3); grad wrt x")
def _(run):
    xv = np.array([1.5, 2.0, 0.5], np.float32)
    nv = np.array(3, np.int32)

    def f_(x, n):
        out = x
        i = Tensor(0, ms.int32)
        while i < n:
            out = out * x
            i = i + 1
        return out.sum()

    def body(x, n):
        return ms.value_and_grad(f_)(x, n)
    return {"x": rc.tensor_spec(xv), "n": rc.tensor_spec(nv)}, {}, (lambda: run(body, T(xv), T(nv)))


@case("control_early_return_in_loop",
      "for i in range(5): out = out * x; if out.sum() > 10: return out.sum()  (returns at i=1 here)")
def _(run):
    xv = np.array([1.5, 2.0, 2.5], np.float32)

    def f_(x):
        out = x
        for i in range(5):
            out = out * x
            if out.sum() > 10:
                return out.sum() * 2
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(xv)}, {}, (lambda: run(body, T(xv)))


@case("control_early_return_in_loop_not_taken",
      "same function, x small so the loop runs to the end")
def _(run):
    xv = np.array([0.5, 0.25, 1.0], np.float32)

    def f_(x):
        out = x
        for i in range(5):
            out = out * x
            if out.sum() > 10:
                return out.sum() * 2
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(xv)}, {}, (lambda: run(body, T(xv)))


@case("control_break_in_while",
      "while True-style loop with break: while i < 10: out = out * x; if out.sum() > 5: break; i += 1")
def _(run):
    xv = np.array([1.25, 1.5, 1.0], np.float32)

    def f_(x):
        out = x
        i = 0
        while i < 10:
            out = out * x
            if out.sum() > 5:
                break
            i = i + 1
        return out.sum()

    def body(x):
        return ms.value_and_grad(f_)(x)
    return {"x": rc.tensor_spec(xv)}, {}, (lambda: run(body, T(xv)))


@case("control_if_on_parameter_net",
      "Cell with w: if x.sum() > 0: out = matmul(x, w) else: out = matmul(x, w*w); "
      "ms.value_and_grad(net, 0, net.trainable_params()) at x>0 and x<0")
def _(run):
    class N(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W.copy()), name="w")

        def construct(self, x):
            if x.sum() > 0:
                out = ops.matmul(x, self.w)
            else:
                out = ops.matmul(x, self.w * self.w)
            return out.sum()
    net = N()
    gf = ms.value_and_grad(net, 0, net.trainable_params())

    def body(x):
        return gf(x)
    return ({"x_pos": rc.tensor_spec(XP), "x_neg": rc.tensor_spec(XN)}, {"w": rc.tensor_spec(W)},
            (lambda: (run(body, T(XP)), run(body, T(XN)))))


# =======================================================================================
# 8. Parameters updated by assign
@case("assign_after_read",
      "construct(x): y = x * w; ops.assign(w, w * 2); return sum(y * w)  -- which w is "
      "differentiated; grads wrt (x, w), and w after the call")
def _(run):
    class N(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(XF3.copy()), name="w")

        def construct(self, x):
            y = x * self.w
            ops.assign(self.w, self.w * 2)
            return (y * self.w).sum()
    net = N()
    gf = ms.value_and_grad(net, 0, net.trainable_params())
    xv = np.array([1.0, 2.0, 3.0], np.float32)

    def body(x):
        return gf(x)

    def go():
        r = run(body, T(xv))
        return {"value_and_grads": r, "w_after": net.w}
    return {"x": rc.tensor_spec(xv)}, {"w": rc.tensor_spec(XF3)}, go


@case("assign_before_read",
      "construct(x): ops.assign(w, x); return sum(w * w * 3) -- grads wrt (x, w)")
def _(run):
    class N(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(XF3.copy()), name="w")

        def construct(self, x):
            ops.assign(self.w, x)
            return (self.w * self.w * 3).sum()
    net = N()
    gf = ms.value_and_grad(net, 0, net.trainable_params())
    xv = np.array([1.0, 2.0, 3.0], np.float32)

    def body(x):
        return gf(x)

    def go():
        r = run(body, T(xv))
        return {"value_and_grads": r, "w_after": net.w}
    return {"x": rc.tensor_spec(xv)}, {"w": rc.tensor_spec(XF3)}, go


@case("assign_add_between_reads",
      "construct(x): a = sum(x * w); ops.assign_add(w, 1); b = sum(x * w * w); return a + b")
def _(run):
    class N(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(XF3.copy()), name="w")

        def construct(self, x):
            a = (x * self.w).sum()
            ops.assign_add(self.w, ops.ones_like(self.w))
            b = (x * self.w * self.w).sum()
            return a + b
    net = N()
    gf = ms.value_and_grad(net, 0, net.trainable_params())
    xv = np.array([1.0, 2.0, 3.0], np.float32)

    def body(x):
        return gf(x)

    def go():
        r = run(body, T(xv))
        return {"value_and_grads": r, "w_after": net.w}
    return {"x": rc.tensor_spec(xv)}, {"w": rc.tensor_spec(XF3)}, go


# =======================================================================================
# The spec's ForwardNet / BackwardNet sample, run verbatim in subprocesses
SPEC_SAMPLE = '''\
import numpy as np
import mindspore
from mindspore import nn, ops, Tensor, Parameter
class ForwardNet(nn.Cell):
    def __init__(self):
        super(ForwardNet, self).__init__()
        self.weight = Parameter(mindspore.tensor(np.array(0), mindspore.int32), name="param")
    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            ops.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out
class BackwardNet(nn.Cell):
    def __init__(self, net):
        super(BackwardNet, self).__init__(auto_prefix=False)
        self.forward_net = net
        self.grad = ops.GradOperation(get_all=True)
    @mindspore.jit
    def construct(self, *inputs):
        grads = self.grad(self.forward_net)(*inputs)
        return grads
x = mindspore.tensor(np.array(1), mindspore.int32)
'''

SPEC_DRIVER = '''
import json, sys
sys.path.insert(0, {here!r})
import record_common as rc
out = {{}}
pnet = ForwardNet()
out["forward_pynative"] = rc.capture(lambda: pnet(x))
out["forward_pynative_weight_after"] = rc.encode(pnet.weight)
fnet = ForwardNet()
out["grads"] = rc.capture(lambda: BackwardNet(fnet)(x))
out["weight_after"] = rc.encode(fnet.weight)
mindspore.set_context(mode=mindspore.GRAPH_MODE)
gnet = ForwardNet()
out["forward_graph"] = rc.capture(lambda: gnet(x))
out["forward_graph_weight_after"] = rc.encode(gnet.weight)
out["forward_graph_x2"] = rc.capture(lambda: gnet(mindspore.tensor(np.array(2), mindspore.int32)))
print("@@RESULT@@" + json.dumps(out))
'''


def run_spec_sample():
    res = {"source": SPEC_SAMPLE,
           "driver": "pnet = ForwardNet(); forward_pynative = pnet(x) (PyNative); "
                     "fnet = ForwardNet(); grads = BackwardNet(fnet)(x); weight_after = fnet.weight; then "
                     "set_context(mode=GRAPH_MODE); gnet = ForwardNet(); forward_graph = gnet(x); "
                     "forward_graph_x2 = gnet(tensor(2, int32)) (second call on the same net)",
           "inputs": {"x": rc.tensor_spec(np.array(1, np.int32))},
           "results": {}}
    script = SPEC_SAMPLE + SPEC_DRIVER.format(here=HERE)
    for val in (None, "0", "1", "2", "3"):
        env = dict(os.environ)
        env.pop("MS_DEV_SIDE_EFFECT_LOAD_ELIM", None)
        if val is not None:
            env["MS_DEV_SIDE_EFFECT_LOAD_ELIM"] = val
        with tempfile.TemporaryDirectory() as td:
            path = os.path.join(td, "spec_backward_net.py")  # MindSpore needs a source file
            with open(path, "w") as f:
                f.write(script)
            p = subprocess.run([sys.executable, path], env=env, cwd=td,
                               capture_output=True, text=True, timeout=600)
        key = "unset" if val is None else val
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("@@RESULT@@")]
        if line:
            res["results"][key] = json.loads(line[0][len("@@RESULT@@"):])
        else:
            res["results"][key] = {"error": {"type": "SubprocessFailed",
                                             "message_first_line": rc.first_line(p.stderr[-2000:])}}
        print(f"spec sample MS_DEV_SIDE_EFFECT_LOAD_ELIM={key}: {res['results'][key]}", file=sys.stderr)
    return res


# =======================================================================================
def main():
    out = rc.meta("tests/oracle/record_autodiff.py")
    out["modes"] = {
        "pynative": "ms.set_context(mode=PYNATIVE_MODE); body(*args) called eagerly",
        "graph_jit": "ms.set_context(mode=GRAPH_MODE); ms.jit(body)(*args)",
        "graph_cell": "ms.set_context(mode=GRAPH_MODE); a Cell whose construct(*args) returns body(*args)",
    }
    out["common_definitions"] = NET_SOURCES
    out["factory_sources"] = {"_gradop_case": textwrap.dedent(inspect.getsource(_gradop_case)),
                              "_fgrad_case": textwrap.dedent(inspect.getsource(_fgrad_case))}
    out["common_inputs"] = {"x": rc.tensor_spec(X), "y": rc.tensor_spec(Y), "w": rc.tensor_spec(W),
                            "b": rc.tensor_spec(B), "sens": rc.tensor_spec(SENS)}
    cases = []
    disagreements = []
    only = set(sys.argv[1:])
    for c in CASES:
        if only and c["name"] not in only:
            continue
        entry = {"name": c["name"], "desc": c["desc"],
                 "source": textwrap.dedent(inspect.getsource(c["fn"]))}
        if c["config"]:
            entry["config"] = c["config"]
            entry["factory"] = "_gradop_case" if c["name"].startswith("GradOperation_") else "_fgrad_case"
        results = {}
        for mode in c["modes"]:
            set_mode(mode)
            inputs, params, thunk = c["fn"](Runner(mode))
            results[mode] = rc.capture(thunk)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        entry["inputs"] = inputs
        entry["params"] = params
        entry["results"] = results
        vals = list(results.values())
        entry["agree"] = all(rc.same(vals[0], v) for v in vals[1:])
        for mode in list(results)[1:]:
            if rc.same(results["pynative"], results[mode]):
                results[mode] = {"same_as": "pynative"}
        if not entry["agree"]:
            disagreements.append(c["name"])
        cases.append(entry)
        print(("   " if entry["agree"] else "!! ") + c["name"], file=sys.stderr)
    out["cases"] = cases
    out["disagreements"] = disagreements
    if not only:
        out["spec_backward_net_sample"] = run_spec_sample()
    path = os.path.join(rc.DATA_DIR, "autodiff.json" if not only else "autodiff_partial.json")
    rc.write_json(path, out)


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp(prefix="oracle_autodiff_"))  # MindSpore writes rank_0/ dumps into cwd
    main()
