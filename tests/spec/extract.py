"""Extract the code samples of the spec documents into tests/spec/samples/.

    python tests/spec/extract.py [SPEC_DIR]        # default: /work/shared/spec

The spec documents are the MindSpore tutorials pycompile reproduces:

* ``001_*.md``  "Advanced Programming Techniques for Static Graphs" (English), fenced ```python blocks;
* ``002_*.md``  the Chinese version of the same tutorial (a newer MindSpore: ``set_device``,
  ``@mindspore.jit`` on ``construct``, ``mindspore.tensor``), fenced ```python blocks;
* ``004_*.txt`` "Accelerating with Static Graphs", plain text: code is not fenced and its
  indentation was lost in the export. A sample starts at ``import numpy as np`` and ends at
  ``print(output)``; the printed array follows.

For every sample this writes ``samples/<doc>_<nn>_<slug>.py`` (``nn`` = position of the sample in
its document, ``slug`` from the table ``SLUGS`` below, which also checks each sample is the one
the name says) and records all of them in ``samples/MANIFEST.json``: source document, section,
line range, whether it is runnable (and if not, why) and the text the spec prints after it.
The tests (test_samples.py) read only these committed files, never the spec directory.

The sample code is copied unchanged except for:

1. import lines: ``mindspore`` becomes ``pycompile`` (``import mindspore as ms`` ->
   ``import pycompile as ms``, ``from mindspore.ops import X`` -> ``from pycompile.ops import X``;
   a bare ``import mindspore`` becomes ``import pycompile as mindspore`` so the sample's
   ``mindspore.xxx`` names resolve -- the only import-line-only spelling that does);
2. 004 only: the indentation lost by the plain-text export is rebuilt from the block structure
   (``reindent``); the extractor checks that the result differs from the spec's lines only in
   leading whitespace and parses as Python.

A sample is *not runnable* when it does not parse (pseudo-code such as ``def construct(self, ...)``)
or when it uses names it never defines or imports (fragments such as ``a = A(x)``); ``classify``
decides, and the test suite re-applies it to the committed files.

Each sample file starts with a comment block naming its source document, section and lines.
Re-run this script after a spec change and commit the result (``git add tests/spec``).
"""
from __future__ import annotations

import ast
import builtins
import json
import os
import re
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples"
DEFAULT_SPEC_DIR = "/work/shared/spec"

# (slug, regex that must match the sample's code). The first matching entry names a sample; each
# entry may name at most one sample per document. A sample matching nothing falls back to a slug
# made from its section heading (and the extractor says so).
SLUGS = [
    ("lazy_inline_pipeline_cell", r"class PipelineCell\("),
    ("lazy_inline_pangu_alpha", r"class PanGUAlphaWithLoss\("),
    ("lazy_inline_reuse_construct", r"reuse_construct\("),
    ("lazy_inline_gpt", r"class GPT_Model\("),
    ("lazy_inline_limit_attr_changed", r"self\.blocks\[0\]\.x = 1"),
    ("lazy_inline_limit_nested", r"class InnerBlock\("),
    ("hypermap", r"HyperMap\(add\)"),
    ("compile_cache_disabled", r"enable_compile_cache=False|MS_COMPILER_CACHE_ENABLE'\] = '0'\nx ="),
    ("compile_cache_enabled", r"enable_compile_cache=True|MS_COMPILER_CACHE_ENABLE'\] = '1'"),
    ("jit_class_decorator", r"InnerNet\(\)\.value"),
    ("jit_class_on_cell_error", r"jit_class\nclass Net\(nn\.Cell\)"),
    ("jit_class_nested", r"self\.inner = Inner\(\)"),
    ("jit_class_attributes_methods", r"def act\(self"),
    ("jit_class_create_instance", r"self\.number = val \+ 3"),
    ("jit_class_call", r"def __call__\(self"),
    ("jit_class_no_call_error", r"(?s)\A(?!.*__call__).*net = InnerNet\(2\)\n\s*out = net\(x, y\)"),
    ("select_vs_if", r"ops\.select\("),
    ("vmap", r"vmap\(hswish_func"),
    ("depend_usage", r"\Aa = A\(x\)\nb = B\(y\)\s*\Z"),
    ("depend_inserted", r"y = Depend\(y, a\)"),
    ("depend_float_status", r"NPUAllocFloatStatus\(\)"),
    ("load_elim_forward_backward", r"GradOperation\("),
    ("network_pynative_mode", r"mode=ms\.PYNATIVE_MODE"),
    ("network_graph_mode", r"GRAPH_MODE\) # Static graph mode configuration"),
    ("network_jit_decorated_function", r"@ms\.jit[^\n]*\ndef run\("),
    ("network_jit_function_call", r"ms\.jit\(run\)"),
    ("network_jit_construct", r"@ms\.jit[^\n]*\n\s*def construct\("),
    ("network_graph_mode_context", r"GRAPH_MODE\) # Configuration for running static graph mode"),
]

