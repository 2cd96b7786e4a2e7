"""`mindspore.ops.operations._embedding_cache_ops` under pycompile's name: the embedding-cache
Primitives MindSpore's CPU tests use (SubAndFilter, UpdateCache; ops/entries/suite_fix33.py)."""
from pycompile.ops.operations import SubAndFilter, UpdateCache  # noqa: F401

__all__ = ["SubAndFilter", "UpdateCache"]
