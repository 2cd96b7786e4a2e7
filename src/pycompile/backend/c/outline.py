"""Parallel loops become calls of the runtime's thread pool (csrc/pool.c).

Kernels mark a loop to split across threads with the line PARALLEL_FOR above a
`for (long V = 0; V < N; ++V) {` block (backend/c/ops/kernels.py, backend/c/elementwise.py). This pass,
run on each finished C module, moves every such loop body into a function of its own:

    typedef struct { float *v3; const long cpb; ... } pc_r2_ctx;        values the body reads
    static void pc_r2(void *pc_arg, long pc_lo, long pc_hi) {          iterations [lo, hi)
        const pc_r2_ctx *pc_c = pc_arg; float *const v3 = pc_c->v3; ...
        for (long V = pc_lo; V < pc_hi; ++V) { <the body, unchanged> }
    }

and the loop becomes `{ const pc_r2_ctx pc_c2 = {v3, cpb}; RT->parallel_for(pc_r2, (void *)&pc_c2, N); }`.
The values the body reads are found in the text: identifiers of the body that name a variable
declared in the enclosing function (parameters, declarations, `for` variables) and in scope at
the loop; their C types are read from those declarations. Generated C declares one variable per
statement in a few fixed forms, so this is exact for it; a loop it cannot outline (a captured
writable array, a body assigning a captured variable; constant tables are captured by
pointer) is an internal error, not a silent serial loop.
Numbering follows the order of the loops in the module, so equal programs give equal C.
"""
from __future__ import annotations

import re


_TYPES = {"float", "double", "_Float16", "_Bool", "char", "int", "long", "short", "unsigned", "signed",
          "void", "size_t", "pc_half_bits", "pc_bf16", "pc_stack", "int8_t", "int16_t", "int32_t", "int64_t",
          "uint8_t", "uint16_t", "uint32_t", "uint64_t", "_Complex"}
_KEYWORDS = _TYPES | {"const", "restrict", "static", "inline", "for", "if", "else", "while", "do", "return",
                      "break", "continue", "sizeof", "struct", "typedef", "volatile", "goto", "switch",
                      "case", "default", "__attribute__", "always_inline", "noinline"}
_IDENT = re.compile(r"[A-Za-z_]\w*")
# `parallel for` (any schedule: the pool's chunks are claimed dynamically; optionally `if (C)`,
# serial when C is false, and an integer reduction), and `parallel { ...; for; loop; ... }`
_PAR_FOR = re.compile(re.escape("#pragma omp parallel for num_threads(nt)")
                      + r" schedule\((?:static|dynamic)(?:, *\w+)?\)(?: if \((.+?)\))?"
                      + r"(?: reduction\(([|+&]):([\w, ]+)\))?$")
_PAR_REGION = "#pragma omp parallel num_threads(nt)"
_OMP_FOR = "#pragma omp for schedule(static)"
_REDUCE = {"|": ("0", "__atomic_fetch_or"), "+": ("0", "__atomic_fetch_add"), "&": ("~0", "__atomic_fetch_and")}
_FOR = re.compile(r"^(\s*)for \(long (\w+) = 0; \2 < (.+); \+\+\2\) \{$")
_FOR_DECL = re.compile(r"\bfor \(((?:const\s+)?(?:[A-Za-z_]\w*\s+)+)(\w+) = ")
_FUNC = re.compile(r"^(?:static |inline |__attribute__\(\((?:always_inline|noinline)\)\) )*[A-Za-z_][\w ]*?[\s*](\w+)\((.*)\) \{$")


# (compiled once: the pass reads every line of a module that has parallel loops)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_CHAR = re.compile(r"'(?:\\.|[^'\\])*'")
_DECL_HEAD = re.compile(r"^((?:(?:const|static|volatile)\s+)*)((?:(?:const|unsigned|signed)\s+)*)(\w+)\b(.*)$", re.S)
_MORE_TYPE = re.compile(r"^\s+(\w+)\b(.*)$", re.S)
_DECLARATOR = re.compile(r"^\s*((?:\*|\s|\bconst\b|\brestrict\b)*)(\w+)\s*(\[.*\])?\s*$", re.S)
# a variable the region assigns (`x = `, `x += `, `x++`, `x--`; not `==`, not a member `.x` / `->x`):
# one scan per region, not one pattern per captured name (each a fresh regex compile: W6 L=24's
# regions spent half the pass compiling them)
_ASSIGNED = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--)")


class OutlineError(RuntimeError):
    pass


def _strip(text: str) -> str:
    """Code without comments and string / character literals (identifiers only from code)."""
    text = _COMMENT.sub(" ", text) if "/*" in text else text
    text = _STRING.sub('""', text) if '"' in text else text
    return _CHAR.sub("''", text) if "'" in text else text


