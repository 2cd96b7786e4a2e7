"""Record MindSpore 2.10's dataset.text transforms and Vocab on text_cases.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_text.py

Writes data/text.json: each transform's outputs (dtype, shape, values) or its error (class and
first line); each Vocab's token -> id dict, tokens_to_ids / ids_to_tokens of a few tokens, and a
pipeline that tokenizes and looks up.
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.common.dtype as mstype
import mindspore.dataset as ds
import mindspore.dataset.text as text

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import text_cases  # noqa: E402


def value(a):
    a = np.asarray(a)
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


def main():
    record = {"mindspore": ms.__version__, "transforms": {}, "vocab": {}}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        for name, (op, inputs) in text_cases.cases(text, mstype).items():
            try:
                out = op(*inputs)
                out = out if isinstance(out, tuple) else (out,)
                record["transforms"][name] = [value(o) for o in out]
            except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
                text_ = str(e)
                if "[ERROR] " in text_:
                    text_ = text_.split("[ERROR] ", 1)[1]
                record["transforms"][name] = {"error": {"type": type(e).__name__,
                                                        "message": text_.splitlines()[0].strip()}}
        for name, vocab in text_cases.vocab_cases(text, ds).items():
            record["vocab"][name] = {"vocab": vocab.vocab(), "tokens_to_ids": vocab.tokens_to_ids(["a", "b", "zz"]),
                                     "ids_to_tokens": vocab.ids_to_tokens([0, 1, 99])}
        vocab = text_cases.vocab_cases(text, ds)["from_list"]
        d = ds.NumpySlicesDataset(["a b zz", "c a"], column_names=["t"], shuffle=False)
        d = d.map(text.WhitespaceTokenizer(), input_columns="t").map(text.Lookup(vocab, "<unk>"), input_columns="t")
        record["pipeline"] = [value(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    out = os.path.join(HERE, "data", "text.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=None, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
