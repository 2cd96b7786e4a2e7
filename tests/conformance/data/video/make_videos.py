"""Writes the small videos of the video conformance cases (tests/conformance/cases_video.py).

Run once with PyAV (`pip install av`); the files are committed, so that MindSpore's wheel (whose
venv has no PyAV) and pycompile decode the same bytes. Each is a few KB: 32x24 frames of moving
coloured gradients (so that luma and chroma both vary), and where there is audio, a sine.

* h264_aac.mp4  - 8 frames H.264 (libx264, B-frames) at 10 fps + mono AAC at 8000 Hz (float planar)
* mpeg4_pcm.avi - 8 frames MPEG-4 part 2 at 25 fps + stereo 16-bit PCM at 4000 Hz (interleaved)
* h264_ntsc.mov - 6 frames H.264 at 30000/1001 fps, no audio
* mjpeg_422.avi - 4 frames Motion JPEG, full-range 4:2:2 (yuvj422p), no audio
"""
from __future__ import annotations

import fractions
import os

import av
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 32, 24


def frame_rgb(i: int) -> np.ndarray:
    """Frame i: gradients that move with i, different in each channel."""
    y, x = np.mgrid[0:H, 0:W]
    r = (x * 8 + i * 20) % 256
    g = (y * 10 + i * 15) % 256
    b = ((x + y) * 5 + 128 - i * 10) % 256
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def sine(n: int, rate: int, channels: int, freq: float = 440.0) -> np.ndarray:
    t = np.arange(n) / rate
    return np.stack([0.5 * np.sin(2 * np.pi * freq * (c + 1) * t) for c in range(channels)])


def write(name: str, codec: str, rate, frames: int, options=None, audio=None, pix_fmt="yuv420p") -> None:
    """audio: (codec, sample format, channel layout, sample rate) or None."""
    path = os.path.join(HERE, name)
    with av.open(path, "w") as out:
        vs = out.add_stream(codec, rate=rate, options=options or {})
        vs.width, vs.height, vs.pix_fmt = W, H, pix_fmt
        as_ = None
        if audio:
            acodec, fmt, layout, arate = audio
            as_ = out.add_stream(acodec, rate=arate, layout=layout)
            as_.format = fmt
        for i in range(frames):
            for p in vs.encode(av.VideoFrame.from_ndarray(frame_rgb(i), format="rgb24")):
                out.mux(p)
        for p in vs.encode():
            out.mux(p)
        if as_ is not None:
            acodec, fmt, layout, arate = audio
            channels = 2 if layout == "stereo" else 1
            n = int(arate * frames / float(fractions.Fraction(rate)))
            wave = sine(n, arate, channels)
            if fmt == "s16":                 # interleaved 16-bit
                data = (wave.T.reshape(1, -1) * 32767).astype(np.int16)
            else:                            # planar float
                data = wave.astype(np.float32)
            frame = av.AudioFrame.from_ndarray(data, format=fmt, layout=layout)
            frame.sample_rate, frame.pts = arate, 0
            for p in as_.encode(frame):
                out.mux(p)
            for p in as_.encode():
                out.mux(p)
    print(name, os.path.getsize(path), "bytes")


def main() -> None:
    write("h264_aac.mp4", "libx264", 10, 8, {"preset": "medium", "bf": "2"}, ("aac", "fltp", "mono", 8000))
    write("mpeg4_pcm.avi", "mpeg4", 25, 8, {"qscale": "3"}, ("pcm_s16le", "s16", "stereo", 4000))
    write("h264_ntsc.mov", "libx264", fractions.Fraction(30000, 1001), 6, {"preset": "medium"})
    write("mjpeg_422.avi", "mjpeg", 10, 4, {"qscale": "4"}, pix_fmt="yuvj422p")


if __name__ == "__main__":
    main()
