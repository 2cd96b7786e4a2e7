"""The conformance table: mindspore.dataset.LSUNDataset on small LSUN folder trees written by the
cases (`<class>_train` / `<class>_val` folders and `test`; 2x2 PNGs made byte for byte here, with
uncompressed deflate blocks so every zlib writes the same file, and one 2x3 JPEG kept as bytes):
the rows (image bytes or decoded, label) and their order for each usage and class choice, the
sampling arguments and samplers, get_dataset_size, and MindSpore's argument and layout errors
(the pipeline's "[ERROR] ..." words, the temporary folder written <root>). Ids start with
``lsun_``. All run on the host (the pipeline, not graph code)."""
group("lsun")

_LSUN_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
_LSUN_DS = ms.dataset
_LSUN_JPEG = (  # a 2x3 JPEG of one colour (60, 120, 180): Pillow, quality 95
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDA"
    "sKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgr/wAARCAAC"
    "AAMDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAACP/EAB"
    "QRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AJmAUA5v/9k=")


def _lsun_png(value, gray=False):
    """A 2x2 PNG, every pixel (value, value + 1, value + 2) (or `value`, gray), its pixels stored
    uncompressed so that the file's bytes are the same under every zlib."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    pixel = bytes([value]) if gray else bytes([value, value + 1, value + 2])
    raw = (b"\0" + pixel * 2) * 2
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 0 if gray else 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))


def _lsun_jpeg():
    import base64
    return base64.b64decode(_LSUN_JPEG)


# folder -> {file name: bytes}: three classes (bedroom, classroom, kitchen), their train / val
# folders, the test folder, and a folder no class names
_LSUN_BASE = {
    "bedroom_train": {"b.png": ("png", 10), "a.png": ("png", 20)},
    "bedroom_val": {"v.png": ("png", 30)},
    "classroom_train": {"x.png": ("png", 40), "y.jpg": ("jpeg",), "w.png": ("png", 50)},
    "classroom_val": {"p.png": ("png", 60), "q.png": ("png", 70)},
    "kitchen_val": {"k.png": ("png", 80)},
    "test": {"t1.png": ("png", 90), "t0.png": ("png", 100)},
    "notes": {"n.png": ("png", 110)},
}


def _lsun_bytes(spec):
    if spec[0] == "jpeg":
        return _lsun_jpeg()
    if spec[0] == "gray":
        return _lsun_png(spec[1], gray=True)
    if spec[0] == "bytes":
        return spec[1]
    return _lsun_png(spec[1])


def _lsun_write(root, layout):
    import os
    for folder, files in layout.items():
        os.makedirs(os.path.join(root, folder), exist_ok=True)
        for name, spec in files.items():
            if spec == "dir":
                os.makedirs(os.path.join(root, folder, name))
            elif folder == ".":
                with open(os.path.join(root, name), "wb") as f:
                    f.write(_lsun_bytes(spec))
            else:
                with open(os.path.join(root, folder, name), "wb") as f:
                    f.write(_lsun_bytes(spec))


def _lsun_error(fn, root):
    """The exception's class and MindSpore's own words: the pipeline's "[ERROR] ..." line, else the
    first line; the temporary folder written <root>."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        lines = str(e).splitlines()
        said = [ln for ln in lines if ln.startswith("[ERROR]")]
        return type(e).__name__, (said or lines or [""])[0].strip().replace(root, "<root>")
    return "no error"


def _lsun_epochs(d, epochs):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    return [[tuple(np.asarray(c) for c in row) for row in it] for _ in range(epochs)]


def _lsun_case(name, kwargs, layout=None, seed=None, epochs=1, where=None):
    """A case: LSUNDataset(root joined with `where`, **kwargs) over `layout` (default _LSUN_BASE): its column
    names, get_dataset_size() and the rows of `epochs` epochs (or the error each gives)."""
    def run():
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            _lsun_write(root, _LSUN_BASE if layout is None else layout)
            before = _LSUN_DS.config.get_seed()
            if seed is not None:
                _LSUN_DS.config.set_seed(seed)
            try:
                made = []
                built = _lsun_error(lambda: made.append(_LSUN_DS.LSUNDataset(
                    root if where is None else os.path.join(root, where), **kwargs)),
                                    root)
                if not made:
                    return built
                d = made[0]
                sizes = []
                size = _lsun_error(lambda: sizes.append(d.get_dataset_size()), root)
                rows = []
                read = _lsun_error(lambda: rows.append(_lsun_epochs(d, epochs)), root)
                return d.get_col_names(), sizes or size, rows or read
            finally:
                _LSUN_DS.config.set_seed(before)
    add(f"lsun_{name}", "dataset.LSUNDataset", run, **_LSUN_PIPE)


