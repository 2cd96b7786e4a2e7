"""The IR printer: MindSpore's text form, deterministic, and what save_graphs writes."""
import os
import re

import numpy as np

from frontend_helpers import t

import pycompile as ms
from pycompile import Parameter, Tensor, nn


def simple(x, y):
    z = x * y + 1
    return z, x - 2


def test_text_form_of_a_graph():
    x = Tensor(np.ones((2, 3), np.float32))
    y = Tensor(np.ones((2, 3), np.float32))
    text = ms.inspect(simple, x, y).ir_before
    lines = text.splitlines()
    assert lines[0] == "# IR entry: @simple"
    assert lines[1] == "# Total subgraphs: 1"
    assert lines[2] == "# Total params: 2"
    assert lines[3] == "# Params:"
    assert lines[4] == "%para1_x : <Tensor[Float32], (2, 3)>"
    assert lines[5] == "%para2_y : <Tensor[Float32], (2, 3)>"
    assert "subgraph @simple() {" in lines
    body = lines[lines.index("subgraph @simple() {") + 1:]
    assert body[0] == "  %0 = Mul(%para1_x, %para2_y)"
    assert body[1].startswith("  %1 = Add(%0, ")
    ret = [line for line in body if line.strip().startswith("Return(")]
    assert len(ret) == 1 and body[body.index(ret[0]) + 1] == "}"
    assert text.endswith("}\n")


class Looping(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.full((2,), 2.0, np.float32)), name="w")

    def construct(self, x):
        out = x
        for _ in range(3):
            if out.sum() > 2:
                out = out * self.w
            else:
                out = out + 1
        n = x
        while n.sum() < 10:
            n = n + 1
        return out + n


def test_parameters_and_nested_blocks_print_as_subgraphs():
    text = ms.inspect(Looping(), t([1.0, 0.5])).ir_before
    lines = text.splitlines()
    assert "%para1_x : <Tensor[Float32], (2)>" in lines
    assert "%para2_w : <Ref[Tensor[Float32]], (2), ref_key=:w>  :  has_default" in lines
    subgraphs = [line for line in lines if line.startswith("subgraph @")]
    assert lines[1] == f"# Total subgraphs: {len(subgraphs)}"
    assert subgraphs[0] == "subgraph @Looping_construct() {"
    # every subgraph a node refers to is printed, and each has one Return before its closing brace
    names = {re.match(r"subgraph @(\w+)\(", line).group(1) for line in subgraphs}
    for line in lines[lines.index(subgraphs[0]):]:
        for ref in re.findall(r"@(\w+)", line):
            assert ref in names, f"{ref} is referred to but not printed"
    assert text.count("Return(") == len(subgraphs)
    assert any(" = For(" in line for line in lines)
    assert any(" = If(" in line for line in lines)
    assert any(" = While(" in line for line in lines)
    assert any(" = Load(%para2_w, " in line for line in lines)


def test_printing_is_deterministic():
    x = t([1.0, 0.5])
    first = ms.inspect(Looping(), x)
    simple_first = ms.inspect(simple, x, x).ir_after
    # a fresh trace of the same program, after other graphs were built in between
    second = ms.inspect(Looping(), x)
    assert second is not first
    assert second.ir_before == first.ir_before
    assert second.ir_after == first.ir_after
    assert first.ir_before == first.ir_before
    assert ms.inspect(ms.jit(simple), x, x).ir_after == simple_first


def test_save_graphs_writes_ir_files(tmp_path):
    out = tmp_path / "graphs"
    ms.set_context(save_graphs=True, save_graphs_path=str(out))
    x = t([1.0, 2.0])
    ms.jit(simple)(x, x)
    files = sorted(os.listdir(out))
    irs = [f for f in files if f.endswith(".ir")]
    assert irs, files
    for name in irs:
        text = (out / name).read_text()
        assert text.startswith("# IR entry: @simple\n")
        assert "subgraph @simple() {" in text


def test_ms_dev_save_graphs_env_and_default_off(tmp_path, monkeypatch):
    x = t([1.0, 2.0])
    ms.set_context(save_graphs_path=str(tmp_path / "off"))
    ms.jit(simple)(x, x)
    assert not (tmp_path / "off").exists() or not os.listdir(tmp_path / "off")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    ms.set_context(save_graphs_path=str(tmp_path / "env"))
    ms.jit(simple)(x, t([3.0, 4.0]))
    irs = [f for f in os.listdir(tmp_path / "env") if f.endswith(".ir")]
    assert irs
    assert all((tmp_path / "env" / f).read_text().startswith("# IR entry: @simple") for f in irs)
