"""PaddedDataset cases (NumPy only) for tests/oracle/record_padded_data35.py and
tests/dataset/test_padded_data35.py: a source, or a NumpySlicesDataset joined with padding rows
and read through a DistributedSampler shard (use_sampler), as distributed evaluation does."""
import numpy as np


def samples(name):
    return {
        "two": [{"image": np.zeros(3, np.uint8), "label": np.array(1)}, {"image": np.ones(2, np.uint8), "label": np.array(2)}],
        "mixed": [{"b": 1.5, "a": "s", "c": [1, 2]}],
        "empty": [],
        "not_dicts": [1],
        "not_list": "x",
        "pad": [{"image": np.full(3, 9, np.uint8), "label": np.array(-1)}, {"image": np.full(3, 8, np.uint8),
                                                                            "label": np.array(-2)}],
    }[name]


SOURCE_CASES = ["two", "mixed", "empty", "not_dicts", "not_list"]
# (rows of data, shards) -> every shard's labels
SHARD_CASES = {"5_rows_3_shards": (5, 3), "4_rows_2_shards": (4, 2), "3_rows_4_shards": (3, 4)}


def data(ds, n):
    return ds.NumpySlicesDataset({"image": np.arange(n * 3, dtype=np.uint8).reshape(n, 3), "label": np.arange(n)},
                                 shuffle=False)
