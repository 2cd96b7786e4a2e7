"""The files Profiler.analyse writes: MindSpore 2.10's CPU profiler layout and formats.

    <output_path>/<host>_<pid>_<start time>_ascend_ms/
        FRAMEWORK/cpu_op_type_info_<rank>.csv        one row per op type
        FRAMEWORK/cpu_op_detail_info_<rank>.csv      one row per op (graph code: per kernel)
        FRAMEWORK/cpu_op_execute_timestamp_<rank>.txt   every execution: start (ns), duration (ms)
        FRAMEWORK/cpu_framework_<rank>.txt           every execution: type, name, input shapes
        ASCEND_PROFILER_OUTPUT/trace_view.json      Chrome's trace format (chrome://tracing,
                                                    Perfetto): the ops, and the Cell scopes
        ASCEND_PROFILER_OUTPUT/op_statistic.csv     pycompile's: per op type, with the count
        logs/profiler_<time>_<pid>.log
        profiler_metadata.json                      what add_metadata / add_metadata_json added

The columns, separators and units are MindSpore's (recorded from its wheel:
tests/oracle/data/profiler_layout.json). Rows of the detail and type tables are sorted by total
time, longest first (MindSpore's order is its hash maps'). Times are wall-clock: a graph kernel's
time includes its threads' work and its wait for them; a PyNative op's time is its whole call.
"""
from __future__ import annotations

import csv
import json
import os
import time


def _ms(ns: int) -> float:
    return ns / 1e6


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _short(e) -> str:
    return e.name.rsplit("/", 1)[-1]


def _shape_fields(shapes) -> str:
    return "".join(f"input_{k + 1}:{'NoShape' if s is None else str(s)};" for k, s in enumerate(shapes))


def write(directory: str, recorder, rank: int, epoch_offset_ns: int, steps: int, metadata: dict,
          log_lines: list) -> None:
    """Everything the profiler recorded into `directory` (created if missing)."""
    fw = os.path.join(directory, "FRAMEWORK")
    out = os.path.join(directory, "ASCEND_PROFILER_OUTPUT")
    logs = os.path.join(directory, "logs")
    for d in (fw, out, logs):
        os.makedirs(d, exist_ok=True)
    events = sorted(recorder.events, key=lambda e: e.start_ns)
    pid = os.getpid()
    total = sum(e.dur_ns for e in events) or 1
    by_name: dict = {}
    by_type: dict = {}
    for e in events:
        n = by_name.setdefault(e.name, [e, 0, 0, []])
        n[1] += e.count
        n[2] += e.dur_ns
        n[3].append(e)
        t = by_type.setdefault(e.op_type, [0, 0])
        t[0] += e.count
        t[1] += e.dur_ns

    with open(os.path.join(fw, f"cpu_op_type_info_{rank}.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["op_type", "type_occurrences", "execution_frequency(per-step)", "total_compute_time",
                    "avg_time(ms)", "percent"])
        for kind, (count, ns) in sorted(by_type.items(), key=lambda kv: -kv[1][1]):
            w.writerow([kind, count, _fmt(count / steps), _fmt(_ms(ns)), _fmt(_ms(ns) / count), _fmt(ns / total)])

    with open(os.path.join(fw, f"cpu_op_detail_info_{rank}.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["op_side", "op_type", "op_name", "full_op_name", "op_occurrences", "op_total_time(ms)",
                    "op_avg_time(ms)", "total_proportion", "subgraph", "pid"])
        for name, (first, count, ns, _) in sorted(by_name.items(), key=lambda kv: -kv[1][2]):
            w.writerow(["Host", first.op_type, _short(first), name, count, _fmt(_ms(ns)), _fmt(_ms(ns) / count),
                        _fmt(ns / total), "Default", pid])

    with open(os.path.join(fw, f"cpu_op_execute_timestamp_{rank}.txt"), "w") as f:
        for name, (_, _, _, evs) in by_name.items():
            runs = "".join(f"{e.start_ns + epoch_offset_ns},{_fmt(_ms(e.dur_ns))},0 " for e in evs)
            f.write(f"{name};HostCpuOps;{runs}\n")

    with open(os.path.join(fw, f"cpu_framework_{rank}.txt"), "w") as f:
        for e in events:
            f.write(f"{e.op_type};{_short(e)};{pid};{_shape_fields(e.shapes)}\n")

    with open(os.path.join(out, "trace_view.json"), "w") as f:
        json.dump(_trace(events, epoch_offset_ns), f)

    with open(os.path.join(out, "op_statistic.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["OP Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)"])
        for kind, (count, ns) in sorted(by_type.items(), key=lambda kv: -kv[1][1]):
            durs = [e.dur_ns / e.count for e in events if e.op_type == kind]
            w.writerow([kind, count, _fmt(ns / 1e3), _fmt(min(durs) / 1e3), _fmt(ns / 1e3 / count),
                        _fmt(max(durs) / 1e3), _fmt(100 * ns / total)])

    if metadata:
        with open(os.path.join(directory, "profiler_metadata.json"), "w") as f:
            json.dump(metadata, f, indent=4)

    stamp = time.strftime("%Y%m%d%H%M%S")
    with open(os.path.join(logs, f"profiler_{stamp}_{pid}.log"), "w") as f:
        f.writelines(line + "\n" for line in log_lines)


def _us(ns: int) -> str:
    return f"{ns / 1e3:.3f}"


def _trace(events, offset: int) -> list:
    """Chrome trace events: the ops (process 2, "CPU OP"), and per call of graph code the spans of
    its Cell scopes (process 3, "Scope Layer", one thread per depth), as MindSpore draws them."""
    def meta(pid, tid, name, args):
        return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}

    out = [meta(2, 0, "process_name", {"name": "CPU OP"}), meta(2, 0, "process_sort_index", {"sort_index": 2}),
           meta(2, 0, "process_labels", {"labels": "CPU"}), meta(2, 0, "thread_name", {"name": "Thread 0"}),
           meta(2, 0, "thread_sort_index", {"sort_index": 0})]
    for e in sorted(events, key=lambda e: e.name):
        args = {"type": "HostCpuOps"}
        if e.count > 1:
            args["count"] = e.count
        if e.graph:
            args["graph"] = e.graph
        out.append({"ph": "X", "name": e.name, "pid": 2, "tid": 0, "ts": _us(e.start_ns + offset),
                    "dur": _us(e.dur_ns), "cat": "", "args": args})
    spans: dict = {}            # (call, depth, scope) -> [start, end]
    for e in events:
        if not e.graph:
            continue
        parts = e.name.split("/")[:-1]
        for depth in range(len(parts)):
            key = (e.call, depth, "/".join(parts[:depth + 1]))
            s = spans.setdefault(key, [e.start_ns, e.start_ns + e.dur_ns])
            s[0] = min(s[0], e.start_ns)
            s[1] = max(s[1], e.start_ns + e.dur_ns)
    if spans:
        out += [meta(3, 0, "process_name", {"name": "Scope Layer"}), meta(3, 0, "process_sort_index", {"sort_index": 12})]
        for depth in sorted({k[1] for k in spans}):
            out += [meta(3, depth, "thread_name", {"name": f"Thread {depth}"}),
                    meta(3, depth, "thread_sort_index", {"sort_index": depth})]
        for (call, depth, scope), (s, t) in sorted(spans.items(), key=lambda kv: (kv[0][1], kv[1][0])):
            out.append({"ph": "X", "name": scope.rsplit("/", 1)[-1], "pid": 3, "tid": depth, "ts": _us(s + offset),
                        "dur": _us(t - s), "cat": "", "args": {}})
    return out
