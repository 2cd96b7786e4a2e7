"""The conformance table: issue 33's coverage of mindspore.dataset, dataset.transforms and dataset.text
names pycompile had without a recorded case (tools/name_coverage.py). Ids start with ``cov33_d_``.
Datasets are read back with ``create_tuple_iterator(output_numpy=True)``; files are written by the
case into a temporary directory. All run on the host (the pipeline, not graph code)."""
group("cov33_data")

C33DS = ms.dataset
C33TX = ms.dataset.text
C33TF = ms.dataset.transforms
_c33_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")


def _c33_rows(ds, limit=20):
    out = []
    for row in ds.create_tuple_iterator(output_numpy=True, num_epochs=1):
        out.append(tuple(np.asarray(c) for c in row))
        if len(out) >= limit:
            break
    return out


def _c33_map(op, *cols):
    """`op` applied by the pipeline to one row of `cols` (NumPy arrays)."""
    names = [f"c{i}" for i in range(len(cols))]
    ds = C33DS.NumpySlicesDataset({n: [c] for n, c in zip(names, cols)}, shuffle=False)
    return _c33_rows(ds.map(op, input_columns=names[:1]))[0]


# ---- dataset.transforms --------------------------------------------------------------------------------------
_c33_V = np.array([1, 2, 3, 4, 5], np.int32)
for _n, _make, _c33_arr in [
    ("Concatenate", lambda: C33TF.Concatenate(0, np.array([9], np.int32), np.array([7, 8], np.int32)), _c33_V),
    ("Fill", lambda: C33TF.Fill(3), _c33_V), ("Mask", lambda: C33TF.Mask(C33TF.Relational.GE, 3), _c33_V),
    ("OneHot", lambda: C33TF.OneHot(6), np.array(2, np.int32)), ("PadEnd", lambda: C33TF.PadEnd([7], 0), _c33_V),
    ("Slice", lambda: C33TF.Slice(slice(1, 4)), _c33_V), ("TypeCast", lambda: C33TF.TypeCast(ms.float32), _c33_V),
    ("Compose", lambda: C33TF.Compose([C33TF.Fill(2), C33TF.TypeCast(ms.float32)]), _c33_V),
    ("RandomApply", lambda: C33TF.RandomApply([C33TF.Fill(2)], 1.0), _c33_V),
    ("RandomChoice", lambda: C33TF.RandomChoice([C33TF.Fill(4)]), _c33_V),
    ("RandomOrder", lambda: C33TF.RandomOrder([C33TF.Fill(4)]), _c33_V),
]:
    add(f"cov33_d_tf_{_n}", f"dataset.transforms.{_n}", (lambda m, d: lambda: _c33_map(m(), d))(_make, _c33_arr), **_c33_PIPE)


@case("dataset.transforms.Duplicate", "dataset.transforms.Unique", "dataset.transforms.Relational", **_c33_PIPE)
def cov33_d_tf_duplicate_unique():
    x = np.array([3, 1, 3, 2], np.int32)
    dup = C33TF.Duplicate()(x)
    uni = C33TF.Unique()(x.reshape(2, 2))          # MindSpore takes 2-D and more
    return tuple(np.asarray(u) for u in dup), tuple(np.asarray(u) for u in uni), sorted(m.name for m in C33TF.Relational)


@case("dataset.transforms.not_random", "dataset.vision.not_random", **_c33_PIPE)
def cov33_d_not_random():
    f = C33TF.not_random(lambda x: x)
    g = ms.dataset.vision.not_random(lambda x: x)
    return f(np.array([1], np.int32)), g(np.array([2], np.int32))


# ---- dataset.text -------------------------------------------------------------------------------------------
_c33_TXT = np.array("Hello World  of MindSpore", dtype=np.str_)


def _c33_plain(o):
    """A NumPy array of strings as nested lists of Python str (the table encodes no string arrays)."""
    a = np.asarray(o)
    if a.dtype.kind in "SUO":
        return np.vectorize(lambda v: v.decode() if isinstance(v, bytes) else str(v), otypes=[object])(a).tolist() \
            if a.ndim else str(a)
    return a


