"""The conformance table: the higher-order forward transforms ops.jet, ops.derivative and
ops.linearize - values and result structures (one and several inputs and outputs, integer
inputs), eagerly and in graph code, and MindSpore's argument errors. Ids start with ``tay_``.
The functions are Cells (the wheel compiles them from their source) wrapped by a Cell that calls
the transform in its construct."""
group("taylor")


class _TaySinExp(nn.Cell):
    """The function of MindSpore's own jet / derivative examples: exp(sin(x))."""

    def __init__(self):
        super().__init__()
        self.sin = ops.Sin()
        self.exp = ops.Exp()

    def construct(self, x):
        return self.exp(self.sin(x))


class _TayTwo(nn.Cell):
    """Two inputs, two outputs."""

    def construct(self, x, y):
        return x * ops.sin(y), ops.exp(x) + y * y


class _TayMatMul(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        return self.matmul(x, y)


class _TayJet(nn.Cell):
    def __init__(self, fn, n_inputs=1):
        super().__init__()
        self.fn = fn
        self.n_inputs = n_inputs

    def construct(self, *args):
        if self.n_inputs == 1:
            return ops.jet(self.fn, args[0], args[1])
        return ops.jet(self.fn, (args[0], args[1]), (args[2], args[3]))


class _TayDerivative(nn.Cell):
    def __init__(self, fn, order, n_inputs=1):
        super().__init__()
        self.fn = fn
        self.order = order
        self.n_inputs = n_inputs

    def construct(self, *args):
        if self.n_inputs == 1:
            return ops.derivative(self.fn, args[0], self.order)
        return ops.derivative(self.fn, (args[0], args[1]), self.order)


@cell("ops.jet", inputs=[np.array([[1, 2], [3, 4]], np.float32),
                         np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]], np.float32)])
def tay_jet_example():
    return _TayJet(_TaySinExp())


@cell("ops.jet", inputs=[rnd(2, 3), rnd(2, 2, 3, lo=-1.0, hi=1.0)])
def tay_jet_general_series():
    return _TayJet(_TaySinExp())


@cell("ops.jet", inputs=[rnd(4), rnd(4, lo=-1.0, hi=1.0)])
def tay_jet_one_order_as_the_primal():
    return _TayJet(_TaySinExp())


@cell("ops.jet", inputs=[rnd(2, 2, lo=0.2, hi=1.0), rnd(2, 2, lo=0.2, hi=1.0), rnd(2, 2, 2, lo=-1.0, hi=1.0),
                         rnd(2, 2, 2, lo=-1.0, hi=1.0)])
def tay_jet_two_inputs_two_outputs():
    return _TayJet(_TayTwo(), 2)


@cell("ops.jet", inputs=[np.array([1, 2, 3], np.int32), np.array([[1, 1, 1], [0, 1, 2]], np.int32)])
def tay_jet_int_inputs():
    return _TayJet(_TaySinExp())


@cell("ops.derivative", inputs=[np.array([[1, 2], [3, 4]], np.float32)])
def tay_derivative_example():
    return _TayDerivative(_TaySinExp(), 3)


@cell("ops.derivative", inputs=[rnd(5)])
def tay_derivative_first():
    return _TayDerivative(_TaySinExp(), 1)


@cell("ops.derivative", inputs=[rnd(2, 2, lo=0.2, hi=1.0), rnd(2, 2, lo=0.2, hi=1.0)])
def tay_derivative_two_inputs():
    return _TayDerivative(_TayTwo(), 2, 2)


@cell("ops.derivative", inputs=[np.array([0, 1, 2], np.int64)])
def tay_derivative_int_input():
    return _TayDerivative(_TaySinExp(), 2)


