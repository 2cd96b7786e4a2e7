"""SummaryRecord and SummaryCollector (mindspore.train), writing MindSpore's summary file format
(issue 33, surface33), and the values of the summary operators (ops.ScalarSummary, TensorSummary,
ImageSummary, HistogramSummary: ops/entries/summary_ops.py).

The file is what MindSpore 2.10 writes and MindInsight reads: `<prefix>.out.events.summary.
<seconds>.<device id>.<host><suffix>` holding records of (uint64 length, masked CRC-32C of the
length, data, masked CRC-32C of the data), each an `Event` protobuf (summary.proto, proto2: a field
that was set is written even when 0): the first one the version mark "MindSpore.Event:1", then one
per `record(step)` with the step's values (Summary.Value: tag 1 and one of)
- scalar (3, float): the value;
- tensor (8): an anf_ir TensorProto (dims, data_type, float_data packed);
- image (4): Image {height, width, colorspace 3, encoded_image PNG}: the NCHW batch laid out on a
  grid of at most 8 columns (grey images repeated to RGB), scaled to 0..255 as the wheel does (x255
  when all values lie in [0, 1], else (x - min) * 255 / (max - min + 1), in float32, truncated to
  uint8) and encoded by Pillow exactly as the wheel's `_make_image` (Pillow is the `images`
  extra; without it a PNG written here by zlib holds the same pixels, not the same bytes). A 4-D
  value whose C is not 1 or 3, or with a 0 dimension, is left out of the event (the wheel logs it);
- histogram (9): Histogram {buckets (left, width, count), nan_count, pos_inf_count, neg_inf_count,
  max, min, sum, count}: the finite values' min / max / float64 sum, and count // 10 + 1 buckets
  (2 for up to 5 values, 3 for up to 10, at most 90) of equal width from min to max (+-0.5 when
  they are equal), edges in the value's dtype, as the wheel's `_fill_histogram_summary`.
Values are written grouped by kind, kinds in the order they were first added, as the wheel's
data pool: user add_value() calls first, then the summary operators' values - PyNative's in call
order, graph code's sorted by "tag[:Kind]" (the wheel's runtime order).

Not written (the wheel writes them): the graph event (the network's optimized graph proto, which
MindSpore writes at the first record() of a graph-mode network), lineage and landscape records;
`add_value` refuses those plugins. With MindSpore, that first record() of a graph-mode network
whose summary operators produced nothing also returns early, keeping add_value's values for the
next step; pycompile writes them at once. The protobuf encoding is written by hand below (a
handful of fields), no protobuf dependency.
"""
from __future__ import annotations

import os
import platform
import struct
import time

import numpy as np

from pycompile.common.checksums import masked_crc32c as masked_crc
from pycompile.common.tensor import Tensor
from pycompile.ops.entries import summary_ops as _summary_ops
from pycompile.train.callback._callback import Callback

_PLUGINS = ["tensor", "scalar", "image", "histogram", "train_lineage", "eval_lineage", "dataset_graph",
            "custom_lineage_data", "graph", "landscape"]
_WRITTEN = ("scalar", "tensor", "image", "histogram")
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


def _double(field: int, v) -> bytes:
    return _key(field, 1) + struct.pack("<d", float(v))


def _histogram_bins(count: int) -> int:
    """The wheel's bucket count for `count` finite values."""
    if not count:
        return 1
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    return count // 10 + 1 if count <= 880 else 90


def _histogram(array: np.ndarray) -> bytes:
    """Summary.Histogram of `array`, as the wheel's _fill_histogram_summary computes it."""
    masked = np.ma.masked_invalid(array)
    total, valid = array.size, int(masked.count())
    invalids = []
    for isfn in (np.isnan, np.isposinf, np.isneginf):
        invalids.append(int(np.count_nonzero(isfn(array))) if total - valid > sum(invalids) else 0)
    tail = b"".join(_key(f, 0) + _varint(n) for f, n in zip((2, 3, 4), invalids))
    if not valid:
        return tail + _key(8, 0) + _varint(total)
    if issubclass(array.dtype.type, np.floating):
        lo, hi = float(masked.min(fill_value=np.inf)), float(masked.max(fill_value=-np.inf))
    else:
        lo, hi = float(masked.min()), float(masked.max())
    total_sum = float(masked.sum(dtype=np.float64))
    first, last = (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)
    edges = np.linspace(first, last, _histogram_bins(valid) + 1, dtype=array.dtype)
    counts, edges = np.histogram(array, bins=edges)
    buckets = b"".join(
        _bytes_field(1, _double(1, e1) + _double(2, e2 - e1) + _key(3, 0) + _varint(int(c)))
        for c, e1, e2 in zip(counts, edges, edges[1:]))
    return buckets + tail + _double(5, hi) + _double(6, lo) + _double(7, total_sum) + _key(8, 0) + _varint(total)


