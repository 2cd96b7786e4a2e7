"""mindspore.dataset.vision's video names: DecodeVideo, read_video, read_video_timestamps and
VideoDecoder, decoding with PyAV (the FFmpeg binding; its wheel bundles FFmpeg), the optional
dependency `pycompile[video]`.

MindSpore 2.10 decodes with its own FFmpeg 5.1 code (video_utils.cc); this module follows what it
does, so that the outputs are the same, and says where the result depends on that code:

* Frames are RGB24 from swscale's C table converter as MindSpore's FFmpeg runs it (no
  sws_setColorspaceDetails call, so always BT.601 coefficients, limited range unless the pixel
  format is a full-range "yuvj" one). `_rgb_tables` rebuilds those tables: for 4:2:0 and 4:2:2
  streams the frames equal the wheel's bit for bit (tests/conformance/cases_video.py). Other
  pixel formats take swscale's generic path there; here PyAV's conversion, which can differ by a
  few levels.
* Which frames are kept for a [start_pts, end_pts] range, the first frame's pts clamp and the
  share of audio kept follow video_utils.cc (`_FrameClock`, `_trim_audio`).
* Audio keeps the decoder's sample type (float32 for AAC / MP3, int16 for 16-bit PCM ...). For a
  packed (interleaved) format MindSpore copies channel c as the nb_samples values from offset c
  of the interleaved buffer, not every channels-th value; so does this module, to give the same
  arrays.
"""
from __future__ import annotations

import io
import math
import os
from fractions import Fraction

import numpy as np

from pycompile.dataset.transforms._base import TensorOperation

_INT_MAX = 2147483647.0
_RAW_FORMATS = ("h264", "hevc")
_AUDIO_DTYPES = {"dbl": np.float64, "flt": np.float32, "s16": np.int16, "s32": np.int32, "s64": np.int64,
                 "u8": np.uint8}


def _av():
    try:
        import av
    except ImportError:
        raise ImportError("decoding videos needs PyAV, which is not installed: pip install 'pycompile[video]'") \
            from None
    return av


def _error(message: str) -> RuntimeError:
    from pycompile.dataset.workers import pipeline_error
    return pipeline_error(message)


def _cround(x) -> int:
    """C's round() (halves away from zero)."""
    x = float(x)
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _cdiv(a: int, b: int) -> int:
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---- YUV -> RGB24 as MindSpore's FFmpeg converts it -----------------------------------------------
_BT601 = (104597, 132201, 25675, 53279)      # swscale's default inverse table (crv, cbu, cgu, cgv)
_TABLES: dict = {}
_LUMA_SHIFT = 1024                           # luma table index of Y + offsets = 0


def _rgb_tables(full_range: bool):
    """swscale's C converter tables: a luma table indexed by Y plus a chroma offset (plus
    _LUMA_SHIFT), and the offsets for V (red), U and V (green), U (blue), each indexed by the 8-bit
    chroma value."""
    if full_range in _TABLES:
        return _TABLES[full_range]
    crv, cbu, cgu, cgv = _BT601[0], _BT601[1], -_BT601[2], -_BT601[3]
    cy, oy = 1 << 16, 0
    if full_range:
        crv, cbu, cgu, cgv = (_cdiv(c * 224, 255) for c in (crv, cbu, cgu, cgv))
    else:
        cy, oy = cy * 255 // 219, 16 << 16
    crv, cbu, cgu, cgv = (_cdiv((c << 16) + 0x8000, cy) for c in (crv, cbu, cgu, cgv))
    base = 384 if full_range else 326            # where index 0 sits in swscale's luma table
    k = np.arange(-_LUMA_SHIFT, 1024 + 512, dtype=np.int64)
    luma = np.clip(((base + k) * cy - (384 << 16) - oy + 0x8000) >> 16, 0, 255).astype(np.uint8)
    x = np.arange(256, dtype=np.int64)
    _TABLES[full_range] = out = (luma,) + tuple(((x * c) >> 16) - (c >> 9) for c in (crv, cgu, cgv, cbu))
    return out


def _plane(frame, i: int) -> np.ndarray:
    p = frame.planes[i]
    return np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width]