def _c33_text(name, make, data=None, many=False):
    def f():
        out = make()(_c33_TXT if data is None else data)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(_c33_plain(o) for o in outs)
    add(f"cov33_d_tx_{name}", f"dataset.text.{name}", f, **_c33_PIPE)


_c33_text("CaseFold", lambda: C33TX.CaseFold())
_c33_text("NormalizeUTF8", lambda: C33TX.NormalizeUTF8(C33TX.NormalizeForm.NFKC), np.array("ｆｕｌｌ①", dtype=np.str_))
_c33_text("NormalizeForm", lambda: (lambda x: np.array(sorted(m.name for m in C33TX.NormalizeForm))))
_c33_text("RegexReplace", lambda: C33TX.RegexReplace("o", "0"))
_c33_text("RegexTokenizer", lambda: C33TX.RegexTokenizer(r"\s+"))
_c33_text("UnicodeCharTokenizer", lambda: C33TX.UnicodeCharTokenizer(), np.array("abc d", dtype=np.str_))
_c33_text("WhitespaceTokenizer", lambda: C33TX.WhitespaceTokenizer(True))
_c33_text("BasicTokenizer", lambda: C33TX.BasicTokenizer(lower_case=True), np.array("Hello, World! 你好", dtype=np.str_))
_c33_text("PythonTokenizer", lambda: C33TX.PythonTokenizer(lambda s: s.split("o")))
_c33_text("AddToken", lambda: C33TX.AddToken("<s>", True), np.array(["a", "b"], dtype=np.str_))
_c33_text("Ngram", lambda: C33TX.Ngram(2), np.array(["a", "b", "c"], dtype=np.str_))
_c33_text("SlidingWindow", lambda: C33TX.SlidingWindow(2, 0), np.array([1, 2, 3, 4], np.int32))
_c33_text("ToNumber", lambda: C33TX.ToNumber(ms.int32), np.array(["12", "-3"], dtype=np.str_))
_c33_text("Truncate", lambda: C33TX.Truncate(2), np.array(["a", "b", "c"], dtype=np.str_))
_c33_text("JiebaMode", lambda: (lambda x: np.array(sorted(m.name for m in C33TX.JiebaMode))))


@case("dataset.text.TruncateSequencePair", **_c33_PIPE)
def cov33_d_tx_truncate_pair():
    a, b = C33TX.TruncateSequencePair(4)(np.array([1, 2, 3], np.int32), np.array([4, 5, 6, 7], np.int32))
    return a, b


_c33_VOCAB = ["[UNK]", "[CLS]", "hello", "world", "wor", "##ld", "mind", "##spore"]


@case("dataset.text.Vocab", "dataset.text.Lookup", "dataset.text.WordpieceTokenizer", "dataset.text.BertTokenizer", **_c33_PIPE)
def cov33_d_tx_vocab():
    v = C33TX.Vocab.from_list(_c33_VOCAB)
    ids = C33TX.Lookup(v, "[UNK]")(np.array(["hello", "xyz", "world"], dtype=np.str_))
    wp = C33TX.WordpieceTokenizer(v)(np.array(["world", "mindspore"], dtype=np.str_))
    bt = C33TX.BertTokenizer(v, lower_case=True)(np.array("Hello MindSpore", dtype=np.str_))
    return ids, _c33_plain(wp), _c33_plain(bt), v.tokens_to_ids(["world", "[CLS]"])


@case("dataset.text.Vectors", "dataset.text.ToVectors", "dataset.text.GloVe", "dataset.text.FastText", **_c33_PIPE)
def cov33_d_tx_vectors():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "glove.6B.3d.txt")
        with open(path, "w") as f:
            f.write("hello 0.1 0.2 0.3\nworld -0.5 0.5 1.0\n")
        v = C33TX.Vectors.from_file(path)
        g = C33TX.GloVe.from_file(path)
        ft_path = os.path.join(d, "w.vec")
        with open(ft_path, "w") as f:
            f.write("2 3\nhello 0.1 0.2 0.3\nworld -0.5 0.5 1.0\n")
        ft = C33TX.FastText.from_file(ft_path)
        words = np.array(["world", "hello", "zzz"], dtype=np.str_)
        return C33TX.ToVectors(v)(words), C33TX.ToVectors(g)(words), C33TX.ToVectors(ft)(words)


