"""set_context / get_context / set_device against MindSpore 2.10's CPU wheel: each call of
tests/oracle/context_cases.py, run in the same order, returns what MindSpore returned or raises its
exception class with its message (tests/oracle/data/context_errors.json, written by
tests/oracle/record_context_errors.py).

Where pycompile differs on purpose (DIFFERS below): it has a device MindSpore's CPU build lacks (the
Ascend-style stub: 'Ascend' / 'Davinci' are taken), so its "Unsupported device target" message
lists ['CPU', 'Ascend'] and ends with a sentence of its own instead of MindSpore's about its GPU
wheel; and a set_context call with an unknown key sets nothing (MindSpore has set the keys before
it).
"""
import json
import os
import sys
import warnings

import pytest

import pycompile as ms

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(os.path.dirname(HERE), "oracle")
sys.path.insert(0, ORACLE)
import context_cases  # noqa: E402

with open(os.path.join(ORACLE, "data", "context_errors.json")) as _f:
    RECORDED = json.load(_f)["calls"]

# call -> what pycompile gives instead (the reason is in the module's text)
UNSUPPORTED_GPU = ("RuntimeError", "Unsupported device target GPU. This process only supports one of the "
                   "['CPU', 'Ascend']. pycompile compiles for the CPU and for its Ascend-style stub device "
                   "(pycompile.backend.devices).")
DIFFERS = {
    "set_context(device_target='GPU')": UNSUPPORTED_GPU,
    "set_device('GPU')": UNSUPPORTED_GPU,
    # set_context(mode=0, no_key=2) raised; MindSpore had set mode=0 before it met the unknown key,
    # pycompile checks every key first and sets nothing
    "get_context('mode')#3": "1",
}


def _outcome(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval("ms." + call)      # noqa: S307 - the recorded call list
    except Exception as e:  # noqa: BLE001 - comparing what is raised
        return (type(e).__name__, str(e).splitlines()[0])
    return repr(value)


def test_the_recording_covers_the_calls():
    assert [r["call"] for r in RECORDED] == context_cases.CALLS


def test_each_call_gives_mindsporess_outcome():
    bad, seen = [], {}
    for rec in RECORDED:
        call = rec["call"]
        seen[call] = seen.get(call, 0) + 1
        key = call if seen[call] == 1 else f"{call}#{seen[call]}"
        want = (rec["error"]["type"], rec["error"]["message"]) if "error" in rec else rec["value"]
        got = _outcome(call)
        if key in DIFFERS:
            assert want != DIFFERS[key], f"{key}: equal to MindSpore's now, remove it from DIFFERS"
            want = DIFFERS[key]
        if got != want:
            bad.append(f"{call}:\n    pycompile {got}\n    MindSpore {want}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("target", ["Ascend", "Davinci"])
def test_the_ascend_stub_is_a_device_target(target):
    """MindSpore's CPU build refuses Ascend (RuntimeError); pycompile has the stub device, and takes
    'Davinci' as its old name, as MindSpore does where Ascend exists."""
    ms.set_context(device_target=target)
    assert ms.get_context("device_target") == "Ascend"
