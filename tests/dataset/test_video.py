"""vision's video names beyond the conformance table (tests/conformance/cases_video.py holds the
values and errors against MindSpore 2.10): DecodeVideo in worker processes, pycompile's own
Tensor as input, and the error when PyAV (the `video` extra) is missing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
import pycompile.dataset as ds
import pycompile.dataset.vision as vision

CONF = Path(__file__).resolve().parents[1] / "conformance"
VIDEOS = CONF / "data" / "video"
FILES = ("h264_aac.mp4", "mpeg4_pcm.avi", "h264_ntsc.mov", "mjpeg_422.avi")


def _wheel_record(case_id):
    return json.loads((CONF / "data" / "video.json").read_text())["cases"][case_id]["pynative"]


def _digests(record):
    """The frames' sha256 digests in a recorded list of (frames, audio) rows."""
    rows = record["tuple"][1]["list"]
    return [row["tuple"][0]["tuple"][2]["str"] for row in rows]


def test_pipeline_in_worker_processes_gives_mindspores_frames():
    """DecodeVideo pickles into map's worker processes; the frames are MindSpore's (the digests of
    the wheel's own pipeline run, recorded as video_decode_pipeline)."""
    pytest.importorskip("av", reason="the video extra (PyAV) is not installed")
    import hashlib
    files = [VIDEOS / f for f in FILES]
    data = ds.GeneratorDataset(lambda: ((np.fromfile(f, np.uint8),) for f in files), ["data"], shuffle=False)
    data = data.map(operations=[vision.DecodeVideo()], input_columns=["data"], output_columns=["video", "audio"],
                    num_parallel_workers=2, python_multiprocessing=True)
    rows = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    got = [hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() for v, _ in rows]
    assert got == _digests(_wheel_record("video_decode_pipeline"))
    assert [a.dtype for _, a in rows] == [np.float32, np.int16, np.float32, np.float32]


def test_tensor_input_is_refused_as_mindspore_refuses_its_own():
    """MindSpore's DecodeVideo takes NumPy arrays only: its own Tensor raises TypeError."""
    raw = np.fromfile(VIDEOS / "h264_ntsc.mov", np.uint8)
    with pytest.raises(TypeError, match="Input should be ndarray, got"):
        vision.DecodeVideo()(ms.Tensor(raw))


def test_without_pyav_the_names_import_and_using_them_names_the_extra(tmp_path):
    """With PyAV missing, `pycompile.dataset.vision` imports and exports the four names; using
    one raises ImportError naming `pycompile[video]` (after MindSpore's own argument checks)."""
    script = f"""
import sys
sys.modules["av"] = None                  # import av -> ImportError
import numpy as np
import pycompile.dataset.vision as vision
path = {str(VIDEOS / "h264_ntsc.mov")!r}
calls = [lambda: vision.read_video(path), lambda: vision.read_video_timestamps(path),
         lambda: vision.VideoDecoder(path), lambda: vision.DecodeVideo()(np.fromfile(path, np.uint8))]
for call in calls:
    try:
        call()
    except ImportError as e:
        assert "pip install 'pycompile[video]'" in str(e), e
    else:
        raise AssertionError("no ImportError")
try:
    vision.read_video(1)
except TypeError:
    pass
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
