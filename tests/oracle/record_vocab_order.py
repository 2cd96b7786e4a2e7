"""Record the order MindSpore 2.10's Vocab.vocab() lists its words in (its C++ hash map's order),
for the cases of tests/dataset/vocab_cases.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_vocab_order.py

Writes data/vocab_order.json: per case the [word, id] pairs in vocab()'s order.
"""
import json
import os
import sys

import mindspore.dataset.text as text

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import vocab_cases as vc  # noqa: E402


def main():
    out = {name: [[w, i] for w, i in getattr(text.Vocab, how)(**kwargs).vocab().items()]
           for name, (how, kwargs) in vc.CASES.items()}
    with open(os.path.join(HERE, "data", "vocab_order.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
