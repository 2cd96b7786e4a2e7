"""mindspore.profiler.Profiler: what it records (PyNative ops, graph code's kernels timed in the
generated C), the files it writes against MindSpore 2.10's (tests/oracle/data/profiler_layout.json,
written by tests/oracle/record_profiler.py on the networks of tests/oracle/profiler_nets.py), and
that profiling changes no result."""
import csv
import glob
import json
import os
import re
import socket
import sys
import time

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.backend import profiling
from pycompile.profiler import Profiler

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(os.path.dirname(HERE), "oracle")
sys.path.insert(0, ORACLE)
import profiler_nets  # noqa: E402

with open(os.path.join(ORACLE, "data", "profiler_layout.json")) as _f:
    RECORDED = json.load(_f)


@pytest.fixture(autouse=True)
def _no_profiler_left():
    yield
    profiling.end()


def _detail(run):
    with open(os.path.join(run, "FRAMEWORK", "cpu_op_detail_info_0.csv")) as f:
        return list(csv.DictReader(f))


def _profiled(tmp_path, fn, args, calls):
    fn(*args)                      # compiled before the profiler starts, as record_profiler.py does
    p = Profiler(output_path=str(tmp_path))
    outs = [fn(*args) for _ in range(calls)]
    p.analyse()
    return p.output_path, outs