def _to_rgb(frame) -> np.ndarray:
    """One decoded frame as HWC uint8 RGB, as MindSpore's converter gives it."""
    name = frame.format.name
    if name in ("yuv420p", "yuvj420p", "yuv422p", "yuvj422p") and frame.height % 2 == 0:
        luma, r_v, g_u, g_v, b_u = _rgb_tables(name.startswith("yuvj"))
        y = _plane(frame, 0).astype(np.intp) + _LUMA_SHIFT
        u, v = _plane(frame, 1), _plane(frame, 2)
        rows = np.arange(frame.height) // 2     # 4:2:0 chroma rows; for 4:2:2 swscale reads
        if "422" in name:                       # every other row (it doubles the chroma stride)
            rows = rows * 2
        cols = np.arange(frame.width) // 2
        u, v = u[rows][:, cols], v[rows][:, cols]
        return np.stack([luma[y + r_v[v]], luma[y + g_u[u] + g_v[v]], luma[y + b_u[u]]], axis=-1)
    full = name.startswith("yuvj")
    try:
        return frame.to_ndarray(format="rgb24", src_colorspace="ITU601", src_color_range="JPEG" if full else "MPEG")
    except TypeError:       # a PyAV without colour ranges
        return frame.to_ndarray(format="rgb24")


# ---- timestamps --------------------------------------------------------------------------------------
class _PtsGuess:
    """FFmpeg's best_effort_timestamp (libavcodec's guess_correct_pts), which PyAV does not expose:
    the frame's pts unless its pts have gone backwards more often than its packets' dts."""

    def __init__(self):
        self.faulty_pts = self.faulty_dts = 0
        self.last_pts = self.last_dts = -(1 << 63)

    def __call__(self, pts, dts):
        if dts is not None:
            self.faulty_dts += dts <= self.last_dts
            self.last_dts = dts
        elif pts is not None:
            self.last_dts = pts
        if pts is not None:
            self.faulty_pts += pts <= self.last_pts
            self.last_pts = pts
        elif dts is not None:
            self.last_pts = dts
        if pts is not None and (self.faulty_pts <= self.faulty_dts or dts is None):
            return pts
        return dts


class _FrameClock:
    """video_utils.cc's presentation time of each decoded frame: the best-effort timestamp; the
    frame number times the increment without one; where the time base is one frame, the first
    frame's pts at most 1 (and one less from the second frame on for streams whose first frames
    carry no pts but dts that run one ahead)."""

    def __init__(self, increment: int):
        self.increment, self.number, self.adjust, self.current = increment, 0, False, 0
        self.guess = _PtsGuess()

    def __call__(self, frame) -> int:
        pts = self.guess(frame.pts, frame.dts)
        # MindSpore also requires pkt_dts == coded_picture_number here, which FFmpeg 7+ (PyAV's)
        # no longer reports: that condition is left out (streams without pts only)
        if self.number == 1 and self.increment == 1 and frame.pts is None and frame.dts == 3:
            self.adjust = True
        if pts is None:
            pts = self.number * self.increment
        elif self.increment == 1:
            if self.number == 0:
                pts = min(pts, 1)
            elif self.adjust:
                pts -= 1
        self.current = pts
        return pts