# Section headings of the Chinese document, in English (they name sections in sample headers).
ZH_HEADINGS = {
    "图模式-编程技巧": "Static Graph Programming Techniques",
    "如何优化编译性能": "How to Optimize Compilation Performance",
    "使用lazy_inline装饰器": "Using lazy_inline Decorator",
    "大模型pipeline并行场景": "Large Model Pipeline Parallel Scenarios",
    "更加泛化的一般场景": "More General Scenarios",
    "使用步骤": "Usage Steps",
    "使用限制": "Usage Limitations",
    "使用HyperMap": "Using HyperMap",
    "使用编译缓存": "Using the Compilation Cache",
    "如何优化执行性能": "How to Optimize Execution Performance",
    "使用jit_class": "Using jit_class",
    "jit_class的介绍": "Introduction to jit_class",
    "jit_class装饰器的使用": "Using the jit_class Decorator",
    "获取类的属性和方法": "Obtaining the Attributes and Methods of Classes",
    "创建类的实例": "Creating Instances of Classes",
    "调用类的实例": "Calling Instances of Classes",
    "使用select算子": "Using select Operator",
    "使用Vmap进行批处理": "Using Vmap for Batch Processing",
    "依赖控制保证执行序": "Dependency Control Guarantees Execution Order",
    "优化冗余显存拷贝操作": "Optimizing Redundant Video Memory Copy Operations",
}


# ---- import substitution ------------------------------------------------------------------------

_IMPORT = re.compile(r"^(\s*)(import|from)\s+mindspore\b")


def substitute_imports(code: str) -> str:
    """mindspore -> pycompile on import lines only; every other line is returned unchanged."""
    out = []
    for line in code.split("\n"):
        m = _IMPORT.match(line)
        if m:
            indent, body = m.group(1), line[len(m.group(1)):]
            code_part, sep, comment = body.partition("#")
            stmt = code_part.rstrip()
            if re.fullmatch(r"import\s+mindspore", stmt):
                new = "import pycompile as mindspore"
            elif re.fullmatch(r"import\s+mindspore(\.\w+)+", stmt):
                raise ValueError(f"cannot substitute {line!r} on the import line alone")
            else:
                new = re.sub(r"\bmindspore\b", "pycompile", stmt)
            line = indent + new + (code_part[len(stmt):] + sep + comment if sep else "")
        out.append(line)
    return "\n".join(out)


# ---- classification -----------------------------------------------------------------------------

def _bound_and_loaded(tree):
    bound, loaded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, loaded


def classify(code: str) -> str | None:
    """None for a runnable sample, otherwise why it is not runnable as written."""
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        text = (e.text or "").strip()
        return f"pseudo-code, not Python: SyntaxError ({e.msg}) at line {e.lineno}: {text}"
    bound, loaded = _bound_and_loaded(tree)
    free = sorted(n for n in loaded - bound if not hasattr(builtins, n))
    if free:
        return "fragment: uses names it never defines or imports: " + ", ".join(free)
    return None


# ---- 004: rebuild the indentation lost by the plain-text export ---------------------------------

def _code_part(line: str) -> str:
    return line.split("#", 1)[0].rstrip()


def _paren_delta(s: str) -> int:
    s = _code_part(s)
    return sum(s.count(c) for c in "([{") - sum(s.count(c) for c in ")]}")


def reindent(lines: list[str]) -> list[str]:
    """Re-indent flat Python lines from their structure: a line ending in ':' opens a block; a
    ``def`` / decorator closes blocks up to the innermost class (a method) or module level; a
    statement after ``return`` leaves the function, and the class too unless it is a ``def`` or
    decorator; lines inside open brackets are continuation lines, indented one more level."""
    out, stack, depth, after_return = [], [], 0, False
    for raw in lines:
        s = raw.strip()
        if depth > 0:                                   # continuation of a bracketed expression
            depth += _paren_delta(s)
            closing = s[:1] in ")]}" and depth == 0
            out.append("    " * (len(stack) + (0 if closing else 1)) + s)
            continue
        is_def = re.match(r"(def|class)\b", s) is not None or s.startswith("@")
        if is_def:
            if not (out and out[-1].lstrip().startswith("@")):
                while stack and stack[-1] != "class":
                    stack.pop()
        elif after_return:
            stack.clear()
        out.append("    " * len(stack) + s)
        after_return = re.match(r"return\b", s) is not None
        depth = _paren_delta(s)
        if depth == 0 and _code_part(s).endswith(":"):
            stack.append("class" if s.startswith("class") else "block")
    return out


# ---- parsing the documents ----------------------------------------------------------------------

def _heading_md(line):
    m = re.match(r"^(#{1,6})\s+(.*)$", line)
    if not m:
        return None
    title = m.group(2).strip()
    return len(m.group(1)), ZH_HEADINGS.get(title, title)


