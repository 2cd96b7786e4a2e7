"""ds.Schema: column names, types and shapes as MindSpore 2.10 writes them (to_json: sorted keys,
two-space indent; add_column without a shape gives rank 1 and no "shape", parse_columns from a
dict gives rank 0 and "shape": [] - tests/oracle/data/schema_data35.json), and what the sources
that take `schema=` (RandomDataset, TFRecordDataset, GeneratorDataset) read from one. Kept apart
from the sources so each of them can import it.
"""
from __future__ import annotations

import json

import numpy as np

_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64", "string", "bytes")


def _type_name(de_type) -> str:
    from pycompile.common import dtype as mstype
    if isinstance(de_type, mstype.DType):
        name = np.dtype(de_type.np).name
        return "bool" if name == "bool" else name
    if isinstance(de_type, str) and de_type in _TYPES:
        return de_type
    raise TypeError("Unknown column type.")


class Schema:
    """Column names, types and shapes; `schema_file` a JSON file of them."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = None          # a schema file's numRows (TFRecordDataset reads that many rows)
        if schema_file is not None:
            with open(schema_file) as f:
                self.from_json(json.load(f))

    def add_column(self, name, de_type, shape=None):
        if not isinstance(name, str):
            raise TypeError(f"Argument name with value {name} is not of type [<class 'str'>], but got {type(name)}.")
        col = {"name": name, "type": _type_name(de_type)}
        if shape is None:
            col["rank"] = 1
        else:
            col["shape"], col["rank"] = [int(d) for d in shape], len(shape)
        self.columns.append(col)

    def parse_columns(self, columns):
        if isinstance(columns, dict):
            for name, spec in sorted(columns.items()):     # MindSpore's JSON objects hold their keys sorted
                shape = list(spec.get("shape", []))
                self.columns.append({"name": name, "type": _type_name(spec["type"]), "rank": len(shape),
                                     "shape": shape})
            return
        for spec in columns:
            self.add_column(spec["name"], spec["type"], spec.get("shape"))

    @staticmethod
    def _checked_type(de_type):
        return _type_name(de_type)

    def from_json(self, json_obj):
        self.columns = []
        self.num_rows = json_obj.get("numRows")
        self.parse_columns(json_obj["columns"])

    def to_json(self):
        return json.dumps({"columns": self.columns}, indent=2, sort_keys=True)

    def __str__(self):
        return self.to_json()

    def _specs(self):
        return [(c["name"], c["type"], c.get("shape")) for c in self.columns]


def schema_columns(schema):
    """[(name, type, shape or None, rank)] and numRows (None when absent) of a Schema or a JSON schema
    file's path (read as MindSpore's sources read one: a columns object in name order, "rank" kept,
    no "shape" an unknown shape)."""
    import os
    if isinstance(schema, Schema):
        return [(c["name"], c["type"], c.get("shape"), c.get("rank", 1)) for c in schema.columns], schema.num_rows
    if not isinstance(schema, str):
        raise TypeError(f"path: {schema} is not string")
    if not os.path.isfile(schema):
        raise ValueError(f"The file {schema} does not exist or permission denied!")
    with open(schema) as f:
        spec = json.load(f)
    cols = spec.get("columns", [])
    if isinstance(cols, dict):      # a file read by its path keeps "rank" and a missing shape unknown
        cols = [dict(v, name=k) for k, v in sorted(cols.items())]
    columns = [(c["name"], Schema._checked_type(c["type"]), c.get("shape"), c.get("rank", 1)) for c in cols]
    return columns, spec.get("numRows")
