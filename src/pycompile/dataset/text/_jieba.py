"""mindspore.dataset.text.JiebaTokenizer: Chinese word segmentation as MindSpore 2.10 does it with
cppjieba (5.1.1), on cppjieba's two model files.

* mp_path, the dictionary: lines `word freq tag` (split at single spaces, exactly three fields).
  A word's weight is log(freq / sum of all freqs); a character that is no word weighs the smallest
  word weight; a user word (add_word / add_dict) weighs log(freq / sum), or the median word weight
  when its freq is None or 0.
* hmm_path, the HMM: after dropping blank lines and `#` comments, one line of 4 start
  log-probabilities, 4 lines of 4 transition log-probabilities, then the emission lines of the
  states B, E, M, S (`char:logprob,char:logprob,...`). States B=0, E=1, M=2, S=3.

The sentence is first cut at the separators space, tab, newline, U+FF0C and U+3002 (each one a
token of its own). Within a piece:

* MP: the maximum-probability path through the DAG of dictionary words (words of up to 512
  characters), computed right to left; among equal weights the shorter word wins.
* HMM: ASCII characters are tokens by themselves, except runs of a letter followed by letters and
  digits, and runs of a digit followed by digits and dots; each run of other characters is cut by
  Viterbi over B/E/M/S (a word ends at E or S), a character without emission probability counting
  -3.14e100.
* MIX: MP, then every run of single-character tokens cut again as HMM does.

Offsets are UTF-8 byte offsets (uint32). An empty sentence gives [""] and empty offsets.

The files are read, and checked as MindSpore checks them, at the first call (MindSpore builds its
operation then), with MindSpore's messages; where the wheel aborts the whole process (a frequency
that is not positive, a missing or malformed emission line) pycompile raises RuntimeError.
"""
from __future__ import annotations

import functools
import inspect
import math
import os
import re

import numpy as np

from pycompile.dataset.text._more import JiebaMode
from pycompile.dataset.transforms._base import TensorOperation

MIN_DOUBLE = -3.14e100          # cppjieba's "impossible" log-probability
MAX_WORD_LENGTH = 512           # the longest dictionary match, in characters
_SEPARATORS = frozenset(" \t\n\uff0c\u3002")
_B, _E, _M, _S = range(4)
_C_SPACE = b" \t\n\v\f\r"       # isspace() in the C locale, what limonp's Trim strips
_SEP = "-" * 66
_OP = "JiebaTokenizer"


def _pipeline_error(message: str) -> RuntimeError:
    from pycompile.dataset.workers import pipeline_error
    return pipeline_error(message)


def _syntax_error(message: str) -> RuntimeError:
    """MindSpore's error for a parameter its C++ layer refuses when it builds the operation."""
    return RuntimeError(f"Syntax error. \n\n{_SEP}\n- Dataset Pipeline Error Message: \n{_SEP}\n[ERROR] {message}\n")


# ---- cppjieba's reading primitives ------------------------------------------------------------
def _split(line: bytes, sep: bytes) -> list:
    """limonp's Split at the one-byte `sep`: no field after a trailing separator, none for b''."""
    fields = line.split(sep)
    if fields[-1] == b"":
        fields.pop()
    return fields


_ATOF = re.compile(rb"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
                   rb"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", re.IGNORECASE)


def _atof(text: bytes) -> float:
    """C's atof: the longest number at the start of `text` (0.0 when there is none)."""
    m = _ATOF.match(text)
    if m is None:
        return 0.0
    number = m.group(1).decode("ascii")
    if "x" in number.lower():
        sign = -1.0 if number.startswith("-") else 1.0
        body = number.lstrip("+-")
        return sign * float.fromhex(body if "p" in body.lower() else body + "p0")
    return float(number)


