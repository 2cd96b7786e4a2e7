"""Record MindSpore's results for every case of cases.py into data/<group>.json.

Runs ONLY in a venv with MindSpore (2.10) installed; pytest never collects it (conftest.py):

    . /work/ms-venv/bin/activate && python tests/conformance/record.py            # every case
    python tests/conformance/record.py --only split_ chunk_                        # ids starting so

Each case runs in PyNative mode and, unless it is marked graph=False, compiled (`ms.jit(fn)`,
or the Cell in GRAPH_MODE); an exception is a recorded outcome. One process runs everything
(MindSpore imports slowly); its graph dumps (rank_0/, analyze_fail.ir) go to a temporary
directory. The format is described in README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("GLOG_v", "3")          # MindSpore: errors only

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import conf_harness as H  # noqa: E402


def resolve(ms, name: str) -> bool:
    return H.has_name(ms, name)


def record_case(ms, case: H.Case) -> dict:
    rec = {"names": list(case.names), "kind": case.kind,
           "inputs": [H.encode_array(a) for a in case.inputs]}
    rec["pynative"] = H.outcome(lambda: H.call_case(case, ms, graph=False))
    if case.graph:
        g = H.outcome(lambda: H.call_case(case, ms, graph=True))
        rec["graph"] = "same" if g == rec["pynative"] else g
    else:
        rec["graph"] = None
        rec["graph_reason"] = case.reason
    if case.kind == "cell":
        try:
            a, b = case.fn(), case.fn()
            rec["params"] = H.param_table(a)
            for (name, p), (_, q) in zip(a.parameters_and_names(), b.parameters_and_names()):
                if not (p.asnumpy() == q.asnumpy()).all():
                    print(f"WARNING: {case.id}: Parameter {name} is initialised randomly; set it from an array")
        except Exception as e:      # noqa: BLE001
            rec["params"] = H.encode_error(e)
    return rec


def write_group(path: Path, version: str, cases: dict) -> None:
    lines = [f'  {json.dumps(cid)}: {json.dumps(rec, separators=(",", ":"), allow_nan=False)}'
             for cid, rec in sorted(cases.items())]
    path.write_text('{\n "mindspore": ' + json.dumps(version) + ',\n "cases": {\n' + ",\n".join(lines) + "\n }\n}\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None, help="record only case ids starting with these prefixes")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)

    import mindspore as ms
    # synchronous PyNative: an op's error is raised by its own case, not by a later one
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", pynative_synchronize=True)
    cases = H.load_cases(ms)

    unknown = sorted({n for c in cases for n in c.names if not resolve(ms, n)})
    if unknown:
        print(f"names MindSpore {ms.__version__} does not have: {unknown}", file=sys.stderr)
        return 1

    selected = [c for c in cases if args.only is None or any(c.id.startswith(p) for p in args.only)]
    records = {}
    if args.only is not None:          # keep the other cases' records
        records = {cid: rec for cid, rec in H.load_records().items() if cid in {c.id for c in cases}}
        for rec in records.values():
            rec.pop("file", None), rec.pop("mindspore", None)
    t0 = time.time()
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for i, case in enumerate(selected):
                t = time.time()
                records[case.id] = rec = record_case(ms, case)
                if args.verbose:
                    print(f"[{i + 1}/{len(selected)}] {case.id}: {H._short(rec['pynative'])} "
                          f"({time.time() - t:.2f} s)", flush=True)
        finally:
            os.chdir(cwd)

    by_group: dict[str, dict] = {}
    for c in cases:
        if c.id in records:
            by_group.setdefault(c.group, {})[c.id] = records[c.id]
    H.DATA.mkdir(exist_ok=True)
    for group, recs in sorted(by_group.items()):
        write_group(H.DATA / f"{group}.json", ms.__version__, recs)
    for path in H.DATA.glob("*.json"):      # files of groups that no longer exist
        if path.stem not in by_group:
            path.unlink()
    for c in selected:
        rec = records[c.id]
        raised = "error" in rec["pynative"]
        if raised != c.error:
            what = "raises" if raised else "does not raise"
            print(f"note: {c.id} {what} in MindSpore (error={c.error}): {H._short(rec['pynative'])}")
        g = rec["graph"]
        if g not in ("same", None) and not ("error" in g and "error" in rec["pynative"]
                                            and g["error"]["type"] == rec["pynative"]["error"]["type"]):
            print(f"note: {c.id} differs in graph mode: {H._short(rec['graph'])} "
                  f"(PyNative: {H._short(rec['pynative'])})")
    n_err = sum(1 for c in selected if "error" in records[c.id]["pynative"])
    print(f"recorded {len(selected)} cases ({n_err} raise in PyNative) into {len(by_group)} files "
          f"in {time.time() - t0:.0f} s with MindSpore {ms.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
