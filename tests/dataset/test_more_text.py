"""AddToken, Truncate, CaseFold, NormalizeUTF8, RegexReplace, RegexTokenizer, BasicTokenizer,
WordpieceTokenizer, BertTokenizer, to_str and to_bytes against MindSpore 2.10
(fixtures/more_text.json, recorded by record_more_text.py from more_text_cases.py): tokens,
dtypes, shapes and UTF-8 byte offsets."""
import json
import os

import numpy as np
import pytest

import pycompile.dataset as ds
import pycompile.dataset.text as text
from more_text_cases import CASES
from oracle_io import encode, run

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "more_text.json"),
          encoding="utf-8") as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name):
    make, x = CASES[name]
    assert run(make, text, x) == RECORDED["cases"][name]


def test_regex_replace_on_an_array_is_elementwise():
    """The wheel's RegexReplace on a string array writes every element's result into the first one
    (["a1b22", "333"] gives ['a#b##', '']); its documentation and its scalar results say
    elementwise, which pycompile follows."""
    out = text.RegexReplace("[0-9]+", "#")(np.array(["a1b22", "333"]))
    scalar = [RECORDED["cases"][n]["outputs"][0]["values"] for n in ("regex_replace_class", "regex_replace_all_digits")]
    assert out.tolist() == scalar == ["a#b#", "#"]


def test_to_str_and_to_bytes():
    assert encode(text.to_str(np.array([b"ab", b"c"]))) == RECORDED["to_str"]
    out = text.to_bytes(np.array(["ab", "\u00e9"]))
    assert [{"values": [v.decode("latin-1") for v in out.tolist()], "dtype": str(out.dtype)}] == RECORDED["to_bytes"]


def test_bert_tokenizer_in_a_pipeline():
    vocab = text.Vocab.from_list(["[UNK]", "hello", "world", "!", "##s", "want"])
    data = ds.NumpySlicesDataset({"s": np.array(["Hello worlds!", "wants"])}, shuffle=False)
    data = data.map([text.BertTokenizer(vocab, lower_case=True), text.Lookup(vocab)], input_columns=["s"])
    assert [r["s"].tolist() for r in data.create_dict_iterator(output_numpy=True)] == [[1, 2, 4, 3], [5, 4]]


def test_a_pattern_python_cannot_compile_is_named():
    with pytest.raises(ValueError, match=r"\\\\p\{Han"):
        text.RegexReplace(r"\p{Han}", "")
