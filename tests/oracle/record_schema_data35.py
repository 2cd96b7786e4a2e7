"""Record MindSpore 2.10's Schema JSON and RandomDataset / FakeImageDataset row layouts (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_schema_data35.py

Writes data/schema_data35.json: to_json() of a few schemas, the errors of bad columns, and the
columns / dtypes / shapes / sizes (not the values: MindSpore's random stream) of the two sources.
"""
import json
import os

import numpy as np

import mindspore as ms
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the record
        return {"type": type(e).__name__, "message": str(e).splitlines()[0]}
    return None


def main():
    out = {}
    s = ds.Schema()
    s.add_column("image", de_type=ms.uint8, shape=[3, 4])
    s.add_column("label", de_type="int32")
    s.add_column("f", de_type="float32", shape=[-1])
    out["added"] = s.to_json()
    s3 = ds.Schema()
    s3.parse_columns([{"name": "x", "type": "int64", "shape": [2]}])
    out["parsed_list"] = s3.to_json()
    s4 = ds.Schema()
    s4.parse_columns({"x": {"type": "float64"}, "y": {"type": "uint8", "shape": [2, 2]}})
    out["parsed_dict"] = s4.to_json()
    out["bad_type"] = error(lambda: ds.Schema().add_column("z", de_type="int9"))
    out["bad_name"] = error(lambda: ds.Schema().add_column(3, de_type="int32"))
    r = ds.RandomDataset(schema=s, total_rows=3)
    row = next(r.create_tuple_iterator(output_numpy=True))
    out["random"] = {"columns": r.get_col_names(), "size": r.get_dataset_size(),
                     "dtypes": [str(v.dtype) for v in row], "ranks": [v.ndim for v in row],
                     "fixed_shapes": [list(v.shape) for v in row][:2]}
    f = ds.FakeImageDataset(num_images=50, image_size=(4, 5, 3), num_classes=3, base_seed=0, shuffle=False)
    rows = list(f.create_tuple_iterator(output_numpy=True))
    out["fake"] = {"columns": f.get_col_names(), "size": f.get_dataset_size(),
                   "image": [str(rows[0][0].dtype), list(rows[0][0].shape)],
                   "label": [str(rows[0][1].dtype), list(rows[0][1].shape)],
                   "labels_below_classes": bool(max(int(r[1]) for r in rows) < 3)}
    with open(os.path.join(HERE, "data", "schema_data35.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
