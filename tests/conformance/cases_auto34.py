"""The conformance table: ops.Custom (func_type "pyfunc") and the control-flow Primitives
ops.WhileLoop / ForiLoop / Scan (issue 34, auto34). Part of the table loaded after cases.py."""
# ==== custom ops and control-flow primitives ========================================================
group("auto34")


def _np_affine(x, y):
    return x * 2.0 - y


# made outside the case: MindSpore's graph mode cannot create a Custom inside compiled code
_AFFINE = ops.Custom(_np_affine, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="pyfunc")


@case("ops.Custom", inputs=[rnd(2, 3), rnd(2, 3)])
def custom_pyfunc_affine(x, y):
    return _AFFINE(x, y) + 1.0


def _np_three(x, y):
    return x + y, (x * y).astype(np.int64) * 3000000000, (x - y).astype(np.complex64) * 1j


# several outputs of different dtypes: a tuple back, each value exact (int64 past 2**32, complex)
_THREE = ops.Custom(_np_three, out_shape=lambda a, b: (a, a, a), out_dtype=(ms.float32, ms.int64, ms.complex64),
                    func_type="pyfunc")
def _np_two(a, b):
    return a * b, a + b


def _two_bprop(a, b, out, dout):
    return dout[0] * b + dout[1], dout[0] * a + dout[1]


_TWO = ops.Custom(_np_two, out_shape=lambda a, b: (a, a), out_dtype=lambda a, b: (a, a), func_type="pyfunc",
                  bprop=_two_bprop)


@case("ops.Custom", inputs=[rnd(2, 3), rnd(2, 3)])
def custom_pyfunc_three_outputs(x, y):
    return _THREE(x, y)


@case("ops.Custom", inputs=[rnd(3), rnd(3)])
def custom_pyfunc_two_outputs_bprop(x, y):
    def loss(a, b):
        p, s = _TWO(a, b)
        return (p * 3 + s).sum()
    return ms.grad(loss, (0, 1))(x, y)


def _below_ten(v):
    return v.sum() < 10.0


def _grow(v):
    return v * 1.5 + 0.5


@case("ops.WhileLoop", inputs=[rnd(2, 3, lo=0.1, hi=1.0)])
def while_loop_grow(x):
    return ops.WhileLoop()(_below_ten, _grow, x)


def _fori_body(i, v):
    return ops.sin(v) + i


@case("ops.ForiLoop", inputs=[rnd(2, 3)])
def fori_loop_sin(x):
    return ops.ForiLoop()(0, 3, _fori_body, x)


def _scan_body(c, e):
    c = c * 0.5 + e
    return c, c * 2.0


@case("ops.Scan", inputs=[rnd(2, 3), rnd(2, 3)])
def scan_two(x, y):
    return ops.Scan()(_scan_body, x, [y, y * 2.0])
