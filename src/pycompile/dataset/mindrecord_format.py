"""MindSpore's MindRecord file format (version 3.0), read and written byte for byte as MindSpore 2.10
writes it (tests/oracle/data/mindrecord.json holds a file its FileWriter wrote).

A data file is a header block, then pages:

- bytes 0-7: the header's length (uint64 little-endian), then the header, compact JSON (keys in
  MindSpore's order below); zeros up to `header_size` (16 MiB).
- page p starts at header_size + p * page_size (32 MiB); the file ends where the last page's data
  does. BLOB_DATA pages hold each row's blob fields (bytes and array fields), RAW_DATA pages its
  other fields; a row never spans pages. Each row in a page: its length (uint64 little-endian),
  then its data.
- a raw row is a MessagePack map of the scalar fields, keys sorted, encoded as nlohmann::json's
  to_msgpack encodes (the smallest integer form; a float as float32 when that is exact).
- a blob row is each blob field (names sorted) as its length (uint64 big-endian) and its bytes
  (a lone blob field: its bytes alone; no blob field: 4 zero bytes, in a BLOB_DATA page all the
  same):
  `bytes` as is, float arrays little-endian, int32 / int64 arrays compressed: the element count
  (uint32 big-endian), 2 bits per element (first element in the high bits) naming its width
  (0: 1 byte, 1: 2, 2: 4, 3: 8), then each element little-endian in that width.
- `<file>.db` is a SQLite index: INDEXES (one row per record: its raw and blob page and offsets,
  and the add_index fields - every scalar field, by name, when add_index was not called) and
  SHARD_NAME. MindSpore's reader needs it (with no index field it reads no row); this reader does
  not. Both files are left owner read / write only (0600), as MindSpore leaves them.
"""
from __future__ import annotations

import json
import math
import os
import sqlite3
import struct

import numpy as np

HEADER_SIZE = 1 << 24
PAGE_SIZE = 1 << 25
VERSION = "3.0"
NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string")


def is_blob(spec: dict) -> bool:
    return spec["type"] == "bytes" or "shape" in spec


# -- MessagePack (the subset nlohmann::json writes for a flat map) ---------------------------------
def pack(value) -> bytes:
    if value is None:
        return b"\xc0"
    if isinstance(value, dict):
        n = len(value)
        head = bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n) if n < 65536
                                                 else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(pack(k) + pack(value[k]) for k in sorted(value))
    if isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        head = (bytes([0xA0 | n]) if n < 32 else b"\xd9" + bytes([n]) if n < 256
                else b"\xda" + struct.pack(">H", n) if n < 65536 else b"\xdb" + struct.pack(">I", n))
        return head + data
    if isinstance(value, (bool, np.bool_)):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if v >= 0:
            for limit, code, fmt in ((128, None, None), (256, 0xCC, ">B"), (65536, 0xCD, ">H"),
                                     (1 << 32, 0xCE, ">I"), (1 << 64, 0xCF, ">Q")):
                if v < limit:
                    return bytes([v]) if code is None else bytes([code]) + struct.pack(fmt, v)
        if v >= -32:
            return struct.pack(">b", v)
        for low, code, fmt in ((-128, 0xD0, ">b"), (-32768, 0xD1, ">h"), (-(1 << 31), 0xD2, ">i"),
                               (-(1 << 63), 0xD3, ">q")):
            if v >= low:
                return bytes([code]) + struct.pack(fmt, v)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v) or (abs(v) <= 3.4028234663852886e38 and float(np.float32(v)) == v):
            return b"\xca" + struct.pack(">f", v)
        return b"\xcb" + struct.pack(">d", v)
    raise TypeError(f"MindRecord cannot store {type(value).__name__} in a scalar field")


