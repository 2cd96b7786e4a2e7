"""vmap: every batch rule against a per-example loop written with NumPy."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops, vmap
from pycompile.ops import OPS
from pycompile.ops.batching import RULES

rng = np.random.default_rng(7)
X = rng.standard_normal((5, 3, 4)).astype(np.float32)
W = rng.standard_normal((4, 2)).astype(np.float32)
IDX = np.array([2, 0, 1], np.int64)


def softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layernorm(a):
    m = a.mean(-1, keepdims=True)
    v = ((a - m) ** 2).mean(-1, keepdims=True)
    return (a - m) / np.sqrt(v + 1e-7)


CASES = [
    # (name, fn on one example, numpy of one example)
    ("elementwise", lambda x: ops.hardswish(x) * 2 + 1, lambda a: a * np.clip(a + 3, 0, 6) / 6 * 2 + 1),
    ("broadcast unbatched", lambda x: x + Tensor(np.arange(4, dtype=np.float32)), lambda a: a + np.arange(4)),
    ("rank padding", lambda x: x[0] + Tensor(np.ones((2, 1, 4), np.float32)), lambda a: a[0] + np.ones((2, 1, 4))),
    ("select", lambda x: ops.select(x > 0, x, 0.0), lambda a: np.where(a > 0, a, 0)),
    ("reduce axis", lambda x: x.sum(1), lambda a: a.sum(1)),
    ("reduce all", lambda x: ops.mean(x), lambda a: a.mean()),
    ("reduce keep", lambda x: ops.amax(x, -1, True), lambda a: a.max(-1, keepdims=True)),
    ("argmax", lambda x: ops.argmax(x, 1), lambda a: a.argmax(1)),
    ("argmax all", lambda x: ops.argmax(x), lambda a: a.argmax()),
    ("softmax", lambda x: ops.softmax(x, 0), lambda a: softmax(a, 0)),
    ("layernorm", lambda x: ops.layer_norm(x, Tensor(np.ones(4, np.float32)), Tensor(np.zeros(4, np.float32))),
     layernorm),
    ("transpose", lambda x: x.T, lambda a: a.T),
    ("reshape", lambda x: x.reshape(-1), lambda a: a.reshape(-1)),
    ("slice", lambda x: x[1:, ::-2], lambda a: a[1:, ::-2]),
    ("concat", lambda x: ops.concat((x, x * 2), 1), lambda a: np.concatenate((a, a * 2), 1)),
    ("stack", lambda x: ops.stack((x, Tensor(np.zeros((3, 4), np.float32)))), lambda a: np.stack((a, np.zeros((3, 4))))),
    ("gather", lambda x: ops.gather(x, Tensor(IDX), 0), lambda a: a[IDX]),
    ("matmul", lambda x: ops.matmul(x, Tensor(W)), lambda a: a @ W),
    ("broadcast_to", lambda x: ops.broadcast_to(x[0], (2, 4)), lambda a: np.broadcast_to(a[0], (2, 4))),
    ("addn", lambda x: ops.addn((x, x, x)), lambda a: 3 * a),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_rule_matches_per_example_loop(name, fn, ref):
    out = vmap(fn)(Tensor(X))
    expected = np.stack([ref(a) for a in X])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)


def test_every_op_names_a_known_rule():
    for name, op in OPS.items():
        assert op.batch in RULES, f"op {name} has batch rule {op.batch!r}, which batching.RULES lacks"


def test_in_axes_out_axes_and_unbatched_args():
    x = rng.standard_normal((3, 6)).astype(np.float32)
    y = rng.standard_normal(3).astype(np.float32)
    out = vmap(lambda a, b: a * b, in_axes=(1, None), out_axes=1)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(out.asnumpy(), x * y[:, None])
    # an output that does not depend on the batched input is repeated along the batch
    out = vmap(lambda a, b: b + 1, in_axes=(0, None))(Tensor(x), Tensor(y))
    np.testing.assert_allclose(out.asnumpy(), np.broadcast_to(y + 1, (3, 3)))
    outs = vmap(lambda a: (a.sum(), a * 2))(Tensor(x))
    np.testing.assert_allclose(outs[0].asnumpy(), x.sum(1), rtol=1e-5)
    np.testing.assert_allclose(outs[1].asnumpy(), x * 2)


def test_vmap_errors():
    with pytest.raises(ValueError, match="one batch size"):
        vmap(lambda a, b: a + b)(Tensor(np.ones((2, 3))), Tensor(np.ones((3, 3))))
    with pytest.raises(ValueError, match="in_axes has 1 entries"):
        vmap(lambda a, b: a + b, in_axes=(0,))(Tensor(np.ones(2)), Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="control flow"):
        vmap(lambda a: a if a.sum() > 0 else -a)(Tensor(np.ones((2, 2))))


def test_spec_vmap_sample_and_vmap_inside_jit():
    def hswish_func(x):
        return ops.HSwish()(x)

    x_np = (rng.standard_normal((100, 2)) * 100).astype(np.float32)
    x = ops.sub(ms.Tensor(x_np), 0)
    np.testing.assert_allclose(vmap(hswish_func, in_axes=(0,))(x).asnumpy(),
                               x_np * np.clip(x_np + 3, 0, 6) / 6, rtol=1e-6)
    w = rng.standard_normal((2, 3)).astype(np.float32)

    @ms.jit
    def f(xs, w):
        return vmap(lambda r: ops.matmul(r, w).sum() + ops.softmax(r).max())(xs)

    expected = np.array([(r @ w).sum() + softmax(r).max() for r in x_np])
    np.testing.assert_allclose(f(x, Tensor(w)).asnumpy(), expected, rtol=1e-5, atol=1e-4)


class _Block(ms.nn.Cell):
    """A Cell with a Parameter, a sub-Cell and Python control flow on a shape."""

    def __init__(self):
        super().__init__()
        self.dense = ms.nn.Dense(3, 4)
        self.scale = ms.Parameter(Tensor(np.array([1.0, -2.0, 0.5, 3.0], np.float32)), name="scale")

    def construct(self, x):
        h = self.dense(x)
        if x.shape[-1] == 3:          # known when tracing: the example's shape
            h = ops.relu(h)
        return h * self.scale


def _block_reference(net, x):
    w, b, s = net.dense.weight.asnumpy(), net.dense.bias.asnumpy(), net.scale.asnumpy()
    return np.maximum(x @ w.T + b, 0) * s


def test_vmap_of_a_cell_eagerly_and_inside_jit():
    """vmap(cell) maps the Cell's construct over the batch axis: eagerly, construct runs on the
    batched values; inside @jit the frontend walks it, and the ops reach the batching trace."""
    net = _Block()
    x = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    want = _block_reference(net, x)
    np.testing.assert_allclose(vmap(net)(Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(vmap(net, in_axes=1)(Tensor(x.T.copy())).asnumpy(), want, rtol=1e-6, atol=1e-6)

    @ms.jit
    def mapped(v):
        return vmap(net)(v) + 1.0

    np.testing.assert_allclose(mapped(Tensor(x)).asnumpy(), want + 1.0, rtol=1e-6, atol=1e-6)
