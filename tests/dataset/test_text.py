"""ds.text against MindSpore 2.10 (tests/oracle/data/text.json, written by
tests/oracle/record_text.py on text_cases.py): each transform's outputs or error, each Vocab's
ids, and a tokenize + lookup pipeline."""
import json
import os

import numpy as np
import pytest

import text_cases
import pycompile.dataset as ds
from pycompile.common import dtype as mstype
from pycompile.dataset import text

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data", "text.json")
with open(_DATA, encoding="utf-8") as _f:
    MS = json.load(_f)


def value(a):
    a = np.asarray(a)
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


@pytest.mark.parametrize("name", sorted(MS["transforms"]))
def test_text_transform_matches_mindspore(name):
    op, inputs = text_cases.cases(text, mstype)[name]
    want = MS["transforms"][name]
    if "error" in want:
        with pytest.raises(Exception) as info:
            op(*inputs)
        assert type(info.value).__name__ == want["error"]["type"]
        assert str(info.value) == want["error"]["message"]
        return
    out = op(*inputs)
    assert [value(o) for o in (out if isinstance(out, tuple) else (out,))] == want


@pytest.mark.parametrize("name", sorted(MS["vocab"]))
def test_vocab_matches_mindspore(name):
    vocab = text_cases.vocab_cases(text, ds)[name]
    want = MS["vocab"][name]
    assert vocab.vocab() == want["vocab"]
    assert vocab.tokens_to_ids(["a", "b", "zz"]) == want["tokens_to_ids"]
    assert vocab.ids_to_tokens([0, 1, 99]) == want["ids_to_tokens"]


def test_tokenize_and_lookup_pipeline():
    vocab = text_cases.vocab_cases(text, ds)["from_list"]
    d = ds.NumpySlicesDataset(["a b zz", "c a"], column_names=["t"], shuffle=False)
    d = d.map(text.WhitespaceTokenizer(), input_columns="t").map(text.Lookup(vocab, "<unk>"), input_columns="t")
    assert [value(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)] == MS["pipeline"]


def test_unsupported_text_names_say_so():
    with pytest.raises(AttributeError, match="not support yet"):
        text.validators             # MindSpore's internal argument-check module
