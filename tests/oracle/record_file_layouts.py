"""Record how MindSpore 2.10 reads MNIST / Fashion-MNIST / CIFAR-10 / CIFAR-100 folders (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_file_layouts.py

Writes data/file_layouts.json. The folders come from tests/dataset/layout_cases.py (the official
layouts and broken ones); for each folder, API and usage: the size, the columns and dtypes, the
rows (MNIST: labels and image sums; CIFAR: the files' order, as runs of (writer seed, first
record, count)), or the error: its class, the stage that raised (construct / size / iterate) and
MindSpore's own message (the line after "[ERROR] " of its pipeline report), with the folder's
path written <dir>.
"""
import functools
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import dataset_cases  # noqa: E402
import layout_cases  # noqa: E402


def ms_message(e, directory):
    text = str(e)
    if "[ERROR] " in text:
        text = text.split("[ERROR] ", 1)[1]
    return text.splitlines()[0].replace(directory, "<dir>").strip()


def run(make, directory, rows_of):
    stage = "construct"
    try:
        d = make()
        stage = "size"
        size = d.get_dataset_size()
        columns = d.get_col_names()
        stage = "iterate"
        rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"error": {"type": type(e).__name__, "stage": stage, "message": ms_message(e, directory)}}
    return {"size": size, "columns": columns, "dtypes": [str(c.dtype) for c in rows[0]],
            "shapes": [list(c.shape) for c in rows[0]], **rows_of(rows)}


def mnist_rows(rows):
    return {"labels": [int(r[1]) for r in rows], "image_sums": [int(r[0].sum()) for r in rows]}


def _same(a, b):
    return b is not None and np.array_equal(a, b)


def runs(rows, record_of, seeds):
    """The rows as runs [seed, first record, count] of the writers' records."""
    out = []
    for r in rows:
        flat = np.concatenate([np.asarray(c).reshape(-1) for c in r[1:]] + [np.asarray(r[0]).reshape(-1)])
        if out and out[-1][0] is not None and _same(flat, record_of(out[-1][0], out[-1][1] + out[-1][2])):
            out[-1][2] += 1
            continue
        seed = next((s for s in seeds if _same(flat, record_of(s, 0))), None)
        out.append([seed, 0, 1])
    return out


@functools.lru_cache(maxsize=None)
def _flat_records(kind, seed):
    """Every record a writer makes for `seed`, as the row reads it: labels, then HWC image bytes."""
    if kind == 10:
        rec, labels = dataset_cases.cifar_records(10000, seed), 1
    else:
        rec, labels = layout_cases.cifar100_records(50000, seed), 2
    images = rec[:, labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).reshape(len(rec), -1)
    return np.concatenate([rec[:, :labels], images], axis=1)


def cifar10_record(seed, i):
    records = _flat_records(10, seed)
    return records[i] if i < len(records) else None


def cifar100_record(seed, i):
    records = _flat_records(100, seed)
    return records[i] if i < len(records) else None


def main():
    record = {"mindspore": ms.__version__, "mnist": {}, "fashion_mnist": {}, "kmnist": {}, "emnist": {}, "cifar10": {}, "cifar100": {}}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)                               # MindSpore may write rank_0/ here
        layout_cases.build_mnist_official(root)
        layout_cases.build_mnist_variants(root)
        for key, api in (("mnist", ds.MnistDataset), ("fashion_mnist", ds.FashionMnistDataset),
                         ("kmnist", ds.KMnistDataset)):
            for folder in layout_cases.MNIST_FOLDERS:
                path = os.path.join(root, folder)
                record[key][folder] = {str(u): run(lambda: api(path, usage=u, shuffle=False), path, mnist_rows)
                                       for u in layout_cases.USAGES}
        layout_cases.build_emnist_broken(root)
        for folder in layout_cases.EMNIST_FOLDERS:
            path = os.path.join(root, folder)
            record["emnist"][folder] = run(lambda: ds.EMnistDataset(path, "mnist", usage="train", shuffle=False),
                                           path, mnist_rows)
        for key in ("mnist", "cifar10"):
            api = ds.MnistDataset if key == "mnist" else ds.Cifar10Dataset
            path = os.path.join(root, "nope")
            record[key]["missing_folder"] = run(lambda: api(path), path, mnist_rows)
            record[key]["bad_usage"] = run(lambda: api(root, usage="valid"), root, mnist_rows)
        layout_cases.build_cifar(os.path.join(root, "c"))
        seeds = range(1, 10)
        for folder in layout_cases.CIFAR10_FOLDERS:
            path = os.path.join(root, "c", folder)
            record["cifar10"][folder] = {
                str(u): run(lambda: ds.Cifar10Dataset(path, usage=u, shuffle=False), path,
                            lambda rows: {"runs": runs(rows, cifar10_record, seeds)}) for u in layout_cases.USAGES}
        for folder in layout_cases.CIFAR100_FOLDERS:
            path = os.path.join(root, "c", folder)
            record["cifar100"][folder] = {
                str(u): run(lambda: ds.Cifar100Dataset(path, usage=u, shuffle=False), path,
                            lambda rows: {"runs": runs(rows, cifar100_record, seeds)}) for u in layout_cases.USAGES}
    out = os.path.join(HERE, "data", "file_layouts.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
