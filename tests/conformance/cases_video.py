"""The conformance table: mindspore.dataset.vision's video names - DecodeVideo, read_video,
read_video_timestamps, VideoDecoder - on the small videos of data/video/ (written once by
data/video/make_videos.py and committed, so that both frameworks decode the same bytes):
h264_aac.mp4 (H.264 with B-frames + mono AAC), mpeg4_pcm.avi (MPEG-4 part 2 + stereo 16-bit PCM),
h264_ntsc.mov (H.264 at 30000/1001 fps, no audio), mjpeg_422.avi (Motion JPEG, full-range 4:2:2);
and a WAV file each case writes with the standard library. Ids start with ``video_``. All run on
the host (the pipeline, not graph code).

Frames are compared exactly (their bytes' digest, and a sample of pixels to show where they
differ): MindSpore's FFmpeg 5.1 and the newer FFmpeg in PyAV decode these streams to the same
YUV, and pycompile converts to RGB with MindSpore's swscale tables. AAC audio is float32 and
FFmpeg's decoders differ in the last bits (about 1e-7): compared within the float32 tolerance.
Errors are compared by class and MindSpore's own words (the pipeline's "[ERROR] ..." line),
with the temporary folder written <tmp> and the data folder <data>."""
group("video")

_VIDEO_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
_VIDEO_FILES = ("h264_aac.mp4", "mpeg4_pcm.avi", "h264_ntsc.mov", "mjpeg_422.avi")


def _video_dir():
    import os
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "video")


def _video_path(name):
    import os
    return os.path.join(_video_dir(), name)


def _video_frames(v):
    """Frames: dtype, shape, the bytes' digest, and every 6th row / 8th column of each frame."""
    import hashlib
    v = np.asarray(v)
    return str(v.dtype), list(v.shape), hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest(), \
        np.ascontiguousarray(v[:, ::6, ::8])


def _video_audio(a):
    """Audio: dtype, shape and every 8th sample (float audio within tolerance, the rest exactly)."""
    a = np.asarray(a)
    return str(a.dtype), list(a.shape), np.ascontiguousarray(a[:, ::8])


def _video_read(*args, **kwargs):
    v, a, meta = ms.dataset.vision.read_video(*args, **kwargs)
    return _video_frames(v), _video_audio(a), sorted(meta.items())


