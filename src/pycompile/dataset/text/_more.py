"""More of mindspore.dataset.text: AddToken, Truncate, CaseFold, NormalizeUTF8 (+ NormalizeForm),
RegexReplace, RegexTokenizer, BasicTokenizer, WordpieceTokenizer, BertTokenizer, to_str,
to_bytes, and the JiebaMode enum. Outputs, dtypes and UTF-8 byte offsets (uint32) are MindSpore
2.10's, recorded in tests/dataset/fixtures/more_text.json.

MindSpore runs its patterns through ICU; Python's `re` is used here, which agrees for the usual
classes (\\s, \\w, \\d, alternations, character sets) but not for ICU-only syntax (\\p{...} with
script names, possessive quantifiers): a pattern `re` cannot compile is a ValueError naming it.
"""
from __future__ import annotations

import enum
import re
import unicodedata

import numpy as np

from pycompile.dataset.transforms._base import TensorOperation


def _strings(x):
    """A string array's elements as Python str (bytes decoded as UTF-8)."""
    a = np.asarray(x)
    if a.dtype.kind == "S":
        return np.char.decode(a, "utf-8")
    return a


def _elementwise(fn, x):
    a = _strings(x)
    if a.ndim == 0:
        return np.array(fn(str(a)))
    return np.array([fn(str(s)) for s in a.reshape(-1)]).reshape(a.shape)


def _with_offsets(tokens, spans, with_offsets):
    words = np.array(tokens)
    if not with_offsets:
        return words
    return (words, np.array([a for a, _ in spans], np.uint32), np.array([b for _, b in spans], np.uint32))


def _compile(pattern):
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"The regular expression {pattern!r} is not supported by pycompile's text ops "
                         f"(Python's re: {exc})") from None


class NormalizeForm(enum.IntEnum):
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(enum.IntEnum):
    MIX = 0
    MP = 1
    HMM = 2


def _normalize(s: str, form) -> str:
    return s if form == NormalizeForm.NONE else unicodedata.normalize(form.name, s)


class AddToken(TensorOperation):
    """`token` added before (begin=True) or after the 1-D sequence of strings."""

    def __init__(self, token, begin=True):
        if not isinstance(token, str):
            raise TypeError(f"Argument token with value {token!r} is not of type [<class 'str'>].")
        self.token, self.begin = token, begin

    def _apply(self, x):
        a = _strings(x).reshape(-1).tolist()
        return np.array([self.token, *a] if self.begin else [*a, self.token])


class Truncate(TensorOperation):
    """The last axis cut to `max_seq_len` elements (1-D or 2-D input)."""

    def __init__(self, max_seq_len):
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len <= 0:
            raise ValueError(f"Input max_seq_len is not within the required interval of [1, 2147483647], but got "
                             f"{max_seq_len!r}.")
        self.max_seq_len = max_seq_len

    def _apply(self, x):
        return np.asarray(x)[..., :self.max_seq_len]


class CaseFold(TensorOperation):
    """Unicode case folding (ß -> ss)."""

    def _apply(self, x):
        return _elementwise(str.casefold, x)


class NormalizeUTF8(TensorOperation):
    """Unicode normalization (default NFKC)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError(f"Argument normalize_form with value {normalize_form!r} is not of type "
                            "[<enum 'NormalizeForm'>].")
        self.normalize_form = normalize_form

    def _apply(self, x):
        return _elementwise(lambda s: _normalize(s, self.normalize_form), x)


class RegexReplace(TensorOperation):
    """Matches of `pattern` replaced by `replace` (all, or the first with replace_all=False)."""

    def __init__(self, pattern, replace, replace_all=True):
        self.pattern, self.replace, self.replace_all = pattern, replace, replace_all
        self._re = _compile(pattern)

    def _apply(self, x):
        return _elementwise(lambda s: self._re.sub(lambda m: self.replace, s, count=0 if self.replace_all else 1), x)


class RegexTokenizer(TensorOperation):
    """A string split at matches of `delim_pattern`; delimiters matching `keep_delim_pattern` are
    kept as tokens. Offsets are UTF-8 byte offsets."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        self.delim_pattern, self.keep_delim_pattern, self.with_offsets = delim_pattern, keep_delim_pattern, with_offsets
        self._delim = _compile(delim_pattern)
        self._keep = _compile(keep_delim_pattern) if keep_delim_pattern else None

    def _apply(self, x):
        s = str(_strings(x))
        pieces, at = [], 0
        for m in self._delim.finditer(s):
            if m.start() > at:
                pieces.append((at, m.start()))
            if self._keep is not None and m.end() > m.start() and self._keep.fullmatch(m.group()):
                pieces.append((m.start(), m.end()))
            at = m.end()
        if at < len(s):
            pieces.append((at, len(s)))
        return _tokens_with_byte_offsets(s, pieces, self.with_offsets)


def _tokens_with_byte_offsets(s, pieces, with_offsets):
    starts = np.cumsum([0] + [len(c.encode("utf-8")) for c in s])
    tokens = [s[a:b] for a, b in pieces]
    return _with_offsets(tokens, [(int(starts[a]), int(starts[b])) for a, b in pieces], with_offsets)


