"""Record MindSpore 2.10's checkpoint files and behaviours (run once, under MindSpore's venv).

    . /work/ms-venv/bin/activate && python tests/train/record_ckpt_fixtures.py

Writes tests/train/fixtures/ckpt/*.ckpt (files written by the MindSpore wheel) and
ms_ckpt.json: what MindSpore itself reads back from each file (names, dtypes, shapes, values,
file mode, sha256), what load_checkpoint's filters return, what load_param_into_net returns or
raises for each case in ckpt_cases.LOAD_CASES, and the errors for broken files. Not collected
by pytest (conftest.py ignores record_*.py); pycompile's tests read only the JSON and files.
"""
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile

import numpy as np

import mindspore as ms
from mindspore import Parameter, Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ckpt_cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ckpt")


def describe(value):
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    arr = value.asnumpy()
    return {"kind": type(value).__name__, "name": getattr(value, "name", None),
            "requires_grad": getattr(value, "requires_grad", None),
            "dtype": str(value.dtype), "shape": list(arr.shape),
            "values": arr.astype(np.float64).tolist() if arr.dtype.kind == "f" else arr.tolist()}


def describe_dict(d):
    return [[k, describe(v)] for k, v in d.items()]


def file_info(path):
    with open(path, "rb") as f:
        data = f.read()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "mode": oct(stat.S_IMODE(os.stat(path).st_mode))}


def error_info(fn, placeholder=None):
    try:
        out = fn()
    except BaseException as e:  # noqa: BLE001 - recording whatever MindSpore raises
        msg = str(e)
        if placeholder:
            for real, alias in placeholder.items():
                msg = msg.replace(real, alias)
        return {"raises": type(e).__name__, "message": msg}
    return {"returns": repr(out)}


def dtype_dict():
    return {k: Parameter(Tensor(v), name=k) for k, v in ckpt_cases.dtype_arrays().items()}


