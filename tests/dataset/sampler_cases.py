"""Sampler cases defined once (stdlib / NumPy only) for tests/oracle/record_samplers.py (MindSpore's
venv) and tests/dataset/test_samplers.py. A sampler is written as a spec
[class name, {keyword arguments}, child spec or None], so the same code builds MindSpore's sampler
or pycompile's; each case draws indices of NumpySlicesDataset(np.arange(n)) for some epochs under
a seed. (MindSpore's default seed 5489 means "random": no case uses it.)"""
import numpy as np

SEEDS = [0, 1, 1234]

SAMPLER_CASES = {
    "sequential": (10, ["SequentialSampler", {}, None]),
    "sequential_start_3_num_4": (10, ["SequentialSampler", {"start_index": 3, "num_samples": 4}, None]),
    "sequential_past_end": (10, ["SequentialSampler", {"start_index": 8, "num_samples": 5}, None]),
    "subset": (10, ["SubsetSampler", {"indices": [3, 1, 7, 1]}, None]),
    "subset_num_2": (10, ["SubsetSampler", {"indices": [3, 1, 7], "num_samples": 2}, None]),
    "random": (10, ["RandomSampler", {}, None]),
    "random_1000": (1000, ["RandomSampler", {}, None]),
    "random_odd": (7, ["RandomSampler", {}, None]),
    "random_num_4": (10, ["RandomSampler", {"num_samples": 4}, None]),
    "random_num_past_n": (5, ["RandomSampler", {"num_samples": 8}, None]),
    "random_replacement": (10, ["RandomSampler", {"replacement": True, "num_samples": 6}, None]),
    "random_replacement_all": (300, ["RandomSampler", {"replacement": True}, None]),
    "subset_random": (10, ["SubsetRandomSampler", {"indices": [9, 2, 5, 7, 0]}, None]),
    "subset_random_num_3": (10, ["SubsetRandomSampler", {"indices": [9, 2, 5, 7, 0, 4], "num_samples": 3}, None]),
    "weighted": (10, ["WeightedRandomSampler", {"weights": [0.1, 0.2, 0.3, 0.4, 0, 0, 0, 0, 0, 0],
                                                "num_samples": 6}, None]),
    "weighted_no_replacement": (10, ["WeightedRandomSampler", {"weights": [1, 5, 0.5, 2, 3, 1, 1, 4, 0.2, 1],
                                                               "num_samples": 5, "replacement": False}, None]),
    "weighted_short": (10, ["WeightedRandomSampler", {"weights": [1, 2, 3], "num_samples": 5}, None]),
    **{f"distributed_{k}_of_3": (10, ["DistributedSampler", {"num_shards": 3, "shard_id": k, "shuffle": False},
                                      None]) for k in range(3)},
    **{f"distributed_shuffle_{k}_of_3": (10, ["DistributedSampler", {"num_shards": 3, "shard_id": k}, None])
       for k in range(3)},
    "distributed_num_2": (10, ["DistributedSampler", {"num_shards": 3, "shard_id": 1, "shuffle": False,
                                                      "num_samples": 2}, None]),
    **{f"distributed_offset_{o}_{k}_of_3": (10, ["DistributedSampler", {"num_shards": 3, "shard_id": k,
                                                                        "shuffle": False, "offset": o}, None])
       for o in (1, 2) for k in range(3)},
    "distributed_more_shards_than_rows": (2, ["DistributedSampler", {"num_shards": 4, "shard_id": 3,
                                                                     "shuffle": False}, None]),
    "chain_sequential_over_subset": (10, ["SequentialSampler", {"start_index": 2, "num_samples": 6},
                                          ["SubsetSampler", {"indices": [0, 2, 4, 6, 8]}, None]]),
    "chain_subset_over_sequential": (10, ["SubsetSampler", {"indices": [5, 3, 1, 0]},
                                          ["SequentialSampler", {"start_index": 4}, None]]),
    "chain_distributed_over_sequential": (10, ["DistributedSampler", {"num_shards": 2, "shard_id": 1,
                                                                      "shuffle": False},
                                               ["SequentialSampler", {"start_index": 2, "num_samples": 5}, None]]),
    "chain_random_over_subset": (10, ["RandomSampler", {}, ["SubsetSampler", {"indices": [1, 3, 5, 7, 9]}, None]]),
    "list_of_indices": (10, [4, 2, 0]),
}

