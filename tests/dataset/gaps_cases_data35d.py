"""GeneratorDataset(schema=...), ImageFolderDataset(decrypt=...), PKSampler(num_class=...) and the
batch / map options MindSpore 2.10 no longer takes (issue 35), for tests/oracle/record_gaps_data35d.py
(MindSpore's venv) and tests/dataset/test_gaps_data35d.py. Files are generated (an XOR-"encrypted"
image folder written with Pillow, a JSON schema file)."""
import json
import os

import numpy as np

KEY = 0x5A


def build(root):
    from PIL import Image
    with open(os.path.join(root, "schema.json"), "w") as f:
        json.dump({"columns": {"b": {"type": "float32", "rank": 0}, "a": {"type": "int32", "rank": 1}}}, f)
    for c in ("cat", "dog"):
        os.makedirs(os.path.join(root, "imgs", c))
        for k in range(2):
            path = os.path.join(root, "imgs", c, f"{k}.png")
            Image.fromarray(np.random.default_rng(k).integers(0, 256, (4, 5, 3), dtype=np.uint8)).save(path)
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(bytes(b ^ KEY for b in data))


def decrypt(path):
    with open(path, "rb") as f:
        return bytes(b ^ KEY for b in f.read())


def gen():
    for i in range(3):
        yield np.array([i, i + 1], np.int32), np.array(i * 0.5, np.float32)


def gen_text():
    for i in range(2):
        yield np.array(f"w{i}"), np.array([i], np.int64)


class Source:
    def __getitem__(self, i):
        return np.array([i, -i], np.int32), np.array(i / 3, np.float32)

    def __len__(self):
        return 4


def _schema(ds, cols):
    s = ds.Schema()
    for c in cols:
        s.add_column(*c)
    return s


def cases(ds, root):
    """name -> a function making the dataset (or raising)."""
    ab = [("a", "int32"), ("b", "float32")]
    folder = os.path.join(root, "imgs")
    return {
        "gen_schema": lambda: ds.GeneratorDataset(gen, schema=_schema(ds, ab)),
        "gen_schema_shapes_not_checked": lambda: ds.GeneratorDataset(gen, schema=_schema(ds, [("a", "int32", [3]),
                                                                                              ("b", "float32", [])])),
        "gen_schema_over_column_names": lambda: ds.GeneratorDataset(gen, column_names=["x", "y"],
                                                                    schema=_schema(ds, ab)),
        "gen_schema_file": lambda: ds.GeneratorDataset(gen, schema=os.path.join(root, "schema.json")),
        "gen_schema_random_access": lambda: ds.GeneratorDataset(Source(), schema=_schema(ds, ab), shuffle=False),
        "gen_schema_string": lambda: ds.GeneratorDataset(gen_text, schema=_schema(ds, [("w", "string"),
                                                                                       ("n", "int64")])),
        "gen_schema_fewer": lambda: ds.GeneratorDataset(gen, schema=_schema(ds, ab[:1])),
        "gen_schema_more": lambda: ds.GeneratorDataset(gen, schema=_schema(ds, ab + [("c", "float32")])),
        "gen_schema_wrong_type": lambda: ds.GeneratorDataset(gen, schema=_schema(ds, [("a", "int64"),
                                                                                      ("b", "float32")])),
        "gen_column_names_fewer": lambda: ds.GeneratorDataset(gen, column_names=["a"]),
        "gen_schema_missing_file": lambda: ds.GeneratorDataset(gen, schema=os.path.join(root, "nope.json")),
        "folder_decrypt": lambda: ds.ImageFolderDataset(folder, decrypt=decrypt, shuffle=False),
        "folder_decrypt_decode": lambda: ds.ImageFolderDataset(folder, decrypt=decrypt, decode=True, shuffle=False),
        "folder_decrypt_not_callable": lambda: ds.ImageFolderDataset(folder, decrypt=5, shuffle=False),
        "folder_decrypt_returns_str": lambda: ds.ImageFolderDataset(folder, decrypt=lambda p: "abc", shuffle=False),
        "pk_num_class": lambda: ds.PKSampler(2, num_class=3),
        "batch_pad_info": lambda: ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).batch(
            2, pad_info={"x": ([3], 0)}),
        "map_column_order": lambda: ds.NumpySlicesDataset({"x": np.arange(4), "y": np.arange(4)}, shuffle=False).map(
            lambda v: v, ["x"], column_order=["y", "x"]),
    }


def value(a):
    a = np.asarray(a)
    if a.dtype.kind in "US":
        return {"dtype": "str", "shape": list(a.shape), "value": a.astype(str).tolist()}
    return {"dtype": a.dtype.str, "shape": list(a.shape), "value": a.tolist()}


def error(e, root):
    """Class and the line saying what went wrong: the first line of the user-code section of
    MindSpore's pipeline text, or the "[ERROR]" line, or the first line."""
    text = str(e)
    lines = text.splitlines()
    if "- Python Call Stack: " in lines:
        line = lines[lines.index("- Python Call Stack: ") + 2]
    elif "[ERROR] " in text:
        line = text.split("[ERROR] ", 1)[1].splitlines()[0]
    else:
        line = lines[0] if lines else ""
    return {"type": type(e).__name__, "message": line.strip().replace(root, "<dir>")}


def run(ds, root, name):
    try:
        d = cases(ds, root)[name]()
        if not hasattr(d, "create_tuple_iterator"):
            return {"made": type(d).__name__}
        rows = [[value(c) for c in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        return {"columns": d.get_col_names(), "rows": rows}
    except Exception as e:  # noqa: BLE001 - what the framework raised is the record
        return {"error": error(e, root)}