def _declarators(stmt: str):
    """(name, C type, is_array) for each variable a declaration statement declares, else []."""
    stmt = stmt.strip().rstrip(";").strip()
    m = _DECL_HEAD.match(stmt)
    if m is None or m.group(3) not in _TYPES or m.group(3) in ("const",):
        return []
    lead_const = "const" in (m.group(1) + m.group(2)).split()
    base = " ".join([w for w in m.group(2).split() if w != "const"] + [m.group(3)])
    tail = m.group(4)
    while True:                     # more type words: `long long`, `unsigned int`
        mm = _MORE_TYPE.match(tail)
        if mm is None or mm.group(1) not in _TYPES:
            break
        base += " " + mm.group(1)
        tail = mm.group(2)
    parts, depth, cur = [], 0, ""
    for ch in tail:                 # declarators, split at top-level commas
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for part in parts:
        decl = part.split("=", 1)[0]
        d = _DECLARATOR.match(decl)
        if d is None or d.group(2) in _KEYWORDS:
            return []
        ptr = d.group(1).count("*")
        arr = d.group(3) is not None
        ctype = (("const " if lead_const and (ptr or arr) else "") + base + " " + "*" * ptr).strip()
        out.append((d.group(2), ctype, d.group(3) is not None))
    return out


def _params(param_text: str):
    out = []
    for p in param_text.split(","):
        p = p.strip()
        if not p or p == "void":
            continue
        m = re.match(r"^(.*?)(\w+)$", p)
        if m is None:
            continue
        ctype = m.group(1).replace("restrict", "").strip()
        # drop a top-level const after the last '*' (or of a scalar)
        ctype = re.sub(r"\*\s*const\s*$", "*", ctype).strip()
        if "*" not in ctype:
            ctype = re.sub(r"\bconst\s+", "", ctype).strip()
        out.append((m.group(2), ctype, False))
    return out


def _field_type(ctype: str) -> str:
    """The declared type without the variable's own const (a struct field is copied, not declared const)."""
    if "*" in ctype:
        return re.sub(r"\*\s*const\b", "*", ctype)
    return re.sub(r"\bconst\s+", "", ctype)


def _block_end(lines, start: int, indent: str) -> int:
    """Index of the line closing the block opened on lines[start] (same indentation, '}')."""
    for k in range(start + 1, len(lines)):
        if lines[k] == indent + "}":
            return k
    raise OutlineError(f"unterminated parallel loop at line {start + 1}")


_PAR_MARK = "#pragma omp parallel"


def _function_end(lines, start: int) -> int:
    """Index of the `}` closing the top-level function whose header is lines[start] (the last
    line when it is unterminated: the scope tracking below then sees it all)."""
    for k in range(start + 1, len(lines)):
        if lines[k] == "}":
            return k
    return len(lines) - 1


def outline(source: str) -> str:
    lines = source.split("\n")
    out: list = []
    regions: list = []
    func_start = None       # index in `out` of the current function's header
    scopes: list = []       # per open brace: {name: ctype}
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.startswith((" ", "\t")) and line.endswith("{") and _FUNC.match(line):
            close = _function_end(lines, k)
            if not any(_PAR_MARK in ln for ln in lines[k + 1:close]):
                # no parallel loop: copied as it is, without tracking its declarations (most
                # functions of a large program; keeps the pass at a fraction of codegen's time)
                out.extend(lines[k:close + 1])
                k = close + 1
                continue
            func_start = len(out)
            scopes = [dict((n, (t, a)) for n, t, a in _params(_FUNC.match(line).group(2)))]
            out.append(line)
            k += 1
            continue
        pf = _PAR_FOR.match(line.strip()) if func_start is not None else None
        pr = line.strip() == _PAR_REGION and func_start is not None
        if pf or pr:
            setup, teardown, reductions = [], [], []
            if pf:
                start = k + 1
                if pf.group(2):
                    reductions = [(pf.group(2), v.strip()) for v in pf.group(3).split(",")]
            else:
                # `parallel { setup; for; loop; teardown }`: setup and teardown run once per chunk
                region_indent = line[:len(line) - len(line.lstrip())]
                if lines[k + 1] != region_indent + "{":
                    raise OutlineError(f"a parallel region must open a block, got {lines[k + 1]!r}")
                region_end = _block_end(lines, k + 1, region_indent)
                start = next((j for j in range(k + 2, region_end) if lines[j].strip() == _OMP_FOR), None)
                if start is None:
                    raise OutlineError("a parallel region needs one `omp for` loop")
                setup = lines[k + 2:start]
                start += 1
            m = _FOR.match(lines[start])
            if m is None:
                raise OutlineError(f"a parallel loop must be `for (long V = 0; V < N; ++V) {{`, got {lines[start]!r}")
            indent, var, bound = m.groups()
            end = _block_end(lines, start, indent)
            body = lines[start + 1:end]
            if pr:
                teardown = lines[end + 1:region_end]
                end = region_end
                indent = region_indent
            r = len(regions)
            visible = {}
            for sc in scopes:
                visible.update(sc)
            cond = pf.group(1) if pf else None
            defs, call = _region(r, indent, var, bound, body, visible, setup, teardown, reductions, cond)
            regions.append(r)
            out[func_start:func_start] = defs
            func_start += len(defs)
            out.extend(call)
            k = end + 1
            continue
        # scopes: a line's leading '}' close scopes; its declarations join the scope then open
        # (a line that starts with '{' is a block of its own); its other braces open / close
        stripped = _strip(line).strip()
        if stripped == "}" and not line.startswith((" ", "\t")):
            func_start, scopes = None, []
        elif func_start is not None and scopes:
            lead = len(stripped) - len(stripped.lstrip("}"))
            for _ in range(lead):
                if len(scopes) > 1:
                    scopes.pop()
            rest = stripped[lead:].strip()
            fm = _FOR_DECL.search(rest)
            opened = {}
            if fm and not rest.startswith("{"):
                opened[fm.group(2)] = (" ".join(w for w in fm.group(1).split() if w != "const"), False)
            elif not rest.startswith("{"):
                for name, ctype, arr in _declarators(rest):
                    scopes[-1][name] = (ctype, arr)
            depth = rest.count("{") - rest.count("}")
            for j in range(max(depth, 0)):
                scopes.append(opened if j == 0 else {})
            for _ in range(max(-depth, 0)):
                if len(scopes) > 1:
                    scopes.pop()
        out.append(line)
        k += 1
    return "\n".join(out)


