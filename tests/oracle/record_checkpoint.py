"""Write checkpoint fixtures into data/ckpt/ and record how MindSpore reads them back
(data/ckpt/checkpoints.json).

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_checkpoint.py

checkpoints.json:
  "files": {file name: {"how": the saving call, "size": bytes, "sha256": ...,
            "saved": {name: encoded tensor / scalar that was passed to save_checkpoint},
            "load_checkpoint": what ms.load_checkpoint(path[, format=...]) returned:
                {"keys": [...in order...], "values": {key: {"type": class name,
                 "requires_grad": ... (Parameters), "value": encoded}}} or an error}}
  "load_param_into_net": cases of ms.load_param_into_net on nets that differ from the file
  "load_errors": ms.load_checkpoint on broken files (truncated, not a checkpoint, empty,
                 missing)
  "other": further save_checkpoint forms and their outcome
The broken files are committed too (truncated.ckpt, not_a_checkpoint.ckpt, empty.ckpt).
Absolute paths in error messages are written as <ckpt_dir>.
Every saving call is made again on each run; the files are byte-for-byte reproducible
only as far as MindSpore's writer is (sha256 recorded).
"""
import hashlib
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, Tensor, Parameter  # noqa: E402

CKPT_DIR = os.path.join(rc.DATA_DIR, "ckpt")

W = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 4
H = np.array([0.5, -1.25, 3.0, 65504.0], np.float16)
I32 = np.array([7], np.int32)
I64 = np.array([-3, 2 ** 40], np.int64)
M = np.array([True, False, True])
S = np.array(0.125, np.float32)
FC_W = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)
FC_B = np.array([0.01, -0.02], np.float32)


class SmallNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")                      # float32 (2, 3)
        self.h = Parameter(Tensor(H), name="h")                      # float16 (4,)
        self.i = Parameter(Tensor(I32), name="i")                    # int32 (1,)
        self.l = Parameter(Tensor(I64), name="l")                    # int64 (2,)
        self.m = Parameter(Tensor(M), name="m", requires_grad=False)  # bool (3,)
        self.s = Parameter(Tensor(S), name="custom_scale")           # float32 (), name != attribute
        self.fc = nn.Dense(3, 2)                                     # fc.weight (2, 3), fc.bias (2,)
        self.fc.weight.set_data(Tensor(FC_W))
        self.fc.bias.set_data(Tensor(FC_B))

    def construct(self, x):
        return self.fc(x * self.w)


def saved_params(net):
    return {p.name: {"dtype": str(p.dtype), "shape": list(p.shape), "requires_grad": p.requires_grad,
                     "value": rc.encode(p)["tensor"]["value"]} for p in net.get_parameters()}


def describe_loaded(d):
    out = {"keys": list(d.keys()), "values": {}}
    for k, v in d.items():
        e = {"type": type(v).__name__ if not isinstance(v, Parameter) else "Parameter"}
        if isinstance(v, Parameter):
            e["name"] = v.name
            e["requires_grad"] = v.requires_grad
        enc = rc.encode(v)
        if "tensor" in enc:
            enc["tensor"].pop("class", None)
            enc["tensor"].pop("name", None)
        e["value"] = enc
        out["values"][k] = e
    return out


def file_info(path):
    with open(path, "rb") as f:
        data = f.read()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def load(path, **kw):
    try:
        return describe_loaded(ms.load_checkpoint(path, **kw))
    except Exception as e:  # noqa: BLE001
        return rc.encode_error(e)


def p(name):
    return os.path.join(CKPT_DIR, name)