def test_the_files_are_mindsporess(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, args = profiler_nets.dense_relu(ms)
    run, _ = _profiled(tmp_path, net, args, RECORDED["calls"])
    assert os.path.dirname(run) == str(tmp_path)
    assert RECORDED["dir_name_pattern"].endswith("_N_N_ascend_ms")           # <host>_<pid>_<time>_ascend_ms
    assert re.fullmatch(re.escape(socket.gethostname()) + r"_%d_\d{17}_ascend_ms" % os.getpid(), os.path.basename(run))
    for rel, want in RECORDED["files"].items():
        paths = glob.glob(os.path.join(run, rel))
        assert paths, rel
        with open(paths[0]) as f:
            text = f.read()
        if "header" in want:
            assert text.splitlines()[0] == want["header"], rel
        if "fields_per_line" in want:
            assert {len(line.split(";")) for line in text.splitlines()} <= set(want["fields_per_line"]) | {5, 6}, rel
            shape = re.sub(r"\d+(\.\d+)?(e-?\d+)?", "N", text.splitlines()[0])
            if rel.endswith("timestamp_0.txt"):
                # one `start,ms,0 ` per execution after the op's name: the calls' count of them
                assert re.fullmatch(r"[^;]+;HostCpuOps;(N,N,N ){%d}" % RECORDED["calls"], shape), shape
            else:
                assert re.fullmatch(r"[^;]+;[^;]+-opN;N;(input_N:(\[[N, ]*\]|NoShape);)+", shape), shape
        if "process_names" in want:
            events = json.loads(text)
            assert sorted({e["args"]["name"] for e in events if e.get("name") == "process_name"}) == \
                want["process_names"]
            assert sorted({",".join(sorted(e)) for e in events if e["ph"] == "X"}) == want["event_keys"]


def test_graph_kernels_are_counted_per_call_and_named_by_scope(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, args = profiler_nets.dense_relu(ms)
    plain = net(*args).asnumpy()
    run, outs = _profiled(tmp_path, net, args, 3)
    for y in outs:
        np.testing.assert_array_equal(y.asnumpy(), plain)      # the timed code computes the same
    rows = _detail(run)
    assert rows and {int(r["op_occurrences"]) for r in rows} == set(RECORDED["dense_relu"]["occurrences"])
    scopes = {r["full_op_name"].rsplit("/", 1)[0] for r in rows}
    # MatMul + BiasAdd (in d) and ReLU (in the network) are one fused kernel: the scope they share
    assert scopes <= set(RECORDED["dense_relu"]["scopes"])
    assert all(float(r["op_total_time(ms)"]) > 0 for r in rows)
    assert abs(sum(float(r["total_proportion"]) for r in rows) - 1) < 1e-3


def test_a_training_step_s_scopes_are_mindsporess(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    step, args = profiler_nets.lenet_step(ms)
    run, losses = _profiled(tmp_path, step, args, 3)
    again, args2 = profiler_nets.lenet_step(ms)      # the same steps, not profiled
    plain = [again(*args2) for _ in range(4)]
    np.testing.assert_array_equal([x.asnumpy() for x in losses], [x.asnumpy() for x in plain[1:]])
    rows = _detail(run)
    graph = [r for r in rows if "/" in r["full_op_name"]]
    assert {int(r["op_occurrences"]) for r in graph} == {3}
    forward = {r["full_op_name"].rsplit("/", 1)[0] for r in graph if not r["full_op_name"].startswith("Gradients/")}
    backward = {r["full_op_name"].rsplit("/", 1)[0] for r in graph if r["full_op_name"].startswith("Gradients/")}
    want = set(RECORDED["lenet_step"]["scopes"])

    def prefixes(names):
        return {"/".join(n.split("/")[:k]) for n in names for k in range(1, n.count("/") + 2)}
    # a fused kernel takes the scope its ops share: an ancestor of MindSpore's scopes, never another
    assert forward <= prefixes(want)
    # the Cells whose kernels are not fused with another Cell's are named exactly as MindSpore does
    for cell in ("conv1-Conv2d", "conv2-Conv2d", "pool-MaxPool2d", "_loss_fn-SoftmaxCrossEntropyWithLogits",
                 "optimizer-Momentum"):
        assert any(s.endswith(cell) for s in forward & want), cell
    # gradient kernels: Gradients/<the forward op's scope>/Grad_<op>; the ops are pycompile's
    # (its Dense adds with Add where MindSpore has BiasAdd), the scopes MindSpore's
    grad_cells = {s.rsplit("/Grad_", 1)[0] for s in backward if "/Grad_" in s}
    assert grad_cells and grad_cells <= {"Gradients/" + s for s in prefixes(want)}
    assert all(s.startswith("Gradients/Default/") for s in RECORDED["lenet_step"]["gradient_scopes"])
    assert any("conv1-Conv2d/Grad_Conv2D" in s for s in backward)


def test_pynative_ops_only_between_start_and_stop(tmp_path):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    ops.add(x, x)
    p = Profiler(output_path=str(tmp_path), start_profile=False)
    ops.mul(x, x)                                  # not started: not recorded
    p.start()
    for _ in range(4):
        ops.add(x, x)
    ops.exp(x)
    p.stop()
    ops.add(x, x)                                  # stopped: not recorded
    p.analyse()
    rows = {r["op_type"]: r for r in _detail(p.output_path)}
    assert set(rows) == {"Add", "Exp"}
    assert rows["Add"]["op_occurrences"] == "4" and rows["Exp"]["op_occurrences"] == "1"
    assert rows["Add"]["full_op_name"] == "Add"               # PyNative: the op's type, as MindSpore
    with open(os.path.join(p.output_path, "FRAMEWORK", "cpu_framework_0.txt")) as f:
        assert "Add;Add;%d;input_1:[2, 3];input_2:[2, 3];\n" % os.getpid() in f.read()


def test_times_lie_inside_the_recording_on_the_epoch_clock(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, args = profiler_nets.dense_relu(ms)
    net(*args)
    before = time.time_ns()
    with Profiler(output_path=str(tmp_path)) as p:
        for _ in range(5):
            net(*args)
            ops.add(args[0], 1.0)
    after = time.time_ns()
    p.analyse()
    with open(os.path.join(p.output_path, "FRAMEWORK", "cpu_op_execute_timestamp_0.txt")) as f:
        runs = [r.split(",") for line in f for r in line.split(";")[2].split()]
    assert len(runs) == 10
    for start, ms_, _ in runs:
        assert before - 10**6 <= int(start) <= after and 0 < float(ms_) * 1e6 <= after - before


def test_a_kernel_in_a_loop_counts_each_execution(tmp_path):
    @ms.jit
    def f(x, n):
        i = 0
        while i < n:
            x = ops.exp(ops.sin(x) * 0.5)
            i += 1
        return x

    x = Tensor(np.linspace(0, 1, 64, dtype=np.float32))
    n = Tensor(7, ms.int32)
    plain = f(x, n).asnumpy()
    p = Profiler(output_path=str(tmp_path))
    np.testing.assert_array_equal(f(x, n).asnumpy(), plain)
    f(x, n)
    p.analyse()
    rows = [r for r in _detail(p.output_path) if "/" in r["full_op_name"]]
    counts = {r["op_type"]: int(r["op_occurrences"]) for r in rows}
    # the body's kernel 7 times a call, the condition 8 (its last test ends the loop), 2 calls
    assert counts == {"Fused_Sin_Mul_Exp": 14, "Less": 16}
    with open(os.path.join(p.output_path, "ASCEND_PROFILER_OUTPUT", "trace_view.json")) as fh:
        events = [e for e in json.load(fh) if e["ph"] == "X" and e["pid"] == 2]
    assert sorted(e["args"]["count"] for e in events) == [7, 7, 8, 8]     # one event per kernel per call


def test_graph_code_is_timed_only_while_recording(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, args = profiler_nets.dense_relu(ms)
    assert "pc_prof_add" not in ms.inspect(net, *args).c_source
    p = Profiler(output_path=str(tmp_path))
    source = ms.inspect(net, *args).c_source           # compiled again, with its kernels timed
    assert "pc_prof_add(0);" in source and "pc_profile_regions" in source
    net(*args)
    p.stop()
    recorded = len(p._recorder.events)
    net(*args)
    assert len(p._recorder.events) == recorded
    assert "pc_prof_add" not in ms.inspect(net, *args).c_source


def test_hostile_cell_names_reach_the_files_intact(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    evil = 'Evil"*/\\n??/\x01é'
    inner = type(evil, (nn.Cell,), {"construct": lambda self, x: ops.sin(x) * 2})

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c = inner()

        def construct(self, x):
            return self.c(x)

    net = Outer()
    x = Tensor(np.ones(8, np.float32))
    run, _ = _profiled(tmp_path, net, (x,), 1)
    names = {r["full_op_name"] for r in _detail(run)}
    assert any(n.startswith(f"Default/c-{evil}/") for n in names), names


def test_op_analyse_and_metadata(tmp_path):
    x = Tensor(np.ones(4, np.float32))
    p = Profiler(output_path=str(tmp_path))
    ops.add(x, x)
    ops.add(x, x)
    p.add_metadata("run", "a")
    p.add_metadata_json("cfg", '{"lr": 0.1}')
    p.add_metadata_json("bad", "{")                 # not JSON: skipped with MindSpore's warning
    p.analyse()
    got = json.loads(p.op_analyse("Add"))
    assert got["Add"]["op_occurrences"] == 2 and got["Add"]["op_total_time(ms)"] > 0
    assert json.loads(p.op_analyse(["Mul"]))["Mul"]["op_occurrences"] == 0
    with pytest.raises(TypeError, match="the parameter op_name must be str or list"):
        p.op_analyse(3)
    with open(os.path.join(p.output_path, "profiler_metadata.json")) as f:
        assert json.load(f) == {"run": "a", "cfg": {"lr": 0.1}}


def test_a_wrong_argument_type_is_reset_with_mindsporess_warning(tmp_path, capsys):
    # the same call the recorder made in the wheel; its warnings, in its order (data/profiler_layout.json)
    p = Profiler(output_path=str(tmp_path), start_profile="yes", with_stack=1, activities="cpu")
    err = capsys.readouterr().err
    got = ["For Profiler," + line.split("For Profiler,", 1)[1] for line in err.splitlines() if "For Profiler," in line]
    assert got == RECORDED["argument_warnings"] and len(got) == 3
    assert profiling.recording()          # start_profile reset to its default: started
    p.stop()


def test_ms_profiler_is_the_profiler():
    assert ms.Profiler is Profiler and ms.profiler.Profiler is Profiler


def test_fuzzed_programs_compiled_with_timers_equal_pynative(tmp_path):
    """The op fuzzer's programs (tests/compiler/fuzz_ops.py) compiled while a Profiler records: the
    timed C computes what PyNative computes, and its kernels are recorded. PYCOMPILE_FUZZ_EXAMPLES
    / 30 programs (10 by default; the soak's figures are in docs/RELIABILITY.md)."""
    from pycompile.common import knobs
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compiler"))
    import fuzz_ops as F
    count = max(10, knobs.get("PYCOMPILE_FUZZ_EXAMPLES") // 30)
    recorder = profiling.Recorder()
    profiling.begin(recorder)
    failures = {}
    for start in range(90000, 90000 + count, 10):
        failures.update(F.run_batch(list(range(start, min(start + 10, 90000 + count))), tmp_path))
    assert not failures, failures
    assert sum(1 for e in recorder.events if e.graph) >= count
