"""The conformance table: `mindspore.numpy`, part 2: reductions, products, shape and layout, joining
and splitting, sorting-free index helpers, polynomials and statistics. Part of the table loaded
after cases.py (see cases_numpy.py)."""
group("numpy")


# ---- reductions ----------------------------------------------------------------------------------------
@case("numpy.sum", "numpy.mean", inputs=[rnd(2, 3, 4)])
def np_sum_mean(x):
    return (mnp.sum(x), mnp.sum(x, axis=1), mnp.sum(x, (0, 2), keepdims=True), mnp.sum(x, initial=1.0),
            mnp.mean(x), mnp.mean(x, 0), mnp.mean(x, axis=-1, keepdims=True))


@case("numpy.sum", "numpy.mean", inputs=[ints(2, 3, lo=1, hi=4), bools(2, 3)])
def np_sum_int(i, b):
    return (mnp.sum(i), mnp.sum(i, 0), mnp.mean(i), mnp.sum(b), mnp.sum(i, dtype=mnp.float32),
            mnp.mean(i, 1, dtype=mnp.float16))


@case("numpy.amax", "numpy.amin", "numpy.max", "numpy.min", "numpy.ptp", inputs=[rnd(3, 4)])
def np_amax_amin(x):
    return (mnp.amax(x), mnp.amax(x, 0), mnp.amin(x, 1, keepdims=True), mnp.max(x, axis=1), mnp.min(x),
            mnp.amax(x, initial=1.5), mnp.ptp(x), mnp.ptp(x, 1), mnp.ptp(x, 0, keepdims=True))


@case("numpy.argmax", "numpy.argmin", inputs=[rnd(3, 4), np.array([1.0, 3.0, 3.0, 0.0], np.float32)])
def np_argmax(x, t):
    return mnp.argmax(x), mnp.argmax(x, 1), mnp.argmin(x, 0), mnp.argmin(x), mnp.argmax(t), mnp.argmin(t)


@case("numpy.std", "numpy.var", inputs=[rnd(3, 4)])
def np_std_var(x):
    return (mnp.std(x), mnp.std(x, 1), mnp.std(x, 0, ddof=1), mnp.var(x), mnp.var(x, 1, keepdims=True),
            mnp.var(x, ddof=1))


@case("numpy.nansum", "numpy.nanmean", "numpy.nanmax", "numpy.nanmin", "numpy.nanvar", "numpy.nanstd",
      inputs=[np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]], np.float32)])
def np_nan_reductions(x):
    return (mnp.nansum(x), mnp.nansum(x, 1), mnp.nanmean(x, 0), mnp.nanmax(x, 1), mnp.nanmin(x),
            mnp.nanvar(x, 1), mnp.nanstd(x, 0))


@case("numpy.cumsum", "numpy.cumprod", "numpy.nancumsum", inputs=[rnd(2, 3), ints(2, 3, lo=1, hi=4)])
def np_cumulative(x, i):
    return (mnp.cumsum(x), mnp.cumsum(x, 1), mnp.cumsum(i, 0), mnp.cumprod(x, 1), mnp.cumprod(i),
            mnp.nancumsum(x, 0), mnp.cumsum(i, 1, dtype=mnp.float32))


@case("numpy.count_nonzero", "numpy.sometrue", "numpy.average",
      inputs=[ints(3, 4, lo=0, hi=3), rnd(3, 4), rnd(4, lo=0.1, hi=1)])
def np_counts(i, x, w):
    return (mnp.count_nonzero(i), mnp.count_nonzero(i, 1), mnp.sometrue(i), mnp.sometrue(i, 0),
            mnp.average(x), mnp.average(x, 1), mnp.average(x, 1, w), mnp.average(x, 1, w, returned=True))


@case("numpy.norm", inputs=[rnd(3, 4)])
def np_norm(x):
    return (mnp.norm(x), mnp.norm(x, axis=1), mnp.norm(x[0]), mnp.norm(x[0], 1), mnp.norm(x, "fro"),
            mnp.norm(x, axis=0, keepdims=True), mnp.norm(x[0], float("inf")))


# ---- products ------------------------------------------------------------------------------------------
@case("numpy.dot", "numpy.matmul", "numpy.outer", "numpy.inner", "numpy.kron",
      inputs=[rnd(2, 3), rnd(3, 4), rnd(3), rnd(2, 2)])
