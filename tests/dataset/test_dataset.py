"""pycompile.dataset against MindSpore 2.10 (fixtures/ms_dataset.json, written by
record_dataset.py): pipeline rows, columns, sizes and dtypes; shards; MNIST / CIFAR-10 files;
errors. Then what MindSpore cannot tell us: the background thread (prefetch, exceptions with
their own type, clean stop), seeded reproducibility, and the consumer's wait time."""
import gc
import json
import os
import threading
import time

import numpy as np
import pytest

import dataset_cases
import pycompile as ms
import pycompile.dataset as ds

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ms_dataset.json")) as _f:
    MS = json.load(_f)


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


@pytest.mark.parametrize("name", sorted(MS["pipelines"]))
def test_pipeline_matches_mindspore(name):
    d = dataset_cases.pipelines(ds)[name]
    want = MS["pipelines"][name]
    assert d.get_col_names() == want["columns"]
    assert d.get_dataset_size() == want["size"]
    assert d.get_batch_size() == want["batch_size"]
    assert rows_of(d) == want["rows"]


def test_iteration_yields_lists_of_tensors():
    row = next(iter(dataset_cases.pipelines(ds)["batch3"]))
    assert (type(row).__name__, type(row[0]).__name__, str(row[0].dtype)) == \
        (MS["iter_types"]["row"], MS["iter_types"]["item"], MS["iter_types"]["dtype"])
    assert isinstance(row[0], ms.Tensor)
    d = ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"], shuffle=False)
    first = next(iter(d.create_dict_iterator()))
    assert list(first) == ["x", "y"] and first["y"].dtype == ms.int64
    assert [list(r[0].shape) for r in d.create_tuple_iterator(columns=["y"], num_epochs=1)] == [[]] * 7
    assert d.output_shapes() == [[2], []] and d.output_types() == [np.int32, np.int64]


def test_infinite_repeat_reports_one_pass():
    d = ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"]).repeat()
    assert d.get_dataset_size() == MS["infinite_repeat_size"]
    it = d.create_tuple_iterator(output_numpy=True)
    assert [int(next(it)[1]) for _ in range(16)] == [i % 7 % 3 for i in range(16)]


@pytest.mark.parametrize("case", dataset_cases.SHARDS, ids=lambda c: f"{c[0]}_{c[1]}_{c[2]}")
def test_shards_match_mindspore(case):
    kind, n, num_shards = case
    want = MS["shards"][f"{kind}_{n}_{num_shards}"]
    for k in range(num_shards):
        d = dataset_cases.sharded(ds, kind, n, num_shards, k)
        got = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
        assert {"size": d.get_dataset_size(), "rows": got} == want[k]


def test_shuffled_shards_are_disjoint_and_cover_the_data():
    seen = []
    for k in range(3):
        d = ds.NumpySlicesDataset(list(range(12)), num_shards=3, shard_id=k)      # shuffled by default
        seen += [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert sorted(seen) == list(range(12)) and seen != list(range(12))


@pytest.mark.parametrize("usage", ["None", "train", "test", "all"])
def test_mnist_matches_mindspore(usage, tmp_path):
    dataset_cases.write_mnist(str(tmp_path))
    d = ds.MnistDataset(str(tmp_path), usage=None if usage == "None" else usage, shuffle=False)
    rows = rows_of(d)
    want = MS["mnist"][usage]
    assert d.get_dataset_size() == want["size"] and d.get_col_names() == want["columns"]
    assert [r[1]["values"] for r in rows] == want["labels"]
    assert [int(np.sum(r[0]["values"])) for r in rows] == want["image_sums"]
    assert rows[0] == want["first"]


def test_mnist_shards_and_num_samples(tmp_path):
    dataset_cases.write_mnist(str(tmp_path))
    d = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False, num_shards=2, shard_id=1)
    assert [r[1]["values"] for r in rows_of(d)] == MS["mnist"]["shard_1_of_2"]
    d = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False, num_samples=3)
    assert [r[1]["values"] for r in rows_of(d)] == MS["mnist"]["num_samples_3"]
    d = ds.MnistDataset(str(tmp_path), usage="train")                # shuffled by default
    assert sorted(r[1]["values"] for r in rows_of(d)) == sorted(MS["mnist"]["train"]["labels"])


@pytest.mark.parametrize("usage", ["None", "train", "test", "all"])
def test_cifar10_matches_mindspore(usage, tmp_path):
    """MindSpore read 10000-record files; the same formula writes 20-record files here, which
    begin with the same rows (MindSpore insists on 10000 records per file, pycompile does not)."""
    dataset_cases.write_cifar(str(tmp_path), n=20)
    d = ds.Cifar10Dataset(str(tmp_path), usage=None if usage == "None" else usage, shuffle=False)
    rows = rows_of(d, limit=20)
    want = MS["cifar"][usage]
    assert d.get_col_names() == want["columns"]
    assert [r[1]["values"] for r in rows] == want["labels"]
    assert [int(np.sum(r[0]["values"])) for r in rows] == want["image_sums"]
    assert rows[0] == want["first"]
    assert d.get_dataset_size() == want["size"] // 10000 * 20


