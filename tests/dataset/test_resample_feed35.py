"""ResizedCrop / RandomResizedCrop with BICUBIC, AREA and PILCUBIC equal MindSpore 2.10's outputs bit
for bit (tests/oracle/data/resample_feed35.json, written by tests/oracle/record_resample_feed35.py
from resample_cases_feed35.py); ANTIALIAS is MindSpore's error for a NumPy image (test_warp_data35d.py)."""
import json
import os

import numpy as np
import pytest

import resample_cases_feed35 as cases
import pycompile.dataset.vision as vision

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "resample_feed35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.mark.parametrize("name", sorted(MS))
def test_crop_resize_modes_match_mindspore(name):
    got = np.asarray(cases.cases(vision)[name](cases.image()))
    want = MS[name]
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"]
    np.testing.assert_array_equal(got, np.array(want["value"], np.uint8))


def test_antialias_wants_a_pil_image_as_in_mindspore():
    with pytest.raises(TypeError, match="img should be PIL image"):
        vision.RandomResizedCrop(8, interpolation=vision.Inter.ANTIALIAS)(cases.image())
