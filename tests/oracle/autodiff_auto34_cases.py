"""Cases of ops.Custom (func_type "pyfunc", bprop=), backward hooks and bprop on Cells with several
inputs or outputs, run by MindSpore 2.10 (record_autodiff_auto34.py writes
data/autodiff_auto34.json) and by pycompile (tests/autodiff/test_auto34_oracle.py compares).

As autodiff_transform_cases.py: no framework import; the loader binds `ms`, `ops`, `nn`,
`Tensor`, `Parameter`, and `aot_so()`, the path of data/custom_aot_kernels.c built as a shared
object; each case returns a thunk given `run(body, *args)` (pynative, graph_jit:
inside ms.jit, graph_cell: a GRAPH_MODE Cell's construct).
"""
import numpy as np

CASES = {}
ALL_MODES = ("pynative", "graph_jit", "graph_cell")

X3 = np.array([1.0, 2.0, 3.0], np.float32)
Y3 = np.array([0.5, -1.0, 2.0], np.float32)
M23 = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)


def case(name, modes=ALL_MODES):
    def deco(f):
        CASES[name] = (f, modes)
        return f
    return deco


def T(a):
    return Tensor(np.array(a))  # noqa: F821


# ---- ops.Custom, func_type "pyfunc" -------------------------------------------------------------------

def np_mul_add(x, y):
    return x * y + 1


def np_row_sums(x):
    return x.sum(axis=1)


def np_raises(x):
    raise KeyError("custom op failed")


def same_shape(*shapes):
    return shapes[0]


def same_dtype(*dtypes):
    return dtypes[0]


def mul_add_bprop(x, y, out, dout):
    return dout * y * 10.0, dout * x


def make_custom(func, shape=same_shape, dtype=same_dtype, **kw):
    return ops.Custom(func, out_shape=shape, out_dtype=dtype, func_type="pyfunc", **kw)  # noqa: F821


@case("custom_pyfunc_forward")
def _(run):
    op = make_custom(np_mul_add)

    def body(x, y):
        return op(x, y) * 2.0
    return lambda: run(body, T(X3), T(Y3))


@case("custom_pyfunc_values_as_shape_and_dtype")
def _(run):
    op = make_custom(np_row_sums, (2,), ms.float32)  # noqa: F821

    def body(x):
        return op(x) + 1.0
    return lambda: run(body, T(M23))


@case("custom_pyfunc_callable_shape")
def _(run):
    op = make_custom(np_row_sums, lambda s: (s[0],))

    def body(x):
        return op(x * 2.0)
    return lambda: run(body, T(M23))


@case("custom_pyfunc_bprop")
def _(run):
    op = make_custom(np_mul_add, bprop=mul_add_bprop)

    def f(x, y):
        return (op(x, y) * 3.0).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("custom_pyfunc_bprop_value_and_grad")
def _(run):
    op = make_custom(np_mul_add, bprop=mul_add_bprop)

    def f(x, y):
        return (op(x, y) * x).sum()

    def body(x, y):
        return ms.value_and_grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("custom_pyfunc_grad_without_bprop", modes=("pynative",))
def _(run):
    op = make_custom(np_mul_add)

    def f(x, y):
        return op(x, y).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("custom_pyfunc_raises", modes=("pynative",))
def _(run):
    op = make_custom(np_raises)

    def body(x):
        return op(x)
    return lambda: run(body, T(X3))


@case("custom_unknown_func_type", modes=("pynative",))
def _(run):
    return lambda: ops.Custom(np_mul_add, (3,), ms.float32, "no_such_type")  # noqa: F821


@case("custom_pyfunc_no_out_shape", modes=("pynative",))
def _(run):
    op = ops.Custom(np_mul_add, out_dtype=ms.float32, func_type="pyfunc")  # noqa: F821
    return lambda: run(op, T(X3), T(Y3))


@case("custom_pyfunc_no_out_dtype", modes=("pynative",))
def _(run):
    op = ops.Custom(np_mul_add, out_shape=(3,), func_type="pyfunc")  # noqa: F821
    return lambda: run(op, T(X3), T(Y3))


@case("custom_pyfunc_bad_out_shape_type", modes=("pynative",))
def _(run):
    op = ops.Custom(np_mul_add, out_shape=3, out_dtype=ms.float32, func_type="pyfunc")  # noqa: F821
    return lambda: run(op, T(X3), T(Y3))


# ---- ops.Custom, func_type "aot": a compiled C function (data/custom_aot_kernels.c) ------------------

def make_aot(name, shape=same_shape, dtype=same_dtype, **kw):
    return ops.Custom(aot_so() + ":" + name, out_shape=shape, out_dtype=dtype, func_type="aot", **kw)  # noqa: F821


