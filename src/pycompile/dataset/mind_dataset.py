"""MindDataset: rows of MindRecord files (written by MindSpore's FileWriter or pycompile's), format
in mindrecord_format.py. Random access, so samplers, num_shards / shard_id and num_samples work as
on the other sources; columns come in sorted name order, or as `columns_list` names them. Types
are MindSpore's: scalars of their schema type (string: a str array), `bytes` a 1-element bytes
array, arrays their dtype and shape. shuffle (default True) uses pycompile's RandomSampler order;
MindSpore's own MindRecord shuffle is not reproduced.
"""
from __future__ import annotations

import os

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
        if padded_sample is not None or num_padded:
            raise NotImplementedError("pycompile's MindDataset does not support padded_sample / num_padded")
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

    def get_col_names(self):
        return list(self._names)

    def _length(self):
        return len(self._rows_data)

    def _get(self, index):
        row = self._rows_data[index]
        return tuple(row[n] for n in self._names)
