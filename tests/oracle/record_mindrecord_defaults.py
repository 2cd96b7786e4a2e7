"""Record what MindSpore 2.10's FileWriter writes without add_index, and for a schema with no
bytes or array field (a docs audit found MindSpore reading 0 rows from such pycompile files):

    . /work/ms-venv/bin/activate && python tests/oracle/record_mindrecord_defaults.py

Writes data/mindrecord_defaults.json: per case the schema and rows written, the data file as a
sparse image (mindrecord_cases.sparse_image), the SQLite index's CREATE statements and INDEXES
rows, both files' permission bits, and the rows MindSpore's MindDataset reads back.
"""
import json
import os
import sqlite3
import stat
import sys
import tempfile

import numpy as np

from mindspore.mindrecord import FileWriter
import mindspore as ms
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import mindrecord_cases as mc  # noqa: E402

CASES = {
    "scalars_only": ({"id": {"type": "int32"}}, [{"id": i} for i in range(3)]),
    "mixed_no_index": ({"z": {"type": "int32"}, "a": {"type": "float32"}, "s": {"type": "string"},
                        "arr": {"type": "int32", "shape": [2]}, "q": {"type": "int64"}},
                       [{"z": i, "a": i * 0.5, "s": f"r{i}", "arr": [i, i], "q": 10 + i} for i in range(3)]),
}


def main():
    out = {"mindspore": ms.__version__, "cases": {}}
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        for name, (schema, rows) in CASES.items():
            w = FileWriter(f"{name}.mindrecord", overwrite=True)
            w.add_schema(schema, "d")
            w.write_raw_data([{k: (np.array(v, np.int32) if k == "arr" else v) for k, v in r.items()} for r in rows])
            w.commit()
            with open(f"{name}.mindrecord", "rb") as f:
                image = mc.sparse_image(f.read())
            db = sqlite3.connect(f"{name}.mindrecord.db")
            create = [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            indexes = [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")]
            db.close()
            read = [{k: np.asarray(v).tolist() for k, v in r.items()}
                    for r in ds.MindDataset(f"{name}.mindrecord", shuffle=False).create_dict_iterator(output_numpy=True)]
            modes = [stat.S_IMODE(os.stat(p).st_mode) for p in (f"{name}.mindrecord", f"{name}.mindrecord.db")]
            out["cases"][name] = {"schema": schema, "rows": rows, "file": image, "create": create,
                                  "indexes": indexes, "modes": modes, "read": read}
    with open(os.path.join(HERE, "data", "mindrecord_defaults.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
