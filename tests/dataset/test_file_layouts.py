"""MnistDataset / FashionMnistDataset / Cifar10Dataset / Cifar100Dataset on the official folder
layouts and broken ones, against what MindSpore 2.10 did on the same folders
(tests/oracle/data/file_layouts.json, written by tests/oracle/record_file_layouts.py).

MindSpore read 10000-record CIFAR files (50000 for CIFAR-100's train.bin); the same writers make
20-record files here, which begin with the same records, so a recorded run [seed, 0, n] of a
whole file is a run [seed, 0, 20] here. Missing files raise MindSpore's class and message, when
the dataset is built rather than on its first row (the recorded `stage`)."""
import json
import os

import numpy as np
import pytest

import dataset_cases
import layout_cases
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "file_layouts.json")
with open(_DATA) as _f:
    MS = json.load(_f)

SMALL = 20


def _usage(key):
    return None if key == "None" else key


def _read(make, directory):
    """What the recorder writes for one call, from pycompile (errors raised at any stage)."""
    try:
        d = make()
        rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    except (RuntimeError, ValueError) as e:
        return {"error": {"type": type(e).__name__, "message": str(e).replace(directory, "<dir>")}}
    return d, rows


def _check_error(got, want):
    assert "error" in got, f"pycompile read the folder; MindSpore raised {want['error']}"
    assert got["error"]["type"] == want["error"]["type"]
    assert got["error"]["message"] == want["error"]["message"]


@pytest.fixture(scope="module")
def mnist_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("mnist"))
    layout_cases.build_mnist_official(root)
    layout_cases.build_mnist_variants(root)
    return root


@pytest.mark.parametrize("api", ["mnist", "fashion_mnist", "kmnist"])
@pytest.mark.parametrize("folder", layout_cases.MNIST_FOLDERS)
def test_mnist_folders_match_mindspore(api, folder, mnist_root):
    cls = {"mnist": ds.MnistDataset, "fashion_mnist": ds.FashionMnistDataset, "kmnist": ds.KMnistDataset}[api]
    path = os.path.join(mnist_root, folder)
    for usage, want in MS[api][folder].items():
        got = _read(lambda: cls(path, usage=_usage(usage), shuffle=False), path)
        if "error" in want:
            _check_error(got, want)
            continue
        assert not isinstance(got, dict), f"usage {usage}: {got}"
        d, rows = got
        assert d.get_dataset_size() == want["size"] and d.get_col_names() == want["columns"]
        assert [str(c.dtype) for c in rows[0]] == want["dtypes"]
        assert [list(c.shape) for c in rows[0]] == want["shapes"]
        assert [int(r[1]) for r in rows] == want["labels"], usage
        assert [int(r[0].sum()) for r in rows] == want["image_sums"], usage


@pytest.mark.parametrize("folder", layout_cases.EMNIST_FOLDERS)
def test_emnist_files_that_disagree_raise_mindsporess_message(folder, tmp_path):
    layout_cases.build_emnist_broken(str(tmp_path))
    path = str(tmp_path / folder)
    _check_error(_read(lambda: ds.EMnistDataset(path, "mnist", usage="train", shuffle=False), path), MS["emnist"][folder])


def test_quick_start_layout_with_default_usage(mnist_root):
    """The tutorials' `ds.MnistDataset("MNIST_Data/train")`: only train-* files there."""
    d = ds.MnistDataset(os.path.join(mnist_root, "MNIST_Data", "train")).batch(2)
    assert d.get_dataset_size() == 3
    images, labels = next(iter(d.create_tuple_iterator(output_numpy=True)))
    assert images.shape == (2, 28, 28, 1) and labels.dtype == np.uint32


