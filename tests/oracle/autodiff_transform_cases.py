"""Cases of vjp / jvp / jacrev / jacfwd / get_grad / return_ids and higher-order gradients,
run by MindSpore 2.10 (record_autodiff_transforms.py writes data/autodiff_transforms.json) and by
pycompile (tests/autodiff/test_oracle_transforms.py compares).

This file imports neither framework: the loader executes it with `ms`, `ops`, `nn`, `Tensor`,
`Parameter` bound to one of them. Each case returns a thunk given `run(body, *args)`, which
calls `body` eagerly (pynative), inside `ms.jit` (graph_jit) or as a GRAPH_MODE Cell's
construct (graph_cell).
"""
import numpy as np

CASES = {}
ALL_MODES = ("pynative", "graph_jit", "graph_cell")

_rng = np.random.default_rng(34)
XA = np.round(_rng.uniform(0.5, 1.5, (2, 3)), 2).astype(np.float32)
YA = np.round(_rng.uniform(-1, 1, (2, 3)), 2).astype(np.float32)
VA = np.round(_rng.uniform(-1, 1, (2, 3)), 2).astype(np.float32)
WA = np.round(_rng.uniform(-1, 1, (3, 2)), 2).astype(np.float32)
ZA = np.round(_rng.uniform(-1, 1, (3,)), 2).astype(np.float32)


def case(name, modes=ALL_MODES):
    def deco(f):
        CASES[name] = (f, modes)
        return f
    return deco


def T(a):
    return Tensor(np.array(a))  # noqa: F821


def f_cube(x, y):
    return x ** 3 * y


def f_two(x, y):
    return x * y + ops.sin(x), x - y * y  # noqa: F821


def f_aux2(x, y):
    return (x * x * y).sum(), x + 1.0


def f_aux3(x, y):
    return x * ops.exp(y), x * 2.0, y - 1.0  # noqa: F821


def f_one(x):
    return ops.tanh(x) * x  # noqa: F821


def f_if(x, y):
    if x.sum() > 3.0:
        z = x * x * y
    else:
        z = x + y
    return z * 2.0


def f_for(x, y):
    z = x
    for _ in range(3):
        z = z * y + ops.sin(z)  # noqa: F821
    return z


def f_while(x, y):
    z = x
    i = 0
    while i < 3:
        z = z * y + x
        i += 1
    return z


def f_mat(x, w):
    return ops.matmul(x, w)  # noqa: F821


def f_reduce(x, y):
    return (x * y + x * x).sum(axis=1)


def make_net():
    class Net(nn.Cell):  # noqa: F821
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(WA.copy()), name="w")  # noqa: F821
            self.z = Parameter(Tensor(ZA.copy()), name="z")  # noqa: F821

        def construct(self, x):
            return ops.tanh(ops.matmul(x, self.w)) * 2.0 + self.z.sum()  # noqa: F821
    return Net()


# ---- vjp --------------------------------------------------------------------------------------------

@case("vjp_two_inputs")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_cube, x, y)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_one_input")
def _(run):
    def body(x, v):
        out, fn = ops.vjp(f_one, x)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(VA))


@case("vjp_tuple_output_v_tuple")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_two, x, y)  # noqa: F821
        return out, fn((v, v * 2.0))
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_tuple_output_v_args")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_two, x, y)  # noqa: F821
        return fn(v, v * 2.0)
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_has_aux_two")
def _(run):
    def body(x, y):
        out, fn, aux = ops.vjp(f_aux2, x, y, has_aux=True)  # noqa: F821
        return out, fn(ops.ones_like(out)), aux  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("vjp_has_aux_three")
def _(run):
    def body(x, y, v):
        out, fn, aux = ops.vjp(f_aux3, x, y, has_aux=True)  # noqa: F821
        return out, fn(v), aux
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_has_aux_one_output_error")
def _(run):
    def body(x, y):
        out, fn, aux = ops.vjp(f_cube, x, y, has_aux=True)  # noqa: F821
        return out
    return lambda: run(body, T(XA), T(YA))


@case("vjp_if")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_if, x, y)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_for")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_for, x, y)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_while")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_while, x, y)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("vjp_cell_weights")
def _(run):
    net = make_net()
    ws = ms.ParameterTuple(net.trainable_params())  # noqa: F821

    def body(x, v):
        out, fn = ops.vjp(net, x, weights=ws)  # noqa: F821
        return out, fn(v)
    return lambda: run(body, T(XA), T(np.ones((2, 2), np.float32)))