@case("dataset.text.to_str", "dataset.text.to_bytes", **_c33_PIPE)
def cov33_d_tx_str_bytes():
    b = C33TX.to_bytes(np.array(["ab", "c"], dtype=np.str_))
    return _c33_plain(C33TX.to_str(b)), [bytes(x).hex() for x in b]


# ---- datasets and samplers ------------------------------------------------------------------------------------
@case("dataset.NumpySlicesDataset", "dataset.GeneratorDataset", "dataset.zip", "dataset.PaddedDataset", **_c33_PIPE)
def cov33_d_basic_datasets():
    a = C33DS.NumpySlicesDataset({"x": np.arange(4, dtype=np.int32)}, shuffle=False)
    g = C33DS.GeneratorDataset(lambda: ((np.array([i * 10], np.int32),) for i in range(4)), ["y"], shuffle=False)
    p = C33DS.PaddedDataset([{"z": np.array([1.5], np.float32)}, {"z": np.array([2.5], np.float32)}])
    return _c33_rows(C33DS.zip((a, g))), _c33_rows(p)


def _c33_sampled(make):
    def f():
        ds = C33DS.NumpySlicesDataset({"x": np.arange(8, dtype=np.int32)}, sampler=make(), shuffle=None)
        return sorted(int(r[0]) for r in _c33_rows(ds))
    return f


for _n, _make in [("SequentialSampler", lambda: C33DS.SequentialSampler(2, 4)), ("SubsetSampler", lambda: C33DS.SubsetSampler([5, 1, 3])),
                  ("DistributedSampler", lambda: C33DS.DistributedSampler(2, 1, shuffle=False)),
                  ("SubsetRandomSampler", lambda: C33DS.SubsetRandomSampler([6, 0, 2])),
                  ("RandomSampler", lambda: C33DS.RandomSampler()),
                  ("WeightedRandomSampler", lambda: C33DS.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0], 3))]:
    add(f"cov33_d_{_n}", f"dataset.{_n}", _c33_sampled(_make), **_c33_PIPE)


@case("dataset.RandomDataset", "dataset.Schema", **_c33_PIPE)
def cov33_d_random_schema():
    s = C33DS.Schema()
    s.add_column("a", ms.int32, [2])
    s.add_column("b", ms.float32, [3])
    rows = _c33_rows(C33DS.RandomDataset(total_rows=3, schema=s))
    return len(rows), [(r[0].shape, str(r[0].dtype), r[1].shape, str(r[1].dtype)) for r in rows]


@case("dataset.DSCallback", **_c33_PIPE)
def cov33_d_ds_callback():
    seen = []

    class CB(C33DS.DSCallback):
        def ds_step_begin(self, ds_run_context):
            seen.append(ds_run_context.cur_step_num)

    ds = C33DS.NumpySlicesDataset({"x": np.arange(3, dtype=np.int32)}, shuffle=False).map(lambda x: x, callbacks=CB())
    _c33_rows(ds)
    return seen


@case("dataset.FakeImageDataset", **_c33_PIPE)
def cov33_d_fake_images():
    rows = _c33_rows(C33DS.FakeImageDataset(4, (6, 5, 3), 3, 0, shuffle=False))
    return [(r[0].shape, str(r[0].dtype), r[1].shape, str(r[1].dtype)) for r in rows]


