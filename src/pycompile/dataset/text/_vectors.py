"""Pre-trained word vectors for mindspore.dataset.text (issue 35): Vectors, GloVe, FastText and the
ToVectors lookup, as MindSpore 2.10 reads and looks them up (tests/oracle/data/vectors_data35.json).

A vector file holds one token per line followed by its values (FastText's .vec begins with a
"count dim" line, skipped); GloVe files must be named glove.6B.*.txt and FastText files *.vec, as
MindSpore checks. max_vectors keeps the first ones. ToVectors maps a token (or an array of them) to
its float32 vector, `unk_init` (default zeros) for a token not found; with lower_case_backup the
token is looked up in lower case, ASCII letters only (the wheel's C `tolower`). ToVectors asks the
vectors object for each token (`_lookup`), so CharNGram (_charngram.py) can look up n-grams instead.
"""
from __future__ import annotations

import fnmatch
import os

import numpy as np

from pycompile.dataset.transforms._base import TensorOperation

_PIPELINE = "Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n[ERROR] "


class Vectors:
    _NAME, _PATTERN = "Vectors", None

    def __init__(self, stoi, vectors):
        self.stoi, self.vectors = stoi, vectors
        self.dim = vectors.shape[1] if vectors.ndim == 2 else 0

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        from pycompile.dataset.argcheck import check_interval as _interval, type_check as _type_check
        _type_check(file_path, (str,), "file_path")
        if max_vectors is not None:
            _type_check(max_vectors, (int,), "max_vectors")
            _interval(max_vectors, "max_vectors", 0, 2147483647)
        max_vectors = max_vectors or None               # MindSpore reads 0 as no limit
        if not os.path.isfile(file_path):
            raise RuntimeError(f"{_PIPELINE}{cls._NAME}: get real path failed, path: {file_path}")
        if cls._PATTERN and not fnmatch.fnmatch(os.path.basename(file_path), cls._PATTERN):
            raise RuntimeError(f"{_PIPELINE}{cls._NAME}: invalid file, can not find file '{cls._PATTERN}', but got: "
                               f"{file_path}")
        stoi, rows, dim = {}, [], None
        with open(file_path, encoding="utf-8") as f:
            for k, line in enumerate(f):
                parts = line.rstrip("\n").rstrip(" ").split(" ")
                if k == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue                                    # FastText's "count dim" header
                if len(parts) < 2:
                    continue
                if dim is None:
                    dim = len(parts) - 1
                elif len(parts) - 1 != dim:
                    raise RuntimeError(f"{_PIPELINE}{cls._NAME}: all vectors must have the same number of "
                                       f"dimensions, but got dim {len(parts) - 1} while expecting {dim}")
                if max_vectors is not None and len(rows) >= max_vectors:
                    break
                if parts[0] not in stoi:
                    stoi[parts[0]] = len(rows)
                    rows.append([float(v) for v in parts[1:]])
        if not rows:
            raise RuntimeError(f"{_PIPELINE}Vectors: invalid file, file is empty.")
        return cls(stoi, np.array(rows, np.float32).reshape(len(rows), dim or 0))

    def _lookup(self, token: str, unk: np.ndarray) -> np.ndarray:
        k = self.stoi.get(token)
        return unk if k is None else self.vectors[k]


class GloVe(Vectors):
    _NAME, _PATTERN = "GloVe", "glove.6B.*.txt"


class FastText(Vectors):
    _NAME, _PATTERN = "FastText", "*.vec"


class ToVectors(TensorOperation):
    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"vectors should be a text.Vectors, GloVe or FastText, but got {type(vectors).__name__}.")
        from pycompile.dataset.argcheck import type_check as _type_check
        if unk_init is not None:
            _type_check(unk_init, (list, tuple), "unk_init")
            for i, value in enumerate(unk_init):
                _type_check(value, (int, float), f"unk_init[{i}]")
        _type_check(lower_case_backup, (bool,), "lower_case_backup")
        self.vectors, self.lower_case_backup = vectors, lower_case_backup
        self.unk = np.asarray(unk_init or np.zeros(vectors.dim), np.float32)

    def _apply(self, tokens):
        arr = np.asarray(tokens)
        if arr.dtype.kind != "U":
            raise RuntimeError(f"{_PIPELINE}ToVectors: input tensor type should be string.")
        if self.unk.size != self.vectors.dim:
            raise RuntimeError(f"{_PIPELINE}ToVectors: unk_init must be the same length as vectors, but got unk_init: "
                               f"{self.unk.size} and vectors: {self.vectors.dim}")
        words = [t.encode("utf-8").lower().decode("utf-8") if self.lower_case_backup else t
                 for t in arr.reshape(-1).tolist()]
        rows = [self.vectors._lookup(t, self.unk) for t in words]
        # MindSpore's output: one token's vector, else (number of tokens, dim) whatever the input's shape
        return rows[0].copy() if len(rows) == 1 else np.stack(rows)