def main():
    os.makedirs(CKPT_DIR, exist_ok=True)
    for f in os.listdir(CKPT_DIR):  # regenerate from scratch
        os.remove(os.path.join(CKPT_DIR, f))
    out = rc.meta("tests/oracle/record_checkpoint.py")
    import inspect
    import textwrap
    out["net_source"] = textwrap.dedent(inspect.getsource(SmallNet))
    files = {}

    # 1. the plain net
    net = SmallNet()
    saved = saved_params(net)
    out["net_parameters_and_names"] = [[n, q.name] for n, q in net.parameters_and_names()]
    ms.save_checkpoint(net, p("small_net.ckpt"))
    files["small_net.ckpt"] = {"how": "ms.save_checkpoint(SmallNet(), path)", "saved": saved}

    # 2. append_dict (int, float, str, bool, Tensor): one file with what works
    append = {"epoch_num": 3, "lr": 0.01, "tag": "hello"}
    ms.save_checkpoint(net, p("small_net_append.ckpt"), append_dict=append)
    files["small_net_append.ckpt"] = {
        "how": "ms.save_checkpoint(SmallNet(), path, append_dict={'epoch_num': 3, 'lr': 0.01, 'tag': 'hello'})",
        "saved": saved, "append_dict": {k: rc.encode(v) for k, v in append.items()}}
    other = {}
    for key, val in [("flag", True), ("t", Tensor(np.array([1.5, -2.5], np.float32))),
                     ("none", None), ("lst", [1, 2]), ("big_int", 2 ** 40), ("np_float", np.float32(0.5))]:
        fn = p(f"_probe_{key}.ckpt")
        try:
            ms.save_checkpoint(net, fn, append_dict={key: val})
            other[f"append_dict={{'{key}': {val!r}}}"] = {"save": "ok", "load_value": load(fn)["values"].get(key)}
        except Exception as e:  # noqa: BLE001
            other[f"append_dict={{'{key}': {val!r}}}"] = {"save": rc.encode_error(e)}
        if os.path.exists(fn):
            os.remove(fn)

    # 3. list-of-dicts form
    p1 = np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
    p2 = np.array(5, np.int32)
    p3 = np.array([1.5, 2.5, -3.5], np.float16)
    ms.save_checkpoint([{"name": "p1", "data": Tensor(p1)}, {"name": "p2", "data": Tensor(p2)},
                        {"name": "layer.p3", "data": Tensor(p3)}], p("list_of_dicts.ckpt"))
    files["list_of_dicts.ckpt"] = {
        "how": "ms.save_checkpoint([{'name': 'p1', 'data': Tensor(p1)}, {'name': 'p2', 'data': Tensor(p2)}, "
               "{'name': 'layer.p3', 'data': Tensor(p3)}], path)",
        "saved": {"p1": rc.tensor_spec(p1)["tensor"], "p2": rc.tensor_spec(p2)["tensor"],
                  "layer.p3": rc.tensor_spec(p3)["tensor"]}}

    # 4. safetensors
    try:
        ms.save_checkpoint(net, p("small_net.safetensors"), format="safetensors")
        files["small_net.safetensors"] = {"how": "ms.save_checkpoint(SmallNet(), path, format='safetensors')",
                                          "saved": saved, "load_format": "safetensors"}
    except Exception as e:  # noqa: BLE001
        other["format='safetensors'"] = {"save": rc.encode_error(e)}

    # 5. crc_check
    try:
        ms.save_checkpoint(net, p("small_net_crc.ckpt"), crc_check=True)
        files["small_net_crc.ckpt"] = {"how": "ms.save_checkpoint(SmallNet(), path, crc_check=True)",
                                       "saved": saved}
    except Exception as e:  # noqa: BLE001
        other["crc_check=True"] = {"save": rc.encode_error(e)}

    # 6. more dtypes via the list form
    more = {"f64": np.array([1.0 / 3.0, -2.0], np.float64), "i8": np.array([-128, 127], np.int8),
            "u8": np.array([0, 255], np.uint8), "i16": np.array([-300, 300], np.int16)}
    try:
        ms.save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in more.items()], p("more_dtypes.ckpt"))
        files["more_dtypes.ckpt"] = {"how": "ms.save_checkpoint([{'name': k, 'data': Tensor(v)} for f64, i8, "
                                            "u8, i16], path)",
                                     "saved": {k: rc.tensor_spec(v)["tensor"] for k, v in more.items()}}
    except Exception as e:  # noqa: BLE001
        other["more_dtypes"] = {"save": rc.encode_error(e)}
    try:
        bf = Tensor(np.array([1.0, -2.5, 3.25], np.float32)).astype(ms.bfloat16)
        ms.save_checkpoint([{"name": "bf", "data": bf}], p("bfloat16.ckpt"))
        files["bfloat16.ckpt"] = {"how": "ms.save_checkpoint([{'name': 'bf', 'data': Tensor([1.0, -2.5, 3.25])"
                                         ".astype(ms.bfloat16)}], path)",
                                  "saved": {"bf": rc.encode(bf)["tensor"]}}
    except Exception as e:  # noqa: BLE001
        other["bfloat16"] = {"save": rc.encode_error(e)}

    # 7. a dict as save_obj
    fn = p("_probe_dict.ckpt")
    try:
        ms.save_checkpoint({"a": Tensor(np.array([1.0, 2.0], np.float32)),
                            "b": Parameter(Tensor(np.array([3], np.int32)), name="b")}, fn)
        other["save_obj={'a': Tensor, 'b': Parameter}"] = {"save": "ok", "load": load(fn)}
    except Exception as e:  # noqa: BLE001
        other["save_obj={'a': Tensor, 'b': Parameter}"] = {"save": rc.encode_error(e)}
    if os.path.exists(fn):
        os.remove(fn)

    # load every fixture back
    for name, info in files.items():
        path = p(name)
        info.update(file_info(path))
        kw = {"format": "safetensors"} if name.endswith(".safetensors") else {}
        info["load_checkpoint"] = load(path, **kw)
        print(f"   {name}: {info['size']} bytes, keys {info['load_checkpoint'].get('keys')}", file=sys.stderr)
    files["small_net_crc.ckpt"]["load_checkpoint_crc_check_True"] = load(p("small_net_crc.ckpt"), crc_check=True)
    files["small_net.ckpt"]["load_checkpoint_crc_check_True"] = load(p("small_net.ckpt"), crc_check=True)
    files["small_net.ckpt"]["load_checkpoint_filter_prefix_fc"] = load(p("small_net.ckpt"), filter_prefix="fc")
    files["small_net.ckpt"]["load_checkpoint_specify_prefix_fc"] = load(p("small_net.ckpt"), specify_prefix="fc")
    files["small_net.ckpt"]["load_checkpoint_as_safetensors"] = load(p("small_net.ckpt"), format="safetensors")
    out["files"] = files
    out["other"] = other

    # load_param_into_net
    out["load_param_into_net"] = record_load_into_net()

    # broken files
    with open(p("small_net.ckpt"), "rb") as f:
        data = f.read()
    with open(p("truncated.ckpt"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(p("not_a_checkpoint.ckpt"), "w") as f:
        f.write("this is not a checkpoint\n")
    open(p("empty.ckpt"), "wb").close()
    errs = {}
    for name, desc in [("truncated.ckpt", "the first half (floor(size/2) bytes) of small_net.ckpt"),
                       ("not_a_checkpoint.ckpt", "a text file: 'this is not a checkpoint\\n'"),
                       ("empty.ckpt", "an empty file")]:
        errs[name] = {"desc": desc, **file_info(p(name)), "load_checkpoint": load(p(name))}
    errs["missing.ckpt"] = {"desc": "a path that does not exist", "load_checkpoint": load(p("missing.ckpt"))}
    errs["wrong_suffix"] = {"desc": "ms.load_checkpoint('.../small_net.safetensors') (format left 'ckpt')",
                            "load_checkpoint": load(p("small_net.safetensors"))}
    with tempfile.TemporaryDirectory() as td:
        r = rc.capture(lambda: ms.save_checkpoint(net, os.path.join(td, "x.txt")))
        errs["save_bad_suffix"] = {"desc": "ms.save_checkpoint(net, '<dir>/x.txt'): returned value and the "
                                           "files then in <dir>",
                                   "save": r, "files_created": sorted(os.listdir(td))}
    out["load_errors"] = errs
    for k, v in errs.items():
        print(f"   {k}: {v.get('load_checkpoint', v.get('save'))}", file=sys.stderr)
    for f in os.listdir(CKPT_DIR):  # MindSpore writes checkpoints read-only (0400)
        os.chmod(os.path.join(CKPT_DIR, f), 0o644)
    out = scrub(out)
    rc.write_json(os.path.join(CKPT_DIR, "checkpoints.json"), out)


def scrub(obj):
    """Replace this machine's absolute fixture directory in messages by <ckpt_dir>."""
    if isinstance(obj, dict):
        return {k: scrub(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub(v) for v in obj]
    if isinstance(obj, str):
        return obj.replace(CKPT_DIR, "<ckpt_dir>")
    return obj


class PartialNet(nn.Cell):
    """SmallNet without `m` and `fc`, plus a Parameter `extra` the file does not have."""

    def __init__(self, w_dtype=ms.float32, w_shape=(2, 3)):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(w_shape), w_dtype), name="w")
        self.h = Parameter(Tensor(np.zeros(4), ms.float16), name="h")
        self.i = Parameter(Tensor(np.zeros(1), ms.int32), name="i")
        self.l = Parameter(Tensor(np.zeros(2), ms.int64), name="l")
        self.s = Parameter(Tensor(0.0, ms.float32), name="custom_scale")
        self.extra = Parameter(Tensor(np.full((2,), 9.0), ms.float32), name="extra")

    def construct(self, x):
        return x


def record_load_into_net():
    import inspect
    import textwrap
    cases = []
    for desc, make, strict in [
        ("PartialNet() (no m, no fc.*, has extra), strict_load=False", lambda: PartialNet(), False),
        ("PartialNet() strict_load=True", lambda: PartialNet(), True),
        ("PartialNet(w_dtype=float16): dtype differs from the file's float32 w", lambda: PartialNet(ms.float16), False),
        ("PartialNet(w_dtype=int32): dtype differs from the file's float32 w", lambda: PartialNet(ms.int32), False),
        ("PartialNet(w_shape=(3, 2)): shape differs from the file's (2, 3) w", lambda: PartialNet(w_shape=(3, 2)),
         False),
        ("SmallNet() strict_load=False (exact match)", lambda: SmallNet(), False),
    ]:
        net = make()
        pd = ms.load_checkpoint(p("small_net.ckpt"))
        before = {q.name: str(q.dtype) for q in net.get_parameters()}
        r = rc.capture(ms.load_param_into_net, net, pd, strict_load=strict)
        after = {q.name: rc.encode(q)["tensor"] for q in net.get_parameters()}
        for v in after.values():
            v.pop("class", None)
            v.pop("name", None)
        cases.append({"desc": desc, "file": "small_net.ckpt", "strict_load": strict, "net_dtypes_before": before,
                      "returned": r, "net_parameters_after": after})
        print(f"   load_param_into_net {desc}: {r}", file=sys.stderr)
    # load_checkpoint(path, net=...)
    net = PartialNet()
    r = load(p("small_net.ckpt"), net=net)
    cases.append({"desc": "ms.load_checkpoint(path, net=PartialNet()): returned dict; net parameters after",
                  "returned": r,
                  "net_parameters_after": {q.name: rc.encode(q)["tensor"]["value"] for q in net.get_parameters()}})
    return {"partial_net_source": textwrap.dedent(inspect.getsource(PartialNet)), "cases": cases}


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp(prefix="oracle_ckpt_"))
    main()
