"""ImageFolderDataset, vision.Decode, CSVDataset and TextFileDataset against MindSpore 2.10
(tests/oracle/data/folder_sources.json, written by tests/oracle/record_folder_sources.py on the
fixtures of folder_cases.py). Decoding needs Pillow (the `images` extra): those cases skip
without it. MindSpore ran with 2 parallel workers (its default on the 2-core recording machine);
the CSV / text cases that did not set num_parallel_workers run with 2 here too."""
import json
import os

import numpy as np
import pytest

import folder_cases as fc
import pycompile.dataset as ds
import pycompile.dataset.vision as vision

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "folder_sources.json")
with open(_DATA, encoding="utf-8") as _f:
    MS = json.load(_f)

RECORDED_WORKERS = 2


def _has_pillow():
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


needs_pillow = pytest.mark.skipif(not _has_pillow(), reason="decoding needs Pillow (pip install 'pycompile[images]')")


def value(a, raw=False):
    a = np.asarray(a)
    if raw:
        return {"dtype": a.dtype.str, "shape": list(a.shape), "sum": int(a.astype(np.int64).sum())}
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


def run(make, root, raw_first=False):
    """What the recorder writes, from pycompile (errors raised when built or read)."""
    try:
        d = make()
        rows = [[value(c, raw_first and i == 0) for i, c in enumerate(r)]
                for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        out = {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}
        if hasattr(d, "get_class_indexing"):
            out["class_indexing"] = d.get_class_indexing()
        return out
    except (RuntimeError, ValueError, TypeError) as e:
        return {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0].replace(root, "<dir>")}}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("folders"))
    fc.build_image_folder(os.path.join(root, "images"))
    os.makedirs(os.path.join(root, "no_images", "cls"))
    os.makedirs(os.path.join(root, "texts"))
    fc.build_text_files(os.path.join(root, "texts"))
    return root


@pytest.mark.parametrize("name", sorted(fc.IMAGE_FOLDER_CASES))
def test_image_folder_matches_mindspore(name, root):
    kwargs = fc.IMAGE_FOLDER_CASES[name]
    if kwargs.get("decode") and not _has_pillow():
        pytest.skip("decoding needs Pillow")
    images = os.path.join(root, "images")
    got = run(lambda: ds.ImageFolderDataset(images, shuffle=False, **kwargs), root, raw_first=not kwargs.get("decode"))
    assert got == MS["image_folder"][name]


@pytest.mark.parametrize("name", ["missing_folder", "extensions_str", "no_images"])
def test_image_folder_errors_match_mindspore(name, root):
    make = {"missing_folder": lambda: ds.ImageFolderDataset(os.path.join(root, "nope")),
            "extensions_str": lambda: ds.ImageFolderDataset(os.path.join(root, "images"), extensions="png"),
            "no_images": lambda: ds.ImageFolderDataset(os.path.join(root, "no_images"))}[name]
    assert run(make, root) == MS["image_folder"][name]


@needs_pillow
@pytest.mark.parametrize("name", sorted(MS["decode"]))
def test_decode_matches_mindspore(name, root):
    raw = np.fromfile(os.path.join(root, "images", name), np.uint8)
    want = MS["decode"][name]
    if "error" in want:
        with pytest.raises(RuntimeError, match="Decode: image decode failed"):
            vision.Decode()(raw)
        return
    assert value(vision.Decode()(raw)) == want


@needs_pillow
def test_decode_in_a_pipeline_and_to_pil(root):
    d = ds.ImageFolderDataset(os.path.join(root, "images"), shuffle=False, extensions=[".png"])
    d = d.map(vision.Decode(), input_columns="image").map(vision.HWC2CHW(), input_columns="image")
    image, label = next(iter(d.create_tuple_iterator(output_numpy=True)))
    assert image.shape == (3, 4, 3) and label.dtype == np.int32
    raw = np.fromfile(os.path.join(root, "images", "cat", "a.png"), np.uint8)
    assert np.array_equal(np.asarray(vision.Decode(to_pil=True)(raw)), vision.Decode()(raw))


def test_decode_without_pillow_says_what_to_install(monkeypatch, root):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)
    raw = np.fromfile(os.path.join(root, "images", "cat", "a.png"), np.uint8)
    with pytest.raises(ImportError, match=r"pycompile\[images\]"):
        vision.Decode()(raw)


def test_image_folder_samplers_and_pk(root):
    d = ds.ImageFolderDataset(os.path.join(root, "images"), extensions=[".png"],
                              sampler=ds.PKSampler(1))
    assert sorted(int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)) == [0, 1, 2]


def _without_class_indexing(want):
    """MindSpore's file datasets all answer get_class_indexing() (with {}); pycompile's CSV and
    text datasets have none."""
    return {k: v for k, v in want.items() if k != "class_indexing"}


def _workers(kwargs):
    return kwargs if "num_parallel_workers" in kwargs else {**kwargs, "num_parallel_workers": RECORDED_WORKERS}


@pytest.mark.parametrize("name", sorted(fc.CSV_CASES))
def test_csv_matches_mindspore(name, root):
    files, kwargs = fc.CSV_CASES[name]
    texts = os.path.join(root, "texts")
    got = run(lambda: ds.CSVDataset(fc.paths(texts, files), **{"shuffle": False, **_workers(kwargs)}), root)
    assert got == _without_class_indexing(MS["csv"][name])


@pytest.mark.parametrize("name", sorted(fc.TEXT_CASES))
def test_text_file_matches_mindspore(name, root):
    files, kwargs = fc.TEXT_CASES[name]
    texts = os.path.join(root, "texts")
    got = run(lambda: ds.TextFileDataset(fc.paths(texts, files), **{"shuffle": False, **_workers(kwargs)}), root)
    assert got == _without_class_indexing(MS["text"][name])


def test_text_file_shuffle_is_seeded_and_complete(root):
    files = fc.paths(os.path.join(root, "texts"), ["t1.txt", "t2.txt", "t3.txt"])

    def lines():
        return [str(r[0]) for r in ds.TextFileDataset(files).create_tuple_iterator(output_numpy=True, num_epochs=1)]
    ds.config.set_seed(3)
    first = lines()
    ds.config.set_seed(3)
    assert lines() == first
    assert sorted(first) == sorted(row[0]["value"] for row in MS["text"]["three_files"]["rows"])
