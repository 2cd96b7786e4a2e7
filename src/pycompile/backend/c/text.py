"""Text taken from user code or data, made safe for generated C: the one place it is escaped.

Names (Parameters come from checkpoints, graphs from Cell class names, `__name__` can be set to
anything), source lines, file names and Print strings all reach the generated C. None of it may
change what the C means, so every such piece goes through one of these:

    comment(text)     inside /* ... */ on one line: printable ASCII only, with `*/` and `/*`
                      broken apart and `??` split (no trigraph can form); newlines, control
                      characters and non-ASCII are shown as \\n, \\xNN, \\uNNNN escapes
    string(text)      a C string literal of the UTF-8 bytes: everything but letters, digits and
                      a few harmless punctuation marks as 3-digit octal escapes, so quotes,
                      backslashes, `??/` and NUL stay data (a NUL is a byte like any other;
                      the length travels beside the literal)
    ident(name)       ASCII letters, digits and `_` only, for a part of a C identifier
    file_stem(name)   ASCII letters, digits, `_`, `-`, `.` only (no path separator), for file
                      names built from graph names

tests/backend/test_hostile_names.py puts `*/`, newlines, `??/`, quotes, backslashes, NUL and
non-ASCII text in every position that reaches C.
"""
from __future__ import annotations

# printable ASCII kept as is in string literals: no quote, backslash, '?' (trigraphs) or '%'
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-+=.,:;!@#$^&*()[]{}<>|~/'")


def comment(text) -> str:
    """`text` as the inside of a one-line C comment."""
    s = str(text)
    if s.isascii() and s.isprintable() and "\\" not in s:
        return _unpair(s)        # the common case (a name, a source line): nothing to escape
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\\":
            out.append("\\\\")
        elif 32 <= o < 127:
            out.append(ch)
        elif o < 256:
            out.append(f"\\x{o:02x}")
        else:
            out.append(f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    return _unpair("".join(out))


def _unpair(s: str) -> str:
    # break every */ and /* apart (replacing can create a new pair next to it: repeat) and
    # every ?? (a trigraph under -std=c99 / -trigraphs)
    while True:
        t = s.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?")
        if t == s:
            return s
        s = t


def string(text) -> str:
    """A C string literal holding the UTF-8 bytes of `text` (str or bytes)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    out = ['"']
    for b in data:
        c = chr(b)
        out.append(c if c in _PLAIN else f"\\{b:03o}")
    out.append('"')
    return "".join(out)


def string_length(text) -> int:
    """How many bytes `string(text)` holds (without the terminating NUL C adds)."""
    return len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text))


def ident(name, limit: int = 40) -> str:
    """A piece of a C identifier made from `name` (the caller adds a prefix that makes it unique
    and never starts with a digit)."""
    return "".join(c if ("a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9" or c == "_") else "_"
                   for c in str(name))[:limit]


def file_stem(name, limit: int = 60) -> str:
    """A file name made from `name`: never a path, never empty, never hidden."""
    s = "".join(c if ("a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9" or c in "_-.") else "_"
                for c in str(name))[:limit].lstrip(".")
    return s or "graph"
