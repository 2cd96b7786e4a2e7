"""The conformance table: mindspore.dataset.DatasetCache - its arguments, where a cache may go in a
pipeline (MindSpore's errors, compared word for word), and the rows of cached pipelines over an
image folder in two epochs (the same as without the cache: values, order, samplers). Ids start
with ``dcache_``. All run on the host (the pipeline, not graph code).

MindSpore keeps the rows in its cache server: recording needs the wheel's `dataset-cache`
program (beside its interpreter), which `_dcache_session` starts and asks for a session;
pycompile keeps the rows in the process and takes any valid session id
(src/pycompile/dataset/cache.py). tests/dataset/test_dataset_cache.py checks what only pycompile
can show (each row computed once, copies served, the size bound, worker processes)."""
group("dataset_cache")

_dcache_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
DCDS = ms.dataset


def _dcache_session():
    """A cache session id: MindSpore's server makes one; pycompile needs none (any valid id)."""
    if ms.__name__ != "mindspore":
        return 1
    import os
    import subprocess
    import sys
    tool = os.path.join(os.path.dirname(sys.executable), "dataset-cache")
    if "port 50052" not in subprocess.run([tool, "--list_sessions"], capture_output=True, text=True).stdout:
        subprocess.run([tool, "--start"], capture_output=True, text=True, timeout=60)
    out = subprocess.run([tool, "-g"], capture_output=True, text=True, timeout=60).stdout
    return int(out.strip().split()[-1])


def _dcache_cache():
    return DCDS.DatasetCache(session_id=_dcache_session(), size=0)


def _dcache_error(fn):
    """The exception's class and MindSpore's own words: the pipeline's "[ERROR] ..." line, else the
    first line."""
    return error_words(fn)


def _dcache_folder(fn):
    """fn(root) over an ImageFolderDataset folder: classes a and b, three 2x2 PNG images each, every
    pixel 10 i (+ 100 in b)."""
    import os
    import tempfile
    from PIL import Image
    with tempfile.TemporaryDirectory() as root:
        for cls in ("a", "b"):
            os.makedirs(os.path.join(root, cls))
            for i in range(3):
                Image.fromarray(np.full((2, 2, 3), 10 * i + (100 if cls == "b" else 0), np.uint8)).save(
                    os.path.join(root, cls, f"{i}.png"))
        return fn(root)


def _dcache_epochs(d, epochs=2):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    return [[tuple(np.asarray(c) for c in row) for row in it] for _ in range(epochs)]


def _dcache_rows(name, build, epochs=2, seed=None):
    def run():
        def go(root):
            if seed is not None:
                DCDS.config.set_seed(seed)
            return _dcache_epochs(build(root), epochs)
        return _dcache_folder(go)
    add(f"dcache_{name}", "dataset.DatasetCache", run, **_dcache_PIPE)


def _dcache_refused(name, build):
    def run():
        return _dcache_folder(lambda root: _dcache_error(lambda: _dcache_epochs(build(root), 1)))
    add(f"dcache_{name}", "dataset.DatasetCache", run, **_dcache_PIPE)


_DCV = ms.dataset.vision
_DCT = ms.dataset.transforms


def _dcache_if(root, **kw):
    return DCDS.ImageFolderDataset(root, **{"shuffle": False, **kw})


def _dcache_decode(d, **kw):
    return d.map(_DCV.Decode(), input_columns=["image"], **kw)


# ---- the arguments -----------------------------------------------------------------------------
_DCACHE_ARGS = {
    "session_0": dict(session_id=0), "session_neg": dict(session_id=-1), "session_float": dict(session_id=1.5),
    "session_big": dict(session_id=2 ** 32), "session_bool": dict(session_id=True),
    "size_neg": dict(session_id=1, size=-1), "size_float": dict(session_id=1, size=1.0),
    "size_bool": dict(session_id=1, size=True), "size_big": dict(session_id=1, size=2 ** 64),
    "spilling_int": dict(session_id=1, spilling=1), "hostname_int": dict(session_id=1, hostname=5),
    "port_low": dict(session_id=1, port=80), "port_str": dict(session_id=1, port="x"),
    "connections_0": dict(session_id=1, num_connections=0), "prefetch_0": dict(session_id=1, prefetch_size=0),
}
for _dc_name, _dc_kw in _DCACHE_ARGS.items():
    add(f"dcache_args_{_dc_name}", "dataset.DatasetCache",
        lambda kw=_dc_kw: _dcache_error(lambda: DCDS.DatasetCache(**kw)), **_dcache_PIPE)


