"""ImageFolderDataset, CSVDataset and TextFileDataset, read as MindSpore 2.10 reads them.

ImageFolderDataset: one class per sub-folder of `dataset_dir`, classes numbered in sorted folder
order (or by `class_indexing`, which also picks the folders), files in sorted name order, kept
when their extension is in `extensions` (case-sensitive; all files when None). Rows: image (the
file's bytes, uint8 1-D, or with decode=True the decoded HWC RGB image) and label int32. Random
access, so samplers, shuffle and shards work as on the other sources.

CSVDataset / TextFileDataset read rows in order, as MindSpore's parallel file readers hand them
out: the files (or, sharded, the stretch of the files' rows a shard gets: ceil(total / num_shards)
rows from shard_id * that, wrapping around) are cut into per-file pieces dealt to
`num_parallel_workers` workers in turn, and the rows come one from each worker in turn. The
order therefore depends on the worker count, as in MindSpore, whose default is
min(8, CPU count) (ds.config). Unshuffled orders match MindSpore's; shuffled ones (the default,
Shuffle.GLOBAL) draw from pycompile's own stream. TextFileDataset skips empty lines and keeps a
'\r' before '\n'; CSV columns are strings unless `column_defaults` makes them int32 / float32.
"""
from __future__ import annotations

import csv
import glob
import math
import os
import re
from enum import Enum

import numpy as np

from pycompile.dataset import config
from pycompile.dataset.datasets import Dataset, node_rng
from pycompile.dataset.sources import RandomAccessSource, _check_num_samples, _check_shards
from pycompile.dataset.vision._decode import decode_image


class Shuffle(str, Enum):
    """How a file-based source shuffles: GLOBAL (files and rows), FILES, INFILE."""
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