def _stream_rates(stream):
    """(time base, frame rate) as float32, and the pts increment of one frame (video_utils.cc)."""
    tb = stream.time_base
    if tb is None or tb.denominator <= 0:
        raise _error("Failed to calculate the visual time base.")
    rate = stream.average_rate
    if stream.container.format.name in _RAW_FORMATS and stream.codec_context.framerate:
        # a raw H.264 / H.265 stream: FFmpeg 5.1 (MindSpore's) takes the average rate from the
        # codec's timing info, newer ones report the demuxer's default (25)
        rate = stream.codec_context.framerate
    if rate is None:
        if tb.numerator <= 0:
            raise _error("Failed to calculate the visual frame rate.")
        rate = Fraction(tb.denominator, tb.numerator)
        fps = np.float32(tb.denominator // tb.numerator)
    else:
        fps = np.float32(float(rate))
    increment = (tb.denominator * rate.denominator) // (tb.numerator * rate.numerator)
    return np.float32(float(tb)), fps, increment


# ---- opening ---------------------------------------------------------------------------------------
def _open_file(filename: str):
    av = _av()
    path = os.path.realpath(filename)
    if not os.path.exists(path):
        raise _error(f"Invalid file path, {filename} does not exist.")
    if not os.path.isfile(path):
        raise _error(f"Invalid file path, {filename} is not a regular file.")
    size = os.path.getsize(path)
    if size <= 0:
        raise _error(f"{filename} has invalid file size {size}")
    try:
        return av.open(path)
    except av.error.FFmpegError:
        raise _error(f"Failed to open the file {filename}.") from None


def _open_memory(data: bytes):
    av = _av()
    try:
        return av.open(io.BytesIO(data))
    except av.error.FFmpegError:
        raise _error("Failed to open the input.") from None


def _best(container, kind: str):
    """The stream FFmpeg's av_find_best_stream picks, as MindSpore does; None without one."""
    return container.streams.best(kind)


def _open_decoder(stream):
    ctx = stream.codec_context
    if ctx is None or ctx.codec is None:
        raise _error(f"Failed to find a proper codec for {stream.codec_context.name if ctx else 'none'}")
    return ctx


# ---- decoding -----------------------------------------------------------------------------------
def _end_marker(packet) -> bool:
    """The empty packet PyAV's demux yields for each stream at the end (FFmpeg's reader does not)."""
    return packet.size == 0 and packet.dts is None and packet.pts is None


class _Reader:
    """One pass over a container: the frames whose pts lie in [start, end], and the audio."""

    def __init__(self, container, start_pts, end_pts, pts_unit):
        self.container = container
        self.video, self.audio = _best(container, "video"), _best(container, "audio")
        if self.video is None and self.audio is None:
            raise _error("Neither audio nor visual is found.")
        self.height, self.width = 1, 1
        if self.video is not None:
            _open_decoder(self.video)
            ctx = self.video.codec_context
            if ctx.format is None:
                raise _error("The pixel format is AV_PIX_FMT_NONE.")
            self.height, self.width = ctx.height, ctx.width
            self.time_base, self.fps, increment = _stream_rates(self.video)
            self.clock = _FrameClock(increment)
            start, end = np.float32(start_pts), np.float32(end_pts)
            if pts_unit != "pts":
                if self.time_base < 1.0e-9:
                    raise _error(f"The time_base is too small. It is {float(self.time_base):f}")
                start, end = start / self.time_base, end / self.time_base
            self.start, self.end = _cround(start), _cround(end)
        self.frames: dict = {}
        self.start_frame = 0
        if self.audio is not None:
            _open_decoder(self.audio)
            ctx = self.audio.codec_context
            self.sample_format = ctx.format.name if ctx.format is not None else "flt"
            self.channels = len(ctx.layout.channels)
        self.audio_parts: list = []     # per decoded frame: (channels, nb_samples)
        self.audio_failed = False
        self.samples = 0

    def _video_frame(self, frame):
        pts = self.clock(frame)
        number = self.clock.number
        if pts == 1 and number == 0 and self.start == 1:
            self.start = 0
        if self.start <= pts <= self.end:
            if frame.height != self.height or frame.width != self.width:
                raise _error(f"image->height = {self.height} image->width = {self.width}. They are changed at "
                             f"visual frame {number}. frame->hegiht = {frame.height} frame->width = {frame.width}")
            if self.start > 0 and self.start_frame == 0:
                self.start_frame = number
            self.frames[number] = _to_rgb(frame)
        self.clock.number += 1

    def _audio_frame(self, frame):
        fmt = frame.format.name
        if fmt != self.sample_format:
            self.audio_failed = True
            raise _error(f"Failed to support the change of sample format at audio frame {len(self.audio_parts)}")
        channels = len(frame.layout.channels)
        if channels != self.channels:
            if self.audio_parts:
                self.audio_failed = True
                raise _error(f"The frame->channels is {channels}, it should be {self.channels} at audio frame "
                             f"{len(self.audio_parts)}")
            self.channels = channels
        data = frame.to_ndarray()
        n = frame.samples
        if fmt.endswith("p"):
            part = data[:, :n]
        else:       # MindSpore's copy of a packed buffer: channel c from offset c, n values in a row
            flat = data.reshape(-1)
            part = np.stack([flat[c:c + n] for c in range(channels)])
        self.audio_parts.append(part)
        self.samples += n

    def _decode(self, stream, packet, on_frame):
        av = _av()
        try:
            frames = stream.codec_context.decode(packet)
        except av.error.FFmpegError as e:
            if stream is self.audio:        # MindSpore warns and stops reading the audio
                self.audio_failed = True
                return
            number = self.clock.number
            what = " when flushing the codec_context" if packet is None else ""
            raise _error(f"Failed to receive packet for visual frame {number}{what}") from e
        for frame in frames:
            on_frame(frame)

    def read(self):
        streams = [s for s in (self.video, self.audio) if s is not None]
        for packet in self.container.demux(streams):
            if _end_marker(packet):         # the decoders are flushed below
                continue
            if packet.stream is self.audio and not self.audio_failed:
                self._decode(self.audio, packet, self._audio_frame)
            if packet.stream is self.video:
                self._decode(self.video, packet, self._video_frame)
        if self.audio is not None and not self.audio_failed:
            self._decode(self.audio, None, self._audio_frame)
        if self.video is not None:
            self._decode(self.video, None, self._video_frame)
        return self._video_array(), self._audio_array()

    def _video_array(self):
        if not self.frames:
            return np.zeros((0, self.height, self.width, 3), np.uint8)
        if 0 in self.frames:
            self.start_frame = 0
        return np.stack([self.frames[k] for k in sorted(self.frames)])

    def _audio_array(self):
        if self.audio is None or not self.audio_parts:
            return np.zeros((1, 0), np.float32)
        dtype = _AUDIO_DTYPES.get(self.sample_format.rstrip("p"), np.float32)
        audio = np.concatenate(self.audio_parts, axis=1).astype(dtype, copy=False)
        return _trim_audio(audio, self) if self.video is not None else audio


def _trim_audio(audio, reader):
    """The audio that goes with the frames kept: the same share of the samples (video_utils.cc's
    AudioStartEnd, in float32 as there)."""
    points, frames, kept = reader.samples, reader.clock.number, len(reader.frames)
    if points < 1 or frames < 1:
        return audio
    per_frame = np.float32(points) / np.float32(frames)
    start = _cround(np.float32(reader.start_frame) * per_frame)
    end = start + _cround(np.float32(kept) * per_frame)
    if start < 1 and end >= points:
        return audio
    return np.ascontiguousarray(audio[:, start:end])


def _metadata(reader) -> dict:
    meta = {}
    if reader.audio is not None:
        meta["audio_fps"] = int(reader.audio.codec_context.sample_rate)
    if reader.video is not None:
        meta["video_fps"] = float(f"{float(reader.fps):f}")       # std::to_string of a float
    return meta


# ---- the public names -------------------------------------------------------------------------------
class DecodeVideo(TensorOperation):
    """Decode a video file's bytes (a 1-D uint8 array) into its frames, uint8 (T, H, W, 3) RGB, and
    its audio, (channels, samples) in the decoder's sample type: MindSpore's DecodeVideo."""

    def __call__(self, *inputs: np.ndarray) -> tuple:
        for x in inputs:
            if not isinstance(x, np.ndarray):
                raise TypeError(f"Input should be ndarray, got {type(x)}.")
        return self._apply(*inputs)

    def _apply(self, *arrays):
        data = arrays[0]
        if data.size == 0:
            raise _error("Input Tensor has no data.")
        if data.ndim != 1:
            raise _error(f"DecodeVideo: invalid input shape, only support 1D input, got rank: {data.ndim}")
        if len(arrays) != 1:
            raise _error(f"The input has invalid size {len(arrays)}")
        if data.dtype != np.uint8:
            raise _error(f"The type of the elements of input data should be UINT8, but got {data.dtype}.")
        with _open_memory(np.ascontiguousarray(data).tobytes()) as container:
            return _Reader(container, 0, _INT_MAX, "pts").read()


def read_video(filename: str, start_pts=0, end_pts=None, pts_unit: str = "pts") -> tuple:
    """(frames uint8 (T, H, W, 3), audio (channels, samples), {"audio_fps": int, "video_fps": float})
    of the frames whose pts lie in [start_pts, end_pts] (in `pts_unit`: the stream's time base,
    "pts", or seconds, "sec"), and the audio that goes with them."""
    if not isinstance(filename, str):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")
    if not isinstance(start_pts, (float, Fraction, int)):
        raise TypeError(f"Input start_pts is not of type [{float}, {Fraction}, {int}], but got: {type(start_pts)}")
    if start_pts < 0.0:
        raise ValueError(f"Not supported start_pts for {start_pts}. The start_pts should be >= 0.")
    if end_pts is None:
        end_pts = _INT_MAX
    if not isinstance(end_pts, (float, Fraction, int)):
        raise TypeError(f"Input end_pts is not of type [{float}, {Fraction}, {int}], but got: {type(end_pts)}")
    if end_pts < start_pts:
        raise ValueError(f"Not supported end_pts for {end_pts}. start_pts = {start_pts}. "
                         "The end_pts should be >= start_pts.")
    if not isinstance(pts_unit, str):
        raise TypeError(f"Input pts_unit is not of type {str}, but got: {type(pts_unit)}.")
    if pts_unit not in ("pts", "sec"):
        raise ValueError("Not supported pts_unit for " + pts_unit)
    path = os.path.realpath(filename)
    if not os.path.exists(path):
        raise ValueError(f"Invalid file path, {filename} does not exist.")
    if not os.path.isfile(path):
        raise ValueError(f"Invalid file path, {filename} is not a regular file.")
    with _open_file(filename) as container:
        reader = _Reader(container, float(start_pts), float(end_pts), pts_unit)
        video, audio = reader.read()
        return video, audio, _metadata(reader)


def _has_lavc_tag(extradata) -> bool:
    """MindSpore's test for a stream written by libavcodec: "Lavc" in the last string of the
    codec's extradata (then it reads the packets' pts instead of decoding)."""
    if not extradata:
        return False
    data = bytes(extradata)
    i = max(len(data) - 4, 0)
    while i > 0 and data[i - 1] != 0:
        i -= 1
    return b"Lavc" in data[i:].split(b"\0", 1)[0]


def _decoded(ctx, packet, message):
    av = _av()
    try:
        return ctx.decode(packet)
    except av.error.FFmpegError as e:
        raise _error(message) from e


def read_video_timestamps(filename: str, pts_unit: str = "pts") -> tuple:
    """(the pts of every frame, in the stream's time base (int) or seconds (float), the frame
    rate); ([], None) for a file without video."""
    if not isinstance(filename, str):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")
    if not isinstance(pts_unit, str):
        raise TypeError(f"Input pts_unit is not of type {str}, but got: {type(pts_unit)}.")
    if pts_unit not in ("pts", "sec"):
        raise _error(f"ReadVideoTimestamps: Not supported pts_unit for {pts_unit}")
    with _open_file(filename) as container:
        stream = _best(container, "video")
        if stream is None:
            return [], None
        ctx = _open_decoder(stream)
        time_base, fps, increment = _stream_rates(stream)
        pts_list = []
        if _has_lavc_tag(ctx.extradata):
            for number, packet in enumerate(container.demux()):
                if packet.stream is not stream or _end_marker(packet):
                    continue
                if packet.pts is None:
                    raise _error(f"Failed to skip frame because there is no pts value for packet {number}")
                pts_list.append(packet.pts)
        else:
            clock = _FrameClock(increment)
            for number, packet in enumerate(container.demux(stream)):
                if _end_marker(packet):
                    continue
                for frame in _decoded(ctx, packet, f"Failed to receive packet {number}."):
                    pts_list.append(clock(frame))
                    clock.number += 1
            flushed = _decoded(ctx, None, "Failed to receive frame during the flushing of the decoders.")
            for frame in flushed:               # no clamp, no adjustment
                pts = clock.guess(frame.pts, frame.dts)
                clock.current = pts if pts is not None else clock.current + increment
                pts_list.append(clock.current)
    if not pts_list:
        return pts_list, None
    if pts_unit == "pts":
        return pts_list, float(fps)
    return [x * float(time_base) for x in pts_list], float(fps)


def _check_source(source):
    """MindSpore's check_file: a str naming a readable file, without characters it forbids."""
    if not isinstance(source, str):
        raise TypeError(f"path: {source} is not string")
    path = os.path.realpath(source)
    name = os.path.basename(path)
    if set(name) & set(r'\/:*?"<>|`&\';'):
        raise ValueError(r"filename should not contain \/:*?\"<>|`&;\'")
    if name.startswith(" ") or name.endswith(" "):
        raise ValueError("filename should not start/end with space.")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError(f"The file {path} does not exist or permission denied!")


class VideoDecoder:
    """A video file's first video stream: its `metadata` (width, height, duration_seconds,
    num_frames, average_fps). `get_frames_at` decodes on Ascend's DVPP in MindSpore and raises
    its CPU error here, as MindSpore does on a CPU backend."""

    def __init__(self, source: str):
        _check_source(source)
        self.source = source
        self._metadata = self.metadata

    @property
    def metadata(self) -> dict:
        av = _av()
        path = os.path.realpath(self.source)
        try:
            container = av.open(path)
        except av.error.FFmpegError:
            raise _error(f"Failed to open the file: {path}") from None
        with container:
            videos = container.streams.video
            if not videos:
                raise IndexError("list index out of range")
            stream = videos[0]
            return {"width": stream.width, "height": stream.height,
                    "duration_seconds": round(float(stream.duration * stream.time_base), 6),
                    "num_frames": stream.frames, "average_fps": float(stream.average_rate)}

    def get_frames_at(self, indices: list) -> np.ndarray:
        raise RuntimeError("Method get_frames_at is only supported on Ascend platform.")
