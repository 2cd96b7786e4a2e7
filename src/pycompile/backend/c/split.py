"""Split a very long generated C function into parts, so the C compiler's time stays linear.

GCC's time on one function grows faster than its length (a 10,000-op graph as one pc_entry took
212 s, almost all in cc); on many functions of bounded size it grows with their number. A
function body longer than SPLIT_LINES is cut between its top-level statements into parts of
about PART_LINES lines, each a static function the original calls in order:

    struct f_frame { float *v12; int64_t s7; ... };        the locals that cross a cut
    static int f_part0(void **args, char *const arena, const int nt, struct f_frame *F) {
        <the function's parameter pointers>
        float *const v12 = F->v12; ...                      locals declared by earlier parts
        <statements>
        F->v12 = v12; ...                                   locals later parts read
        return 0;                                           (an error code returns early)
    }
    int f(void **args) { ...; struct f_frame F; int rc;
                         if ((rc = f_part0(args, arena, nt, &F)) != 0) return rc; ... return 0; }

Every generated local is declared at the top level of the function or inside one statement, and
its name is unique in the function (backend/c/naming.py), so which locals cross a cut is read off
the text: top-level declarations, and identifiers of later parts. A mention in a comment only
adds a copy. OpenMP regions inside a part see that part's locals, as before.
"""
from __future__ import annotations

import re

SPLIT_LINES = 1500         # split bodies longer than this
PART_LINES = 400           # aim for parts this long (a top-level statement is never cut)

_TYPES = ("float _Complex", "double _Complex", "float", "double", "_Float16", "_Bool", "char", "int", "long", "int8_t", "int16_t", "int32_t", "int64_t",
          "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "pc_stack", "pc_half_bits", "pc_bf16")
_DECL = re.compile(r"^    (const\s+)?(" + "|".join(_TYPES) + r")\s*(\*?)\s*(const\s+)?([A-Za-z_]\w*)\s*(=|;)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_PROLOGUE = 3               # arena, nt, (void) casts: see CodeGen.function_text


def split_function(lines: list, name: str, static: bool) -> tuple:
    """(definitions to place before the function, the function's new lines) when the function
    (CWriter lines of CodeGen.function_text) is long enough to split; None otherwise."""
    if len(lines) <= SPLIT_LINES:
        return None
    head, prologue = lines[0], lines[1:1 + _PROLOGUE]
    k = 1 + _PROLOGUE
    params = []
    while k < len(lines) and re.match(r"^    \w+ \*const p\d+ = ", lines[k]):
        params.append(lines[k])
        k += 1
    assert lines[-2].strip() == "return 0;" and lines[-1] == "}", "unexpected function layout"
    parts = _parts(_statements(lines[k:-2]))
    if len(parts) < 2:
        return None
    decls = [_declarations(p) for p in parts]
    used = [set(_IDENT.findall("\n".join(p))) for p in parts]
    fields: dict = {}            # name -> (field type, copy-in declaration prefix)
    defs, calls = [], []
    frame = f"{name}_frame"
    declared_before: dict = {}
    for j, part in enumerate(parts):
        live_in = [n for n in declared_before if n in used[j]]
        later = set().union(*used[j + 1:]) if j + 1 < len(parts) else set()
        out = [n for n in list(decls[j]) + live_in if n in later]
        fields.update({n: declared_before[n] for n in live_in})
        fields.update({n: decls[j][n] for n in out if n in decls[j]})
        fn = f"{name}_part{j}"
        defs.append(f"static int {fn}(void **args, char *const arena, const int nt, struct {frame} *F) {{")
        defs.append("    (void)args; (void)arena; (void)nt; (void)F;")
        defs.extend(params)
        defs.extend(f"    {declared_before[n][1]}{n} = F->{n};" for n in live_in)
        defs.extend(part)
        defs.extend(f"    F->{n} = {n};" for n in out)
        defs += ["    return 0;", "}", ""]
        calls.append(f"    if ((rc = {fn}(args, arena, nt, &F)) != 0) return rc;")
        declared_before.update(decls[j])
    struct = [f"struct {frame} {{"] + [f"    {t} {n};" for n, (t, _) in fields.items()] + \
        (["    char unused;"] if not fields else []) + ["};", ""]
    body = [head] + prologue + [f"    struct {frame} F; int rc;"] + calls + lines[-2:]
    return struct + defs, body


_NOISE = re.compile(r'/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|//.*$')


def _depths(lines: list) -> list:
    """The brace depth at the start of each line, comments and literals left out: a template
    may open a bare `{` at the function's own indentation (the DFT's twiddle table, the sort's
    scratch), and what it declares inside is not a top-level statement or declaration."""
    out, depth = [], 0
    for line in lines:
        out.append(depth)
        text = _NOISE.sub("", line)
        depth += text.count("{") - text.count("}")
    return out


def _statements(body: list) -> list:
    """The body's top-level statements, each a list of lines: a statement starts at a line of
    the top level (indented once, outside any brace), except a `}` / `else` that closes the one
    before, and a line after a comment, a pragma or a declaration without initializer (which
    belongs with what follows it)."""
    out: list = []
    glue = True
    for line, depth in zip(body, _depths(body)):
        top = depth == 0 and line.startswith("    ") and not line.startswith("     ")
        text = line.strip()
        if top and not glue and not text.startswith(("}", "else")):
            out.append([line])
        elif out:
            out[-1].append(line)
        else:
            out.append([line])
        if top:
            glue = text.startswith(("/*", "#")) or (_DECL.match(line) is not None and text.endswith(";")
                                                   and "=" not in text)
    return out


def _parts(statements: list) -> list:
    parts, cur = [], []
    for st in statements:
        if cur and len(cur) + len(st) > PART_LINES:
            parts.append(cur)
            cur = []
        cur.extend(st)
    if cur:
        parts.append(cur)
    return parts


def _declarations(part: list) -> dict:
    """name -> (struct field type, copy-in prefix) of the part's top-level declarations."""
    out = {}
    for line, depth in zip(part, _depths(part)):
        m = _DECL.match(line) if depth == 0 else None
        if m is None:
            continue
        const1, ctype, star, const2, name, _ = m.groups()
        field = f"{ctype} {star}" if star else f"{ctype} "
        prefix = f"{const1 or ''}{ctype} {star}{const2 or ''}"
        out[name] = (field.rstrip(), prefix if prefix.endswith(" ") or prefix.endswith("*") else prefix + " ")
    return out
