"""The conformance table: ops.Coalesce / ops.coalesce (a COO tensor's parts with duplicate places
added, in row-major order; indices (ndim, n), int64) - values with duplicates, negative, float16 and
float64 values (the wheel takes float64 too, beyond its documentation), a single entry, three
dimensions, compiled; and the wheel's argument errors. Ids start with ``coalesce_``.

MindSpore 2.10's PyNative Coalesce returns the right entries followed by stale ones (coalesce_fn's 5
places come with 4 more, copies of earlier rows: its output's run-time length is not applied in
PyNative); its GRAPH_MODE result is the documented one and is expected in both modes (`trust_graph`)."""
group("coalesce")

_CO_TRUST = dict(trust_graph="MindSpore 2.10's PyNative Coalesce returns stale entries past the coalesced ones")

_CO_IDX = np.array([[2, 0, 2, 0, 1, 2], [1, 1, 1, 0, 2, 0]], np.int64)
_CO_VAL = np.array([1.0, 2.0, 3.0, -2.0, 4.0, 0.5], np.float32)
_CO_SHAPE = np.array([3, 3], np.int64)


@case("ops.Coalesce", inputs=[_CO_IDX, _CO_VAL, _CO_SHAPE], **_CO_TRUST)
def coalesce_prim(i, v, s):
    return new(ops, "Coalesce")(i, v, s)


@case("ops.coalesce", inputs=[_CO_IDX, _CO_VAL, _CO_SHAPE], **_CO_TRUST)
def coalesce_fn(i, v, s):
    return api(ops, "coalesce")(i, v, s)


@case("ops.coalesce", inputs=[_CO_IDX, _CO_VAL.astype(np.float16), _CO_SHAPE], **_CO_TRUST)
def coalesce_f16(i, v, s):
    return api(ops, "coalesce")(i, v, s)


@case("ops.coalesce", inputs=[_CO_IDX, _CO_VAL.astype(np.float64), _CO_SHAPE], **_CO_TRUST)
def coalesce_f64(i, v, s):
    return api(ops, "coalesce")(i, v, s)


@case("ops.coalesce", inputs=[np.array([[1, 0, 1, 1, 0], [0, 2, 0, 1, 2], [3, 1, 3, 0, 1]], np.int64),
                              np.array([0.25, -1.0, 0.75, 2.0, 1.0], np.float32), np.array([2, 3, 4], np.int64)], **_CO_TRUST)
def coalesce_3d(i, v, s):
    return api(ops, "coalesce")(i, v, s)


@case("ops.coalesce", inputs=[np.array([[4], [0]], np.int64), np.array([7.0], np.float32), np.array([5, 2], np.int64)], **_CO_TRUST)
def coalesce_one_entry(i, v, s):
    return api(ops, "coalesce")(i, v, s)


@case("ops.coalesce", inputs=[np.array([[0, 1, 0, 1], [2, 0, 2, 0]], np.int64), np.array([1.5, -3.0, -1.5, 3.0], np.float32),
                              np.array([2, 3], np.int64)], **_CO_TRUST)
def coalesce_sums_to_zero(i, v, s):
    """Places whose entries cancel stay, with the value 0."""
    return api(ops, "coalesce")(i, v, s)


def _co_err(name, i, v, s):
    @case("ops.coalesce", id=f"coalesce_err_{name}", inputs=[i, v, s], error=True, graph=False,
          reason="the argument checks run when the call is made")
    def f(a, b, c):
        return api(ops, "coalesce")(a, b, c)


_co_err("indices_int32", _CO_IDX.astype(np.int32), _CO_VAL, _CO_SHAPE)
_co_err("shape_int32", _CO_IDX, _CO_VAL, _CO_SHAPE.astype(np.int32))
_co_err("values_int", _CO_IDX, _CO_VAL.astype(np.int64), _CO_SHAPE)
_co_err("indices_1d", _CO_IDX[0], _CO_VAL, _CO_SHAPE)
_co_err("values_2d", _CO_IDX, _CO_VAL.reshape(2, 3), _CO_SHAPE)
_co_err("shape_2d", _CO_IDX, _CO_VAL, _CO_SHAPE.reshape(1, 2))
_co_err("count_mismatch", _CO_IDX, _CO_VAL[:5], _CO_SHAPE)
_co_err("rank_mismatch", _CO_IDX, _CO_VAL, np.array([3, 3, 3], np.int64))
_co_err("negative_index", np.array([[0, -1], [1, 1]], np.int64), _CO_VAL[:2], _CO_SHAPE)
_co_err("index_past_shape", np.array([[0, 3], [1, 1]], np.int64), _CO_VAL[:2], _CO_SHAPE)


@case("ops.coalesce", inputs=[np.array([[0, 2], [1, 1]], np.int64), _CO_VAL[:2], _CO_SHAPE], error=True)
def coalesce_err_index_computed_past_shape(i, v, s):
    """Compiled, the indices are known only as the program runs: the check runs there (ValueError)."""
    return api(ops, "coalesce")(i + 1, v, s)
