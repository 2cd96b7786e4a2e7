"""MnistDataset and Cifar10Dataset: the standard files, read from a local directory (no downloads).

MNIST: `train-images-idx3-ubyte` / `train-labels-idx1-ubyte` and `t10k-...` (big-endian idx
headers, magic 2051 / 2049). Rows: image uint8 (rows, cols, 1), label uint32. usage 'all' reads
the test files first, then the training files, as MindSpore 2.10 does.

CIFAR-10 (binary version): `data_batch_*.bin` and `test_batch.bin`, records of one label byte and
3072 image bytes (channel-major). Rows: image uint8 (32, 32, 3), label uint32; 'all' reads the
training batches first. MindSpore insists on 10000 records per file; any whole number of records
is read here (so tests can use small files), and a partial record is an error.

Files are memory-mapped, not loaded; a row is copied out when it is read.
"""
from __future__ import annotations

import glob
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


class _ArraySource(RandomAccessSource):
    """Rows (image, label) from aligned (images, labels) arrays of one or more files, read in
    place (concatenating CIFAR's batches would copy 180 MB)."""

    def __init__(self, parts, num_samples, shuffle, num_shards, shard_id, sampler):
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self._parts = parts
        self._starts = np.cumsum([0] + [len(labels) for _, labels in parts])

    def get_col_names(self):
        return ["image", "label"]

    def _length(self):
        return int(self._starts[-1])

    def _get(self, index):
        part = int(np.searchsorted(self._starts, index, side="right")) - 1
        images, labels = self._parts[part]
        i = index - int(self._starts[part])
        return np.array(images[i]), np.array(labels[i], dtype=np.uint32)


def _read_idx(path, magic, ndim):
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(4 * (ndim + 1)), dtype=">u4")
    if len(header) != ndim + 1 or header[0] != magic:
        raise RuntimeError(f"Invalid data, {path} is not an MNIST idx file (magic number {magic} expected).")
    shape = tuple(int(d) for d in header[1:])
    expected = 4 * (ndim + 1) + int(np.prod(shape))
    if os.path.getsize(path) < expected:
        raise RuntimeError(f"Invalid data, {path} is shorter than its header says ({expected} bytes).")
    return np.memmap(path, dtype=np.uint8, mode="r", offset=4 * (ndim + 1), shape=shape)


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
            img, lbl = _read_idx(img_path, 2051, 3), _read_idx(lbl_path, 2049, 1)
            if len(img) != len(lbl):
                raise RuntimeError(f"Invalid data, {img_path} holds {len(img)} images but {lbl_path} "
                                   f"{len(lbl)} labels.")
            parts.append((img[..., None], lbl))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage


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
            data = np.memmap(path, dtype=np.uint8, mode="r", shape=(size // _CIFAR_RECORD, _CIFAR_RECORD))
            images = data[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)   # CHW bytes -> HWC rows
            parts.append((images, data[:, 0]))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage
