"""What the compile cache's modules share: its format constants, warnings, and small helpers."""
from __future__ import annotations

import hashlib
import os
import warnings
from pycompile.common import knobs

FORMAT = 1


SUBDIR = f"pycompile-v{FORMAT}"


MAGIC = b"pycompile-cache-entry"


MAX_ENTRIES_PER_KEY = 8


GC_GRACE_SECONDS = 3600            # payloads younger than this are never collected


class CompileCacheWarning(UserWarning):
    """A cache entry was corrupt or stale and is rebuilt, or the cache directory is unusable."""


class Uncacheable(Exception):
    """This call cannot be cached (the reason is the message); it is compiled as usual."""


class _Absent:
    def __repr__(self):
        return "<absent>"


ABSENT = _Absent()


def _sha(data) -> str:
    """The hex SHA-256 of bytes, or of a str's UTF-8 (a lone surrogate, which a function's
    __name__ or a string constant may hold, kept as its code point's bytes, not an error)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def _explain_level() -> int:
    return knobs.get("PYCOMPILE_CACHE_EXPLAIN")


def _warn(msg: str) -> None:
    warnings.warn(f"pycompile compile cache: {msg}", CompileCacheWarning, stacklevel=4)


def _is_library_module(mod) -> bool:
    return isinstance(mod, str) and (mod == "pycompile" or mod.startswith("pycompile."))


def _rel(path: str) -> str:
    try:
        r = os.path.relpath(path)
        return r if not r.startswith("..") else path
    except ValueError:
        return path


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "fn"
