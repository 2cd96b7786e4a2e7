"""MindSpore's import paths resolve to the same objects under pycompile's name (what
`import mindspore.context`, `from mindspore.ops.operations import nn_ops`, `F.vmap` give in
MindSpore 2.10, recorded in tests/oracle/data/module_layout.json), and `pycompile._checkparam`
answers as MindSpore's `_checkparam` does."""
import importlib
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import module_layout_cases as cases  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "module_layout.json")
with open(DATA) as _f:
    ORACLE = json.load(_f)


def _get(path, name):
    mod = importlib.import_module("pycompile" + ("." + path if path else ""))
    return getattr(mod, name)


@pytest.mark.parametrize("row", ORACLE["identities"], ids=lambda r: f"{r[0]}.{r[1]}")
def test_same_object_by_every_path(row):
    path, name, canon, cname, same = row
    assert (_get(path, name) is _get(canon, cname)) == same


@pytest.mark.parametrize("path", sorted(ORACLE["modules"]))
def test_module_importable_by_mindspore_path(path):
    assert ORACLE["modules"][path] is True
    mod = importlib.import_module("pycompile." + path)
    assert sys.modules["pycompile." + path] is mod


def test_context_module_is_the_attribute_and_common_context():
    import pycompile
    import pycompile.context
    from pycompile.common import context
    assert pycompile.context is context is sys.modules["pycompile.context"]
    assert pycompile.context.set_context is pycompile.set_context


@pytest.mark.parametrize("key", sorted(ORACLE["checkparam"]))
def test_checkparam_as_mindspore(key):
    from pycompile import _checkparam as V
    want = ORACLE["checkparam"][key]
    call = cases.checkparam_cases(V)[key]
    if "error" in want:
        with pytest.raises(Exception) as info:
            call()
        assert (type(info.value).__name__, str(info.value)) == (want["error"], want["message"])
    else:
        assert call() == want["value"]


def test_prim_attr_register_records_constructor_arguments():
    from pycompile.ops import PrimitiveWithInfer, prim_attr_register

    class Shift(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, periods=1, axis=-1):
            self.init_prim_io_names(inputs=["x", "fill_value"], outputs=["output"])

    s = Shift(axis=0)
    assert {"name": s.name, "attrs": s.attrs} == ORACLE["prim_attr_register"]
    # a user primitive named like a MindSpore CPU kernel runs it (ops.primitive.NAMED_KERNELS;
    # one with no kernel of its name raises NotImplementedError: tests/ops/test_named_kernels.py)
    import numpy as np
    from pycompile import Tensor
    out = s(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), 0.0)
    np.testing.assert_array_equal(out.asnumpy(), [0.0, 1.0, 2.0])


def test_functional_keeps_builtins_and_its_own_names():
    """F gains every ops.* function, but never a builtin's name (its own code calls range/max)
    and never replaces a function it defines."""
    from pycompile import ops
    from pycompile.ops import functional as F
    assert "range" not in vars(F) and "slice" not in vars(F)
    assert F.add.__module__ == F.__name__
    assert F.log1p is ops.log1p


def test_pynative_executor_sync_and_runtime():
    from pycompile.common.api import _pynative_executor
    import pycompile.runtime as rt
    assert _pynative_executor.sync() is None
    assert rt.launch_blocking() is None
    with pytest.raises(TypeError):
        rt.dispatch_threads_num(0)


def test_export_names_the_format():
    import pycompile as ms
    from pycompile.train.serialization import export
    assert export is ms.export            # MindSpore's import path gives the same function
    with pytest.raises(NotImplementedError, match="AIR"):
        ms.export(None, file_name="net", file_format="AIR")
    with pytest.raises(ValueError, match="only support nn.Cell object, but got <class 'NoneType'>"):
        ms.export(None, file_name="net", file_format="ONNX")