@pytest.mark.parametrize("api", ["mnist", "cifar10"])
@pytest.mark.parametrize("case", ["missing_folder", "bad_usage"])
def test_argument_errors_match_mindspore(api, case, tmp_path):
    cls = ds.MnistDataset if api == "mnist" else ds.Cifar10Dataset
    path = str(tmp_path / "nope") if case == "missing_folder" else str(tmp_path)
    usage = "valid" if case == "bad_usage" else None
    _check_error(_read(lambda: cls(path, usage=usage), path), MS[api][case])


@pytest.fixture(scope="module")
def cifar_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("cifar"))
    layout_cases.build_cifar(root, n10=SMALL, n100_train=SMALL, n100_test=SMALL)
    return root


def _records(labels, seed):
    """Every record of a SMALL-record file as its row reads: labels, then HWC image bytes."""
    rec = dataset_cases.cifar_records(SMALL, seed) if labels == 1 else layout_cases.cifar100_records(SMALL, seed)
    images = rec[:, labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).reshape(SMALL, -1)
    return np.concatenate([rec[:, :labels], images], axis=1)


def _runs(rows, labels, seeds):
    """pycompile's rows as runs [seed, first record, count] of the writers' records."""
    def same(flat, seed, i):
        return i < SMALL and np.array_equal(flat, _records(labels, seed)[i])

    out = []
    for r in rows:
        flat = np.concatenate([np.asarray(c).reshape(-1) for c in r[1:]] + [r[0].reshape(-1)])
        if out and out[-1][0] is not None and same(flat, out[-1][0], out[-1][2]):
            out[-1][2] += 1
            continue
        out.append([next((s for s in seeds if same(flat, s, 0)), None), 0, 1])
    return out


@pytest.mark.parametrize("api,folder", [("cifar10", f) for f in layout_cases.CIFAR10_FOLDERS]
                         + [("cifar100", f) for f in layout_cases.CIFAR100_FOLDERS])
def test_cifar_folders_match_mindspore(api, folder, cifar_root):
    cls, labels = (ds.Cifar10Dataset, 1) if api == "cifar10" else (ds.Cifar100Dataset, 2)
    path = os.path.join(cifar_root, folder)
    for usage, want in MS[api][folder].items():
        got = _read(lambda: cls(path, usage=_usage(usage), shuffle=False), path)
        if "error" in want:
            _check_error(got, want)
            continue
        assert not isinstance(got, dict), f"usage {usage}: {got}"
        d, rows = got
        assert d.get_col_names() == want["columns"]
        assert [str(c.dtype) for c in rows[0]] == want["dtypes"]
        assert [list(c.shape) for c in rows[0]] == want["shapes"]
        assert _runs(rows, labels, range(1, 10)) == [[s, 0, SMALL] for s, _, _ in want["runs"]], usage
        assert d.get_dataset_size() == SMALL * len(want["runs"])


def test_quick_start_pipeline_unchanged(mnist_root):
    """MindSpore's quick start data lines, with only the import changed."""
    import pycompile as mindspore
    from pycompile.dataset import MnistDataset, transforms, vision

    def datapipe(path, batch_size):
        image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                            vision.HWC2CHW()]
        label_transform = transforms.TypeCast(mindspore.int32)
        dataset = MnistDataset(path)
        dataset = dataset.map(image_transforms, 'image')
        dataset = dataset.map(label_transform, 'label')
        return dataset.batch(batch_size)

    train = datapipe(os.path.join(mnist_root, "MNIST_Data", "train"), 2)
    test = datapipe(os.path.join(mnist_root, "MNIST_Data", "test"), 2)
    image, label = next(train.create_tuple_iterator())
    assert image.shape == (2, 1, 28, 28) and str(image.dtype) == "Float32" and str(label.dtype) == "Int32"
    assert train.get_dataset_size() == 3 and test.get_dataset_size() == 2
    assert sorted(int(x) for b in test.create_dict_iterator(output_numpy=True) for x in b["label"]) == \
        sorted(MS["mnist"]["MNIST_Data/test"]["test"]["labels"])
