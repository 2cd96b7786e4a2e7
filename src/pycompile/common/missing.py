"""The MindSpore 2.10 names pycompile does not have yet, and the AttributeError a user gets for one.

The list is MindSpore 2.10's public API as its wheel enumerates it (pycompile/data/mindspore_names.json,
written by tests/conformance/record_names.py under MindSpore's venv), one entry per namespace:
``ms`` (the top-level package), ``ops``, ``ops.operations``, ``ops.functional``, ``nn``,
``Tensor``, ``train``, ``amp``, ``communication``, ``dataset`` (+ ``.vision``, ``.transforms``,
``.text``) and ``numpy``. A module of pycompile's that mirrors one of them ends with

    def __getattr__(name):
        raise missing("ops", __name__, name)

so ``ops.NMSWithMask`` says that it is a MindSpore API pycompile does not support yet and where
the reference lists what is supported, instead of Python's bare "has no attribute". A name that
MindSpore does not have either keeps Python's message. Inside graph code the frontend reports the
same message at the user's line.

``Tensor`` gets no ``__getattr__``: NumPy probes a Tensor for ``__array_struct__`` and the like on
every conversion, and a Python ``__getattr__`` would cost each probe a call and an exception
(``np.asarray(tensor)`` 0.5 -> 3 us). Instead `install_tensor_stubs` puts a descriptor on the class
for each MindSpore Tensor method pycompile lacks (names from data/mindspore_tensor_names.txt, a
short file read at import); reading one raises the same AttributeError, and ``hasattr`` is False.
"""
import functools
import json
import os

_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
_DATA = os.path.join(_DIR, "mindspore_names.json")
_TENSOR_NAMES = os.path.join(_DIR, "mindspore_tensor_names.txt")

# namespace key -> how MindSpore spells the owner of a name in that namespace
MINDSPORE_PREFIX = {"ms": "mindspore", "Tensor": "mindspore.Tensor"}

REFERENCE_PAGE = "docs/api/{page}.md"

_UNSUPPORTED = "that pycompile does not support yet"


@functools.lru_cache(maxsize=None)
def mindspore_names() -> dict:
    """{namespace: {name: {"kind": ..., "signature": ...}}} for MindSpore 2.10."""
    with open(_DATA, encoding="utf-8") as f:
        return json.load(f)["namespaces"]


def mindspore_spelling(namespace: str, name: str) -> str:
    return f"{MINDSPORE_PREFIX.get(namespace, 'mindspore.' + namespace)}.{name}"


def reference_page(namespace: str) -> str:
    return REFERENCE_PAGE.format(page=namespace)


def missing(namespace: str, owner: str, name: str) -> AttributeError:
    """The AttributeError for `owner.name` where `owner` mirrors MindSpore's `namespace` (a module's
    name, or for ``Tensor`` the class name, as Python words its own message)."""
    what = f"{owner!r} object" if namespace == "Tensor" else f"module {owner!r}"
    if not name.startswith("_") and name in mindspore_names().get(namespace, ()):
        return AttributeError(
            f"{what} has no attribute {name!r}: {mindspore_spelling(namespace, name)} is a "
            f"MindSpore 2.10 API {_UNSUPPORTED} (the API reference, "
            f"{reference_page(namespace)} in pycompile's repository, lists what is supported)")
    return AttributeError(f"{what} has no attribute {name!r}")


def unsupported(exc: BaseException) -> bool:
    """Whether `exc` is the AttributeError `missing` raises for a MindSpore name pycompile lacks."""
    return isinstance(exc, AttributeError) and _UNSUPPORTED in str(exc)


class _Lacking:
    """A MindSpore Tensor method pycompile lacks: reading it raises `missing`'s AttributeError."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise missing("Tensor", (owner or type(obj)).__name__, self.name)


def install_tensor_stubs(cls) -> None:
    """Give `cls` (Tensor) a `_Lacking` descriptor for each MindSpore 2.10 Tensor name it lacks.
    Run once, after every module that adds Tensor methods has been imported."""
    with open(_TENSOR_NAMES, encoding="utf-8") as f:
        for name in f.read().split():
            if not hasattr(cls, name):
                setattr(cls, name, _Lacking(name))


def unsupported_stub(fn):
    """Mark `fn` as a name kept importable for MindSpore code that imports it at module level
    (``from mindspore.train.serialization import export``) but that pycompile does not support:
    calling it raises. `present` does not count it, and the API reference lists it as not yet."""
    fn.__pycompile_unsupported__ = True
    return fn


def present(owner, name: str) -> bool:
    """Whether `owner.name` is a supported name (exists, and is no `unsupported_stub`)."""
    try:
        value = getattr(owner, name)
    except AttributeError:
        return False
    return not getattr(value, "__pycompile_unsupported__", False)
