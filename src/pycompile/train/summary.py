"""SummaryRecord and SummaryCollector (mindspore.train), writing MindSpore's summary file format
for scalar and tensor values (issue 33, surface33).

The file is what MindSpore 2.10 writes and MindInsight reads: `<prefix>.out.events.summary.
<seconds>.<device id>.<host><suffix>` holding records of (uint64 length, masked CRC-32C of the
length, data, masked CRC-32C of the data), each an `Event` protobuf (summary.proto): the first
one the version mark "MindSpore.Event:1", then one per `record(step)` with the step's values -
a scalar as `scalar_value`, a tensor as an anf_ir `TensorProto` (dims, data_type, float_data).
Images, histograms and lineage / graph records are not written: `add_value` refuses them.
The protobuf encoding is written by hand below (a handful of fields), no protobuf dependency.
"""
from __future__ import annotations

import os
import platform
import struct
import time

import numpy as np

from pycompile.common.checksums import masked_crc32c as masked_crc
from pycompile.common.tensor import Tensor
from pycompile.train.callback._callback import Callback

_PLUGINS = ["tensor", "scalar", "image", "histogram", "train_lineage", "eval_lineage", "dataset_graph",
            "custom_lineage_data", "graph", "landscape"]
_WRITTEN = ("scalar", "tensor")
_DATA_TYPE = {np.bool_: 1, np.int8: 2, np.int16: 3, np.int32: 4, np.int64: 5, np.uint8: 6, np.uint16: 7,
              np.uint32: 8, np.uint64: 9, np.float16: 10, np.float32: 11, np.float64: 12}


def frame(data: bytes) -> bytes:
    """One record: length, its masked CRC, the data, its masked CRC."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))


# ---- protobuf, by hand ---------------------------------------------------------------------------------
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _bytes_field(field: int, payload: bytes) -> bytes:
    return _key(field, 2) + _varint(len(payload)) + payload


def _tensor_proto(array: np.ndarray) -> bytes:
    out = b"".join(_key(1, 0) + _varint(int(d)) for d in array.shape)
    out += _key(2, 0) + _varint(_DATA_TYPE[array.dtype.type])
    floats = np.asarray(array, np.float64).reshape(-1).astype("<f4").tobytes()
    return out + (_bytes_field(3, floats) if floats else b"")


def _value(tag: str, plugin: str, array: np.ndarray) -> bytes:
    out = _bytes_field(1, tag.encode())
    if plugin == "scalar":
        out += _key(3, 5) + struct.pack("<f", float(array.reshape(-1)[0]))
    else:
        out += _bytes_field(8, _tensor_proto(array))
    return out


def _event(wall_time: float, step=None, version=None, values=()) -> bytes:
    out = _key(1, 1) + struct.pack("<d", wall_time)
    if step is not None:
        out += _key(2, 0) + _varint(int(step))
    if version is not None:
        out += _bytes_field(3, version.encode())
    if values:
        out += _bytes_field(5, b"".join(_bytes_field(1, v) for v in values))
    return out


class SummaryRecord:
    """Write scalars and tensors for MindInsight: `add_value('scalar' | 'tensor', name, Tensor)`
    queues a value, `record(step)` writes the queued values as one event (True when written),
    `flush()` / `close()` (or a `with` block) finish the file. `log_dir` is created if missing."""

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32, network=None,
                 max_file_size=None, raise_exception=False, export_options=None):
        if not isinstance(log_dir, str) or not log_dir:
            raise ValueError(f"For 'SummaryRecord', the 'log_dir' must be a non-empty str, but got {log_dir!r}.")
        for name, value in (("file_prefix", file_prefix), ("file_suffix", file_suffix)):
            if not isinstance(value, str):
                raise TypeError(f"For 'SummaryRecord', the '{name}' must be str, but got {type(value)}.")
        if max_file_size is not None and (not isinstance(max_file_size, int) or max_file_size <= 0):
            raise ValueError(f"For 'SummaryRecord', the 'max_file_size' must be a positive int, "
                             f"but got {max_file_size}.")
        os.makedirs(log_dir, mode=0o700, exist_ok=True)
        self._log_dir = os.path.realpath(log_dir)
        from pycompile.common.context import get_context
        name = (f"{file_prefix}.out.events.summary.{int(time.time())}.{get_context('device_id') or 0}."
                f"{platform.node()}{file_suffix}")
        self.file_path = os.path.join(self._log_dir, name)
        self._file = open(self.file_path, "wb")
        os.chmod(self.file_path, 0o600)
        self._max_file_size, self._raise = max_file_size, raise_exception
        self._pending, self._mode, self._closed = [], "train", False
        self._write(_event(time.time(), version="MindSpore.Event:1"))

    @property
    def log_dir(self) -> str:
        return self._log_dir

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _write(self, data: bytes) -> None:
        record = frame(data)
        if self._max_file_size is not None and self._file.tell() + len(record) > self._max_file_size:
            raise RuntimeError(f"For 'SummaryRecord', the summary file {self.file_path} would exceed "
                               f"max_file_size {self._max_file_size}.")
        self._file.write(record)

    def set_mode(self, mode) -> None:
        """'train' or 'eval' (values added in eval mode are not written, as in MindSpore)."""
        if mode not in ("train", "eval"):
            raise ValueError(f'For "SummaryRecord.set_mode", \'{mode}\' is not a recognized mode, expect the '
                             f'parameter "mode" is "train" or "eval"')
        self._mode = mode

    def add_value(self, plugin, name, value) -> None:
        """Queue a value for the next record(): plugin 'scalar' (a Tensor of one value) or 'tensor'."""
        if plugin not in _PLUGINS:
            raise ValueError(f'For "SummaryRecord.add_value", no such "plugin" of \'{plugin}\' , expect value is one '
                             f'of [{", ".join(_PLUGINS)}]')
        if plugin not in _WRITTEN:
            raise ValueError(f"For 'SummaryRecord.add_value', pycompile writes only 'scalar' and 'tensor' values, "
                             f"not '{plugin}'.")
        if not isinstance(name, str) or not name:
            raise ValueError(f'For "SummaryRecord", the parameter "name" type should be str, but got {type(name)}.')
        if not isinstance(value, Tensor):
            raise TypeError(f'For "SummaryRecord", the parameter "value" expect to be Tensor, but got '
                            f'{type(value).__name__}')
        array = value.asnumpy()
        if plugin == "scalar" and array.size != 1:
            raise ValueError(f'For "SummaryRecord", the v rank must be less than or equal to 1, but got '
                             f'{array.size}.')
        if array.dtype.type not in _DATA_TYPE:
            raise TypeError(f"For 'SummaryRecord', a {array.dtype} tensor cannot be written.")
        if self._mode == "train":
            self._pending.append((name, plugin, np.array(array)))

    def record(self, step, train_network=None, plugin_filter=None) -> bool:
        """Write the queued values as the event of `step`; False once closed."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"The type of 'step' should be 'int', but got type '{type(step).__name__}'.")
        if self._closed:
            return False
        values = [(n, p, a) for n, p, a in self._pending if plugin_filter is None or plugin_filter(p)]
        self._pending = []
        if values:
            self._write(_event(time.time(), step=step, values=[_value(n, p, a) for n, p, a in values]))
        return True

    def flush(self) -> None:
        if not self._closed:
            self._file.flush()

    def close(self) -> None:
        if not self._closed:
            self._file.flush()
            self._file.close()
            os.chmod(self.file_path, 0o400)
            self._closed = True