_UNUSED = re.compile(r"\[(CLS|SEP|UNK|PAD|MASK|unused\d+)\]")


def _is_punct(c: str) -> bool:
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2A6DF or 0x2A700 <= o <= 0x2B73F
            or 0x2B740 <= o <= 0x2B81F or 0x2B820 <= o <= 0x2CEAF or 0xF900 <= o <= 0xFAFF or 0x2F800 <= o <= 0x2FA1F)


def _is_control(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf")


class BasicTokenizer(TensorOperation):
    """BERT's basic tokenization: whitespace and punctuation splitting, each CJK character a token,
    control characters dropped; `lower_case` folds case and strips accents, else
    `normalization_form` applies; `preserve_unused_token` keeps [CLS], [SEP], [UNK], [PAD], [MASK]
    and [unusedN] whole; `keep_whitespace` keeps whitespace runs as tokens. Offsets are UTF-8 byte
    offsets into the (normalized) input."""

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        self.lower_case, self.keep_whitespace = lower_case, keep_whitespace
        self.normalization_form, self.preserve_unused_token = normalization_form, preserve_unused_token
        self.with_offsets = with_offsets

    def _prepare(self, s: str) -> str:
        if self.lower_case:
            s = "".join(c for c in unicodedata.normalize("NFD", s.casefold()) if unicodedata.category(c) != "Mn")
        else:
            s = _normalize(s, self.normalization_form)
        return s

    def _spans(self, s: str):
        """(start, end) character spans of the tokens of s."""
        protected = []
        if self.preserve_unused_token:
            protected = [(m.start(), m.end()) for m in _UNUSED.finditer(s)]
        out, i, n, p = [], 0, len(s), 0
        word = None
        while i < n:
            if p < len(protected) and protected[p][0] == i:
                if word is not None:
                    out.append((word, i))
                    word = None
                out.append(protected[p])
                i = protected[p][1]
                p += 1
                continue
            c = s[i]
            if c.isspace() or _is_control(c):
                if word is not None:
                    out.append((word, i))
                    word = None
                if c.isspace() and self.keep_whitespace:
                    out.append((i, i + 1))
                i += 1
                continue
            if _is_punct(c) or _is_cjk(c):
                if word is not None:
                    out.append((word, i))
                    word = None
                out.append((i, i + 1))
            elif word is None:
                word = i
            i += 1
        if word is not None:
            out.append((word, n))
        return out

    def _apply(self, x):
        s = self._prepare(str(_strings(x)))
        return _tokens_with_byte_offsets(s, self._spans(s), self.with_offsets)


class WordpieceTokenizer(TensorOperation):
    """Each word split greedily into the longest pieces found in `vocab`, continuation pieces
    prefixed by `suffix_indicator`; a word with no split (or longer than `max_bytes_per_token`
    bytes) becomes `unknown_token` (the word itself when unknown_token is ''). Offsets are UTF-8
    byte offsets within each word."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 with_offsets=False):
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token, self.with_offsets = max_bytes_per_token, unknown_token, with_offsets
        self._words = set(vocab.vocab())

    def _pieces(self, word: str):
        n_bytes = len(word.encode("utf-8"))
        unknown = [(self.unknown_token or word, 0, n_bytes)]
        if n_bytes > self.max_bytes_per_token:
            return unknown
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if piece in self._words:
                    break
                end -= 1
            if end == start:
                return unknown
            a = len(word[:start].encode("utf-8"))
            out.append((piece, a, a + len(word[start:end].encode("utf-8"))))
            start = end
        return out

    def _apply(self, x):
        words = _strings(x).reshape(-1)
        pieces = [p for w in words for p in self._pieces(str(w))]
        tokens = np.array([p[0] for p in pieces])
        if not self.with_offsets:
            return tokens
        return tokens, np.array([p[1] for p in pieces], np.uint32), np.array([p[2] for p in pieces], np.uint32)


class BertTokenizer(TensorOperation):
    """BasicTokenizer then WordpieceTokenizer, with the arguments of both."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]", lower_case=False,
                 keep_whitespace=False, normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        self._basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token, True)
        self._wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token, True)
        self.with_offsets = with_offsets

    def _apply(self, x):
        words, starts, _ = self._basic._apply(x)
        tokens, begins, ends = [], [], []
        for w, at in zip(words.reshape(-1), starts):
            for piece, a, b in self._wordpiece._pieces(str(w)):
                tokens.append(piece)
                begins.append(int(at) + a)
                ends.append(int(at) + b)
        out = np.array(tokens)
        if not self.with_offsets:
            return out
        return out, np.array(begins, np.uint32), np.array(ends, np.uint32)


def to_str(array, encoding="utf8"):
    """A NumPy array of bytes decoded to str."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, got {type(array)}.")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A NumPy array of str encoded to bytes."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, got {type(array)}.")
    return np.char.encode(array, encoding)
