#!/usr/bin/env python3
"""MindSpore's own CPU op tests (../shared/mindspore-tests) against this checkout's pycompile,
compared with the committed baseline of passing tests.

    python tools/mindspore_suite.py                       # every file, -j 1, under nice
    python tools/mindspore_suite.py test_acos_op.py -j 2  # files whose path contains a pattern
    python tools/mindspore_suite.py --results out/mst/run.jsonl   # re-summarise a finished run
    python tools/mindspore_suite.py --results A/run.jsonl --update-from B/run.jsonl  # B's files rerun
    python tools/mindspore_suite.py --write-baseline      # after a full run: record the new baseline
    python tools/mindspore_suite.py --results A/run.jsonl --write-baseline --keep-unrun  # a partial run's
                                                          # files replace theirs in the committed baseline

It runs the suite's own runner (run.py, one pytest process per file, only the tests real
MindSpore 2.10 CPU passes) with this Python and this checkout's src/ first on the path, then its
report.py (written to OUT/summary.md), and writes OUT/summary.json: the pass rate (tests passed /
MindSpore-passing tests), files passing whole, per-file counts and failure classes (report.py's:
a missing name, b wrong value, c wrong exception, d crash, e unsupported, f other, n numpy 2 in
test code). A test the baseline (tests/conformance/mindspore_suite_baseline.json) lists as passing
that does not pass now is a regression: they are printed and the exit status is 1. Only the files
run are compared, so a pattern run checks those files.

Not collected by pytest (it takes tens of minutes; docs/CONFORMANCE.md). Nothing is written into
the suite's folder; results go to OUT (default out/mst/<time>/, git-ignored).
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_suite() -> str:
    """$PYCOMPILE_MINDSPORE_TESTS, else shared/mindspore-tests beside the checkout or a folder above
    it (a worktree sits deeper than the main checkout)."""
    if os.environ.get("PYCOMPILE_MINDSPORE_TESTS"):
        return os.environ["PYCOMPILE_MINDSPORE_TESTS"]
    d = os.path.dirname(ROOT)
    while True:
        cand = os.path.join(d, "shared", "mindspore-tests")
        if os.path.isdir(cand) or os.path.dirname(d) == d:
            return cand if os.path.isdir(cand) else os.path.join(os.path.dirname(ROOT), "shared", "mindspore-tests")
        d = os.path.dirname(d)


BASELINE = os.path.join(ROOT, "tests", "conformance", "mindspore_suite_baseline.json")


def norm_id(nodeid: str) -> str:
    """numpy 2 spells np.bool_ 'bool' in parametrized ids, numpy 1.26 'bool_' (report.py's rule)."""
    return re.sub(r"\bbool_\b", "bool", nodeid)


def load_jsonl(path: str) -> list:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_report_module(suite: str):
    """The suite's report.py, for its failure classification (one definition of the classes)."""
    spec = importlib.util.spec_from_file_location("_mst_report", os.path.join(suite, "report.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def python_wrapper(out_dir: str, python: str, src: str) -> str:
    """run.py sets PYTHONPATH itself (shim first): a wrapper appends this checkout's src/ to it,
    ahead of any installed pycompile (site-packages comes after PYTHONPATH)."""
    path = os.path.join(out_dir, "python.sh")
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexport PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}%s"\nexec %s "$@"\n' % (src, python))
    os.chmod(path, 0o755)
    return path


def run_suite(args, out_dir: str, results: str) -> None:
    py = python_wrapper(out_dir, args.python, os.path.abspath(args.src))
    cmd = ["nice", "-n", str(args.nice), sys.executable, os.path.join(args.suite, "run.py"), "--python", py,
           "--oracle", os.path.join(args.suite, "oracle", "ms_cpu.jsonl"), "--out", results,
           "-j", str(args.jobs), "--timeout", str(args.timeout), "--logdir", os.path.join(out_dir, "logs")]
    if args.resume:
        cmd.append("--resume")
    cmd += args.patterns
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=False)


def summarise(suite: str, results: str) -> dict:
    """Per MindSpore-passing test of the files run: passed or the failure class (report.py's)."""
    rep = load_report_module(suite)
    oracle = load_jsonl(os.path.join(suite, "oracle", "ms_cpu.jsonl"))
    pyc = load_jsonl(results)
    ms_pass = {norm_id(r["nodeid"]): r["file"] for r in oracle if r["kind"] == "test" and r["outcome"] == "passed"}
    runs = {r["file"]: r for r in pyc if r["kind"] == "file"}
    partial = {f for f, r in runs.items() if r.get("selection")}
    tests = {norm_id(r["nodeid"]): r for r in pyc if r["kind"] == "test"}
    import_err = {r["file"]: r for r in pyc if r["kind"] == "test" and r.get("collect_error")}
    per_test = {}
    for nid, f in ms_pass.items():
        if f not in runs:
            continue
        r = tests.get(nid) or (dict(import_err[f], nodeid=nid) if f in import_err else None)
        if r is None:
            if f in partial:
                continue  # not selected in this run
            per_test[nid] = ("x", "no pycompile result for test")
            continue
        if r["outcome"] == "passed":
            per_test[nid] = ("passed", "")
            continue
        if r["outcome"] == "skipped":
            cls, name = "f", None
        else:
            cls, name = rep.classify(r["outcome"], r.get("reason", ""), r.get("exc_type", ""))
            if rep.expects_exception(nid) and (cls == "f" or (cls == "b" and "assert '" in (r.get("reason") or ""))):
                cls = "c"
        per_test[nid] = (cls, name or (r.get("reason") or r["outcome"])[:160])
    per_file = collections.defaultdict(lambda: [0, 0])
    for nid, (cls, _) in per_test.items():
        per_file[ms_pass[nid]][0] += 1
        per_file[ms_pass[nid]][1] += cls == "passed"
    fails = [v for v in per_test.values() if v[0] != "passed"]
    missing = collections.Counter(name for cls, name in fails if cls == "a")
    n_pass = sum(v[0] == "passed" for v in per_test.values())
    return {
        "files_run": len(per_file),
        "ms_passing_tests": len(per_test),
        "passed": n_pass,
        "rate_percent": round(100.0 * n_pass / max(1, len(per_test)), 2),
        "ms_passing_tests_whole_suite": len(ms_pass),
        "files_passing_whole": sum(p == n for n, p in per_file.values()),
        "failure_classes": dict(sorted(collections.Counter(c for c, _ in fails).items())),
        "top_missing_names": missing.most_common(25),
        "per_file": {f.replace("tests/st/ops/cpu/", ""): {"ms_passing": n, "passed": p}
                     for f, (n, p) in sorted(per_file.items())},
        "passed_ids": sorted(nid for nid, (c, _) in per_test.items() if c == "passed"),
        "failed": {nid: list(v) for nid, v in sorted(per_test.items()) if v[0] != "passed"},
    }


def keep_unrun(summary: dict, baseline_path: str) -> dict:
    """The summary of a partial run completed with the committed baseline's entries for the files
    it did not run (their counts and passing tests); failure classes stay those of the files run."""
    with open(baseline_path) as f:
        base = json.load(f)
    per_file = dict(base["per_file"])
    per_file.update(summary["per_file"])
    ran = {"tests/st/ops/cpu/" + name for name in summary["per_file"]}
    passed = sorted(set(summary["passed_ids"]) | {nid for nid in base["passed_ids"] if nid.split("::")[0] not in ran})
    n_tests = sum(v["ms_passing"] for v in per_file.values())
    out = dict(summary, per_file=dict(sorted(per_file.items())), passed_ids=passed, passed=len(passed),
               files_run=len(per_file), ms_passing_tests=n_tests,
               rate_percent=round(100.0 * len(passed) / max(1, n_tests), 2),
               files_passing_whole=sum(v["ms_passing"] == v["passed"] for v in per_file.values()))
    print(f"with the baseline's {len(per_file) - len(summary['per_file'])} files this run did not cover: "
          f"{out['passed']} / {n_tests} = {out['rate_percent']}%, {out['files_passing_whole']} files whole")
    return out


def merge_runs(base: str, updates: list, out: str) -> str:
    """base's records with those of each file an update run covered replaced by the update's."""
    recs = load_jsonl(base)
    for path in updates:
        new = load_jsonl(path)
        files = {r["file"] for r in new if r.get("kind") == "file"}
        recs = [r for r in recs if r.get("file") not in files] + new
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    return out


def compare(summary: dict, baseline: dict) -> tuple[list, list]:
    """(regressions, new passes) among the tests this run covered."""
    covered = set(summary["passed_ids"]) | set(summary["failed"])
    before = {nid for nid in baseline.get("passed_ids", []) if nid in covered}
    now = set(summary["passed_ids"])
    return sorted(before - now), sorted(now - set(baseline.get("passed_ids", [])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patterns", nargs="*", help="run only files whose path contains one (run.py's patterns)")
    ap.add_argument("--suite", default=default_suite(), help="the mindspore-tests folder (default ../shared/...)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with pytest, numpy, scipy")
    ap.add_argument("--oracle-numpy", action="store_true",
                    help="run the tests under numpy 1.26.4, the numpy the oracle ran MindSpore 2.10 with: a venv "
                         "in out/venv-np126 (made on first use: numpy==1.26.4, scipy, pytest and pycompile's "
                         "runtime dependencies) replaces --python. The suite's test code uses names numpy 2 "
                         "removed (np.complex_, np.array([-1], np.uint8)); this is the figure the README gives")
    ap.add_argument("--out", help="output folder (default out/mst/<time>)")
    ap.add_argument("--src", default=os.path.join(ROOT, "src"),
                    help="the pycompile sources to test (default this checkout's src/; the C headers are "
                         "found in csrc/ beside it)")
    ap.add_argument("--snapshot", action="store_true",
                    help="test a copy of src/ and csrc/ (in OUT/snapshot) so edits during a long run do not "
                         "change what it tests")
    ap.add_argument("--results", help="summarise this run.py JSONL instead of running")
    ap.add_argument("--update-from", action="append", default=[], metavar="JSONL",
                    help="with --results: the files of this (later, partial) run replace theirs in --results")
    ap.add_argument("--resume", action="store_true", help="continue the run in --out (its run.jsonl)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=300, help="per test file, seconds")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--write-baseline", action="store_true", help="record this run as the baseline")
    ap.add_argument("--keep-unrun", action="store_true",
                    help="with --write-baseline: the files this (partial) run did not cover keep the committed "
                         "baseline's counts and passing tests (a full run's figures, updated by a rerun of some files)")
    args = ap.parse_args()
    if not os.path.isdir(args.suite):
        print(f"no MindSpore test suite at {args.suite}: nothing to run")
        return 0
    if args.oracle_numpy and not args.results:
        args.python = oracle_numpy_python()
    out_dir = args.out or os.path.join(ROOT, "out", "mst", time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out_dir, exist_ok=True)
    results = args.results or os.path.join(out_dir, "run.jsonl")
    if args.update_from:
        if not args.results:
            ap.error("--update-from needs --results")
        results = merge_runs(args.results, args.update_from, os.path.join(out_dir, "merged.jsonl"))
    if args.snapshot and not args.results:
        snap = os.path.join(out_dir, "snapshot")
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
        for part in ("src", "csrc"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(snap, part), ignore=ignore, dirs_exist_ok=True)
        args.src = os.path.join(snap, "src")
    if not args.results:
        run_suite(args, out_dir, results)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        subprocess.run([sys.executable, os.path.join(args.suite, "report.py"), "--pyc", results], stdout=f,
                       check=False)
    s = summarise(args.suite, results)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(s, f, indent=1)
    print(f"pass rate: {s['passed']} / {s['ms_passing_tests']} MindSpore-passing tests = {s['rate_percent']}% "
          f"({s['files_run']} files run, {s['files_passing_whole']} pass whole; the whole suite has "
          f"{s['ms_passing_tests_whole_suite']})")
    print("failure classes:", s["failure_classes"])
    for name, n in s["top_missing_names"][:10]:
        print(f"  missing {name}: {n} tests")
    print(f"report: {os.path.join(out_dir, 'summary.md')}")
    status = 0
    if os.path.exists(args.baseline):
        with open(args.baseline) as f:
            base = json.load(f)
        regressions, gains = compare(s, base)
        print(f"against the baseline ({base.get('passed')} passed): {len(gains)} newly passing, "
              f"{len(regressions)} regressions")
        for nid in regressions:
            print(f"  REGRESSION {nid}: {s['failed'].get(nid)}")
        status = 1 if regressions else 0
    if args.write_baseline:
        keep = ("files_run", "ms_passing_tests", "passed", "rate_percent", "files_passing_whole",
                "failure_classes", "per_file", "passed_ids")
        if args.keep_unrun and os.path.exists(args.baseline):
            s = keep_unrun(s, args.baseline)
        base = {k: s[k] for k in keep}
        base["recorded_with"] = {"python": sys.version.split()[0], "numpy": _numpy_version(args.python)}
        with open(args.baseline, "w") as f:
            json.dump(base, f, indent=0)
            f.write("\n")
        print(f"baseline written: {args.baseline}")
    return status


ORACLE_NUMPY_VENV = os.path.join(ROOT, "out", "venv-np126")


def oracle_numpy_python() -> str:
    """The interpreter of out/venv-np126, made when missing: the oracle's numpy (1.26.4), the suite's
    needs (pytest, scipy) and pycompile's runtime dependencies from pyproject.toml (pycompile itself
    comes from --src on PYTHONPATH, as with any --python)."""
    py = os.path.join(ORACLE_NUMPY_VENV, "bin", "python")
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        block = re.search(r"^dependencies = \[(.*?)\]", f.read(), re.S | re.M).group(1)
    deps = [d for d in re.findall(r'"([^"]+)"', block) if not d.startswith("numpy")]
    if os.path.exists(py) and _numpy_version(py) == "1.26.4":
        # a dependency added since the venv was made (ml_dtypes): pip leaves satisfied ones alone
        subprocess.run([py, "-m", "pip", "install", "-q", "numpy==1.26.4", *deps], check=True)
        return py
    subprocess.run([sys.executable, "-m", "venv", ORACLE_NUMPY_VENV], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "numpy==1.26.4", "scipy", "pytest", "pillow", *deps], check=True)
    return py


def _numpy_version(python: str) -> str:
    r = subprocess.run([python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True)
    return r.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