@case("dataset.DatasetCache", **_dcache_PIPE)
def dcache_args_kept():
    c = DCDS.DatasetCache(session_id=_dcache_session(), size=64, spilling=True, hostname="127.0.0.1", port=50052,
                          num_connections=2, prefetch_size=3)
    return c.size, c.spilling, c.hostname, c.port, c.num_connections, c.prefetch_size


@case("dataset.DatasetCache", "dataset.ImageFolderDataset", **_dcache_PIPE)
def dcache_type_of_cache():
    return _dcache_folder(lambda root: (_dcache_error(lambda: _dcache_if(root, cache=5)),
                                        _dcache_error(lambda: _dcache_decode(_dcache_if(root), cache="x"))))


@case("dataset.DatasetCache", "dataset.ImageFolderDataset", **_dcache_PIPE)
def dcache_stat():
    def run(root):
        c = _dcache_cache()
        before = _dcache_error(c.get_stat)
        _dcache_epochs(_dcache_if(root, decode=True, cache=c), 1)
        s = c.get_stat()
        # how many of the 6 rows the server holds after one epoch depends on its timing (4 in one
        # recording): that some are, and none on disk
        return before, s.num_mem_cached > 0, s.num_disk_cached
    return _dcache_folder(run)


@case("dataset.transforms.TypeCast", **_dcache_PIPE)
def dcache_typecast_of_text():
    cast = _DCT.TypeCast(np.float32)
    return _dcache_error(lambda: cast(np.array(["1", "2"]))), _dcache_error(lambda: cast(np.array([b"1"])))


# ---- where a cache may not go ------------------------------------------------------------------
_dcache_refused("under_batch", lambda r: _dcache_decode(_dcache_if(r).batch(2), cache=_dcache_cache()))
_dcache_refused("under_take", lambda r: _dcache_decode(_dcache_if(r).take(3), cache=_dcache_cache()))
_dcache_refused("under_skip", lambda r: _dcache_decode(_dcache_if(r).skip(3), cache=_dcache_cache()))
_dcache_refused("under_filter", lambda r: _dcache_decode(_dcache_if(r).filter(lambda lb: lb == 1, input_columns=["label"]),
                                                         cache=_dcache_cache()))
_dcache_refused("under_zip", lambda r: _dcache_decode(DCDS.zip((_dcache_if(r), _dcache_if(r).rename(
    ["image", "label"], ["i2", "l2"]))), cache=_dcache_cache()))
_dcache_refused("under_concat", lambda r: _dcache_decode(_dcache_if(r) + _dcache_if(r), cache=_dcache_cache()))
_dcache_refused("random_op", lambda r: _dcache_if(r).map([_DCV.Decode(), _DCV.RandomHorizontalFlip()],
                                                         input_columns=["image"], cache=_dcache_cache()))
_dcache_refused("random_apply", lambda r: _dcache_decode(_dcache_if(r)).map(
    _DCT.RandomApply([_DCV.Resize((1, 1))]), input_columns=["image"], cache=_dcache_cache()))
_dcache_refused("random_compose", lambda r: _dcache_if(r).map(
    _DCT.Compose([_DCV.Decode(), _DCV.RandomVerticalFlip()]), input_columns=["image"], cache=_dcache_cache()))
_dcache_refused("nested_maps", lambda r: _dcache_decode(_dcache_decode(_dcache_if(r)), cache=_dcache_cache()).map(
    _DCV.Resize((1, 1)), input_columns=["image"], cache=_dcache_cache()))
_dcache_refused("nested_source", lambda r: _dcache_decode(_dcache_if(r, cache=_dcache_cache()), cache=_dcache_cache()))
_dcache_refused("repeat_of_mappable", lambda r: _dcache_decode(_dcache_if(r).repeat(2), cache=_dcache_cache()))
_dcache_refused("generator_source", lambda r: DCDS.GeneratorDataset(lambda: iter([(np.int32(1),)]), ["a"]).map(
    _DCT.TypeCast(np.float32), input_columns=["a"], cache=_dcache_cache()))
_dcache_refused("numpy_slices_source", lambda r: DCDS.NumpySlicesDataset(np.arange(3), shuffle=False).map(
    _DCT.TypeCast(np.float32), cache=_dcache_cache()))

