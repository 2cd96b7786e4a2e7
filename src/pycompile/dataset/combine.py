"""Pipelines that join or select: `a + b` / `a.concat([b, c])` (rows of each in turn), `ds.zip((a,
b))` / `a.zip(b)` (columns side by side, as long as the shortest), `filter(predicate)` and
`apply(fn)`, with MindSpore 2.10's errors (recorded in tests/dataset/test_combine.py). Rows of the
i-th child draw their randomness from the child's place in the tree, as every node does."""
from __future__ import annotations

import numpy as np

from pycompile.dataset.cache import under_cache
from pycompile.dataset.datasets import Dataset, _column_list


def _fail(message: str):
    return RuntimeError(f"Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n"
                        f"[ERROR] {message}")


class ConcatDataset(Dataset):
    _under_cache_error = under_cache("ConcatNode")

    def __init__(self, datasets):
        super().__init__(datasets)
        names = datasets[0].get_col_names()
        if any(d.get_col_names() != names for d in datasets[1:]):
            raise _fail("Invalid columns, 'column name' or 'column order' of concat datasets should be the same.")

    def get_col_names(self):
        return self.children[0].get_col_names()

    def get_batch_size(self):
        return self.children[0].get_batch_size()

    _sampler = None

    def use_sampler(self, sampler):
        """Read the joined rows through `sampler` (a DistributedSampler over a dataset padded with
        a PaddedDataset, as MindSpore's distributed evaluation does)."""
        from pycompile.dataset import samplers
        if not isinstance(sampler, samplers.BuiltinSampler):
            raise TypeError("Argument sampler is not of type [<class 'mindspore.dataset.engine.samplers.Sampler'>].")
        self._sampler = sampler

    def _length(self):
        return sum(d.get_dataset_size() for d in self.children)

    def _picked(self, seed, epoch):
        """The joined rows' indices the sampler reads. A DistributedSampler deals the rows to the
        shards in turn, row i to shard i % num_shards, without padding to equal shares (as
        MindSpore's concat does: the padding is the PaddedDataset's job)."""
        from pycompile.dataset import samplers
        s = self._sampler
        if isinstance(s, samplers.DistributedSampler) and not s.shuffle:
            ids = list(range(s.shard_id, self._length(), s.num_shards))
            return ids[:s.num_samples] if s.num_samples else ids
        return list(self._sampler.indices(self, seed, epoch))

    def _size(self):
        if self._sampler is not None:
            return len(self._picked(0, 0))
        return self._length()

    def _rows(self, key, epoch):
        if self._sampler is not None:
            rows = [r for i in range(len(self.children)) for r in self._child_rows(key, epoch, i)]
            yield from (rows[i] for i in self._picked(key[0], epoch))
            return
        for i in range(len(self.children)):
            yield from self._child_rows(key, epoch, i)


class ZipDataset(Dataset):
    _under_cache_error = under_cache("ZipNode")

    def __init__(self, datasets):
        super().__init__(datasets)
        names = []
        for d in datasets:
            for c in d.get_col_names():
                if c in names:
                    raise _fail(f"Invalid data, duplicate column {c} already exists when zipping datasets.")
                names.append(c)
        self._names = names

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return min(d.get_dataset_size() for d in self.children)

    def _rows(self, key, epoch):
        streams = [iter(self._child_rows(key, epoch, i)) for i in range(len(self.children))]
        try:
            for parts in zip(*streams):
                yield tuple(a for row in parts for a in row)
        finally:
            for s in streams:
                close = getattr(s, "close", None)
                if close:
                    close()


class FilterDataset(Dataset):
    _under_cache_error = under_cache("FilterNode")

    def __init__(self, child, predicate, input_columns=None):
        super().__init__([child])
        if not callable(predicate):
            raise TypeError(f"Argument predicate with value {predicate!r} is not callable.")
        names = child.get_col_names()
        columns = names if input_columns is None else _column_list(input_columns, "input_columns")
        for c in columns:
            if c not in names:
                raise RuntimeError(f"For 'filter', column {c!r} is not a column of the dataset: {names}")
        self.predicate = predicate
        self._index = [names.index(c) for c in columns]

    def _size(self):
        """MindSpore counts a filtered pipeline by running it: so does this (one pass, epoch 0)."""
        from pycompile.dataset import config
        return sum(1 for _ in self._rows((config.get_seed(),), 0))

    def _rows(self, key, epoch):
        for row in self._child_rows(key, epoch):
            try:
                keep = self.predicate(*(row[i] for i in self._index))
                keep = bool(np.asarray(keep).item())
            except Exception as exc:
                raise _fail("Execute user Python code failed, check 'Python Call Stack' above.") from exc
            if keep:
                yield row


def concat(self, datasets):
    """This dataset's rows followed by those of `datasets` (a Dataset or a list of them), which
    must have the same columns in the same order."""
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    if not isinstance(datasets, list) or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"Argument datasets with value {datasets!r} is not of type [<class 'list'>, "
                        f"<class 'mindspore.dataset.engine.datasets.Dataset'>], but got {type(datasets)}.")
    return ConcatDataset([self, *datasets])


def zip_datasets(datasets):
    """`ds.zip((a, b, ...))`: the rows of the datasets side by side, column names kept (they must
    differ), as many rows as the shortest has."""
    if not isinstance(datasets, tuple):
        raise TypeError(f"Argument datasets with value {datasets!r} is not of type [<class 'tuple'>]")
    if len(datasets) <= 1:
        raise ValueError("Can't zip empty or just one dataset!")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid dataset: {d!r}")
    return ZipDataset(list(datasets))


def _zip_method(self, datasets):
    if not isinstance(datasets, tuple):
        datasets = (datasets,)
    return zip_datasets((self, *datasets))


def _filter(self, predicate, input_columns=None, num_parallel_workers=None):
    """The rows for which `predicate(*columns)` is true (`input_columns`: which columns it gets;
    default all)."""
    return FilterDataset(self, predicate, input_columns)


def _apply(self, apply_func):
    """`apply_func(self)`, which must return a Dataset."""
    if not callable(apply_func):
        raise TypeError("apply_func must be a function.")
    out = apply_func(self)
    if not isinstance(out, Dataset):
        raise TypeError("apply_func must return a dataset.")
    return out


Dataset.concat = concat
Dataset.__add__ = lambda self, other: concat(self, other)
Dataset.zip = _zip_method
Dataset.filter = _filter
Dataset.apply = _apply
