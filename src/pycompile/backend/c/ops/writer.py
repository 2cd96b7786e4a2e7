"""A small indented text buffer for emitting C (indentation kept out of the emitting logic)."""
from __future__ import annotations

from contextlib import contextmanager


class CWriter:
    def __init__(self):
        self.lines: list[str] = []
        self.level = 0

    def line(self, text: str = "") -> None:
        self.lines.append(("    " * self.level + text) if text else "")

    def lines_(self, texts) -> None:
        for t in texts:
            self.line(t)

    @contextmanager
    def indent(self):
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1

    @contextmanager
    def block(self, head: str, tail: str = "}"):
        if head:
            self.line(head + " {")
        elif self.lines:
            self.lines[-1] += " {"
        else:
            self.line("{")
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1
            self.line(tail)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@contextmanager
def scope(w: CWriter):
    """A braced C block on lines of its own (CWriter.block('') would append the brace to the
    previous line, which may be a #pragma)."""
    w.line("{")
    w.level += 1
    try:
        yield
    finally:
        w.level -= 1
        w.line("}")
