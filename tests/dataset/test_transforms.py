"""dataset.transforms and dataset.vision against MindSpore 2.10's outputs (fixtures/ms_dataset.json):
values, dtypes and shapes; Resize bit-exact on uint8 images; plus properties MindSpore's random
stream cannot be compared on (crop bounds, flip probability)."""
import json
import os

import numpy as np
import pytest

import dataset_cases
import pycompile as ms
import pycompile.dataset as ds
from pycompile.dataset import transforms, vision

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ms_dataset.json")) as _f:
    MS = json.load(_f)

CASES = dataset_cases.transform_cases(vision, transforms, ms)


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_mindspore(name):
    op, img = CASES[name]
    got = op(dataset_cases.transform_input(img))
    want = MS["transforms"][name]
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"]
    values = got.astype(np.float64).tolist() if got.dtype.kind == "f" else got.tolist()
    assert values == want["values"]                # bit for bit, floats included


def test_transforms_accept_tensors():
    img = dataset_cases.transform_input("u8")
    out = vision.Rescale(1.0 / 255, 0.0)(ms.Tensor(img))
    np.testing.assert_array_equal(out, vision.Rescale(1.0 / 255, 0.0)(img))


def test_resize_bilinear_matches_plain_math_where_exact():
    """Independent check: doubling a float image reproduces the half-pixel bilinear formula."""
    img = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = vision.Resize((6, 8))(img)
    # output column 1 sits at source x = 0.25 (between columns 0 and 1), row 1 at y = 0.25
    np.testing.assert_allclose(out[1, 1], 0.75 * 0.75 * img[0, 0] + 0.25 * 0.75 * img[0, 1]
                               + 0.75 * 0.25 * img[1, 0] + 0.25 * 0.25 * img[1, 1], rtol=1e-6)
    assert vision.Resize(2)(np.zeros((4, 10, 3), np.uint8)).shape == (2, 5, 3)


def test_random_crop_stays_inside_and_covers_offsets():
    img = np.arange(6 * 7, dtype=np.int32).reshape(6, 7)
    crop = vision.RandomCrop((4, 5))
    offsets = set()
    rng = np.random.default_rng(0)
    for _ in range(200):
        out = crop._apply_random(rng, img)
        top, left = divmod(int(out[0, 0]), 7)
        np.testing.assert_array_equal(out, img[top:top + 4, left:left + 5])
        offsets.add((top, left))
    assert offsets == {(t, l) for t in range(3) for l in range(3)}
    padded = vision.RandomCrop((8, 9), pad_if_needed=True, fill_value=255)(np.zeros((6, 7), np.uint8))
    assert padded.shape == (8, 9)


def test_random_crop_border_modes():
    img = np.arange(9, dtype=np.uint8).reshape(3, 3)
    out = vision.RandomCrop((5, 5), padding=1, padding_mode=vision.Border.EDGE)(img)
    np.testing.assert_array_equal(out, np.pad(img, 1, mode="edge"))


def test_random_horizontal_flip_probability():
    img = np.arange(6, dtype=np.uint8).reshape(1, 6)
    rng = np.random.default_rng(1)
    flips = sum(vision.RandomHorizontalFlip(0.3)._apply_random(rng, img)[0, 0] == 5 for _ in range(2000))
    assert 500 < flips < 700


def test_compose_in_a_pipeline_and_old_import_paths():
    from pycompile.dataset.transforms import c_transforms
    from pycompile.dataset.vision import c_transforms as cv
    assert c_transforms.TypeCast is transforms.TypeCast and cv.Resize is vision.Resize
    img = dataset_cases.transform_input("u8")
    d = ds.GeneratorDataset([(img, np.array(3, np.int32))] * 2, ["image", "label"], shuffle=False)
    d = d.map(transforms.Compose([vision.Resize((8, 10)), vision.Rescale(1 / 255.0, 0), vision.HWC2CHW()]),
              input_columns="image")
    d = d.map(transforms.OneHot(5), input_columns="label").map(transforms.TypeCast(ms.float32), input_columns="label")
    image, label = next(iter(d))
    assert image.shape == (3, 8, 10) and image.dtype == ms.float32
    assert label.asnumpy().tolist() == [0, 0, 0, 1, 0] and label.dtype == ms.float32


def test_unsupported_interpolation_is_clear():
    # every mode is implemented (PILCUBIC, ANTIALIAS: test_vision_data35.py); ANTIALIAS takes PIL images
    # only, as in MindSpore, and says so
    with pytest.raises(TypeError, match="img should be PIL image"):
        vision.Resize((2, 2), vision.Inter.ANTIALIAS)(np.zeros((4, 4, 3), np.uint8))
