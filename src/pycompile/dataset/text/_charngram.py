"""mindspore.dataset.text.CharNGram: character n-gram embeddings (Hashimoto et al.'s charNgram.txt),
read like any vector file (`Vectors.from_file`: one key and its values a line) and looked up through
ToVectors as MindSpore 2.10 does (checked against the wheel in tests/conformance/cases_text_script.py).

A token is the mean of the vectors of its 2-, 3- and 4-grams, keyed "2gram-ab", "3gram-abc" ...
over the token framed by "#BEGIN#" and "#END#" (each counts as one character). MindSpore slices the
token's UTF-8 bytes, not its characters: an n-gram may hold part of a character, and then matches
no key. N-grams not in the file are left out of the mean, and so is any vector equal to the
unknown-token vector (`unk_init`, default zeros) - MindSpore compares each n-gram's vector with it;
with no n-gram left the token gets that unknown vector.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset.text._vectors import Vectors

_BEGIN, _END = b"#BEGIN#", b"#END#"


class CharNGram(Vectors):
    """Character n-gram vectors: `CharNGram.from_file(file_path, max_vectors=None)`, then
    `text.ToVectors(char_n_gram)`."""

    def _lookup(self, token: str, unk: np.ndarray) -> np.ndarray:
        units = [_BEGIN, *(bytes([b]) for b in token.encode("utf-8")), _END]
        found = []
        for n in (2, 3, 4):
            for i in range(len(units) - n + 1):
                # a key is a str (the file is UTF-8); bytes that end inside a character decode to
                # lone surrogates, which no key holds
                key = f"{n}gram-" + b"".join(units[i:i + n]).decode("utf-8", "surrogateescape")
                k = self.stoi.get(key)
                if k is not None and not np.array_equal(self.vectors[k], unk):
                    found.append(self.vectors[k])
        if not found:
            return unk
        # MindSpore sums in float32, n-gram by n-gram, then divides
        total = np.zeros(self.dim, np.float32)
        for v in found:
            total += v
        return total / np.float32(len(found))
