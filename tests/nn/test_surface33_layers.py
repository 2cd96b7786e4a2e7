"""Issue 33 (surface33) nn layers and Tensor methods whose MindSpore 2.10 CPU build has no kernel
(so the conformance records stand for nothing): checked against NumPy references written here,
and the differentiable layers' gradients against central finite differences (float64)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

RNG = np.random.default_rng(33)


def fd_grad(f, x, eps=1e-6):
    """Central differences of the scalar f(x) for a float64 array x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def check_grad(cell_fn, arrays, argnum=0, rtol=1e-5, atol=1e-7):
    out_shape = cell_fn(*[Tensor(a) for a in arrays]).shape
    w = np.linspace(0.5, 1.5, int(np.prod(out_shape))).reshape(out_shape)

    def scalar(x):
        args = list(arrays)
        args[argnum] = x
        return float((cell_fn(*[Tensor(a) for a in args]).asnumpy() * w).sum())

    got = ms.grad(lambda *xs: ops.reduce_sum(cell_fn(*xs) * Tensor(w)), argnum)(*[Tensor(a) for a in arrays])
    np.testing.assert_allclose(got.asnumpy(), fd_grad(scalar, arrays[argnum]), rtol=rtol, atol=atol)


# ---- NumPy references ------------------------------------------------------------------------------------
def avg_pool_nd(x, k, s, p=0):
    n = len(k)
    x = np.pad(x, [(0, 0)] * (x.ndim - n) + [(p, p)] * n)
    out_shape = [(x.shape[x.ndim - n + i] - k[i]) // s[i] + 1 for i in range(n)]
    out = np.zeros(x.shape[:x.ndim - n] + tuple(out_shape))
    for idx in np.ndindex(*out_shape):
        sl = tuple(slice(idx[i] * s[i], idx[i] * s[i] + k[i]) for i in range(n))
        out[(...,) + idx] = x[(...,) + sl].mean(axis=tuple(range(-n, 0)))
    return out


def max_pool_nd(x, k, s):
    n = len(k)
    out_shape = [(x.shape[x.ndim - n + i] - k[i]) // s[i] + 1 for i in range(n)]
    out = np.zeros(x.shape[:x.ndim - n] + tuple(out_shape))
    for idx in np.ndindex(*out_shape):
        sl = tuple(slice(idx[i] * s[i], idx[i] * s[i] + k[i]) for i in range(n))
        out[(...,) + idx] = x[(...,) + sl].max(axis=tuple(range(-n, 0)))
    return out


def multilabel_margin_ref(x, y):
    out = []
    for xi, yi in zip(x, y):
        targets = []
        for t in yi:
            if t < 0:
                break
            targets.append(t)
        others = [i for i in range(len(xi)) if i not in targets]
        out.append(sum(max(0.0, 1 - (xi[j] - xi[i])) for j in targets for i in others) / len(xi))
    return np.array(out)


# ---- the *Ext Cells (no CPU kernel in MindSpore 2.10) ---------------------------------------------------
def test_ext_pooling_cells_default_stride_to_kernel():
    x = RNG.random((2, 3, 6, 8)).astype(np.float32)
    np.testing.assert_allclose(nn.AvgPool2dExt(2)(Tensor(x)).asnumpy(), avg_pool_nd(x, (2, 2), (2, 2)), rtol=1e-6)
    np.testing.assert_allclose(nn.MaxPool2dExt(2)(Tensor(x)).asnumpy(), max_pool_nd(x, (2, 2), (2, 2)))
    x1 = RNG.random((2, 3, 9)).astype(np.float32)
    np.testing.assert_allclose(nn.AvgPool1dExt(3)(Tensor(x1)).asnumpy(), avg_pool_nd(x1, (3,), (3,)), rtol=1e-6)
    x3 = RNG.random((1, 2, 4, 4, 6)).astype(np.float32)
    np.testing.assert_allclose(nn.AvgPool3dExt(2)(Tensor(x3)).asnumpy(), avg_pool_nd(x3, (2,) * 3, (2,) * 3),
                               rtol=1e-6)


def test_ext_loss_softmax_dropout_cells():
    a, b = RNG.random((3, 4)).astype(np.float32), RNG.random((3, 4)).astype(np.float32)
    assert nn.L1LossExt()(Tensor(a), Tensor(b)).asnumpy() == pytest.approx(np.abs(a - b).mean(), rel=1e-6)
    np.testing.assert_allclose(nn.L1LossExt("none")(Tensor(a), Tensor(b)).asnumpy(), np.abs(a - b), rtol=1e-6)
    x = RNG.random((2, 3, 4)).astype(np.float64)
    ref = x - np.log(np.exp(x).sum(0, keepdims=True))          # dim None on a 3-D input: axis 0
    np.testing.assert_allclose(nn.LogSoftmaxExt()(Tensor(x)).asnumpy(), ref, rtol=1e-12)
    drop = nn.DropoutExt(p=0.5)
    drop.set_train(False)
    np.testing.assert_array_equal(drop(Tensor(a)).asnumpy(), a)
    drop.set_train(True)
    y = drop(Tensor(np.ones((200, 50), np.float32))).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    d2 = nn.Dropout2dExt(p=0.5)
    d2.set_train(True)
    y2 = d2(Tensor(np.ones((4, 64, 3, 3), np.float32))).asnumpy()
    assert all(len(set(c.ravel())) == 1 for c in y2.reshape(-1, 9))          # whole channels


def test_pool3d_cells_match_numpy_and_differentiate():
    x = RNG.random((1, 2, 4, 4, 6))
    np.testing.assert_allclose(nn.MaxPool3d(2, 2)(Tensor(x)).asnumpy(), max_pool_nd(x, (2,) * 3, (2,) * 3))
    np.testing.assert_allclose(nn.AvgPool3d(2, 2)(Tensor(x)).asnumpy(), avg_pool_nd(x, (2,) * 3, (2,) * 3),
                               rtol=1e-12)
    small = RNG.random((1, 1, 2, 3, 4))
    check_grad(nn.AvgPool3d(2, 1), [small])
    check_grad(nn.MaxPool3d(2, 2), [small])


def test_multilabel_margin_loss_matches_reference_and_differentiates():
    x = RNG.random((3, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [4, -1, 2, 1, 0]], np.int32)
    np.testing.assert_allclose(nn.MultilabelMarginLoss("none")(Tensor(x), Tensor(y)).asnumpy(),
                               multilabel_margin_ref(x, y), rtol=1e-12)
    assert nn.MultilabelMarginLoss()(Tensor(x), Tensor(y)).asnumpy() == pytest.approx(
        multilabel_margin_ref(x, y).mean(), rel=1e-12)
    # torch's documented example: 0.85
    ex = nn.MultilabelMarginLoss()(Tensor(np.array([[0.1, 0.2, 0.4, 0.8]], np.float32)),
                                   Tensor(np.array([[3, 0, -1, 1]], np.int32)))
    assert ex.asnumpy() == pytest.approx(0.85, rel=1e-6)
    net = nn.MultilabelMarginLoss("none")
    check_grad(lambda a: net(a, Tensor(y)), [x])
    with pytest.raises(ValueError, match="reduction"):
        nn.MultilabelMarginLoss("avg")


def test_bidense_matches_einsum_and_differentiates():
    net = nn.BiDense(3, 4, 2, dtype=ms.float64)
    x1, x2 = RNG.random((5, 3)), RNG.random((5, 4))
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    np.testing.assert_allclose(net(Tensor(x1), Tensor(x2)).asnumpy(),
                               np.einsum("ni,oij,nj->no", x1, w, x2) + b, rtol=1e-12)
    check_grad(net, [x1, x2], 0)
    check_grad(net, [x1, x2], 1)
    assert [p.name for p in net.trainable_params()] == ["weight", "bias"]
    with pytest.raises(ValueError, match="in1_channels"):
        nn.BiDense(0, 2, 2)


def test_multiclass_dice_loss_differentiates():
    y = np.eye(3)[[0, 2, 1, 1]]
    check_grad(lambda a: nn.MultiClassDiceLoss()(a, Tensor(y)), [RNG.random((4, 3))])


def test_autodiff_cells():
    x, v = Tensor(np.array([1.0, 2.0])), Tensor(np.array([1.0, 0.5]))
    out, jv = nn.Jvp(lambda a: a ** 3)(x, v)
    np.testing.assert_allclose(jv.asnumpy(), 3 * x.asnumpy() ** 2 * v.asnumpy())
    out, g = nn.Vjp(lambda a: a ** 3)(x, v)
    np.testing.assert_allclose(g.asnumpy(), 3 * x.asnumpy() ** 2 * v.asnumpy())
    fvg = nn.ForwardValueAndGrad(lambda a: ops.reduce_sum(a * a))
    loss, grad = fvg(x)
    assert loss.asnumpy() == pytest.approx(5.0) and np.allclose(grad.asnumpy(), [2.0, 4.0])
    fvg_s = nn.ForwardValueAndGrad(lambda a: a * a, sens_param=True)
    _, grad = fvg_s(x, Tensor(np.array([1.0, 3.0])))
    np.testing.assert_allclose(grad.asnumpy(), [2.0, 12.0])
    with pytest.raises(TypeError, match="weights"):
        nn.ForwardValueAndGrad(nn.Dense(2, 2), get_by_list=True)


def test_cell_dict_and_parameter_update():
    d = nn.CellDict([("a", nn.ReLU()), ("b", nn.Dense(2, 3))])
    assert list(d.keys()) == ["a", "b"] and "b" in d and len(d) == 2
    assert [n for n, _ in d.parameters_and_names()] == ["b.weight", "b.bias"]
    d["c"] = nn.Tanh()
    assert isinstance(d.pop("a"), nn.ReLU) and list(d) == ["b", "c"]
    with pytest.raises(TypeError, match="Cell"):
        d["x"] = 3
    d.clear()
    assert len(d) == 0
    p = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="p")
    out = nn.ParameterUpdate(p)(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, 3])
    with nn.no_init_parameters():
        net = nn.Dense(2, 2)
    assert net.weight.shape == (2, 2)


