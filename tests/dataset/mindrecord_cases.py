"""MindRecord fixtures defined once (NumPy only) for tests/oracle/record_mindrecord.py (MindSpore's
venv) and tests/dataset/test_mindrecord.py: a schema covering every field type, its rows, and the
MindDataset reads recorded. The file MindSpore writes is kept as a sparse image (its non-zero
byte runs: the file is 48 MiB of mostly zeros, MindSpore's 16 MiB header block and 32 MiB pages)."""
import numpy as np

SCHEMA = {
    "file_name": {"type": "string"},
    "label": {"type": "int32"},
    "big": {"type": "int64"},
    "score": {"type": "float32"},
    "weight": {"type": "float64"},
    "data": {"type": "bytes"},
    "vec": {"type": "float32", "shape": [-1]},
    "mat": {"type": "int64", "shape": [2, 2]},
    "ids": {"type": "int32", "shape": [-1]},
    "f64": {"type": "float64", "shape": [3]},
}
INDEX_FIELDS = ["file_name", "label"]
DESC = "pycompile test schema"


def rows(n=6):
    out = []
    for i in range(n):
        out.append({
            "file_name": f"img_{i}.jpg",
            "label": i * 3 - 5,
            "big": (i - 2) * 10 ** (3 * i),
            "score": np.float32(i / 4 - 0.3),
            "weight": i * 1.1 - 2.0,
            "data": bytes((i * 37 + k) % 256 for k in range(i * 5 + 1)),
            "vec": (np.arange(i + 1, dtype=np.float32) - 1.5) / 3,
            "mat": np.array([[i, -i], [300 * i, -70000 * i]], dtype=np.int64) + np.array([[0, 0], [0, 1 << (5 * i)]]),
            "ids": np.array([(-1) ** k * 17 ** k for k in range(i % 4 + 1)], dtype=np.int32),
            "f64": np.array([i, -i / 7, 1e300], dtype=np.float64),
        })
    return out


# name -> MindDataset keyword arguments (shuffle=False unless given)
READS = {
    "all": {},
    "columns": {"columns_list": ["label", "data", "mat"]},
    "num_samples": {"num_samples": 4},
    "shard_0_of_4": {"num_shards": 4, "shard_id": 0},
    "shard_3_of_4": {"num_shards": 4, "shard_id": 3},
    "sequential_sampler": {"sampler": ("SequentialSampler", {"start_index": 2})},
}


def sparse_image(data: bytes) -> dict:
    """{"size", "runs": [[offset, hex], ...]}: the non-zero stretches of a file (gaps < 64 zeros kept)."""
    runs, i, n = [], 0, len(data)
    while i < n:
        if data[i] == 0:
            i += 1
            continue
        start = i
        zeros = 0
        while i < n and zeros < 64:
            zeros = zeros + 1 if data[i] == 0 else 0
            i += 1
        end = i - zeros
        runs.append([start, data[start:end].hex()])
    return {"size": n, "runs": runs}


def unsparse(image: dict) -> bytes:
    buf = bytearray(image["size"])
    for offset, hexdata in image["runs"]:
        chunk = bytes.fromhex(hexdata)
        buf[offset:offset + len(chunk)] = chunk
    return bytes(buf)


# -- sharded writing and padded samples (tests/oracle/record_mindrecord_shards.py) -----------------
SHARD_NUM = 3
# MindSpore gives the n % shard_num extra rows of a write_raw_data call to shards it picks at random
# (std::random_device); the recorder rewrote until they went to the first shards, as pycompile's do
SHARD_WRITES = {"even": 6, "uneven": 7}
PAD_COLUMNS = ["file_name", "label", "data", "vec", "score", "big", "mat"]


def padded_sample():
    return {"file_name": "PAD", "label": -1, "data": b"\x01\x02", "vec": np.array([9.5, 8.5], np.float32),
            "score": 0.5, "big": 7, "mat": np.arange(4, dtype=np.int64).reshape(2, 2), "weight": 2.5}


# name -> MindDataset keyword arguments over the "uneven" shards (shuffle=False); "sampler" as in READS
PADDED_READS = {f"shard_{s}_of_3_pad_2": {"num_shards": 3, "shard_id": s, "num_padded": 2} for s in range(3)}
PADDED_READS.update({
    "shard_0_of_3_pad_5": {"num_shards": 3, "shard_id": 0, "num_padded": 5},
    "unsharded_pad_2": {"num_padded": 2},
    "distributed_sampler_1_of_3_pad_2": {"sampler": ("DistributedSampler", {"num_shards": 3, "shard_id": 1,
                                                                            "shuffle": False}), "num_padded": 2},
    "shard_2_of_4_pad_1": {"num_shards": 4, "shard_id": 2, "num_padded": 1},
})
# name -> (MindDataset keyword arguments, with padded_sample=True meaning padded_sample()); MindSpore raises
PADDED_ERRORS = {
    "not_divisible": {"num_shards": 3, "shard_id": 0, "num_padded": 1, "padded_sample": True, "columns_list": True},
    "no_num_padded": {"padded_sample": True, "columns_list": True},
    "no_padded_sample": {"num_padded": 2, "columns_list": True},
    "no_columns_list": {"padded_sample": True, "num_padded": 2},
    "column_not_padded": {"padded_sample": True, "num_padded": 2, "columns_list": ["file_name", "f64"]},
    "negative": {"padded_sample": True, "num_padded": -1, "columns_list": True},
}
# FileWriter(shard_num=...) values MindSpore refuses
BAD_SHARD_NUMS = {"zero": 0, "too_many": 1001, "str": "2"}


# -- PKSampler on a MindRecord file (class_column) ----------------------------------------------------
PK_LABELS = [2, 0, 1, 2, 2, 0, 1, 1, 0, 2, 3]
PK_SCHEMA = {"label": {"type": "int32"}, "id": {"type": "int64"}, "cls": {"type": "string"}}


def pk_rows():
    return [{"label": label, "id": i, "cls": "c%d" % ((label * 7) % 4)} for i, label in enumerate(PK_LABELS)]


# name -> PKSampler keyword arguments
PK_READS = {"num_val_1": {"num_val": 1}, "num_val_2": {"num_val": 2}, "num_val_5": {"num_val": 5},
            "cls_column": {"num_val": 2, "class_column": "cls"}, "num_samples_5": {"num_val": 2, "num_samples": 5},
            "shuffled": {"num_val": 3, "shuffle": True}}
