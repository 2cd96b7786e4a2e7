"""Text transform cases defined once for tests/oracle/record_text.py (MindSpore's venv) and
tests/dataset/test_text.py: each builds the transform from a `text` module and a dtype module, so
the same code builds MindSpore's or pycompile's."""
import numpy as np


def cases(text, mstype):
    """name -> (transform, inputs tuple)."""
    vocab = text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"], special_first=True)
    return {
        "whitespace": (text.WhitespaceTokenizer(), (np.array("hello  world\tfoo\nbar "),)),
        "whitespace_offsets": (text.WhitespaceTokenizer(with_offsets=True), (np.array("hello world"),)),
        "unicode_char": (text.UnicodeCharTokenizer(), (np.array("h\u00e9llo \u4e16"),)),
        "unicode_char_offsets": (text.UnicodeCharTokenizer(with_offsets=True), (np.array("h\u00e9 \u4e16"),)),
        "python_tokenizer": (text.PythonTokenizer(lambda s: s.split("-")), (np.array("a-b-c"),)),
        "lookup": (text.Lookup(vocab, "<unk>"), (np.array(["a", "zz", "c"]),)),
        "lookup_scalar": (text.Lookup(vocab, "<unk>"), (np.array("b"),)),
        "lookup_int64": (text.Lookup(vocab, "<unk>", mstype.int64), (np.array(["c", "a"]),)),
        "to_number_int32": (text.ToNumber(mstype.int32), (np.array(["1", "22", "-3"]),)),
        "to_number_float32": (text.ToNumber(mstype.float32), (np.array(["1.5", "2", "-0.25"]),)),
        "to_number_bad": (text.ToNumber(mstype.int32), (np.array(["x"]),)),
        "sliding_window": (text.SlidingWindow(2, 0), (np.array([1, 2, 3, 4]),)),
        "sliding_window_too_wide": (text.SlidingWindow(5, 0), (np.array([1, 2, 3, 4]),)),
        "sliding_window_strings": (text.SlidingWindow(3), (np.array(["a", "b", "c", "d"]),)),
        "ngram": (text.Ngram([2, 3]), (np.array(["a", "b", "c", "d"]),)),
        "ngram_pad": (text.Ngram(2, left_pad=("_", 1), right_pad=("-", 1), separator="+"), (np.array(["a", "b", "c"]),)),
        "ngram_too_long": (text.Ngram(4), (np.array(["a", "b"]),)),
        "truncate_pair": (text.TruncateSequencePair(4), (np.array([1, 2, 3]), np.array([4, 5, 6]))),
        "truncate_pair_fits": (text.TruncateSequencePair(5), (np.array([1, 2, 3]), np.array([4, 5]))),
        "truncate_pair_uneven": (text.TruncateSequencePair(3), (np.array([1, 2, 3, 4, 5]), np.array([6]))),
    }


def vocab_cases(text, ds):
    """name -> a Vocab."""
    return {
        "from_list": text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"], special_first=True),
        "from_list_special_last": text.Vocab.from_list(["a", "b"], special_tokens=["<unk>"], special_first=False),
        "from_list_plain": text.Vocab.from_list(["x", "y"]),
        "from_dict": text.Vocab.from_dict({"home": 3, "behind": 2, "the": 4}),
        "from_dataset": text.Vocab.from_dataset(
            ds.NumpySlicesDataset(["b a b", "c b d d"], column_names=["t"], shuffle=False)
            .map(text.WhitespaceTokenizer()), columns=["t"], special_tokens=["<unk>"]),
        "from_dataset_top_k": text.Vocab.from_dataset(
            ds.NumpySlicesDataset(["b a b", "c b d d"], column_names=["t"], shuffle=False)
            .map(text.WhitespaceTokenizer()), columns=["t"], top_k=2, special_tokens=["<pad>"],
            special_first=False),
    }