# ---- usages, classes, decode ------------------------------------------------------------------
for _lsun_u in ("train", "valid", "test", "all"):
    _lsun_case(f"usage_{_lsun_u}", dict(usage=_lsun_u, shuffle=False))
_lsun_case("usage_default", dict(shuffle=False))
_lsun_case("decode_all", dict(decode=True, shuffle=False))
_lsun_case("decode_test", dict(usage="test", decode=True, shuffle=False))
_lsun_case("decode_gray", dict(usage="train", decode=True, shuffle=False),
           layout={"tower_train": {"g.png": ("gray", 77), "c.png": ("png", 5)}})
_lsun_case("classes_two", dict(classes=["classroom", "bedroom"], shuffle=False))
_lsun_case("classes_one_valid", dict(usage="valid", classes=["kitchen"], shuffle=False))
_lsun_case("classes_empty_list", dict(usage="train", classes=[], shuffle=False))
_lsun_case("classes_repeated", dict(usage="train", classes=["bedroom", "bedroom"], shuffle=False))
_lsun_case("classes_test_ignored", dict(usage="test", classes=["tower"], shuffle=False))
_lsun_case("trailing_slash", dict(usage="valid", shuffle=False), where="")
_lsun_case("any_file_read", dict(usage="train", shuffle=False),
           layout={"bridge_train": {"z.txt": ("bytes", b"not an image"), ".hidden": ("bytes", b"h"),
                                    "m.png": ("png", 3)}})
_lsun_case("names_contain_folder", dict(shuffle=False), layout={
    "bedroom_train": {"a.png": ("png", 1)}, "xbedroom_train_old": {"q.png": ("png", 2)},
    "kitchen_train": {}, "bedroom_train_kitchen_train": {"z.png": ("png", 3)}, ".bedroom_val": {"h.png": ("png", 4)},
    "Bedroom_train": {"u.png": ("png", 5)}})

# ---- sampling ---------------------------------------------------------------------------------
_lsun_case("num_samples", dict(num_samples=3, shuffle=False))
_lsun_case("num_samples_zero", dict(usage="valid", num_samples=0, shuffle=False))
_lsun_case("num_samples_test", dict(usage="test", num_samples=1, shuffle=False))
_lsun_case("shuffle_default_seeded", dict(), seed=7, epochs=2)
_lsun_case("shuffle_true_seeded", dict(usage="train", shuffle=True), seed=123, epochs=2)
_lsun_case("shuffle_num_samples_seeded", dict(num_samples=4, shuffle=True), seed=5)
_lsun_case("shard_0_of_2", dict(num_shards=2, shard_id=0, shuffle=False))
_lsun_case("shard_2_of_3", dict(num_shards=3, shard_id=2, shuffle=False))
_lsun_case("shard_shuffled_seeded", dict(num_shards=2, shard_id=1), seed=11, epochs=2)
_lsun_case("shard_test", dict(usage="test", num_shards=2, shard_id=1, shuffle=False))
_lsun_case("sampler_sequential", dict(sampler=_LSUN_DS.SequentialSampler(2, 4)))
_lsun_case("sampler_subset", dict(sampler=_LSUN_DS.SubsetSampler([7, 0, 3])))
_lsun_case("sampler_list", dict(sampler=[5, 1]))
_lsun_case("sampler_pk", dict(sampler=_LSUN_DS.PKSampler(1)), seed=1)
_lsun_case("sampler_pk_two_shuffled", dict(sampler=_LSUN_DS.PKSampler(2, shuffle=True)), seed=4, epochs=2)
_lsun_case("sampler_distributed", dict(sampler=_LSUN_DS.DistributedSampler(3, 1, shuffle=False)))
_lsun_case("sampler_random_seeded", dict(usage="valid", sampler=_LSUN_DS.RandomSampler()), seed=3, epochs=2)
_lsun_case("sampler_test", dict(usage="test", sampler=_LSUN_DS.SequentialSampler(1)))


