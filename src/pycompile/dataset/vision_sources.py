"""MnistDataset and Cifar10Dataset: the standard files, read from a local directory (no downloads).

MNIST: `train-images-idx3-ubyte` / `train-labels-idx1-ubyte` and `t10k-...` (big-endian idx
headers, magic 2051 / 2049). Rows: image uint8 (rows, cols, 1), label uint32. usage 'all' reads
the test files first, then the training files, as MindSpore 2.10 does.

CIFAR-10 (binary version): `data_batch_*.bin` and `test_batch.bin`, records of one label byte and
3072 image bytes (channel-major). Rows: image uint8 (32, 32, 3), label uint32; 'all' reads the
training batches first. MindSpore insists on 10000 records per file; any whole number of records
is read here (so tests can use small files), and a partial record is an error.

Files are not loaded nor memory-mapped: each row is read (pread) when it is asked for, so a file
that changes under a reader gives a RuntimeError naming it, not SIGBUS.
"""
from __future__ import annotations

import glob
import math
import os

import numpy as np

from pycompile.dataset.sources import RandomAccessSource

_USAGES = ("train", "test", "all")


def _check_dir_and_usage(dataset_dir, usage):
    if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
        raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or permission denied!")
    usage = "all" if usage is None else usage
    if usage not in _USAGES:
        raise ValueError(f"Input usage is not within the valid set of {list(_USAGES)}.")
    return usage


class _Records:
    """Fixed-size records of one file, read with pread on each access, not memory-mapped: a file
    that shrinks while a dataset iterates it gave the process SIGBUS through a mapping; a short
    read here is a RuntimeError naming the file. The descriptor is opened on first use (and again
    in a forked or unpickled copy)."""

    def __init__(self, path: str, offset: int, record_bytes: int, count: int):
        self.path, self.offset, self.record_bytes, self.count = path, offset, record_bytes, count
        self._file = None
        self._pid = None

    def __len__(self) -> int:
        return self.count

    def __getstate__(self):
        return {**self.__dict__, "_file": None, "_pid": None}

    def read(self, i: int) -> bytes:
        if self._file is None or self._pid != os.getpid():
            try:
                self._file = open(self.path, "rb", buffering=0)
            except OSError as e:
                raise RuntimeError(f"Invalid data, {self.path} cannot be read any more: {e}") from None
            self._pid = os.getpid()
        at = self.offset + i * self.record_bytes
        try:
            data = os.pread(self._file.fileno(), self.record_bytes, at)
        except OSError as e:
            raise RuntimeError(f"Invalid data, reading {self.path} failed: {e}") from None
        if len(data) != self.record_bytes:
            raise RuntimeError(f"Invalid data, {self.path} changed while it was read: record {i} "
                               f"({self.record_bytes} bytes at offset {at}) is past its end, the file "
                               f"now holding {os.fstat(self._file.fileno()).st_size} bytes.")
        return data


class _ArraySource(RandomAccessSource):
    """Rows (image, label) from one or more files, each a `_row(part, i)` away."""

    def __init__(self, parts, num_samples, shuffle, num_shards, shard_id, sampler):
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self._parts = parts
        self._starts = np.cumsum([0] + [len(part[0]) for part in parts])

    def get_col_names(self):
        return ["image", "label"]

    def _length(self):
        return int(self._starts[-1])

    def _get(self, index):
        part = int(np.searchsorted(self._starts, index, side="right")) - 1
        return self._row(self._parts[part], index - int(self._starts[part]))


def _read_idx(path, magic, ndim) -> tuple:
    """(records, item shape) of an idx file: its first dimension counts the records."""
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(4 * (ndim + 1)), dtype=">u4")
    if len(header) != ndim + 1 or header[0] != magic:
        raise RuntimeError(f"Invalid data, {path} is not an MNIST idx file (magic number {magic} expected).")
    shape = tuple(int(d) for d in header[1:])
    expected = 4 * (ndim + 1) + math.prod(shape)       # exact: np.prod wraps past 2**63
    if os.path.getsize(path) < expected:
        raise RuntimeError(f"Invalid data, {path} is shorter than its header says ({expected} bytes for "
                           f"dimensions {list(shape)}).")
    return _Records(path, 4 * (ndim + 1), math.prod(shape[1:]), shape[0]), shape[1:]


class MnistDataset(_ArraySource):
    """The MNIST idx files in `dataset_dir`; usage 'train' (60000 rows in the real files), 'test'
    (10000) or 'all' / None (both). Shuffled by default, as in MindSpore."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _check_dir_and_usage(dataset_dir, usage)
        prefixes = {"train": ["train"], "test": ["t10k"], "all": ["t10k", "train"]}[usage]
        parts = []
        for prefix in prefixes:
            img_path = os.path.join(dataset_dir, f"{prefix}-images-idx3-ubyte")
            lbl_path = os.path.join(dataset_dir, f"{prefix}-labels-idx1-ubyte")
            if not (os.path.isfile(img_path) and os.path.isfile(lbl_path)):
                raise RuntimeError(f"Invalid data, MnistDataset API can't read the data file (interface mismatch or "
                                   f"no data found). Check mnist file in directory: {dataset_dir}")
            (img, img_shape), (lbl, _) = _read_idx(img_path, 2051, 3), _read_idx(lbl_path, 2049, 1)
            if len(img) != len(lbl):
                raise RuntimeError(f"Invalid data, {img_path} holds {len(img)} images but {lbl_path} "
                                   f"{len(lbl)} labels.")
            parts.append((img, lbl, img_shape + (1,)))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage

    @staticmethod
    def _row(part, i):
        images, labels, shape = part
        image = np.frombuffer(images.read(i), np.uint8).reshape(shape).copy()     # writable, as a row is
        return image, np.array(labels.read(i)[0], dtype=np.uint32)


_CIFAR_RECORD = 1 + 3 * 32 * 32


class Cifar10Dataset(_ArraySource):
    """The CIFAR-10 binary batches in `dataset_dir`; usage 'train', 'test' or 'all' / None.
    Shuffled by default, as in MindSpore."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _check_dir_and_usage(dataset_dir, usage)
        train = sorted(glob.glob(os.path.join(dataset_dir, "data_batch_*.bin")))
        test = [p for p in [os.path.join(dataset_dir, "test_batch.bin")] if os.path.isfile(p)]
        files = {"train": train, "test": test, "all": train + test}[usage]
        if not files:
            raise RuntimeError(f"Invalid cifar10 folder, no data_batch_*.bin / test_batch.bin for usage '{usage}' "
                               f"in {dataset_dir} (make sure it is the CIFAR-10 binary version).")
        parts = []
        for path in files:
            size = os.path.getsize(path)
            if size == 0 or size % _CIFAR_RECORD:
                raise RuntimeError(f"Invalid cifar10 file, {path} is not a whole number of {_CIFAR_RECORD}-byte "
                                   f"records (make sure it is the CIFAR-10 binary version).")
            parts.append((_Records(path, 0, _CIFAR_RECORD, size // _CIFAR_RECORD),))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage

    @staticmethod
    def _row(part, i):
        record = np.frombuffer(part[0].read(i), np.uint8)
        image = record[1:].reshape(3, 32, 32).transpose(1, 2, 0)       # CHW bytes -> HWC rows
        return np.ascontiguousarray(image), np.array(record[0], dtype=np.uint32)
