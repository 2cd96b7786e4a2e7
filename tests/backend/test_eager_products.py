"""PyNative's products on graph mode's product code (backend/eager_products.py, csrc/eager_gemm.c):
every float MatMul / BatchMatMul signature gives in PyNative exactly the compiled product's bits at
the same thread count (OpenBLAS's sums depend on how the product is cut, so this checks the cut is
graph mode's), agrees with NumPy in float64, and never runs NumPy's matmul."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import eager
from pycompile.ops import _table
from pycompile.ops import prims as P
from eager_install import kernels_installed

# (op, a shape, b shape, transpose_a, transpose_b, dtype): what each exercises
CASES = [
    (P.MatMul, (64, 400), (120, 400), False, True, np.float32),     # LeNet's fc1: small-product kernel
    (P.MatMul, (64, 120), (84, 120), False, True, np.float32),      # fc2: N = 84, BLAS by row blocks
    (P.MatMul, (64, 84), (10, 84), False, True, np.float32),        # fc3: the narrow small kernel
    (P.MatMul, (64, 120), (120, 400), False, False, np.float32),    # fc1's input gradient
    (P.MatMul, (64, 120), (64, 400), True, False, np.float32),      # fc1's weight gradient: A transposed
    (P.MatMul, (16, 512), (512, 2048), False, False, np.float32),   # few rows, long K: columns cut (BLAS)
    (P.MatMul, (64, 784), (784, 512), False, False, np.float32),    # columns cut on the small kernel
    (P.MatMul, (300, 37), (500, 300), True, True, np.float32),      # odd sizes, both transposed: BLAS
    (P.MatMul, (512, 64), (512, 1024), True, False, np.float32),    # 2 threads: columns (BLAS); 1: rows copied out
    (P.BatchMatMul, (3, 64, 96), (3, 64, 128), True, False, np.float32),    # A transposed, per matrix
    (P.MatMul, (3, 4), (4, 5), False, False, np.float32),           # too small to split
    (P.MatMul, (50, 70), (70, 33), False, False, np.float64),
    (P.MatMul, (20, 30), (40, 30), False, True, np.float16),        # widened to float32, rounded once
    (P.BatchMatMul, (4, 3, 17, 24), (24, 40), False, False, np.float32),    # b broadcast over the batch
    (P.BatchMatMul, (2, 1, 8, 16), (1, 5, 8, 16), False, True, np.float32),
    (P.BatchMatMul, (6, 33, 20), (6, 33, 70), True, False, np.float64),
]


def _inputs(i, case):
    _, ash, bsh, _, _, dt = case
    rng = np.random.default_rng(i)
    return rng.uniform(-1, 1, ash).astype(dt), rng.uniform(-1, 1, bsh).astype(dt)


def _attrs(case):
    return {"transpose_a": case[3], "transpose_b": case[4]}


def _all(*xs):
    return tuple(ops.apply(c[0], [xs[2 * i], xs[2 * i + 1]], _attrs(c)) for i, c in enumerate(CASES))


@pytest.mark.parametrize("threads", [1, 2])
def test_pynative_products_are_the_compiled_products(threads):
    ms.set_context(runtime_num_threads=threads)
    arrays = [a for i, c in enumerate(CASES) for a in _inputs(i, c)]
    compiled = ms.jit(_all)(*[Tensor(a) for a in arrays])
    with kernels_installed():
        for i, case in enumerate(CASES):
            a, b = arrays[2 * i], arrays[2 * i + 1]
            _table._PLANS.clear()
            got = _table.apply(case[0], [Tensor(a), Tensor(b)], _attrs(case))
            plan = next(v for k, v in _table._PLANS.items() if k[0] is case[0])
            assert isinstance(getattr(plan, "kernel", None), eager._Final), f"case {i} ran NumPy"
            want = compiled[i].asnumpy()
            assert got.dtype == compiled[i].dtype and got.shape == compiled[i].shape
            assert np.array_equal(got.asnumpy(), want), \
                f"case {i}: max |eager - compiled| = {np.abs(got.asnumpy() - want).max()}"
            ref = np.matmul(np.swapaxes(a, -1, -2) if case[3] else a,
                            np.swapaxes(b, -1, -2) if case[4] else b, dtype=np.float64)
            k = a.shape[-2] if case[3] else a.shape[-1]
            tol = 2e-3 if a.dtype == np.float16 else 1e-5 * max(1, k // 64)     # float32 rounding grows with K
            np.testing.assert_allclose(got.asnumpy().astype(np.float64), ref, rtol=tol, atol=tol)


def test_products_outside_the_kernels_run_numpy():
    """Integer and empty products have no kernel here: NumPy's, with its results."""
    with kernels_installed():
        a = np.arange(12, dtype=np.int32).reshape(3, 4)
        got = _table.apply(P.MatMul, [Tensor(a), Tensor(a.T.copy())], {})
        np.testing.assert_array_equal(got.asnumpy(), a @ a.T)
        e = np.zeros((0, 4), np.float32)
        got = _table.apply(P.MatMul, [Tensor(e), Tensor(np.ones((4, 3), np.float32))], {})
        assert got.shape == (0, 3)


def _mm(x, y):
    return ops.matmul(x, y)


def test_non_finite_values_propagate_as_compiled():
    a = np.array([[np.inf, 1.0], [np.nan, 2.0], [2e38, 2e38]], np.float32)
    b = np.array([[1.0, 0.0], [2.0, 1e38]], np.float32)
    with kernels_installed():
        got = _table.apply(P.MatMul, [Tensor(a), Tensor(b)], {}).asnumpy()
    want = ms.jit(_mm)(Tensor(a), Tensor(b)).asnumpy()
    assert np.array_equal(got, want, equal_nan=True)
    assert np.isinf(got[0, 0]) and np.isnan(got[1]).all() and np.isinf(got[2]).all()


def test_without_the_blas_library_products_run_numpy(monkeypatch):
    from pycompile.backend import eager_products

    def missing():
        raise OSError("libscipy_openblas.so: cannot open shared object file")
    monkeypatch.setattr(eager_products, "_blas", missing)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with kernels_installed(eager.EagerKernels(generic=True)):
        got = _table.apply(P.MatMul, [Tensor(a), Tensor(a.T.copy())], {})
        plan = next(v for k, v in _table._PLANS.items() if k[0] is P.MatMul)
    assert getattr(plan, "kernel", None) is None
    np.testing.assert_array_equal(got.asnumpy(), a @ a.T)


def test_products_from_two_threads_at_once():
    """The runtime's pool runs one job at a time; a second thread's product runs its units itself."""
    import threading
    rng = np.random.default_rng(7)
    pairs = [(rng.uniform(-1, 1, (96, 256)).astype(np.float32), rng.uniform(-1, 1, (256, 320)).astype(np.float32))
             for _ in range(2)]
    results, errors = {}, []
    with kernels_installed():
        want = [_table.apply(P.MatMul, [Tensor(a), Tensor(b)], {}).asnumpy() for a, b in pairs]

        def work(k):
            try:
                a, b = Tensor(pairs[k][0]), Tensor(pairs[k][1])
                results[k] = [_table.apply(P.MatMul, [a, b], {}).asnumpy() for _ in range(60)]
            except Exception as e:      # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    for k in range(2):
        assert all(np.array_equal(r, want[k]) for r in results[k])

