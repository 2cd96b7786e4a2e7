"""Identical functions emitted once. A model that repeats a layer (W6's blocks, a Python loop
unrolled over rows as in W3) gets one C function per fused node and per parallel region, and
many are the same code under another name: `k8_tile` and `k14_tile` both add a bias row, the
three LayerNorms of a block are three equal regions. The C compiler's time grows with the text
it optimizes, so a group of functions equal to an earlier group up to the ids in its names is
dropped and its uses go to the earlier one.

Groups: a kernel (`kN`, `kN_tile`, `kN_rows`, `kN_at`: elementwise.py) and a parallel region
(`typedef ... pc_rN_ctx;` and `pc_rN`: outline.py). Kernels go first, so regions that differed
only in the kernel they call become equal. It runs on the finished module text, after
outline.py, so it sees every way a function is called (element-wise drivers, GEMM epilogues,
reduction prologues, regions) without each emitter knowing.
"""
from __future__ import annotations

import re

_LOCAL = re.compile(r"\b([vp]\d+)\b")      # values and parameters: locals of a function
# a top-level function starts at column 0 and ends at the first line that is a lone `}`; per kind:
# (its first line, a reference to one, the id a reference names, the reference renamed)
_KERNEL = (re.compile(r"^static (?:inline )?(?:__attribute__\(\((?:always_inline|noinline)\)\) )?[\w ]+?\*?\s*k(\d+)(?:_[a-z]+)?\("),
           re.compile(r"\bk(\d+)(?=(?:_[a-z]+)?\()"),
           lambda m: m.group(1),
           lambda m, to: f"k{to}",
           re.compile(r"\bk(\d+)(?:_[a-z]+)?\b(?!\()"))   # named but not called (a pointer?): kept
_REGION = (re.compile(r"^(?:typedef struct \{.*\} pc_r(\d+)_ctx;|static void pc_r(\d+)\(void \*pc_arg)"),
           re.compile(r"\bpc_([rc])(\d+)\b|\bpc_r(\d+)_ctx\b"),
           lambda m: m.group(3) or m.group(2),
           lambda m, to: f"pc_r{to}_ctx" if m.group(3) else f"pc_{m.group(1)}{to}",
           None)


def dedup_functions(source: str) -> str:
    """`source` with duplicate kernels, then duplicate parallel regions, removed."""
    return _dedup(_dedup(source, *_KERNEL), *_REGION)


def _dedup(source: str, head, ref, id_of, renamed, bare) -> str:
    lines = source.split("\n")
    pinned = set(bare.findall(source)) if bare is not None else set()
    groups: dict = {}            # id -> [(first, last line)] of its definitions, in order
    i = 0
    while i < len(lines):
        m = head.match(lines[i])
        if m is None or (lines[i].rstrip().endswith(";") and not lines[i].startswith("typedef")):
            i += 1
            continue
        gid = next(g for g in m.groups() if g is not None)
        j = i
        if not lines[i].startswith("typedef"):
            while j < len(lines) and lines[j] != "}":
                j += 1
            if j == len(lines):
                return source    # not the layout this expects: leave the module as it is
        groups.setdefault(gid, []).append((i, j))
        i = j + 1
    first: dict = {}             # canonical text -> id that defines it
    rename: dict = {}            # dropped id -> kept id
    drop = set()
    for gid, spans in groups.items():
        if gid in pinned:
            continue
        text = "\n".join("\n".join(lines[a:b + 1]) for a, b in spans)
        text = ref.sub(lambda m: renamed(m, "X") if id_of(m) == gid else m.group(0), text)
        names: dict = {}         # locals numbered by first appearance
        key = _LOCAL.sub(lambda m: names.setdefault(m.group(1), f"w{len(names)}"), text)
        keep = first.setdefault(key, gid)
        if keep != gid:
            rename[gid] = keep
            for a, b in spans:
                drop.update(range(a, b + 1))
    if not rename:
        return source
    out = "\n".join(line for n, line in enumerate(lines) if n not in drop)
    # pc_cN is a local (a region's context) at the call site: left alone
    return ref.sub(lambda m: renamed(m, rename[id_of(m)]) if id_of(m) in rename and m.group(0)[:4] != "pc_c"
                   else m.group(0), out)
