"""MnistDataset, FashionMnistDataset, Cifar10Dataset and Cifar100Dataset: the standard files, read
from a local directory (no downloads), picked by name as MindSpore 2.10 picks them.

MNIST / Fashion-MNIST: idx files (big-endian headers, magic 2051 / 2049). A file is an image file
when its name holds `<prefix>-images` and `idx3-ubyte`, a label file when it holds
`<prefix>-labels` and `idx1-ubyte`, where the prefix is `train` for usage 'train', `t10k` for
'test' and empty for 'all' / None; image and label files pair up in sorted order. So usage None
reads whatever the folder holds: the official layout's MNIST_Data/train (only train-* files)
works, and a folder with both sets reads t10k first. Rows: image uint8 (rows, cols, 1), label
uint32.

CIFAR-10 (binary version): the `.bin` files whose names hold `data_batch` (usage 'train'),
`test_batch` ('test') or either ('all' / None), in sorted order (data_batch_10 before
data_batch_2, as MindSpore reads them). CIFAR-100: the `.bin` files whose names hold `train` /
`test` / either, sorted (so 'all' reads test.bin first). Records: one label byte (CIFAR-100: coarse
then fine) and 3072 image bytes, channel-major. Rows: image uint8 (32, 32, 3), labels uint32.
MindSpore counts 10000 records per CIFAR-10 file (50000 / 10000 for CIFAR-100's train / test)
whatever its size; any whole number of records is read here (so tests can use small files), and a
partial record is an error.

Missing files raise MindSpore's RuntimeError and message, but when the dataset is built:
MindSpore builds it, reports size 0 (MNIST) and raises on the first row.

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

    def _class_labels(self, column):
        """Every row's value of `column` (PKSampler's classes)."""
        names = self.get_col_names()
        if column not in names:
            raise RuntimeError(f"Invalid data, PKSampler's class_column '{column}' is not a column of "
                               f"{type(self).__name__}: {names}")
        col = names.index(column)
        return [int(self._get(i)[col]) for i in range(self._length())]


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


def _listing(dataset_dir):
    return sorted(n for n in os.listdir(dataset_dir) if os.path.isfile(os.path.join(dataset_dir, n)))


class MnistDataset(_ArraySource):
    """The MNIST idx files in `dataset_dir`; usage 'train' (60000 rows in the real files), 'test'
    (10000) or 'all' / None (whichever files the folder holds). Shuffled by default, as in
    MindSpore."""

    _API, _WHAT = "MnistDataset", "mnist"
    # an image file and a label file of different lengths: each dataset's MindSpore 2.10 message
    _COUNTS = ("Invalid mnist file, num of images should be equal to num of labels, but got num of images: "
               "{images}, num of labels: {labels}.")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _check_dir_and_usage(dataset_dir, usage)
        prefix = self._prefix(usage)
        images, labels = [], []
        for name in filter(self._wanted, _listing(dataset_dir)):
            if f"{prefix}-images" in name and "idx3-ubyte" in name:
                images.append(os.path.join(dataset_dir, name))
            elif f"{prefix}-labels" in name and "idx1-ubyte" in name:
                labels.append(os.path.join(dataset_dir, name))
        if not images and not labels:
            raise RuntimeError(f"Invalid data, {self._API} API can't read the data file (interface mismatch or no "
                               f"data found). Check {self._WHAT} file in directory: {dataset_dir}")
        if len(images) != len(labels):
            raise RuntimeError(f"Invalid {self._WHAT} file, num of images should be equal to num of labels, but got "
                               f"num of images: {len(images)}, num of labels: {len(labels)}.")
        parts = []
        for img_path, lbl_path in zip(images, labels):
            img, img_shape = _read_idx(img_path, 2051, 3)
            if img_shape != (28, 28):       # MindSpore reads no other size
                raise RuntimeError(f"Invalid {self._WHAT} file, shape of image in {img_path} should be (28, 28), "
                                   f"but got ({img_shape[0]}, {img_shape[1]}).")
            lbl, _ = _read_idx(lbl_path, 2049, 1)
            if len(img) != len(lbl):
                raise RuntimeError(self._COUNTS.format(images=len(img), labels=len(lbl)))
            parts.append((img, lbl, img_shape + (1,)))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage

    @staticmethod
    def _prefix(usage):
        return {"train": "train", "test": "t10k", "all": ""}[usage]

    @staticmethod
    def _wanted(file_name):
        return True

    @staticmethod
    def _row(part, i):
        images, labels, shape = part
        image = np.frombuffer(images.read(i), np.uint8).reshape(shape).copy()     # writable, as a row is
        return image, np.array(labels.read(i)[0], dtype=np.uint32)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same idx files and names as MNIST (MindSpore reads both alike)."""

    _API, _WHAT = "FashionMnistDataset", "fashion mnist"
    _COUNTS = ("Invalid data, num of images should be equal to num of labels, but got num of images: {images}, "
               "num of labels: {labels}.")


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: the MNIST file names and format (train-* / t10k-*)."""

    _API, _WHAT = "KMnistDataset", "kmnist"
    _COUNTS = "Invalid data, num of images is not equal to num of labels."


class EMnistDataset(MnistDataset):
    """EMNIST: the idx files emnist-<name>-<train|test>-{images-idx3,labels-idx1}-ubyte of split
    `name` ('byclass', 'bymerge', 'balanced', 'letters', 'digits' or 'mnist'); usage 'train',
    'test' or 'all' / None (test files first: sorted names). The images as stored (not transposed)."""

    _API, _WHAT = "EMnistDataset", "emnist"
    _COUNTS = FashionMnistDataset._COUNTS
    _NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        if name not in self._NAMES:
            raise ValueError(f"Input name is not within the valid set of {list(self._NAMES)}.")
        self.name = name
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id, cache)

    @staticmethod
    def _prefix(usage):
        return {"train": "train", "test": "test", "all": ""}[usage]

    def _wanted(self, file_name):
        return file_name.startswith(f"emnist-{self.name}-")


class _CifarDataset(_ArraySource):
    """The CIFAR binary batches of `dataset_dir` chosen by name for `usage` (see the module's text)."""

    _API = _KIND = _LABELS = _NAMES = None

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _check_dir_and_usage(dataset_dir, usage)
        bins = [n for n in _listing(dataset_dir) if os.path.splitext(n)[1] == ".bin"]
        if not bins:
            raise RuntimeError(f"Invalid cifar folder, cifar(.bin) files are missing under {dataset_dir}")
        wanted = self._NAMES if usage == "all" else [self._NAMES[usage == "test"]]
        files = [os.path.join(dataset_dir, n) for n in bins if any(w in n for w in wanted)]
        if not files:
            raise RuntimeError(f"Invalid data, {self._API} API can't read the data file (interface mismatch or no "
                               f"data found). Check file in directory:{dataset_dir}")
        record = self._LABELS + 3 * 32 * 32
        parts = []
        for path in files:
            size = os.path.getsize(path)
            if size == 0 or size % record:
                raise RuntimeError(f"Invalid {self._KIND.replace('-', '').lower()} file, {path} is not a whole "
                                   f"number of {record}-byte records (make sure it is the {self._KIND} binary "
                                   f"version).")
            parts.append((_Records(path, 0, record, size // record),))
        super().__init__(parts, num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage = dataset_dir, usage

    def _row(self, part, i):
        record = np.frombuffer(part[0].read(i), np.uint8)
        image = record[self._LABELS:].reshape(3, 32, 32).transpose(1, 2, 0)       # CHW bytes -> HWC rows
        return (np.ascontiguousarray(image),) + tuple(np.array(b, dtype=np.uint32) for b in record[:self._LABELS])


class Cifar10Dataset(_CifarDataset):
    """The CIFAR-10 binary batches in `dataset_dir`; usage 'train', 'test' or 'all' / None.
    Columns image, label. Shuffled by default, as in MindSpore."""

    _API, _KIND, _LABELS, _NAMES = "Cifar10Dataset", "CIFAR-10", 1, ("data_batch", "test_batch")


class Cifar100Dataset(_CifarDataset):
    """The CIFAR-100 binary files (train.bin, test.bin) in `dataset_dir`; usage 'train', 'test' or
    'all' / None. Columns image, coarse_label, fine_label. Shuffled by default, as in MindSpore."""

    _API, _KIND, _LABELS, _NAMES = "Cifar100Dataset", "CIFAR-100", 2, ("train", "test")

    def get_col_names(self):
        return ["image", "coarse_label", "fine_label"]


class QMnistDataset(_ArraySource):
    """QMNIST: qmnist-{train,test}-images-idx3-ubyte with qmnist-*-labels-idx2-int (8 int32 fields
    per image, big-endian) and xnist-* ('nist'). usage 'train', 'test', 'test10k' (the first 10000
    test records), 'test50k' (the 50000 after them), 'nist', or 'all' / None (train, test, nist).
    Labels: the class (uint32) with compat=True, else all 8 fields (uint32)."""

    _PARTS = {"train": ("qmnist-train", None), "test": ("qmnist-test", None), "test10k": ("qmnist-test", (0, 10000)),
              "test50k": ("qmnist-test", (10000, 60000)), "nist": ("xnist", None)}

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or permission denied!")
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "test10k", "test50k", "nist", "all"):
            raise ValueError("Input usage is not within the valid set of ['train', 'test', 'test10k', 'test50k', "
                             "'nist', 'all'].")
        parts = []
        for name in (("train", "test", "nist") if usage == "all" else (usage,)):
            stem, window = self._PARTS[name]
            img_path = os.path.join(dataset_dir, f"{stem}-images-idx3-ubyte")
            lbl_path = os.path.join(dataset_dir, f"{stem}-labels-idx2-int")
            for p in (img_path, lbl_path):
                if not os.path.isfile(p):
                    raise RuntimeError(f"Invalid file, failed to open {p}: the file does not exist.")
            images, img_shape = _read_idx(img_path, 2051, 3)
            labels, _ = _read_idx(lbl_path, 3074, 2)
            labels.record_bytes *= 4                       # int32 fields
            first, last = (0, len(images)) if window is None else window
            if window is not None and len(images) < last:
                raise RuntimeError(f"Invalid file, failed to read {(last - first) * images.record_bytes} bytes from "
                                   f"{img_path}: the data file is damaged or the content is incomplete.")
            parts.append((images, labels, img_shape + (1,), first, last - first))
        super().__init__([_Window(p) for p in parts], num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir, self.usage, self.compat = dataset_dir, usage, bool(compat)

    def _row(self, part, i):
        images, labels, shape, first, _ = part.part
        image = np.frombuffer(images.read(first + i), np.uint8).reshape(shape).copy()
        fields = np.frombuffer(labels.read(first + i), ">i4").astype(np.uint32)
        return image, (np.array(fields[0], np.uint32) if self.compat else fields.copy())


class _Window:
    """A run of records of one QMNIST file pair (a _ArraySource part with a length)."""

    def __init__(self, part):
        self.part = part

    def __len__(self):
        return self.part[4]

    def __getitem__(self, k):
        return self if k == 0 else None
