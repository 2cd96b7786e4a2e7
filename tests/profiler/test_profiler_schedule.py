"""mindspore.profiler.schedule / ProfilerAction / tensorboard_trace_handler / profile
(src/pycompile/profiler/schedule.py) against MindSpore 2.10's wheel: each recorded schedule's
repr, its action for every step and the warnings its argument checks log
(tests/oracle/data/profiler_schedule.json); a scheduled run writes one directory per
RECORD_AND_SAVE, as the wheel's, holding exactly the recorded steps' ops, eager and compiled."""
import glob
import json
import os
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn
from pycompile.backend import profiling
from pycompile.profiler import ProfilerAction, schedule, tensorboard_trace_handler

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "oracle", "data", "profiler_schedule.json")) as _f:
    REC = json.load(_f)


@pytest.fixture(autouse=True)
def _no_profiler_left():
    yield
    profiling.end()


@pytest.mark.parametrize("k", range(len(REC["schedules"])))
def test_schedules_are_the_wheel_s(k, capsys):
    rec = REC["schedules"][k]
    s = schedule(**rec["kwargs"])
    err = capsys.readouterr().err
    warnings = [re.sub(r"^\[WARNING\] ME\([^]]*\] ", "", ln) for ln in err.splitlines() if "profiler/schedule.py" in ln]
    assert warnings == rec["warnings"]
    assert repr(s) == rec["repr"]
    assert [str(s(i)) for i in range(len(rec["actions"]))] == rec["actions"]


def _matmul_calls(run_dir):
    """How many product executions a run directory's timestamp file lists (PyNative's MatMul op,
    graph code's kernel `Default/Fused_MatMul_Add-op0`)."""
    with open(os.path.join(run_dir, "FRAMEWORK", "cpu_op_execute_timestamp_0.txt")) as f:
        return sum(len(line.split(";")[2].split()) for line in f if "MatMul" in line.split(";")[0])


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_scheduled_run_saves_each_cycle_s_recorded_steps(tmp_path, mode):
    """skip 1, wait 1, warm up 1, record 2, twice, over 12 steps: two directories (the wheel's
    count), each with the two RECORD steps' products (the warm-up step's recording is dropped)."""
    ms.set_context(mode=mode)
    net = nn.Dense(2, 2)
    seen = []

    def ready(prof):
        seen.append(prof._step_num)
        tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")(prof)

    prof = ms.profiler.profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                               on_trace_ready=ready)
    for _ in range(12):
        net(Tensor(np.ones((2, 2), np.float32)))
        prof.step()
    prof.stop()
    runs = sorted(glob.glob(str(tmp_path / "tb" / "w_*_ascend_ms")))
    assert len(runs) == REC["run_dirs_for_repeat_2"] == 2
    assert seen == [5, 9]                   # after the RECORD_AND_SAVE steps 4 and 8
    assert [_matmul_calls(r) for r in runs] == [2, 2]
    assert not profiling.recording()


def test_stop_in_a_recording_step_saves(tmp_path):
    net = nn.Dense(2, 2)
    prof = ms.profiler.profile(schedule=schedule(wait=0, warmup=0, active=5),
                               on_trace_ready=tensorboard_trace_handler(str(tmp_path)))
    for _ in range(3):
        net(Tensor(np.ones((2, 2), np.float32)))
        prof.step()
    assert prof._action is ProfilerAction.RECORD
    prof.stop()
    runs = glob.glob(str(tmp_path / "*_ascend_ms"))
    assert len(runs) == 1 and _matmul_calls(runs[0]) == 3


def test_schedule_misuse_warns_as_mindspore(tmp_path, capsys):
    prof = ms.profiler.profile(schedule=schedule(wait=0, warmup=1, active=1), on_trace_ready=lambda p: None)
    prof.stop()                              # before any step(): MindSpore's warning, still recording
    assert "The profiler has schedule. Please use step() to collect data." in capsys.readouterr().err
    prof.step()
    prof.analyse()
    assert "The profiler has schedule. Please use 'on_trace_ready' to analyse data." in capsys.readouterr().err
    assert not profiling.recording()
    prof.step()
    assert "Profiler is stopped, step takes no effect!" in capsys.readouterr().err


def test_the_names_are_mindspore_s():
    assert ms.profiler.schedule is schedule and ms.profiler.ProfilerAction is ProfilerAction
    assert issubclass(ms.profiler.profile, ms.Profiler)
    assert [a.name for a in ProfilerAction] == ["NONE", "WARM_UP", "RECORD", "RECORD_AND_SAVE"]
