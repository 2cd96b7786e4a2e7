"""Schema's JSON and errors, RandomDataset's and FakeImageDataset's row layouts, against MindSpore
2.10 (tests/oracle/data/schema_data35.json from tests/oracle/record_schema_data35.py); their random
values are pycompile's own, checked for range and repeatability."""
import json
import os

import numpy as np
import pytest

import pycompile as ms
import pycompile.dataset as ds
from pycompile.dataset.schema_sources import FakeImageDataset, RandomDataset, Schema

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "schema_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def _schema():
    s = Schema()
    s.add_column("image", de_type=ms.uint8, shape=[3, 4])
    s.add_column("label", de_type="int32")
    s.add_column("f", de_type="float32", shape=[-1])
    return s


def test_schema_json_matches_mindspore():
    assert _schema().to_json() == MS["added"] == str(_schema())
    s = Schema()
    s.parse_columns([{"name": "x", "type": "int64", "shape": [2]}])
    assert s.to_json() == MS["parsed_list"]
    s = Schema()
    s.parse_columns({"x": {"type": "float64"}, "y": {"type": "uint8", "shape": [2, 2]}})
    assert s.to_json() == MS["parsed_dict"]


@pytest.mark.parametrize("case, call", [("bad_type", lambda: Schema().add_column("z", de_type="int9")),
                                        ("bad_name", lambda: Schema().add_column(3, de_type="int32"))])
def test_schema_errors_match_mindspore(case, call):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == MS[case]["message"]


def test_random_dataset_follows_the_schema():
    want = MS["random"]
    d = RandomDataset(schema=_schema(), total_rows=3)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"] == len(rows)
    assert [str(v.dtype) for v in rows[0]] == want["dtypes"] and [v.ndim for v in rows[0]] == want["ranks"]
    assert [list(v.shape) for v in rows[0]][:2] == want["fixed_shapes"]


def test_fake_image_dataset_layout_and_repeatability():
    want = MS["fake"]
    d = FakeImageDataset(num_images=50, image_size=(4, 5, 3), num_classes=3, base_seed=0, shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"]
    assert [str(rows[0][0].dtype), list(rows[0][0].shape)] == want["image"]
    assert [str(rows[0][1].dtype), list(rows[0][1].shape)] == want["label"]
    assert sorted({int(r[1]) for r in rows}) == [0, 1, 2]
    again = list(FakeImageDataset(num_images=50, image_size=(4, 5, 3), num_classes=3, shuffle=False)
                 .create_tuple_iterator(output_numpy=True))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(rows, again))
    assert ds.FakeImageDataset is FakeImageDataset and ds.Schema is Schema and ds.RandomDataset is RandomDataset
