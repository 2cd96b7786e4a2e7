"""Record what MindSpore 2.10's dataset serialization returns (ds.serialize / deserialize / compare /
show) for the pipelines of CASES, built on small files in the sources' formats:

    cd /tmp && /work/msvenv/bin/python /work/main/tests/dataset/record_serialization.py [case-prefix ... | extras]

Writes tests/dataset/serialization_records.json: per case the serialized dict (the temporary root
written <root>), the rows of the pipeline (when it reads no random order), the rows of
`deserialize(dict)` or its error, the text `serialize(..., json_filepath)` writes, and the dict
the deserialized pipeline serializes to. The cases are framework-neutral: the tests build them with
pycompile from this same module (mindspore is imported only by main()).

Fields that name the machine: `num_parallel_workers` where the user gave none (min(8, CPUs) of the
recording machine: `default_workers`) and the paths (`dataset_dir`, `dataset_files`, realpath'd).
"""
import json
import os
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "serialization_records.json")


# ---- fixtures: tiny files in each source's format ----------------------------------------------------
def build_root(root):
    """Write the fixture files under `root` (deterministic)."""
    rng = np.random.default_rng(7)
    for cls, n in (("cat", 2), ("dog", 3)):
        os.makedirs(os.path.join(root, "img", cls))
        for i in range(n):
            with open(os.path.join(root, "img", cls, f"{i}.jpg"), "wb") as f:
                f.write(bytes(rng.integers(0, 256, 4 + i, dtype=np.uint8)))
    mn = os.path.join(root, "mnist")
    os.makedirs(mn)
    for prefix, n in (("train", 4), ("t10k", 2)):
        imgs = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        with open(os.path.join(mn, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + imgs.tobytes())
        with open(os.path.join(mn, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + bytes(range(n)))
    cf = os.path.join(root, "cifar10")
    os.makedirs(cf)
    for name, n in (("data_batch_1.bin", 3), ("test_batch.bin", 2)):
        with open(os.path.join(cf, name), "wb") as f:
            for i in range(n):
                f.write(bytes([i % 10]) + bytes(rng.integers(0, 256, 3072, dtype=np.uint8)))
    c100 = os.path.join(root, "cifar100")
    os.makedirs(c100)
    for name, n in (("train.bin", 3), ("test.bin", 2)):
        with open(os.path.join(c100, name), "wb") as f:
            for i in range(n):
                f.write(bytes([i % 20, i % 100]) + bytes(rng.integers(0, 256, 3072, dtype=np.uint8)))
    with open(os.path.join(root, "a.txt"), "w") as f:
        f.write("hello\nworld\nfoo\nbar\n")
    with open(os.path.join(root, "b.txt"), "w") as f:
        f.write("one\ntwo\n")
    with open(os.path.join(root, "a.csv"), "w") as f:
        f.write("x,y,z\n1,2.5,p\n3,4.5,q\n5,6.5,r\n")


# ---- the pipelines --------------------------------------------------------------------------------------
def _np(ds):
    return ds.NumpySlicesDataset({"a": np.arange(12, dtype=np.float32).reshape(6, 2),
                                  "b": np.arange(6, dtype=np.int32)}, shuffle=False)


def _gen():
    for i in range(4):
        yield (np.array([i, i + 1], np.int64),)


def _txt(ds, r, **kw):
    return ds.TextFileDataset(os.path.join(r, "a.txt"), shuffle=False, **kw)


def _img(ds, r, **kw):
    return ds.ImageFolderDataset(os.path.join(r, "img"), **kw)


def _mnist(ds, r, **kw):
    return ds.MnistDataset(os.path.join(r, "mnist"), **kw)


def _mind(ms, r):
    """A MindRecord file of 4 rows (written once, by the framework's own FileWriter)."""
    path = os.path.join(r, "m.mindrecord")
    if not os.path.exists(path):
        import importlib
        writer = importlib.import_module(ms.__name__ + ".mindrecord").FileWriter(path, 1)
        writer.add_schema({"a": {"type": "int32"}, "b": {"type": "float32", "shape": [2]}}, "s")
        writer.write_raw_data([{"a": i, "b": np.array([i, i], np.float32)} for i in range(4)])
        writer.commit()
    return path


def _cifar(ds, r, **kw):
    return ds.Cifar10Dataset(os.path.join(r, "cifar10"), **kw)


# name -> (build(ds, V, T, ms, root) -> pipeline, deterministic rows?)
CASES = {
    "numpy_slices": (lambda ds, V, T, ms, r: _np(ds), True),
    "numpy_ops": (lambda ds, V, T, ms, r: _np(ds).map([T.TypeCast(ms.int32)], input_columns=["a"]).batch(
        2, drop_remainder=True).repeat(2).project(["a"]).rename(["a"], ["x"]).take(3).skip(1), True),
    "generator": (lambda ds, V, T, ms, r: ds.GeneratorDataset(_gen, ["x"]).map(T.TypeCast(ms.float32)), True),
    "text": (lambda ds, V, T, ms, r: _txt(ds, r), True),
    "text_default": (lambda ds, V, T, ms, r: ds.TextFileDataset([os.path.join(r, "a.txt")]), False),
    "text_files": (lambda ds, V, T, ms, r: ds.TextFileDataset([os.path.join(r, "a.txt"), os.path.join(r, "b.txt")],
                                                               shuffle=ds.Shuffle.FILES), False),
    "text_shard": (lambda ds, V, T, ms, r: _txt(ds, r, num_samples=3, num_shards=2, shard_id=1), True),
    "csv_header": (lambda ds, V, T, ms, r: ds.CSVDataset(os.path.join(r, "a.csv"), shuffle=False), True),
    "csv_named": (lambda ds, V, T, ms, r: ds.CSVDataset(
        [os.path.join(r, "a.csv")], field_delim=",", column_defaults=["", "", ""], column_names=["p", "q", "s"],
        shuffle=False, num_samples=3), True),
    "image_folder": (lambda ds, V, T, ms, r: _img(ds, r), False),
    "image_folder_seq": (lambda ds, V, T, ms, r: _img(ds, r, shuffle=False, class_indexing={"cat": 1, "dog": 0},
                                                        extensions=[".jpg"], num_samples=4), True),
    "image_folder_decode": (lambda ds, V, T, ms, r: _img(ds, r, shuffle=False, decode=False).take(2), True),
    "sampler_sequential": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.SequentialSampler(1, 3)), True),
    "sampler_random": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.RandomSampler(replacement=True,
                                                                                     num_samples=3)), False),
    "sampler_subset": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.SubsetSampler([4, 0, 2])), True),
    "sampler_subset_random": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.SubsetRandomSampler([1, 3])), False),
    "sampler_weighted": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.WeightedRandomSampler([0.1, 0.2, 0.3, 0.2,
                                                                                               0.2], 4)), False),
    "sampler_pk": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.PKSampler(2)), False),   # draws rows at random
    "sampler_distributed": (lambda ds, V, T, ms, r: _img(ds, r, sampler=ds.DistributedSampler(2, 1, shuffle=False)),
                            True),
    "sampler_shards": (lambda ds, V, T, ms, r: _img(ds, r, num_shards=2, shard_id=0), False),
    "sampler_child": (lambda ds, V, T, ms, r: _img(ds, r, sampler=_chained(ds)), True),
    "shuffle_num_samples": (lambda ds, V, T, ms, r: _img(ds, r, num_samples=3), False),
    "mnist": (lambda ds, V, T, ms, r: _mnist(ds, r, usage="train", shuffle=False, num_samples=3).map(
        [V.Rescale(1 / 255.0, -0.5), V.Resize((4, 5)), V.HWC2CHW()], input_columns="image").map(
        T.OneHot(10), input_columns=["label"]).batch(2), True),
    "mnist_all": (lambda ds, V, T, ms, r: _mnist(ds, r), False),
    "cifar10": (lambda ds, V, T, ms, r: _cifar(ds, r, usage="test", shuffle=False), False),
    "cifar100": (lambda ds, V, T, ms, r: ds.Cifar100Dataset(os.path.join(r, "cifar100"), usage="train",
                                                            shuffle=False).project(["fine_label", "image"]), False),
    "mnist_crop_normalize": (lambda ds, V, T, ms, r: _mnist(ds, r, usage="test", shuffle=False).map(
        [V.CenterCrop(8), V.Normalize([1.0], [4.0]), V.HWC2CHW()], input_columns="image",
        num_parallel_workers=1), True),
    "mnist_resize": (lambda ds, V, T, ms, r: _mnist(ds, r, usage="train", shuffle=False).map(
        [V.Resize(6, V.Inter.NEAREST), V.Resize([5, 4], V.Inter.BICUBIC), V.Resize(3, V.Inter.AREA),
         V.Rescale(0.5, 1.0), V.Normalize([1.0], [4.0], is_hwc=True)], input_columns="image"), True),
    "flips": (lambda ds, V, T, ms, r: _mnist(ds, r, shuffle=False).map(
        [V.RandomHorizontalFlip(0.3), V.RandomVerticalFlip()], input_columns=["image"]), False),
    "onehot_smooth": (lambda ds, V, T, ms, r: _mnist(ds, r, shuffle=False).map(
        [T.TypeCast(np.int32), T.OneHot(10, 0.1)], input_columns="label", output_columns="onehot"), True),
    "shuffle": (lambda ds, V, T, ms, r: _txt(ds, r).shuffle(3), False),
    "repeat_take": (lambda ds, V, T, ms, r: _txt(ds, r).repeat(3).take(5), True),
    "batch_keep": (lambda ds, V, T, ms, r: _txt(ds, r).batch(3, drop_remainder=False, num_parallel_workers=1), True),
    "map_columns": (lambda ds, V, T, ms, r: _txt(ds, r).map(T.Duplicate(), input_columns="text",
                                                            output_columns=["t1", "t2"], num_parallel_workers=2),
                    True),
    "map_pyfunc": (lambda ds, V, T, ms, r: _txt(ds, r).map(_upper, input_columns="text"), True),
    "map_compose": (lambda ds, V, T, ms, r: _mnist(ds, r, usage="test", shuffle=False).map(
        T.Compose([T.TypeCast(ms.int32), T.OneHot(10)]), input_columns="label"), True),
    "mind_dataset": (lambda ds, V, T, ms, r: ds.MindDataset(_mind(ms, r), columns_list=["a"], shuffle=False).batch(
        2, num_parallel_workers=1), True),
    "map_callbacks": (lambda ds, V, T, ms, r: _txt(ds, r).map(_upper, callbacks=[_StepCallback(ds, 2), _StepCallback(
        ds, 1)], num_parallel_workers=1), True),
    "zip": (lambda ds, V, T, ms, r: ds.zip((_txt(ds, r), ds.CSVDataset(os.path.join(r, "a.csv"), shuffle=False))),
            True),
    "zip_method": (lambda ds, V, T, ms, r: _txt(ds, r).zip(_np(ds)), True),
    "concat": (lambda ds, V, T, ms, r: _txt(ds, r) + ds.TextFileDataset(os.path.join(r, "b.txt"), shuffle=False),
               True),
    "concat_three": (lambda ds, V, T, ms, r: _img(ds, r, shuffle=False).concat(
        [_img(ds, r, shuffle=False, num_samples=2), _img(ds, r, shuffle=False, num_samples=1)]), True),
}


