"""The conformance table: mindspore.dataset.text's SentencePiece names - SentencePieceVocab
(from_dataset, from_file, save_model), SentencePieceTokenizer (STRING / INT output, a vocab or a
model file), the enums SentencePieceModel, SPieceTokenizerLoadType and SPieceTokenizerOutType -
eagerly and in a pipeline, and MindSpore's argument and pipeline errors (class and words). Ids
start with ``spm_``. All run on the host (the pipeline, not graph code).

The corpus is `_SPM_CORPUS` below (30 English lines, 5 Chinese). MindSpore trains with the
SentencePiece 0.1.92 built into its wheel, pycompile with the `sentencepiece` package (>= 0.2):
BPE, CHAR and WORD models come out the same, UNIGRAM models do not (0.1.99 rewrote the unigram
trainer: see src/pycompile/dataset/text/_sentencepiece.py). So the UNIGRAM-trained tokens are
recorded but not compared (`oracle_bug`), their trainer-independent properties are compared, and
UNIGRAM tokenization is compared on a model the wheel trained and saved:
data/text_spm_unigram.model.xz, written with

    vocab = SentencePieceVocab.from_dataset(ds.NumpySlicesDataset(_SPM_CORPUS, column_names=["text"],
        shuffle=False), ["text"], 120, 0.9995, SentencePieceModel.UNIGRAM, {})
    SentencePieceVocab.save_model(vocab, dir, "text_spm_unigram.model")       # then xz -9

tests/dataset/test_sentencepiece.py checks what the table cannot show (worker processes, the error
without the package, pickling)."""
group("text_spm")

_SPM_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
_SPM_T = ms.dataset.text
_SPM_DS = ms.dataset
_SPM_NAMES = ("dataset.text.SentencePieceVocab", "dataset.text.SentencePieceTokenizer",
              "dataset.text.SentencePieceModel", "dataset.text.SPieceTokenizerOutType")

_SPM_CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "A journey of a thousand miles begins with a single step.",
    "To be or not to be, that is the question.",
    "All that glitters is not gold.",
    "The early bird catches the worm.",
    "Actions speak louder than words.",
    "Knowledge is power, and power corrupts.",
    "Where there is a will, there is a way.",
    "The pen is mightier than the sword.",
    "Practice makes perfect, they say.",
    "Time flies like an arrow; fruit flies like a banana.",
    "Every cloud has a silver lining.",
    "Fortune favours the bold and the brave.",
    "Rome was not built in a day.",
    "When in Rome, do as the Romans do.",
    "Better late than never, but never late is better.",
    "The best things in life are free.",
    "Beauty is in the eye of the beholder.",
    "Necessity is the mother of invention.",
    "Birds of a feather flock together.",
    "Don't count your chickens before they hatch.",
    "Two wrongs don't make a right.",
    "Honesty is the best policy.",
    "The squeaky wheel gets the grease.",
    "You can't judge a book by its cover.",
    "Hope for the best, prepare for the worst.",
    "Laughter is the best medicine.",
    "Slow and steady wins the race.",
    "Today is Tuesday and tomorrow is Wednesday.",
    "Machine learning models learn patterns from data.",
    "今天天气很好，我们去公园散步。",
    "我喜欢学习机器学习和深度学习。",
    "北京是中国的首都。",
    "他们在图书馆里读书。",
    "学习使人进步，骄傲使人落后。",
]
# sentences not in the corpus: unseen words, characters the model lacks, NFKC, whitespace runs, empty
_SPM_PROBES = ["Hello world, today is Tuesday.", "我喜欢北京。", "", "   ", "Ωμέγα zzz 😀",
               "ＡＢＣ１２３  multiple   spaces ", "a\tb\nc", "Machine-learning is the best policy!"]


def _spm_out(a):
    """An output array as (dtype, shape, values): string arrays are not tensors to the table."""
    a = np.asarray(a)
    return a.dtype.str, list(a.shape), a.tolist()


def _spm_error(fn, root=None):
    """The exception's class and MindSpore's own words; a temporary directory's path is written <tmp>."""
    return error_words(fn, [(root, "<tmp>")] if root else ())


def _spm_lines_ds(lines=None, column="text"):
    return _SPM_DS.NumpySlicesDataset(list(lines or _SPM_CORPUS), column_names=[column], shuffle=False)


