"""Gradients where the differentiated tensor is also read another way: a closure reading it, the
same tensor at two positions. Shared by record_grad_alias.py (MindSpore) and
tests/autodiff/test_core32c_grad_alias.py (pycompile); `ms` is either framework's module."""
import numpy as np


def input_array():
    return np.arange(16, dtype=np.float32).reshape(4, 4) - 5.5


def cases(ms):
    def closure(x):
        return ms.grad(lambda a: (a[1::2, 1:] * x[0:2, 1:]).sum())(x)

    def two_positions(x):
        return ms.grad(lambda a, b: (a * b * 3).sum(), (0, 1))(x, x)

    def closure_square(x):
        return ms.grad(lambda a: (a * x).sum() + (a * a).sum())(x)
    return {"closure": closure, "two_positions": two_positions, "closure_square": closure_square}
