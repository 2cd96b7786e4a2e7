"""MultitypeFuncGraph and HyperMap, eagerly (MindSpore 2.10's behaviour in graph mode where it
differs from its PyNative one, so both modes of pycompile agree)."""
import numpy as np
import pytest

from pycompile import Tensor, ops
from pycompile.ops import HyperMap, Map, MultitypeFuncGraph

add = MultitypeFuncGraph("add")


@add.register("Number", "Number")
def _add_numbers(x, y):
    return x + y


@add.register("Tensor", "Tensor")
def _add_tensors(x, y):
    return ops.add(x, y)


@add.register("Tensor", "Number")
def _scale_tensor(x, y):
    return ops.mul(x, y)


def values(t):
    return t.asnumpy().tolist()


def test_dispatch_by_type_names():
    assert add(1, 2) == 3
    assert add(1.5, 2) == 3.5
    assert values(add(Tensor([1.0]), Tensor([2.0]))) == [3.0]
    assert values(add(Tensor([1.0, 2.0]), 3)) == [3.0, 6.0]
    assert add(True, 2) == 3                 # a bool falls back to "Number" (as in MindSpore)


def test_no_match_names_the_types():
    # MindSpore 2.10 raises ValueError: "For 'MultitypeFuncGraph', cannot find fn match given args ..."
    with pytest.raises(ValueError, match=r"For 'MultitypeFuncGraph' 'add'.*\(String, Number\)") as info:
        add("a", 1)
    assert "(Tensor, Tensor)" in str(info.value)
    with pytest.raises(ValueError, match=r"\(Number, Tensor\)"):
        add(1, Tensor([1.0]))
    with pytest.raises(ValueError, match=r"\(Number\)"):
        add(1)


def test_exact_match_beats_bool_as_number_and_reregistering_replaces():
    f = MultitypeFuncGraph("f")
    f.register("Number")(lambda x: "number")
    f.register("Bool")(lambda x: "bool")
    assert f(True) == "bool" and f(1) == "number"
    f.register("Number")(lambda x: "new")
    assert f(2) == "new" and len(f.entries) == 2


def test_type_names_and_aliases():
    f = MultitypeFuncGraph("g")
    f.register("Tuple")(lambda x: "tuple")
    f.register("List")(lambda x: "list")
    f.register("String")(lambda x: "string")
    f.register("None")(lambda x: "none")
    f.register("Int", "Float")(lambda x, y: "int-alias")     # Int / Float are Number
    f.register("Dictionary")(lambda x: "dict")
    assert f((1,)) == "tuple" and f([1]) == "list" and f("s") == "string" and f(None) == "none"
    assert f(1, 2.0) == "int-alias" and f({}) == "dict"
    assert repr(f) == "MultitypeFuncGraph('g')"


def test_hyper_map_over_tuples():
    hm = HyperMap(add)
    assert hm((1, 2), (3, 4)) == (4, 6)
    out = hm((Tensor([1.0]), Tensor([2.0])), (Tensor([1.0]), Tensor([2.0])))
    assert isinstance(out, tuple) and [values(t) for t in out] == [[2.0], [4.0]]
    mixed = hm((Tensor([1.0]), 2), (3, 4))
    assert values(mixed[0]) == [3.0] and mixed[1] == 6


def test_hyper_map_nested_and_lists():
    hm = HyperMap(add)
    assert hm(((1, 2), 3), ((3, 4), 5)) == ((4, 6), 8)
    assert hm([1, 2], [3, 4]) == [4, 6]      # a list stays a list (MindSpore's graph mode)
    assert hm(1, 2) == 3                     # leaves are mapped directly
    assert hm((1, 2), 10) == (11, 12)        # a non-sequence argument is broadcast


def test_hyper_map_without_fn_takes_it_first():
    assert HyperMap()(add, (1, 2), (3, 4)) == (4, 6)
    sq = MultitypeFuncGraph("sq")
    sq.register("Tensor")(lambda x: x * x)
    out = HyperMap()(sq, (Tensor([2.0]), Tensor([3.0])))
    assert [values(t) for t in out] == [[4.0], [9.0]]
    assert HyperMap()(lambda x: x + 1, (1, (2, 3))) == (2, (3, 4))


def test_hyper_map_errors():
    # MindSpore's graph mode: "The tuples in HyperMap should have the same length"
    with pytest.raises(ValueError, match="For 'HyperMap'.*same length.*2, 1"):
        HyperMap(add)((1, 2), (3,))
    with pytest.raises(TypeError, match="HyperMap"):
        HyperMap(add)()
    with pytest.raises(ValueError, match="MultitypeFuncGraph"):
        HyperMap(add)(("a",), (1,))


def test_hyper_map_reverse_visits_last_first():
    seen = []
    out = HyperMap(lambda x: seen.append(x) or x, reverse=True)((1, 2, 3))
    assert out == (1, 2, 3) and seen == [3, 2, 1]


def test_map_is_one_level_deep():
    assert Map()(lambda x, y: (x, y), (1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert Map(len)(((1, 2), (3,))) == (2, 1)
    np.testing.assert_array_equal(Map(ops.exp)([Tensor([0.0])])[0].asnumpy(), [1.0])
