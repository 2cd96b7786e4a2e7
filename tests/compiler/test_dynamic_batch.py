"""A run-time batch size (backend/dynamic.py): `jit(dynamic=1)`, an input_signature or
Cell.set_inputs Tensor with a None leading dimension. One compile serves every batch size (the
compile log shows one compile line); results equal NumPy / PyNative at each size, including 1
and sizes above the compiler's samples. Graphs the method cannot cover compile per size."""
import sys
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.backend import dynamic

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import w5  # noqa: E402  (the W4 MLP with its loss, and a NumPy backward)


@pytest.fixture(autouse=True)
def _log_compiles():
    ms.set_context(log="compiles")


def _compile_lines(err: str) -> list:
    return [ln for ln in err.splitlines() if ln.startswith("[pycompile] compiled ")]


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layers = nn.SequentialCell(nn.Dense(784, 64), nn.ReLU(), nn.Dense(64, 10))

    def construct(self, x):
        return self.layers(self.flatten(x))


def test_dynamic_1_compiles_once_for_three_batch_sizes(capsys):
    net = MLP()
    w1, b1 = net.layers[0].weight.asnumpy(), net.layers[0].bias.asnumpy()
    w2, b2 = net.layers[2].weight.asnumpy(), net.layers[2].bias.asnumpy()
    f = ms.jit(lambda x: net(x), dynamic=1)
    for b in (64, 17, 1, 1000, 64):
        x = np.random.default_rng(b).standard_normal((b, 1, 28, 28)).astype(np.float32)
        want = np.maximum(x.reshape(b, -1) @ w1.T + b1, 0) @ w2.T + b2
        np.testing.assert_allclose(f(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    lines = _compile_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "Tensor[Float32, (None, 1, 28, 28)]" in lines[0]


class Heads(nn.Cell):
    """Per-sample rows, last-axis and whole-batch reductions, a per-sample column, a batch max."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(20, 30)
        self.ln = nn.LayerNorm((30,))

    def construct(self, x, y):
        h = self.ln(ops.tanh(self.fc(x))) + y
        return ops.softmax(h, -1), ops.sum(h, -1), ops.mean(h * h), h[:, 0] * 2, ops.amax(h, 0)


def test_set_inputs_with_none_compiles_once_and_matches_pynative(capsys):
    net = Heads()
    net.set_inputs(Tensor(shape=[None, 20], dtype=ms.float32), Tensor(shape=[None, 30], dtype=ms.float32))
    wants, gots = [], []
    for b in (5, 1, 33):
        rng = np.random.default_rng(b)
        x, y = (Tensor(rng.standard_normal((b, n)).astype(np.float32)) for n in (20, 30))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        wants.append([o.asnumpy() for o in net(x, y)])
        ms.set_context(mode=ms.GRAPH_MODE)
        gots.append([o.asnumpy() for o in net(x, y)])
    for got, want in zip(gots, wants):
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5)
    # PyNative / GRAPH_MODE switches are set_context calls: one compile per GRAPH_MODE stretch
    lines = _compile_lines(capsys.readouterr().err)
    assert len(lines) == 3 and all("(x: Tensor[Float32, (None, 20)], y: Tensor[Float32, (None, 30)])" in ln
                                   for ln in lines)


def test_training_gradients_for_a_smaller_last_batch(capsys):
    """The gradient of a batch-mean loss scales by 1 / B: one compile serves 64, 64, 17, 5."""
    ms.set_seed(0)
    net = w5.MLPLoss()
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())

    @ms.jit(dynamic=1)
    def step(x, y):
        return grad_fn(x, y)

    ref = w5.numpy_value_and_grad(w5._weights(net))
    for b in (64, 64, 17, 5):
        rng = np.random.default_rng(b)
        x = rng.standard_normal((b, 1, 28, 28)).astype(np.float32)
        y = rng.integers(0, 10, b).astype(np.int32)
        loss, grads = step(Tensor(x), Tensor(y))
        want_loss, want_grads = ref(x, y)
        np.testing.assert_allclose(float(loss.asnumpy()), want_loss, rtol=1e-5)
        for g, w in zip(grads, want_grads):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-6)
    assert len(_compile_lines(capsys.readouterr().err)) == 1


def test_a_graph_that_depends_on_the_batch_size_compiles_per_size(capsys):
    @ms.jit(input_signature=(Tensor(shape=[None, 8], dtype=ms.float32),))
    def halves(x):
        # the Python value of the batch size decides the graph
        return x * 2 if x.shape[0] > 400 else x - 1

    for b in (3, 500):
        x = np.ones((b, 8), np.float32)
        np.testing.assert_array_equal(halves(Tensor(x)).asnumpy(), x * 2 if b > 400 else x - 1)
    err = capsys.readouterr().err
    assert "halves (test_dynamic_batch.py:" in err and "cannot be compiled once for every batch size" in err
    assert len(_compile_lines(err)) == 2


class _Len(nn.Cell):
    def construct(self, a):
        return len(a), a.shape[0], a + 1


def test_an_output_python_value_of_the_batch_size_compiles_per_size(capsys):
    """len(x) / x.shape[0] returned as Python numbers were fixed at the first sample size (320)
    for every batch (MindSpore's test_array_len_op.py)."""
    net = _Len()
    net.set_inputs(Tensor(shape=[None, None], dtype=ms.int32))
    ms.set_context(mode=ms.GRAPH_MODE)
    for b in (2, 5):
        n, rows, out = net(Tensor(np.ones((b, 2), np.int32)))
        assert (n, rows) == (b, b) and out.shape == (b, 2)
    assert "cannot be compiled once for every batch size" in capsys.readouterr().err


def scale_by_batch(x):
    return x * x.shape[0] - x.shape[0]


def cast_batch(x):
    return x + ops.cast(x.shape[0], ms.float32)


def test_a_python_number_of_the_batch_size_in_the_graph_compiles_once(capsys):
    """`x * x.shape[0]`: the number is an int64 constant of the graph, INT64_C(320) at a sample;
    merged as INT64_C((pc_B)) it did not compile (INT64_C pastes a suffix onto its argument), and
    each batch size compiled separately after a warning that called it a pycompile bug."""
    f = ms.jit(scale_by_batch, dynamic=1)
    for b in (3, 64, 1):
        x = np.random.default_rng(b).standard_normal((b, 4)).astype(np.float32)
        np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), x * np.float32(b) - np.float32(b))
    err = capsys.readouterr().err
    assert "cannot be compiled once" not in err
    lines = _compile_lines(err)
    assert len(lines) == 1 and "(None, 4)" in lines[0]
    # the batch size as a constant array of the graph: compiled per size, the reason said (it was
    # C that did not compile, "a pycompile bug")
    g = ms.jit(cast_batch, dynamic=1)
    for b in (3, 5):
        x = np.ones((b, 2), np.float32)
        np.testing.assert_array_equal(g(Tensor(x)).asnumpy(), x + b)
    err = capsys.readouterr().err
    assert "a constant of the graph holds the batch size" in err and "pycompile bug" not in err


def test_merge_of_sample_sources():
    s = dynamic.SAMPLES
    src = ["static const pc_api *RT;\nfor (long i = 0; i < {n}L; ++i) a[i] = b[i] * {inv}f + {k};".format(
        n=4 * b, inv=repr(-1 / b), k=7) for b in s]
    merged = dynamic.merge_sources(src)
    assert "i < (4L * pc_B)L" not in merged and "i < (4L * pc_B);" in merged
    assert "* -((float)(1.0) / (float)pc_B) + 7;" in merged
    assert "void pc_set_dim(long b)" in merged
    with pytest.raises(dynamic.DynamicUnsupported, match="not proportional"):
        dynamic.merge_sources(["static const pc_api *RT; x = {};".format(b * b) for b in s])
    assert dynamic._affine([3 + 5 * b for b in s]) == (3, 5)
    assert dynamic._affine([(b + 63) // 10 for b in s]) is None


def test_the_check_size_rejects_a_number_affine_only_at_the_samples():
    """30 * B rounded down to 16 is 30 * B at every multiple of 64, and not at B = 1: the program
    rendered at the prime CHECK size shows it (a blocked sum's bound did this: garbage at B = 1)."""
    def render(b, rounded):
        n = 30 * b
        return (f"static const pc_api *RT;\nfor (long q = 0; q < {n - n % 16 if rounded else n}L; q += 16) "
                f"s += a[q]; m = s * {1 / n!r};")
    good = [render(b, False) for b in dynamic.SAMPLES]
    dynamic.merge_sources(good)
    dynamic.check_sample(good, render(dynamic.CHECK, False))
    bad = [render(b, True) for b in dynamic.SAMPLES]
    assert dynamic.merge_sources(bad) == dynamic.merge_sources(good)
    with pytest.raises(dynamic.DynamicUnsupported, match=f"at batch size {dynamic.CHECK} differs"):
        dynamic.check_sample(bad, render(dynamic.CHECK, True))


def test_lazy_inline_blocks_share_one_subgraph_at_any_batch_size(capsys):
    """examples/gpt_blocks.py: the shared block's scratch memory follows the batch size too."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    import gpt_blocks
    import workloads
    ms.set_seed(0)
    model = gpt_blocks.GPT(num_layers=2)
    ref = workloads.gpt_forward(np, workloads.gpt_weights(model))
    f = ms.jit(lambda x: model(x), dynamic=1)
    for b in (4, 1, 3):
        x = np.random.default_rng(b).standard_normal((b, 64, 128)).astype(np.float32)
        np.testing.assert_allclose(f(Tensor(x)).asnumpy(), ref(x), rtol=2e-4, atol=2e-5)
    lines = _compile_lines(capsys.readouterr().err)
    assert len(lines) == 1
    assert f.compiled(Tensor(np.zeros((2, 64, 128), np.float32))).c_source.count("static int sub") == 1