def np_products(a, b, v, s):
    return (mnp.dot(a, b), mnp.dot(v, v), mnp.dot(a, v), mnp.matmul(a, b), mnp.matmul(a, v), mnp.outer(v, v[:2]),
            mnp.inner(v, v), mnp.inner(a, a), mnp.kron(s, s), mnp.kron(v, v[:2]))


@case("numpy.tensordot", "numpy.multi_dot", "numpy.cross", inputs=[rnd(2, 3, 4), rnd(3, 4, 2), rnd(4, 3), rnd(2, 3)])
def np_tensordot(a, b, u, w):
    return (mnp.tensordot(a, b), mnp.tensordot(a[:, :, :3], b, axes=1), mnp.tensordot(a, b, ([1], [0])),
            mnp.multi_dot([u, w.T, w]), mnp.cross(u[:2], w), mnp.cross(u[0], u[1]), mnp.cross(u[:, :2], u[:, 1:]))


# ---- shape ---------------------------------------------------------------------------------------------
@case("numpy.reshape", "numpy.ravel", "numpy.transpose", "numpy.swapaxes", "numpy.moveaxis", "numpy.rollaxis",
      "numpy.expand_dims", "numpy.squeeze", inputs=[rnd(2, 3, 4), rnd(1, 3, 1)])
def np_layout(x, s):
    return (mnp.reshape(x, (6, 4)), mnp.reshape(x, (-1, 2)), mnp.ravel(x), mnp.transpose(x),
            mnp.transpose(x, (1, 0, 2)),
            mnp.swapaxes(x, 0, 2), mnp.moveaxis(x, 0, -1), mnp.moveaxis(x, (0, 1), (2, 0)), mnp.rollaxis(x, 2),
            mnp.rollaxis(x, 2, 1), mnp.expand_dims(x, 1), mnp.expand_dims(x, (0, 4)), mnp.squeeze(s),
            mnp.squeeze(s, 0), mnp.squeeze(s, (0, 2)))


@case("numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d", "numpy.broadcast_to", "numpy.broadcast_arrays",
      inputs=[rnd(3), rnd(2, 3)])
def np_atleast(v, m):
    return (mnp.atleast_1d(v), mnp.atleast_2d(v), mnp.atleast_3d(v), mnp.atleast_3d(m), mnp.atleast_2d(v, m),
            mnp.broadcast_to(v, (2, 3)), mnp.broadcast_to(m, (4, 2, 3)), mnp.broadcast_arrays(v, m))


@case("numpy.concatenate", "numpy.stack", "numpy.hstack", "numpy.vstack", "numpy.dstack", "numpy.column_stack",
      "numpy.append", inputs=[rnd(2, 3), rnd(2, 3), rnd(3)])
def np_join(a, b, v):
    return (mnp.concatenate((a, b)), mnp.concatenate([a, b], axis=1), mnp.concatenate((a, b), axis=None),
            mnp.stack((a, b)), mnp.stack([a, b], axis=-1), mnp.hstack((a, b)), mnp.hstack((v, v)),
            mnp.vstack((a, b)), mnp.vstack((v, v)), mnp.dstack((a, b)), mnp.dstack((v, v)), mnp.column_stack((v, v)),
            mnp.column_stack((a.T, v)), mnp.append(a, b), mnp.append(a, b, axis=0))


@case("numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit",
      inputs=[rnd(4, 6, 2)])
def np_split(x):
    return (mnp.split(x, 2), mnp.split(x, [1, 3], axis=1), mnp.array_split(x, 3, axis=1), mnp.array_split(x, 3),
            mnp.hsplit(x, 3), mnp.vsplit(x, [1]), mnp.dsplit(x, 2))


@case("numpy.tile", "numpy.repeat", "numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.roll", "numpy.rot90",
      inputs=[rnd(2, 3)])
def np_tile_flip(x):
    return (mnp.tile(x, 2), mnp.tile(x, (2, 1, 2)), mnp.repeat(x, 2), mnp.repeat(x, 2, axis=1),
            mnp.repeat(x, [1, 2], axis=0), mnp.flip(x), mnp.flip(x, 1), mnp.fliplr(x), mnp.flipud(x), mnp.roll(x, 1),
            mnp.roll(x, -1, axis=1), mnp.roll(x, (1, 2), axis=(0, 1)), mnp.rot90(x), mnp.rot90(x, 2), mnp.rot90(x, -1))


