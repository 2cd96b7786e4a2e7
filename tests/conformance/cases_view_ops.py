"""The conformance table: MindSpore 2.10's view Primitives and in-place helpers
(src/pycompile/ops/entries/view_ops.py): TransposeView, TransposeExtView, SelectView, CopyWithSlice,
reshape_, DumpGradient (the values and gradients the CPU wheel computes; it writes no dump file there -
tests/ops/test_view_ops.py checks the file pycompile writes, as documented) and stop_gradient_ (no
CPU kernel in the wheel: recorded, checked by its documented example in test_view_ops.py). Part of
the table loaded after cases.py."""
import tempfile

group("view_ops")

_DUMP = f"{tempfile.gettempdir()}/pycompile_dump_gradient_case.npy"     # the file pycompile writes


@case("ops.TransposeView", inputs=[rnd(2, 3, 4)])
def view_transpose(x):
    return ops.TransposeView()(x, (2, 0, 1))


@case("ops.TransposeExtView", inputs=[rnd(2, 3, 4)])
def view_transpose_ext(x):
    return ops.TransposeExtView()(x, 0, 2), ops.TransposeExtView()(x, -1, 1)


@case("ops.SelectView", inputs=[rnd(2, 3, 4)], graph=False,
      reason="the wheel's graph mode cannot infer it ('View op without infer'); pycompile runs it there "
             "(tests/ops/test_view_ops.py)")
def view_select(x):
    return ops.SelectView()(x, 1, 2), ops.SelectView()(x, 0, 1), ops.SelectView()(x, 2, 1)


@case("ops.SelectView", inputs=[rnd(2, 3, 4)], error=True)
def view_select_err_negative_index(x):
    return ops.SelectView()(x, -1, 0)


@case("ops.CopyWithSlice", inputs=[rnd(2, 3), rnd(2, 3)], graph=False,
      reason="the wheel's graph mode has no evaluator for CopyWithSlice; pycompile runs it there too "
             "(tests/ops/test_view_ops.py)")
def view_copy_with_slice(dst, src):
    return ops.CopyWithSlice()(dst, src) * 2


@case("ops.reshape_", "ops.functional", inputs=[rnd(2, 3, 4)])
def view_reshape_(x):
    return ops.reshape_(x, (4, 6)), ops.functional.reshape_(x, (-1,))


@case("ops.DumpGradient", inputs=[rnd(3), rnd(3)])
def view_dump_gradient_grads(x, y):
    def f(a, b):
        return (ops.DumpGradient()(_DUMP, a, "out") * b).sum()
    return ms.grad(f, (0, 1))(x, y)


@case("ops.stop_gradient_", inputs=[rnd(2, 3), rnd(3, 3)], graph=False,
      reason="in graph code pycompile rebinds the name (the call's value is the stopped tensor)",
      oracle_bug="the CPU wheel has no kernel: 'Not found op InplaceStopGradient on device CPU'")
def view_stop_gradient_(x, y):
    def net(a, b):
        out1, out2 = ops.MatMul()(a, b), ops.MatMul()(a, b)
        ops.stop_gradient_(out2)
        return out1, out2
    return ms.grad(net)(x, y)
