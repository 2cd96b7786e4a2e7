"""A Tensor method that reads the array itself (data_ptr, get_bytes ...) called on a graph
value is the user's error at their line - it was an InternalCompilerError (the graph value has no
array: 'Sym' object has no attribute '_data')."""
import numpy as np
import pytest

import pycompile as ms


@pytest.mark.parametrize("method", ["data_ptr", "get_bytes"])
def test_host_reads_in_graph_code_name_the_user_s_line(method):
    def f(t):
        return getattr(t, method)()

    with pytest.raises(RuntimeError) as info:
        ms.jit(f)(ms.Tensor(np.ones((2, 2), np.float32)))
    text = str(info.value)
    assert "test_host_memory_in_graph.py" in text and "reads the tensor's memory" in text
    assert type(info.value).__name__ == "RuntimeError"


def test_the_same_calls_work_outside_graph_code():
    x = ms.Tensor(np.ones((2, 2), np.float32))
    assert isinstance(x.data_ptr(), int) and len(x.get_bytes()) == 16 and x.is_pinned() is False
