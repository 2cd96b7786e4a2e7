"""The conformance table: Tensor.register_hook / Tensor.hooks / Tensor.remove_hook (backward hooks
on tensors). A hook sees the gradient of the whole tensor - every use of it - in PyNative and in
graph code; several run in registration order. Part of the table loaded after cases.py."""
group("hooks")


def hook_double(g):
    return g * 2


def hook_square_plus_one(g):
    return g * g + 1          # not linear: the hook must see the summed gradient, once


def hook_keep(g):
    return None


def f_doc(x, y):
    z = x * y
    z.register_hook(hook_double)
    z = z * y
    return ops.sum(z)


def f_nonlinear_after(x, y):
    z = ops.sin(x) * y
    z.register_hook(hook_square_plus_one)
    return ops.sum(z * y + ops.exp(z))


def f_nonlinear_around(x, y):
    z = ops.sin(x) * y
    a = z * 3
    z.register_hook(hook_square_plus_one)
    return ops.sum(a + z * y)


def f_two_hooks(x):
    z = x * 1
    z.register_hook(hook_double)
    z.register_hook(hook_square_plus_one)
    return ops.sum(z * z)


def f_keep(x):
    z = x * 1
    z.register_hook(hook_keep)
    return ops.sum(z * 3)


def f_on_output(x):
    z = ops.sum(x * x)
    z.register_hook(hook_square_plus_one)
    return z


def f_removed(x, y):
    z = x * y
    handle = z.register_hook(hook_double)
    z = z * y
    handle.remove()
    return ops.sum(z)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(2, 3), rnd(2, 3)])
def hook_doc_example(x, y):
    return ms.grad(f_doc, grad_position=(0, 1))(x, y)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(4), rnd(4)])
def hook_nonlinear_after_registration(x, y):
    return ms.grad(f_nonlinear_after, grad_position=(0, 1))(x, y)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(4), rnd(4)], graph=False,
      reason="graph code refuses a hook on a tensor used before it (MindSpore's documented limit; tested)")
def hook_sees_uses_before_registration(x, y):
    return ms.grad(f_nonlinear_around, grad_position=(0, 1))(x, y)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(3)], graph=False,
      reason="graph code allows one hook per tensor (MindSpore's RuntimeError; tested)")
def hook_two_in_order(x):
    return ms.grad(f_two_hooks)(x)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(3)])
def hook_returning_none_keeps(x):
    return ms.grad(f_keep)(x)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(3)])
def hook_on_the_output(x):
    return ms.grad(f_on_output)(x)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(2, 3), rnd(2, 3)], graph=False,
      reason="handle.remove() is PyNative only (MindSpore's jit_forbidden_register)")
def hook_removed_by_handle(x, y):
    return ms.grad(f_removed, grad_position=(0, 1))(x, y)


@case("Tensor.register_hook", "Tensor.hooks", "Tensor.remove_hook", "ms.grad", inputs=[rnd(3)], graph=False,
      reason="hooks held by an input across calls are PyNative objects")
def hook_on_input_across_calls(x):
    handle = x.register_hook(hook_square_plus_one)
    held = len(x.hooks())
    first = ms.grad(lambda a: ops.sum(a * a))(x)
    Tensor.remove_hook(handle.id)
    second = ms.grad(lambda a: ops.sum(a * a))(x)
    return first, second, Tensor(held), Tensor(len(x.hooks()))


@cell("Tensor.register_hook", "ms.grad", inputs=[rnd(2, 3)], graph=False,
      reason="the hook is registered on the Parameter from Python")
def hook_on_a_weight():
    net = nn.Dense(3, 2, weight_init=Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 7),
                   bias_init=Tensor(np.array([0.5, -0.25], np.float32)))
    net.weight.register_hook(hook_square_plus_one)

    class WeightGrads(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net
            self.grad = ms.grad(lambda x: ops.sum(ops.tanh(self.net(x))), grad_position=None,
                                weights=self.net.trainable_params())

        def construct(self, x):
            return self.grad(x)
    return WeightGrads()


@case("Tensor.register_hook", inputs=[rnd(3)], error=True, graph=False,
      reason="the argument is checked in Python")
def hook_not_callable(x):
    return x.register_hook(3)


@case("Tensor.register_hook", "ms.grad", inputs=[rnd(3)], error=True, graph=False,
      reason="the hook runs in PyNative's backward")
def hook_returning_a_number(x):
    def bad(g):
        return 3

    def f(a):
        z = a * 1
        z.register_hook(bad)
        return ops.sum(z)
    return ms.grad(f)(x)


# ---- summary operators: transparent in the network (what they record is compared byte for byte with
# the wheel's summary files in tests/train/test_summary_ops.py) --------------------------------------
group("summary")


class _Summarised(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scalar, self.tensor = ops.ScalarSummary(), ops.TensorSummary()
        self.image, self.histogram = ops.ImageSummary(), ops.HistogramSummary()

    def construct(self, x):
        y = ops.tanh(x) * 2
        self.scalar("loss", ops.sum(y))
        self.tensor("y", y)
        self.image("picture", ops.reshape(y, (1, 3, 2, 2)) * 0.5 + 0.5)
        self.histogram("spread", y)
        return y + 1


@cell("ops.ScalarSummary", "ops.TensorSummary", "ops.ImageSummary", "ops.HistogramSummary", inputs=[rnd(12)])
def summary_ops_leave_the_output():
    return _Summarised()