class _TayLinearize(nn.Cell):
    def __init__(self, fn, n_inputs):
        super().__init__()
        self.fn = fn
        self.n_inputs = n_inputs

    def construct(self, *args):
        if self.n_inputs == 1:
            out, jvp_fn = ops.linearize(self.fn, args[0])
            return out, jvp_fn(args[1]), jvp_fn(args[1] * 2)
        out, jvp_fn = ops.linearize(self.fn, (args[0], args[1]))
        return out, jvp_fn((args[2], args[3])), jvp_fn([args[2] * 2, args[3]])


@cell("ops.linearize", graph=False, reason="MindSpore's jvp_fn is itself a jit function: not callable in graph code",
      inputs=[np.array([[1, 2, 3], [3, 4, 5]], np.float32), np.array([[1, 2], [3, 4], [5, 6]], np.float32),
              np.array([[1, 1, 1], [1, 1, 1]], np.float32), np.array([[1, 1], [1, 1], [0, 0]], np.float32)])
def tay_linearize_example():
    return _TayLinearize(_TayMatMul(), 2)


@cell("ops.linearize", graph=False, reason="MindSpore's jvp_fn is itself a jit function: not callable in graph code",
      inputs=[rnd(3), rnd(3)])
def tay_linearize_one_input():
    return _TayLinearize(_TaySinExp(), 1)


@cell("ops.linearize", graph=False, reason="MindSpore's jvp_fn is itself a jit function: not callable in graph code",
      inputs=[rnd(2, 2), rnd(2, 2), rnd(2, 2), rnd(2, 2)])
def tay_linearize_two_outputs():
    return _TayLinearize(_TayTwo(), 2)


# ---- MindSpore's argument errors (raised before anything is computed) ----------------------------
_TAY_ERR = dict(graph=False, reason="argument checks in Python", error=True)


@case("ops.jet", inputs=[rnd(2), rnd(1, 2)], **_TAY_ERR)
def tay_jet_tensor_and_tuple(x, s):
    return ops.jet(_TaySinExp(), x, (s,))


@case("ops.jet", inputs=[rnd(2), rnd(2, 3)], **_TAY_ERR)
def tay_jet_series_shape(x, s):
    return ops.jet(_TaySinExp(), x, s)


@case("ops.jet", inputs=[rnd(2), rnd(1, 2)], **_TAY_ERR)
def tay_jet_lengths(x, s):
    return ops.jet(_TayTwo(), (x, x), (s,))


@case("ops.jet", inputs=[rnd(2), rnd(1, 2, dtype="float64")], **_TAY_ERR)
def tay_jet_dtypes_differ(x, s):
    return ops.jet(_TaySinExp(), x, s)


@case("ops.jet", inputs=[rnd(2, dtype="float16"), rnd(1, 2, dtype="float16")], **_TAY_ERR)
def tay_jet_float16(x, s):
    return ops.jet(_TaySinExp(), x, s)


@case("ops.derivative", inputs=[rnd(2)], **_TAY_ERR)
def tay_derivative_order_0(x):
    return ops.derivative(_TaySinExp(), x, 0)


@case("ops.derivative", inputs=[rnd(2)], **_TAY_ERR)
def tay_derivative_order_float(x):
    return ops.derivative(_TaySinExp(), x, 1.5)


@case("ops.derivative", inputs=[rnd(2, dtype="float16")], **_TAY_ERR)
def tay_derivative_float16(x):
    return ops.derivative(_TaySinExp(), x, 1)


@case("ops.linearize", inputs=[rnd(2)], **_TAY_ERR)
def tay_linearize_not_tensors(x):
    return ops.linearize(_TaySinExp(), 3)


@case("ops.linearize", inputs=[rnd(3)], **_TAY_ERR)
def tay_linearize_tuple_for_one_input(x):
    _, jvp_fn = ops.linearize(_TaySinExp(), x)
    return jvp_fn((x,))


@case("ops.jet", inputs=[rnd(2), rnd(2), rnd(2, 2), rnd(1, 2)], **_TAY_ERR)
def tay_jet_series_of_different_orders(x, y, s, t):
    return ops.jet(_TayTwo(), (x, y), (s, t))