class ImageFolderDataset(RandomAccessSource):
    """Images in class folders; see the module's text. Shuffled by default, as in MindSpore."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or permission denied!")
        if extensions is not None and not isinstance(extensions, list):
            raise TypeError(f"Argument extensions with value {extensions} is not of type [<class 'list'>], but got "
                            f"{type(extensions)}.")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError(f"Argument class_indexing with value {class_indexing} is not of type [<class 'dict'>], "
                            f"but got {type(class_indexing)}.")
        if decrypt is not None and not callable(decrypt):
            raise TypeError(f"Argument decrypt is not a callable object, but got {type(decrypt)}")
        self.decrypt = decrypt
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        folders = sorted(n for n in os.listdir(dataset_dir) if os.path.isdir(os.path.join(dataset_dir, n)))
        if class_indexing is None:
            self._class_indexing = {name: i for i, name in enumerate(folders)}
        else:
            self._class_indexing = dict(class_indexing)
            folders = [f for f in folders if f in class_indexing]
        self._files, self._labels = [], []
        for folder in folders:
            for name in sorted(os.listdir(os.path.join(dataset_dir, folder))):
                path = os.path.join(dataset_dir, folder, name)
                if os.path.isfile(path) and (extensions is None or os.path.splitext(name)[1] in extensions):
                    self._files.append(path)
                    self._labels.append(self._class_indexing[folder])
        if not self._files:
            raise RuntimeError("Invalid data, ImageFolderDataset API can't read the data file (interface mismatch or "
                               f"no data found). Check image folder file path: {dataset_dir}")
        self.dataset_dir, self.decode = dataset_dir, bool(decode)
        self.extensions, self.class_indexing = extensions, class_indexing      # as given, for serialize

    def get_col_names(self):
        return ["image", "label"]

    def get_class_indexing(self):
        return dict(self._class_indexing)

    def _length(self):
        return len(self._files)

    def _class_labels(self, column):
        if column != "label":
            raise RuntimeError(f"Invalid data, PKSampler's class_column '{column}' is not a column of "
                               "ImageFolderDataset: ['image', 'label']")
        return list(self._labels)

    def _get(self, index):
        path = self._files[index]
        if self.decrypt is not None:        # MindSpore: the function's bytes replace the file's
            data = self.decrypt(path)
            if not isinstance(data, bytes):
                from pycompile.dataset.workers import user_error
                raise user_error("", "ImageFolderDataset", "The return value of the decrypt function is not of type "
                                 "bytes.", None)
            data = np.frombuffer(data, np.uint8).copy()
            return (decode_image(data, path) if self.decode else data), np.array(self._labels[index], dtype=np.int32)
        try:
            data = np.fromfile(path, dtype=np.uint8)
        except OSError as e:
            raise RuntimeError(f"Invalid file, {path} cannot be read: {e}") from None
        image = decode_image(data, path) if self.decode else data
        return image, np.array(self._labels[index], dtype=np.int32)


def _find_files(patterns) -> list:
    patterns = [patterns] if isinstance(patterns, str) else list(patterns)
    found, unmatched = [], []
    for p in patterns:
        matches = glob.glob(p)
        found += matches
        if not matches:
            unmatched.append(p)
    if unmatched:
        raise ValueError(f"The following patterns did not match any files: {unmatched}.")
    return sorted(set(found))


class _FileRows(Dataset):
    """Rows of text files in MindSpore's reader order (see the module's text)."""

    _cache_kind = "file"            # its rows kept by (file, line) under a DatasetCache (cache.py)

    def __init__(self, dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id):
        super().__init__()
        self.files = _find_files(dataset_files)
        _check_num_samples(num_samples)
        _check_shards(num_shards, shard_id)
        if num_parallel_workers is not None and (not isinstance(num_parallel_workers, int)
                                                 or not 1 <= num_parallel_workers):
            raise ValueError(f"num_parallel_workers must be a positive int, but got {num_parallel_workers!r}.")
        if shuffle is True or shuffle is None:
            shuffle = Shuffle.GLOBAL
        if shuffle is not False and not isinstance(shuffle, Shuffle):
            raise TypeError(f"shuffle must be a bool or a ds.Shuffle, but got {shuffle!r}.")
        # not `self.shuffle`: that would hide Dataset.shuffle() on these sources
        self.num_samples, self.shuffle_mode = num_samples, shuffle
        self.num_shards, self.shard_id = num_shards, shard_id
        self.workers = num_parallel_workers or config.get_num_parallel_workers()
        self._cache = {}

    def _file_rows(self, path) -> list:
        if path not in self._cache:
            self._cache[path] = self._read(path)
        return self._cache[path]

    def _pieces(self, files):
        """(file, start, stop) pieces this shard reads, in order."""
        counts = [len(self._file_rows(f)) for f in files]
        if not self.num_shards:
            return [(f, 0, n) for f, n in zip(files, counts) if n]
        total = sum(counts)
        per = math.ceil(total / self.num_shards)
        pieces, at, need = [], self.shard_id * per, per
        starts = np.cumsum([0] + counts)
        while need > 0 and total:
            at %= total
            k = int(np.searchsorted(starts, at, side="right")) - 1
            take = min(need, counts[k] - (at - int(starts[k])))
            pieces.append((files[k], at - int(starts[k]), at - int(starts[k]) + take))
            at, need = at + take, need - take
        return pieces

    def _rows(self, key, epoch):
        if self.cache is not None:
            from pycompile.dataset.cache import source_rows
            yield from source_rows(self, key, epoch)
            return
        for rid in self._row_ids(key, epoch):
            yield self._row_at(rid)

    def _row_ids(self, key, epoch) -> list:
        """The epoch's rows as (file, row in file), in the reader's order (the identities a
        DatasetCache keeps rows by: cache.py)."""
        rng = node_rng(key, epoch)
        files = list(self.files)
        if self.shuffle_mode in (Shuffle.GLOBAL, Shuffle.FILES):
            files = [files[i] for i in rng.permutation(len(files))]
        workers = [[] for _ in range(self.workers)]
        for i, piece in enumerate(self._pieces(files)):
            workers[i % self.workers].append(piece)
        streams = [self._stream(pieces, rng) for pieces in workers if pieces]
        out = []
        while streams:
            alive = []
            for s in streams:
                rid = next(s, None)
                if rid is not None:
                    out.append(rid)
                    alive.append(s)
            streams = alive
        if self.shuffle_mode == Shuffle.GLOBAL:
            out = [out[i] for i in rng.permutation(len(out))]
        return out[:self.num_samples] if self.num_samples else out

    def _row_at(self, rid) -> tuple:
        path, j = rid
        return self._file_rows(path)[j]

    def _stream(self, pieces, rng):
        for path, start, stop in pieces:
            index = range(start, stop)
            if self.shuffle_mode == Shuffle.INFILE:
                index = [index[i] for i in rng.permutation(len(index))]
            yield from ((path, j) for j in index)

    def _size(self):
        n = sum(stop - start for _, start, stop in self._pieces(self.files))
        return min(n, self.num_samples) if self.num_samples else n


class TextFileDataset(_FileRows):
    """One row per non-empty line of the files: column 'text' (a string)."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def get_col_names(self):
        return ["text"]

    @staticmethod
    def _read(path):
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        return [(np.array(line.decode("utf-8")),) for line in lines if line]