def test_cifar10_record_layout_independently(tmp_path):
    """A record is a label byte then R, G, B planes of 32 x 32: pixel (y, x) of channel c is
    byte 1 + c * 1024 + y * 32 + x."""
    rec = dataset_cases.cifar_records(2, 9)
    rec.tofile(str(tmp_path / "test_batch.bin"))
    image, label = next(iter(ds.Cifar10Dataset(str(tmp_path), usage="test", shuffle=False)
                             .create_tuple_iterator(output_numpy=True)))
    assert label == rec[0, 0] and image.shape == (32, 32, 3)
    assert image[5, 7, 2] == rec[0, 1 + 2 * 1024 + 5 * 32 + 7]


def test_broken_files_are_clear_errors(tmp_path):
    (tmp_path / "data_batch_1.bin").write_bytes(b"\0" * 3000)
    with pytest.raises(RuntimeError, match="whole number"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")
    with pytest.raises(RuntimeError, match="MnistDataset"):
        ds.MnistDataset(str(tmp_path))


MATCHED_ERRORS = ["epochs_exhausted", "shuffle_buffer_1", "batch_zero", "batch_ragged", "wrong_column_count",
                  "no_column_names", "shards_on_generator_function", "shard_id_without_num_shards",
                  "shard_id_out_of_range", "project_missing", "seed_negative", "seed_not_int", "prefetch_zero",
                  "mnist_bad_usage"]


def _error_cases(tmp_path):
    def gen():
        return ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"], shuffle=False)

    def exhausted():
        it = gen().create_tuple_iterator(num_epochs=1)
        list(it)
        list(it)
    return {
        "epochs_exhausted": exhausted,
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
        "mnist_bad_usage": lambda: ds.MnistDataset(str(tmp_path), usage="valid"),
    }


@pytest.mark.parametrize("case", MATCHED_ERRORS)
def test_errors_have_mindspores_class(case, tmp_path):
    with pytest.raises(Exception) as info:
        _error_cases(tmp_path)[case]()
    want = MS["errors"][case]
    assert type(info.value).__name__ == want["raises"]
    if not want["message"].startswith("Exception thrown from"):      # MindSpore's generic pipeline text
        assert str(info.value).splitlines()[0] == want["message"]


def test_missing_directory_error(tmp_path):
    with pytest.raises(ValueError) as info:
        ds.MnistDataset(str(tmp_path / "nope"))
    assert str(info.value) == MS["errors"]["mnist_missing_dir"]["message"].replace(
        MS["errors"]["mnist_missing_dir"]["message"].split(" ")[2], str(tmp_path / "nope"))


class Boom(Exception):
    pass


def test_errors_in_user_code_are_mindspores_runtime_error_with_the_users_traceback():
    """MindSpore wraps them in RuntimeError, the user's traceback in its text; pycompile too, the
    user's exception kept as the cause."""
    def bad_generator():
        yield (np.array(1),)
        raise KeyError("boom in generator")
    with pytest.raises(RuntimeError, match="Exception thrown from user defined Python function") as info:
        list(ds.GeneratorDataset(bad_generator, ["x"]))
    assert "boom in generator" in str(info.value) and isinstance(info.value.__cause__, KeyError)
    assert MS["errors"]["generator_raises"]["raises"] == "RuntimeError"

    def bad_map(x):
        raise Boom("bad map")
    d = ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"], shuffle=False).map(bad_map, input_columns=["x"])
    with pytest.raises(RuntimeError, match="Exception thrown from user defined Python function") as info:
        list(d)
    assert "map operation: [PyFunc] failed." in str(info.value) and "in bad_map" in str(info.value)
    assert isinstance(info.value.__cause__, Boom)


def test_seed_config_follows_mindspore():
    ds.config.set_seed(7)
    assert ds.config.get_seed() == MS["seed_after_set"]
    ms.set_seed(11)
    assert ds.config.get_seed() == MS["seed_after_ms_set_seed"]
    assert ds.config.get_prefetch_size() == MS["default_prefetch_size"]


def _shuffled_pipeline():
    return (ds.NumpySlicesDataset({"v": np.arange(40)}).shuffle(8)
            .map(ds.transforms.Compose([lambda v: v * 2]), input_columns=["v"]).batch(4))


def test_seeded_runs_repeat_and_epochs_differ():
    ds.config.set_seed(123)
    it = _shuffled_pipeline().create_tuple_iterator(output_numpy=True, num_epochs=2)
    first = [r[0].tolist() for r in it]
    second = [r[0].tolist() for r in it]
    ds.config.set_seed(123)
    again = [r[0].tolist() for r in _shuffled_pipeline().create_tuple_iterator(output_numpy=True)]
    assert first == again and first != second
    assert sorted(sum(first, [])) == list(range(0, 80, 2))
    ds.config.set_seed(124)
    assert [r[0].tolist() for r in _shuffled_pipeline().create_tuple_iterator(output_numpy=True)] != first


def test_random_transforms_are_seeded():
    img = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)

    def run():
        d = ds.GeneratorDataset([(img,)] * 6, ["image"], shuffle=False)
        d = d.map([ds.vision.RandomCrop((3, 4)), ds.vision.RandomHorizontalFlip()], input_columns="image")
        return [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)]
    ds.config.set_seed(5)
    a = run()
    ds.config.set_seed(5)
    assert run() == a and len({str(x) for x in a}) > 1


