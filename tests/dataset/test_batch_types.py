"""batch over a column whose rows have different types raises MindSpore's error (reliability
issue 31, item 5): np.stack used to promote int64 and float32 rows to float64 without a word.
The expected class and message are MindSpore 2.10's (tests/oracle/record_robustness.py)."""
import json
import os

import numpy as np
import pytest

import pycompile.dataset as ds

ORACLE = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "robustness.json")
KINDS = {"int64_then_float32": ("int64", "float32"), "float32_then_int64": ("float32", "int64")}


def _oracle():
    with open(ORACLE) as f:
        return json.load(f)["batch_mixed_types"]


@pytest.mark.parametrize("case", sorted(KINDS))
def test_rows_of_different_types_are_not_batched(case):
    want = _oracle()[case]["error"]
    kinds = KINDS[case]

    def gen():
        for k in range(4):
            yield (np.array([k, k + 1], kinds[k % 2]),)

    data = ds.GeneratorDataset(gen, ["a"], shuffle=False).batch(2)
    with pytest.raises(Exception) as info:
        list(data.create_tuple_iterator(output_numpy=True))
    assert type(info.value).__name__ == want["type"]
    assert want["dataset_error_line"] in str(info.value)


def test_rows_of_one_type_and_strings_of_different_widths_still_batch():
    def gen():
        yield (np.array([1, 2], np.int64), np.array("ab"))
        yield (np.array([3, 4], np.int64), np.array("abcde"))

    (a, s), = list(ds.GeneratorDataset(gen, ["a", "s"], shuffle=False).batch(2).create_tuple_iterator(
        output_numpy=True))
    assert a.dtype == np.int64 and a.tolist() == [[1, 2], [3, 4]]
    assert s.tolist() == ["ab", "abcde"]
