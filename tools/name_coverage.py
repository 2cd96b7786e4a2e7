"""Which of MindSpore 2.10's names that pycompile has are covered by a recorded conformance case.

    PYTHONPATH=src python tools/name_coverage.py                  # the table: present / covered / uncovered
    PYTHONPATH=src python tools/name_coverage.py --uncovered FILE # + the uncovered names, one a line

The names are MindSpore 2.10's public API as its wheel enumerates it (`pycompile.common.missing.
mindspore_names()`, one list per namespace: ``ms``, ``ops``, ``ops.operations``, ``ops.functional``,
``nn``, ``Tensor``, ``train``, ``amp``, ``communication``, ``dataset`` (+ ``.vision``, ``.transforms``,
``.text``), ``numpy``). A name pycompile has (`present`) is *covered* when a case of
tests/conformance/ that pycompile runs (every name it lists present, recorded from the wheel, not
skipped in both modes for lack of a MindSpore CPU kernel, no ``oracle_bug``, no ``KNOWN_DIFFERENCES``
entry) names it, either as spelled (``ops.relu``, ``ops.operations.ReLU``, ``dataset.vision.Resize``,
``Tensor.abs``) or through another spelling of the same pycompile object: ``ops.functional.relu`` is
``ops.relu``, ``ops.operations.ReLU`` is ``ops.ReLU``, ``ms.Model`` is ``train.Model`` (identity of
classes and functions only, never for Tensor methods; a constant such as ``ms.float32`` must be named).

tests/conformance/test_name_coverage.py requires every present name covered except the committed
exemptions there (each with its reason).
"""
from __future__ import annotations

import argparse
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pycompile.common.missing import mindspore_names, present  # noqa: E402

from gen_api_reference import MODULES, owner  # noqa: E402  (one table of namespaces: the API reference's)


def split_name(spelled: str) -> tuple[str, str]:
    """A case's name -> (namespace, name): the longest namespace that prefixes it
    (``dataset.vision.Resize`` -> ("dataset.vision", "Resize"))."""
    head = max((ns for ns in list(MODULES) + ["Tensor"] if spelled.startswith(ns + ".")), key=len, default="")
    return head, spelled[len(head) + 1:]


def _aliasable(obj) -> bool:
    """Objects whose identity says two spellings are one API: classes and functions, not constants."""
    return isinstance(obj, type) or isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) or (
        callable(obj) and not isinstance(obj, (int, float, str, bytes, tuple)))


def covering_cases(cases, records, known_differences=()) -> list:
    """The cases that count: pycompile runs them (every name present) and compares them with a
    record in at least one mode."""
    import test_conformance as T
    out = []
    for c in cases:
        rec = records.get(c.id)
        if rec is None or c.oracle_bug or c.id in known_differences:
            continue
        if not all(T.implemented(n) for n in c.names):
            continue
        if T.expected(rec, "eager", c)[0] is None and T.expected(rec, "compiled", c)[0] is None:
            continue
        out.append(c)
    return out


def coverage(cases) -> dict:
    """namespace -> {"present": [...], "covered": [...], "uncovered": [...]} (names sorted)."""
    named = {split_name(n) for c in cases for n in c.names}
    ids = set()
    for ns, name in named:
        obj = getattr(owner(ns), name, None) if owner(ns) is not None else None
        if obj is not None and _aliasable(obj):
            ids.add(id(obj))
    out = {}
    for ns, entries in sorted(mindspore_names().items()):
        own = owner(ns)
        have = sorted(n for n in entries if own is not None and present(own, n))
        cov, unc = [], []
        for n in have:
            obj = getattr(own, n)
            hit = (ns, n) in named or (ns != "Tensor" and _aliasable(obj) and id(obj) in ids)
            (cov if hit else unc).append(n)
        out[ns] = {"present": have, "covered": cov, "uncovered": unc}
    return out


def table(cov: dict) -> str:
    lines = [f"{'namespace':20s} {'present':>8s} {'covered':>8s} {'uncovered':>9s}"]
    for ns, d in cov.items():
        lines.append(f"{ns:20s} {len(d['present']):8d} {len(d['covered']):8d} {len(d['uncovered']):9d}")
    tot = [sum(len(d[k]) for d in cov.values()) for k in ("present", "covered", "uncovered")]
    lines.append(f"{'all':20s} {tot[0]:8d} {tot[1]:8d} {tot[2]:9d}")
    return "\n".join(lines)


def measure() -> dict:
    import test_conformance as T
    return coverage(covering_cases(T.CASES, T.RECORDS, T.KNOWN_DIFFERENCES))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uncovered", metavar="FILE", help="write the uncovered names (namespace.name), one a line")
    args = ap.parse_args(argv)
    cov = measure()
    print(table(cov))
    if args.uncovered:
        with open(args.uncovered, "w") as f:
            for ns, d in cov.items():
                f.writelines(f"{ns}.{n}\n" for n in d["uncovered"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
