"""map(callbacks=[DSCallback]) calls its hooks when MindSpore 2.10 does, with the same contexts
(tests/oracle/data/ds_callback_data35.json from tests/oracle/record_ds_callback_data35.py)."""
import json
import os

import pytest

import callback_cases_data35 as cc
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "ds_callback_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.mark.parametrize("case", sorted(cc.CASES))
def test_hooks_match_mindspore(case):
    assert cc.run(ds, case) == MS[case]


def test_callbacks_must_be_ds_callbacks():
    with pytest.raises(TypeError, match="DSCallback"):
        ds.NumpySlicesDataset([1, 2], ["x"]).map(lambda x: x, callbacks=[object()])
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(step_size=0)
