"""Record MindSpore 2.10's mindspore.dataset behaviour (run once, under MindSpore's venv):

    . /work/ms-venv/bin/activate && python tests/dataset/record_dataset.py

Writes fixtures/ms_dataset.json: for each pipeline in dataset_cases (no shuffling) its columns,
sizes and every row (dtype, shape, values); the rows of every shard; what MnistDataset and
Cifar10Dataset read from files written by dataset_cases; the output of each transform; and the
exception classes of wrong uses. Not collected by pytest.
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dataset_cases  # noqa: E402


def encode(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "values": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()}


def rows_of(d, limit=None):
    out = []
    for i, row in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        if limit is not None and i >= limit:
            break
        out.append([encode(c) for c in row])
    return out


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}
    return None


def main():
    record = {"mindspore": ms.__version__, "pipelines": {}, "shards": {}, "transforms": {}, "errors": {}}
    for name, d in dataset_cases.pipelines(ds).items():
        record["pipelines"][name] = {"columns": d.get_col_names(), "size": d.get_dataset_size(),
                                     "batch_size": d.get_batch_size(), "rows": rows_of(d)}
    first = next(iter(dataset_cases.pipelines(ds)["batch3"]))
    record["iter_types"] = {"row": type(first).__name__, "item": type(first[0]).__name__, "dtype": str(first[0].dtype)}
    record["infinite_repeat_size"] = ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"]).repeat().get_dataset_size()

    for kind, n, num_shards in dataset_cases.SHARDS:
        record["shards"][f"{kind}_{n}_{num_shards}"] = [
            {"size": dataset_cases.sharded(ds, kind, n, num_shards, k).get_dataset_size(),
             "rows": [int(r[0]) for r in dataset_cases.sharded(ds, kind, n, num_shards, k)
                      .create_tuple_iterator(output_numpy=True)]}
            for k in range(num_shards)]

    tmp = tempfile.mkdtemp()
    dataset_cases.write_mnist(tmp)
    record["mnist"] = {}
    for usage in (None, "train", "test", "all"):
        d = ds.MnistDataset(tmp, usage=usage, shuffle=False)
        rows = rows_of(d)
        record["mnist"][str(usage)] = {"size": d.get_dataset_size(), "columns": d.get_col_names(),
                                       "labels": [r[1]["values"] for r in rows],
                                       "image_sums": [int(np.sum(r[0]["values"])) for r in rows],
                                       "first": rows[0]}
    d = ds.MnistDataset(tmp, usage="train", shuffle=False, num_shards=2, shard_id=1)
    record["mnist"]["shard_1_of_2"] = [r[1]["values"] for r in rows_of(d)]
    d = ds.MnistDataset(tmp, usage="train", shuffle=False, num_samples=3)
    record["mnist"]["num_samples_3"] = [r[1]["values"] for r in rows_of(d)]
    record["errors"]["mnist_missing_dir"] = error_of(lambda: ds.MnistDataset(os.path.join(tmp, "nope")))
    record["errors"]["mnist_bad_usage"] = error_of(lambda: ds.MnistDataset(tmp, usage="valid"))

    cifar = tempfile.mkdtemp()
    dataset_cases.write_cifar(cifar)
    record["cifar"] = {}
    for usage in (None, "train", "test", "all"):
        d = ds.Cifar10Dataset(cifar, usage=usage, shuffle=False)
        rows = rows_of(d, limit=20)
        record["cifar"][str(usage)] = {"size": d.get_dataset_size(), "columns": d.get_col_names(),
                                       "labels": [r[1]["values"] for r in rows],
                                       "image_sums": [int(np.sum(r[0]["values"])) for r in rows],
                                       "first": rows[0]}

    for name, (op, img) in dataset_cases.transform_cases(vision, transforms, ms).items():
        try:
            record["transforms"][name] = encode(op(dataset_cases.transform_input(img)))
        except Exception as e:  # noqa: BLE001
            record["transforms"][name] = {"raises": type(e).__name__, "message": str(e).splitlines()[0]}

    def gen():
        return ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"], shuffle=False)

    def exhausted():
        it = gen().create_tuple_iterator(num_epochs=1)
        list(it)
        list(it)

    def bad_generator():
        yield (np.array(1),)
        raise KeyError("boom in generator")

    def bad_map(x):
        raise ZeroDivisionError("bad map")

    errors = {
        "epochs_exhausted": exhausted,
        "generator_raises": lambda: list(ds.GeneratorDataset(bad_generator, ["x"])),
        "map_raises": lambda: list(gen().map(bad_map, input_columns=["x"])),
        "shuffle_buffer_1": lambda: gen().shuffle(1),
        "batch_zero": lambda: gen().batch(0),
        "batch_ragged": lambda: list(ds.GeneratorDataset(lambda: ((np.zeros(i + 1),) for i in range(3)), ["a"])
                                     .batch(3)),
        "wrong_column_count": lambda: list(ds.GeneratorDataset(dataset_cases.gen_rows, ["x"])),
        "no_column_names": lambda: ds.GeneratorDataset(dataset_cases.gen_rows),
        "shards_on_generator_function": lambda: ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"],
                                                                    num_shards=2, shard_id=0),
        "shard_id_without_num_shards": lambda: ds.NumpySlicesDataset([1, 2], shard_id=0),
        "shard_id_out_of_range": lambda: ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=2),
        "project_missing": lambda: list(gen().project(["nope"])),
        "seed_negative": lambda: ds.config.set_seed(-1),
        "seed_not_int": lambda: ds.config.set_seed(1.5),
        "prefetch_zero": lambda: ds.config.set_prefetch_size(0),
    }
    for name, fn in errors.items():
        record["errors"][name] = error_of(fn)
    record["default_seed"] = 5489
    ds.config.set_seed(7)
    record["seed_after_set"] = ds.config.get_seed()
    ms.set_seed(11)
    record["seed_after_ms_set_seed"] = ds.config.get_seed()
    record["default_prefetch_size"] = ds.config.get_prefetch_size()

    with open(os.path.join(HERE, "fixtures", "ms_dataset.json"), "w") as f:
        json.dump(record, f)
        f.write("\n")
    print("wrote", os.path.join(HERE, "fixtures", "ms_dataset.json"))


if __name__ == "__main__":
    main()