@case("vjp_called_twice")
def _(run):
    def body(x, y, v):
        out, fn = ops.vjp(f_cube, x, y)  # noqa: F821
        return fn(v), fn(v * 3.0)
    return lambda: run(body, T(XA), T(YA), T(VA))


# ---- jvp --------------------------------------------------------------------------------------------

@case("jvp_two_inputs")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_cube, (x, y), (v, v * 0.5))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_tensor_input")
def _(run):
    def body(x, v):
        return ops.jvp(f_one, x, v)  # noqa: F821
    return lambda: run(body, T(XA), T(VA))


@case("jvp_tuple_output")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_two, (x, y), (v, v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_has_aux_two")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_aux2, (x, y), (v, v), has_aux=True)  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_has_aux_three")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_aux3, (x, y), (v, v), has_aux=True)  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_length_mismatch")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_cube, (x, y), (v,))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_broadcast_tangent")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_cube, (x, y), (v[0], v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_tangent_other_dtype")
def _(run):
    def body(x, v):
        return ops.jvp(f_one, x, v)  # noqa: F821
    return lambda: run(body, T(XA), T(VA.astype(np.int32)))


@case("jvp_of_grad_hvp")
def _(run):
    def body(x, y, v):
        return ops.jvp(ms.grad(f_cube, 0), (x, y), (v, v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_if")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_if, (x, y), (v, v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_if_else_branch")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_if, (x, y), (v, v))  # noqa: F821
    return lambda: run(body, T(XA * 0.1), T(YA), T(VA))


@case("jvp_for")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_for, (x, y), (v, v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_while")
def _(run):
    def body(x, y, v):
        return ops.jvp(f_while, (x, y), (v, -v))  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("jvp_cell")
def _(run):
    net = make_net()

    def body(x, v):
        return ops.jvp(net, x, v)  # noqa: F821
    return lambda: run(body, T(XA), T(VA))


# ---- Jacobians --------------------------------------------------------------------------------------

for _name, _jac in (("jacrev", "jacrev"), ("jacfwd", "jacfwd")):
    def _cases(jac_name):
        @case(f"{jac_name}_one_input")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_cube)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_positions")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_cube, grad_position=(0, 1))(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_tuple_output")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_two)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_tuple_output_positions")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_two, grad_position=(0, 1))(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_has_aux")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_aux3, grad_position=1, has_aux=True)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_matmul")
        def _(run):
            def body(x, w):
                return getattr(ops, jac_name)(f_mat, grad_position=(0, 1))(x, w)  # noqa: F821
            return lambda: run(body, T(XA), T(WA))

        @case(f"{jac_name}_reduce")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_reduce)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_if")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_if, grad_position=(0, 1))(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_position_out_of_range")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_cube, grad_position=2)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_duplicate_positions")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_cube, grad_position=(0, 0))(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))

        @case(f"{jac_name}_has_aux_not_bool")
        def _(run):
            def body(x, y):
                return getattr(ops, jac_name)(f_aux2, has_aux=1)(x, y)  # noqa: F821
            return lambda: run(body, T(XA), T(YA))
    _cases(_jac)


@case("hessian_jacfwd_of_jacrev")
def _(run):
    def loss(x):
        return (ops.sin(x) * x).sum()  # noqa: F821

    def body(x):
        return ops.jacfwd(ops.jacrev(loss))(x)  # noqa: F821
    return lambda: run(body, T(ZA))


# ---- return_ids / get_grad ----------------------------------------------------------------------------

@case("return_ids_positions_get_grad")
def _(run):
    def body(x, y):
        g = ms.grad(f_cube, grad_position=(0, 1), return_ids=True)(x, y)  # noqa: F821
        return g, ops.get_grad(g, 1), ops.get_grad(g, 0)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("return_ids_weights_get_grad")
def _(run):
    net = make_net()
    ws = ms.ParameterTuple(net.trainable_params())  # noqa: F821

    def body(x):
        g = ms.grad(net, grad_position=0, weights=ws, return_ids=True)(x)  # noqa: F821
        return g, ops.get_grad(g, net.z), ops.get_grad(g, 0)  # noqa: F821
    return lambda: run(body, T(XA))


