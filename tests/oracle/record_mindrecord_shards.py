"""Record MindRecord files MindSpore 2.10's FileWriter writes with shard_num > 1 and what its
MindDataset reads with padded_sample / num_padded (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_mindrecord_shards.py

Writes data/mindrecord_shards.json: for each write of mindrecord_cases.SHARD_WRITES (rows, in one
write_raw_data call, into SHARD_NUM shards named sh_<name>.mindrecord0 ...), every shard file as a
sparse image and its SQLite index's rows; the rows MindDataset reads from the uneven set, from
its first file and from a middle one; each PADDED_READS read (columns PAD_COLUMNS, padded_sample
mindrecord_cases.padded_sample()), the errors of PADDED_ERRORS and of BAD_SHARD_NUMS; the size and
rows of PKSampler reads (PK_READS) of a file of pk_rows(), and its errors. (MindSpore 2.10 yields the
file's first row for every PKSampler row of a MindDataset; recorded as it is.)

MindSpore gives the n % shard_num extra rows to shards it picks at random, so the recorder writes
again until they went to the first shards (what pycompile's FileWriter does).
"""
import glob
import json
import os
import sqlite3
import sys
import tempfile

import mindspore as ms
import mindspore.dataset as ds
from mindspore.mindrecord import FileWriter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import mindrecord_cases as mc  # noqa: E402
from record_mindrecord import read, value  # noqa: E402


def write(name, n):
    base = f"sh_{name}.mindrecord"
    rows = mc.rows(n)
    want = [n // mc.SHARD_NUM + (1 if s < n % mc.SHARD_NUM else 0) for s in range(mc.SHARD_NUM)]
    for _ in range(100):
        for f in glob.glob(base + "*"):
            os.remove(f)
        writer = FileWriter(base, shard_num=mc.SHARD_NUM, overwrite=True)
        writer.add_schema(mc.SCHEMA, mc.DESC)
        writer.add_index(mc.INDEX_FIELDS)
        writer.write_raw_data(rows)
        writer.commit()
        counts = []
        for s in range(mc.SHARD_NUM):
            db = sqlite3.connect(f"{base}{s}.db")
            counts.append(db.execute("SELECT COUNT(*) FROM INDEXES").fetchone()[0])
            db.close()
        if counts == want:
            break
    else:
        raise RuntimeError(f"MindSpore never split {n} rows as {want}")
    files = []
    for s in range(mc.SHARD_NUM):
        path = f"{base}{s}"
        with open(path, "rb") as f:
            image = mc.sparse_image(f.read())
        db = sqlite3.connect(path + ".db")
        files.append({"name": path, "file": image,
                      "indexes": [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")],
                      "shard_name": [list(r) for r in db.execute("SELECT * FROM SHARD_NAME")]})
        db.close()
    return files


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        text = str(e)
        if "Dataset Pipeline Error Message" in text:      # the pipeline's own words, without the frame
            text = text.split("Dataset Pipeline Error Message: \n")[1].split("\n", 1)[1].split("\n\n" + "-" * 10)[0]
        if text.startswith("[ERROR] "):
            text = text[len("[ERROR] "):]
        return {"type": type(e).__name__, "message": text.strip()}
    return None


def padded_kwargs(kwargs):
    kwargs = dict(kwargs)
    if kwargs.get("padded_sample") is True:
        kwargs["padded_sample"] = mc.padded_sample()
    if kwargs.get("columns_list") is True:
        kwargs["columns_list"] = mc.PAD_COLUMNS
    return kwargs


def main():
    record = {"mindspore": ms.__version__, "writes": {}}
    for name, n in mc.SHARD_WRITES.items():
        record["writes"][name] = write(name, n)
    uneven = "sh_uneven.mindrecord"
    record["reads"] = {"first_file": read(uneven + "0", {}), "middle_file": read(uneven + "1", {})}
    record["padded_reads"] = {
        name: read(uneven + "0", dict(kw, columns_list=mc.PAD_COLUMNS, padded_sample=mc.padded_sample()))
        for name, kw in mc.PADDED_READS.items()}

    def iterate(**kwargs):
        d = ds.MindDataset(uneven + "0", shuffle=False, **padded_kwargs(kwargs))
        return list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    record["padded_errors"] = {name: error_of(lambda kw=kw: iterate(**kw)) for name, kw in mc.PADDED_ERRORS.items()}
    writer = FileWriter("pk.mindrecord", shard_num=1, overwrite=True)
    writer.add_schema(mc.PK_SCHEMA, "pk")
    writer.add_index(["label", "cls"])
    writer.write_raw_data(mc.pk_rows())
    writer.commit()
    record["pk_reads"] = {}
    for name, kw in mc.PK_READS.items():
        d = ds.MindDataset("pk.mindrecord", sampler=ds.PKSampler(**kw))
        record["pk_reads"][name] = {"size": d.get_dataset_size(), "ids": [
            int(r["id"]) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]}
    record["pk_errors"] = {
        "unknown_column": error_of(lambda: list(ds.MindDataset("pk.mindrecord", sampler=ds.PKSampler(
            2, class_column="nope")).create_tuple_iterator(num_epochs=1))),
        "column_not_str": error_of(lambda: ds.PKSampler(2, class_column=3))}
    record["shard_num_errors"] = {name: error_of(lambda v=v: FileWriter("bad.mindrecord", shard_num=v))
                                  for name, v in mc.BAD_SHARD_NUMS.items()}
    out = os.path.join(HERE, "data", "mindrecord_shards.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", out, os.path.getsize(out), "bytes", file=sys.stderr)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        main()