class _StepCallback:
    """A DSCallback subclass of the framework's `ds` with the given step size."""

    def __new__(cls, ds, step_size):
        return type("StepCB", (ds.DSCallback,), {"ds_step_begin": lambda self, ctx: None})(step_size)


def _upper(x):
    return np.char.upper(x)


def _chained(ds):
    s = ds.SequentialSampler(start_index=1)
    s.add_child(ds.SubsetSampler([4, 3, 2, 1]))
    return s


def _encode(v):
    a = np.asarray(v)
    if a.dtype.kind in "SU":
        return {"dtype": "str", "shape": list(a.shape),
                "value": np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else str(s),
                                      otypes=[object])(a).tolist() if a.ndim else str(a)}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.tolist()}


def rows_of(d, limit=12):
    out = []
    for row in d.create_tuple_iterator(output_numpy=True, num_epochs=1):
        out.append([_encode(c) for c in row])
        if len(out) >= limit:
            break
    return out


def error_of(exc, root=""):
    """The exception as the tests compare it: the class and MindSpore's own detail line."""
    text = str(exc).replace(root, "<root>") if root else str(exc)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    detail = next((ln[len("[ERROR] "):].strip() for ln in lines if ln.startswith("[ERROR] ")), first)
    return {"type": type(exc).__name__, "message": detail}