def _runes(data: bytes):
    """cppjieba's UTF-8 decoding (lead bytes only, continuation bytes not checked); None when a
    lead byte is invalid or a sequence is cut short."""
    out, i, n = [], 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            out.append(b)
            i += 1
            continue
        size = 2 if b <= 0xDF else 3 if b <= 0xEF else 4 if b <= 0xF7 else 0
        if size == 0 or n - i < size:
            return None
        rune = b & (0x1F, 0x0F, 0x07)[size - 2]
        for c in data[i + 1:i + size]:
            rune = (rune << 6) | (c & 0x3F)
        out.append(rune)
        i += size
    return out


def _as_text(runes) -> str | None:
    """The runes as a str; None when one is no Unicode code point (no input can contain it)."""
    if any(r > 0x10FFFF for r in runes):
        return None
    return "".join(map(chr, runes))


def _lines(path: str) -> list:
    """The file's lines as std::getline gives them (no line after a final newline); none when the
    file cannot be read (a directory)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _shown(line: bytes) -> str:
    return line.decode("utf-8", errors="replace")


# ---- the two model files ----------------------------------------------------------------------
class _Dictionary:
    """The MP dictionary: word -> weight, every prefix of a word, and the weights unknown
    characters and default user words get."""

    def __init__(self, path: str):
        entries, freqs = [], []
        for line in _lines(path):
            fields = _split(line, b" ")
            if len(fields) != 3:
                raise _pipeline_error(f"{_OP}: Split result illegal, line: {_shown(line)}")
            runes = _runes(fields[0])
            if runes is None:
                raise _pipeline_error(f"{_OP}: Failed to make node info.")
            freq = _atof(fields[1])
            if not freq > 0:            # cppjieba asserts this (MindSpore's process aborts)
                raise _pipeline_error(f"{_OP}: the frequency of a dictionary word must be positive, line: "
                                      f"{_shown(line)}")
            entries.append(_as_text(runes))
            freqs.append(freq)
        if not entries:
            raise _pipeline_error(f"{_OP}: MPSegment algorithm file format is incorrect.")
        total = 0.0
        for f in freqs:                 # summed in file order, as cppjieba does
            total += f
        weights = [math.log(f / total) for f in freqs]
        self.freq_sum = total
        self.min_weight = min(weights)
        self.median_weight = sorted(weights)[len(weights) // 2]
        self.words, self.prefixes = {}, set()
        for word, w in zip(entries, weights):
            if word:                    # an empty or undecodable word is counted, never matched
                self.words[word] = w    # a repeated word: the later line wins
                self.prefixes.update(word[:k] for k in range(1, len(word) + 1))
        self.longest = max((len(w) for w in self.words), default=0)


def _hmm_line(lines, at: int):
    """cppjieba's GetLine: the next line that is neither blank nor a `#` comment, trimmed."""
    while at < len(lines):
        line = lines[at].strip(_C_SPACE)
        at += 1
        if line and not line.startswith(b"#"):
            return line, at
    return None, at


class _HMMModel:
    """Start, transition and emission log-probabilities of the states B, E, M, S."""

    def __init__(self, path: str):
        lines = _lines(path)
        line, at = _hmm_line(lines, 0)
        fields = _split(line, b" ") if line is not None else []
        if len(fields) != 4:
            raise _pipeline_error(f"{_OP}: The file format of the MPSegment algorithm is incorrect, and the content "
                                  "fails to be obtained when startProb is loaded.")
        self.start = [_atof(f) for f in fields]
        self.trans = []
        for _ in range(4):
            line, at = _hmm_line(lines, at)
            fields = _split(line, b" ") if line is not None else []
            if len(fields) != 4:
                raise _pipeline_error(f"{_OP}: The file format of the MPSegment algorithm is incorrect, and the "
                                      "content fails to be obtained when transProb is loaded.")
            self.trans.append([_atof(f) for f in fields])
        self.emit = []
        for _ in range(4):              # MindSpore checks the first; cppjieba aborts on the others
            line, at = _hmm_line(lines, at)
            probs = self._emission(line) if line is not None else None
            if probs is None:
                raise _pipeline_error(f"{_OP}: HMMSegment algorithm file format is incorrect.")
            self.emit.append(probs)

    @staticmethod
    def _emission(line: bytes):
        probs = {}
        for item in _split(line, b","):
            pair = _split(item, b":")
            runes = _runes(pair[0]) if len(pair) == 2 else None
            if runes is None or len(runes) != 1:
                return None
            char = _as_text(runes)
            if char is not None:
                probs[char] = _atof(pair[1])
        return probs


