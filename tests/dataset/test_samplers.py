"""Samplers against MindSpore 2.10 (tests/oracle/data/samplers.json, written by
tests/oracle/record_samplers.py from the cases in sampler_cases.py): the indices of three epochs
under three seeds, seeded random samplers included (pycompile reproduces MindSpore's mt19937
draws), the samplers a source's shuffle / num_samples / num_shards arguments make, PKSampler
on an MNIST folder, and the errors MindSpore raises for wrong uses."""
import json
import os

import numpy as np
import pytest

import layout_cases
import sampler_cases as sc
import pycompile as ms
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data", "samplers.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def epochs_of(d, column=0):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=sc.EPOCHS)
    return [[int(r[column]) for r in it] for _ in range(sc.EPOCHS)]


@pytest.mark.parametrize("name", sorted(sc.SAMPLER_CASES))
def test_sampler_indices_match_mindspore(name):
    n, spec = sc.SAMPLER_CASES[name]
    for seed in sc.SEEDS:
        ds.config.set_seed(seed)
        d = ds.NumpySlicesDataset(np.arange(n), column_names=["x"], sampler=sc.build(ds, spec))
        want = MS["samplers"][name][str(seed)]
        assert epochs_of(d) == want["epochs"], f"seed {seed}"
        # MindSpore reports start_index - n + num_samples (-3) for a SequentialSampler running
        # past the end; pycompile reports the rows it yields
        assert d.get_dataset_size() == (len(want["epochs"][0]) if want["size"] < 0 else want["size"])


@pytest.mark.parametrize("name", sorted(sc.SOURCE_CASES))
def test_source_arguments_make_mindspores_sampler(name):
    n, kwargs = sc.SOURCE_CASES[name]
    for seed in sc.SEEDS:
        ds.config.set_seed(seed)
        d = ds.NumpySlicesDataset(np.arange(n), column_names=["x"], **kwargs)
        if name == "shuffle_repeat":
            d = d.repeat(2)
        want = MS["sources"][name][str(seed)]
        assert d.get_dataset_size() == want["size"] and epochs_of(d) == want["epochs"], f"seed {seed}"


def test_global_seed_drives_samplers():
    """ms.set_seed sets the dataset seed too (as mindspore.set_seed does)."""
    ms.set_seed(1)
    d = ds.NumpySlicesDataset(np.arange(10), column_names=["x"], sampler=ds.RandomSampler())
    assert epochs_of(d) == MS["samplers"]["random"]["1"]["epochs"]


@pytest.mark.parametrize("name", sorted(sc.PK_CASES))
def test_pk_sampler_matches_mindspore(name, tmp_path):
    layout_cases.mnist_files(str(tmp_path), "train", sc.PK_ROWS, sc.PK_SEED)
    for seed in sc.SEEDS:
        ds.config.set_seed(seed)
        d = ds.MnistDataset(str(tmp_path), sampler=sc.build(ds, sc.PK_CASES[name]))
        it = d.create_tuple_iterator(output_numpy=True, num_epochs=2)
        got = [[[int(r[1]), int(r[0].sum())] for r in it] for _ in range(2)]
        want = MS["pk"][name][str(seed)]
        assert d.get_dataset_size() == want["size"] and got == want["epochs"], f"seed {seed}"


def test_samplers_work_on_every_file_source(tmp_path):
    layout_cases.mnist_files(str(tmp_path), "train", 6, 1)
    d = ds.MnistDataset(str(tmp_path), sampler=ds.SubsetSampler([4, 0]))
    labels = [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)]
    all_labels = [int(r[1]) for r in ds.MnistDataset(str(tmp_path), shuffle=False).create_tuple_iterator(
        output_numpy=True)]
    assert labels == [all_labels[4], all_labels[0]]
    d = ds.GeneratorDataset(lambda_source(), ["x"], sampler=ds.DistributedSampler(2, 1, shuffle=False))
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [1, 3]


def lambda_source():
    class Source:
        def __getitem__(self, i):
            return np.array(i)

        def __len__(self):
            return 4
    return Source()


def test_iterator_epochs_and_repeat_share_the_sampler_epochs():
    """Two iterators over the same pipeline start again at the sampler's first epoch."""
    ds.config.set_seed(0)
    d = ds.NumpySlicesDataset(np.arange(10), column_names=["x"], sampler=ds.RandomSampler())
    assert epochs_of(d) == epochs_of(d) == MS["samplers"]["random"]["0"]["epochs"]


@pytest.mark.parametrize("name", sorted(n for n, e in MS["errors"].items() if e is not None))
def test_refused_uses_match_mindspore(name):
    with pytest.raises(Exception) as info:
        sc.error_cases(ds)[name]()
    want = MS["errors"][name]
    assert type(info.value).__name__ == want["type"]
    assert str(info.value).splitlines()[0] == want["message"]


@pytest.mark.parametrize("name", sorted(n for n, e in MS["errors"].items() if e is None))
def test_uses_mindspore_accepts_until_later_are_clear_errors_here(name):
    """MindSpore builds these samplers and fails (or misbehaves) later; pycompile says why at once."""
    with pytest.raises((ValueError, TypeError)) as info:
        sc.error_cases(ds)[name]()
    assert str(info.value)


def test_user_sampler_subclass():
    """The sampler tutorial's pattern: a ds.Sampler subclass yielding indices from dataset_size."""
    class Reverse(ds.Sampler):
        def __iter__(self):
            yield from range(self.dataset_size - 1, -1, -1)
    d = ds.NumpySlicesDataset(np.arange(5), column_names=["x"], sampler=Reverse())
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [4, 3, 2, 1, 0]
    assert d.get_dataset_size() == 5
    d = ds.NumpySlicesDataset(np.arange(5), column_names=["x"], sampler=Reverse(num_samples=2))
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [4, 3]


def test_index_lists_take_num_samples_and_shuffle_with_num_samples_draws_with_replacement():
    """MindSpore's select_sampler: a list of indices becomes SubsetSampler(list, num_samples) (no
    conflict); a shuffled source with num_samples (0 included) samples with replacement."""
    d = ds.NumpySlicesDataset(np.arange(10), column_names=["x"], sampler=[7, 3, 5], num_samples=2)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [7, 3]
    assert isinstance(ds.NumpySlicesDataset(np.arange(4), shuffle=True, num_samples=0)._sampler, ds.RandomSampler)
    assert ds.NumpySlicesDataset(np.arange(4), shuffle=True, num_samples=0)._sampler.replacement
