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

With `schema` (a ds.Schema or a JSON schema file's path) the schema's columns are the columns, in
its order (a JSON object's columns sorted by name, as MindSpore's JSON reader keeps them), and each
feature is converted as MindSpore's ParseExample does (tests/oracle/data/tfrecord_schema_data35d.json):
int64 and float features to any numeric type or bool (C casts: floats truncate, ints wrap), bytes
to "string" (str array) or "uint8" (the values' bytes joined); a declared shape reshapes (-1
inferred), a scalar shape [] needs one value; without a shape the values stay 1-D, except rank 0
in a schema file read from its path, where one value is a scalar. The schema's numRows limits the
rows when num_samples is not given. A missing feature, another kind of value or a shape that does
not fit is MindSpore's RuntimeError naming the file.
"""
from __future__ import annotations

import struct

import numpy as np

from pycompile.common.checksums import masked_crc32c
from pycompile.dataset.file_sources import Shuffle, _FileRows
from pycompile.dataset.schema import schema_columns


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


_PIPELINE = "Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n[ERROR] "
_KIND_NAMES = {"S": "string", "U": "string", "O": "string", "u": "string", "i": "int64", "f": "float32"}


def _convert(value, name, kind, shape, rank, path):
    """One feature's values as the schema's column `name` (see the module's text)."""
    def fail(why):
        return RuntimeError(f"{_PIPELINE}map operation: [ParseExample] failed. The corresponding data file is: "
                            f"{path}. {why}")
    actual = "string" if value.dtype == np.uint8 or value.dtype.kind == "S" else _KIND_NAMES[value.dtype.kind]
    if actual == "string":
        parts = [value.tobytes()] if value.dtype == np.uint8 else list(value.reshape(-1))
        if kind == "string":
            out = np.array([p.decode("utf-8") for p in parts])
        elif kind == "uint8":
            out = np.frombuffer(b"".join(parts), np.uint8).copy()
        else:
            out = None
    elif kind in ("string", "bytes"):
        out = None
    elif value.dtype.kind == "f" and np.dtype(kind).kind in "iub":
        out = np.trunc(value).astype(np.int64).astype(kind)
    else:
        out = value.astype(kind)
    if out is None:
        raise fail(f"The data type loaded from the example for feature name: {name} does not match the predefined "
                   f"type in schema, the actual type: {actual}, but the predefined type: {kind}")
    if shape is None:
        return out.reshape(()) if rank == 0 and out.size == 1 else out
    try:
        return out.reshape(shape)
    except ValueError:
        raise fail(f"Column shape of {name} defined in schema does not match the shape actually load.") from None


class TFRecordDataset(_FileRows):
    """Rows of TFRecord files of tf.train.Example records; see the module's text."""

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
                 compression_type=None):
        self.schema = None
        if schema is not None:
            self.schema, num_rows = schema_columns(schema)
            if not num_samples and num_rows:
                num_samples = int(num_rows)
        if compression_type is not None and compression_type not in ("", "ZLIB", "GZIP"):
            raise ValueError("Input compression_type can only be either '' (no compression), 'ZLIB', or 'GZIP', "
                             f"but got '{compression_type}'.")
        self.compression = compression_type or ""
        if columns_list is not None and (not isinstance(columns_list, list) or not columns_list):
            raise ValueError("columns_list must be a non-empty list of feature names.")
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)
        if self.schema is not None:
            self._choose_schema_columns(schema, columns_list)
            return
        first = read_records(self.files[0], self.compression)
        names = sorted(parse_example(first[0])) if first else []
        if columns_list is not None:
            missing = [c for c in columns_list if c not in names]
            if missing:
                raise RuntimeError(f"Invalid columns_list, the column(s) {missing} are not features of "
                                   f"{self.files[0]}: {names}")
            names = list(columns_list)
        self.column_names = names

    def _choose_schema_columns(self, schema, columns_list):
        if not self.schema:
            raise RuntimeError(f'{_PIPELINE}Invalid data, "columns" field is missing in JSON schema string.')
        if columns_list is not None:
            by_name = {c[0]: c for c in self.schema}
            for name in columns_list:
                if name not in by_name:
                    text = schema.to_json() if hasattr(schema, "to_json") else open(schema).read()
                    raise RuntimeError(f"{_PIPELINE}Invalid data, failed to find column: {name} in JSON schema file. "
                                       f"file content: {text}")
            self.schema = [by_name[name] for name in columns_list]
        self.column_names = [c[0] for c in self.schema]

    def get_col_names(self):
        return list(self.column_names)

    def _read(self, path):
        if self.schema is not None:
            rows = []
            for rec in read_records(path, self.compression):
                feats = parse_example(rec)
                row = []
                for name, kind, shape, rank in self.schema:
                    if name not in feats:
                        raise RuntimeError(f"{_PIPELINE}map operation: [ParseExample] failed. The corresponding data "
                                           f"file is: {path}. Feature name: {name} is required in schema but could "
                                           "not be found in tfrecord file.")
                    row.append(_convert(feats[name], name, kind, shape, rank, path))
                rows.append(tuple(row))
            return rows
        rows = []
        for i, rec in enumerate(read_records(path, self.compression)):
            feats = parse_example(rec)
            missing = [c for c in self.column_names if c not in feats]
            if missing:
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {i} lacks the feature(s) {missing}.")
            rows.append(tuple(feats[c] for c in self.column_names))
        return rows
