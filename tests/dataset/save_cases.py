"""Dataset.save cases (NumPy only) for tests/oracle/record_dataset_save.py (MindSpore's venv) and
tests/dataset/test_dataset_save_data35.py: NumpySlicesDataset(columns, shuffle=False), maybe
batched, saved with num_files."""
import numpy as np

N = 7


def columns(name):
    n = N
    return {
        "image_label": {"image": np.arange(n * 12, dtype=np.uint8).reshape(n, 2, 2, 3),
                        "label": np.arange(n, dtype=np.uint32)},
        "widening": {"i8": np.arange(n, dtype=np.int8) - 3, "i16": (np.arange(n * 2, dtype=np.int16) - 5).reshape(n, 2),
                     "b": np.arange(n) % 2 == 0, "u16": np.arange(n, dtype=np.uint16) * 1000,
                     "f16": np.linspace(-1, 1, n * 3).astype(np.float16).reshape(n, 3),
                     "i64": np.arange(n, dtype=np.int64) * -123456789, "f64": np.arange(n) * 0.25},
        "text": {"s": np.array(["alpha", "b", "", "dé", "e", "ff", "g"]), "f32": np.arange(n, dtype=np.float32) / 3},
        "big_ints": {"v": (np.arange(n * 4, dtype=np.int64).reshape(n, 4) - 10) * 10 ** 9},
    }[name]


CASES = {
    "image_label": ("image_label", None, 1),
    "image_label_3_files": ("image_label", None, 3),
    "widening": ("widening", None, 1),
    "text_2_files": ("text", None, 2),
    "batched": ("big_ints", 3, 1),
}


def build(ds, case):
    cols, batch, _ = CASES[case]
    d = ds.NumpySlicesDataset(columns(cols), shuffle=False)
    return d.batch(batch) if batch else d


def files(case, base):
    n = CASES[case][2]
    return [base] if n == 1 else [f"{base}{k}" for k in range(n)]