# ---- Tensor methods without a CPU kernel in MindSpore 2.10 ------------------------------------------------
def test_tensor_new_full_index_put_scatter_add():
    x = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    y = x.new_full((2, 2), 3)
    assert y.dtype == ms.float32 and (y.asnumpy() == 3).all()
    assert x.new_full([3], 1.5, dtype=ms.int32).dtype == ms.int32
    z = x.copy()
    assert z.index_put_((Tensor(np.array([0, 0])), Tensor(np.array([1, 1]))),
                        Tensor(np.array([9.0, 8.0], np.float32)), True) is z
    np.testing.assert_array_equal(z.asnumpy(), [[1, 19, 3], [4, 5, 6]])
    idx = np.array([[0, 0], [2, 1]])
    src = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    ref = x.asnumpy().copy()
    np.add.at(ref, (np.arange(2)[:, None].repeat(2, 1), idx), src)
    np.testing.assert_array_equal(x.scatter_add(1, Tensor(idx), Tensor(src)).asnumpy(), ref)


def test_tensor_triangular_solve_and_erfinv_():
    A = np.triu(RNG.random((2, 3, 3)) + 2.0)
    b = RNG.random((2, 3, 4))
    X, A_out = Tensor(b).triangular_solve(Tensor(A))
    np.testing.assert_allclose(A @ X.asnumpy(), b, rtol=1e-10)
    assert A_out.shape == A.shape
    L = np.tril(RNG.random((3, 3)) + 1.0)
    unit = L.copy()
    np.fill_diagonal(unit, 1.0)
    X, _ = Tensor(b[0]).triangular_solve(Tensor(L + 5 * np.triu(np.ones((3, 3)), 1)), upper=False, transpose=True,
                                         unitriangular=True)
    np.testing.assert_allclose(unit.T @ X.asnumpy(), b[0], rtol=1e-10)
    e = Tensor(np.array([0.0, 0.5, -0.5], np.float32))
    assert e.erfinv_() is e
    np.testing.assert_allclose(e.asnumpy(), [0.0, 0.4769362762, -0.4769362762], rtol=1e-6)