def _image_pixels(array: np.ndarray):
    """The HWC uint8 picture the wheel makes of an NCHW batch, or None where it writes none."""
    if array.ndim != 4 or array.shape[1] not in (1, 3) or 0 in array.shape:
        return None
    if array.shape[1] == 1:
        array = np.concatenate([array, array, array], 1)
    n, _, h, w = array.shape
    cols = min(n, 8)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = array[i]
    hwc = canvas.transpose(1, 2, 0)
    hi, lo = np.max(hwc), np.min(hwc)
    scale, shift = 1.0, 0.0
    if hi <= 1 and lo >= 0:
        scale = 255.0
    else:
        if hi != lo:
            scale = 255 / (hi - lo + 1)
        shift = lo
    # float32 throughout, as the wheel computes it (NumPy 1.x: a float64 scalar joins a float32
    # array as float32)
    return ((hwc.astype(np.float32) - np.float32(shift)) * np.float32(scale)).astype(np.uint8)


def _png(pixels: np.ndarray) -> bytes:
    """PNG bytes of an HWC uint8 RGB picture: Pillow's, as the wheel's; else written here."""
    try:
        from PIL import Image
    except ImportError:
        return _png_plain(pixels)
    import io
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _png_plain(pixels: np.ndarray) -> bytes:
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _value(tag: str, plugin: str, array: np.ndarray):
    """One Summary.Value, or None where the wheel leaves the value out (an image that is not one)."""
    out = _bytes_field(1, tag.encode())
    if plugin == "scalar":
        return out + _key(3, 5) + struct.pack("<f", float(array.reshape(-1)[0]))
    if plugin == "image":
        pixels = _image_pixels(array)
        if pixels is None:
            return None
        h, w, c = pixels.shape
        image = _key(1, 0) + _varint(h) + _key(2, 0) + _varint(w) + _key(3, 0) + _varint(c)
        return out + _bytes_field(4, image + _bytes_field(4, _png(pixels)))
    if plugin == "histogram":
        return out + _bytes_field(9, _histogram(array))
    return out + _bytes_field(8, _tensor_proto(array))


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
    """Write scalars, tensors, images and histograms for MindInsight: `add_value('scalar' | 'tensor' |
    'image' | 'histogram', name, Tensor)` queues a value, `record(step)` writes the queued values
    and those the summary operators produced since the last record (train mode) as one event (True
    unless closed), `flush()` / `close()` (or a `with` block) finish the file. `log_dir` is created
    if missing."""

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
        # plugin -> [(tag, array)]: the wheel's data pool (a kind's values together, kinds in the order
        # they came)
        self._pool, self._mode, self._closed = {}, "train", False
        _summary_ops.clear_graph_values()     # as the wheel's constructor empties its graph-value cache
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
        """Queue a value for the next record(): plugin 'scalar' (a Tensor of one value), 'tensor',
        'image' (NCHW) or 'histogram'."""
        if plugin not in _PLUGINS:
            raise ValueError(f'For "SummaryRecord.add_value", no such "plugin" of \'{plugin}\' , expect value is one '
                             f'of [{", ".join(_PLUGINS)}]')
        if plugin not in _WRITTEN:
            raise ValueError(f"For 'SummaryRecord.add_value', pycompile writes only 'scalar', 'tensor', 'image' "
                             f"and 'histogram' values, not '{plugin}'.")
        if not isinstance(name, str) or not name:
            raise ValueError(f'For "SummaryRecord", the parameter "name" type should be str, but got {type(name)}.')
        if not isinstance(value, Tensor):
            raise TypeError(f'For "SummaryRecord", the parameter "value" expect to be Tensor, but got '
                            f'{type(value).__name__}')
        array = _checked(plugin, value.asnumpy(), "SummaryRecord")
        if array.dtype.type not in _DATA_TYPE:
            raise TypeError(f"For 'SummaryRecord', a {array.dtype} tensor cannot be written.")
        if self._mode == "train":
            self._pool.setdefault(plugin, []).append((name, np.array(array)))

    def _add_summary_ops_values(self) -> None:
        """The summary operators' values since the last record() (ops/entries/summary_ops.py), as
        the wheel takes them: graph code's (each graph's sorted by "tag[:Kind]"), then PyNative's, each checked
        (a bad one raises here, and the PyNative ones are dropped), a tag's last value."""
        eager, _summary_ops.EAGER[:] = list(_summary_ops.EAGER), []
        for prim, tag, value in eager:
            if not isinstance(tag, str) or not tag:
                raise TypeError(f'For "{prim}", the name must be valid string, but got "{tag}".')
            if not isinstance(value, Tensor):
                raise TypeError(f'For "{prim}", the parameter "value" expect to be Tensor, '
                                f'but got {type(value).__name__}')
            _checked(prim[:-len("Summary")].lower(), value.asnumpy(), prim)
        values = _summary_ops.take_graph_values()
        for prim, tag, value in eager:
            values[f"{tag}[:{_summary_ops.KINDS[prim]}]"] = value.asnumpy()
        for key, array in values.items():
            tag, kind = key[:-1].rsplit("[:", 1)
            self.add_value(kind.lower(), tag, Tensor(array))

    def record(self, step, train_network=None, plugin_filter=None) -> bool:
        """Write the queued values as the event of `step`; False once closed."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"The type of 'step' should be 'int', but got type '{type(step).__name__}'.")
        if self._closed:
            return False
        if self._mode == "train":
            self._add_summary_ops_values()
        values = [_value(n, p, a) for p, queued in self._pool.items() if plugin_filter is None or plugin_filter(p)
                  for n, a in queued]
        self._pool = {}
        values = [v for v in values if v is not None]
        if values:
            self._write(_event(time.time(), step=step, values=values))
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


def _checked(plugin: str, array: np.ndarray, who: str) -> np.ndarray:
    """The wheel's check of a value for its plugin (its _check_to_numpy), `who` naming the caller."""
    if plugin == "scalar" and array.size != 1:
        raise ValueError(f'For "{who}", the v rank must be less than or equal to 1, but got '
                         f'{len(array) if array.ndim else array.size}.')
    if plugin == "image" and array.ndim != 4:
        raise ValueError(f'For "{who}", the tensor seems not to hold a valid image.')
    if plugin in ("tensor", "histogram") and array.ndim == 0:
        raise ValueError(f'For "{who}", the value should not be empty.')
    return array


