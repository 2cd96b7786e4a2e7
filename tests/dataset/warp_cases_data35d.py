"""Rotate / RandomRotation / Affine / RandomAffine / Perspective / the *WithBBox resizes with every
Inter mode (issue 35), defined once for tests/oracle/record_warp_data35d.py (MindSpore's venv) and
tests/dataset/test_warp_data35d.py. The random ops get degenerate ranges (a fixed angle, scale,
shear; RandomResizedCropWithBBox a whole-image crop), so their outputs are deterministic. Cases
named *_pil take a PIL image (MindSpore runs its Python implementation for ANTIALIAS)."""
import numpy as np

H, W = 13, 17
MODES = ("NEAREST", "ANTIALIAS", "BILINEAR", "BICUBIC", "AREA", "PILCUBIC")


def images():
    rng = np.random.default_rng(35)
    return {"rgb": rng.integers(0, 256, (H, W, 3), dtype=np.uint8),
            "gray": rng.integers(0, 256, (11, 9), dtype=np.uint8),
            "f32": (rng.random((H, W, 3)) * 255).astype(np.float32),
            "bbox": np.array([[2, 3, 6, 5], [9, 1, 7, 10]], np.float32)}


def cases(vision):
    """name -> (transform, input names)."""
    inter = vision.Inter
    out = {}
    start = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
    end = [[1, 2], [W - 3, 0], [W - 2, H - 2], [2, H - 1]]
    for name in MODES:
        m = getattr(inter, name)
        out[f"rotate_{name}"] = (vision.Rotate(30, m), ("rgb",))
        out[f"rotate_expand_fill_{name}"] = (vision.Rotate(-47.5, m, expand=True, fill_value=(10, 200, 30)), ("rgb",))
        out[f"random_rotation_{name}"] = (vision.RandomRotation((33, 33), m, center=(3, 4)), ("rgb",))
        out[f"affine_{name}"] = (vision.Affine(20, (0.1, -0.05), 1.1, (5.0, 3.0), m, fill_value=7), ("rgb",))
        out[f"random_affine_{name}"] = (vision.RandomAffine((15, 15), scale=(1.2, 1.2), shear=(10, 10, -5, -5),
                                                            resample=m), ("rgb",))
        out[f"perspective_{name}"] = (vision.Perspective(start, end, m), ("rgb",))
        out[f"rrc_bbox_{name}"] = (vision.RandomResizedCropWithBBox((7, 9), scale=(1.0, 1.0), ratio=(W / H, W / H),
                                                                    interpolation=m), ("rgb", "bbox"))
        out[f"resize_bbox_{name}"] = (vision.ResizeWithBBox((19, 8), m), ("rgb", "bbox"))
    for name in ("BICUBIC", "AREA"):
        m = getattr(inter, name)
        out[f"rotate_gray_{name}"] = (vision.Rotate(75, m), ("gray",))
        out[f"affine_gray_{name}"] = (vision.Affine(-10, (0.0, 0.1), 0.8, 0.0, m), ("gray",))
    for name in ("BICUBIC", "BILINEAR"):
        m = getattr(inter, name)
        out[f"rotate_f32_{name}"] = (vision.Rotate(30, m, fill_value=9), ("f32",))
        out[f"affine_f32_{name}"] = (vision.Affine(20, (0.1, -0.05), 1.1, (5.0, 3.0), m), ("f32",))
        out[f"perspective_f32_{name}"] = (vision.Perspective(start, end, m), ("f32",))
    out["resized_crop_ANTIALIAS"] = (vision.ResizedCrop(1, 1, 10, 12, (7, 9), inter.ANTIALIAS), ("rgb",))
    out["random_resized_crop_ANTIALIAS"] = (vision.RandomResizedCrop((7, 9), interpolation=inter.ANTIALIAS),
                                            ("rgb",))
    for name in ("ANTIALIAS", "BICUBIC"):
        m = getattr(inter, name)
        out[f"random_rotation_pil_{name}"] = (vision.RandomRotation((33, 33), m), ("pil",))
        out[f"perspective_pil_{name}"] = (vision.Perspective(start, end, m), ("pil",))
        out[f"random_resized_crop_pil_{name}"] = (vision.RandomResizedCrop((7, 9), scale=(1.0, 1.0),
                                                                           ratio=(W / H, W / H), interpolation=m),
                                                  ("pil",))
    return out


def encode(value):
    arrays = value if isinstance(value, tuple) else (value,)
    return [{"dtype": str(np.asarray(a).dtype), "shape": list(np.asarray(a).shape),
             "value": np.asarray(a).tolist(), "pil": not isinstance(a, np.ndarray)} for a in arrays]


def error_line(e):
    """The class and the line that says what went wrong ("[ERROR] ..." in MindSpore's pipeline texts)."""
    text = str(e)
    i = text.find("[ERROR]")
    line = text[i:].split("\n")[0] if i >= 0 else (text.strip().splitlines() or [""])[0]
    return {"type": type(e).__name__, "message": line.strip()}


def run(vision):
    from PIL import Image
    imgs = images()
    result = {}
    for name, (op, names) in cases(vision).items():
        args = [Image.fromarray(imgs["rgb"]) if n == "pil" else imgs[n].copy() for n in names]
        try:
            result[name] = {"outputs": encode(op(*args))}
        except Exception as e:  # noqa: BLE001 - the record
            result[name] = {"error": error_line(e)}
    return result