def _region(r: int, indent: str, var: str, bound: str, body: list, visible: dict, setup=(), teardown=(),
            reductions=(), cond=None):
    # per-thread scratch is indexed by the pool's thread index (PC_TID: codegen's module prologue)
    setup, body, teardown = ([ln.replace("omp_get_thread_num()", "PC_TID()") for ln in part]
                             for part in (setup, body, teardown))
    code = _strip("\n".join(list(setup) + body + list(teardown)))
    reduced = {v for _, v in reductions}
    local = set()
    for stmt in re.split(r"[;{}]", code):
        for name, _, _ in _declarators(stmt + ";"):
            local.add(name)
    for m in _FOR_DECL.finditer(code):
        local.add(m.group(2))
    used = []
    for m in _IDENT.finditer(code):
        name = m.group(0)
        before = code[max(0, m.start() - 2):m.start()]
        if before.endswith(".") or before.endswith("->") or name in _KEYWORDS or name in local or name == var:
            continue
        if name in visible and name not in used:
            used.append(name)
    fields = []
    assigned = set(_ASSIGNED.findall(code))
    for op, name in reductions:
        if op not in _REDUCE or name not in visible or visible[name][1] or "*" in visible[name][0] \
                or visible[name][0] in ("float", "double", "_Float16"):
            raise OutlineError(f"parallel loop {r}: reduction({op}:{name}) is not an integer | + & reduction")
    for name in used:
        if name in reduced:
            continue
        ctype, is_array = visible[name]
        if is_array:
            if not ctype.startswith("const "):
                raise OutlineError(f"parallel loop {r} reads the array {name!r}, which it cannot capture")
            # a constant table: captured as a pointer to its first element (the loop is synchronous)
            fields.append((name, ctype + " *"))
            continue
        if name in assigned:
            raise OutlineError(f"parallel loop {r} assigns {name!r}, a variable of the enclosing function")
        fields.append((name, _field_type(ctype)))
    # a reduction variable: each chunk reduces into its own copy, then into the caller's atomically
    red_fields = [(f"pc_red_{name}", f"{_field_type(visible[name][0])} *") for _, name in reductions]
    fn, ty, cv = f"pc_r{r}", f"pc_r{r}_ctx", f"pc_c{r}"
    all_fields = fields + red_fields
    defs = [f"typedef struct {{ {' '.join(f'{t} {n};' for n, t in all_fields) or 'char unused;'} }} {ty};",
            f"static void {fn}(void *pc_arg, long pc_lo, long pc_hi) {{",
            f"    const {ty} *{cv} = (const {ty} *)pc_arg; (void){cv};"]
    defs += [f"    {t} const {n} = {cv}->{n};" if "*" not in t else f"    {t}const {n} = {cv}->{n};"
             for n, t in fields]
    defs += [f"    {_field_type(visible[name][0])} {name} = {_REDUCE[op][0]};" for op, name in reductions]
    dedent = len(indent)

    def shift(lines_):
        return ["    " + ln[dedent:] if ln.startswith(indent) else ln for ln in lines_]
    defs += shift(setup)
    defs.append(f"    for (long {var} = pc_lo; {var} < pc_hi; ++{var}) {{")
    defs += shift(body)
    defs.append("    }")
    defs += shift(teardown)
    defs += [f"    {_REDUCE[op][1]}({cv}->pc_red_{name}, {name}, __ATOMIC_RELAXED);" for op, name in reductions]
    defs += ["}", ""]
    init = ", ".join([n for n, _ in fields] + [f"&{name}" for _, name in reductions]) or "0"
    run = f"RT->parallel_for({fn}, (void *)&{cv}, (long)({bound}));"
    if cond is not None and cond.strip() != "1":     # `if (0)` or a size test: serial below it
        run = f"if ({cond}) {run} else {fn}((void *)&{cv}, 0, (long)({bound}));"
    call = [f"{indent}{{ const {ty} {cv} = {{{init}}};",
            f"{indent}  {run} }}"]
    return defs, call
