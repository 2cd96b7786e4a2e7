"""ops.add_flags and ops.P as MindSpore 2.10 has them (run with the wheel: add_flags(f, a=True,
b=False) returns f itself with f._func_graph_flags == {'a': True, 'b': False}; add_flags(c=True)
as a decorator adds to the same dict; ops.P and ops.functional.P are mindspore.ops.operations)."""
from pycompile import ops
from pycompile.ops import functional as F
from pycompile.ops import operations


def test_add_flags():
    def f(x):
        return x
    assert ops.add_flags(f, a=True, b=False) is f
    assert f._func_graph_flags == {"a": True, "b": False}
    assert ops.add_flags(c=True)(f) is f
    assert f._func_graph_flags == {"a": True, "b": False, "c": True}


def test_p_is_the_operations_module():
    assert ops.P is operations and F.P is operations
    assert ops.P.ReLU is ops.ReLU
