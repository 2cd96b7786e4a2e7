"""Record MindSpore 2.10's named dataset sources (text, audio, image folders) on the folders of
tests/dataset/named_source_cases.py:

    cd /tmp && /work/msvenv/bin/python /work/main/tests/dataset/record_named_sources.py [case-prefix ...]

Writes tests/dataset/named_sources.json: per case the columns, size and rows (dtype, shape,
values) read unshuffled, or the error (class and MindSpore's message, the root written <dir>).
With prefixes, only the cases starting with one are recorded again (the others are kept)."""
import json
import os
import sys
import tempfile

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import named_source_cases as nc  # noqa: E402

OUT = os.path.join(HERE, "named_sources.json")


def main(prefixes):
    out = {}
    if prefixes and os.path.exists(OUT):
        with open(OUT) as f:
            out = json.load(f)
    with tempfile.TemporaryDirectory() as root:
        nc.build_all(root)
        for case in nc.CASES:
            if not prefixes or case.startswith(tuple(prefixes)):
                out[case] = nc.run(ds, root, case)
    out = {k: v for k, v in out.items() if k in nc.CASES}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
