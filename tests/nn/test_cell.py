"""nn.Cell: registration, Parameter names (as MindSpore 2.10 names them), traversal, training mode,
containers and misuse."""
from collections import OrderedDict

import numpy as np
import pytest

from pycompile import Parameter, ParameterTuple, Tensor, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.seq = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU(),
                                     nn.SequentialCell([nn.Dense(2, 1, activation="relu"), nn.Sigmoid()]))
        self.w = Parameter(Tensor([1.0]))
        self.named = Parameter(Tensor([1.0]), name="explicit")
        self.frozen = Parameter(Tensor([2.0]), name="frozen", requires_grad=False)
        self.scale = 2.0

    def construct(self, x):
        return self.seq(self.fc(x)) * self.w * self.scale


SUB_PARAMS = ["fc.weight", "fc.bias", "seq.0.weight", "seq.0.bias", "seq.2.0.weight", "seq.2.0.bias"]


def test_parameter_names_match_mindspore():
    net = Net()
    # MindSpore 2.10: own Parameters first (by attribute), then those of sub-Cells
    assert [n for n, _ in net.parameters_and_names()] == ["w", "named", "frozen"] + SUB_PARAMS
    assert [p.name for p in net.get_parameters()] == ["w", "explicit", "frozen"] + SUB_PARAMS
    assert [p.name for p in net.trainable_params()] == ["w", "explicit"] + SUB_PARAMS
    assert [p.name for p in net.untrainable_params()] == ["frozen"]
    assert net.fc.weight.shape == (2, 3) and net.fc.bias.shape == (2,)
    assert [n for n, _ in net.parameters_and_names(expand=False)] == ["w", "named", "frozen"]
    assert [n for n, _ in net.parameters_and_names("net")][:2] == ["net.w", "net.named"]


def test_cells_and_names():
    net = Net()
    assert [n for n, _ in net.cells_and_names()] == [
        "", "fc", "seq", "seq.0", "seq.1", "seq.2", "seq.2.0", "seq.2.0.activation", "seq.2.1"]
    assert [type(c).__name__ for c in net.cells()] == ["Dense", "SequentialCell"]
    assert list(net.name_cells()) == ["fc", "seq"]
    assert net.cls_name == "Net"


def test_a_cell_inside_another_is_renamed_by_its_path():
    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.named = Parameter(Tensor([1.0]), name="explicit")

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Inner()

    # MindSpore 2.10: ['net.named'] for both
    outer = Outer()
    assert [p.name for p in outer.get_parameters()] == ["net.named"]
    assert [n for n, _ in outer.parameters_and_names()] == ["net.named"]


def test_a_shared_cell_is_named_once_and_listed_once():
    class Shared(nn.Cell):
        def __init__(self):
            super().__init__()
            d = nn.Dense(2, 2)
            self.a = d
            self.b = d

    s = Shared()
    # MindSpore 2.10: paths from the first attribute, names from the last assignment
    assert [n for n, _ in s.parameters_and_names()] == ["a.weight", "a.bias"]
    assert [p.name for p in s.get_parameters()] == ["b.weight", "b.bias"]
    assert [n for n, _ in s.cells_and_names()] == ["", "a"]


def test_unnamed_parameter_takes_its_first_attribute_name():
    p = Parameter(Tensor([1.0]))
    c = nn.Cell()
    c.a = p
    c.b = p
    assert p.name == "a"
    assert [n for n, _ in c.parameters_and_names()] == ["a"]
    assert c.a is p and c.b is p


def test_reassigning_and_deleting_attributes():
    c = nn.Cell()
    c.x = Parameter(Tensor([1.0]), name="x")
    c.x = nn.ReLU()
    assert [n for n, _ in c.parameters_and_names()] == [] and list(c.name_cells()) == ["x"]
    c.x = 3
    assert list(c.name_cells()) == [] and c.x == 3
    c.y = nn.Tanh()
    del c.y
    assert list(c.name_cells()) == [] and not hasattr(c, "y")


def test_parameter_tuple_attribute_names_unnamed_members():
    c = nn.Cell()
    c.params = ParameterTuple([Parameter(Tensor([1.0])), Parameter(Tensor([2.0]), name="kept")])
    assert [p.name for p in c.params] == ["params.0", "kept"]


def test_insert_child_and_param():
    net = nn.Cell()
    net.insert_child_to_cell("child", nn.Dense(2, 3))
    # MindSpore 2.10 keeps the child's Parameter names; the path still shows where they live
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]
    assert [n for n, _ in net.parameters_and_names()] == ["child.weight", "child.bias"]
    assert isinstance(net.child, nn.Dense)
    net.insert_param_to_cell("zz", Parameter(Tensor([1.0])))
    assert [n for n, _ in net.parameters_and_names()][0] == "zz" and net.zz.name == "zz"
    with pytest.raises(KeyError, match="'.'"):
        net.insert_param_to_cell("z.z", Parameter(Tensor([1.0])))
    with pytest.raises(TypeError, match="insert_param_to_cell.*Parameter"):
        net.insert_param_to_cell("t", Tensor([1.0]))
    with pytest.raises(TypeError, match="insert_child_to_cell.*Cell.*int"):
        net.insert_child_to_cell("c", 1)
    with pytest.raises(KeyError, match="insert_child_to_cell"):
        net.insert_child_to_cell("a.b", nn.ReLU())


