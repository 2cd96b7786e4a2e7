"""TFRecordDataset(compression_type="GZIP" / "ZLIB") against MindSpore 2.10
(tests/oracle/data/tfrecord_feed35.json, written by tests/oracle/record_tfrecord_feed35.py on the
files of tfrecord_cases_feed35.py): columns, size and rows, and the error for another type."""
import json
import os

import pytest

import tfrecord_cases_feed35 as cases
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "tfrecord_feed35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tfr"))
    cases.build(path)
    return path


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_compressed_tfrecord_matches_mindspore(case, root):
    assert cases.run(ds, root, case) == MS[case]


def test_a_file_that_is_not_compressed_is_a_clear_error(root):
    with pytest.raises(RuntimeError, match="part0.tfrecord is not a GZIP compressed file"):
        ds.TFRecordDataset([os.path.join(root, "tfr", "part0.tfrecord")], shuffle=False, compression_type="GZIP")
