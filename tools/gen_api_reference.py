"""Write the API reference (docs/api/*.md) from MindSpore 2.10's recorded name list and pycompile itself.

    python tools/gen_api_reference.py            # rewrite docs/api/
    python tools/gen_api_reference.py --check    # exit 1 if docs/api/ is not what this would write

One page per namespace of src/pycompile/data/mindspore_names.json (recorded from the MindSpore 2.10
wheel by tests/conformance/record_names.py), listing every MindSpore name with its status here:

* **pycompile**: present (the name resolves on pycompile's module, or on `pycompile.Tensor`, and is no
  importable stub that raises: `common.missing.unsupported_stub`) or not yet.
* **op**: for `ops` / `ops.operations` / `ops.functional` / `Tensor` names, the op-table row of the same
  name (`ops.Exp`, `ops.exp` and `Tensor.exp` -> `Exp`; case and underscores aside), with `grad` where it has a gradient rule and
  `vmap` where it has a batch rule of its own (others are batched by looping over the batch).
* **cases**: the recorded MindSpore conformance cases (tests/conformance/) that use the name and that
  pycompile runs, as `eager / compiled` counts; each is compared with MindSpore's recorded result in
  tests/conformance/test_conformance.py.

Nothing here is written by hand: tests/test_api_reference.py fails when docs/api/ is stale.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))

import pycompile  # noqa: E402
import pycompile.numpy  # noqa: E402,F401  (the mindspore.numpy page)
from pycompile.common.missing import mindspore_names, present  # noqa: E402
from pycompile.ops._table import OPS  # noqa: E402
from pycompile.ops.entry import ENTRIES, Entry  # noqa: E402

MODULES = {"ms": "pycompile", "ops": "pycompile.ops", "ops.operations": "pycompile.ops.operations",
           "ops.functional": "pycompile.ops.functional", "nn": "pycompile.nn", "train": "pycompile.train",
           "amp": "pycompile.amp", "communication": "pycompile.communication", "dataset": "pycompile.dataset",
           "dataset.vision": "pycompile.dataset.vision", "dataset.transforms": "pycompile.dataset.transforms",
           "dataset.text": "pycompile.dataset.text", "numpy": "pycompile.numpy"}
TITLES = {"ms": "mindspore (top level)", "Tensor": "mindspore.Tensor"}
OP_NAMESPACES = {"ops", "ops.operations", "ops.functional", "Tensor"}


def owner(namespace):
    if namespace == "Tensor":
        return pycompile.Tensor
    try:
        return importlib.import_module(MODULES[namespace])
    except ImportError:
        return None


def _key(name: str) -> str:
    return name.replace("_", "").lower()


_BY_KEY = {}
for _op in OPS.values():
    if not _op.graph_only:
        _BY_KEY.setdefault(_key(_op.name), _op)


def table_op(name: str):
    """The op-table row spelled like `name` up to case and underscores (`log_softmax` -> `LogSoftmax`)."""
    return OPS.get(name) or _BY_KEY.get(_key(name))


def entry_of(obj, name: str):
    """The op entry (ops/entries/) behind a functional, Primitive or Tensor name, if one is."""
    v = getattr(obj, name, None)
    e = getattr(v, "__wrapped_entry__", None) or getattr(v, "entry", None)
    if e is None and obj is pycompile.Tensor:
        e = next((x for x in ENTRIES.values() if x.tensor_method == name), None)
    return e if isinstance(e, Entry) else None


def case_counts() -> tuple[Counter, Counter]:
    """name as spelled in the cases (`ops.split`, `nn.LSTM`, `Tensor.sum`, `ms.tensor`) -> how many
    recorded cases pycompile runs eagerly, and compiled."""
    import conf_harness
    eager, compiled = Counter(), Counter()
    for case in conf_harness.load_cases(pycompile):
        if not _has_all(case.names):        # as test_conformance selects: every name present
            continue
        for n in set(case.names):
            eager[n] += 1
            if case.graph:
                compiled[n] += 1
    return eager, compiled


def _has_all(names) -> bool:
    for spelled in names:
        head, _, rest = spelled.partition(".")
        obj = {"ms": pycompile, "ops": pycompile.ops, "nn": pycompile.nn, "Tensor": pycompile.Tensor,
               "numpy": pycompile.numpy}.get(head)
        for part in rest.split("."):
            if obj is None or not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
    return True


def _case_key(namespace: str, name: str) -> str:
    if namespace in ("ops.operations", "ops.functional"):
        return f"ops.{name}"
    return f"{namespace}.{name}"


def page(namespace: str, entries: dict, eager: Counter, compiled: Counter) -> tuple[str, int]:
    obj = owner(namespace)
    rows, count = [], 0
    op_cols = namespace in OP_NAMESPACES
    for name, entry in sorted(entries.items(), key=lambda kv: kv[0].lower()):
        here = obj is not None and present(obj, name)
        count += here
        cells = [f"`{name}`", entry["kind"], "yes" if here else "not yet"]
        if op_cols:
            ent = entry_of(obj, name) if here else None
            op = table_op(name) if here and ent is None else None
            marks = [] if op is None else ["grad"] * (op.grad is not None) + \
                ["vmap"] * (op.batch not in (None, "loop"))
            cells.append(f"entry `{ent.impl.__module__.rsplit('.', 1)[-1]}` (decomposition)" if ent is not None
                         else f"`{op.name}` {' '.join(marks)}".strip() if op is not None else "")
        key = _case_key(namespace, name)
        cells.append(f"{eager[key]} / {compiled[key]}" if eager[key] else "")
        sig = entry.get("signature", "")
        cells.append(f"`{sig}`".replace("|", "\\|") if sig and len(sig) <= 120 else ("…" if sig else ""))
        rows.append("| " + " | ".join(cells) + " |")
    total = len(entries)
    title = TITLES.get(namespace, f"mindspore.{namespace}")
    head = ["| name | kind | pycompile | " + ("op (rules) | " if op_cols else "") + "cases eager / compiled | "
            "MindSpore 2.10 signature |",
            "|---|---|---|" + ("---|" if op_cols else "") + "---|---|"]
    text = [f"# {title}", "",
            f"Generated by `tools/gen_api_reference.py` from MindSpore 2.10's public names (recorded from its "
            f"wheel) and pycompile itself; do not edit. **{count} of {total}** names are present "
            f"({count / total:.0%}).", "",
            "*pycompile*: whether the name exists here. A MindSpore name that does not raises "
            "`AttributeError` saying it is not supported yet, eagerly and in graph code.",
            ("*op (rules)*: the op-table row behind the name, with `grad` where it has a gradient rule and "
             "`vmap` where it has a batch rule of its own (others are batched by looping over the batch); or "
             "the op entry (`ops/entries/<file>.py`) whose decomposition defines it, differentiated and "
             "batched through the ops it is made of. "
             if op_cols else "") +
            "*cases*: recorded MindSpore conformance cases using the name that pycompile runs, eagerly / "
            "compiled, each compared with MindSpore's result.", ""] + head + rows
    return "\n".join(text) + "\n", count


def render() -> dict[str, str]:
    eager, compiled = case_counts()
    pages, summary = {}, []
    names = mindspore_names()
    for namespace in sorted(names, key=lambda n: (n != "ms", n)):
        text, count = page(namespace, names[namespace], eager, compiled)
        pages[f"{namespace}.md"] = text
        summary.append((namespace, count, len(names[namespace])))
    have, total = sum(p for _, p, _ in summary), sum(t for _, _, t in summary)
    index = ["# API reference", "",
             "Every public name of MindSpore 2.10, namespace by namespace, with its status in pycompile. "
             "The pages are generated by `python tools/gen_api_reference.py` from the name list recorded "
             "from the MindSpore 2.10 wheel (`src/pycompile/data/mindspore_names.json`) and from pycompile "
             "itself; a test fails when they are stale.", "",
             f"**{have} of {total}** names present ({have / total:.1%}).", "",
             "| namespace | present | of | share |", "|---|---|---|---|"]
    for namespace, count, n in summary:
        title = TITLES.get(namespace, f"mindspore.{namespace}")
        index.append(f"| [{title}]({namespace}.md) | {count} | {n} | {count / n:.0%} |")
    pages["index.md"] = "\n".join(index) + "\n"
    return pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with docs/api/ instead of writing it")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "api"))
    args = parser.parse_args(argv)
    pages = render()
    if args.check:
        stale = []
        for name, text in pages.items():
            path = os.path.join(args.out, name)
            if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
                stale.append(name)
        extra = sorted(set(os.listdir(args.out)) - set(pages)) if os.path.isdir(args.out) else []
        if stale or extra:
            print(f"docs/api is stale ({', '.join(stale + extra)}): run python tools/gen_api_reference.py")
            return 1
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name in set(os.listdir(args.out)) - set(pages):
        if name.endswith(".md"):
            os.remove(os.path.join(args.out, name))
    for name, text in pages.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"wrote {len(pages)} pages to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
