"""mindspore.dataset.text, a first real subset: Vocab (from_list / from_dict / from_dataset /
from_file), Lookup, ToNumber, SlidingWindow, Ngram, PythonTokenizer, WhitespaceTokenizer,
UnicodeCharTokenizer and TruncateSequencePair here; AddToken, Truncate, CaseFold, NormalizeUTF8,
RegexReplace, RegexTokenizer, BasicTokenizer, WordpieceTokenizer, BertTokenizer, to_str / to_bytes
in _more.py. Outputs, dtypes and offsets (UTF-8 byte offsets, uint32) are MindSpore 2.10's
(tests/oracle/data/text.json, tests/dataset/fixtures/more_text.json). The rest of MindSpore's text
names raise the "not supported yet" AttributeError.
"""
from __future__ import annotations

import collections
import re

import numpy as np

from pycompile.dataset.text._more import (AddToken, BasicTokenizer, BertTokenizer, CaseFold, JiebaMode,  # noqa: F401
                                          NormalizeForm, NormalizeUTF8, RegexReplace, RegexTokenizer, Truncate,
                                          WordpieceTokenizer, to_bytes, to_str)
from pycompile.dataset.text._vectors import FastText, GloVe, ToVectors, Vectors  # noqa: F401
from pycompile.dataset.text._sentencepiece import (SentencePieceModel, SentencePieceTokenizer,  # noqa: F401
                                                  SentencePieceVocab, SPieceTokenizerLoadType,
                                                  SPieceTokenizerOutType)
from pycompile.dataset.text._charngram import CharNGram  # noqa: F401
from pycompile.dataset.text._script import FilterWikipediaXML, UnicodeScriptTokenizer  # noqa: F401
from pycompile.dataset.text._jieba import JiebaTokenizer  # noqa: F401
from pycompile.dataset.transforms._base import TensorOperation

__all__ = ["Vocab", "Lookup", "ToNumber", "SlidingWindow", "Ngram", "PythonTokenizer", "WhitespaceTokenizer",
           "UnicodeCharTokenizer", "TruncateSequencePair", "AddToken", "Truncate", "CaseFold", "NormalizeForm",
           "NormalizeUTF8", "RegexReplace", "RegexTokenizer", "BasicTokenizer", "WordpieceTokenizer", "BertTokenizer",
           "JiebaMode", "to_str", "to_bytes", "Vectors", "GloVe", "FastText", "ToVectors",
           "SentencePieceVocab", "SentencePieceTokenizer", "SentencePieceModel", "SPieceTokenizerLoadType",
           "SPieceTokenizerOutType", "CharNGram",
           "UnicodeScriptTokenizer", "FilterWikipediaXML", "JiebaTokenizer"]


def _np_type(data_type):
    from pycompile.common import dtype as mstype
    return data_type.np if isinstance(data_type, mstype.DType) else np.dtype(data_type)