@functools.lru_cache(maxsize=8)
def _cached(kind, path: str, stamp):
    return kind(path)


def _load(kind, path: str):
    """The model of a file, read once while the file is unchanged (the real dictionary has 350k words)."""
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        return kind(path)
    return _cached(kind, os.path.realpath(path), stamp)


# ---- segmentation -----------------------------------------------------------------------------
class _Segmenter:
    """The dictionary with the user's words over it, and the HMM."""

    def __init__(self, dictionary: _Dictionary, hmm: _HMMModel, user_words):
        self.dict, self.hmm = dictionary, hmm
        self.user, self.user_prefixes = {}, set()
        for word, freq in user_words:
            self._add(word, freq)
        self.longest = min(MAX_WORD_LENGTH, max([dictionary.longest] + [len(w) for w in self.user]))

    def _add(self, word: str, freq: int):
        freq = (freq + 2 ** 31) % 2 ** 32 - 2 ** 31      # MindSpore hands it to cppjieba as a C int
        if freq == 0:
            weight = self.dict.median_weight
        else:
            ratio = freq / self.dict.freq_sum
            weight = math.log(ratio) if ratio > 0 else math.nan
        if word:
            self.user[word] = weight
            self.user_prefixes.update(word[:k] for k in range(1, len(word) + 1))

    def _weight(self, word: str):
        w = self.user.get(word)
        return self.dict.words.get(word) if w is None and word not in self.user else w

    def _is_prefix(self, word: str) -> bool:
        return word in self.dict.prefixes or word in self.user_prefixes

    def cut(self, text: str, mode: JiebaMode) -> list:
        """(start, end) character spans of the tokens of `text`."""
        cut = {JiebaMode.MP: self._mp, JiebaMode.HMM: self._hmm, JiebaMode.MIX: self._mix}[mode]
        spans, start = [], 0
        for i, c in enumerate(text):                   # cppjieba's PreFilter
            if c in _SEPARATORS:
                if start < i:
                    spans.extend(cut(text, start, i))
                spans.extend(cut(text, i, i + 1))
                start = i + 1
        if start < len(text):
            spans.extend(cut(text, start, len(text)))
        return spans

    def _mp(self, text: str, lo: int, hi: int) -> list:
        n = hi - lo
        best = [0.0] * (n + 1)          # best[i]: the weight of text[lo + i:hi]; best[n] = 0
        length = [1] * n
        min_weight = self.dict.min_weight
        for i in range(n - 1, -1, -1):
            at = lo + i
            first = self._weight(text[at])
            val = (best[i + 1] if i + 1 < n else 0.0) + (first if first is not None else min_weight)
            top, size = MIN_DOUBLE, 1
            if val > top:
                top = val
            for j in range(at + 2, min(hi, at + self.longest) + 1):
                word = text[at:j]
                if not self._is_prefix(word):
                    break
                w = self._weight(word)
                if w is not None:
                    val = (best[j - lo] if j - lo < n else 0.0) + w
                    if val > top:
                        top, size = val, j - at
            best[i], length[i] = top, size
        spans, i = [], 0
        while i < n:
            spans.append((lo + i, lo + i + length[i]))
            i += length[i]
        return spans

    def _hmm(self, text: str, lo: int, hi: int) -> list:
        spans, left, right = [], lo, lo
        while right < hi:
            if ord(text[right]) >= 0x80:
                right += 1
                continue
            if left < right:
                spans.extend(self._viterbi(text, left, right))
            left = right
            right = _ascii_run(text, left, hi)
            spans.append((left, right))
            left = right
        if left < right:
            spans.extend(self._viterbi(text, left, right))
        return spans

    def _mix(self, text: str, lo: int, hi: int) -> list:
        spans, run = [], None           # run: the start of the current run of single characters
        for a, b in self._mp(text, lo, hi):
            if b - a == 1:
                run = a if run is None else run
                continue
            if run is not None:
                spans.extend(self._hmm(text, run, a))
                run = None
            spans.append((a, b))
        if run is not None:
            spans.extend(self._hmm(text, run, hi))
        return spans

    def _viterbi(self, text: str, lo: int, hi: int) -> list:
        hmm = self.hmm
        emit, trans = hmm.emit, hmm.trans
        chars = text[lo:hi]
        weight = [[hmm.start[y] + emit[y].get(chars[0], MIN_DOUBLE) for y in range(4)]]
        paths = [[-1] * 4]
        for c in chars[1:]:
            prev, row, back = weight[-1], [], []
            for y in range(4):
                e = emit[y].get(c, MIN_DOUBLE)
                top, came = MIN_DOUBLE, _E
                for p in range(4):
                    tmp = prev[p] + trans[p][y] + e
                    if tmp > top:
                        top, came = tmp, p
                row.append(top)
                back.append(came)
            weight.append(row)
            paths.append(back)
        state = _E if weight[-1][_E] >= weight[-1][_S] else _S
        states = [0] * len(chars)
        for x in range(len(chars) - 1, -1, -1):
            states[x] = state
            state = paths[x][state]
        spans, left = [], lo
        for x, s in enumerate(states):
            if s in (_E, _S):
                spans.append((left, lo + x + 1))
                left = lo + x + 1
        return spans


