"""Errors a user can cause while compiling, each naming their file, line and column; and the
one error a user can't cause, `InternalCompilerError`.

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


class StandsFor(type):
    """The metaclass of the error classes that carry the name of a builtin exception
    (`stands_for(cls, ValueError)`): such a class compares equal to that builtin, and hashes as it
    does, so MindSpore users' exact-class checks (`assert ValueError == type(e)`, in MindSpore's
    own tests) hold, while the class stays a CompileError (or an op error) with the user's line.
    `type(e) is ValueError` stays False: only a distinct class can carry the location."""

    def __eq__(cls, other):
        return cls is other or (other is not None and other is cls.__dict__.get("_stands_for"))

    def __ne__(cls, other):
        return not StandsFor.__eq__(cls, other)

    def __hash__(cls):
        b = cls.__dict__.get("_stands_for")
        return hash(b) if b is not None else type.__hash__(cls)


def stands_for(cls: type, builtin: type) -> type:
    """Name `cls` (a class of metaclass StandsFor) after `builtin` and make it compare equal to it."""
    cls.__name__ = cls.__qualname__ = builtin.__name__
    cls._stands_for = builtin
    return cls


class CompileError(RuntimeError, metaclass=StandsFor):
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


class CompileAttributeError(CompileError, AttributeError):
    """An attribute graph code reads that its object lacks (`ops.no_such_op`): MindSpore's graph
    mode raises AttributeError there too."""


class CompileUnboundLocalError(CompileNameError, UnboundLocalError):
    """A variable assigned in only one branch of a runtime `if`, then used (MindSpore raises
    UnboundLocalError for it too)."""


class InputValueNeeded(CompileValueError):
    """An op in graph code needs the VALUE of a Tensor (its paddings, a shape), which compiled code
    knows only when it runs. When that Tensor is an argument of the compiled function, the caller
    (pycompile.api) compiles again with the argument's value as a constant of the graph (one
    specialization per value, as MindSpore's ops that depend on a value see a constant input);
    otherwise this reaches the user at their line, as a ValueError. `value` is the graph value
    (the frontend resolves it to the argument's `position`)."""

    def __init__(self, message: str, value=None, loc=None, hint: str = ""):
        self.value = value
        self.position = None
        super().__init__(message, loc, hint)

    def at(self, loc) -> "InputValueNeeded":
        """Point the message at the user's line (once: the innermost expression's)."""
        if self.loc is None:
            self.loc = loc
            self.args = (self.render(),)
        return self

    def __reduce__(self):
        return (CompileValueError, (self.msg, self.loc, self.hint, self.message_first))


# The class a user sees carries the name of the exception MindSpore raises (issue: a
# `type(e).__name__` check in user code or tests must keep working): CompileTypeError is a
# CompileError and a TypeError, and is called 'TypeError'
# (and compares equal to it: StandsFor)
for _cls, _builtin in ((CompileError, RuntimeError), (CompileTypeError, TypeError),
                       (CompileValueError, ValueError), (CompileIndexError, IndexError),
                       (CompileNameError, NameError), (CompileUnboundLocalError, UnboundLocalError),
                       (CompileAttributeError, AttributeError),
                       (InputValueNeeded, ValueError)):
    stands_for(_cls, _builtin)


class DocumentedError(Exception):
    """Mixin for errors whose message is MindSpore's documented text: when wrapped with the
    user's location the message stays the first line."""


class MsClassCallError(DocumentedError, ValueError, metaclass=StandsFor):
    pass


stands_for(MsClassCallError, ValueError)


class UserError(Exception):
    """Mixin for errors pycompile raises on purpose about the user's program (a tensor called as
    a function, a non-Parameter given to Assign): never mistaken for an internal failure."""


def _user_kind(base: type) -> type:
    """A UserError that is a `base` and carries its name: `type(e).__name__` is what MindSpore
    raises ('TypeError', 'KeyError' ...), as users' code and tests check it."""
    cls = StandsFor(base.__name__, (UserError, base), {"__module__": __name__, "__doc__": f"A deliberate {base.__name__}."})
    return stands_for(cls, base)


GraphTypeError = _user_kind(TypeError)
GraphValueError = _user_kind(ValueError)
UserKeyError = _user_kind(KeyError)
UserAttributeError = _user_kind(AttributeError)


class InternalCompilerError(RuntimeError):
    """A failure inside pycompile itself while compiling (a bug, not the user's mistake). The
    original exception is chained as __cause__, with its traceback into pycompile."""

    def __init__(self, exc: BaseException, what: str = "", loc=None):
        where = f" (while compiling the code at {loc.file}:{loc.line})" if loc is not None else ""
        self.original = exc
        super().__init__(f"internal error in pycompile{' during ' + what if what else ''}{where}: "
                         f"{type(exc).__name__}: {exc}\nThis is a bug in pycompile, not in your code; please "
                         f"report it with the traceback above.")


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
            kind = type(cls.__name__, (CompileError, cls), {"__module__": cls.__module__})
        except TypeError:           # an exception class that cannot be mixed in (layout conflict)
            kind = CompileError
        _RAISED_KINDS[cls] = kind
    err = kind.__new__(kind)
    CompileError.__init__(err, f"{cls.__name__}: {exc}", loc)
    return err
