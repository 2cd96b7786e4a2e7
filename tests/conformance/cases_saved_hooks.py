"""The conformance table: ms.saved_tensors_hooks / ms.register_saved_tensors_hooks - which tensors
PyNative autodiff saves for the backward pass (each op's pack / unpack calls, in order, with the
values they see) and the gradients computed from the unpacked values (hooks that change them change
the gradients). Ids start with ``savedhooks_``. The context is PyNative only (MindSpore's documentation);
register_saved_tensors_hooks is its graph-mode form (savedhooks_register_*: the hooks apply when compiled,
not in PyNative)."""
group("saved_hooks")

_SH_PYN = dict(graph=False, reason="saved_tensors_hooks is PyNative only (MindSpore's documentation)")
_SH_X = np.array([1.0, 2.0, 3.0], np.float32)
_SH_Y = np.array([0.5, -1.0, 2.0], np.float32)


def _sh_hooks(events, scale=2.0, tag="pack"):
    def pack(t):
        events.append((tag, t + 0))
        return t * scale

    def unpack(t):
        events.append(("unpack", t + 0))
        return t
    return pack, unpack


def _sh_case(name, body, inputs=(_SH_X, _SH_Y)):
    """body(a, b) under the hooks; returns (grads of a and b, the hook calls)."""
    def run(a, b):
        events = []
        pack, unpack = _sh_hooks(events)

        def fwd(x, y):
            with ms.saved_tensors_hooks(pack, unpack):
                return body(x, y)
        out, grads = ms.value_and_grad(fwd, grad_position=(0, 1))(a, b)
        return out, grads, tuple(events)
    add(f"savedhooks_{name}", "ms.saved_tensors_hooks", run, list(inputs), **_SH_PYN)


_sh_case("add", lambda a, b: a + b)
_sh_case("mul", lambda a, b: a * b)
_sh_case("exp", lambda a, b: ops.exp(a) + b)
_sh_case("relu_times_number", lambda a, b: ops.relu(a) * 1.0)
_sh_case("sum_of_product", lambda a, b: ops.sum(a * b))
_sh_case("matmul_of_reshapes", lambda a, b: ops.matmul(a.reshape(1, 3), b.reshape(3, 1)))
_sh_case("sin", lambda a, b: ops.sin(a) + b)
_sh_case("div", lambda a, b: a / b)
_sh_case("sigmoid", lambda a, b: ops.sigmoid(a) * b)
_sh_case("tanh_square", lambda a, b: ops.tanh(a) * ops.square(b))
_sh_case("softmax", lambda a, b: ops.softmax(a * b, axis=0))
_sh_case("dense_weight_not_returned", lambda a, b: nn.Dense(3, 2, weight_init="ones", bias_init="zeros")(a.reshape(1, 3)) + b[:2])


def _sh_nested(a, b):
    events = []
    outer = _sh_hooks(events, 2.0, "outer")
    inner = _sh_hooks(events, 10.0, "inner")

    def fwd(x, y):
        with ms.saved_tensors_hooks(*outer):
            c = x * y
            with ms.saved_tensors_hooks(*inner):
                d = c * x
        return d
    return ms.value_and_grad(fwd, grad_position=(0, 1))(a, b), tuple(events)


add("savedhooks_nested_innermost_applies", "ms.saved_tensors_hooks", _sh_nested, [_SH_X, _SH_Y], **_SH_PYN)


def _sh_any_object(a, b):
    """pack may return any object; unpack rebuilds the tensor from it."""
    def fwd(x, y):
        with ms.saved_tensors_hooks(lambda t: {"kept": t.asnumpy() * 3}, lambda p: Tensor(p["kept"])):
            return x * y
    return ms.value_and_grad(fwd, grad_position=(0, 1))(a, b)


add("savedhooks_pack_returns_a_dict", "ms.saved_tensors_hooks", _sh_any_object, [_SH_X, _SH_Y], **_SH_PYN)


def _sh_no_grad(a, b):
    """No gradient is recorded: nothing is packed."""
    events = []
    with ms.saved_tensors_hooks(*_sh_hooks(events)):
        out = a * b
    return out, tuple(events)


add("savedhooks_without_a_gradient", "ms.saved_tensors_hooks", _sh_no_grad, [_SH_X, _SH_Y], **_SH_PYN)


def _sh_weights(a, b):
    events = []
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def fwd(x):
        with ms.saved_tensors_hooks(*_sh_hooks(events)):
            return ops.sum(net(x.reshape(1, 3)) * b[:2])
    out = ms.value_and_grad(fwd, grad_position=None, weights=net.trainable_params())(a)
    return out, tuple(events)


add("savedhooks_weights", "ms.saved_tensors_hooks", _sh_weights, [_SH_X, _SH_Y], **_SH_PYN)


def _sh_unpack_not_a_tensor(a, b):
    def fwd(x, y):
        with ms.saved_tensors_hooks(lambda t: t + 0, lambda p: 3):
            return x * y
    return ms.value_and_grad(fwd, grad_position=(0, 1))(a, b)


add("savedhooks_unpack_returns_a_number", "ms.saved_tensors_hooks", _sh_unpack_not_a_tensor, [_SH_X, _SH_Y],
    error=True, **_SH_PYN)


def _sh_register_in_pynative(a, b):
    """MindSpore's graph-mode decorator: in PyNative neither hook is called."""
    events = []

    @ms.register_saved_tensors_hooks(*_sh_hooks(events))
    def fwd(x, y):
        return x * y
    return ms.value_and_grad(fwd, grad_position=(0, 1))(a, b), tuple(events)


add("savedhooks_register_in_pynative", "ms.register_saved_tensors_hooks", _sh_register_in_pynative, [_SH_X, _SH_Y],
    **_SH_PYN)


def _sh_double(t):
    return t * 2


def _sh_keep(t):
    return t


@ms.register_saved_tensors_hooks(_sh_double, _sh_keep)
def _sh_hooked(x, y):
    out = x * y
    return ops.exp(out) + y


@case("ms.register_saved_tensors_hooks", inputs=[np.array([1.0, 2.0], np.float32), np.array([0.5, -1.0], np.float32)])
def savedhooks_register_modes(x, y):
    """Compiled: Mul's inputs and Exp's output are saved doubled (the gradients change); PyNative: no hook."""
    return ms.value_and_grad(_sh_hooked, grad_position=(0, 1))(x, y)


@ms.register_saved_tensors_hooks(_sh_double, _sh_keep)
def _sh_hooked_layers(x, w):
    h = ops.matmul(x, w)
    return ops.sum(ops.sigmoid(h) * h)


@case("ms.register_saved_tensors_hooks", inputs=[rnd(2, 3), rnd(3, 4)])
def savedhooks_register_matmul_sigmoid(x, w):
    return ms.grad(_sh_hooked_layers, grad_position=(0, 1))(x, w)


class _ShHookedNet(nn.Cell):
    def construct(self, x, y):
        return ops.sum(ops.exp(x * y) + y)


def _sh_hooked_net():
    net = _ShHookedNet()
    net.register_saved_tensors_hooks(_sh_double, _sh_keep)
    return net


_SH_NET = _sh_hooked_net()


@case("nn.Cell.register_saved_tensors_hooks", inputs=[np.array([1.0, 2.0], np.float32),
                                                      np.array([0.5, -1.0], np.float32)])
def savedhooks_cell_construct(x, y):
    """The Cell's construct saves doubled tensors in both modes (its method's scope)."""
    return ms.grad(_SH_NET, grad_position=(0, 1))(x, y)
