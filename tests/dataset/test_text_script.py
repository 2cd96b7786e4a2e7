"""UnicodeScriptTokenizer, FilterWikipediaXML and CharNGram: what the conformance table
(tests/conformance/cases_text_script.py, recorded from MindSpore 2.10) cannot show - the ops in
worker processes, the missing `regex` package, the table of late Unicode characters. Expected
values are the wheel's (noted beside each)."""
import sys

import numpy as np
import pytest

import pycompile.dataset as ds
import pycompile.dataset.text as text
from pycompile.dataset.text import _script

_NGRAMS = ("2gram-#BEGIN#h 0.1 0.2 0.3\n2gram-he 1 0 -1\n3gram-hel 0.5 0.5 0.5\n4gram-hell 2 2 2\n"
           "2gram-o#END# -0.5 0.25 1\n")


def _rows(data):
    rows = data.create_tuple_iterator(output_numpy=True, num_epochs=1)
    return [[np.asarray(c).tolist() for c in row] for row in rows]


def test_the_ops_run_in_worker_processes(tmp_path):
    """Each op pickles to a worker (map with python_multiprocessing) and gives the wheel's rows."""
    path = tmp_path / "charNgram.txt"
    path.write_text(_NGRAMS)
    def data():
        return ds.NumpySlicesDataset(["北 京", "Hello World", "hello"], column_names=["text"], shuffle=False)
    ops = [text.UnicodeScriptTokenizer(keep_whitespace=True, with_offsets=True), text.FilterWikipediaXML(),
           text.ToVectors(text.CharNGram.from_file(str(path)), lower_case_backup=True)]
    tokens = data().map(ops[0], input_columns=["text"], output_columns=["t", "s", "e"], num_parallel_workers=2,
                      python_multiprocessing=True)
    assert _rows(tokens) == [[["北", " ", "京"], [0, 3, 4], [3, 4, 7]],            # the wheel's rows
                             [["Hello", " ", "World"], [0, 5, 6], [5, 6, 11]], [["hello"], [0], [5]]]
    cleaned = data().map(ops[1], input_columns=["text"], num_parallel_workers=2, python_multiprocessing=True)
    assert _rows(cleaned) == [[""], ["hello world"], ["hello"]]
    vectors = data().skip(2).map(ops[2], input_columns=["text"], num_parallel_workers=2, python_multiprocessing=True)
    assert np.allclose(_rows(vectors)[0][0], [0.62, 0.59, 0.56])                 # mean of 5 n-grams


def test_without_regex_the_tokenizer_says_what_to_install(monkeypatch):
    _script._script_pattern.cache_clear()
    _script._run_key.cache_clear()
    monkeypatch.setitem(sys.modules, "regex", None)
    try:
        with pytest.raises(ImportError, match=r"pip install regex"):
            text.UnicodeScriptTokenizer()(np.array("a b"))
    finally:
        _script._script_pattern.cache_clear()
        _script._run_key.cache_clear()
    assert text.FilterWikipediaXML()(np.array("A b")).tolist() == "a b"       # needs no regex


def test_characters_newer_than_icu_74_are_unknown():
    """U+1FAE9 (an emoji of Unicode 16) is Unknown to MindSpore's ICU 74, so it is cut from the
    emoji around it; the wheel's tokens and offsets."""
    words, starts, limits = text.UnicodeScriptTokenizer(True, True)(np.array("😀\U0001FAE9😀 a\u1dfcb 𓐠\U00013461"))
    assert words.tolist() == ["😀", "\U0001FAE9", "😀", " ", "a", "\u1dfc", "b", " ", "𓐠", "\U00013461"]
    assert starts.tolist() == [0, 4, 8, 12, 13, 14, 17, 18, 19, 23]
    assert limits.tolist() == [4, 8, 12, 13, 14, 17, 18, 19, 23, 27]


def test_the_late_character_ranges_are_sorted_and_disjoint():
    """_run_key bisects _AFTER_15_1: its ranges must be ordered, non-empty and apart."""
    starts, ends = _script._after_15_1()
    assert all(a <= b for a, b in zip(starts, ends))
    assert all(end < nxt for end, nxt in zip(ends, starts[1:]))


def test_charngram_is_a_vectors_and_keeps_the_first_key(tmp_path):
    """pycompile's CharNGram subclasses Vectors (MindSpore's derives from the C++ Vectors, which
    text.Vectors does not show); a key repeated in the file keeps its first vector (the wheel)."""
    path = tmp_path / "c.txt"
    path.write_text("2gram-ab 1 2 3\n2gram-ab 9 9 9\n")
    c = text.CharNGram.from_file(str(path))
    assert isinstance(c, text.Vectors)
    assert text.ToVectors(c)(np.array("ab")).tolist() == [1, 2, 3]
