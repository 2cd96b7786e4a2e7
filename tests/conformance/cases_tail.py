"""The conformance table: the op tail MindSpore's own CPU op tests need (issue 33, tail33):
random_poisson (shapes, dtypes, the mean of many draws, its argument errors), ...
Part of the table loaded after cases.py."""
group("tail")

_POIS_SHAPE = np.array([3, 2], np.int64)
_POIS_RATE = np.array([[5.0, 10.0], [5.0, 1.0]], np.float32)


@case("ops.random_poisson", inputs=[_POIS_RATE])
def random_poisson_shapes(rate):
    a = ops.random_poisson(Tensor(_POIS_SHAPE), rate, seed=5, dtype=ms.int32)
    b = ops.random_poisson(Tensor(_POIS_SHAPE, ms.int32), ops.cast(rate, ms.float16), seed=1, dtype=ms.float64)
    return a.shape, a.dtype, (a >= 0).all(), b.shape, b.dtype, (b == ops.round(b)).all()


@case("ops.random_poisson", inputs=[np.array([0.5, 3.0, 40.0], np.float32)])
def random_poisson_means(rate):
    x = ops.random_poisson(Tensor(np.array([4000], np.int32)), rate, seed=2)
    m = x.mean(0)
    return x.shape, x.dtype, (ops.abs(m - rate) < 0.1 * rate + 0.05).all(), (x >= 0).all()


@case("ops.random_poisson", inputs=[np.array([3, 5], np.float32), np.array([0.5], np.float32)], error=True)
def random_poisson_float_shape(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([[1, 2], [3, 5]], np.int32), np.array([0.5], np.float32)],
      error=True)
def random_poisson_2d_shape(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([3, 5], np.int32), np.array([True])], error=True)
def random_poisson_bool_rate(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([3, 5], np.int32), np.array([0.5], np.float32)], error=True)
def random_poisson_bool_dtype(shape, rate):
    return ops.random_poisson(shape, rate, seed=1, dtype=ms.bool_)