def test_tensor_random_methods_shapes_ranges_and_errors():
    ms.set_seed(1)
    p = Tensor(np.full((400,), 0.25, np.float32))
    draws = p.bernoulli().asnumpy()
    assert set(np.unique(draws)) <= {0.0, 1.0} and 0.15 < draws.mean() < 0.35
    with pytest.raises(TypeError):
        Tensor(np.ones(3, np.int32)).bernoulli()
    u = Tensor(np.zeros((1000,), np.float32)).uniform(2.0, 3.0).asnumpy()
    assert u.min() >= 2.0 and u.max() < 3.0 and abs(u.mean() - 2.5) < 0.05
    c = Tensor(np.zeros((2000,), np.float32)).cauchy(1.0, 2.0).asnumpy()
    assert abs(np.median(c) - 1.0) < 0.3
    ln = Tensor(np.zeros((2000,), np.float64)).log_normal(0.5, 0.25).asnumpy()
    assert ln.dtype == np.float64 and abs(np.log(ln).mean() - 0.5) < 0.03 and abs(np.log(ln).std() - 0.25) < 0.03
    logits = Tensor(np.array([[0.0, 50.0, 0.0], [50.0, 0.0, 0.0]], np.float32))
    np.testing.assert_array_equal(logits.random_categorical(4).asnumpy(), [[1] * 4, [0] * 4])


