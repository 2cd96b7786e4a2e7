"""The IR verifier (run after every pass in the whole suite, see conftest) rejects malformed
graphs. Graphs are built by hand here: no tracing, no C compiler."""
import numpy as np
import pytest

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType, TupleType, U_TYPE
from pycompile.compiler import ir
from pycompile.compiler.verify import VerifyError, verify
from pycompile.ops._table import OPS

F2 = TensorType(mstype.float32, (2,))
B2 = TensorType(mstype.bool_, (2,))
B1 = TensorType(mstype.bool_, ())


def graph(params, nodes, results):
    return ir.Graph("g", tuple(params), ir.Block((), tuple(nodes), (*results, ir.U)))


def add(a, b, t=F2):
    return ir.Node(OPS["Add"], (a, b), t)


def test_a_well_formed_graph_passes():
    x = ir.Param("x", F2)
    n = add(x, x)
    verify(graph([x], [n], [n]))


def test_use_before_definition():
    x = ir.Param("x", F2)
    n1 = add(x, x)
    n2 = add(n1, x)
    with pytest.raises(VerifyError, match="used before it is defined"):
        verify(graph([x], [n2, n1], [n2]))


def test_type_disagrees_with_infer():
    x = ir.Param("x", F2)
    n = add(x, x, TensorType(mstype.float64, (2,)))
    with pytest.raises(VerifyError, match="infer gives"):
        verify(graph([x], [n], [n]))


def test_node_in_two_blocks():
    x = ir.Param("x", F2)
    c = ir.Param("c", ScalarType("bool"))
    n = add(x, x)
    then = ir.Block((), (n,), (n,))
    other = ir.Block((), (n,), (n,))
    iff = ir.Node(ir.IF, (c,), TupleType((F2,)), blocks=(then, other))
    out = ir.Node(ir.GETITEM, (iff,), F2, {"index": 0})
    with pytest.raises(VerifyError, match="appears twice"):
        verify(graph([x, c], [iff, out], [out]))


def test_if_condition_must_have_one_element():
    x = ir.Param("x", F2)
    cond = ir.Node(OPS["Less"], (x, x), B2)
    then = ir.Block((), (), (x,))
    iff = ir.Node(ir.IF, (cond,), TupleType((F2,)), blocks=(then, ir.Block((), (), (x,))))
    out = ir.Node(ir.GETITEM, (iff,), F2, {"index": 0})
    with pytest.raises(VerifyError, match="one-element"):
        verify(graph([x], [cond, iff, out], [out]))


def test_branch_results_must_match_the_if_type():
    x = ir.Param("x", F2)
    c = ir.Param("c", ScalarType("bool"))
    s = ir.Const.tensor(np.float32(1.0))
    iff = ir.Node(ir.IF, (c,), TupleType((F2,)), blocks=(ir.Block((), (), (x,)), ir.Block((), (), (s,))))
    out = ir.Node(ir.GETITEM, (iff,), F2, {"index": 0})
    with pytest.raises(VerifyError, match="branch results"):
        verify(graph([x, c], [iff, out], [out]))


def _loop(exit_flags, flag_type=ScalarType("bool")):
    x = ir.Param("x", F2)
    i = ir.Param("i", ScalarType("int"))
    carried = ir.Param("acc", F2)
    flag = ir.Param("brk", flag_type)
    u = ir.Param("U", U_TYPE)
    body_add = add(carried, x)
    body = ir.Block((i, carried, flag, u), (body_add,), (body_add, flag, u))
    init_flag = ir.Const.scalar(False) if flag_type == ScalarType("bool") else ir.Const.tensor(np.zeros(2, np.float32))
    loop = ir.Node(ir.FOR, (ir.Const.scalar(0), ir.Const.scalar(3), ir.Const.scalar(1), x, init_flag, ir.U),
                   TupleType((F2, flag_type, U_TYPE)), {"exit_flags": exit_flags}, blocks=(body,))
    out = ir.Node(ir.GETITEM, (loop,), F2, {"index": 0})
    return graph([x], [loop, out], [out])


def test_for_loop_exit_flags():
    verify(_loop((1,)))
    with pytest.raises(VerifyError, match="exit flag"):
        verify(_loop((5,)))
    with pytest.raises(VerifyError, match="exit flag"):
        verify(_loop((1,), flag_type=F2))


def test_getitem_index_out_of_range():
    x = ir.Param("x", F2)
    c = ir.Param("c", ScalarType("bool"))
    iff = ir.Node(ir.IF, (c,), TupleType((F2,)), blocks=(ir.Block((), (), (x,)), ir.Block((), (), (x,))))
    out = ir.Node(ir.GETITEM, (iff,), F2, {"index": 3})
    with pytest.raises(VerifyError, match="component"):
        verify(graph([x, c], [iff, out], [out]))


def test_graph_must_end_with_the_memory_state():
    x = ir.Param("x", F2)
    n = add(x, x)
    g = ir.Graph("g", (x,), ir.Block((), (n,), (n,)))
    with pytest.raises(VerifyError, match="memory state"):
        verify(g)