def with_root(obj, root, to_placeholder=True):
    """`obj` (JSON data) with the root path swapped for <root> (or back)."""
    text = json.dumps(obj)
    text = text.replace(root, "<root>") if to_placeholder else text.replace("<root>", root)
    return json.loads(text)


def record_case(ds, V, T, ms, root, name):
    build, deterministic = CASES[name]
    out = {}
    pipe = build(ds, V, T, ms, root)
    out["serialized"] = with_root(ds.serialize(pipe), root)
    if deterministic:
        out["rows"] = rows_of(pipe)
    path = os.path.join(root, f"{name}.json")
    ds.serialize(build(ds, V, T, ms, root), json_filepath=path)
    with open(path) as f:
        out["file"] = f.read().replace(root, "<root>")
    try:
        back = ds.deserialize(input_dict=with_root(out["serialized"], root, False))
        out["deserialized_rows"] = rows_of(back)
        out["reserialized"] = with_root(ds.serialize(back), root)
    except Exception as exc:  # noqa: BLE001 - recorded
        out["deserialize_error"] = error_of(exc, root)
    return out


def waited_events(ms, ds, step_size):
    """MindSpore's WaitedDSCallback example (Model.train over 2 epochs of 4 rows): the events of the
    dataset side and of the training side, each in its order (how the two interleave is up to the
    threads when a dataset step holds several rows)."""
    events = []

    class Waited(ds.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            events.append(f"ds_epoch_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}")

        def sync_step_begin(self, train_run_context, ds_run_context):
            # the training step the context holds is certain only when each dataset step waits for the one before
            train = f"_{train_run_context.original_args().cur_step_num}" if step_size == 1 else ""
            events.append(f"ds_step_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}{train}")

        def ds_epoch_end(self, ds_run_context):          # not called for a WaitedDSCallback
            events.append("ds_epoch_end")

    class Train(ms.train.Callback):
        def epoch_end(self, run_context):
            p = run_context.original_args()
            events.append(f"ms_epoch_end_{p.cur_epoch_num}_{p.cur_step_num}")

        def step_end(self, run_context):
            p = run_context.original_args()
            events.append(f"ms_step_end_{p.cur_epoch_num}_{p.cur_step_num}")

    class Net(ms.nn.Cell):
        def construct(self, x, y):
            return x

    waited = Waited(step_size)
    arr = np.array([1, 2, 3, 4], np.int32)
    data = ds.NumpySlicesDataset((arr, arr), column_names=["c1", "c2"], shuffle=False)
    data = data.map(operations=(lambda x: x), callbacks=waited)
    ms.train.Model(Net()).train(2, data, dataset_sink_mode=False, callbacks=[Train(), waited])
    return [e for e in events if e.startswith("ds")], [e for e in events if e.startswith("ms")]


def record_extras(ds, V, T, ms, root):
    """Errors for bad arguments, compare, show, deserialize from a file / of nothing."""
    out = {}

    def attempt(key, fn):
        try:
            out[key] = {"value": fn()}
        except Exception as exc:  # noqa: BLE001 - recorded
            out[key] = {"error": error_of(exc, root)}

    attempt("serialize_list", lambda: ds.serialize([1, 2]))
    attempt("serialize_bad_path", lambda: ds.serialize(_txt(ds, root), json_filepath=os.path.join(
        root, "no_dir", "x.json")))
    attempt("deserialize_nothing", lambda: ds.deserialize())
    attempt("deserialize_empty_dict", lambda: ds.deserialize(input_dict={}))
    attempt("deserialize_missing_file", lambda: rows_of(ds.deserialize(json_filepath=os.path.join(root, "none.json"))))
    attempt("deserialize_unknown_op", lambda: rows_of(ds.deserialize(input_dict={"op_type": "Foo", "children": []})))
    attempt("deserialize_unknown_tensor_op", lambda: rows_of(ds.deserialize(input_dict=json.loads(json.dumps(
        ds.serialize(_txt(ds, root).map(T.Duplicate(), output_columns=["a", "b"])))))))
    attempt("compare_same", lambda: ds.compare(_txt(ds, root), _txt(ds, root)))
    attempt("compare_take", lambda: ds.compare(_txt(ds, root), _txt(ds, root).take(1)))
    attempt("compare_map", lambda: ds.compare(_np(ds).map(T.OneHot(3)), _np(ds).map(T.OneHot(4))))
    attempt("compare_int", lambda: ds.compare(_txt(ds, root), 3))
    attempt("show_int", lambda: ds.show(3))
    attempt("show_returns", lambda: ds.show(_txt(ds, root)))
    path = os.path.join(root, "from_file.json")
    ds.serialize(_mnist(ds, root, usage="test", shuffle=False).batch(2), json_filepath=path)
    attempt("deserialize_file_rows", lambda: rows_of(ds.deserialize(json_filepath=path)))
    attempt("deserialize_file_and_dict", lambda: rows_of(ds.deserialize(
        input_dict=ds.serialize(_txt(ds, root)), json_filepath=path)))
    attempt("waited_step_1", lambda: waited_events(ms, ds, 1))
    attempt("waited_step_2", lambda: waited_events(ms, ds, 2))
    ds.config.set_seed(7)
    attempt("distributed_seed", lambda: with_root(ds.serialize(_img(ds, root, num_shards=2, shard_id=1)), root))
    ds.config.set_seed(5489)
    old = ds.config.get_prefetch_size()
    ds.config.set_prefetch_size(8)
    attempt("prefetch_size_8", lambda: with_root(ds.serialize(_txt(ds, root).batch(2)), root))
    ds.config.set_prefetch_size(old)
    return out


def main():
    import mindspore as ms
    import mindspore.dataset as ds
    import mindspore.dataset.transforms as T
    import mindspore.dataset.vision as V
    ds.config.set_seed(5489)
    out = {"mindspore": ms.__version__, "default_workers": ds.config.get_num_parallel_workers(), "cases": {}}
    if len(sys.argv) > 1 and os.path.exists(OUT):          # record some cases again, keep the others
        with open(OUT) as f:
            out = json.load(f)
        out["cases"] = {k: v for k, v in out["cases"].items() if k in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        build_root(root)
        for name in CASES:
            if len(sys.argv) > 1 and not name.startswith(tuple(sys.argv[1:])):
                continue
            try:
                out["cases"][name] = record_case(ds, V, T, ms, root, name)
            except Exception as exc:  # noqa: BLE001 - a case the wheel cannot serialize at all
                out["cases"][name] = {"error": error_of(exc, root)}
            print(name, "error" if "error" in out["cases"][name] else "ok", file=sys.stderr)
        if len(sys.argv) == 1 or "extras" in sys.argv:
            out["extras"] = record_extras(ds, V, T, ms, root)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
