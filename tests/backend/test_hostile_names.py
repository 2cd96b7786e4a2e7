"""Text from user code and data never changes what the generated C means (issue 20, defect 1).

Parameter names (they come from checkpoints), Cell class names (graph names, lazy_inline
subgraph names), function names, argument names, source lines, docstrings, file names and Print
strings all reach the generated C. Each test puts `*/`, newlines, `??/`, quotes, backslashes,
NUL and non-ASCII text into one of those positions, with a payload that would define a C symbol
(`PWNED_...`) if it escaped its comment or string literal; the C source, stripped of comments
and literals by a small C lexer, must not contain it. The compiled results and printed bytes
must equal PyNative's (a NUL inside a printed string is printed, not cut off).
"""
import contextlib
import importlib.util
import io
import os
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, lazy_inline, nn
from pycompile.backend.c import text
from pycompile.backend.export import export


def hostile(tag: str) -> str:
    """Every kind of text that could break out of a C comment or string literal."""
    return (f'*/ int PWNED_{tag} = 1; /* \n" ); int PWNED_{tag}s = 1; ("'
            f' ??/ ??= \\ \\" \0 é 中 \U0001F600 \r\t */ /*')


def code_outside_comments_and_literals(source: str) -> str:
    """The C text that is neither a comment nor a string / character literal (C's own rules;
    generated code has no line splices or trigraphs, which the assertions below check)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("/*", i):
            j = source.find("*/", i + 2)
            assert j >= 0, "unterminated comment"
            i = j + 2
            out.append(" ")
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source[i] in "\"'":
            q, j = source[i], i + 1
            while source[j] != q:
                assert source[j] != "\n", "newline inside a literal"
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            out.append(" 0 ")
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def assert_no_injection(source: str) -> None:
    assert "\\\n" not in source, "a line splice in generated C"
    assert "??" not in source, "a trigraph in generated C"
    assert "\0" not in source and source.isascii()
    code = code_outside_comments_and_literals(source)
    # (a name may survive inside a longer identifier, as in sub0__int_PWNED_x: that is no symbol)
    assert not re.search(r"(?<!\w)PWNED", code), re.findall(r".{0,40}PWNED.{0,40}", code)


MODULE = '''import numpy as np
from pycompile import ops


def {fn}({arg}, y):
    """Docstring {doc}"""
    print({text!r})   # {comment}
    return {arg} * y + 1  # {comment}
'''


def _load_module(tmp_path):
    filename = "mod *\n#define PWNED_file 1\n ??' \\ \" é"       # no '/' in a file name
    src = MODULE.format(fn="f_é", arg="é", doc="*/ int PWNED_doc = 1; /* ??/ \\\\ é",
                        text=hostile("print"), comment="*/ int PWNED_src = 1; /* ??/ \\\\ \" é 中")
    path = tmp_path / (filename + ".py")
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("hostile_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _printed(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def test_source_lines_file_names_docstrings_print_strings_and_argument_names(tmp_path):
    fn = _load_module(tmp_path).f_é
    fn.__name__ = hostile("fnname")           # the graph's name
    x, y = Tensor(np.arange(3, dtype=np.float32)), Tensor(np.full(3, 2, np.float32))
    want, want_printed = _printed(fn, x, y)
    got, got_printed = _printed(ms.jit(fn), x, y)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    assert got_printed == want_printed and "\0" in got_printed and "中" in got_printed
    source = ms.inspect(fn, x, y).c_source
    assert_no_injection(source)


def _construct(self, x):
    return x * self.w + self.b(x)


class Inner(nn.Cell):
    @lazy_inline
    def __init__(self):
        super().__init__()
        self.v = Parameter(Tensor(np.ones(3, np.float32)), name=hostile("lazyparam"))

    def construct(self, x):
        return x - self.v


def test_parameter_class_and_subgraph_names(tmp_path):
    # a Cell class named by data (type()), a Parameter named by data, a lazy_inline subgraph
    # whose class name reaches a C function name
    # (Python refuses NUL in a class name)
    inner = type(hostile("inner").replace("\0", ""), (Inner,), {})
    net_cls = type(hostile("cell").replace("\0", ""), (nn.Cell,), {"construct": _construct})
    net = net_cls()
    net.w = Parameter(Tensor(np.full(3, 3, np.float32)), name=hostile("param"))
    net.b = nn.SequentialCell([inner(), inner()])
    x = Tensor(np.arange(3, dtype=np.float32))
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), want)
    report = ms.inspect(net, x)
    assert "static int sub" in report.c_source          # the shared subgraph's C function
    assert_no_injection(report.c_source)
    # an exported module is named after the entry, never a path out of the directory
    out = tmp_path / "out"
    out.mkdir()
    written = export(report, "../../" + hostile("entry"), ["c", "so"], str(out))
    assert all(os.path.dirname(os.path.abspath(p)) == str(out) for p in written)


@pytest.mark.parametrize("s", ["", "plain", "*/", "/*", "**//", "*/*/", "??/", "???/", "a\nb", "\\", '"',
                               "\0", "é中\U0001F600", "\r\x7f\x01"])
def test_comment_and_string_escapes(s):
    c = text.comment(s)
    assert c.isascii() and all(32 <= ord(ch) < 127 for ch in c)
    assert "*/" not in c and "??" not in c
    lit = text.string(s)
    assert lit.isascii() and "??" not in lit and "\n" not in lit
    assert_no_injection(f"/* {c} */ const char *s = {lit};")
    # the literal holds exactly the UTF-8 bytes of s
    body = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), lit[1:-1])
    assert body.encode("latin-1") == s.encode("utf-8") and text.string_length(s) == len(s.encode("utf-8"))
    assert re.fullmatch(r"\w*", text.ident(s)) and text.ident(s).isascii()
    stem = text.file_stem(s)
    assert stem and "/" not in stem and not stem.startswith(".") and stem.isascii()


def _cnn_construct(self, x):
    return ms.ops.max_pool2d(self.conv(x), 2) * self.scale


def test_names_in_parallel_loops_moved_into_pool_functions():
    """Convolution and pooling loops run on the runtime's pool: the outline pass moves their
    bodies, comments and all, into functions of their own (backend/c/outline.py). Hostile
    Parameter and Cell names must stay inert there too."""
    net_cls = type(hostile("cnn").replace("\0", ""), (nn.Cell,), {"construct": _cnn_construct})
    net = net_cls()
    net.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, weight_init="normal")
    net.conv.weight.name = hostile("convw")
    net.scale = Parameter(Tensor(np.full((1, 8, 1, 1), 0.5, np.float32)), name=hostile("scale"))
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32))
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-5)
    source = ms.inspect(net, x).c_source
    assert "RT->parallel_for(" in source
    assert_no_injection(source)
