"""TFRecordDataset(schema=...) reads what MindSpore 2.10 reads (tests/oracle/data/tfrecord_schema_data35d.json,
written by tests/oracle/record_tfrecord_schema_data35d.py from tfrecord_schema_cases_data35d.py):
the schema's columns in its order, cast and shaped, numRows, and MindSpore's errors."""
import json
import os

import pytest

import pycompile.dataset as ds
import tfrecord_schema_cases_data35d as cases

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "tfrecord_schema_data35d.json")
with open(_DATA) as _f:
    MS = json.load(_f)["cases"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tfrecord_schema"))
    cases.build(path)
    return path


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_tfrecord_schema_matches_mindspore(root, case):
    assert cases.run(ds, root, case) == MS[case]
