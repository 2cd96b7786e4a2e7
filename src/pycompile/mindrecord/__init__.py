"""pycompile.mindrecord, shaped like mindspore.mindrecord: FileWriter writes MindRecord files in
MindSpore 2.10's format, byte for byte (pycompile/dataset/mindrecord_format.py), which MindSpore's
MindDataset and pycompile's read; `shard_num` > 1 writes `file_name` followed by the shard number
(zero-padded as MindSpore pads it). See docs/guide/data.md.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.dataset import mindrecord_format as fmt

__all__ = ["FileWriter", "MindRecordException", "ParamValueError"]

_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
_MAX_SHARDS = 1000


class MindRecordException(Exception):
    """Base of MindSpore's mindrecord errors; str() is "[ClassName]: message"."""

    def __init__(self, error_msg=""):
        super().__init__(error_msg)
        self.error_msg = error_msg

    def __str__(self):
        return f"[{type(self).__name__}]: {self.error_msg}"


class ParamValueError(MindRecordException):
    def __init__(self, error_detail):
        super().__init__(f"Invalid parameter value. {error_detail}")


class FileWriter:
    """Collects a schema, index fields and rows; `commit()` writes the shard files and their .db
    indexes. Each write_raw_data call's rows are split in order into `shard_num` runs, the
    first n % shard_num shards taking one row more (MindSpore picks those shards at random)."""

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str) or not file_name:
            raise ValueError("file_name must be a non-empty str.")
        if shard_num is None:
            raise ParamValueError("Parameter shard_num is None.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamValueError("Parameter shard_num's type is not int.")
        if not 1 <= shard_num <= _MAX_SHARDS:
            raise ParamValueError(f"Parameter shard_num's value: {shard_num} should between 1 and {_MAX_SHARDS}.")
        width = len(str(shard_num - 1))
        self._paths = [file_name] if shard_num == 1 else [f"{file_name}{k:0{width}d}" for k in range(shard_num)]
        for path in self._paths:
            for p in (path, path + ".db"):
                if os.path.exists(p) and not overwrite:
                    raise RuntimeError(f"Invalid file, mindrecord files already exist. Please check file path: "
                                       f"{path}.\nIf you do not want to keep the files, set the 'overwrite' "
                                       "parameter to True and try again.")
        self.file_name = file_name
        self._schema, self._desc, self._index = None, "", []
        self._shards = [[] for _ in self._paths]
        self._committed = False

    def add_schema(self, content, desc=None):
        if not isinstance(content, dict) or not content:
            raise ValueError("Invalid schema, the schema must be a non-empty dict.")
        for name, spec in content.items():
            if not isinstance(spec, dict) or spec.get("type") not in _TYPES:
                raise ValueError(f"Invalid schema, field '{name}' needs a type in {list(_TYPES)}, but got {spec!r}.")
            if "shape" in spec and (spec["type"] in ("string", "bytes") or not isinstance(spec["shape"], list)):
                raise ValueError(f"Invalid schema, field '{name}': only int32 / int64 / float32 / float64 fields "
                                 "take a shape (a list).")
        if self._schema is not None:
            raise RuntimeError("pycompile's FileWriter takes one schema")
        self._schema = {k: dict(v) for k, v in content.items()}
        self._desc = "" if desc is None else str(desc)
        return 0

    def add_index(self, index_fields):
        if self._schema is None:
            raise RuntimeError("add_schema must be called before add_index.")
        for f in index_fields:
            spec = self._schema.get(f)
            if spec is None or fmt.is_blob(spec):
                raise ValueError(f"Invalid index field '{f}': it must be a scalar (non-bytes, non-array) field of "
                                 "the schema.")
        self._index = list(index_fields)

    def write_raw_data(self, raw_data, parallel_writer=False):
        if self._schema is None:
            raise RuntimeError("add_schema must be called before write_raw_data.")
        if not isinstance(raw_data, list) or not all(isinstance(r, dict) for r in raw_data):
            raise TypeError("raw_data must be a list of dict.")
        rows = [{k: (np.asarray(v) if fmt.is_blob(self._schema[k]) and self._schema[k]["type"] != "bytes" else v)
                 for k, v in r.items() if k in self._schema} for r in raw_data]
        per, extra = divmod(len(rows), len(self._shards))
        start = 0
        for k, shard in enumerate(self._shards):
            end = start + per + (k < extra)
            shard.extend(rows[start:end])
            start = end

    def commit(self):
        if self._schema is None:
            raise RuntimeError("add_schema must be called before commit.")
        # without add_index MindSpore 2.10 indexes every scalar field (by name): its reader finds
        # no rows in a file whose index has none
        index = self._index or sorted(k for k, spec in self._schema.items() if not fmt.is_blob(spec))
        fmt.write_shards(self._paths, self._schema, self._desc, index, self._shards)
        self._committed = True


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("mindrecord", __name__, name)
