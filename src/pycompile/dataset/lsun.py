"""LSUNDataset: LSUN scene images read, as MindSpore 2.10 reads them, from an unpacked folder tree
(not LSUN's lmdb files): `<class>_train` and `<class>_val` folders and one `test` folder under
`dataset_dir`. Facts recorded from the wheel (tests/conformance/cases_lsun.py):

- usage 'train' / 'valid' take every entry of `dataset_dir` whose name *contains* `<class>_train`
  / `<class>_val` for a class of `classes` (default: the ten LSUN categories); 'all' takes both
  (never the test folder); 'test' takes the folder `test` alone. An entry that matches two classes
  is taken twice.
- The taken folders are sorted by name and numbered 0, 1, ... in that order: the label (uint32)
  is the folder's number, not the class's (bedroom_train and bedroom_val get different labels;
  an empty folder still uses a number). Each folder's entries, files or not, whatever their
  extension, are rows in sorted name order (MindSpore's ImageFolder reader with no extension
  filter and no class indexing).
- image is the file's bytes (uint8, 1-D), or decoded HWC RGB with decode=True.
- get_dataset_size() counts the taken folders' entries (0 for usage 'test', whose rows it does not
  count; 0 where nothing matches), and refuses a matched entry that is not a folder. The reading
  errors (no rows, a missing folder, a row that is a folder, a broken image) come when the rows
  are read, as MindSpore's pipeline errors.

Mappable: sampler, shuffle (a seeded RandomSampler by default), shards and num_samples choose the
rows (samplers.py), as for ImageFolderDataset.
"""
from __future__ import annotations

import os

from pycompile.dataset.argcheck import check_interval as _interval, type_check as _type_check
from pycompile.dataset.datasets import check_workers
from pycompile.dataset.named_images import _check_str
from pycompile.dataset.named_more2 import _check_bool, _Labelled
from pycompile.dataset.named_text import check_usage
from pycompile.dataset.workers import pipeline_error

_CATEGORIES = ["bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
               "living_room", "restaurant", "tower"]
_SUFFIXES = {"train": ("_train",), "valid": ("_val",), "all": ("_train", "_val"), "test": ()}
_INT64_MAX = 9223372036854775807
_INT32_MAX = 2147483647


def check_counts(num_samples, num_parallel_workers, num_shards, shard_id) -> None:
    """MindSpore's checks (classes and words) of a source's count arguments: ints (a bool is none),
    num_samples in [0, INT64_MAX], num_parallel_workers in [1, CPU count]."""
    for value, name in ((num_samples, "num_samples"), (num_parallel_workers, "num_parallel_workers"),
                        (num_shards, "num_shards"), (shard_id, "shard_id")):
        if value is not None:
            _type_check(value, (int,), name)
    if num_samples is not None and not 0 <= num_samples <= _INT64_MAX:
        raise ValueError(f"num_samples exceeds the boundary between 0 and {_INT64_MAX}(INT64_MAX)!")
    if num_parallel_workers is not None:
        check_workers(num_parallel_workers)


def check_sampling(num_samples, shuffle, sampler, num_shards, shard_id) -> None:
    """MindSpore's check_sampler_shuffle_shard_options: a sampler excludes shuffle, sharding and
    num_samples (RuntimeError); num_shards and shard_id go together, shard_id below num_shards."""
    if sampler is not None:
        for given, what in ((shuffle is not None, "shuffle"),
                            (num_shards is not None or shard_id is not None, "sharding"),
                            (num_samples is not None, "num_samples")):
            if given:
                raise RuntimeError(f"sampler and {what} cannot be specified at the same time.")
    if num_shards is not None:
        _interval(num_shards, "num_shards", 1, _INT32_MAX)
        if shard_id is None:
            raise RuntimeError("num_shards is specified and currently requires shard_id as well.")
        _interval(shard_id, "shard_id", 0, num_shards - 1)
    elif shard_id is not None:
        raise RuntimeError("shard_id is specified but num_shards is not.")


class LSUNDataset(_Labelled):
    """LSUN: rows image, label of the `<class>_<split>` folders (or `test`); see the module's text."""

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        _type_check(dataset_dir, (str,), "dataset_dir")
        if not os.path.isdir(dataset_dir) or not os.access(dataset_dir, os.R_OK):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or permission denied!")
        self.usage = check_usage(usage, ("train", "test", "valid", "all"), "all")
        check_counts(num_samples, num_parallel_workers, num_shards, shard_id)
        _check_bool(shuffle, "shuffle")
        _check_bool(decode, "decode")
        if classes is not None:
            if not isinstance(classes, list):
                raise TypeError(f"Argument classes with value {classes} is not of type [<class 'list'>], but got "
                                f"{type(classes)}.")
            for name in classes:
                _check_str(name, "classes", _CATEGORIES)
        check_sampling(num_samples, shuffle, sampler, num_shards, shard_id)
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        self.classes = list(classes or [])
        self._failure = None            # MindSpore's error on reading, raised when the rows are read
        self._scan()

    def get_class_indexing(self) -> dict:
        """{}: MindSpore's LSUN reader keeps no class names (its labels number folders)."""
        return {}

    def _matches(self) -> list:
        """The entries of dataset_dir taken for usage and classes, sorted; one per class matched."""
        names = self.classes or _CATEGORIES
        return sorted(entry for entry in os.listdir(self.dataset_dir) for suffix in _SUFFIXES[self.usage]
                      for name in names if name + suffix in entry)

    def _scan(self):
        folders = ["test"] if self.usage == "test" else self._matches()
        for label, entry in enumerate(folders):
            folder = os.path.join(self.dataset_dir, entry)
            if not os.path.isdir(folder):
                self._failure = (f"Invalid dataset_dir, {folder[len(self.dataset_dir):]} does not exist or "
                                 "permission denied.")
                return
            self._items += [(os.path.join(folder, name), label) for name in sorted(os.listdir(folder))]
        if not self._items:
            self._failure = ("Invalid data, LSUNDataset API can't read the data file (interface mismatch or no data "
                             f"found). Check lsun file path: {self.dataset_dir}")

    def _length(self):
        if self._failure is not None:
            raise pipeline_error(self._failure)
        return super()._length()

    def _size(self):
        if self.usage == "test":                # MindSpore counts no test rows
            return 0
        count = 0
        for entry in self._matches():
            folder = os.path.join(self.dataset_dir, entry)
            if not os.path.isdir(folder):
                raise pipeline_error(f"Invalid path, failed to open dir: {folder}, not exists or permission denied.")
            count += len(os.listdir(folder))
        return super()._size() if count else 0

    def _row(self, item):
        if os.path.isdir(item[0]):
            raise pipeline_error(f"Invalid file found: {item[0]}, should be file, but got directory.")
        try:
            return super()._row(item)
        except RuntimeError as e:               # a broken image: MindSpore's words, as a pipeline error
            raise pipeline_error(str(e)) from None


__all__ = ["LSUNDataset"]