def unpack(data: bytes, at: int = 0):
    """(value, next offset) of the MessagePack value at `at`."""
    b = data[at]
    if b < 0x80:
        return b, at + 1
    if b >= 0xE0:
        return b - 256, at + 1
    if 0x80 <= b <= 0x8F or b in (0xDE, 0xDF):
        if b <= 0x8F:
            n, at = b & 0x0F, at + 1
        else:
            size = 2 if b == 0xDE else 4
            n, at = int.from_bytes(data[at + 1:at + 1 + size], "big"), at + 1 + size
        out = {}
        for _ in range(n):
            key, at = unpack(data, at)
            out[key], at = unpack(data, at)
        return out, at
    if 0xA0 <= b <= 0xBF or b in (0xD9, 0xDA, 0xDB):
        if b <= 0xBF:
            n, at = b & 0x1F, at + 1
        else:
            size = {0xD9: 1, 0xDA: 2, 0xDB: 4}[b]
            n, at = int.from_bytes(data[at + 1:at + 1 + size], "big"), at + 1 + size
        return data[at:at + n].decode("utf-8"), at + n
    fixed = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
             0xCA: ">f", 0xCB: ">d"}
    if b in fixed:
        size = struct.calcsize(fixed[b])
        return struct.unpack(fixed[b], data[at + 1:at + 1 + size])[0], at + 1 + size
    if b in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[b], at + 1
    raise RuntimeError(f"Invalid MindRecord file: MessagePack code 0x{b:02x} is not supported")


# -- blob fields ----------------------------------------------------------------------------------