def read_summary(path: str) -> list:
    """The events of a summary file as dicts {wall_time, step, version, values: [(tag, value)]}
    (a scalar as float, a tensor as an ndarray of its float_data): what this module writes, for
    tests and for reading MindSpore's own files' scalars and tensors. Checks every CRC."""
    events = []
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos < len(blob):
        length_bytes = blob[pos:pos + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        if struct.unpack("<I", blob[pos + 8:pos + 12])[0] != masked_crc(length_bytes):
            raise ValueError(f"{path}: bad length CRC at byte {pos}")
        data = blob[pos + 12:pos + 12 + length]
        if struct.unpack("<I", blob[pos + 12 + length:pos + 16 + length])[0] != masked_crc(data):
            raise ValueError(f"{path}: bad data CRC at byte {pos}")
        events.append(_parse_event(data))
        pos += 16 + length
    return events


def _fields(data: bytes):
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            n, pos = _read_varint(data, pos)
            value, pos = data[pos:pos + n], pos + n
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield field, wire, value


def _read_varint(data: bytes, pos: int):
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def _parse_event(data: bytes) -> dict:
    event = {"wall_time": None, "step": None, "version": None, "values": []}
    for field, _, value in _fields(data):
        if field == 1:
            event["wall_time"] = struct.unpack("<d", value)[0]
        elif field == 2:
            event["step"] = value
        elif field == 3:
            event["version"] = value.decode()
        elif field == 5:
            for f, _, v in _fields(value):
                if f == 1:
                    event["values"].append(_parse_value(v))
    return event


def _parse_value(data: bytes):
    tag, out = None, None
    for field, _, value in _fields(data):
        if field == 1:
            tag = value.decode()
        elif field == 3:
            out = struct.unpack("<f", value)[0]
        elif field == 8:
            dims, floats = [], b""
            for f, wire, v in _fields(value):
                if f == 1:
                    dims.append(v)
                elif f == 3:
                    floats += v if wire == 2 else v
            out = np.frombuffer(floats, "<f4").reshape(dims)
    return tag, out


class SummaryCollector(Callback):
    """A training callback writing the loss (tag 'loss') every `collect_freq` steps, and at the
    end, to a SummaryRecord in `summary_dir` (a subset of MindSpore's collector: no graphs,
    histograms, images or lineage)."""

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        if isinstance(collect_freq, bool) or not isinstance(collect_freq, int) or collect_freq <= 0:
            raise ValueError(f'For "SummaryCollector", the value of `collect_freq` should be greater than 0, '
                             f'but got `{collect_freq}`.')
        self.summary_dir, self.collect_freq, self._max_file_size = summary_dir, collect_freq, max_file_size
        self._record = None
        self._last_step = None

    def _writer(self):
        if self._record is None:
            self._record = SummaryRecord(self.summary_dir, max_file_size=self._max_file_size)
        return self._record

    def _loss(self, cb_params):
        out = cb_params.net_outputs
        if isinstance(out, (tuple, list)):
            out = out[0]
        if isinstance(out, Tensor):
            return Tensor(np.float32(out.asnumpy().reshape(-1)[0]))
        return None if out is None else Tensor(np.float32(out))

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        step = cb_params.cur_step_num
        if step == 1 or step % self.collect_freq == 0:
            self._write(cb_params, step)

    def _write(self, cb_params, step):
        loss = self._loss(cb_params)
        if loss is not None and step != self._last_step:
            writer = self._writer()
            writer.add_value("scalar", "loss", loss)
            writer.record(step)
            self._last_step = step

    def on_train_end(self, run_context):
        cb_params = run_context.original_args()
        self._write(cb_params, cb_params.cur_step_num)
        if self._record is not None:
            self._record.close()


__all__ = ["SummaryRecord", "SummaryCollector"]