def test_tensor_to_and_state_queries():
    x = Tensor(np.ones(3, np.float32))
    assert x.to_("CPU") is x
    with pytest.raises(ValueError, match="Ascend"):
        x.to_("GPU")
    assert x.set_const_arg(True) is x and x.const_arg
    assert Tensor.convert_bytes_to_tensor(x.get_bytes(), (3,), ms.float32).asnumpy().tolist() == [1, 1, 1]
    assert x.data.asnumpy().tolist() == [1, 1, 1]
    assert x.data_sync(True) is None and x.flush_from_cache() is None


# ---- wrappers_surface33.py ---------------------------------------------------------------------------
def unfold_ref(x, k, s, r, same):
    """TensorFlow's extract_image_patches on NCHW, depth ordered (row, col, channel)."""
    n, c, h, w = x.shape
    span = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if same:
        out = [-(-h // s[0]), -(-w // s[1])]
        need = [max((out[i] - 1) * s[i] + span[i] - (h, w)[i], 0) for i in range(2)]
        x = np.pad(x, [(0, 0), (0, 0), (need[0] // 2, need[0] - need[0] // 2), (need[1] // 2, need[1] - need[1] // 2)])
    else:
        out = [(h - span[0]) // s[0] + 1, (w - span[1]) // s[1] + 1]
    y = np.zeros((n, k[0] * k[1] * c, out[0], out[1]))
    for oi in range(out[0]):
        for oj in range(out[1]):
            for i in range(k[0]):
                for j in range(k[1]):
                    for ch in range(c):
                        y[:, (i * k[1] + j) * c + ch, oi, oj] = x[:, ch, oi * s[0] + i * r[0], oj * s[1] + j * r[1]]
    return y


@pytest.mark.parametrize("k,s,r,pad", [((2, 2), (1, 1), (1, 1), "valid"), ((3, 2), (2, 1), (1, 2), "valid"),
                                       ((2, 3), (2, 2), (1, 1), "same")])
def test_unfold_matches_extract_image_patches(k, s, r, pad):
    x = RNG.random((2, 3, 6, 7))
    layer = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *r, 1], pad)
    want = unfold_ref(x, k, s, r, pad == "same")
    np.testing.assert_array_equal(layer(Tensor(x)).asnumpy(), want)
    # the Cell called in GRAPH_MODE (its patch loop slices at the loop index: it unrolls)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(layer(Tensor(x)).asnumpy(), want)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_unfold_differentiates_and_checks_arguments():
    check_grad(nn.Unfold([1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "same"), [RNG.random((1, 2, 3, 4))])
    with pytest.raises(ValueError, match="ksizes"):
        nn.Unfold([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="padding"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")


def test_layer_norm_ext_and_embedding_ext():
    x = RNG.random((2, 3, 4))
    ln = nn.LayerNormExt((3, 4), eps=1e-5, dtype=ms.float64)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10)
    assert [p.name for p in ln.trainable_params()] == ["weight", "bias"]
    check_grad(ln, [x])
    assert nn.LayerNormExt(4, elementwise_affine=False).trainable_params() == []
    emb = nn.EmbeddingExt(5, 3, padding_idx=1)
    w = emb.weight.asnumpy()
    assert (w[1] == 0).all()
    np.testing.assert_array_equal(emb(Tensor(np.array([[1, 4], [0, 2]], np.int32))).asnumpy(), w[[[1, 4], [0, 2]]])
    big = nn.EmbeddingExt(2, 2, max_norm=1.0, _weight=Tensor(np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)))
    np.testing.assert_allclose(big(Tensor(np.array([0, 1], np.int32))).asnumpy(), [[0.6, 0.8], [0.3, 0.4]],
                               rtol=1e-5)


def test_adaptive_pool3d_windows_and_gradient():
    x = RNG.random((1, 2, 5, 4, 7))
    got = nn.AdaptiveAvgPool3d((2, None, 3))(Tensor(x)).asnumpy()
    ref = np.zeros((1, 2, 2, 4, 3))
    for i in range(2):
        for k in range(3):
            d0, d1 = (i * 5) // 2, -(-(i + 1) * 5 // 2)
            w0, w1 = (k * 7) // 3, -(-(k + 1) * 7 // 3)
            ref[:, :, i, :, k] = x[:, :, d0:d1, :, w0:w1].mean((2, 4))
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    check_grad(nn.AdaptiveAvgPool3d((2, 2, 3)), [RNG.random((1, 1, 3, 3, 4))])
    with pytest.raises(ValueError, match="return_indices"):
        nn.AdaptiveMaxPool3d(2, return_indices=True)


def test_micro_batch_wrappers_sum_the_slices_and_check():
    net = nn.Dense(3, 2)
    x = RNG.random((6, 3)).astype(np.float32)
    full = net(Tensor(x)).asnumpy()
    ref = full[0:2] + full[2:4] + full[4:6]
    np.testing.assert_allclose(nn.PipelineCell(net, 3)(Tensor(x)).asnumpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(nn.GradAccumulationCell(net, 3)(Tensor(x)).asnumpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(nn.MicroBatchInterleaved(net, 2)(Tensor(x)).asnumpy(), full[:3] + full[3:],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="divisible"):
        nn.PipelineCell(net, 4)(Tensor(x))
    with pytest.raises(ValueError, match="large than 0"):
        nn.MicroBatchInterleaved(net, 0)
    with pytest.raises(KeyError, match="stage_config"):
        nn.PipelineCell(net, 2, stage_config={"nope": 1})


def test_ssim_gradient_and_identity():
    img = RNG.random((1, 2, 7, 7)).astype(np.float32)
    ssim = nn.SSIM(filter_size=3)
    np.testing.assert_allclose(ssim(Tensor(img), Tensor(img)).asnumpy(), [1.0], rtol=1e-5)
    other = RNG.random((1, 2, 7, 7)).astype(np.float32)
    eps = 1e-3
    w = RNG.random(img.shape).astype(np.float32)
    g = ms.grad(lambda a: ssim(a, Tensor(other)).sum())(Tensor(img)).asnumpy()
    fd = (ssim(Tensor(img + eps * w), Tensor(other)).asnumpy().sum()
          - ssim(Tensor(img - eps * w), Tensor(other)).asnumpy().sum()) / (2 * eps)
    assert (g * w).sum() == pytest.approx(fd, rel=2e-2)
    assert [n for n, _ in nn.MSSSIM(power_factors=(0.5, 0.5)).parameters_and_names()] == [
        "multi_convs_list.0.weight", "multi_convs_list.1.weight"]


def test_tensor_unique_matches_numpy():
    x = np.array([[3, 1, 1], [2, 3, 3]], np.int32)
    vals, inv, counts = Tensor(x).unique(return_inverse=True, return_counts=True)
    ref_vals, ref_inv, ref_counts = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(vals.asnumpy(), ref_vals)
    np.testing.assert_array_equal(inv.asnumpy(), ref_inv.reshape(x.shape))
    np.testing.assert_array_equal(counts.asnumpy(), ref_counts)
    assert vals.dtype == ms.int32 and inv.dtype == ms.int64
    rows = Tensor(np.array([[1, 2], [0, 5], [1, 2]], np.float32)).unique(dim=0)
    np.testing.assert_array_equal(rows.asnumpy(), [[0, 5], [1, 2]])


def test_pipeline_grad_reducer_scales_the_gradients():
    net = nn.Dense(2, 1)
    reducer = nn.PipelineGradReducer(net.trainable_params(), scale_sense=4.0)
    assert [n for n, _ in reducer.parameters_and_names()] == ["accu_grads.weight", "accu_grads.bias", "scale_sense"]
    grads = (Tensor(np.full((1, 2), 8.0, np.float32)), Tensor(np.array([4.0], np.float32)))
    out = reducer(grads)
    np.testing.assert_array_equal(out[0].asnumpy(), [[2.0, 2.0]])
    np.testing.assert_array_equal(out[1].asnumpy(), [1.0])


def ctc_brute_force(lp, target, blank=0):
    """-log of the summed probability of every path of lp (T, C) collapsing to target."""
    import itertools
    t_len, c = lp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_len):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or k != path[i - 1])]
        if collapsed == list(target):
            total += np.exp(sum(lp[i, k] for i, k in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def test_ctc_loss_matches_brute_force_and_differentiates():
    rng = np.random.default_rng(5)
    lp = np.log(rng.dirichlet(np.ones(4), size=(5, 2)))
    targets = np.array([[1, 1], [2, 3]], np.int32)
    lengths, tl = np.array([5, 4], np.int32), np.array([2, 1], np.int32)
    got = nn.CTCLoss(reduction="none")(Tensor(lp), Tensor(targets), Tensor(lengths), Tensor(tl)).asnumpy()
    ref = [ctc_brute_force(lp[:5, 0], [1, 1]), ctc_brute_force(lp[:4, 1], [2])]
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    zi = nn.CTCLoss(reduction="none", zero_infinity=True)(
        Tensor(lp), Tensor(np.array([[1, 1], [1, 1]], np.int32)), Tensor(np.array([2, 5], np.int32)),
        Tensor(np.array([2, 2], np.int32))).asnumpy()
    assert zi[0] == 0.0 and zi[1] == pytest.approx(ctc_brute_force(lp[:, 1], [1, 1]), rel=1e-10)
    ctc = nn.CTCLoss(reduction="sum")
    small = np.log(rng.dirichlet(np.ones(3), size=(4, 2)))
    check_grad(lambda x: ctc(x, Tensor(np.array([[1, 2], [2, 0]], np.int32)), Tensor(np.array([4, 3], np.int32)),
                             Tensor(np.array([2, 1], np.int32))), [small])


def test_fractional_max_pool_draws_its_samples_and_checks():
    ms.set_seed(3)
    x = Tensor(RNG.random((2, 3, 9, 9)).astype(np.float32))
    y = nn.FractionalMaxPool2d(2, output_ratio=0.5)(x)
    assert y.shape == (2, 3, 4, 4)
    # every output is the maximum of some 2x2 window of its channel
    xs, ys = x.asnumpy(), y.asnumpy()
    windows = np.lib.stride_tricks.sliding_window_view(xs, (2, 2), axis=(2, 3)).max((-1, -2))
    assert all(np.isin(ys[n, c], windows[n, c]).all() for n in range(2) for c in range(3))
    with pytest.raises(ValueError, match="can not be None"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="does not fit"):
        nn.FractionalMaxPool2d(3, output_size=(8, 8))(x)