def add_twice_bprop(x, y, out, dout):
    return dout, dout * 2.0


@case("custom_aot_forward")
def _(run):
    op = make_aot("CustomAddTwice")

    def body(x, y):
        return op(x, y) * 3.0
    return lambda: run(body, T(X3), T(Y3))


@case("custom_aot_row_sums")
def _(run):
    op = make_aot("CustomRowSum", lambda s: (s[0],))

    def body(x):
        return op(x + 1.0)
    return lambda: run(body, T(M23))


@case("custom_aot_bprop")
def _(run):
    op = make_aot("CustomAddTwice", bprop=add_twice_bprop)

    def f(x, y):
        return (op(x, y) * x).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("custom_aot_two_outputs")
def _(run):
    op = make_aot("CustomSumAndGreater", lambda a, b: (a, a), lambda a, b: (a, ms.int32))  # noqa: F821

    def body(x, y):
        s, g = op(x, y)
        return s * 2.0, g + 1
    return lambda: run(body, T(X3), T(Y3))


@case("custom_aot_kernel_fails", modes=("pynative",))
def _(run):
    op = make_aot("CustomFails")
    return lambda: run(op, T(X3), T(Y3))


@case("custom_aot_no_such_function", modes=("pynative",))
def _(run):
    op = make_aot("NoSuchFunction")
    return lambda: run(op, T(X3), T(Y3))


@case("custom_aot_no_such_file", modes=("pynative",))
def _(run):
    op = ops.Custom("/no/such/dir/kernels.so:CustomAddTwice", out_shape=same_shape, out_dtype=same_dtype,  # noqa: F821
                    func_type="aot")
    return lambda: run(op, T(X3), T(Y3))


@case("custom_aot_func_without_colon", modes=("pynative",))
def _(run):
    return lambda: ops.Custom(aot_so(), out_shape=(3,), out_dtype=ms.float32, func_type="aot")  # noqa: F821


@case("custom_aot_func_not_a_string", modes=("pynative",))
def _(run):
    return lambda: ops.Custom(3, out_shape=(3,), out_dtype=ms.float32, func_type="aot")  # noqa: F821


# ---- backward hooks on Cells with several inputs / outputs ---------------------------------------------

def make_two_input():
    class Net(nn.Cell):  # noqa: F821
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w")  # noqa: F821

        def construct(self, x, y):
            return x * y * self.w
    return Net()


def make_two_output():
    class Net(nn.Cell):  # noqa: F821
        def construct(self, x, y):
            return x * y, x + y
    return Net()


def _scale_both(cell, grad_input, grad_output):
    return (grad_input[0] * 10.0, grad_input[1] * 2.0)


def _scale_first_only(cell, grad_input, grad_output):
    return (grad_input[0] * 10.0,)


