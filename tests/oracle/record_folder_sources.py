"""Record MindSpore 2.10's ImageFolderDataset, vision.Decode, CSVDataset and TextFileDataset on the
fixtures of tests/dataset/folder_cases.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_folder_sources.py

Writes data/folder_sources.json: per case the columns, size and rows (each value's dtype, shape
and value; a raw image file as its length and byte sum), class indexing, or the error (class and
MindSpore's own message, the fixture folder written <dir>). Unshuffled everywhere: MindSpore's
shuffled order for these sources is not reproduced.
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import folder_cases as fc  # noqa: E402


def value(a, raw=False):
    a = np.asarray(a)
    if raw:
        return {"dtype": a.dtype.str, "shape": list(a.shape), "sum": int(a.astype(np.int64).sum())}
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


def run(make, root, raw_first=False):
    try:
        d = make()
        rows = [[value(c, raw_first and i == 0) for i, c in enumerate(r)]
                for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        out = {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}
        if hasattr(d, "get_class_indexing"):
            out["class_indexing"] = d.get_class_indexing()
        return out
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        text = str(e)
        if "[ERROR] " in text:
            text = text.split("[ERROR] ", 1)[1]
        return {"error": {"type": type(e).__name__, "message": text.splitlines()[0].strip().replace(root, "<dir>")}}


def main():
    record = {"mindspore": ms.__version__, "image_folder": {}, "decode": {}, "csv": {}, "text": {}}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        images = os.path.join(root, "images")
        fc.build_image_folder(images)
        for name, kwargs in fc.IMAGE_FOLDER_CASES.items():
            record["image_folder"][name] = run(lambda: ds.ImageFolderDataset(images, shuffle=False, **kwargs), root,
                                               raw_first=not kwargs.get("decode"))
        record["image_folder"]["missing_folder"] = run(lambda: ds.ImageFolderDataset(os.path.join(root, "nope")),
                                                       root)
        record["image_folder"]["extensions_str"] = run(lambda: ds.ImageFolderDataset(images, extensions="png"), root)
        os.makedirs(os.path.join(root, "no_images", "cls"))
        record["image_folder"]["no_images"] = run(lambda: ds.ImageFolderDataset(os.path.join(root, "no_images")),
                                                  root)
        for cls, files in fc.IMAGE_TREE.items():
            for fname, kind, _ in files:
                raw = np.fromfile(os.path.join(images, cls, fname), np.uint8)
                try:
                    record["decode"][f"{cls}/{fname}"] = value(vision.Decode()(raw))
                except Exception as e:  # noqa: BLE001
                    record["decode"][f"{cls}/{fname}"] = {"error": {"type": type(e).__name__,
                                                                    "message": str(e).splitlines()[0]}}
        texts = os.path.join(root, "texts")
        os.makedirs(texts)
        fc.build_text_files(texts)
        for name, (files, kwargs) in fc.CSV_CASES.items():
            record["csv"][name] = run(lambda: ds.CSVDataset(fc.paths(texts, files), **{"shuffle": False, **kwargs}),
                                      root)
        for name, (files, kwargs) in fc.TEXT_CASES.items():
            record["text"][name] = run(lambda: ds.TextFileDataset(fc.paths(texts, files),
                                                                  **{"shuffle": False, **kwargs}), root)
    out = os.path.join(HERE, "data", "folder_sources.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=None, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
