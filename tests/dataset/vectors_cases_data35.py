"""Word-vector cases (stdlib / NumPy only) for tests/oracle/record_vectors_data35.py and
tests/dataset/test_vectors_data35.py: small vector files (a plain one, GloVe's name, FastText's .vec
with its header line), looked up with ToVectors."""
import os

import numpy as np

LINES = ["hello 0.1 0.2 0.3", "world -1 2.5 3", "Hi 4 5 6"]
FILES = {"vectors.txt": LINES, "glove.6B.3d.txt": LINES, "wiki.simple.vec": ["3 3"] + LINES,
         "bad_dims.txt": ["a 1 2 3", "b 1 2"]}
TOKENS = np.array(["hello", "HELLO", "hi", "Hi", "nope"])
# name -> (class, file, from_file kwargs, ToVectors kwargs, input)
CASES = {
    "vectors": ("Vectors", "vectors.txt", {}, {}, "tokens"),
    "vectors_unk": ("Vectors", "vectors.txt", {}, {"unk_init": [9, 9, 9]}, "tokens"),
    "vectors_lower": ("Vectors", "vectors.txt", {}, {"lower_case_backup": True}, "tokens"),
    "vectors_scalar": ("Vectors", "vectors.txt", {}, {}, "world"),
    "vectors_max_2": ("Vectors", "vectors.txt", {"max_vectors": 2}, {}, "tokens"),
    "glove": ("GloVe", "glove.6B.3d.txt", {}, {}, "tokens"),
    "glove_bad_name": ("GloVe", "vectors.txt", {}, {}, "tokens"),
    "fasttext": ("FastText", "wiki.simple.vec", {}, {"unk_init": [1, 2, 3]}, "tokens"),
    "fasttext_bad_name": ("FastText", "vectors.txt", {}, {}, "tokens"),
    "vectors_bad_dims": ("Vectors", "bad_dims.txt", {}, {}, "tokens"),
    "vectors_missing": ("Vectors", "missing.txt", {}, {}, "tokens"),
}


def build(root):
    for name, lines in FILES.items():
        with open(os.path.join(root, name), "w") as f:
            f.write("\n".join(lines) + "\n")


def run(text, root, case):
    cls, fname, load, lookup, inp = CASES[case]
    try:
        vectors = getattr(text, cls).from_file(os.path.join(root, fname), **load)
        out = np.asarray(text.ToVectors(vectors, **lookup)(TOKENS if inp == "tokens" else inp))
        return {"dtype": str(out.dtype), "shape": list(out.shape), "values": out.astype(np.float64).tolist()}
    except Exception as e:  # noqa: BLE001 - the record
        msg = str(e)
        i = msg.find("[ERROR]")
        line = msg[i:].split("\n")[0] if i >= 0 else (msg.strip().splitlines() or [""])[0]
        return {"raises": type(e).__name__, "message": line.replace(root, "<dir>")}