def _ascii_run(text: str, at: int, hi: int) -> int:
    """The end of the ASCII token at `at`: a letter then letters and digits, a digit then digits and
    dots, else the one character."""
    c = text[at]
    if c.isascii() and c.isalpha():
        end = at + 1
        while end < hi and text[end].isascii() and (text[end].isalpha() or text[end].isdigit()):
            end += 1
        return end
    if "0" <= c <= "9":
        end = at + 1
        while end < hi and ("0" <= text[end] <= "9" or text[end] == "."):
            end += 1
        return end
    return at + 1


# ---- the transform ----------------------------------------------------------------------------
def _bound(method):
    """MindSpore binds the arguments to the signature first: its TypeErrors for missing or extra
    arguments."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(str(e)) from None
        return method(self, *args, **kwargs)
    return wrapper


def _check_freq(freq) -> None:
    """MindSpore's check_uint32 (its argument name left empty)."""
    if isinstance(freq, bool):
        raise TypeError(f"Argument  with value {freq} is not of type (<class 'int'>,), but got {type(freq)}.")
    if not isinstance(freq, int):
        raise TypeError(f"Argument  with value {freq} is not of type [<class 'int'>], but got {type(freq)}.")
    if not 0 <= freq <= 4294967295:
        raise ValueError("Input is not within the required interval of [0, 4294967295].")


_USER_LINE = re.compile(r"^\s*([^\s*]+?)\s*([0-9]+)?\s*$")