def read_summary(path: str) -> list:
    """The events of a summary file as dicts {wall_time, step, version, graph, values: [(tag, value)]}
    (a scalar as float, a tensor as an ndarray of its float_data, an image as a dict {height, width,
    colorspace, encoded_image (PNG bytes)}, a histogram as a dict {buckets: [(left, width, count)],
    nan_count, pos_inf_count, neg_inf_count, max, min, sum, count} (max / min / sum None when not
    written: no finite values); `graph` True for MindSpore's graph event, whose graph is not read):
    what this module writes, for tests and for reading MindSpore's own files. Checks every CRC."""
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
    event = {"wall_time": None, "step": None, "version": None, "graph": False, "values": []}
    for field, _, value in _fields(data):
        if field == 1:
            event["wall_time"] = struct.unpack("<d", value)[0]
        elif field == 2:
            event["step"] = value
        elif field == 3:
            event["version"] = value.decode()
        elif field == 4:
            event["graph"] = True
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
        elif field == 4:
            out = {"height": 0, "width": 0, "colorspace": 0, "encoded_image": b""}
            for f, _, v in _fields(value):
                if f in (1, 2, 3, 4):
                    out[("height", "width", "colorspace", "encoded_image")[f - 1]] = v
        elif field == 9:
            out = _parse_histogram(value)
    return tag, out


def _parse_histogram(data: bytes) -> dict:
    names = {2: "nan_count", 3: "pos_inf_count", 4: "neg_inf_count", 5: "max", 6: "min", 7: "sum", 8: "count"}
    out = {"buckets": [], "nan_count": 0, "pos_inf_count": 0, "neg_inf_count": 0, "max": None, "min": None,
           "sum": None, "count": 0}
    for field, _, value in _fields(data):
        if field == 1:
            bucket = [0.0, 0.0, 0]
            for f, _, v in _fields(value):
                if f in (1, 2):
                    bucket[f - 1] = struct.unpack("<d", v)[0]
                elif f == 3:
                    bucket[2] = v
            out["buckets"].append(tuple(bucket))
        elif field in names:
            out[names[field]] = struct.unpack("<d", value)[0] if field in (5, 6, 7) else value
    return out


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
