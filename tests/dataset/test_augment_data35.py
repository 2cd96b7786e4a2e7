"""AutoAugment / RandAugment / TrivialAugmentWide / UniformAugment / RandomSelectSubpolicy and the
batch mixes (MixUp, MixUpBatch, CutMixBatch): random, so checked by what holds for every draw and
by distribution; the draws repeat for a pipeline seed. MindSpore's error for a degenerate Beta
draw is the recorded one (tests/oracle/data/vision_data35.json)."""
import json
import os

import numpy as np
import pytest

import pycompile.dataset as ds
import pycompile.dataset.vision as vision
from pycompile.dataset.vision import _augment

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "vision_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)["cases"]
IMG = np.random.default_rng(7).integers(0, 256, (16, 12, 3), dtype=np.uint8)


@pytest.mark.parametrize("op", [vision.AutoAugment(vision.AutoAugmentPolicy.IMAGENET),
                                vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10),
                                vision.AutoAugment(vision.AutoAugmentPolicy.SVHN), vision.RandAugment(),
                                vision.RandAugment(num_ops=3, magnitude=20), vision.TrivialAugmentWide()],
                         ids=["auto_imagenet", "auto_cifar10", "auto_svhn", "rand", "rand_3_20", "trivial_wide"])
def test_policies_keep_the_image_and_change_it_often(op):
    rng = np.random.default_rng(0)
    outs = [op._apply_random(rng, IMG.copy()) for _ in range(40)]
    assert all(o.shape == IMG.shape and o.dtype == np.uint8 for o in outs)
    changed = sum(not np.array_equal(o, IMG) for o in outs)
    assert changed >= 15, changed


@pytest.mark.parametrize("name", ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color",
                                  "Contrast", "Sharpness"])
def test_magnitude_zero_is_the_identity(name):
    assert np.array_equal(_augment.apply_op(IMG, name, 0.0), IMG)


def test_named_ops_are_the_vision_ops():
    assert np.array_equal(_augment.apply_op(IMG, "Invert", 0), 255 - IMG)
    assert np.array_equal(_augment.apply_op(IMG, "Posterize", 2), IMG & 0xC0)
    assert np.array_equal(_augment.apply_op(IMG, "Solarize", 128.0), np.where(IMG >= 128, 255 - IMG, IMG))
    assert np.array_equal(_augment.apply_op(IMG, "Rotate", 90.0)[:, :, 0].shape, IMG[:, :, 0].shape)


def test_select_subpolicy_and_uniform_augment():
    always = vision.RandomSelectSubpolicy([[(vision.Invert(), 1.0)], [(vision.Invert(), 1.0), (vision.Invert(), 0.0)]])
    assert np.array_equal(always(IMG), 255 - IMG)
    twice = vision.UniformAugment([vision.Invert(), vision.Invert()], num_ops=2)
    assert np.array_equal(twice(IMG), IMG)
    with pytest.raises(ValueError):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 1.5)]])


def test_policies_repeat_in_a_seeded_pipeline():
    images = np.random.default_rng(1).integers(0, 256, (6, 10, 8, 3), dtype=np.uint8)

    def run():
        ds.config.set_seed(5)
        d = ds.NumpySlicesDataset(images, ["image"], shuffle=False).map(vision.RandAugment())
        return [r[0] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert all(np.array_equal(a, b) for a, b in zip(run(), run()))


def test_mixup_batch_mixes_images_and_labels_alike():
    rng = np.random.default_rng(3)
    values = np.arange(8, dtype=np.float32) * 30
    images = (values.reshape(8, 1, 1, 1) * np.ones((8, 4, 5, 3), np.float32)).astype(np.uint8)
    labels = np.eye(8, dtype=np.float32)
    weights = set()
    for _ in range(100):
        out, mixed = vision.MixUpBatch(alpha=1.0)._apply_random(rng, images, labels)
        assert out.shape == images.shape and out.dtype == np.uint8 and mixed.dtype == np.float32
        assert np.allclose(mixed.sum(axis=1), 1.0, atol=1e-6)
        # each image is the label-weighted mix of the images its label names
        assert np.all(np.abs(out[:, 0, 0, 0].astype(np.float32) - mixed @ values) <= 0.5 + 1e-3)
        weights.add(round(float(mixed.max()), 4))
    assert len(weights) > 20      # lam is drawn anew for each batch (a batch with a fixed point shows 1.0)


def test_mixup_batch_degenerate_beta_is_mindspores_error():
    want = MS["mixup_batch_onehot_alpha_tiny"]
    labels = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    with pytest.raises(RuntimeError) as info:
        vision.MixUpBatch(alpha=1e-9)(np.zeros((4, 6, 5, 3), np.uint8), labels)
    assert want["raises"] == "RuntimeError" and want["message"] in str(info.value)


@pytest.mark.parametrize("fmt", [vision.ImageBatchFormat.NHWC, vision.ImageBatchFormat.NCHW])
def test_cutmix_batch_pastes_boxes_and_mixes_labels_by_area(fmt):
    rng = np.random.default_rng(4)
    images = np.stack([np.full((8, 6, 3), k * 30, np.uint8) for k in range(5)])
    if fmt == vision.ImageBatchFormat.NCHW:
        images = np.ascontiguousarray(images.transpose(0, 3, 1, 2))
    labels = np.eye(5, dtype=np.float32)
    for _ in range(50):
        out, mixed = vision.CutMixBatch(fmt, alpha=1.0, prob=1.0)._apply_random(rng, images, labels)
        assert out.shape == images.shape and np.allclose(mixed.sum(axis=1), 1.0, atol=1e-6)
        hwc = out if fmt == vision.ImageBatchFormat.NHWC else out.transpose(0, 2, 3, 1)
        for i in range(5):                           # each label's weight is the share of its image's pixels
            for k in range(5):
                share = float((hwc[i, :, :, 0] == k * 30).mean())
                assert abs(mixed[i, k] - share) < 1e-6 or (k == i and abs(mixed[i, k] - share) < 1e-6)


def test_mixup_single_keeps_pairs_together():
    rng = np.random.default_rng(6)
    images = np.arange(4, dtype=np.float32).reshape(4, 1, 1, 1) * np.ones((4, 2, 2, 3), np.float32)
    labels = np.eye(4, dtype=np.float32)
    out, mixed = vision.MixUp(4, 1.0)._apply_random(rng, images, labels)
    # an image mixed from images a and b at (lam, 1 - lam) has the value lam * a + (1 - lam) * b
    assert np.allclose(out[:, 0, 0, 0], mixed @ np.arange(4, dtype=np.float32), atol=1e-5)


def test_not_random_marks_the_function_and_returns_it():
    """As MindSpore's transforms.not_random / vision.not_random: function.random = False."""
    import pycompile.dataset.transforms as transforms

    def double(x):
        return x * 2
    assert transforms.not_random(double) is double and double.random is False and double(3) == 6
    assert vision.not_random(lambda x: x).random is False
    d = ds.NumpySlicesDataset([1, 2], ["x"], shuffle=False).map(transforms.not_random(lambda x: x + 1))
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [2, 3]
