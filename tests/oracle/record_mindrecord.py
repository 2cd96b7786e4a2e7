"""Record a MindRecord file written by MindSpore 2.10's FileWriter and what its MindDataset reads
from it (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_mindrecord.py

Writes data/mindrecord.json: the data file as a sparse image (mindrecord_cases.sparse_image: it
is 48 MiB, nearly all zeros), the SQLite index's tables (rows of INDEXES and SHARD_NAME, the
CREATE statements), and for each read in mindrecord_cases.READS the columns, size and rows
(dtype, shape, values; bytes as hex).
"""
import json
import os
import sqlite3
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore.mindrecord import FileWriter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import mindrecord_cases as mc  # noqa: E402


def value(a):
    a = np.asarray(a)
    if a.dtype.kind == "S" or a.dtype == object:
        return {"dtype": "bytes", "value": bytes(a.item()).hex()}
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


def read(path, kwargs):
    kwargs = dict(kwargs)
    if "sampler" in kwargs:
        name, args = kwargs["sampler"]
        kwargs["sampler"] = getattr(ds, name)(**args)
    else:
        kwargs["shuffle"] = False
    d = ds.MindDataset(path, **kwargs)
    return {"columns": d.get_col_names(), "size": d.get_dataset_size(),
            "rows": [{k: value(v) for k, v in r.items()}
                     for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]}


def main():
    record = {"mindspore": ms.__version__}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        path = "test.mindrecord"          # relative: MindSpore writes the name it is given into the header
        writer = FileWriter(path, shard_num=1, overwrite=True)
        writer.add_schema(mc.SCHEMA, mc.DESC)
        writer.add_index(mc.INDEX_FIELDS)
        writer.write_raw_data(mc.rows())
        writer.commit()
        with open(path, "rb") as f:
            record["file"] = mc.sparse_image(f.read())
        db = sqlite3.connect(path + ".db")
        record["db"] = {
            "create": [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")],
            "indexes": [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")],
            "shard_name": [list(r) for r in db.execute("SELECT * FROM SHARD_NAME")]}
        db.close()
        record["reads"] = {name: read(path, kwargs) for name, kwargs in mc.READS.items()}
    out = os.path.join(HERE, "data", "mindrecord.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
