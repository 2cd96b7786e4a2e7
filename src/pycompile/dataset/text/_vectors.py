"""Pre-trained word vectors for mindspore.dataset.text (issue 35): Vectors, GloVe, FastText and the
ToVectors lookup, as MindSpore 2.10 reads and looks them up (tests/oracle/data/vectors_data35.json).

A vector file holds one token per line followed by its values (FastText's .vec begins with a
"count dim" line, skipped); GloVe files must be named glove.6B.*.txt and FastText files *.vec, as
MindSpore checks. max_vectors keeps the first ones. ToVectors maps a token (or an array of them) to
its float32 vector, `unk_init` (default zeros) for a token not found; with lower_case_backup the
token is looked up in lower case (what the wheel does).
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
        if max_vectors is not None and (not isinstance(max_vectors, int) or max_vectors < 0):
            raise ValueError(f"Input max_vectors is not within the required interval of [0, 2147483647], but got "
                             f"{max_vectors}.")
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
        return cls(stoi, np.array(rows, np.float32).reshape(len(rows), dim or 0))


class GloVe(Vectors):
    _NAME, _PATTERN = "GloVe", "glove.6B.*.txt"


class FastText(Vectors):
    _NAME, _PATTERN = "FastText", "*.vec"


class ToVectors(TensorOperation):
    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"vectors should be a text.Vectors, GloVe or FastText, but got {type(vectors).__name__}.")
        self.vectors, self.lower_case_backup = vectors, bool(lower_case_backup)
        self.unk = np.zeros(vectors.dim, np.float32) if unk_init is None else np.asarray(unk_init, np.float32)

    def _lookup(self, token):
        token = str(token)
        if self.lower_case_backup:
            token = token.lower()
        k = self.vectors.stoi.get(token)
        return self.unk if k is None else self.vectors.vectors[k]

    def _apply(self, tokens):
        arr = np.asarray(tokens)
        if arr.ndim == 0:
            return self._lookup(arr.item()).copy()
        return np.stack([self._lookup(t) for t in arr.reshape(-1)]).reshape(arr.shape + (self.vectors.dim,))
