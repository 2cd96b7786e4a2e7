"""batch(per_batch_map=...) against MindSpore 2.10 (tests/oracle/data/batch_map_feed35.json, written
by tests/oracle/record_batch_map_feed35.py from the cases in batch_map_cases_feed35.py): columns,
dtypes and rows of two epochs (BatchInfo's batch and epoch numbers included), in this process and
in worker processes, and MindSpore's errors."""
import json
import os

import pytest

import batch_map_cases_feed35 as cases
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "batch_map_feed35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def _pipeline_message(text):
    """The Dataset Pipeline Error Message section (MindSpore adds its C++ call stack after it)."""
    return text.split("- C++ Call Stack:")[0].rstrip("-\n ")


@pytest.mark.parametrize("name", sorted(n for n in cases.CASES if "error" not in MS[n]))
def test_per_batch_map_rows_are_mindspores(name):
    if "workers" in name and (os.cpu_count() or 1) < 2:
        pytest.skip("MindSpore allows at most one worker per CPU")
    assert cases.run(ds, name) == MS[name]


@pytest.mark.parametrize("name", ["more_rows", "wrong_count"])
def test_per_batch_map_errors_are_mindspores(name):
    got, want = cases.run(ds, name)["error"], MS[name]["error"]
    assert got["type"] == want["type"]
    assert _pipeline_message(got["message"]) == _pipeline_message(want["message"])


@pytest.mark.parametrize("workers", [1, 2])
def test_a_per_batch_map_that_raises_ends_the_pipeline_with_its_traceback(workers):
    d = cases.source(ds).batch(3, per_batch_map=cases.fails, input_columns=["x"], num_parallel_workers=workers,
                               python_multiprocessing=workers > 1)
    with pytest.raises(RuntimeError) as info:
        list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    got, want = str(info.value), MS["raises"]["error"]["message"]
    head = "Exception thrown from user defined Python function in dataset. \n\n"
    assert got.startswith(head) and want.startswith(head)
    frame = 'batch_map_cases_feed35.py", line 41, in fails\n    raise ValueError("per_batch_map fails on batch 1")'
    assert frame in got and frame in want
    tail = "[ERROR] Execute user Python code failed, check 'Python Call Stack' above.\n"
    assert got.endswith(tail) and want.rstrip("\n").endswith(tail.rstrip("\n"))
    assert "pycompile" not in got
    assert isinstance(info.value.__cause__, ValueError)