@case("return_ids_value_and_grad_get_grad")
def _(run):
    net = make_net()
    ws = ms.ParameterTuple(net.trainable_params())  # noqa: F821

    def body(x):
        out, g = ms.value_and_grad(net, grad_position=None, weights=ws, return_ids=True)(x)  # noqa: F821
        return out, ops.get_grad(g, net.w)  # noqa: F821
    return lambda: run(body, T(XA))


@case("get_grad_not_found")
def _(run):
    def body(x, y):
        g = ms.grad(f_cube, grad_position=(0, 1), return_ids=True)(x, y)  # noqa: F821
        return ops.get_grad(g, 2)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("get_grad_bad_identifier")
def _(run):
    def body(x, y):
        g = ms.grad(f_cube, grad_position=(0, 1), return_ids=True)(x, y)  # noqa: F821
        return ops.get_grad(g, "x")  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


# ---- higher order -------------------------------------------------------------------------------------

@case("grad_of_grad")
def _(run):
    def first(x, y):
        return ms.grad(f_cube, 0)(x, y)  # noqa: F821

    def body(x, y):
        return ms.grad(first, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("grad_of_grad_of_grad")
def _(run):
    def g1(x):
        return ms.grad(f_one)(x)  # noqa: F821

    def g2(x):
        return ms.grad(g1)(x)  # noqa: F821

    def body(x):
        return ms.grad(g2)(x)  # noqa: F821
    return lambda: run(body, T(XA))


@case("grad_of_grad_if")
def _(run):
    def first(x, y):
        return ms.grad(f_if, 0)(x, y)  # noqa: F821

    def body(x, y):
        return ms.grad(first, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("grad_of_grad_for")
def _(run):
    def first(x, y):
        return ms.grad(f_for, 0)(x, y)  # noqa: F821

    def body(x, y):
        return ms.grad(first, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("grad_of_grad_while")
def _(run):
    def first(x, y):
        return ms.grad(f_while, 1)(x, y)  # noqa: F821

    def body(x, y):
        return ms.grad(first, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("grad_of_value_and_grad")
def _(run):
    def first(x, y):
        v, g = ms.value_and_grad(f_cube, 0)(x, y)  # noqa: F821
        return v * g

    def body(x, y):
        return ms.grad(first, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(XA), T(YA))


@case("grad_of_jvp")
def _(run):
    def first(x, y, v):
        return ops.jvp(f_cube, (x, y), (v, v))[1]  # noqa: F821

    def body(x, y, v):
        return ms.grad(first, (0, 1))(x, y, v)  # noqa: F821
    return lambda: run(body, T(XA), T(YA), T(VA))


@case("hvp_grad_of_grad_sens")
def _(run):
    def loss(x):
        return (ops.exp(x) * x * x).sum()  # noqa: F821

    def first(x):
        return ms.grad(loss)(x)  # noqa: F821

    def body(x, v):
        return ms.grad(first, sens_param=True)(x, v)  # noqa: F821
    return lambda: run(body, T(ZA), T(np.array([1.0, -2.0, 0.5], np.float32)))


# ---- hooks, HookBackward, InsertGradientOf, a Cell's bprop ------------------------------------------

def make_hooked():
    class Net(nn.Cell):  # noqa: F821
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w")  # noqa: F821

        def construct(self, x):
            return x * x * self.w
    return Net()


X3 = np.array([1.0, 2.0, 3.0], np.float32)
Y3 = np.array([0.5, -1.0, 2.0], np.float32)


def _double_input(cell, inputs):
    return (inputs[0] * 2.0,)


def _add_one(cell, inputs, out):
    return out + 1.0


def _times_three(cell, inputs, out):
    return out * 3.0


def _scale_grad_input(cell, grad_input, grad_output):
    return (grad_input[0] * 10.0,)


@case("hook_forward_pre_and_forward")
def _(run):
    net = make_hooked()
    net.register_forward_pre_hook(_double_input)
    net.register_forward_hook(_add_one)

    def body(x):
        return net(x)
    return lambda: run(body, T(X3))


@case("hook_forward_prepend_order")
def _(run):
    net = make_hooked()
    net.register_forward_hook(_add_one)
    net.register_forward_hook(_times_three, prepend=True)

    def body(x):
        return net(x)
    return lambda: run(body, T(X3))


@case("hook_backward_scales_grad_input", modes=("pynative", "graph_jit"))
def _(run):
    net = make_hooked()
    net.register_forward_pre_hook(_double_input)
    net.register_backward_hook(_scale_grad_input)

    def body(x):
        return ms.grad(net, 0, weights=net.w)(x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("hook_call_order", modes=("pynative",))
def _(run):
    net = make_hooked()
    log = []

    def pre(cell, inputs):
        log.append("pre")

    def fwd(cell, inputs, out):
        log.append("forward")

    def bwd(cell, grad_input, grad_output):
        log.append("backward")
        return None
    net.register_forward_pre_hook(pre)
    net.register_forward_hook(fwd)
    net.register_backward_hook(bwd)

    def body(x):
        g = ms.grad(net)(x)  # noqa: F821
        return g, tuple(log)
    return lambda: run(body, T(X3))


@case("hook_backward_sees_grads", modes=("pynative",))
def _(run):
    net = make_hooked()
    seen = []

    def bwd(cell, grad_input, grad_output):
        seen.append((grad_input[0], grad_output[0]))
    net.register_backward_hook(bwd)

    def body(x):
        g = ms.grad(lambda v: net(v) * 3.0)(x)  # noqa: F821
        return g, seen[0]
    return lambda: run(body, T(X3))


@case("hook_handle_remove", modes=("pynative",))
def _(run):
    net = make_hooked()
    h1 = net.register_forward_pre_hook(_double_input)
    h2 = net.register_forward_hook(_add_one)
    h3 = net.register_backward_hook(_scale_grad_input)

    def body(x):
        before = net(x), ms.grad(net)(x)  # noqa: F821
        h1.remove()
        h2.remove()
        h3.remove()
        h3.remove()
        return before, net(x), ms.grad(net)(x)  # noqa: F821
    return lambda: run(body, T(X3))


def _hook_triple(grads):
    return grads[0] * 3.0


def _hook_none(grads):
    return None


def _hook_tuple(grads):
    return (grads[0],)


@case("hookbackward_replaces_grad")
def _(run):
    hb = ops.HookBackward(_hook_triple)  # noqa: F821

    def f(x, y):
        z = hb(x * y)
        return z * z

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("hookbackward_none_keeps_grad")
def _(run):
    hb = ops.HookBackward(_hook_none)  # noqa: F821

    def f(x, y):
        z = hb(x * y)
        return z * z

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


def _hook_tuple_scaled(grads):
    return (grads[0] * 3.0,)


@case("hookbackward_returns_its_input_tuple", modes=("pynative",))
def _(run):
    hb = ops.HookBackward(_hook_tuple)  # noqa: F821

    def f(x, y):
        return hb(x * y) * 2.0

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("hookbackward_returns_a_scaled_tuple", modes=("pynative",))
def _(run):
    hb = ops.HookBackward(_hook_tuple_scaled)  # noqa: F821

    def f(x, y):
        return hb(x * y) * 2.0

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


def _clip(g):
    return ops.clip_by_value(g, -1.0, 1.0)  # noqa: F821


@case("insert_gradient_of_clip")
def _(run):
    ig = ops.InsertGradientOf(_clip)  # noqa: F821

    def f(x, y):
        z = ig(x * y)
        return z * z

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


def make_bprop_cells():
    class Mul(nn.Cell):  # noqa: F821
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return y * dout * 100.0, x * dout

    class Scaled(nn.Cell):  # noqa: F821
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w")  # noqa: F821

        def construct(self, x):
            return x * self.w

        def bprop(self, x, out, dout):
            return (dout * 7.0,)

    class Wrong(nn.Cell):  # noqa: F821
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return (dout,)
    return Mul(), Scaled(), Wrong()


@case("bprop_replaces_gradient")
def _(run):
    mul, _, _ = make_bprop_cells()

    def f(x, y):
        return mul(x, y) * 2.0

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("bprop_weights_get_zero")
def _(run):
    _, scaled, _ = make_bprop_cells()
    ws = ms.ParameterTuple(scaled.trainable_params())  # noqa: F821

    def f(x):
        return scaled(x) * 2.0

    def body(x):
        return ms.grad(f, 0, weights=ws)(x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("bprop_forward_value")
def _(run):
    mul, _, _ = make_bprop_cells()

    def body(x, y):
        return mul(x, y)
    return lambda: run(body, T(X3), T(Y3))


@case("bprop_wrong_count")
def _(run):
    _, _, wrong = make_bprop_cells()

    def f(x, y):
        return wrong(x, y)

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))