def test_set_train_reaches_every_sub_cell():
    net = Net()
    assert net.training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    assert net.set_grad() is net


def test_calling_runs_construct():
    net = Net()
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    out = net(Tensor(x))
    h = x @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy()
    h = np.maximum(h @ net.seq[0].weight.asnumpy().T + net.seq[0].bias.asnumpy(), 0)
    h = np.maximum(h @ net.seq[2][0].weight.asnumpy().T + net.seq[2][0].bias.asnumpy(), 0)
    h = 1 / (1 + np.exp(-h)) * 1.0 * 2.0
    np.testing.assert_allclose(out.asnumpy(), h, rtol=1e-6)


def test_keyword_arguments_reach_construct():
    class Kw(nn.Cell):
        def construct(self, x, scale=1.0):
            return x * scale

    np.testing.assert_array_equal(Kw()(Tensor([2.0]), scale=3.0).asnumpy(), [6.0])


def test_sequential_cell_forms():
    a, b = nn.Dense(2, 2), nn.ReLU()
    for seq in (nn.SequentialCell(a, b), nn.SequentialCell([a, b]),
                nn.SequentialCell(OrderedDict([("0", a), ("1", b)]))):
        assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    named = nn.SequentialCell(OrderedDict([("lin", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    assert [p.name for p in named.get_parameters()] == ["lin.weight", "lin.bias"]
    three = nn.SequentialCell(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    tail = three[1:]
    assert isinstance(tail, nn.SequentialCell) and len(tail) == 2
    assert list(tail.name_cells()) == ["1", "2"]      # MindSpore keeps the keys
    with pytest.raises(IndexError, match=r"For 'SequentialCell'.*\[-3, 3\).*3"):
        three[3]
    with pytest.raises(TypeError, match="For 'SequentialCell'.*int"):
        nn.SequentialCell([nn.ReLU(), 1])
    seq = nn.SequentialCell([nn.ReLU()])
    seq.append(nn.Dense(2, 2))
    assert len(seq) == 2 and [p.name for p in seq.get_parameters()] == ["1.weight", "1.bias"]
    np.testing.assert_array_equal(nn.SequentialCell(nn.ReLU(), nn.ReLU())(Tensor([-1.0, 2.0])).asnumpy(), [0, 2])


def test_cell_list():
    cl = nn.CellList([nn.Dense(2, 2)])
    cl.append(nn.Dense(2, 3))
    cl.insert(0, nn.ReLU())
    # MindSpore 2.10: re-registered cells are renamed by their new index
    assert [type(c).__name__ for c in cl] == ["ReLU", "Dense", "Dense"]
    assert [p.name for p in cl.get_parameters()] == ["1.weight", "1.bias", "2.weight", "2.bias"]
    assert len(cl) == 3 and isinstance(cl[1:], nn.CellList) and len(cl[1:]) == 2
    assert len(nn.CellList().extend([nn.ReLU(), nn.ReLU()])) == 2
    assert isinstance(nn.CellList(nn.ReLU(), nn.Tanh())[1], nn.Tanh)

    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    h = Holder()
    assert [p.name for p in h.get_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert h(Tensor(np.ones((1, 2), np.float32))).shape == (1, 2)
    with pytest.raises(TypeError, match="For 'CellList'.*int"):
        nn.CellList([1])
    with pytest.raises(IndexError, match="For 'CellList'"):
        cl[5]
    with pytest.raises(TypeError, match="CellList"):
        cl(Tensor([1.0]))


def test_misuse():
    class NoSuper(nn.Cell):
        def __init__(self):
            self.x = nn.ReLU()

    with pytest.raises(AttributeError, match="NoSuper.*super"):
        NoSuper()
    # MindSpore 2.10: "For 'Cell', the method 'construct' is not defined."
    with pytest.raises(AttributeError, match="For 'Cell', the method 'construct' is not defined"):
        nn.Cell()(Tensor([1.0]))


def test_a_cell_replaced_by_setattr_keeps_its_place_in_a_sequential_cell():
    """MindSpore 2.10 (tests/oracle/data/suite_fixes.json, sequential_setattr): the new cell
    runs where the old one did; pycompile moved it to the end."""
    import json
    from pathlib import Path
    want = json.loads((Path(__file__).resolve().parent.parent / "oracle" / "data" / "suite_fixes.json")
                      .read_text())["sequential_setattr"]
    seq = nn.SequentialCell([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
    setattr(seq, "1", nn.ELU())
    assert [type(c).__name__ for c in seq] == want["cells"]
    assert list(seq._cells.keys()) == want["keys"]
    x = Tensor(np.array([-1.0, 0.5], np.float32))
    np.testing.assert_allclose(seq(x).asnumpy(), 1 / (1 + np.exp(-np.array([0.0, 0.5]))), rtol=1e-6)
