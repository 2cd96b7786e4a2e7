"""Learning-rate lists (nn.dynamic_lr) and schedule Cells against MindSpore 2.10's recorded
values (tests/oracle/data/lr_schedules.json): the functions exactly (errors by class), the Cells
to float32 precision, eagerly and compiled."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

from oracle_data import array, load

DATA = load("lr_schedules.json")


@pytest.mark.parametrize("case", DATA["functions"], ids=lambda c: c["expr"][3:60])
def test_lr_functions(case):
    want = case["result"]
    if "error" in want:
        with pytest.raises(Exception) as info:
            eval(case["expr"], {"nn": nn})
        assert type(info.value).__name__ == want["error"]["type"]
        assert str(info.value).splitlines()[0] == want["error"]["message_first_line"]
        return
    got = eval(case["expr"], {"nn": nn})
    assert isinstance(got, list)
    assert got == pytest.approx([x["scalar"] for x in want["list"]], rel=1e-12, abs=0)


def _steps(dtype):
    return [Tensor(np.array(k, dtype)) for k in DATA["cell_global_steps"]]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("case", DATA["cells"], ids=lambda c: c["expr"][3:50])
def test_lr_cells(case, mode):
    cell = eval(case["expr"], {"nn": nn})
    want = case["results"][mode]
    if "same_as" in want:
        want = case["results"][want["same_as"]]
    dtype = {"Int32": np.int32, "Int64": np.int64, "Float32": np.float32}[case["global_step_dtype"]]
    fn = ms.jit(lambda s: cell(s)) if mode == "graph" else cell
    for step, enc in zip(_steps(dtype), want["values"]):
        got = fn(step)
        assert str(got.dtype) == enc["tensor"]["dtype"]
        np.testing.assert_allclose(got.asnumpy(), array(enc), rtol=2e-6, atol=1e-9,
                                   err_msg=f"{case['expr']} at step {step}")


@pytest.mark.parametrize("case", DATA["cells_other_step_dtypes"],
                         ids=lambda c: f"{c['expr'][3:40]}-{c['global_step_dtype']}")
def test_lr_cells_other_step_dtypes(case):
    cell = eval(case["expr"], {"nn": nn})
    dtype = {"Int32": np.int32, "Int64": np.int64, "Float32": np.float32}[case["global_step_dtype"]]
    for step, enc in zip(_steps(dtype), case["result"]["values"]):
        got = cell(step)
        assert str(got.dtype) == enc["tensor"]["dtype"]
        np.testing.assert_allclose(got.asnumpy(), array(enc), rtol=2e-6, atol=1e-9)