@case("numpy.take", "numpy.take_along_axis", "numpy.diff",
      inputs=[rnd(3, 4), ints(2, lo=0, hi=3), ints(3, 1, lo=0, hi=4)])
def np_take(x, idx, along):
    return (mnp.take(x, idx), mnp.take(x, idx, axis=0), mnp.take(x, idx, axis=1), mnp.take_along_axis(x, along, 1),
            mnp.diff(x), mnp.diff(x, 2, axis=0), mnp.diff(x, prepend=x[:, :1]))


@case("numpy.choose", inputs=[ints(2, 3, lo=0, hi=3), rnd(2, 3), rnd(2, 3), rnd(2, 3)])
def np_choose(i, a, b, c):
    return mnp.choose(i, (a, b, c)), mnp.choose(i, [a, b, c, a], mode="wrap")


@case("numpy.select", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3)], graph=False,
      reason="MindSpore 2.10's graph mode returns the default everywhere (PyNative and NumPy do not)")
def np_select(a, b, c):
    return mnp.select([a > 0, b > 0], [a, b]), mnp.select([a > 0.5], [c], -1.0)


@case("numpy.ediff1d", "numpy.trapz", "numpy.polyval",
      inputs=[rnd(5), rnd(2, 4)])
def np_ediff_trapz(v, m):
    return (mnp.ediff1d(v), mnp.ediff1d(m, to_begin=0.0), mnp.trapz(v), mnp.trapz(m, dx=0.5), mnp.trapz(m, axis=0),
            mnp.polyval(v[:3], v))


@case("numpy.polyadd", "numpy.polysub", "numpy.polymul", "numpy.polyder", "numpy.polyint", inputs=[rnd(3), rnd(2)])
def np_poly(p, q):
    return (mnp.polyadd(p, q), mnp.polysub(p, q), mnp.polymul(p, q), mnp.polyder(p), mnp.polyder(p, 2),
            mnp.polyint(p), mnp.polyint(q, 2, 1.0))


@case("numpy.ravel_multi_index", "numpy.unravel_index", "numpy.ix_",
      inputs=[ints(2, 3, lo=0, hi=3), ints(4, lo=0, hi=12)])
def np_multi_index(mi, flat):
    return mnp.ravel_multi_index(mi, (3, 4)), mnp.unravel_index(flat, (3, 4)), mnp.ix_(flat[:2], flat[2:])


@case("numpy.cov", "numpy.corrcoef", inputs=[rnd(3, 5)])
def np_cov(x):
    return mnp.cov(x), mnp.cov(x, bias=True), mnp.cov(x, rowvar=False), mnp.corrcoef(x), mnp.cov(x[0], x[1])


@case("numpy.convolve", "numpy.correlate", inputs=[rnd(5), rnd(3)])
def np_convolve(a, v):
    return (mnp.convolve(a, v), mnp.convolve(a, v, "same"), mnp.convolve(a, v, "valid"), mnp.correlate(a, v),
            mnp.correlate(a, v, "full"))


@case("numpy.digitize", "numpy.searchsorted", "numpy.interp",
      inputs=[rnd(6, lo=0, hi=4), np.array([0.5, 1.0, 2.0, 3.0], np.float32)])
def np_digitize(x, bins):
    return (mnp.digitize(x, bins), mnp.digitize(x, bins, right=True), mnp.searchsorted(bins, x),
            mnp.searchsorted(bins, x, side="right"), mnp.interp(x, bins, bins * 2))


@case("numpy.unwrap", inputs=[np.array([0.0, 3.0, 6.5, 9.8, 0.5, -3.0], np.float32)])
def np_unwrap(p):
    return mnp.unwrap(p), mnp.unwrap(p, discont=4.0)


@case("numpy.reshape", inputs=[rnd(2, 3)], error=True)
def np_reshape_bad(x):
    return mnp.reshape(x, (4, 2))


@case("numpy.concatenate", inputs=[rnd(2, 3), rnd(3, 2)], error=True)
def np_concat_bad(a, b):
    return mnp.concatenate((a, b))


@case("numpy.split", inputs=[rnd(5, 2)], error=True)
def np_split_uneven(x):
    return mnp.split(x, 2)


