"""The vision transforms MindSpore's tutorials use beyond test_transforms.py's, against MindSpore 2.10
(tests/oracle/data/vision.json, written by tests/oracle/record_vision.py on vision_cases.py's inputs):
Pad, the flips, RandomResizedCrop, ConvertColor, ToPIL / Grayscale, the colour adjustments and
RandomColorAdjust, Rotate / RandomRotation - bit for bit, random ones at ranges where the draw
does not matter; plus the distributions of the random draws (MindSpore's own random stream is
not reproduced)."""
import json
import math
import os

import numpy as np
import pytest

import pycompile.dataset as ds
import vision_cases as vc
from pycompile.dataset import vision
from pycompile.dataset.vision import _geometry

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data", "vision.json")
with open(_DATA) as _f:
    MS = json.load(_f)["cases"]

CASES = vc.cases(vision)
IMAGES = vc.inputs()


@pytest.mark.parametrize("name", sorted(set(CASES) - vc.NOT_IMPLEMENTED))
def test_matches_mindspore(name):
    if name.startswith("to_pil") or name.startswith("grayscale"):
        pytest.importorskip("PIL")
    build, img = CASES[name]
    want = MS[name]
    if "raises" in want:
        with pytest.raises(Exception) as info:
            vc.apply(build(), IMAGES[img].copy())
        assert (type(info.value).__name__, str(info.value).splitlines()[0]) == (want["raises"], want["message"])
        return
    got = np.asarray(vc.apply(build(), IMAGES[img].copy()))
    assert (str(got.dtype), list(got.shape)) == (want["dtype"], want["shape"])
    if name in vc.WITHIN_ULPS:
        expected = np.array(want["values"], dtype=got.dtype)
        assert np.all(np.abs(got.view(np.int32).astype(np.int64) - expected.view(np.int32)) <= vc.WITHIN_ULPS[name])
        return
    values = got.astype(np.float64).tolist() if got.dtype.kind == "f" else got.tolist()
    assert values == want["values"]


def test_random_resized_crop_boxes_follow_scale_and_ratio():
    rng = np.random.default_rng(0)
    scale, ratio = (0.08, 1.0), (3 / 4, 4 / 3)
    tops, areas, aspects = set(), [], []
    for _ in range(400):
        top, left, h, w = _geometry.crop_box(rng, 60, 80, scale, ratio)
        assert 0 <= top <= 60 - h and 0 <= left <= 80 - w
        tops.add(top)
        areas.append(h * w / (60 * 80))
        aspects.append(w / h)
    assert min(areas) >= 0.05 and max(areas) <= 1.0 and np.median(areas) < 0.7
    assert min(aspects) > 0.7 and max(aspects) < 1.45          # ratio, up to the rounding of small crops
    assert len(tops) > 20


def test_random_resized_crop_in_a_pipeline_repeats_for_the_seed():
    images = np.random.default_rng(1).integers(0, 256, (4, 20, 24, 3), dtype=np.uint8)

    def run():
        d = ds.NumpySlicesDataset(images, ["image"], shuffle=False)
        d = d.map([vision.RandomResizedCrop(8), vision.RandomVerticalFlip(), vision.HWC2CHW()])
        return [r[0] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]

    first = run()
    assert all(a.shape == (3, 8, 8) and a.dtype == np.uint8 for a in first)
    assert all(np.array_equal(a, b) for a, b in zip(first, run()))


def test_random_vertical_flip_flips_about_half():
    img = np.arange(12, dtype=np.uint8).reshape(4, 3)
    rng = np.random.default_rng(2)
    flipped = sum(np.array_equal(vision.RandomVerticalFlip()._apply_random(rng, img), img[::-1]) for _ in range(400))
    assert 160 < flipped < 240


def test_random_color_adjust_draws_factors_from_the_range():
    img = np.full((2, 2, 3), 100, np.uint8)
    rng = np.random.default_rng(3)
    op = vision.RandomColorAdjust(brightness=0.5)                  # [0.5, 1.5]
    values = [int(op._apply_random(rng, img)[0, 0, 0]) for _ in range(300)]
    assert 50 <= min(values) < 60 and 140 < max(values) <= 150
    assert vision.RandomColorAdjust(brightness=(1.2, 1.2))(img)[0, 0, 0] == 120


def test_random_rotation_draws_angles_in_the_range():
    """A dot away from the centre lands on the circle at the drawn angle."""
    img = np.zeros((41, 41), np.uint8)
    img[19:22, 34:37] = 255                                       # a 3x3 dot 15 px right of the centre
    rng = np.random.default_rng(4)
    angles = []
    for _ in range(60):
        out = vision.RandomRotation((10, 80), resample=vision.Inter.NEAREST)._apply_random(rng, img)
        ys, xs = np.nonzero(out)
        assert len(ys) >= 1
        angles.append(math.degrees(math.atan2(20 - ys.mean(), xs.mean() - 20)))   # counter-clockwise
    assert 5 < min(angles) < 25 and 65 < max(angles) < 85


def test_pad_and_rotate_check_their_arguments():
    with pytest.raises(ValueError, match="padding"):
        vision.Pad([1, 2, 3])
    with pytest.raises(RuntimeError, match="RandomRotation: Invalid InterpolationMode"):   # MindSpore's (warp_data35d)
        vision.RandomRotation(10, resample=vision.Inter.PILCUBIC)(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="num_output_channels"):
        vision.Grayscale(2)