# NumpySlicesDataset(np.arange(n), **kwargs): the sampler a source's own arguments make
SOURCE_CASES = {
    "shuffle_default": (10, {}),
    "shuffle_true": (10, {"shuffle": True}),
    "shuffle_num_samples": (10, {"shuffle": True, "num_samples": 4}),
    "shuffle_shards_0": (10, {"num_shards": 3, "shard_id": 0}),
    "shuffle_shards_2": (10, {"num_shards": 3, "shard_id": 2}),
    "no_shuffle_shards_num_samples": (10, {"shuffle": False, "num_shards": 3, "shard_id": 1, "num_samples": 3}),
    "shuffle_repeat": (10, {"shuffle": True}),
}

EPOCHS = 3

# PKSampler on an MNIST folder of PK_ROWS training rows (layout_cases.mnist_files, seed PK_SEED)
PK_ROWS, PK_SEED = 40, 11
PK_CASES = {
    "pk_2": ["PKSampler", {"num_val": 2}, None],
    "pk_2_num_7": ["PKSampler", {"num_val": 2, "num_samples": 7}, None],
    "pk_6": ["PKSampler", {"num_val": 6}, None],
    "pk_2_shuffle": ["PKSampler", {"num_val": 2, "shuffle": True}, None],
}


def build(ds, spec):
    if not isinstance(spec[0], str):
        return list(spec)
    name, kwargs, child = spec
    sampler = getattr(ds, name)(**kwargs)
    if child is not None:
        sampler.add_child(build(ds, child))
    return sampler


def error_cases(ds):
    """name -> a callable that MindSpore refuses."""
    data = np.arange(10)
    return {
        "sampler_and_shuffle": lambda: ds.NumpySlicesDataset(data, sampler=ds.SequentialSampler(), shuffle=True),
        "sampler_and_shards": lambda: ds.NumpySlicesDataset(data, sampler=ds.SequentialSampler(), num_shards=2,
                                                            shard_id=0),
        "sampler_and_num_samples": lambda: ds.NumpySlicesDataset(data, sampler=ds.SequentialSampler(),
                                                                 num_samples=3),
        "random_negative_num_samples": lambda: ds.RandomSampler(num_samples=-1),
        "random_replacement_not_bool": lambda: ds.RandomSampler(replacement=1),
        "sequential_negative_start": lambda: ds.SequentialSampler(start_index=-1),
        "distributed_shard_out_of_range": lambda: ds.DistributedSampler(2, 2),
        "distributed_zero_shards": lambda: ds.DistributedSampler(0, 0),
        "distributed_shuffle_not_bool": lambda: ds.DistributedSampler(2, 0, shuffle=1),
        "weighted_empty": lambda: ds.WeightedRandomSampler([], 2),
        "weighted_negative": lambda: ds.WeightedRandomSampler([-1.0, 2.0], 2),
        "weighted_all_zero": lambda: ds.WeightedRandomSampler([0.0, 0.0], 2),
        "weighted_zero_samples": lambda: ds.WeightedRandomSampler([1.0, 2.0], 0),
        "subset_not_int": lambda: ds.SubsetSampler([1, 2.5]),
        "subset_out_of_range": lambda: list(ds.NumpySlicesDataset(data, sampler=ds.SubsetSampler([3, 12]))
                                            .create_tuple_iterator(output_numpy=True, num_epochs=1)),
        "pk_on_numpy": lambda: ds.NumpySlicesDataset(data, sampler=ds.PKSampler(2)),
        "pk_zero": lambda: ds.PKSampler(0),
        "pk_num_class": lambda: ds.PKSampler(2, num_class=4),
        "add_child_twice": lambda: _add_child_twice(ds),
        "sampler_not_a_sampler": lambda: ds.NumpySlicesDataset(data, sampler=3),
    }


def _add_child_twice(ds):
    s = ds.SequentialSampler()
    s.add_child(ds.SequentialSampler())
    s.add_child(ds.SequentialSampler())
