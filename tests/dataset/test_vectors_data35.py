"""text.Vectors / GloVe / FastText and ToVectors against MindSpore 2.10
(tests/oracle/data/vectors_data35.json from tests/oracle/record_vectors_data35.py): the vectors
looked up, unknown tokens, max_vectors, and the errors for bad files."""
import json
import os

import pytest

import vectors_cases_data35 as vc
import pycompile.dataset.text as text

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "vectors_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.mark.parametrize("case", sorted(vc.CASES))
def test_vectors_match_mindspore(case, tmp_path):
    vc.build(str(tmp_path))
    assert vc.run(text, str(tmp_path), case) == MS[case]