def _spm_with_corpus(fn):
    """fn(root, path of the corpus as a text file) in a temporary directory."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "corpus.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(_SPM_CORPUS) + "\n")
        return fn(root, path)


def _spm_vocab(model, source="ds", size=100, params=None):
    """A vocab trained on the corpus by from_dataset ("ds") or from_file ("file")."""
    model = getattr(_SPM_T.SentencePieceModel, model)
    if source == "ds":
        return _SPM_T.SentencePieceVocab.from_dataset(_spm_lines_ds(), ["text"], size, 0.9995, model, params or {})
    return _spm_with_corpus(lambda root, path: _SPM_T.SentencePieceVocab.from_file(
        [path], size, 0.9995, model, params or {}))


def _spm_tokenize(mode, sentences=None):
    """Every sentence through a STRING and an INT tokenizer of `mode`."""
    out_type = _SPM_T.SPieceTokenizerOutType
    as_str, as_int = _SPM_T.SentencePieceTokenizer(mode, out_type.STRING), _SPM_T.SentencePieceTokenizer(
        mode, out_type.INT)
    return [(_spm_out(as_str(s)), _spm_out(as_int(s))) for s in (sentences or _SPM_CORPUS + _SPM_PROBES)]


def _spm_add(name, fn, names=_SPM_NAMES, **kw):
    add(f"spm_{name}", names, fn, **_SPM_PIPE, **kw)


# ---- the enums ------------------------------------------------------------------------------------------
@case("dataset.text.SentencePieceModel", "dataset.text.SPieceTokenizerLoadType",
      "dataset.text.SPieceTokenizerOutType", **_SPM_PIPE)
def spm_enums():
    import enum
    out = []
    for cls in (_SPM_T.SentencePieceModel, _SPM_T.SPieceTokenizerLoadType, _SPM_T.SPieceTokenizerOutType):
        out.append((cls.__name__, issubclass(cls, enum.IntEnum), [(m.name, int(m), repr(m)) for m in cls]))
    return out


# ---- training, then tokenizing: BPE, CHAR and WORD models are the same ----------------------------------
_SPM_UNIGRAM_BUG = ("MindSpore trains with SentencePiece 0.1.92, whose unigram trainer 0.1.99 rewrote (seed "
                    "pieces; pruning used alternatives.size() for every piece's loss): pycompile's sentencepiece "
                    ">= 0.2 keeps other pieces for the same corpus, so UNIGRAM-trained tokens differ")
for _spm_model in ("BPE", "CHAR", "WORD", "UNIGRAM"):
    for _spm_source in ("ds", "file"):
        _spm_add(f"train_{_spm_model.lower()}_{_spm_source}",
                 lambda m=_spm_model, s=_spm_source: _spm_tokenize(_spm_vocab(m, s)),
                 oracle_bug=_SPM_UNIGRAM_BUG if _spm_model == "UNIGRAM" else "")


def _spm_unigram_properties(vocab, size=100):
    """What any unigram trainer keeps: the text the pieces spell, one id per piece, ids below the
    vocab size, and which pieces are unknown (id 0: characters outside the model)."""
    out_type = _SPM_T.SPieceTokenizerOutType
    as_str = _SPM_T.SentencePieceTokenizer(vocab, out_type.STRING)
    as_int = _SPM_T.SentencePieceTokenizer(vocab, out_type.INT)
    out = []
    for s in _SPM_CORPUS + _SPM_PROBES:
        pieces, ids = as_str(s), as_int(s)
        out.append(("".join(pieces.tolist()), pieces.dtype.kind, ids.dtype.str, len(pieces) == len(ids),
                    bool((ids < size).all()), [p for p, i in zip(pieces.tolist(), ids.tolist()) if i == 0]))
    return out


_spm_add("train_unigram_properties_ds", lambda: _spm_unigram_properties(_spm_vocab("UNIGRAM", "ds")))
_spm_add("train_unigram_properties_file", lambda: _spm_unigram_properties(_spm_vocab("UNIGRAM", "file")))


def _spm_unigram_model(fn):
    """fn(path) of the UNIGRAM model the wheel trained on the corpus and saved (see the docstring)."""
    import lzma
    import os
    import tempfile
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "text_spm_unigram.model.xz")
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "unigram.model")
        with open(here, "rb") as src, open(path, "wb") as dst:
            dst.write(lzma.decompress(src.read()))
        return fn(path)


_spm_add("unigram_model_file", lambda: _spm_unigram_model(_spm_tokenize))


def _spm_params():
    vocab = _spm_vocab("BPE", params={"max_sentencepiece_length": "2", "split_by_whitespace": "false"})
    ignored = _spm_vocab("BPE", params={"vocab_size": "50", "model_type": "CHAR", "input": "x", "model_prefix": "m",
                                        "character_coverage": "0.5", "minloglevel": "0"})
    return _spm_tokenize(vocab, _SPM_PROBES), _spm_tokenize(ignored, _SPM_PROBES)


_spm_add("params", _spm_params)


def _spm_columns():
    """col_names[0] is the column trained on; an empty list means "text"; a tuple is taken."""
    two = _SPM_DS.NumpySlicesDataset((_SPM_CORPUS, [s.upper() for s in _SPM_CORPUS]), column_names=["a", "b"],
                                     shuffle=False)
    model = _SPM_T.SentencePieceModel.BPE
    first_b = _SPM_T.SentencePieceVocab.from_dataset(two, ["b", "a"], 100, 0.9995, model, {})
    empty = _SPM_T.SentencePieceVocab.from_dataset(_spm_lines_ds(), [], 100, 0.9995, model, {})
    as_tuple = _SPM_T.SentencePieceVocab.from_dataset(_spm_lines_ds(), ("text",), 100, 0.9995, model, {})
    probes = _SPM_PROBES[:2]
    return _spm_tokenize(first_b, probes), _spm_tokenize(empty, probes), _spm_tokenize(as_tuple, probes)


_spm_add("col_names", _spm_columns)


def _spm_pipelines_in():
    """A shuffled, repeated pipeline and a TextFileDataset as the corpus (every row is read)."""
    model = _SPM_T.SentencePieceModel.BPE
    probes = _SPM_PROBES[:2]
    shuffled = _SPM_DS.NumpySlicesDataset(_SPM_CORPUS, column_names=["text"], shuffle=True)
    repeated = _spm_lines_ds(_SPM_CORPUS[:20]).repeat(2)
    out = [_spm_tokenize(_SPM_T.SentencePieceVocab.from_dataset(d, ["text"], 100, 0.9995, model, {}), probes)
           for d in (shuffled, repeated)]
    out.append(_spm_with_corpus(lambda root, path: _spm_tokenize(_SPM_T.SentencePieceVocab.from_dataset(
        _SPM_DS.TextFileDataset(path, shuffle=False), ["text"], 100, 0.9995, model, {}), probes)))
    return out


_spm_add("from_dataset_pipelines", _spm_pipelines_in,
         names=_SPM_NAMES + ("dataset.TextFileDataset", "dataset.NumpySlicesDataset"))


# ---- save_model -------------------------------------------------------------------------------------------
def _spm_save():
    """save_model writes path/filename (mode 0o600); a tokenizer reads it back as the vocab tokenizes;
    a filename in a missing folder is not written, without an error."""
    import os
    import tempfile
    vocab = _spm_vocab("BPE")
    with tempfile.TemporaryDirectory() as root:
        _SPM_T.SentencePieceVocab.save_model(vocab, root, "m.model")
        _SPM_T.SentencePieceVocab.save_model(vocab=vocab, path=root + "/", filename="k.model")
        _SPM_T.SentencePieceVocab.save_model(vocab, root, "sub/x.model")
        mode = oct(os.stat(os.path.join(root, "m.model")).st_mode & 0o777)
        from_file = _spm_tokenize(os.path.join(root, "m.model"))
        return sorted(os.listdir(root)), mode, from_file, from_file == _spm_tokenize(vocab)


_spm_add("save_model", _spm_save)


# ---- eagerly: inputs and outputs --------------------------------------------------------------------------
def _spm_eager_inputs():
    vocab = _spm_vocab("BPE")
    out_type = _SPM_T.SPieceTokenizerOutType
    as_str = _SPM_T.SentencePieceTokenizer(vocab, out_type.STRING)
    as_int = _SPM_T.SentencePieceTokenizer(mode=vocab, out_type=out_type.INT)
    s = "Hello world"
    results = [_spm_out(as_str(np.array(s))), _spm_out(as_int(np.array(s))), _spm_out(as_str(np.str_(s)))]
    for bad in (np.array(s.encode()), s.encode(), [s], [s, s], np.array([s, s]), np.array([[s]]), np.array(3), 3,
                Tensor(np.array([1, 2], np.int32))):
        results.append(_spm_error(lambda b=bad: as_str(b)))
    results.append(_spm_error(lambda: as_int(np.array([s]))))
    results.append(_spm_error(lambda: as_str(s, s)))
    results.append(_spm_error(lambda: as_str(np.array(s, dtype=object))))
    return results


_spm_add("eager_inputs", _spm_eager_inputs, names=_SPM_NAMES + ("Tensor.asnumpy",))


# ---- in a pipeline ------------------------------------------------------------------------------------------
def _spm_pipeline(out, numpy=True):
    vocab = _spm_vocab("BPE")
    tok = _SPM_T.SentencePieceTokenizer(vocab, getattr(_SPM_T.SPieceTokenizerOutType, out))
    rows = _spm_lines_ds(_SPM_PROBES[:3] + _SPM_CORPUS[:3]).map(tok, input_columns=["text"])
    if numpy:
        return [[_spm_out(c) for c in r] for r in rows.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    return [[(type(c).__name__, str(c.dtype), list(c.shape)) for c in r]
            for r in rows.create_tuple_iterator(num_epochs=1)]


for _spm_o in ("STRING", "INT"):
    _spm_add(f"pipeline_{_spm_o.lower()}", lambda o=_spm_o: _spm_pipeline(o),
             names=_SPM_NAMES + ("dataset.NumpySlicesDataset",))
    _spm_add(f"pipeline_{_spm_o.lower()}_tensors", lambda o=_spm_o: _spm_pipeline(o, numpy=False),
             names=_SPM_NAMES + ("dataset.NumpySlicesDataset",))


def _spm_pipeline_chain():
    """The pieces looked up in a Vocab (unknown -> "▁"'s id), in one map."""
    tok = _SPM_T.SentencePieceTokenizer(_spm_vocab("BPE"), _SPM_T.SPieceTokenizerOutType.STRING)
    lookup = _SPM_T.Lookup(_SPM_T.Vocab.from_list(["▁", "H", "e", "l"]), "▁")
    rows = _spm_lines_ds(_SPM_PROBES[:2]).map([tok, lookup], input_columns=["text"])
    return [[_spm_out(c) for c in r] for r in rows.create_tuple_iterator(output_numpy=True, num_epochs=1)]


_spm_add("pipeline_then_lookup", _spm_pipeline_chain,
         names=_SPM_NAMES + ("dataset.NumpySlicesDataset", "dataset.text.Lookup", "dataset.text.Vocab"))


def _spm_pipeline_error():
    """A numeric column: the pipeline's error names the failing map operation (MindSpore spells it
    SentencepieceTokenizer there)."""
    tok = _SPM_T.SentencePieceTokenizer(_spm_vocab("BPE"), _SPM_T.SPieceTokenizerOutType.INT)
    rows = _SPM_DS.NumpySlicesDataset(np.arange(3), column_names=["text"], shuffle=False).map(tok)
    return _spm_error(lambda: list(rows.create_tuple_iterator(output_numpy=True, num_epochs=1)))


_spm_add("pipeline_numeric_column", _spm_pipeline_error, names=_SPM_NAMES + ("dataset.NumpySlicesDataset",))


# ---- model files ------------------------------------------------------------------------------------------
def _spm_model_files():
    def run(root, path):
        out_type = _SPM_T.SPieceTokenizerOutType.INT
        tok = _SPM_T.SentencePieceTokenizer
        return [_spm_error(lambda p=p: tok(p, out_type)("a"), root)
                for p in (root + "/missing.model", root, root + "/", path, "")] + [
            _spm_error(lambda: tok(_SPM_T.SentencePieceVocab(), out_type)("a"), root)]
    return _spm_with_corpus(run)


_spm_add("model_file_errors", _spm_model_files)


def _spm_relative_path():
    import os
    import tempfile
    vocab = _spm_vocab("BPE")
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as root:
        _SPM_T.SentencePieceVocab.save_model(vocab, root, "m.model")
        os.chdir(root)
        try:
            tok = _SPM_T.SentencePieceTokenizer("m.model", _SPM_T.SPieceTokenizerOutType.INT)
            said = _spm_error(lambda: tok("Hello"))
            return _spm_out(tok("Hello")) if said == "no error" else said
        finally:
            os.chdir(here)


_spm_add("relative_model_path", _spm_relative_path,
         oracle_bug="the wheel joins a relative model path's folder as '/' (realpath of '' fails): "
                    "'load vocab model file: /m.model failed.'; pycompile reads the file the path names")


# ---- argument errors ---------------------------------------------------------------------------------------
def _spm_tokenizer_args():
    vocab = _spm_vocab("CHAR", size=60)
    out_type, load_type = _SPM_T.SPieceTokenizerOutType, _SPM_T.SPieceTokenizerLoadType
    tok = _SPM_T.SentencePieceTokenizer
    calls = [lambda: tok(1, out_type.STRING), lambda: tok(None, out_type.STRING), lambda: tok(vocab, 0),
             lambda: tok(vocab, "string"), lambda: tok(vocab, load_type.FILE), lambda: tok(vocab),
             lambda: tok(vocab, out_type.INT, 1), lambda: tok(vocab, out=out_type.INT)]
    made = tok(mode="/nonexistent/m.model", out_type=out_type.STRING)      # a missing file: an error when used
    return [_spm_error(c) for c in calls], made.out_type == out_type.STRING, made.mode


_spm_add("tokenizer_args", _spm_tokenizer_args)

_SPM_FROM_DATASET = {
    "vocab_none": (["text"], None, 0.9995, "BPE", {}), "vocab_neg": (["text"], -1, 0.9995, "BPE", {}),
    "vocab_0": (["text"], 0, 0.9995, "BPE", {}), "vocab_float": (["text"], 100.0, 0.9995, "BPE", {}),
    "vocab_bool": (["text"], True, 0.9995, "BPE", {}), "vocab_2_32": (["text"], 2 ** 32, 0.9995, "BPE", {}),
    "vocab_2_31": (["text"], 2 ** 31, 0.9995, "BPE", {}), "vocab_np": (["text"], np.int64(100), 0.9995, "BPE", {}),
    "cc_int": (["text"], 100, 1, "BPE", {}), "cc_low": (["text"], 100, 0.5, "BPE", {}),
    "cc_high": (["text"], 100, 1.5, "BPE", {}), "cc_none": (["text"], 100, None, "BPE", {}),
    "cc_np": (["text"], 100, np.float32(0.9995), "BPE", {}), "model_str": (["text"], 100, 0.9995, "bpe", {}),
    "model_int": (["text"], 100, 0.9995, 1, {}), "model_none": (["text"], 100, 0.9995, None, {}),
    "params_list": (["text"], 100, 0.9995, "BPE", []), "params_none": (["text"], 100, 0.9995, "BPE", None),
    "params_int_value": (["text"], 100, 0.9995, "BPE", {"max_sentencepiece_length": 4}),
    "params_unknown": (["text"], 100, 0.9995, "BPE", {"foo": "1"}),
    "params_bad_value": (["text"], 100, 0.9995, "BPE", {"max_sentencepiece_length": "x"}),
    "cols_str": ("text", 100, 0.9995, "BPE", {}), "cols_int": ([1], 100, 0.9995, "BPE", {}),
    "cols_missing": (["nope"], 100, 0.9995, "BPE", {}), "cols_none": (None, 100, 0.9995, "BPE", {}),
    "too_large_bpe": (["text"], 5000, 0.9995, "BPE", {}), "too_large_word": (["text"], 5000, 0.9995, "WORD", {}),
}


def _spm_model_arg(m):
    return getattr(_SPM_T.SentencePieceModel, m) if m in ("BPE", "CHAR", "WORD", "UNIGRAM") else m


for _spm_k, _spm_a in _SPM_FROM_DATASET.items():
    _spm_add(f"from_dataset_{_spm_k}", lambda a=_spm_a: _spm_error(lambda: _SPM_T.SentencePieceVocab.from_dataset(
        _spm_lines_ds(), a[0], a[1], a[2], _spm_model_arg(a[3]), a[4])))


def _spm_from_dataset_more():
    vocab_cls, model = _SPM_T.SentencePieceVocab, _SPM_T.SentencePieceModel.BPE
    numbers = _SPM_DS.NumpySlicesDataset(np.arange(10), column_names=["text"], shuffle=False)
    rows_2d = _SPM_DS.NumpySlicesDataset(np.array([["a b", "c d"]] * 5), column_names=["text"], shuffle=False)
    return [_spm_error(c) for c in (
        lambda: vocab_cls.from_dataset(numbers, ["text"], 100, 0.9995, model, {}),
        lambda: vocab_cls.from_dataset(rows_2d, ["text"], 10, 0.9995, _SPM_T.SentencePieceModel.CHAR, {}),
        lambda: vocab_cls.from_dataset(_spm_lines_ds(column="s"), [], 100, 0.9995, model, {}),
        lambda: vocab_cls.from_dataset(_SPM_CORPUS, ["text"], 100, 0.9995, model, {}),
        lambda: vocab_cls.from_dataset(_spm_lines_ds(), ["text"]),
        lambda: vocab_cls.from_dataset(_spm_lines_ds(), ["text"], 5000, 0.9995, _SPM_T.SentencePieceModel.CHAR, {}),
    )]


_spm_add("from_dataset_more_errors", _spm_from_dataset_more, names=_SPM_NAMES + ("dataset.NumpySlicesDataset",))
_spm_add("from_dataset_too_large_unigram", lambda: _spm_error(lambda: _SPM_T.SentencePieceVocab.from_dataset(
    _spm_lines_ds(), ["text"], 5000, 0.9995, _SPM_T.SentencePieceModel.UNIGRAM, {})), oracle_bug=(
    "the largest vocab a corpus allows comes from the trainer's seed pieces: 241 for this corpus with "
    "SentencePiece 0.1.92's unigram trainer, 233 with pycompile's sentencepiece >= 0.2 (the words are the same)"))

_SPM_FROM_FILE = {
    "path_str": ("<file>", 100, 0.9995, "BPE", {}), "path_tuple": (("<file>",), 100, 0.9995, "BPE", {}),
    "path_none": (None, 100, 0.9995, "BPE", {}), "path_item_int": ([1], 100, 0.9995, "BPE", {}),
    "path_missing": (["/nonexistent/x.txt"], 100, 0.9995, "BPE", {}), "path_empty": ([], 100, 0.9995, "BPE", {}),
    "vocab_none": (["<file>"], None, 0.9995, "BPE", {}), "vocab_neg": (["<file>"], -1, 0.9995, "BPE", {}),
    "vocab_0": (["<file>"], 0, 0.9995, "BPE", {}), "vocab_2_31": (["<file>"], 2 ** 31, 0.9995, "BPE", {}),
    "cc_low": (["<file>"], 100, 0.5, "BPE", {}), "cc_int": (["<file>"], 100, 1, "BPE", {}),
    "cc_none": (["<file>"], 100, None, "BPE", {}), "model_str": (["<file>"], 100, 0.9995, "bpe", {}),
    "model_none": (["<file>"], 100, 0.9995, None, {}), "params_none": (["<file>"], 100, 0.9995, "BPE", None),
    "params_list": (["<file>"], 100, 0.9995, "BPE", []),
    "params_int_value": (["<file>"], 100, 0.9995, "BPE", {"a": 1}),
    "params_unknown": (["<file>"], 100, 0.9995, "BPE", {"foo": "1"}),
    "too_large_bpe": (["<file>"], 5000, 0.9995, "BPE", {}),
    "defaults": (["<file>"],),
}


def _spm_from_file_error(a):
    def run(root, path):
        def fill(v):
            if v == "<file>":
                return path
            if isinstance(v, (list, tuple)):
                return type(v)(fill(x) for x in v)
            return v
        args = [fill(a[0])] + list(a[1:])
        if len(args) > 3:
            args[3] = _spm_model_arg(args[3])
        return _spm_error(lambda: _SPM_T.SentencePieceVocab.from_file(*args), root)
    return _spm_with_corpus(run)


for _spm_k, _spm_a in _SPM_FROM_FILE.items():
    _spm_add(f"from_file_{_spm_k}", lambda a=_spm_a: _spm_from_file_error(a))


def _spm_from_file_two():
    """Two files (the corpus twice) train as their lines together."""
    model = _SPM_T.SentencePieceModel.BPE
    return _spm_with_corpus(lambda root, path: _spm_tokenize(_SPM_T.SentencePieceVocab.from_file(
        [path, path], 100, 0.9995, model, {}), _SPM_PROBES))


_spm_add("from_file_two_files", _spm_from_file_two)


def _spm_save_errors():
    vocab = _spm_vocab("CHAR", size=60)
    save = _SPM_T.SentencePieceVocab.save_model
    return [_spm_error(c) for c in (
        lambda: save(1, "/tmp", "x.model"), lambda: save(vocab, 1, "x.model"), lambda: save(vocab, "/tmp", 1),
        lambda: save(vocab, "/nonexistent/dir", "x.model"), lambda: save(vocab, "/tmp"),
        lambda: save(vocab, "/tmp", None), lambda: save(None, "/tmp", "x.model"))]


_spm_add("save_model_errors", _spm_save_errors)
