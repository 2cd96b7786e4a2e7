"""Write api_usage.json from API_USAGE.md (run by hand when either changes; README.md).

    . /work/conf-venv/bin/activate     # a venv with pycompile installed
    python tests/conformance/extract_usage.py /work/shared/API_USAGE.md

API_USAGE.md ranks the MindSpore names pycompile did not have when it was written, by their
uses in real model code. The JSON keeps, of its rows, the names of the families this table
covers ("ops, activations, losses, sequence", "CNN", "training", "autodiff") spelled in the
namespaces the table maps (`ms.`, `ops.`, `nn.`, `Tensor.`), with their uses and family; its
ops+nn measure (the uses of names pycompile had, over all ops.* + nn.* uses); and, since the
markdown lists only names pycompile lacked, the ops / nn / Tensor names pycompile exports now
(`implemented`, uses unknown), minus those that are not MindSpore APIs or cannot be compared
here (`excluded`, with the reason). The tests read only the JSON, never the markdown.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

FAMILIES = ("ops, activations, losses, sequence", "CNN", "training", "autodiff")
NAMESPACES = ("ms.", "ops.", "nn.", "Tensor.")
OUT = Path(__file__).resolve().parent / "api_usage.json"

# pycompile exports that are not MindSpore 2.10 APIs, or that this table cannot compare
EXCLUDED = {
    "ops.Effect": "pycompile's op table machinery, not a MindSpore API",
    "ops.OPS": "pycompile's op table machinery, not a MindSpore API",
    "ops.OpDef": "pycompile's op table machinery, not a MindSpore API",
    "ops.apply": "pycompile's op table machinery, not a MindSpore API",
    "ops.batching": "a pycompile module, not a MindSpore API",
    "ops.defs": "a pycompile module, not a MindSpore API",
    "ops.getitem": "not a MindSpore 2.10 API (Tensor.__getitem__ is)",
    "ops.print_values": "not a MindSpore API",
    "ops.all_finite": "not a MindSpore 2.10 API",
    "ops.bitwise_not": "not a MindSpore 2.10 API",
    "ops.hswish": "not a MindSpore 2.10 API",
    "ops.tensor_move": "not a MindSpore 2.10 API",
    "ops.TensorMove": "not a MindSpore 2.10 API (an internal primitive)",
    "ops.functional": "a module",
    "ops.operations": "a module",
    "ops.composite": "a module",
    "ops.Primitive": "the base class of primitives",
    "ops.Print": "writes to stdout; its formats are tested in tests/spec",
    "ops.NPUAllocFloatStatus": "Ascend only: MindSpore's CPU build has no kernel",
    "ops.NPUClearFloatStatus": "Ascend only: MindSpore's CPU build has no kernel",
    "ops.NPUGetFloatStatus": "Ascend only: MindSpore's CPU build has no kernel",
    "nn.layers": "a pycompile module, not a MindSpore API",
    "nn.cell": "a module",
    "nn.loss": "a module",
    "Tensor.relu": "not a MindSpore 2.10 Tensor method",
    "Tensor.set_data": "not a MindSpore 2.10 Tensor method (Parameter.set_data is)",
}

ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d*)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$")
MEASURE = re.compile(r"usage-weighted presence, ops\+nn:\s*(\d+)\s*/\s*(\d+)")


def pycompile_names() -> list[str]:
    import pycompile
    out = []
    for ns, obj in (("ops", pycompile.ops), ("nn", pycompile.nn), ("Tensor", pycompile.Tensor)):
        out += [f"{ns}.{n}" for n in dir(obj) if not n.startswith("_")]
    return sorted(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    md = Path(argv[0] if argv else "/work/shared/API_USAGE.md").read_text()
    m = MEASURE.search(md)
    if not m:
        raise SystemExit("no 'usage-weighted presence, ops+nn' line in the markdown")
    names, skipped = [], {"family": 0, "namespace": 0}
    for line in md.splitlines():
        r = ROW.match(line)
        if not r:
            continue
        rank, name, uses, files, family, note = r.groups()
        if family not in FAMILIES:
            skipped["family"] += 1
            continue
        if not name.startswith(NAMESPACES):
            skipped["namespace"] += 1
            continue
        entry = {"name": name, "uses": int(uses), "family": family, "rank": int(rank)}
        if note:
            entry["note"] = note
        names.append(entry)
    listed = {e["name"] for e in names}
    implemented = [{"name": n, "uses": None, "family": "implemented in pycompile"}
                   for n in pycompile_names() if n not in EXCLUDED and n not in listed]
    data = {
        "source": "API_USAGE.md: MindSpore names pycompile did not have, ranked by uses in 1,757 files of "
                  "four public MindSpore code bases (against MindSpore 2.10)",
        "families": list(FAMILIES),
        "measure_ops_nn": {"present": int(m.group(1)), "total": int(m.group(2)),
                           "meaning": "uses of ops.* + nn.* names pycompile had when API_USAGE.md was written, "
                                      "over all ops.* + nn.* uses"},
        "skipped_rows": skipped,
        "names": names,
        "implemented": implemented,
        "excluded": EXCLUDED,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT.name}: {len(names)} listed names, {len(implemented)} implemented names, "
          f"{len(EXCLUDED)} excluded; skipped rows {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
