"""TFRecordDataset: TFRecord files of tf.train.Example records, read without TensorFlow or
protobuf (a small reader of the framing and of the three wire types the Example messages use).

A TFRecord file is a run of records: length (uint64 little-endian), masked CRC-32C of the
length, the data, masked CRC-32C of the data (both checked here: a corrupt file is a
RuntimeError naming it). The data is a tf.train.Example: Features (field 1) holding a map
(field 1) of name (1) -> Feature (2), where a Feature is a BytesList (1), FloatList (2) or
Int64List (3), each a repeated field 1, packed or not.

Rows as MindSpore 2.10 gives them (tests/oracle/data/sources_data35.json): columns are the
features of the first record of the first file, sorted by name (or `columns_list`, in its
order); an int64 list is int64 (n,), a float list float32 (n,), one bytes value uint8 (its
bytes), several bytes values a bytes array. Files are read in sorted order by MindSpore's
parallel readers, one row from each file's reader in turn (file_sources._FileRows), shuffled
or sharded as CSVDataset is.
"""
from __future__ import annotations

import struct

import numpy as np

from pycompile.common.checksums import masked_crc32c
from pycompile.dataset.file_sources import Shuffle, _FileRows


def _varint(buf: bytes, at: int):
    shift = value = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, at
        shift += 7


def _fields(buf: bytes):
    """(field number, wire type, value) of one message: ints for varints, bytes otherwise."""
    at = 0
    while at < len(buf):
        key, at = _varint(buf, at)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(buf, at)
        elif wire == 1:
            value, at = buf[at:at + 8], at + 8
        elif wire == 2:
            n, at = _varint(buf, at)
            value, at = buf[at:at + n], at + n
        elif wire == 5:
            value, at = buf[at:at + 4], at + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield num, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _feature(buf: bytes):
    for kind, _, body in _fields(buf):
        if kind == 1:
            values = [v for n, _, v in _fields(body) if n == 1]
            return np.frombuffer(values[0], np.uint8).copy() if len(values) == 1 else np.array(values, dtype=bytes)
        if kind == 2:
            out = []
            for n, wire, v in _fields(body):
                if n == 1:
                    out.extend(np.frombuffer(v, "<f4").tolist() if wire == 2 else [struct.unpack("<f", v)[0]])
            return np.array(out, np.float32)
        if kind == 3:
            out = []
            for n, wire, v in _fields(body):
                if n == 1 and wire == 0:
                    out.append(_signed(v))
                elif n == 1:
                    at = 0
                    while at < len(v):
                        x, at = _varint(v, at)
                        out.append(_signed(x))
            return np.array(out, np.int64)
    return np.array([], np.float32)


def parse_example(data: bytes) -> dict:
    """{feature name: NumPy value} of one serialized tf.train.Example."""
    features = {}
    for num, _, body in _fields(data):
        if num != 1:
            continue
        for n, _, entry in _fields(body):
            if n != 1:
                continue
            name, value = "", b""
            for k, _, v in _fields(entry):
                if k == 1:
                    name = v.decode("utf-8")
                elif k == 2:
                    value = v
            features[name] = _feature(value)
    return features


def read_records(path: str, compression: str = "") -> list:
    """The records of a TFRecord file; `compression` "GZIP" / "ZLIB": the file is one gzip / zlib
    stream of the records (what TensorFlow's writers produce with those options)."""
    with open(path, "rb") as f:
        data = f.read()
    if compression:
        import gzip
        import zlib
        try:
            data = gzip.decompress(data) if compression == "GZIP" else zlib.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise RuntimeError(f"Invalid TFRecord file, {path} is not a {compression} compressed file: {e}") from None
    out, at = [], 0
    while at < len(data):
        if at + 12 > len(data):
            raise RuntimeError(f"Invalid TFRecord file, {path} ends inside a record header at byte {at}.")
        head = data[at:at + 8]
        n = struct.unpack("<Q", head)[0]
        if struct.unpack("<I", data[at + 8:at + 12])[0] != masked_crc32c(head) or at + 16 + n > len(data):
            raise RuntimeError(f"Invalid TFRecord file, {path}: the record at byte {at} is corrupt "
                               "(length check failed).")
        body = data[at + 12:at + 12 + n]
        if struct.unpack("<I", data[at + 12 + n:at + 16 + n])[0] != masked_crc32c(body):
            raise RuntimeError(f"Invalid TFRecord file, {path}: the record at byte {at} is corrupt "
                               "(data check failed).")
        out.append(body)
        at += 16 + n
    return out


class TFRecordDataset(_FileRows):
    """Rows of TFRecord files of tf.train.Example records; see the module's text."""

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
                 compression_type=None):
        if schema is not None:
            raise NotImplementedError("pycompile's TFRecordDataset reads the features the records hold; pass "
                                      "columns_list to choose them instead of a schema.")
        if compression_type is not None and compression_type not in ("", "ZLIB", "GZIP"):
            raise ValueError("Input compression_type can only be either '' (no compression), 'ZLIB', or 'GZIP', "
                             f"but got '{compression_type}'.")
        self.compression = compression_type or ""
        if columns_list is not None and (not isinstance(columns_list, list) or not columns_list):
            raise ValueError("columns_list must be a non-empty list of feature names.")
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)
        first = read_records(self.files[0], self.compression)
        names = sorted(parse_example(first[0])) if first else []
        if columns_list is not None:
            missing = [c for c in columns_list if c not in names]
            if missing:
                raise RuntimeError(f"Invalid columns_list, the column(s) {missing} are not features of "
                                   f"{self.files[0]}: {names}")
            names = list(columns_list)
        self.column_names = names

    def get_col_names(self):
        return list(self.column_names)

    def _read(self, path):
        rows = []
        for i, rec in enumerate(read_records(path, self.compression)):
            feats = parse_example(rec)
            missing = [c for c in self.column_names if c not in feats]
            if missing:
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {i} lacks the feature(s) {missing}.")
            rows.append(tuple(feats[c] for c in self.column_names))
        return rows
