"""jit's keywords as MindSpore 2.10 has them: `jit(function=None, *, capture_mode="ast",
jit_level="O0", dynamic=0, fullgraph=False, backend="", **options)`. The expected exception
classes and messages were recorded from the MindSpore 2.10 CPU wheel (/work/ms-venv):
`mindspore.jit(f, **case)` for each case below, then a call."""
import numpy as np
import pytest

import pycompile as ms

RECORDED_ERRORS = [     # (keywords, exception class, message) from the 2.10 wheel
    ({"capture_mode": "x"}, ValueError,
     "For 'jit', the 'capture_mode' must be str and must be in '['ast', 'bytecode', 'trace']', but got 'x'."),
    ({"capture_mode": 1}, ValueError,
     "For 'jit', the 'capture_mode' must be str and must be in '['ast', 'bytecode', 'trace']', but got '1'."),
    ({"jit_level": "O2"}, ValueError, "For 'jit', the 'jit_level' must be str and must be in '['O0', 'O1']', but got 'O2'."),
    ({"jit_level": 0}, ValueError, "For 'jit', the 'jit_level' must be str and must be in '['O0', 'O1']', but got '0'."),
    ({"dynamic": 2}, ValueError, "For 'jit', the 'dynamic' must be in range of [0, 1], but got 2 with type 'int'."),
    ({"dynamic": "1"}, TypeError, "For 'jit', the 'dynamic' must be 'int',  but got 'str'."),
    ({"dynamic": True}, TypeError, "For 'jit', the 'dynamic' must be 'int',  but got 'bool'."),
    ({"fullgraph": 1}, TypeError, "For 'jit', the 'fullgraph' must be a bool, but got int."),
    ({"backend": "xyz"}, RuntimeError, "Invalid backend name: xyz, you should register custom backend first"),
    ({"exec_order": "abc"}, ValueError, "For 'exec_order', the value of 'exec_order' must be one of ['bfs', 'dfs'], but got 'abc'."),
    ({"exec_order": 1}, TypeError, "For 'jit(options)', the type of 'exec_order' must be str, but got <class 'int'>."),
    ({"disable_format_transform": 1}, TypeError,
     "For 'jit(options)', the type of 'disable_format_transform' must be bool, but got <class 'int'>."),
    ({"auto_offload": "x"}, ValueError,
     "For 'auto_offload', the value of 'auto_offload' must be one of ['weight', 'activation', 'all'], but got 'x'."),
]


def add_one(x):
    return x + 1


@pytest.mark.parametrize("kwargs,cls,message", RECORDED_ERRORS, ids=[repr(c[0]) for c in RECORDED_ERRORS])
def test_bad_keywords_raise_mindsporess_errors(kwargs, cls, message):
    with pytest.raises(cls) as info:
        ms.jit(add_one, **kwargs)
    assert str(info.value) == message


def test_positional_options_are_a_type_error():
    with pytest.raises(TypeError, match="positional argument"):
        ms.jit(add_one, "ast")


def test_valid_keywords_compile_and_unknown_options_warn(capsys):
    x = ms.Tensor(np.ones(2, np.float32))
    for kwargs in ({"capture_mode": "bytecode", "jit_level": "O1", "fullgraph": True, "backend": "ms_backend"},
                   {"dynamic": 1, "exec_order": "dfs", "disable_format_transform": True}):
        np.testing.assert_array_equal(ms.jit(add_one, **kwargs)(x).asnumpy(), [2, 2])
    # (a compile that takes over a second - a loaded machine, a sanitizer build - prints a
    # "compiling ... s so far" notice: no warning about the options themselves)
    assert [ln for ln in capsys.readouterr().err.splitlines() if " s so far" not in ln] == []
    f = ms.jit(add_one, foo=1)
    np.testing.assert_array_equal(f(x).asnumpy(), [2, 2])
    err = capsys.readouterr().err
    assert "For 'jit(options)', the option argument 'foo' is not recognized, please check!" in err
    ms.jit(add_one, mode="PSJit")
    assert "the parameter 'mode' has been deprecated. Please use the parameter 'capture_mode' instead." \
        in capsys.readouterr().err