def _producer_threads():
    return [t for t in threading.enumerate() if t.name.startswith("pycompile-dataset")]


def _wait_until(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def test_dropping_an_iterator_stops_its_thread():
    assert _wait_until(lambda: not _producer_threads())
    d = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(10 ** 6)), ["x"])
    it = d.create_tuple_iterator()
    next(it)
    assert _producer_threads()
    del it
    gc.collect()
    assert _wait_until(lambda: not _producer_threads())


def test_thread_ends_with_the_last_epoch():
    assert _wait_until(lambda: not _producer_threads())
    for _ in ds.NumpySlicesDataset(list(range(5))):
        pass
    assert _wait_until(lambda: not _producer_threads())


def test_prefetch_runs_ahead_and_wait_time_is_reported():
    """The producer works while the consumer is busy: after a pause the next rows are ready, so
    the consumer's measured wait is far below the time the rows took to make."""
    def slow_rows():
        for i in range(6):
            time.sleep(0.02)
            yield (np.array(i),)
    it = ds.GeneratorDataset(slow_rows, ["x"]).create_tuple_iterator(num_epochs=1)
    time.sleep(0.3)                                      # "a training step" while the thread fills the queue
    assert [int(r[0]) for r in it] == list(range(6))
    assert it.wait_time < 0.06                          # making the rows took >= 0.12 s
    slow = ds.GeneratorDataset(slow_rows, ["x"]).create_tuple_iterator(num_epochs=1)
    list(slow)
    assert slow.wait_time > 0.08                         # consumed at once: it waited for each row


def test_prefetch_queue_is_bounded():
    made = []

    def rows():
        for i in range(1000):
            made.append(i)
            yield (np.array(i),)
    ds.config.set_prefetch_size(4)
    try:
        it = ds.GeneratorDataset(rows, ["x"]).create_tuple_iterator()
        next(it)
        time.sleep(0.2)
        assert len(made) <= 1 + 4 + 2          # consumed + queued + one in the producer's hands
        it.stop()
    finally:
        ds.config.set_prefetch_size(16)


def test_do_copy_and_output_numpy():
    shared = np.zeros(3, np.float32)
    d = ds.GeneratorDataset(lambda: ((shared,) for _ in range(2)), ["a"])
    rows = [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, do_copy=True)]
    assert rows[0] is not shared and np.shares_memory(rows[0], rows[1]) is False
    t = next(iter(d.create_tuple_iterator(num_epochs=1)))[0]
    assert isinstance(t, ms.Tensor) and t.dtype == ms.float32


def test_sampler_and_iterable_sources():
    d = ds.GeneratorDataset(dataset_cases.RandomAccess(), ["i", "v"], sampler=[5, 1, 1])
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [5, 1, 1]
    assert d.get_dataset_size() == 3
    d = ds.GeneratorDataset([(np.array(i),) for i in range(4)], ["x"], shuffle=False)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [0, 1, 2, 3]
    d = ds.GeneratorDataset(range(3), ["x"], shuffle=False)
    assert d.get_dataset_size() == 3 and [int(r[0]) for r in d] == [0, 1, 2]


def test_result_changing_options_are_refused_not_ignored():
    d = ds.GeneratorDataset(dataset_cases.gen_rows, ["x", "y"], shuffle=False)
    with pytest.raises(TypeError, match="pad_info"):          # MindSpore 2.10's TypeError (gaps_data35d.json)
        d.batch(2, pad_info={"x": ([3], 0)})
    assert d.batch(2, python_multiprocessing=True).get_dataset_size() == 4     # performance-only: accepted
    assert ms.dataset is ds