@case("hook_backward_two_inputs", modes=("pynative", "graph_jit"))
def _(run):
    net = make_two_input()
    net.register_backward_hook(_scale_both)

    def body(x, y):
        return ms.grad(net, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("hook_backward_two_inputs_sees", modes=("pynative",))
def _(run):
    net = make_two_input()
    seen = []

    def bwd(cell, grad_input, grad_output):
        seen.append((len(grad_input), tuple(grad_input), len(grad_output), tuple(grad_output)))
        return (grad_input[0] * 10.0, grad_input[1] * 2.0)
    net.register_backward_hook(bwd)

    def body(x, y):
        g = ms.grad(lambda a, b: net(a, b) * 3.0, (0, 1))(x, y)  # noqa: F821
        return g, seen[0]
    return lambda: run(body, T(X3), T(Y3))


@case("hook_backward_two_inputs_wrong_count", modes=("pynative",))
def _(run):
    net = make_two_input()
    net.register_backward_hook(_scale_first_only)

    def body(x, y):
        return ms.grad(net, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("hook_backward_two_inputs_none_and_order", modes=("pynative",))
def _(run):
    net = make_two_input()
    log = []

    def first(cell, grad_input, grad_output):
        log.append("first")

    def second(cell, grad_input, grad_output):
        log.append("second")
        return (grad_input[0] + 1.0, grad_input[1] - 1.0)
    net.register_backward_hook(first)
    net.register_backward_hook(second)

    def body(x, y):
        g = ms.grad(net, (0, 1))(x, y)  # noqa: F821
        return g, tuple(log)
    return lambda: run(body, T(X3), T(Y3))


@case("hook_backward_two_outputs_sees", modes=("pynative",))
def _(run):
    net = make_two_output()
    seen = []

    def bwd(cell, grad_input, grad_output):
        seen.append((len(grad_input), len(grad_output), tuple(grad_output)))
    net.register_backward_hook(bwd)

    def f(x, y):
        a, b = net(x, y)
        return (a * 2.0 + b).sum()

    def body(x, y):
        g = ms.grad(f, (0, 1))(x, y)  # noqa: F821
        return g, seen[0]
    return lambda: run(body, T(X3), T(Y3))


# ---- a Cell's bprop with several outputs, or non-tensor inputs -------------------------------------------

def make_bprop_cells():
    class TwoOut(nn.Cell):  # noqa: F821
        def construct(self, x, y):
            return x * y, x + y

        def bprop(self, x, y, out, dout):
            return dout[0] * y + dout[1], dout[0] * x * 100.0 + dout[1]

    class WithScalar(nn.Cell):  # noqa: F821
        def construct(self, x, k):
            return x * k

        def bprop(self, x, k, out, dout):
            return dout * 5.0, 0

    class SeesOut(nn.Cell):  # noqa: F821
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * out, dout + out
    return TwoOut(), WithScalar(), SeesOut()


@case("bprop_two_outputs")
def _(run):
    two, _, _ = make_bprop_cells()

    def f(x, y):
        a, b = two(x, y)
        return (a * 2.0 + b).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("bprop_two_outputs_forward")
def _(run):
    two, _, _ = make_bprop_cells()

    def body(x, y):
        return two(x, y)
    return lambda: run(body, T(X3), T(Y3))


@case("bprop_scalar_input")
def _(run):
    _, scal, _ = make_bprop_cells()

    def f(x):
        return scal(x, 2.0).sum()

    def body(x):
        return ms.grad(f)(x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("bprop_reads_out")
def _(run):
    _, _, sees = make_bprop_cells()

    def f(x, y):
        return (sees(x, y) * 2.0).sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


# ---- ops.WhileLoop / ForiLoop / Scan ------------------------------------------------------------------------

def below_50(v):
    return v.sum() < 50.0


def grow(v):
    return v * 1.5 + 1.0


def sin_step(i, v):
    return ops.sin(v) * 2.0 + i  # noqa: F821


def cum_step(c, e):
    c = c * e + 1.0
    return c, c * 2.0


def none_step(c, e):
    return c * 2.0, c + 1.0


def bad_step(i, v):
    return v + ops.ones((7,), ms.float32)  # noqa: F821


@case("while_loop_tensor_cond")
def _(run):
    def body(x):
        return ops.WhileLoop()(below_50, grow, x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("while_loop_grad")
def _(run):
    def f(x):
        return (ops.WhileLoop()(below_50, grow, x) * x).sum()  # noqa: F821

    def body(x):
        return ms.grad(f)(x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("fori_loop_value_and_grad")
def _(run):
    def f(x):
        return ops.ForiLoop()(0, 3, sin_step, x).sum()  # noqa: F821

    def body(x):
        return ms.value_and_grad(f)(x)  # noqa: F821
    return lambda: run(body, T(X3))


@case("fori_loop_tensor_upper")
def _(run):
    def body(x, n):
        return ops.ForiLoop()(0, n, sin_step, x)  # noqa: F821
    return lambda: run(body, T(X3), Tensor(np.array(4, np.int32)))  # noqa: F821


@case("scan_carry_and_ys")
def _(run):
    def body(x):
        return ops.Scan()(cum_step, x, [x, x * 2.0, x * 3.0])  # noqa: F821
    return lambda: run(body, T(X3))


@case("scan_grad")
def _(run):
    def f(x, y):
        c, ys = ops.Scan()(cum_step, x, [y, y * 2.0])  # noqa: F821
        return c.sum() + ys[0].sum()

    def body(x, y):
        return ms.grad(f, (0, 1))(x, y)  # noqa: F821
    return lambda: run(body, T(X3), T(Y3))


@case("scan_length_without_xs")
def _(run):
    def body(x):
        return ops.Scan()(none_step, x, None, 3)  # noqa: F821
    return lambda: run(body, T(X3))


@case("while_loop_cond_not_a_function", modes=("pynative",))
def _(run):
    return lambda: ops.WhileLoop()(3, grow, T(X3))  # noqa: F821


@case("fori_loop_float_bound", modes=("pynative",))
def _(run):
    return lambda: ops.ForiLoop()(0.5, 3, sin_step, T(X3))  # noqa: F821


@case("fori_loop_bad_loop_func", modes=("pynative",))
def _(run):
    return lambda: ops.ForiLoop()(0, 2, bad_step, T(X3))  # noqa: F821


@case("scan_xs_not_a_list", modes=("pynative",))
def _(run):
    return lambda: ops.Scan()(cum_step, T(X3), T(X3))  # noqa: F821
