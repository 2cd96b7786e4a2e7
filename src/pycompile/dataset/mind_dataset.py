"""MindDataset: rows of MindRecord files (written by MindSpore's FileWriter or pycompile's), format
in mindrecord_format.py. Random access, so samplers, num_shards / shard_id and num_samples work as
on the other sources; columns come in sorted name order, or as `columns_list` names them. Types
are MindSpore's: scalars of their schema type (string: a str array), `bytes` a 1-element bytes
array, arrays their dtype and shape. shuffle (default True) uses pycompile's RandomSampler order;
MindSpore's own MindRecord shuffle is not reproduced.

`padded_sample` (a dict holding every column of `columns_list`) with `num_padded` appends that
many copies of the sample after the files' rows, as MindSpore does, so that shards
(num_shards / shard_id, or a DistributedSampler) split rows + num_padded evenly: row i of the
padded whole goes to shard i % num_shards. The padded sample's values are converted as
MindSpore's are: a NumPy array by its bytes (read back with the schema's type and shape).
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.dataset import mindrecord_format as fmt
from pycompile.dataset.sources import RandomAccessSource


def _shard_files(first: str, header: dict) -> list:
    """All shard files of a data set, from the header's shard_addresses (MindSpore opens every one)."""
    folder = os.path.dirname(first)
    names = [os.path.basename(p) for p in header.get("shard_addresses", [])] or [os.path.basename(first)]
    return [os.path.join(folder, n) for n in names]


class MindDataset(RandomAccessSource):
    """Rows of MindRecord `dataset_files` (a file, whose header lists its sibling shards, or a list of files)."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None):
        _check_padding(padded_sample, num_padded, columns_list)
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        if isinstance(dataset_files, str):
            if not os.path.isfile(dataset_files):
                raise ValueError(f"The file {dataset_files} does not exist or permission denied!")
            files = _shard_files(dataset_files, fmt.read_header(dataset_files))
        else:
            files = list(dataset_files)
        self._rows_data, schema = [], None
        for path in files:
            if not os.path.isfile(path):
                raise RuntimeError(f"Invalid file, failed to open MindRecord shard {path}: it does not exist.")
            header = fmt.read_header(path)
            schema = header["schema"][0]["schema"]
            self._rows_data += fmt.read_rows(path, header)
        names = sorted(schema)
        if columns_list is not None:
            unknown = [c for c in columns_list if c not in schema]
            if unknown:
                raise RuntimeError(f"Invalid data, column(s) {unknown} of columns_list are not in the MindRecord "
                                   f"schema: {names}")
            names = list(columns_list)
        self._names = names
        if padded_sample is not None and num_padded:
            pad = {c: _padded_value(schema[c], padded_sample[c]) for c in names}
            self._rows_data += [pad] * num_padded
            shards = getattr(self._sampler, "num_shards", None)
            if shards and len(self._rows_data) % shards:
                raise RuntimeError(f"Invalid data, the size of dataset and padded samples: {len(self._rows_data)} can "
                                   f"not be divisible by the value of 'num_shards': {shards}.\n Please adjust the "
                                   "value of 'num_padded'.")

    def get_col_names(self):
        return list(self._names)

    def _length(self):
        return len(self._rows_data)

    def _class_labels(self, column):
        """Every row's value of `column` (PKSampler's classes; any schema column, as MindSpore allows)."""
        if self._rows_data and column not in self._rows_data[0]:
            raise RuntimeError(f"Invalid data, 'class_column': {column} can not found in fields of mindrecord files. "
                               "Please check 'class_column' in PKSampler.")
        return [row[column].item() for row in self._rows_data]

    def _get(self, index):
        row = self._rows_data[index]
        return tuple(row[n] for n in self._names)


def _check_padding(padded_sample, num_padded, columns_list):
    """MindSpore's checks of padded_sample / num_padded (its classes and words)."""
    if num_padded is not None and (not isinstance(num_padded, int) or isinstance(num_padded, bool)):
        raise TypeError(f"Argument num_padded with value {num_padded} is not of type [<class 'int'>], "
                        f"but got {type(num_padded)}.")
    if padded_sample is not None:
        if not isinstance(padded_sample, dict):
            raise TypeError(f"Argument padded_sample with value {padded_sample} is not of type [<class 'dict'>], "
                            f"but got {type(padded_sample)}.")
        if num_padded is None:
            raise RuntimeError("padded_sample is specified and requires num_padded as well.")
        if num_padded < 0:
            raise ValueError(f"num_padded is invalid, num_padded={num_padded}.")
        if columns_list is None:
            raise RuntimeError("padded_sample is specified and requires columns_list as well.")
        if any(c not in padded_sample for c in columns_list):
            raise ValueError("padded_sample cannot match columns_list.")
    elif num_padded is not None:
        raise RuntimeError("num_padded is specified but padded_sample is not.")


def _padded_value(spec: dict, value):
    """A padded sample's value as a column of `spec` (MindSpore passes an array on as its bytes)."""
    if spec["type"] == "bytes":
        return np.array([value.tobytes() if isinstance(value, np.ndarray) else bytes(value)])
    if "shape" in spec:
        data = np.asarray(value).tobytes()
        return np.frombuffer(data, dtype=fmt.NUMPY[spec["type"]]).reshape(spec["shape"]).copy()
    return fmt.decode_scalar(spec, value.item() if isinstance(value, np.generic) else value)
