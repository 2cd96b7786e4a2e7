"""Errors a user can cause while compiling, each naming their file, line and column.

`CompileError` subclasses RuntimeError, the exception MindSpore raises for unsupported graph
syntax ("Unsupported statement 'Try'"). Type and shape errors found while compiling keep their
kind as well: `CompileTypeError` is both a CompileError and a TypeError, and so on, so code
catching MindSpore's exception types keeps working.

The message reads:

    model.py:12:8: Unsupported statement 'Try' in graph code.
        try:
        ^
    hint: move the try block out of construct / the @jit function ...
"""
from __future__ import annotations


class CompileError(RuntimeError):
    """Graph code that pycompile cannot compile; the message points at the user's line."""

    def __init__(self, message: str, loc=None, hint: str = "", message_first: bool = False):
        self.msg = message
        self.loc = loc
        self.hint = hint
        self.message_first = message_first
        super().__init__(self.render())

    def render(self) -> str:
        lines = []
        loc = self.loc
        if loc is not None and self.message_first:
            # errors whose text MindSpore documents keep it as their first line
            lines.append(self.msg)
            lines.append(f"  at {loc.file}:{loc.line}:{loc.col}")
        elif loc is not None:
            lines.append(f"{loc.file}:{loc.line}:{loc.col}: {self.msg}")
            if loc.source:
                text = loc.source.rstrip("\n")
                stripped = text.lstrip()
                indent = len(text) - len(stripped)
                lines.append("    " + stripped)
                lines.append("    " + " " * max(loc.col - indent, 0) + "^")
        else:
            lines.append(self.msg)
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def __reduce__(self):
        return (type(self), (self.msg, self.loc, self.hint, self.message_first))


class CompileTypeError(CompileError, TypeError):
    pass


class CompileValueError(CompileError, ValueError):
    pass


class CompileIndexError(CompileError, IndexError):
    pass


class CompileNameError(CompileError, NameError):
    pass


class CompileUnboundLocalError(CompileNameError, UnboundLocalError):
    """A variable assigned in only one branch of a runtime `if`, then used (MindSpore raises
    UnboundLocalError for it too)."""


class DocumentedError(Exception):
    """Mixin for errors whose message is MindSpore's documented text: when wrapped with the
    user's location the message stays the first line."""


class MsClassCallError(DocumentedError, ValueError):
    pass


def wrap_user_error(exc: BaseException, loc, hint: str = "") -> CompileError:
    """A CompileError of the same kind as `exc` (TypeError -> CompileTypeError ...)."""
    if isinstance(exc, CompileError):
        return exc
    msg = str(exc) or type(exc).__name__
    hint = hint or getattr(exc, "hint", "")
    if isinstance(exc, DocumentedError):
        kind = CompileValueError if isinstance(exc, ValueError) else CompileTypeError
        return kind(msg, loc, hint, message_first=True)
    if isinstance(exc, TypeError):
        return CompileTypeError(msg, loc, hint)
    if isinstance(exc, IndexError):
        return CompileIndexError(msg, loc, hint)
    if isinstance(exc, ValueError):
        return CompileValueError(msg, loc, hint)
    if type(exc) is RuntimeError:
        return CompileError(msg, loc, hint)
    return CompileError(f"{type(exc).__name__}: {msg}", loc, hint)


_RAISED_KINDS: dict = {}


def raised_error(exc: BaseException, loc) -> CompileError:
    """The CompileError for a `raise` that graph code executes at compile time: also an instance
    of the raised class, so `except ValueError` (or the user's own exception class) catches it."""
    cls = type(exc)
    for base, kind in ((TypeError, CompileTypeError), (ValueError, CompileValueError),
                       (IndexError, CompileIndexError), (NameError, CompileNameError)):
        if cls is base:
            return kind(f"{cls.__name__}: {exc}", loc)
    kind = _RAISED_KINDS.get(cls)
    if kind is None:
        try:
            kind = type(f"Compile{cls.__name__}", (CompileError, cls), {"__module__": cls.__module__})
        except TypeError:           # an exception class that cannot be mixed in (layout conflict)
            kind = CompileError
        _RAISED_KINDS[cls] = kind
    err = kind.__new__(kind)
    CompileError.__init__(err, f"{cls.__name__}: {exc}", loc)
    return err
