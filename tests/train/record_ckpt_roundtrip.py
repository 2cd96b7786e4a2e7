"""Check that MindSpore reads the checkpoints pycompile writes (run once per format change).

Two steps, each in its own venv:

    . /work/data-venv/bin/activate && python tests/train/record_ckpt_roundtrip.py write
    . /work/ms-venv/bin/activate   && python tests/train/record_ckpt_roundtrip.py read

`write` saves tests/train/fixtures/ckpt/pyc_*.ckpt / .safetensors with pycompile from the
contents in ckpt_cases. `read` loads each with the MindSpore wheel and records in
ms_reads_pycompile.json what it saw (names, dtypes, shapes, values), what
load_param_into_net did with them, and the sha256 of the file MindSpore itself writes from the
same content. test_checkpoint.py re-writes the files with pycompile and compares with this
record; neither pytest nor pycompile imports MindSpore.
"""
import hashlib
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures", "ckpt")
sys.path.insert(0, HERE)
import ckpt_cases  # noqa: E402

# file name -> (what to save, save keyword arguments); built from either framework's classes.
FILES = ["pyc_dtypes.ckpt", "pyc_dtypes_crc.ckpt", "pyc_net.ckpt", "pyc_list.ckpt", "pyc_dtypes.safetensors"]


def contents(fw):
    """The save_checkpoint arguments for each file, with framework `fw` (pycompile or mindspore)."""
    P, T = fw.Parameter, fw.Tensor
    params = {k: P(T(v), name=k) for k, v in ckpt_cases.dtype_arrays().items()}
    return {
        "pyc_dtypes.ckpt": (params, {"append_dict": ckpt_cases.append_values(T)}),
        "pyc_dtypes_crc.ckpt": (params, {"crc_check": True}),
        "pyc_net.ckpt": (ckpt_cases.build_net(fw.nn.Cell, P, T), {}),
        "pyc_list.ckpt": ([{"name": k, "data": T(v)} for k, v in list(ckpt_cases.dtype_arrays().items())[5:9]], {}),
        "pyc_dtypes.safetensors": (params, {"format": "safetensors"}),
    }


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write():
    import pycompile
    for name, (obj, kwargs) in contents(pycompile).items():
        path = os.path.join(OUT, name)
        pycompile.save_checkpoint(obj, path, **kwargs)
        print("wrote", path)


def read():
    import mindspore
    from record_ckpt_fixtures import describe, describe_dict
    record = {"mindspore": mindspore.__version__, "files": {}}
    tmp = tempfile.mkdtemp()
    for name, (obj, kwargs) in contents(mindspore).items():
        path = os.path.join(OUT, name)
        fmt = "safetensors" if name.endswith("safetensors") else "ckpt"
        entry = {"sha256": sha256(path), "loaded": describe_dict(mindspore.load_checkpoint(path, format=fmt))}
        if kwargs.get("crc_check"):
            entry["crc_check_loaded"] = sorted(mindspore.load_checkpoint(path, crc_check=True))
        own = os.path.join(tmp, name)
        mindspore.save_checkpoint(obj, own, **kwargs)
        entry["mindspore_own_sha256"] = sha256(own)
        record["files"][name] = entry
    net = ckpt_cases.build_net(mindspore.nn.Cell, mindspore.Parameter, mindspore.Tensor, ckpt_cases.NET_SPEC,
                               {n: np.zeros(s, d) for n, s, d in ckpt_cases.NET_SPEC})
    result = mindspore.load_checkpoint(os.path.join(OUT, "pyc_net.ckpt"), net=net)
    record["pyc_net_into_net"] = {"keys": list(result),
                                  "after": [[p.name, describe(p)] for _, p in net.parameters_and_names()]}
    with open(os.path.join(OUT, "ms_reads_pycompile.json"), "w") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", os.path.join(OUT, "ms_reads_pycompile.json"))


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]]()
