"""Compressed TFRecord files (GZIP, ZLIB) for tests/oracle/record_tfrecord_feed35.py (MindSpore's
venv) and tests/dataset/test_tfrecord_feed35.py: source_cases_data35's TFRecord files, compressed
with Python's gzip / zlib (what TensorFlow's writers produce), read with compression_type."""
import gzip
import os
import zlib

import source_cases_data35 as sc
import source_io_data35 as sio


def build(root):
    sc.build_tfrecord(root)
    d = os.path.join(root, "tfr")
    for k in range(2):
        with open(os.path.join(d, f"part{k}.tfrecord"), "rb") as f:
            data = f.read()
        with open(os.path.join(d, f"part{k}.gz"), "wb") as f:
            f.write(gzip.compress(data))
        with open(os.path.join(d, f"part{k}.zlib"), "wb") as f:
            f.write(zlib.compress(data))


CASES = {
    "gzip": (["part0.gz", "part1.gz"], {"compression_type": "GZIP"}),
    "zlib": (["part0.zlib", "part1.zlib"], {"compression_type": "ZLIB"}),
    "gzip_columns": (["part1.gz"], {"compression_type": "GZIP", "columns_list": ["name", "label"]}),
    "none_given_as_empty": (["part0.tfrecord"], {"compression_type": ""}),
    "bad_type": (["part0.gz"], {"compression_type": "BZ2"}),
}


def run(ds, root, case):
    files, kwargs = CASES[case]
    try:
        d = ds.TFRecordDataset([os.path.join(root, "tfr", f) for f in files], shuffle=False, **kwargs)
        rows = [[sio.value(c) for c in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        return {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}
    except Exception as e:  # noqa: BLE001 - what the framework raised is the record
        return {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0].strip().replace(root, "<dir>")}}
