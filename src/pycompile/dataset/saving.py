"""Dataset.save: a pipeline's rows written as MindRecord files (mindrecord_format.py), the way
MindSpore 2.10's save lays them out (tests/oracle/data/dataset_save.json):

- each column becomes a field: a 0-d value a scalar field, anything else an array field (a blob)
  of shape [-1] + its shape[1:]; the types widen as MindSpore widens them (bool, 8 / 16-bit ints
  and int32 -> int32; uint32 and 64-bit ints -> int64; float16 / float32 -> float32; float64;
  text -> string; raw bytes -> bytes);
- every scalar field is an index field, listed in the reverse of the order MindSpore's C++
  column map (an unordered_map, text/_hash_order.py) walks the columns; the description is
  "mindrecord"; no index field at all is written as null;
- with num_files = k, the rows are split in order into k runs, the last n % k files taking one
  row more.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset import mindrecord_format as fmt




def _field_type(arr: np.ndarray) -> str:
    kind, size = arr.dtype.kind, arr.dtype.itemsize
    if kind in "US":
        return "string" if arr.ndim == 0 and kind == "U" else "bytes"
    if kind == "b" or (kind == "i" and size <= 4) or (kind == "u" and size <= 2):
        return "int32"
    if kind in "iu":
        return "int64"
    if kind == "f":
        return "float64" if size == 8 else "float32"
    raise TypeError(f"Dataset.save: a column of dtype {arr.dtype} can not be saved to MindRecord.")


def _spec(arr: np.ndarray) -> dict:
    kind = _field_type(arr)
    if arr.ndim == 0 or kind in ("string", "bytes"):
        return {"type": kind}
    return {"type": kind, "shape": [-1] + list(arr.shape[1:])}


def _value(spec: dict, arr: np.ndarray):
    if spec["type"] == "string":
        return str(arr.item())
    if spec["type"] == "bytes":
        return arr.tobytes() if arr.dtype.kind != "S" else bytes(arr.item())
    cast = fmt.NUMPY[spec["type"]]
    if "shape" in spec:
        return np.asarray(arr, cast)
    return cast(arr.item()).item()


def save(dataset, file_name, num_files=1, file_type="mindrecord"):
    if not isinstance(file_name, str) or not file_name:
        raise ValueError("Dataset.save: file_name must be a non-empty str.")
    if not isinstance(num_files, int) or isinstance(num_files, bool) or not 1 <= num_files <= 1000:
        raise ValueError(f"Input num_files is not within the required interval of [1, 1000], got {num_files!r}.")
    if file_type != "mindrecord":
        raise ValueError(f"Dataset.save: file_type must be 'mindrecord', but got {file_type!r}.")
    names = dataset.get_col_names()
    schema, rows = None, []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        arrays = [np.asarray(v) for v in row]
        if schema is None:
            schema = {n: _spec(a) for n, a in zip(names, arrays)}
        rows.append({n: _value(schema[n], a) for n, a in zip(names, arrays)})
    if schema is None:
        raise RuntimeError("Dataset.save: the dataset has no rows to save.")
    from pycompile.dataset.text._hash_order import unordered_map_order
    index = [n for n in reversed(unordered_map_order(names)) if not fmt.is_blob(schema[n])]
    width = len(str(num_files - 1))
    paths = [file_name] if num_files == 1 else [f"{file_name}{k:0{width}d}" for k in range(num_files)]
    per, extra = divmod(len(rows), num_files)
    shards, start = [], 0
    for k in range(num_files):
        end = start + per + (k >= num_files - extra)
        shards.append(rows[start:end])
        start = end
    fmt.write_shards(paths, schema, "mindrecord", index, shards)