class Vocab:
    """Tokens and their ids."""

    def __init__(self, mapping: dict, insert_order=None, from_dict=False):
        self._ids = dict(mapping)
        self._tokens = {i: t for t, i in self._ids.items()}
        # the order MindSpore's C++ map received the words (words, then special tokens): vocab() lists them by it
        self._insert_order = list(insert_order) if insert_order is not None else list(self._ids)
        self._from_dict = from_dict     # the words came in a Python dict, converted to a sized C++ map

    @classmethod
    def _with_specials(cls, words, special_tokens, special_first):
        specials = list(special_tokens or [])
        words = [w for w in dict.fromkeys(words) if w not in specials]
        return cls({t: i for i, t in enumerate(specials + words if special_first else words + specials)},
                   words + specials)

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        if len(set(word_list)) != len(word_list):
            raise ValueError("word_list contains duplicate word.")
        return cls._with_specials(list(word_list), special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        for t, i in word_dict.items():
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"word_dict's ids must be non-negative ints, but '{t}' has {i!r}.")
        return cls(word_dict, from_dict=True)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        with open(file_path, encoding="utf-8") as f:
            words = [(line.split(delimiter)[0] if delimiter else line).strip() for line in f if line.strip()]
        return cls._with_specials(words[:vocab_size] if vocab_size else words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """Words of `columns` by frequency (most frequent first; ties by word)."""
        names = dataset.get_col_names()
        picked = [names.index(c) for c in (columns or names)]
        counts = collections.Counter()
        for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
            for i in picked:
                counts.update(str(w) for w in np.asarray(row[i]).reshape(-1))
        low, high = freq_range or (0, None)
        words = sorted((w for w, c in counts.items() if c >= low and (high is None or c <= high)),
                       key=lambda w: (-counts[w], w))
        return cls._with_specials(words[:top_k] if top_k else words, special_tokens, special_first)

    def vocab(self) -> dict:
        """{word: id} in the order MindSpore lists it (its C++ hash map's order, _hash_order.py)."""
        from pycompile.dataset.text._hash_order import unordered_map_order
        words = self._insert_order
        if self._from_dict:          # pybind11's sized copy of the dict, then inserted into the vocab's map
            words = unordered_map_order(words, reserve=True)
        return {w: self._ids[w] for w in unordered_map_order(words)}

    def tokens_to_ids(self, tokens):
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self._tokens.get(ids, "")
        return [self._tokens.get(int(i), "") for i in ids]


class Lookup(TensorOperation):
    """Tokens -> ids of `vocab` (`unknown_token`'s id for a missing one), as `data_type` (int32)."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"vocab must be a text.Vocab, but got {type(vocab).__name__}.")
        if unknown_token is not None and unknown_token not in vocab.vocab():
            raise ValueError(f"unknown_token '{unknown_token}' is not in the vocab.")
        self.vocab, self.unknown_token = vocab, unknown_token
        self.data_type = np.int32 if data_type is None else _np_type(data_type)

    def _apply(self, tokens):
        ids = self.vocab.vocab()
        out = []
        for t in tokens.reshape(-1):
            t = str(t)
            if t not in ids and self.unknown_token is None:
                raise RuntimeError(f"Lookup: \"{t}\" doesn't exist in vocab and no unknown token is specified.")
            out.append(ids.get(t, ids.get(self.unknown_token)))
        return np.array(out, dtype=self.data_type).reshape(tokens.shape)


class ToNumber(TensorOperation):
    """Strings -> numbers of `data_type`."""

    def __init__(self, data_type):
        self.data_type = _np_type(data_type)

    def _apply(self, strings):
        parse = int if self.data_type.kind in "iu" else float
        out = []
        for s in strings.reshape(-1):
            try:
                out.append(parse(str(s)))
            except ValueError:
                raise RuntimeError(f"ToNumber: it is invalid to convert \"{s}\" to a number.") from None
        return np.array(out, dtype=self.data_type).reshape(strings.shape)


class SlidingWindow(TensorOperation):
    """The windows of `width` along `axis` of a 1-D input, stacked (none if it is shorter)."""

    def __init__(self, width, axis=0):
        if not isinstance(width, int) or width < 1:
            raise ValueError(f"width must be a positive int, but got {width!r}.")
        self.width, self.axis = width, axis

    def _apply(self, x):
        n = x.shape[0] - self.width + 1
        if n <= 0:
            return np.zeros((0,), dtype=x.dtype)
        return np.stack([x[i:i + self.width] for i in range(n)])


class Ngram(TensorOperation):
    """All n-grams (for each n in order) of a 1-D string input, joined by `separator`, after
    padding with left_pad / right_pad (token, count)."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        self.n = [n] if isinstance(n, int) else list(n)
        self.left_pad, self.right_pad, self.separator = left_pad, right_pad, separator

    def _apply(self, tokens):
        words = [self.left_pad[0]] * self.left_pad[1] + [str(t) for t in tokens] + \
            [self.right_pad[0]] * self.right_pad[1]
        out = [self.separator.join(words[i:i + n]) for n in self.n for i in range(len(words) - n + 1)]
        return np.array(out or [""])


class PythonTokenizer(TensorOperation):
    """`tokenizer(str) -> list of str` on a string."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError("tokenizer must be callable.")
        self.tokenizer = tokenizer

    def _apply(self, s):
        return np.array(list(self.tokenizer(str(s))))


def _with_offsets(tokens, spans, with_offsets):
    words = np.array(tokens)
    if not with_offsets:
        return words
    return words, np.array([a for a, _ in spans], np.uint32), np.array([b for _, b in spans], np.uint32)


class WhitespaceTokenizer(TensorOperation):
    """Split a string on whitespace; offsets are UTF-8 byte offsets."""

    def __init__(self, with_offsets=False):
        self.with_offsets = with_offsets

    def _apply(self, s):
        data = str(s).encode("utf-8")
        spans = [(m.start(), m.end()) for m in re.finditer(rb"\S+", data)]
        return _with_offsets([data[a:b].decode("utf-8") for a, b in spans], spans, self.with_offsets)


class UnicodeCharTokenizer(TensorOperation):
    """Split a string into its characters; offsets are UTF-8 byte offsets."""

    def __init__(self, with_offsets=False):
        self.with_offsets = with_offsets

    def _apply(self, s):
        chars, spans, at = list(str(s)), [], 0
        for c in chars:
            n = len(c.encode("utf-8"))
            spans.append((at, at + n))
            at += n
        return _with_offsets(chars, spans, self.with_offsets)


class TruncateSequencePair(TensorOperation):
    """Shorten the longer of two sequences, one element at a time, until both fit max_length."""

    def __init__(self, max_length):
        self.max_length = max_length

    def _apply(self, a, b):
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la], b[:lb]


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("dataset.text", __name__, name)
