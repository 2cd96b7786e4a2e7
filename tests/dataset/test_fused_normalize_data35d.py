"""map fuses Normalize(is_hwc=True) followed by HWC2CHW into one pass over each image (issue 35):
the same float32 bits as the two ops, eagerly, in a pipeline, in batch-mapping workers' path, and
where the pair cannot be fused (gray images, a mean broadcast over one channel, is_hwc=False)."""
import numpy as np

import pycompile.dataset as ds
import pycompile.dataset.vision as vision

MEAN, STD = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]


def _images():
    rng = np.random.default_rng(35)
    return {"rgb": rng.integers(0, 256, (4, 7, 9, 3), dtype=np.uint8),
            "rgb_f32": rng.random((4, 7, 9, 3), dtype=np.float32) * 300 - 20,
            "one_channel": rng.integers(0, 256, (4, 7, 9, 1), dtype=np.uint8),
            "gray": rng.integers(0, 256, (4, 7, 9), dtype=np.uint8)}


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


def test_map_fuses_normalize_then_hwc2chw_with_the_same_bits():
    for name, imgs in _images().items():
        mean, std = (MEAN[:1], STD[:1]) if name == "gray" else (MEAN, STD)
        ops = [vision.Normalize(mean, std), vision.HWC2CHW()]
        d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(ops, input_columns="image")
        assert len(d.operations) == 1, d.operations                        # fused
        got = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]
        for img, out in zip(imgs, got):
            _same(out, ops[1](ops[0](img)))
        batched = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(ops, input_columns="image").batch(2)
        rows = [r[0] for r in batched.create_tuple_iterator(output_numpy=True)]
        _same(np.concatenate(rows), np.stack([ops[1](ops[0](img)) for img in imgs]))


def test_pairs_that_are_not_fusible_stay_two_ops():
    d = ds.NumpySlicesDataset({"image": _images()["rgb"]}, shuffle=False)
    assert len(d.map([vision.Normalize(MEAN, STD, is_hwc=False), vision.HWC2CHW()]).operations) == 2
    assert len(d.map([vision.HWC2CHW(), vision.Normalize(MEAN, STD)]).operations) == 2
