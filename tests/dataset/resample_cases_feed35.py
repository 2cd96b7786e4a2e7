"""ResizedCrop / RandomResizedCrop with BICUBIC, AREA and PILCUBIC resampling, defined once for
tests/oracle/record_resample_feed35.py (MindSpore's venv) and tests/dataset/test_resample_feed35.py.
RandomResizedCrop with scale (1, 1) and the image's own aspect ratio crops the whole image, so its
output is deterministic."""
import numpy as np

H, W = 23, 31


def image():
    return np.random.default_rng(35).integers(0, 256, (H, W, 3), dtype=np.uint8)


def cases(vision):
    inter = vision.Inter
    out = {}
    for name in ("BICUBIC", "AREA", "PILCUBIC"):
        mode = getattr(inter, name)
        out[f"resized_crop_up_{name}"] = vision.ResizedCrop(2, 3, 15, 20, (37, 29), mode)
        out[f"resized_crop_down_{name}"] = vision.ResizedCrop(1, 4, 20, 25, (7, 9), mode)
        out[f"random_resized_crop_{name}"] = vision.RandomResizedCrop((40, 50), scale=(1.0, 1.0),
                                                                       ratio=(W / H, W / H), interpolation=mode)
    return out


def run(vision):
    img = image()
    result = {}
    for name, op in cases(vision).items():
        try:
            out = np.asarray(op(img))
            result[name] = {"dtype": str(out.dtype), "shape": list(out.shape), "value": out.tolist()}
        except Exception as e:  # noqa: BLE001 - the record
            result[name] = {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0]}}
    return result
