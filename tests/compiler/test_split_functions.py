"""Very long generated functions are split into parts (backend/c/split.py) so the C compiler's
time stays linear in the graph's size (issue 20, defect 7: a 10,000-op graph as one function took
212 s in cc, growing faster than the op count; bench/large.py measures it per 1,000 ops).

The locals that cross a cut travel through a frame struct; to exercise every kind of cut these
tests split after nearly every statement: random control-flow programs (loop-carried values,
if results, early exits, prints), fused dataflow programs and a lazy_inline subgraph must give
PyNative's results."""
import pathlib

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, lazy_inline, nn, ops
from pycompile.backend.c import split

import test_fuzz_control_flow as cf
import test_fuzz_fusion as ff


@pytest.fixture
def split_everything(monkeypatch):
    monkeypatch.setattr(split, "SPLIT_LINES", 8)
    monkeypatch.setattr(split, "PART_LINES", 3)


@pytest.mark.parametrize("seed", [34, 35, 3, 12, 22, 71])
def test_control_flow_programs_split_after_every_statement(seed, tmp_path, split_everything):
    cf.check_program(seed, tmp_path)


@pytest.mark.parametrize("seed", [1, 5, 9])
def test_fused_programs_split_after_every_statement(seed, tmp_path, split_everything):
    ff.run_case(seed, tmp_path)


class Block(nn.Cell):
    @lazy_inline
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(8, 8)

    def construct(self, h):
        for _ in range(3):
            h = ops.tanh(self.dense(h)) + h
            if h.sum() > 100:
                h = h * 0.5
        return h


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block() for _ in range(3)])

    def construct(self, h):
        for b in self.blocks:
            h = b(h) * 1.5
        return h


def test_split_subgraph_and_entry_match_pynative(split_everything):
    net = Stack()
    x = Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    source = ms.inspect(net, x).c_source
    assert "pc_entry_part1(" in source and "struct pc_entry_frame" in source
    assert "static int sub0_Block_construct_part1(" in source


def test_long_program_is_split_into_parts_the_entry_calls(tmp_path, monkeypatch):
    monkeypatch.setattr(split, "SPLIT_LINES", 100)
    monkeypatch.setattr(split, "PART_LINES", 60)
    lines = ["from pycompile import ops", "", "", "def long(x, w):", "    h = x"]
    for k in range(80):
        lines.append(["    h = ops.matmul(h, w) * 0.5", "    h = ops.softmax(h) + x",
                      "    h = h - ops.mean(h, -1, True)", "    h = ops.tanh(h) + ops.cast(h > 0, ms.float32)"][k % 4])
    lines.insert(1, "import pycompile as ms")
    path = tmp_path / "long_program.py"
    path.write_text("\n".join(lines + ["    return h", ""]))
    fn = ff_load(path)
    rng = np.random.default_rng(0)
    x, w = Tensor(rng.standard_normal((8, 8)).astype(np.float32)), Tensor(rng.standard_normal((8, 8)).astype(np.float32))
    np.testing.assert_allclose(ms.jit(fn)(x, w).asnumpy(), fn(x, w).asnumpy(), rtol=1e-5, atol=1e-5)
    source = ms.inspect(fn, x, w).c_source
    n_parts = source.count("static int pc_entry_part")
    assert n_parts >= 3
    body = source[source.index("int pc_entry(void **args)"):]
    assert len(body.splitlines()) < split.PART_LINES           # the entry only calls its parts


def ff_load(path: pathlib.Path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.long


def _bare_blocks(x):
    """Two DFTs and a sort: their templates open a bare `{` at the function's own indentation and
    declare their scratch inside it (the twiddle table `pc_tw`), twice in one function."""
    z = ops.Complex()(x, x * 0.5)
    a = ops.ComplexAbs()(ops.fft(z))
    b = ops.ComplexAbs()(ops.fft(z * 2))
    return ops.sort(a + b)[0] * 3


def test_split_inside_templates_that_open_bare_blocks(split_everything):
    # a cut inside such a block, or its scratch taken for a top-level local, was a C compile
    # error (a full-suite run after a template grew: 'invalid storage class for function')
    x = Tensor(np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32))
    want = _bare_blocks(x).asnumpy()
    f = ms.jit(_bare_blocks)
    np.testing.assert_allclose(f(x).asnumpy(), want, rtol=1e-5, atol=1e-5)
    assert "pc_entry_part1(" in ms.inspect(f, x).c_source