@case("dataset.CSVDataset", "dataset.TextFileDataset", **_c33_PIPE)
def cov33_d_csv_text():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        c, t = os.path.join(d, "a.csv"), os.path.join(d, "a.txt")
        with open(c, "w") as f:
            f.write("1,2.5,x\n3,4.5,y\n")
        with open(t, "w") as f:
            f.write("first line\nsecond line\n")
        csv = C33DS.CSVDataset(c, column_defaults=[0, 0.0, ""], column_names=["a", "b", "c"], shuffle=False)
        txt = C33DS.TextFileDataset(t, shuffle=False)
        return ([(int(r[0]), float(r[1]), str(r[2])) for r in _c33_rows(csv)],
                [str(np.asarray(r[0]).astype(np.str_)) for r in _c33_rows(txt)])


def _c33_idx(path, arr):
    """An MNIST-format (idx) file."""
    import struct
    code = {np.uint8: 0x08}[arr.dtype.type]
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, code, arr.ndim) + struct.pack(">" + "I" * arr.ndim, *arr.shape) + arr.tobytes())


def _c33_mnist_like(name, make, prefix="train"):
    def f():
        import os
        import tempfile
        imgs = np.random.default_rng(1).integers(0, 256, size=(3, 28, 28)).astype(np.uint8)
        labels = np.array([4, 1, 7], np.uint8)
        with tempfile.TemporaryDirectory() as d:
            _c33_idx(os.path.join(d, f"{prefix}-images-idx3-ubyte"), imgs)
            _c33_idx(os.path.join(d, f"{prefix}-labels-idx1-ubyte"), labels)
            rows = _c33_rows(make(d))
            return [(r[0].shape, str(r[0].dtype), int(r[1]), int(r[0].sum())) for r in rows]
    add(f"cov33_d_{name}", f"dataset.{name}", f, **_c33_PIPE)


_c33_mnist_like("MnistDataset", lambda d: C33DS.MnistDataset(d, shuffle=False))
_c33_mnist_like("FashionMnistDataset", lambda d: C33DS.FashionMnistDataset(d, shuffle=False))
_c33_mnist_like("KMnistDataset", lambda d: C33DS.KMnistDataset(d, shuffle=False))
_c33_mnist_like("EMnistDataset", lambda d: C33DS.EMnistDataset(d, "mnist", shuffle=False), prefix="emnist-mnist-train")


@case("dataset.ImageFolderDataset", "dataset.PKSampler", "dataset.vision.write_file", "dataset.vision.read_file", "dataset.vision.read_image",
      "dataset.vision.write_png", "dataset.vision.write_jpeg", **_c33_PIPE)
def cov33_d_image_folder():
    import os
    import tempfile
    C33V = ms.dataset.vision
    img = np.random.default_rng(4).integers(0, 256, size=(6, 5, 3)).astype(np.uint8)
    with tempfile.TemporaryDirectory() as d:
        for cls in ("cat", "dog"):
            os.makedirs(os.path.join(d, cls))
        C33V.write_png(os.path.join(d, "cat", "a.png"), img)
        png = C33V.read_file(os.path.join(d, "cat", "a.png"))
        C33V.write_file(os.path.join(d, "dog", "b.png"), png)
        C33V.write_jpeg(os.path.join(d, "dog", "c.jpg"), img, 95)
        back = C33V.read_image(os.path.join(d, "dog", "b.png"))
        rows = _c33_rows(C33DS.ImageFolderDataset(d, shuffle=False, decode=True))
        pk = _c33_rows(C33DS.ImageFolderDataset(d, sampler=C33DS.PKSampler(1, shuffle=False), decode=True))
        return (np.asarray(back), sorted(int(r[1]) for r in rows), [r[0].shape for r in rows],
                np.asarray(C33V.read_image(os.path.join(d, "dog", "c.jpg"))).shape)


@case("dataset.vision.MixUp", **_c33_PIPE)
def cov33_d_mixup():
    imgs = np.stack([np.full((4, 4, 3), k * 10, np.uint8) for k in range(2)])
    labels = np.eye(2, dtype=np.float32)
    a, b = ms.dataset.vision.MixUp(2, 1.0)(imgs, labels)
    return np.asarray(a).shape, np.asarray(b).shape