_INT = re.compile(r"\s*[+-]?\d+")
_FLOAT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class CSVDataset(_FileRows):
    """Rows of CSV files: columns named by `column_names` (else by each file's first line), typed
    by `column_defaults` (int -> int32, float -> float32, str or none -> string)."""

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in "\"\r\n":
            raise ValueError(f"field_delim must be one character other than a quote or a line break, but got "
                             f"{field_delim!r}.")
        for v in column_defaults or ():
            if not isinstance(v, (int, float, str)) or isinstance(v, bool):
                raise TypeError(f"column type in column_defaults is invalid: {v!r} (int, float or str).")
        self.field_delim, self.column_defaults = field_delim, column_defaults
        self._header = column_names is None
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)
        if column_names is None:
            with open(self.files[0], newline="", encoding="utf-8") as f:
                column_names = next(csv.reader(f, delimiter=field_delim), [])
        self.column_names = list(column_names)
        if column_defaults is not None and len(column_defaults) != len(self.column_names):
            raise ValueError(f"CSVDataset: column_defaults has {len(column_defaults)} entries but there are "
                             f"{len(self.column_names)} columns {self.column_names}.")

    def get_col_names(self):
        return list(self.column_names)

    def _read(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            records = list(csv.reader(f, delimiter=self.field_delim))
        if self._header:
            records = records[1:]
        defaults = self.column_defaults or [""] * len(self.column_names)
        rows = []
        for line, fields in enumerate(records, 1):
            if not fields:          # an empty line: MindSpore 2.10 skips it (a line of spaces is a row)
                continue
            if len(fields) != len(self.column_names):
                # MindSpore 2.10's words (its line: the record's, the header not counted); a row
                # of too many fields gets its message's odd "names: n, column_defaults : n" form
                n = len(self.column_names)
                got = (f"{len(fields)}, the size of 'column_defaults': {n}" if len(fields) < n
                       else f"{n}, the size of column_defaults : {n}")
                raise RuntimeError(f"Invalid file, failed to parse csv file: {path} at line {line}. Error message: "
                                   f"Invalid columns, the size of column_names should be less than the size of "
                                   f"'column_defaults', but got the size of column_names: {got}.")
            rows.append(tuple(_typed(v, d, path, line) for v, d in zip(fields, defaults)))
        return rows


def _typed(text, default, path, line):
    if isinstance(default, str):
        return np.array(text)
    # MindSpore parses the leading number of the field, as std::stoi / std::stof do
    match = (_INT if isinstance(default, int) else _FLOAT).match(text)
    if match is None:
        raise RuntimeError(f"Invalid csv, csv file: {path} parse failed at line {line}, type does not match.")
    if isinstance(default, int):
        return np.array(int(match.group()), dtype=np.int32)
    return np.array(float(match.group()), dtype=np.float32)
