"""GeneratorDataset(schema=...), ImageFolderDataset(decrypt=...), PKSampler(num_class=...) and
batch(pad_info=) / map(column_order=) do what MindSpore 2.10 does (tests/oracle/data/gaps_data35d.json,
written by tests/oracle/record_gaps_data35d.py from gaps_cases_data35d.py)."""
import json
import os

import pytest

import gaps_cases_data35d as cases
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data", "gaps_data35d.json")
with open(_DATA) as _f:
    MS = json.load(_f)["cases"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("gaps"))
    cases.build(path)
    return path


@pytest.mark.parametrize("name", sorted(MS))
def test_matches_mindspore(root, name):
    assert cases.run(ds, root, name) == MS[name]
