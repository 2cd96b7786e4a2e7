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
# float32 results within 2 ulp of MindSpore's (OpenCV's float summation order is not reproduced)
WITHIN_ULP = {"gaussian_blur_f32"}


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
        if name in WITHIN_ULP:
            a, b = np.asarray(g["values"], np.float32), np.asarray(w["values"], np.float32)
            assert np.all(np.abs(a.view(np.int32) - b.view(np.int32)) <= 2), f"output {k}"
            continue
        assert g["values"] == w["values"], f"output {k}"


def _decoded(values):
    from PIL import Image
    import io
    return np.asarray(Image.open(io.BytesIO(np.asarray(values, np.uint8).tobytes())))


@pytest.fixture
def png_path(tmp_path):
    path = str(tmp_path / "a.png")
    with open(path, "wb") as f:
        f.write(IMAGES["png"].tobytes())
    return path


def test_read_file_and_read_image_match_mindspore(png_path):
    pytest.importorskip("PIL")
    files = MS["files"]
    assert vision.read_file(png_path).tolist() == files["read_file"]["outputs"][0]["values"]
    for mode in ("UNCHANGED", "GRAYSCALE", "COLOR"):
        got = vision.read_image(png_path, getattr(vision.ImageReadMode, mode))
        want = files[f"read_image_{mode}"]["outputs"][0]
        assert (str(got.dtype), list(got.shape), got.tolist()) == (want["dtype"], want["shape"], want["values"]), mode


def test_read_file_missing_is_mindspores_error(tmp_path):
    missing = str(tmp_path / "nope.png")
    with pytest.raises(RuntimeError) as info:
        vision.read_file(missing)
    want = MS["files"]["read_file_missing"]["message"]
    assert "[ERROR] ReadFile: Invalid file path, " + missing + " does not exist." in str(info.value)
    assert want.startswith("[ERROR] ReadFile: Invalid file path, ") and want.endswith("nope.png does not exist.")


@pytest.mark.parametrize("name, image, kwargs", [("encode_jpeg", "u8", {}), ("encode_jpeg_q50", "u8", {"quality": 50}),
                                                 ("encode_png", "u8", {}), ("encode_png_gray", "gray", {}),
                                                 ("encode_png_level_9", "u8", {"compression_level": 9})])
def test_encoders_match_mindspore(name, image, kwargs):
    """JPEG: the wheel's bytes exactly. PNG: the same image when decoded (zlib's stream may differ)."""
    pytest.importorskip("PIL")
    encode = vision.encode_jpeg if "jpeg" in name else vision.encode_png
    got = encode(IMAGES[image], **kwargs)
    want = MS["files"][name]["outputs"][0]["values"]
    assert got.dtype == np.uint8 and got.ndim == 1
    if "jpeg" in name:
        assert got.tolist() == want
    else:
        assert np.array_equal(_decoded(got), _decoded(want)) and np.array_equal(_decoded(got), IMAGES[image])


def test_encode_png_refuses_float_as_mindspore_does():
    with pytest.raises(RuntimeError) as info:
        vision.encode_png(IMAGES["f32"])
    assert MS["files"]["encode_png_f32"]["message"] in str(info.value)


def test_writers_write_what_the_encoders_give(tmp_path):
    pytest.importorskip("PIL")
    vision.write_file(str(tmp_path / "w.bin"), IMAGES["png"])
    assert np.fromfile(str(tmp_path / "w.bin"), np.uint8).tolist() == MS["files"]["write_file"]["outputs"][0]["values"]
    vision.write_jpeg(str(tmp_path / "w.jpg"), IMAGES["u8"])
    assert np.fromfile(str(tmp_path / "w.jpg"), np.uint8).tolist() == MS["files"]["write_jpeg"]["outputs"][0]["values"]
    vision.write_png(str(tmp_path / "w.png"), IMAGES["u8"])
    assert np.array_equal(_decoded(np.fromfile(str(tmp_path / "w.png"), np.uint8)), IMAGES["u8"])