def main():
    os.makedirs(OUT, exist_ok=True)
    record = {"mindspore": ms.__version__, "files": {}, "filters": {}, "load_into_net": {}, "errors": {}}

    def save(name, *args, **kwargs):
        path = os.path.join(OUT, name)
        if os.path.exists(path):
            os.chmod(path, stat.S_IWUSR | stat.S_IRUSR)
            os.remove(path)
        ms.save_checkpoint(*args, path, **kwargs)
        return path

    files = {
        "ms_dtypes.ckpt": save("ms_dtypes.ckpt", dtype_dict(), append_dict=ckpt_cases.append_values(Tensor)),
        "ms_dtypes_crc.ckpt": save("ms_dtypes_crc.ckpt", dtype_dict(), crc_check=True),
        "ms_net.ckpt": save("ms_net.ckpt", ckpt_cases.build_net(nn.Cell, Parameter, Tensor)),
        "ms_net_choice.ckpt": save("ms_net_choice.ckpt", ckpt_cases.build_net(nn.Cell, Parameter, Tensor),
                                   choice_func=lambda n: n.startswith("head.")),
        "ms_list.ckpt": save("ms_list.ckpt", [{"name": k, "data": Tensor(v)}
                                              for k, v in list(ckpt_cases.dtype_arrays().items())[:4]]),
        "ms_ndarray_dict.ckpt": save("ms_ndarray_dict.ckpt", dict(list(ckpt_cases.dtype_arrays().items())[:3])),
    }
    try:
        files["ms_dtypes.safetensors"] = save("ms_dtypes.safetensors", dtype_dict(), format="safetensors")
    except Exception as e:  # noqa: BLE001
        record["errors"]["safetensors_save"] = {"raises": type(e).__name__, "message": str(e)}
    record["errors"]["safetensors_append_str"] = error_info(
        lambda: ms.save_checkpoint(dtype_dict(), os.path.join(tempfile.mkdtemp(), "s.safetensors"),
                                   append_dict={"note": "x"}, format="safetensors"))

    for name, path in files.items():
        fmt = "safetensors" if name.endswith(".safetensors") else "ckpt"
        loaded = ms.load_checkpoint(path, format=fmt)
        record["files"][name] = {"file": file_info(path), "loaded": describe_dict(loaded)}
    record["files"]["ms_dtypes_crc.ckpt"]["crc_check_ok"] = error_info(
        lambda: sorted(ms.load_checkpoint(files["ms_dtypes_crc.ckpt"], crc_check=True)))

    dpath = files["ms_dtypes.ckpt"]
    record["filters"] = {
        "specify_prefix_f": list(ms.load_checkpoint(dpath, specify_prefix="f")),
        "specify_prefix_list": list(ms.load_checkpoint(dpath, specify_prefix=["i8", "u"])),
        "filter_prefix_f": list(ms.load_checkpoint(dpath, filter_prefix="f")),
        "both": list(ms.load_checkpoint(dpath, specify_prefix="f", filter_prefix="f32")),
        "choice_func_bool": list(ms.load_checkpoint(dpath, choice_func=lambda n: n.startswith("bool"))),
        "choice_and_prefix": list(ms.load_checkpoint(dpath, specify_prefix="i8", choice_func=lambda n: False)),
        "filter_everything": error_info(lambda: ms.load_checkpoint(dpath, filter_prefix=["f", "i", "u", "b", "e",
                                                                                        "l", "n", "m"])),
    }

    for case, (net_spec, dict_spec, strict) in ckpt_cases.LOAD_CASES.items():
        net = ckpt_cases.build_net(nn.Cell, Parameter, Tensor, net_spec,
                                   {n: np.zeros(s, d) for n, s, d in net_spec})
        values = ckpt_cases.net_values(dict_spec)
        pdict = {n: Parameter(Tensor(values[n]), name=n) for n, _, _ in dict_spec}
        if case == "exact":
            pdict["note"] = "a string entry"
        try:
            not_loaded = ms.load_param_into_net(net, pdict, strict_load=strict)
            entry = {"returns": [list(not_loaded[0]), list(not_loaded[1])]}
        except BaseException as e:  # noqa: BLE001
            entry = {"raises": type(e).__name__, "message": str(e)}
        entry["after"] = [[p.name, describe(p)] for _, p in net.parameters_and_names()]
        record["load_into_net"][case] = entry

    tmp = tempfile.mkdtemp()
    alias = {tmp: "<DIR>"}
    with open(dpath, "rb") as f:
        good = f.read()
    cuts = {"truncated_last_byte": len(good) - 1, "truncated_half": len(good) // 2, "truncated_10": 10,
            "empty": 0}
    for case, n in cuts.items():
        p = os.path.join(tmp, case + ".ckpt")
        with open(p, "wb") as f:
            f.write(good[:n])
        record["errors"][case] = error_info(lambda p=p: list(ms.load_checkpoint(p)), alias)
    foreign = {"foreign_png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
               "foreign_text": b"this is not a checkpoint\n" * 10}
    for case, blob in foreign.items():
        p = os.path.join(tmp, case + ".ckpt")
        with open(p, "wb") as f:
            f.write(blob)
        record["errors"][case] = error_info(lambda p=p: list(ms.load_checkpoint(p)), alias)
    record["errors"]["missing_file"] = error_info(lambda: ms.load_checkpoint(os.path.join(tmp, "nope.ckpt")), alias)
    record["errors"]["wrong_suffix"] = error_info(lambda: ms.load_checkpoint(os.path.join(tmp, "x.bin")), alias)
    record["errors"]["save_into_directory"] = error_info(lambda: ms.save_checkpoint(dtype_dict(), tmp), alias)
    record["errors"]["save_bad_object"] = error_info(lambda: ms.save_checkpoint(42, os.path.join(tmp, "a.ckpt")))
    record["errors"]["save_bad_append"] = error_info(
        lambda: ms.save_checkpoint(dtype_dict(), os.path.join(tmp, "a.ckpt"), append_dict={"x": [1, 2]}))
    record["errors"]["save_list_of_non_dicts"] = error_info(
        lambda: ms.save_checkpoint([1, 2], os.path.join(tmp, "a.ckpt")))
    record["errors"]["load_into_non_cell"] = error_info(lambda: ms.load_param_into_net(object(), {}))
    record["errors"]["load_dict_bad_value"] = error_info(
        lambda: ms.load_param_into_net(nn.Dense(2, 2), {"weight": np.zeros((2, 2), np.float32)}))
    p = os.path.join(tmp, "noext")
    ms.save_checkpoint(dtype_dict(), p)
    record["errors"]["suffix_added"] = sorted(os.listdir(tmp))
    shutil.rmtree(tmp, ignore_errors=True)

    with open(os.path.join(OUT, "ms_ckpt.json"), "w") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