# ---- cached pipelines: the uncached rows, in two epochs ----------------------------------------
_dcache_rows("source", lambda r: _dcache_if(r, cache=_dcache_cache()))
_dcache_rows("source_decode", lambda r: _dcache_if(r, decode=True, cache=_dcache_cache()))
_dcache_rows("source_shuffled", lambda r: _dcache_if(r, shuffle=True, cache=_dcache_cache()), seed=5)
_dcache_rows("source_num_samples", lambda r: _dcache_if(r, num_samples=4, cache=_dcache_cache()))
_dcache_rows("source_shard", lambda r: _dcache_if(r, num_shards=2, shard_id=1, cache=_dcache_cache()))
_dcache_rows("source_sequential_sampler", lambda r: DCDS.ImageFolderDataset(
    r, sampler=DCDS.SequentialSampler(1, 3), cache=_dcache_cache()))
_dcache_rows("source_random_sampler", lambda r: DCDS.ImageFolderDataset(
    r, sampler=DCDS.RandomSampler(replacement=True, num_samples=4), cache=_dcache_cache()), seed=3)
_dcache_rows("source_subset_random_sampler", lambda r: DCDS.ImageFolderDataset(
    r, sampler=DCDS.SubsetRandomSampler([0, 2, 4]), cache=_dcache_cache()), seed=3)
_dcache_rows("source_then_batch", lambda r: _dcache_if(r, decode=True, cache=_dcache_cache()).batch(4))
_dcache_rows("source_then_repeat", lambda r: _dcache_if(r, cache=_dcache_cache()).repeat(2), epochs=1)
_dcache_rows("source_then_random_map", lambda r: _dcache_if(r, cache=_dcache_cache()).map(
    [_DCV.Decode(), _DCV.RandomVerticalFlip(1.0)], input_columns=["image"]))
_dcache_rows("map", lambda r: _dcache_decode(_dcache_if(r), cache=_dcache_cache()))
_dcache_rows("map_shuffled_source", lambda r: _dcache_decode(_dcache_if(r, shuffle=True), cache=_dcache_cache()),
             seed=5)
_dcache_rows("map_python_function", lambda r: _dcache_if(r).map(lambda x: x[:3], input_columns=["image"],
                                                                 cache=_dcache_cache()))
_dcache_rows("map_compose", lambda r: _dcache_if(r).map(_DCT.Compose([_DCV.Decode(), _DCV.Resize((1, 1))]),
                                                        input_columns=["image"], cache=_dcache_cache()))
_dcache_rows("map_over_map_and_rename", lambda r: _dcache_decode(_dcache_if(r).rename(["label"], ["lb"])).map(
    _DCV.Resize((1, 1)), input_columns=["image"], cache=_dcache_cache()))
_dcache_rows("map_over_random_map", lambda r: _dcache_if(r).map([_DCV.Decode(), _DCV.RandomVerticalFlip(1.0)],
                                                                 input_columns=["image"]).map(
    _DCV.Resize((1, 1)), input_columns=["image"], cache=_dcache_cache()))
_dcache_rows("map_over_shuffle", lambda r: _dcache_decode(_dcache_if(r).shuffle(3), cache=_dcache_cache()),
             epochs=1, seed=2)
_dcache_rows("map_then_batch_and_filter", lambda r: _dcache_decode(_dcache_if(r), cache=_dcache_cache()).filter(
    lambda lb: lb == 1, input_columns=["label"]).batch(2))


@case("dataset.DatasetCache", "dataset.CSVDataset", **_dcache_PIPE)
def dcache_csv_map_rows():
    """A file source under a cached map: the rows as a set (MindSpore's server returns them in the
    order its reader threads deliver them)."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "a.csv")
        with open(path, "w") as f:
            f.write("".join(f"{i},{10 * i}\n" for i in range(8)))
        d = DCDS.CSVDataset(path, column_names=["a", "b"], column_defaults=[0, 0], shuffle=False).map(
            _DCT.TypeCast(np.float32), input_columns=["a"], cache=_dcache_cache())
        return [sorted((float(a), int(b)) for a, b in rows) for rows in _dcache_epochs(d)]


@case("dataset.DatasetCache", "dataset.serialize", **_dcache_PIPE)
def dcache_serialize():
    """serialize writes a source's and a map's cache with the client's defaults (the session id,
    which MindSpore's server draws, written as 0 here)."""
    import json
    import os

    def run(root):
        root = os.path.realpath(root)
        d = _dcache_decode(DCDS.ImageFolderDataset(root, shuffle=False, cache=_dcache_cache()),
                           cache=DCDS.DatasetCache(session_id=_dcache_session(), size=8, port=50052))
        tree = DCDS.serialize(d)
        for node in (tree, tree["children"][0]):
            node["cache"]["session_id"] = 0
        return json.dumps(tree, sort_keys=True).replace(root, "<root>")
    return _dcache_folder(run)
