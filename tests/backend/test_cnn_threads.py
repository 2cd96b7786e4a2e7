"""The CNN kernels on the runtime's thread pool (csrc/pool.c): every kernel that splits work over
threads - and the ones with per-thread scratch (im2col columns indexed by the pool's thread
index, backprop-filter's per-task partial sums) or static tables (pooling windows, resampling) -
run at sizes above their parallel thresholds at 3 threads (backend/c/ops/conv.py PARALLEL_FLOPS and
PARALLEL_ELEMENTS: work per thread) with 1, 2 and 3 threads and give PyNative's values (NumPy), and the same values
whichever thread count runs them. Random ops draw the same numbers on any thread count.
Timings belong in bench/ (W9 / W10), not here."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile._rt import ffi, lib
from pycompile.common import context
from pycompile.ops import OPS

from pycompile.backend.c.ops.conv import PARALLEL_ELEMENTS, PARALLEL_FLOPS

F32 = np.float32


def _a(seed, *shape):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(F32)


INPUTS = {
    "x": _a(1, 4, 16, 32, 32), "w": _a(2, 32, 16, 3, 3),         # 3x3 tiles kernel, padded: 37.7 MFLOP
    "xd": _a(3, 16, 3, 64, 64), "wd": _a(4, 6, 3, 5, 5),          # 6 output channels: the rows kernel, 51.8 MFLOP
    "x3": _a(5, 2, 8, 16, 16, 16), "w3": _a(6, 16, 8, 3, 3, 3),    # 3-D: im2col + BLAS with per-thread columns
    "xs": _a(7, 8, 32, 32, 32), "ws": _a(8, 32, 32, 3, 3),         # stride 2: col2im backprop input
    "z": _a(9, 8, 32, 64, 64),                                     # pooling / statistics / resampling: 1M elements
}


def _flops(n, k, out_px, cg, rs):
    return 2 * n * k * out_px * cg * rs


def test_sizes_are_above_the_parallel_thresholds():
    assert _flops(4, 32, 32 * 32, 16, 9) > 3 * PARALLEL_FLOPS
    assert _flops(16, 6, 60 * 60, 3, 25) > 3 * PARALLEL_FLOPS
    assert _flops(2, 16, 16 ** 3, 8, 27) > 3 * PARALLEL_FLOPS
    assert _flops(8, 32, 16 * 16, 32, 9) > 3 * PARALLEL_FLOPS
    assert INPUTS["z"].size > 3 * PARALLEL_ELEMENTS


def forward(x, w, xd, wd, x3, w3, z):
    a = ops.relu(ops.conv2d(x, w, pad_mode="pad", padding=1) + 0.5)          # tiles with an epilogue
    b = ops.conv2d(xd, wd)                                                   # rows
    c = ops.conv3d(x3, w3, pad_mode="pad", padding=1)                        # im2col + sgemm
    p = ops.max_pool2d(z, 3, 2, 1)                                           # window tables
    q = ops.avg_pool2d(z, 3, 2, 1, ceil_mode=True, count_include_pad=False)  # divisor tables
    s = ops.apply(OPS["BatchNormStats"], [z], {})
    r = ops.interpolate(z, size=(96, 80), mode="bilinear", align_corners=False)
    return a, b, c, p, q, s, r


def _loss(x, w, xs, ws, z, gy, gys, gz):
    a = ops.conv2d(x, w, pad_mode="pad", padding=1)                          # stride 1: direct backprop input
    b = ops.conv2d(xs, ws, stride=2, pad_mode="pad", padding=1)              # stride 2: col2im backprop input
    p = ops.max_pool2d(z, 2, 2) + ops.avg_pool2d(z, 3, 2, 1)
    r = ops.interpolate(z, size=(96, 80), mode="bilinear", align_corners=False)
    return (a * gy).sum() + (b * gys).sum() + (p * gz).sum() + (r * r).sum() * 0.01


backward = ms.grad(_loss, grad_position=(0, 1, 2, 3, 4))


def draws(z):
    return ops.dropout(z, 0.3), ops.uniform((700001,), Tensor(-1.0), Tensor(2.0)), ops.randn(300, 2000)


def _grad_inputs():
    g = {"gy": _a(10, 4, 32, 32, 32), "gys": _a(11, 8, 32, 16, 16), "gz": _a(12, 8, 32, 32, 32)}
    return [INPUTS[k] for k in ("x", "w", "xs", "ws", "z")] + [g[k] for k in ("gy", "gys", "gz")]


def _stats():
    out = ffi.new("long[2]")
    lib.pc_pool_stats(out, 2)
    return list(out)


def _run_threads(fn, args, counts=(1, 2, 3)):
    """fn(*args) as numpy arrays for each thread count, and whether the pool split loops."""
    results, split = {}, {}
    try:
        for n in counts:
            lib.pc_set_num_threads(n)
            before = _stats()
            results[n] = [o.asnumpy() for o in fn(*args)]
            after = _stats()
            split[n] = after[0] > before[0] or after[1] > before[1]     # ran on the pool (or backed off)
    finally:
        lib.pc_set_num_threads(context.num_threads())
    return results, split


def _check(results, eager, rtol, atol, exact):
    for n, outs in results.items():
        assert len(outs) == len(eager)
        for i, (o, e) in enumerate(zip(outs, eager)):
            np.testing.assert_allclose(o, e, rtol=rtol, atol=atol, err_msg=f"output {i}, {n} threads")
            if i in exact:          # each element computed by one thread, the same way on any count
                np.testing.assert_array_equal(o, results[1][i], err_msg=f"output {i}, {n} threads vs 1")


def test_forward_kernels_on_1_2_3_threads():
    args = [Tensor(INPUTS[k]) for k in ("x", "w", "xd", "wd", "x3", "w3", "z")]
    eager = [o.asnumpy() for o in forward(*args)]
    results, split = _run_threads(ms.jit(forward), args)
    assert split == {1: False, 2: True, 3: True}
    _check(results, eager, rtol=2e-4, atol=2e-4, exact={0, 1, 3, 4, 5, 6})


def test_gradient_kernels_on_1_2_3_threads():
    """Backprop input (direct and col2im with per-thread columns), backprop filter (one partial
    dW per task, added after: sums in another order per thread count), pooling and resampling
    gradients."""
    args = [Tensor(v) for v in _grad_inputs()]
    eager = [o.asnumpy() for o in backward(*args)]
    results, split = _run_threads(ms.jit(backward), args)
    assert split == {1: False, 2: True, 3: True}
    _check(results, eager, rtol=5e-4, atol=5e-4, exact={0, 2, 4})


def test_random_draws_do_not_depend_on_the_thread_count():
    z = Tensor(INPUTS["z"])
    ms.set_seed(3)
    eager = [o.asnumpy() for o in draws(z)]
    f = ms.jit(draws)
    results = {}
    try:
        for n in (1, 2, 3):
            lib.pc_set_num_threads(n)
            ms.set_seed(3)
            results[n] = [o.asnumpy() for o in f(z)]
    finally:
        lib.pc_set_num_threads(context.num_threads())
    for n, outs in results.items():
        np.testing.assert_array_equal(outs[0], eager[0], err_msg=f"dropout mask, {n} threads")
        np.testing.assert_allclose(outs[1], eager[1], rtol=1e-6, err_msg=f"uniform, {n} threads")
        np.testing.assert_allclose(outs[2], eager[2], rtol=1e-5, atol=1e-6, err_msg=f"normal, {n} threads")
        for o, one in zip(outs, results[1]):
            np.testing.assert_array_equal(o, one)
    assert 0.28 < (results[2][0] == 0).mean() < 0.32


def test_training_step_of_a_conv_net_on_threads():
    """A conv + BatchNorm (training) + pool + dense TrainOneStepCell compiled once and run from
    the same start with 1, 2 and 3 threads: the same weights, moments and moving statistics to
    float rounding (backprop filter sums its tasks' partial gradients in another order)."""
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Conv2d(16, 32, 3, pad_mode="pad", padding=1, weight_init="he_uniform"),
                             nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Dense(32 * 16 * 16, 10, weight_init="he_uniform")])
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    f = ms.jit(step.construct)
    params = list(step.get_parameters())
    start = [p.asnumpy().copy() for p in params]
    x, y = Tensor(INPUTS["x"]), Tensor(np.arange(4, dtype=np.int32) % 10)
    after = {}
    try:
        for t in (1, 2, 3):
            lib.pc_set_num_threads(t)
            for p, v in zip(params, start):
                p.set_data(Tensor(v))
            losses = [float(f(x, y).asnumpy()) for _ in range(2)]
            after[t] = (losses, [p.asnumpy().copy() for p in params])
    finally:
        lib.pc_set_num_threads(context.num_threads())
    for t in (2, 3):
        np.testing.assert_allclose(after[t][0], after[1][0], rtol=1e-5)
        for p, a, b in zip(params, after[1][1], after[t][1]):
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5, err_msg=f"{p.name}, {t} threads")