@case("dataset.LSUNDataset", **_LSUN_PIPE)
def lsun_pipeline_map_batch():
    """Decoded rows through map and batch; and the class indexing MindSpore reports (none)."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        _lsun_write(root, _LSUN_BASE)
        d = _LSUN_DS.LSUNDataset(root, usage="valid", shuffle=False)
        d = d.map(_LSUN_DS.vision.Decode(), input_columns=["image"]).batch(2, drop_remainder=True)
        rows = [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        return d.get_dataset_size(), rows, sorted(_LSUN_DS.LSUNDataset(root).get_class_indexing().items())


# ---- argument errors --------------------------------------------------------------------------
_LSUN_BAD = {
    "usage_val": dict(usage="val"), "usage_int": dict(usage=3), "usage_empty": dict(usage=""),
    "classes_str": dict(classes="bedroom"), "classes_tuple": dict(classes=("bedroom",)),
    "classes_unknown": dict(classes=["bedroom", "foo"]), "classes_item_int": dict(classes=["bedroom", 3]),
    "decode_int": dict(decode=1), "shuffle_int": dict(shuffle=1),
    "num_samples_negative": dict(num_samples=-1), "num_samples_float": dict(num_samples=1.5),
    "num_samples_bool": dict(num_samples=True),
    "workers_str": dict(num_parallel_workers="2"), "num_shards_alone": dict(num_shards=2),
    "shard_id_alone": dict(shard_id=0), "shard_id_too_big": dict(num_shards=2, shard_id=2),
    "num_shards_zero": dict(num_shards=0, shard_id=0), "shard_id_negative": dict(num_shards=2, shard_id=-1),
    "num_shards_bool": dict(num_shards=True, shard_id=0),
    "sampler_and_shuffle": dict(sampler=_LSUN_DS.SequentialSampler(), shuffle=False),
    "sampler_and_shards": dict(sampler=_LSUN_DS.SequentialSampler(), num_shards=2, shard_id=0),
    "sampler_and_num_samples": dict(sampler=_LSUN_DS.SequentialSampler(), num_samples=2),
}
for _lsun_n, _lsun_kw in _LSUN_BAD.items():
    _lsun_case(f"bad_{_lsun_n}", _lsun_kw)
_lsun_case("bad_dir_missing", dict(), where="nowhere")
_lsun_case("bad_dir_file", dict(), where="test/t0.png")


@case("dataset.LSUNDataset", **_LSUN_PIPE)
def lsun_bad_dir_type():
    return _lsun_error(lambda: _LSUN_DS.LSUNDataset(3), "<none>")


# ---- layout errors: when the rows are counted or read -----------------------------------------
_lsun_case("layout_empty", dict(shuffle=False), layout={})
_lsun_case("layout_nothing_matches", dict(usage="train", classes=["kitchen"], shuffle=False))
_lsun_case("layout_no_test_folder", dict(usage="test", shuffle=False), layout={"bedroom_train": {"a.png": ("png", 1)}})
_lsun_case("layout_empty_test_folder", dict(usage="test", shuffle=False), layout={"test": {}})
_lsun_case("layout_folder_in_class", dict(usage="train", shuffle=False),
           layout={"bedroom_train": {"a.png": ("png", 1), "sub": "dir"}})
_lsun_case("layout_file_named_like_class", dict(usage="train", shuffle=False),
           layout={"bedroom_train": {"a.png": ("png", 1)}, ".": {"classroom_train.zip": ("bytes", b"zip")}})
_lsun_case("layout_broken_image_decode", dict(usage="train", decode=True, shuffle=False),
           layout={"bedroom_train": {"a.png": ("png", 1), "b.png": ("bytes", b"broken")}})
_lsun_case("layout_broken_image_bytes", dict(usage="train", shuffle=False),
           layout={"bedroom_train": {"a.png": ("png", 1), "b.png": ("bytes", b"broken")}})