class JiebaTokenizer(TensorOperation):
    """Chinese word segmentation with cppjieba's dictionary (`mp_path`) and HMM (`hmm_path`)
    files, in `mode` MIX (default), MP or HMM; with_offsets adds the tokens' UTF-8 byte offsets."""

    @_bound
    def __init__(self, hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False):
        for name, path, what in (("hmm_path", hmm_path, "HMMSegment"), ("mp_path", mp_path, "MPSegment")):
            if path is None:
                raise ValueError(f"The dict of {what} in cppjieba is not provided.")
            if not isinstance(path, str):
                raise TypeError(f"Wrong input type for {name}, should be string.")
        if not isinstance(with_offsets, bool):
            raise TypeError("Wrong input type for with_offsets, should be boolean.")
        if not isinstance(mode, JiebaMode):
            raise TypeError("Wrong input type for mode, should be JiebaMode.")
        for path in (hmm_path, mp_path):
            if not os.path.exists(os.path.realpath(path)):
                raise ValueError(f" jieba mode file {path} is not exist.")
        self.mode, self.hmm_path, self.mp_path, self.with_offsets = mode, hmm_path, mp_path, with_offsets
        self.words = []
        self._segmenter = None

    @_bound
    def add_word(self, word, freq=None):
        """Add `word` (weight log(freq / total frequency); the median word weight when freq is None)."""
        if word is None:
            raise ValueError("word is not provided.")
        if freq is not None:
            _check_freq(freq)
        self.words.append((word, 0 if freq is None else freq))
        self._segmenter = None

    @_bound
    def add_dict(self, user_dict):
        """Add the words of a {word: freq} dict, or of a file of `word [freq]` lines (others skipped)."""
        if isinstance(user_dict, str):
            for word, freq in self._read_user_dict(user_dict):
                self.add_word(word, 0 if freq is None else int(freq))
        elif isinstance(user_dict, dict):
            for word, freq in user_dict.items():
                self.add_word(word, freq)
        else:
            raise TypeError("The type of user_dict must str or dict.")

    @staticmethod
    def _read_user_dict(path: str) -> list:
        if not os.path.exists(path):
            raise ValueError(f"user dict file {path} is not exist.")
        with open(os.path.realpath(path), encoding="utf-8") as f:
            return [m.groups() for m in (_USER_LINE.match(line.strip()) for line in f) if m]

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_segmenter"] = None      # rebuilt from the files where the op runs (worker processes)
        return state

    def _build(self) -> _Segmenter:
        """Read and check the files (MindSpore's order: the paths, then the HMM, then the dictionary)."""
        if self._segmenter is None:
            for word, _ in self.words:      # MindSpore hands the words to its C++ operation first
                if not isinstance(word, str):
                    raise TypeError("add_word(): incompatible function arguments. The following argument types "
                                    "are supported:")
            if not self.hmm_path:
                raise _syntax_error(f"{_OP}: The dict of HMMSegment in cppjieba is not provided.")
            if not self.mp_path:
                raise _syntax_error(f"{_OP}: The dict of MPSegment in cppjieba is not provided.")
            for path in (self.hmm_path, self.mp_path):
                if not os.path.exists(path):
                    raise _syntax_error(f"{_OP}: tokenizer_file: [{path}] is an invalid directory path.")
                if not os.access(path, os.R_OK):
                    raise _syntax_error(f"{_OP}: No access to specified tokenizer path: {path}")
            hmm, dictionary = _load(_HMMModel, self.hmm_path), _load(_Dictionary, self.mp_path)
            self._segmenter = _Segmenter(dictionary, hmm, self.words)
        return self._segmenter

    def __call__(self, *inputs):
        if not inputs:
            raise _pipeline_error("Input Tensor is not valid.")
        segmenter = self._build()
        if len(inputs) != 1:
            raise _pipeline_error("JiebaTokenizerOp: input should be one column data.")
        return self._tokenize(segmenter, inputs[0])

    def _apply(self, x):
        return self._tokenize(self._build(), x)

    def _tokenize(self, segmenter: _Segmenter, x):
        text = _scalar_text(x)
        if text == "":
            tokens = np.array([""])
            return (tokens, np.array([], np.uint32), np.array([], np.uint32)) if self.with_offsets else tokens
        spans = segmenter.cut(text, self.mode)
        tokens = np.array([text[a:b] for a, b in spans])
        if not self.with_offsets:
            return tokens
        at = np.zeros(len(text) + 1, np.int64)
        at[1:] = np.cumsum([len(c.encode("utf-8", "surrogatepass")) for c in text])
        return tokens, at[[a for a, _ in spans]].astype(np.uint32), at[[b for _, b in spans]].astype(np.uint32)


def _scalar_text(x) -> str:
    """The string of a str or a 0-d str array; MindSpore's error for anything else."""
    if isinstance(x, str):
        return str(x)
    if hasattr(x, "asnumpy"):
        x = x.asnumpy()
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind == "U":
        return str(x)
    raise _pipeline_error("JiebaTokenizerOp: the input shape should be scalar and the input datatype should be string.")