def parse_markdown(text):
    """[(code, section, first_line, last_line, [text blocks printed after it], spec code)]"""
    lines = text.split("\n")
    samples, headings, i = [], {}, 0
    while i < len(lines):
        line = lines[i]
        h = _heading_md(line)
        if h:
            level, title = h
            headings = {k: v for k, v in headings.items() if k < level}
            headings[level] = title
        m = re.match(r"^(\s*)```(\w*)\s*$", line)
        if m:
            lang, start = m.group(2), i
            i += 1
            body = []
            while not re.match(r"^\s*```\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            block = textwrap.dedent("\n".join(body)).strip("\n")
            section = " > ".join(headings[k] for k in sorted(headings) if k > 1)
            if lang == "python":
                samples.append([block, section, start + 2, i, [], block])
            elif lang == "text" and samples:
                samples[-1][4].append(block)
        i += 1
    return samples


def _heading_txt(line):
    s = line.strip()
    return (0 < len(s) <= 50 and not s.endswith((".", ":", ")")) and "=" not in s
            and not s.startswith(("[", "-", "import", "from", "#")) and "||" not in s)


def parse_plaintext(text):
    """004: a sample runs from 'import numpy as np' to 'print(output)'; the array lines follow."""
    lines = text.split("\n")
    samples, section, i = [], "", 0
    while i < len(lines):
        s = lines[i].strip()
        if s == "import numpy as np":
            start = i
            while not lines[i].strip().startswith("print(output)"):
                i += 1
            flat = [ln.strip() for ln in lines[start:i + 1]]
            code = reindent(flat)
            if [ln.strip() for ln in code] != flat:
                raise AssertionError("reindent changed more than leading whitespace")
            ast.parse("\n".join(code))
            j = i + 1
            while j < len(lines) and re.match(r"^\s*(\[|-|\d|\.\.\.)", lines[j]):
                j += 1
            samples.append(["\n".join(code), section, start + 1, i + 1, ["\n".join(lines[i + 1:j])],
                            "\n".join(flat)])
            i = j
            continue
        if _heading_txt(s) and i > 1:
            section = s
        i += 1
    return samples


# ---- writing ------------------------------------------------------------------------------------

def _slug(code, section, used):
    for slug, pattern in SLUGS:
        if slug not in used and re.search(pattern, code):
            return slug
    fallback = re.sub(r"[^a-z0-9]+", "_", section.split(" > ")[-1].lower()).strip("_") or "sample"
    print(f"warning: no SLUGS entry matches a sample of section {section!r}; named {fallback!r}",
          file=sys.stderr)
    return fallback


def extract(spec_dir: str, out_dir: Path = SAMPLES) -> list[dict]:
    spec_dir = Path(spec_dir)
    docs = sorted(p for p in spec_dir.iterdir() if re.match(r"\d{3}_.*\.(md|txt)$", p.name))
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        old.unlink()
    manifest = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        parsed = parse_markdown(text) if doc.suffix == ".md" else parse_plaintext(text)
        used = set()
        for n, (code, section, first, last, outputs, spec_code) in enumerate(parsed, 1):
            slug = _slug(code, section, used)
            used.add(slug)
            name = f"{doc.name[:3]}_{n:02d}_{slug}"
            code = substitute_imports(code)
            reason = classify(code)
            changes = "import lines only (mindspore -> pycompile)"
            if doc.suffix == ".txt":
                changes += "; indentation rebuilt (lost in the plain-text spec)"
            header = [
                f"# Spec sample {name}: generated by tests/spec/extract.py -- do not edit.",
                f"# Source: {doc.name}, lines {first}-{last}",
                f"# Section: {section}",
                f"# Changes: {changes}.",
                "# Status: " + ("runnable" if reason is None else "NOT runnable -- " + reason),
            ]
            (out_dir / f"{name}.py").write_text("\n".join(header) + "\n\n" + code.rstrip() + "\n",
                                                encoding="utf-8")
            manifest.append({"name": name, "source": doc.name, "section": section,
                             "lines": [first, last], "runnable": reason is None, "reason": reason,
                             "spec_output": outputs, "spec_code": spec_code})
    (out_dir / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
    return manifest


def sample_code(path) -> str:
    """The code of a generated sample file without its header comment."""
    text = Path(path).read_text(encoding="utf-8")
    head, _, body = text.partition("\n\n")
    assert head.startswith("# Spec sample "), path
    return body


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    spec_dir = argv[0] if argv else os.environ.get("SPEC_DIR", DEFAULT_SPEC_DIR)
    manifest = extract(spec_dir)
    for m in manifest:
        print(f"{m['name']:50s} {'runnable' if m['runnable'] else 'NOT runnable: ' + m['reason']}")


if __name__ == "__main__":
    main()