def _video_wav(root):
    """A 2-channel 16-bit WAV of 200 frames at 8000 Hz (samples 0, 100, 200 ... interleaved)."""
    import os
    import wave
    path = os.path.join(root, "tone.wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes((np.arange(400) * 50).astype("<i2").tobytes())
    return path


def _video_error(fn, root=None):
    """The exception's class and MindSpore's own words: the pipeline's "[ERROR] ..." line, else the
    first line; the temporary folder written <tmp>, the data folder <data>."""
    import os
    paths = [(os.path.realpath(root), "<tmp>"), (root, "<tmp>")] if root else []
    return error_words(fn, paths + [(_video_dir(), "<data>")])


def _video_tmp(fn):
    """fn(root) in a temporary folder holding junk.mp4 (not a video), empty.mp4 and tone.wav."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "junk.mp4"), "wb") as f:
            f.write(b"not a video at all, just some bytes " * 8)
        open(os.path.join(root, "empty.mp4"), "wb").close()
        _video_wav(root)
        return fn(root)


# ---- read_video --------------------------------------------------------------------------------------
for _video_f in _VIDEO_FILES:
    add(f"video_read_{_video_f.replace('.', '_')}", "dataset.vision.read_video",
        (lambda f=_video_f: _video_read(_video_path(f))), **_VIDEO_PIPE)

add("video_read_ranges_pts", "dataset.vision.read_video",
    lambda: tuple(_video_read(_video_path("h264_aac.mp4"), s, e) for s, e in
                  ((1024, 3072), (1000, 3000), (1, 2), (2048, 2048), (True, None), (6000, 100000))), **_VIDEO_PIPE)


def _video_ranges_sec():
    from fractions import Fraction
    mp4, avi = _video_path("h264_aac.mp4"), _video_path("mpeg4_pcm.avi")
    return (_video_read(mp4, Fraction(1, 10), Fraction(3, 10), "sec"), _video_read(mp4, 0.1, 0.35, "sec"),
            _video_read(mp4, pts_unit="sec"), _video_read(avi, 0.05, 0.2, "sec"), _video_read(avi, 2, 5),
            _video_read(_video_path("h264_ntsc.mov"), 1001, 4004))


add("video_read_ranges_sec", "dataset.vision.read_video", _video_ranges_sec, **_VIDEO_PIPE)
add("video_read_wav", "dataset.vision.read_video", lambda: _video_tmp(lambda root: _video_read(_video_wav(root))),
    **_VIDEO_PIPE)


def _video_read_errors(root):
    import os
    rv = ms.dataset.vision.read_video
    f = _video_path("h264_aac.mp4")
    calls = [lambda: rv(1), lambda: rv(f, -1), lambda: rv(f, "a"), lambda: rv(f, 5, 2), lambda: rv(f, 0, "x"),
             lambda: rv(f, 0, None, 1), lambda: rv(f, 0, None, "ms"), lambda: rv(os.path.join(root, "nope.mp4")),
             lambda: rv(root), lambda: rv(os.path.join(root, "junk.mp4")), lambda: rv(os.path.join(root, "empty.mp4"))]
    return [_video_error(c, root) for c in calls]


add("video_read_errors", "dataset.vision.read_video", lambda: _video_tmp(_video_read_errors), **_VIDEO_PIPE)


# ---- read_video_timestamps --------------------------------------------------------------------------
def _video_timestamps():
    ts = ms.dataset.vision.read_video_timestamps
    out = [ts(_video_path(f)) for f in _VIDEO_FILES] + [ts(_video_path(f), "sec") for f in _VIDEO_FILES]
    return out + [_video_tmp(lambda root: ts(_video_wav(root)))]


add("video_timestamps", "dataset.vision.read_video_timestamps", _video_timestamps, **_VIDEO_PIPE)


def _video_timestamp_errors(root):
    import os
    ts = ms.dataset.vision.read_video_timestamps
    f = _video_path("h264_aac.mp4")
    calls = [lambda: ts(1), lambda: ts(f, 1), lambda: ts(f, "ms"), lambda: ts(os.path.join(root, "nope.mp4")),
             lambda: ts(root), lambda: ts(os.path.join(root, "junk.mp4")), lambda: ts(os.path.join(root, "empty.mp4"))]
    return [_video_error(c, root) for c in calls]


add("video_timestamps_errors", "dataset.vision.read_video_timestamps", lambda: _video_tmp(_video_timestamp_errors),
    **_VIDEO_PIPE)


# ---- DecodeVideo ----------------------------------------------------------------------------------
def _video_decode(data):
    v, a = ms.dataset.vision.DecodeVideo()(data)
    return _video_frames(v), _video_audio(a)


for _video_f in _VIDEO_FILES:
    add(f"video_decode_{_video_f.replace('.', '_')}", "dataset.vision.DecodeVideo",
        (lambda f=_video_f: _video_decode(np.fromfile(_video_path(f), np.uint8))), **_VIDEO_PIPE)

add("video_decode_wav", "dataset.vision.DecodeVideo",
    lambda: _video_tmp(lambda root: _video_decode(np.fromfile(_video_wav(root), np.uint8))), **_VIDEO_PIPE)


def _video_decode_errors():
    dv = ms.dataset.vision.DecodeVideo()
    raw = np.fromfile(_video_path("h264_aac.mp4"), np.uint8)
    junk = np.frombuffer(b"not a video at all, just some bytes " * 8, np.uint8)
    calls = [lambda: dv(raw.reshape(1, -1)), lambda: dv(raw.astype(np.int32)), lambda: dv(np.zeros(0, np.uint8)),
             lambda: dv(junk), lambda: dv(list(raw[:10])), lambda: dv(raw.tobytes()), lambda: dv(raw, raw)]
    return [_video_error(c) for c in calls]


add("video_decode_errors", "dataset.vision.DecodeVideo", _video_decode_errors, **_VIDEO_PIPE)


def _video_pipeline():
    """GeneratorDataset of the files' bytes, mapped by DecodeVideo into two columns."""
    files = [_video_path(f) for f in _VIDEO_FILES]
    data = ms.dataset.GeneratorDataset(lambda: ((np.fromfile(f, np.uint8),) for f in files), ["data"],
                                       shuffle=False)
    data = data.map(operations=[ms.dataset.vision.DecodeVideo()], input_columns=["data"],
                    output_columns=["video", "audio"])
    rows = [(_video_frames(v), _video_audio(a)) for v, a in data.create_tuple_iterator(output_numpy=True,
                                                                                        num_epochs=1)]
    return list(data.get_col_names()), rows


add("video_decode_pipeline", ("dataset.vision.DecodeVideo", "dataset.GeneratorDataset"), _video_pipeline,
    **_VIDEO_PIPE)


# ---- VideoDecoder ---------------------------------------------------------------------------------
def _video_decoder():
    out = []
    for f in _VIDEO_FILES:
        d = ms.dataset.vision.VideoDecoder(_video_path(f))
        out.append((d.source.replace(_video_dir(), "<data>"), sorted(d.metadata.items())))
    return out


add("video_decoder_metadata", "dataset.vision.VideoDecoder", _video_decoder, **_VIDEO_PIPE)


def _video_decoder_errors(root):
    import os
    vd = ms.dataset.vision.VideoDecoder
    d = vd(_video_path("h264_aac.mp4"))
    calls = [lambda: vd(1), lambda: vd(os.path.join(root, "nope.mp4")), lambda: vd(root),
             lambda: vd(os.path.join(root, "a;b.mp4")), lambda: vd(os.path.join(root, "junk.mp4")),
             lambda: vd(os.path.join(root, "tone.wav")), lambda: d.get_frames_at([0]), lambda: d.get_frames_at(0)]
    return [_video_error(c, root) for c in calls]


add("video_decoder_errors", "dataset.vision.VideoDecoder", lambda: _video_tmp(_video_decoder_errors), **_VIDEO_PIPE)
