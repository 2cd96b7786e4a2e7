"""Record the indices MindSpore 2.10's samplers yield (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_samplers.py

Writes data/samplers.json: for each case of tests/dataset/sampler_cases.py and each seed in SEEDS
(ds.config.set_seed), the dataset size and the indices of EPOCHS epochs of one iterator; the
sampler a source's own shuffle / num_shards / num_samples arguments make; PKSampler's rows of a
small MNIST folder (labels and image sums); and the class and first line of each refused use.
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import layout_cases  # noqa: E402
import sampler_cases as sc  # noqa: E402


def epochs_of(d, column=0):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=sc.EPOCHS)
    return [[int(r[column]) for r in it] for _ in range(sc.EPOCHS)]


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        text = str(e)
        if "[ERROR] " in text:
            text = text.split("[ERROR] ", 1)[1]
        return {"type": type(e).__name__, "message": text.splitlines()[0].strip() if text else ""}
    return None


def main():
    record = {"mindspore": ms.__version__, "samplers": {}, "sources": {}, "pk": {}, "errors": {}}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        for name, (n, spec) in sc.SAMPLER_CASES.items():
            record["samplers"][name] = {}
            for seed in sc.SEEDS:
                ds.config.set_seed(seed)
                d = ds.NumpySlicesDataset(np.arange(n), column_names=["x"], sampler=sc.build(ds, spec))
                record["samplers"][name][str(seed)] = {"size": d.get_dataset_size(), "epochs": epochs_of(d)}
        for name, (n, kwargs) in sc.SOURCE_CASES.items():
            record["sources"][name] = {}
            for seed in sc.SEEDS:
                ds.config.set_seed(seed)
                d = ds.NumpySlicesDataset(np.arange(n), column_names=["x"], **kwargs)
                if name == "shuffle_repeat":
                    d = d.repeat(2)
                record["sources"][name][str(seed)] = {"size": d.get_dataset_size(), "epochs": epochs_of(d)}
        folder = os.path.join(root, "mnist")
        layout_cases.mnist_files(folder, "train", sc.PK_ROWS, sc.PK_SEED)
        for name, spec in sc.PK_CASES.items():
            record["pk"][name] = {}
            for seed in sc.SEEDS:
                ds.config.set_seed(seed)
                d = ds.MnistDataset(folder, sampler=sc.build(ds, spec))
                it = d.create_tuple_iterator(output_numpy=True, num_epochs=2)
                record["pk"][name][str(seed)] = {
                    "size": d.get_dataset_size(),
                    "epochs": [[[int(r[1]), int(r[0].sum())] for r in it] for _ in range(2)]}
        for name, fn in sc.error_cases(ds).items():
            record["errors"][name] = error_of(fn)
    out = os.path.join(HERE, "data", "samplers.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