# ---- the remaining families (extras.py) ------------------------------------------------------------------
@case("numpy.rand", "numpy.randn", "numpy.randint", inputs=[rnd(2)])
def np_random(x):
    u, n, i = mnp.rand(3, 4), mnp.randn((2, 5)), mnp.randint(2, 7, (3, 3))
    return (u.shape, u.dtype, _in_range(u, 0.0, 1.0), n.shape, n.dtype, i.shape, i.dtype, _in_range(i, 2, 7),
            mnp.rand(2, dtype=mnp.float16).dtype)


@case("numpy.pad", inputs=[rnd(2, 3)])
def np_pad(x):
    return (mnp.pad(x, 1), mnp.pad(x, ((1, 0), (0, 2))), mnp.pad(x, 1, constant_values=5), mnp.pad(x, 2, "edge"),
            mnp.pad(x, ((0, 0), (2, 2)), "reflect"), mnp.pad(x, 1, "symmetric"), mnp.pad(x, ((1, 1), (2, 1)), "wrap"),
            mnp.pad(x, 1, "maximum"), mnp.pad(x, ((0, 1), (1, 0)), "mean"))


@case("numpy.apply_along_axis", "numpy.apply_over_axes", "numpy.piecewise", inputs=[rnd(3, 4)])
def np_apply(x):
    return (mnp.apply_along_axis(mnp.sum, 1, x), mnp.apply_along_axis(lambda r: r * 2, 0, x),
            mnp.apply_over_axes(mnp.amax, x, 1), mnp.apply_over_axes(mnp.mean, x, [1, 0]),
            mnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]),
            mnp.piecewise(x, [x < -1], [lambda v: v * 0, lambda v: v + 1]))


@case("numpy.gradient", inputs=[rnd(5), rnd(3, 4)])
def np_gradient(v, m):
    return mnp.gradient(v), mnp.gradient(v, 2.0), mnp.gradient(m), mnp.gradient(m, axis=1)


@case("numpy.histogram", "numpy.histogram_bin_edges", inputs=[rnd(20, lo=0, hi=4)])
def np_histogram(x):
    return (mnp.histogram(x), mnp.histogram(x, 4, (0.0, 4.0)), mnp.histogram_bin_edges(x, 5),
            mnp.histogram(x, 3, density=True))


@case("numpy.mgrid", "numpy.ogrid", inputs=[rnd(2)])
def np_grids(x):
    return mnp.mgrid[0:3, 1:4], mnp.mgrid[0:4:2], mnp.ogrid[0:2, 0:3]


@case("numpy.array_str", inputs=[np.array([[1.5, 2.0], [3.0, -4.25]], np.float32)], graph=False,
      reason="a Python string of the values")
def np_array_str(x):
    return mnp.array_str(x)


# ---- value-dependent lengths and multi-dimensional histograms (sets.py) ------------------------------------
@case("numpy.unique", "numpy.intersect1d", "numpy.setdiff1d", inputs=[ints(2, 5, lo=0, hi=6), ints(4, lo=2, hi=8)])
def np_unique_sets(a, b):
    return mnp.unique(a), mnp.unique(a, return_inverse=True), mnp.intersect1d(a, b), mnp.setdiff1d(a, b)


@case("numpy.unique", inputs=[np.array([2.5, -1.0, 2.5, 0.0, -0.0, 7.0], np.float32)])
def np_unique_float(x):
    return mnp.unique(x), mnp.unique(x, True)


@case("numpy.argwhere", "numpy.bincount", inputs=[ints(2, 3, lo=0, hi=3), ints(6, lo=0, hi=5), rnd(6)],
      graph=False, reason="result shapes that depend on the values")
def np_argwhere_bincount(a, i, w):
    return mnp.argwhere(a), mnp.bincount(i), mnp.bincount(i, w), mnp.bincount(i, minlength=7)


@case("numpy.bincount", inputs=[ints(6, lo=0, hi=5)])
def np_bincount_length(i):
    return mnp.bincount(i, length=6), mnp.bincount(i, length=3)


@case("numpy.histogram2d", "numpy.histogramdd", inputs=[rnd(12, lo=0, hi=3), rnd(12, lo=-1, hi=1), rnd(10, 3)])
def np_histogram_nd(x, y, s):
    return (mnp.histogram2d(x, y, 3), mnp.histogram2d(x, y, [2, 4], [[0, 3], [-1, 1]]), mnp.histogramdd(s, 2),
            mnp.histogramdd(s, (2, 3, 1), density=True))
