"""TFRecordDataset(schema=...) cases (issue 35) for tests/oracle/record_tfrecord_schema_data35d.py
(MindSpore's venv) and tests/dataset/test_tfrecord_schema_data35d.py: source_cases_data35's
TFRecord files plus one record with several bytes / float values, read through a Schema object
(add_column / parse_columns / a JSON file) or a JSON schema file's path: column selection and
order, casts, shapes, numRows, and the errors (missing feature, type or shape mismatch, empty
schema, a columns_list name outside the schema)."""
import json
import os

import source_cases_data35 as sc
import source_io_data35 as sio


def build(root):
    sc.build_tfrecord(root)
    d = os.path.join(root, "tfr")
    sc.write_tfrecord(os.path.join(d, "multi.tfrecord"), [sc.example(
        {"names": ("bytes", [b"ab", b"cde"]), "x": ("float", [1.5, -2.7]), "k": ("int64", [3])})])
    files = {"label1": {"columns": {"label": {"type": "int32", "rank": 1}, "pos": {"type": "float32", "rank": 1,
                                                                                    "shape": [3]}}},
             "rows2": {"datasetType": "TF", "numRows": 2, "columns": {"name": {"type": "string", "rank": 1}}},
             "rows10": {"numRows": 10, "columns": {"label": {"type": "int64", "rank": 1}}},
             "rank0": {"columns": {"pos": {"type": "float32", "rank": 2, "shape": [3, 1]},
                                   "label": {"type": "int64", "rank": 0}, "ids": {"type": "int64", "rank": 0}}}}
    for name, content in files.items():
        with open(os.path.join(root, f"{name}.json"), "w") as f:
            json.dump(content, f)


P0, MULTI = "part0.tfrecord", "multi.tfrecord"
# name -> (files, schema, kwargs); schema: a list of add_column args, ("dict", {...}) for
# parse_columns, ("object", file) for Schema(file), ("path", file) for the path itself
CASES = {
    "select": ([P0], [("label", "int64"), ("name", "string")], {}),
    "shapes": ([P0], [("pos", "float32", [3]), ("label", "int64", [1])], {}),
    "to_int32": ([P0], [("label", "int32"), ("ids", "int32")], {}),
    "to_uint8_int16_uint64": ([P0], [("label", "uint8"), ("ids", "int16"), ("pos", "uint64")], {}),
    "float_widths": ([P0], [("pos", "float64"), ("label", "float16")], {}),
    "float_to_int32": ([P0], [("pos", "int32")], {}),
    "bytes_as_uint8": ([P0], [("image", "uint8", [2, 3]), ("name", "uint8")], {}),
    "reshape_minus_one": ([P0], [("ids", "int64", [-1, 1])], {}),
    "several_bytes": ([MULTI], [("names", "string"), ("x", "float64"), ("k", "bool")], {}),
    "several_bytes_shaped": ([MULTI], [("names", "string", [2, 1])], {}),
    "several_bytes_uint8": ([MULTI], [("names", "uint8")], {}),
    "two_files": ([P0, "part1.tfrecord"], [("label", "int64"), ("ids", "int64")], {}),
    "columns_list_order": ([P0], [("label", "int64"), ("ids", "int64")], {"columns_list": ["ids", "label"]}),
    "parse_columns_dict": ([P0], ("dict", {"label": {"type": "int64", "shape": []}, "pos": {"type": "float32"}}), {}),
    "file_path": ([P0], ("path", "label1.json"), {}),
    "file_path_num_rows": ([P0], ("path", "rows2.json"), {}),
    "file_path_num_rows_over": ([P0], ("path", "rows10.json"), {}),
    "file_num_rows_and_num_samples": ([P0], ("path", "rows2.json"), {"num_samples": 3}),
    "file_rank0": ([P0], ("path", "rank0.json"), {}),
    "schema_object_from_file": ([P0], ("object", "rows2.json"), {}),
    "schema_object_rank1": ([P0], ("object", "label1.json"), {}),
    "missing_feature": ([P0], [("nope", "int64")], {}),
    "int_as_string": ([P0], [("label", "string")], {}),
    "bytes_as_int32": ([P0], [("image", "int32")], {}),
    "several_bytes_int8": ([MULTI], [("names", "int8")], {}),
    "shape_mismatch": ([P0], [("ids", "int64", [2])], {}),
    "empty_schema": ([P0], [], {}),
    "columns_list_outside": ([P0], [("label", "int64")], {"columns_list": ["ids"]}),
    "missing_file": ([P0], ("path", "nope.json"), {}),
}


def schema_for(ds, root, spec):
    if isinstance(spec, tuple):
        kind, arg = spec
        if kind == "dict":
            s = ds.Schema()
            s.parse_columns(arg)
            return s
        return ds.Schema(os.path.join(root, arg)) if kind == "object" else os.path.join(root, arg)
    s = ds.Schema()
    for col in spec:
        s.add_column(*col)
    return s


def run(ds, root, case):
    files, spec, kwargs = CASES[case]
    return sio.rows_or_error(lambda: ds.TFRecordDataset([os.path.join(root, "tfr", f) for f in files],
                                                       schema=schema_for(ds, root, spec), shuffle=False, **kwargs),
                             root)