def compress_ints(values: np.ndarray) -> bytes:
    flat = np.asarray(values).reshape(-1).astype(np.int64)
    n = len(flat)
    codes = np.full(n, 3, np.uint8)             # the narrowest of 1 / 2 / 4 / 8 bytes that holds it
    for code, np_type in ((2, np.int32), (1, np.int16), (0, np.int8)):
        info = np.iinfo(np_type)
        codes[(flat >= info.min) & (flat <= info.max)] = code
    widths = np.left_shift(1, codes.astype(np.int64))
    le = flat.astype("<i8").view(np.uint8).reshape(n, 8)
    body = le[np.arange(8)[None, :] < widths[:, None]].tobytes()   # two's complement, truncated
    padded = np.zeros(-(-n // 4) * 4, np.uint8)
    padded[:n] = codes
    quads = padded.reshape(-1, 4)
    bitmap = (quads[:, 0] << 6) | (quads[:, 1] << 4) | (quads[:, 2] << 2) | quads[:, 3]
    return struct.pack(">I", n) + bitmap.astype(np.uint8).tobytes() + body


def decompress_ints(data: bytes, np_type) -> np.ndarray:
    n = struct.unpack(">I", data[:4])[0]
    at = 4 + math.ceil(n / 4)
    bitmap = np.frombuffer(data, np.uint8, at - 4, 4)
    codes = ((bitmap[:, None] >> np.array([6, 4, 2, 0], np.uint8)) & 3).reshape(-1)[:n]
    widths = np.left_shift(1, codes.astype(np.int64))
    starts = at + np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
    raw = np.frombuffer(data, np.uint8)
    out = np.empty(n, np_type)
    for code, np_type_w in enumerate((np.int8, np.int16, np.int32, np.int64)):
        pick = np.nonzero(codes == code)[0]
        if len(pick):
            w = 1 << code
            little = np.dtype(np_type_w).newbyteorder("<")
            out[pick] = raw[starts[pick, None] + np.arange(w)].copy().view(little).reshape(-1)
    return out


def encode_blob(spec: dict, value) -> tuple:
    """(bytes stored, bytes saved by compression)."""
    if spec["type"] == "bytes":
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"a 'bytes' field needs bytes, but got {type(value).__name__}")
        return bytes(value), 0
    arr = np.ascontiguousarray(value, dtype=NUMPY[spec["type"]])
    if spec["type"] in ("int32", "int64"):
        packed = compress_ints(arr)
        return packed, arr.nbytes - len(packed)
    return arr.astype(arr.dtype.newbyteorder("<")).tobytes(), 0


def decode_blob(spec: dict, data: bytes):
    if spec["type"] == "bytes":
        return np.array([data])
    np_type = NUMPY[spec["type"]]
    if spec["type"] in ("int32", "int64"):
        arr = decompress_ints(data, np_type)
    else:
        arr = np.frombuffer(data, dtype=np.dtype(np_type).newbyteorder("<")).astype(np_type)
    return arr.reshape(spec["shape"])


def decode_scalar(spec: dict, value):
    if spec["type"] == "string":
        return np.array(value)
    return np.array(value, dtype=NUMPY[spec["type"]])


# -- files ----------------------------------------------------------------------------------------
def read_header(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            size = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(size))
    except (OSError, struct.error, ValueError, UnicodeDecodeError) as e:
        raise RuntimeError(f"Invalid file, failed to open or read the MindRecord header of {path}: {e}") from None
    if not isinstance(header, dict) or "schema" not in header or "page" not in header:
        raise RuntimeError(f"Invalid file, {path} is not a MindRecord file (its header has no schema or pages).")
    return header


def read_rows(path: str, header: dict) -> list:
    """Every record of one shard file: {field: NumPy value}."""
    schema = header["schema"][0]
    fields, blob_names = schema["schema"], schema["blob_fields"]
    raws, blobs = [], []
    with open(path, "rb") as f:
        for page in header["page"]:
            f.seek(header["header_size"] + page["page_id"] * header["page_size"])
            data, at = f.read(page["page_size"]), 0
            while at < len(data):
                n = struct.unpack("<Q", data[at:at + 8])[0]
                (blobs if page["page_type"] == "BLOB_DATA" else raws).append(data[at + 8:at + 8 + n])
                at += 8 + n
    if blob_names and raws and len(raws) != len(blobs):
        raise RuntimeError(f"Invalid file, {path} holds {len(raws)} raw records but {len(blobs)} blob records.")
    rows = []
    for i in range(max(len(raws), len(blobs))):
        row = {}
        if raws:
            for k, v in (unpack(raws[i])[0] or {}).items():
                row[k] = decode_scalar(fields[k], v)
        if len(blob_names) == 1:      # a lone blob field is stored without its length
            row[blob_names[0]] = decode_blob(fields[blob_names[0]], blobs[i])
        elif blob_names:
            data, at = blobs[i], 0
            for name in blob_names:
                n = struct.unpack(">Q", data[at:at + 8])[0]
                row[name] = decode_blob(fields[name], data[at + 8:at + 8 + n])
                at += 8 + n
        rows.append(row)
    return rows


def _pages(records, page_type, first_id, page_size, shard_id=0):
    """Pack length-prefixed records into pages: [(header entry, bytes, [(page id, start, end)])]."""
    pages, spots = [], []
    current, start_row = bytearray(), 0
    for row, rec in enumerate(records):
        item = struct.pack("<Q", len(rec)) + rec
        if current and len(current) + len(item) > page_size:
            pages.append((start_row, row, bytes(current)))
            current, start_row = bytearray(), row
        spots.append((first_id + len(pages), len(current), len(current) + len(item)))
        current += item
    if current or not pages:
        pages.append((start_row, len(records), bytes(current)))
    entries = []
    for k, (start, end, data) in enumerate(pages):
        blob = page_type == "BLOB_DATA"
        entries.append(({"end_row_id": end if blob else 0, "page_id": first_id + k, "page_size": len(data),
                         "page_type": page_type, "page_type_id": k, "row_group_ids": [{"id": 0, "offset": 0}],
                         "shard_id": shard_id, "start_row_id": start if blob else 0}, data))
    return entries, spots


def write_shards(paths: list, schema: dict, desc: str, index_fields: list, shards: list) -> None:
    """The shard files `paths` (and their .db indexes), shard k holding the rows `shards[k]`, as
    MindSpore's FileWriter writes them: each header lists every shard's path and its own shard_id,
    and the compression_size of all the rows."""
    blob_names = sorted(k for k, spec in schema.items() if is_blob(spec))
    saved, encoded = 0, []
    for rows in shards:
        raw_records, blob_records = [], []
        for row in rows:
            missing = [k for k in schema if k not in row]
            if missing:
                raise ValueError(f"MindRecord: a row lacks the schema's field(s) {missing}: {sorted(row)}")
            scalars = {k: row[k] for k in schema if not is_blob(schema[k])}
            raw_records.append(pack(scalars or None))     # no scalar field: a null, as MindSpore writes
            blob = b"" if blob_names else b"\0\0\0\0"     # no blob field: 4 zero bytes, as MindSpore writes
            for name in blob_names:
                data, gain = encode_blob(schema[name], row[name])
                blob += data if len(blob_names) == 1 else struct.pack(">Q", len(data)) + data
                saved += gain
            blob_records.append(blob)
        encoded.append((raw_records, blob_records))
    for shard_id, (path, rows, (raw_records, blob_records)) in enumerate(zip(paths, shards, encoded)):
        blob_pages, blob_spots = _pages(blob_records, "BLOB_DATA", 0, PAGE_SIZE, shard_id)
        raw_pages, raw_spots = _pages(raw_records, "RAW_DATA", len(blob_pages), PAGE_SIZE, shard_id)
        pages = blob_pages + raw_pages
        header = {"header_size": HEADER_SIZE,
                  "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
                  "page": [entry for entry, _ in pages], "page_size": PAGE_SIZE, "compression_size": saved,
                  "schema": [{"blob_fields": blob_names, "desc": desc,
                              "schema": {k: dict(sorted(v.items(), key=lambda kv: kv[0] != "shape"))
                                         for k, v in sorted(schema.items())}}],
                  "shard_addresses": list(paths), "shard_id": shard_id, "statistics": None, "version": VERSION}
        text = json.dumps(header, separators=(",", ":")).encode()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            for entry, data in pages:
                f.seek(HEADER_SIZE + entry["page_id"] * PAGE_SIZE)
                f.write(data)
        _write_index(path + ".db", path, schema, index_fields, rows, raw_spots, blob_spots)
        for written in (path, path + ".db"):      # owner read / write only, as MindSpore 2.10 leaves them
            os.chmod(written, 0o600)


def write_file(path: str, schema: dict, desc: str, index_fields: list, rows: list) -> None:
    """One shard file and its .db index, as MindSpore's FileWriter writes them."""
    write_shards([path], schema, desc, index_fields, [rows])


def _write_index(db_path, path, schema, index_fields, rows, raw_spots, blob_spots):
    sql_type = {"string": "TEXT", "int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL"}
    columns = "".join(f",INC_{i} INT, {f}_0 {sql_type[schema[f]['type']]}" for i, f in enumerate(index_fields))
    keys = "".join(f",INC_{i}" for i in range(len(index_fields)))
    if os.path.exists(db_path):
        os.remove(db_path)
    db = sqlite3.connect(db_path)
    try:
        db.execute("CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL, "
                   "PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         "
                   "INT  NOT NULL, PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, "
                   f"PAGE_OFFSET_BLOB_END INT  NOT NULL{columns}, PRIMARY KEY(ROW_ID{keys}))")
        db.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        for i, row in enumerate(rows):
            raw = raw_spots[i]
            blob = blob_spots[i] if blob_spots else (0, 0, 0)
            extra = []
            for f in index_fields:
                extra += [0, row[f].item() if isinstance(row[f], np.generic) else row[f]]
            db.execute(f"INSERT INTO INDEXES VALUES ({','.join('?' * (8 + len(extra)))})",
                       [i, raw[0], raw[1], raw[2], 0, blob[0], blob[1], blob[2]] + extra)
        db.execute("INSERT INTO SHARD_NAME VALUES (?)", [path])
        db.commit()
    finally:
        db.close()
