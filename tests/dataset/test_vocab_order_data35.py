"""Vocab.vocab() lists the words in MindSpore 2.10's order (its libstdc++ unordered_map's
iteration order; tests/oracle/data/vocab_order.json from record_vocab_order.py), which the
transforms tutorial prints."""
import json
import os

import pytest

import vocab_cases as vc
import pycompile.dataset.text as text

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "vocab_order.json")
with open(_DATA, encoding="utf-8") as _f:
    MS = json.load(_f)


@pytest.mark.parametrize("name", sorted(vc.CASES))
def test_vocab_lists_words_in_mindspores_order(name):
    how, kwargs = vc.CASES[name]
    got = [[w, i] for w, i in getattr(text.Vocab, how)(**kwargs).vocab().items()]
    assert got == MS[name]
