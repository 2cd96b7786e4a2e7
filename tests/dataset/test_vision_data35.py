"""The vision names issue 35 added last, against MindSpore 2.10 (tests/oracle/data/vision_data35.json,
written by tests/oracle/record_vision_data35.py from vision_cases_data35.py): outputs bit for bit
(dtype, shape, values) or the same error; the file functions' results."""
import json
import os

import numpy as np
import pytest

import vision_cases_data35 as vc
import pycompile.dataset.vision as vision

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "vision_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)
IMAGES = vc.inputs()
CASES = vc.cases(vision)
# the draw decides where the patches go: compared by shape, dtype and the count of zeroed pixels
DRAW_DEPENDENT = {"cutout_fits"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name):
    build, names = CASES[name]
    want = MS["cases"][name]
    inputs = tuple(IMAGES[n].copy() for n in names)
    if "raises" in want:
        with pytest.raises(Exception) as info:
            vc.apply(build(), inputs)
        text = str(info.value)
        line = text[text.find("[ERROR]"):].split("\n")[0] if "[ERROR]" in text else text.strip().splitlines()[0]
        assert (type(info.value).__name__, line) == (want["raises"], want["message"])
        return
    got = vc.encode(vc.apply(build(), inputs))
    if name in DRAW_DEPENDENT:
        assert [(g["dtype"], g["shape"]) for g in got] == [(w["dtype"], w["shape"]) for w in want["outputs"]]
        zeroed = int((np.asarray(got[0]["values"]) == 0).all(axis=-1).sum())
        assert 100 <= zeroed <= 120            # two 10 x 10 patches in a 12 x 10 image, overlapping as drawn
        return
    assert len(got) == len(want["outputs"])
    for k, (g, w) in enumerate(zip(got, want["outputs"])):
        assert (g["dtype"], g["shape"]) == (w["dtype"], w["shape"]), f"output {k}"
        assert g["values"] == w["values"], f"output {k}"
