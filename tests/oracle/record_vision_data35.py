"""Record MindSpore 2.10's vision transforms on the cases of tests/dataset/vision_cases_data35.py,
and its image file functions (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_vision_data35.py

Writes data/vision_data35.json: per case the outputs (dtype, shape, values; PIL images as NumPy
arrays) or the error (class, first line); and "files": what read_file / read_image / encode_png /
encode_jpeg / write_* give on the fixtures.
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import vision_cases_data35 as vc  # noqa: E402


def attempt(fn):
    try:
        return {"outputs": vc.encode(fn())}
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        text = str(e)
        i = text.find("[ERROR]")
        line = text[i:].split("\n")[0] if i >= 0 else (text.strip().splitlines() or [""])[0]
        return {"raises": type(e).__name__, "message": line}


def files(images):
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "a.png")
        with open(png, "wb") as f:
            f.write(images["png"].tobytes())
        out["read_file"] = attempt(lambda: vision.read_file(png))
        for mode in ("UNCHANGED", "GRAYSCALE", "COLOR"):
            out[f"read_image_{mode}"] = attempt(lambda: vision.read_image(png, getattr(vision.ImageReadMode, mode)))
        out["encode_png"] = attempt(lambda: vision.encode_png(images["u8"]))
        out["encode_png_gray"] = attempt(lambda: vision.encode_png(images["gray"]))
        out["encode_png_level_9"] = attempt(lambda: vision.encode_png(images["u8"], 9))
        out["encode_jpeg"] = attempt(lambda: vision.encode_jpeg(images["u8"]))
        out["encode_jpeg_q50"] = attempt(lambda: vision.encode_jpeg(images["u8"], 50))
        out["encode_png_f32"] = attempt(lambda: vision.encode_png(images["f32"]))
        out["read_file_missing"] = attempt(lambda: vision.read_file(os.path.join(tmp, "nope.png")))
        target = os.path.join(tmp, "w.bin")
        out["write_file"] = attempt(lambda: (vision.write_file(target, images["png"]), np.fromfile(target, np.uint8))[1])
        wpng = os.path.join(tmp, "w.png")
        out["write_png"] = attempt(lambda: (vision.write_png(wpng, images["u8"]), np.fromfile(wpng, np.uint8))[1])
        wjpg = os.path.join(tmp, "w.jpg")
        out["write_jpeg"] = attempt(lambda: (vision.write_jpeg(wjpg, images["u8"]), np.fromfile(wjpg, np.uint8))[1])
    return out


def main():
    images = vc.inputs()
    record = {"mindspore": ms.__version__, "cases": {}}
    for name, (build, names) in vc.cases(vision).items():
        record["cases"][name] = attempt(lambda: vc.apply(build(), tuple(images[n].copy() for n in names)))
    record["files"] = files(images)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
    with open(os.path.join(HERE, "data", "vision_data35.json"), "w") as f:
        json.dump(record, f, indent=None, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
