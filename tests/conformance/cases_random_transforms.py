"""The conformance table: standard_laplace, laplace, rrelu, gumbel_softmax
(src/pycompile/ops/entries/random_transforms.py): shapes, dtypes, invariants that hold for any
draw, and the wheel's argument errors (distributions: tests/ops/test_random_transforms.py).
Part of the table loaded after cases.py."""
group("random_transforms")

_X = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)


@case("ops.standard_laplace", "ops.StandardLaplace", "ops.laplace")
def rt_laplace_shapes():
    s, p = ops.standard_laplace((2, 3)), ops.StandardLaplace()((4,))
    lap = ops.laplace((2, 3), Tensor(np.array([0.0, 10.0, 100.0], np.float32)), Tensor(1.0, ms.float32))
    return s.shape, s.dtype, p.shape, p.dtype, lap.shape, lap.dtype, ops.isfinite(s).all()


@case("ops.standard_laplace", error=True)
def rt_standard_laplace_list_shape():
    return ops.standard_laplace([2, 3])


@case("ops.rrelu", inputs=[_X])
def rt_rrelu(x):
    y = ops.rrelu(x)
    slope = y / x
    neg = x < 0
    return (y.shape, y.dtype, ops.masked_select(y, ~neg), ops.logical_or(~neg, slope >= 0.125).all(),
            ops.logical_or(~neg, slope <= 1 / 3 + 1e-6).all(), ops.rrelu(x, 0.3, 0.3))


@case("ops.rrelu", inputs=[_X], error=True)
def rt_rrelu_bounds(x):
    return ops.rrelu(x, 0.5, 0.2)


@case("ops.gumbel_softmax", inputs=[_X])
def rt_gumbel_softmax(x):
    s, h, d0 = ops.gumbel_softmax(x), ops.gumbel_softmax(x, 0.5, True), ops.gumbel_softmax(x, 1.0, False, 0)
    return (s.shape, s.dtype, ops.isclose(s.sum(-1), ops.ones(2, ms.float32)).all(), h.sum(-1),
            ops.logical_or(h == 0, h == 1).all(), ops.isclose(d0.sum(0), ops.ones(3, ms.float32)).all())


@case("ops.gumbel_softmax", inputs=[_X], error=True)
def rt_gumbel_softmax_tau(x):
    return ops.gumbel_softmax(x, -1.0)


@case("ops.gumbel_softmax", inputs=[np.ones((2, 3), np.int32)], error=True)
def rt_gumbel_softmax_int(x):
    return ops.gumbel_softmax(x)
