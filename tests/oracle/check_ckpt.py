"""Read a checkpoint with MindSpore and print what it holds.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate
    python tests/oracle/check_ckpt.py PATH [PATH ...]          # a readable listing
    python tests/oracle/check_ckpt.py --json PATH              # the checkpoints.json "load_checkpoint" form
    python tests/oracle/check_ckpt.py --expect EXPECTED.json PATH

The format is taken from the suffix (.safetensors -> format="safetensors", anything
else "ckpt") unless --format is given.  --expect compares the loaded entries with a JSON
object {name: {"dtype": "Float32", "shape": [...], "value": nested list}} (the form of
the "saved" entries in data/ckpt/checkpoints.json; an entry may also be {"scalar": v} for
a non-tensor value such as an append_dict string): names, order-independent; dtype, shape
exactly; values with rtol=atol=1e-6 (exactly for integers and bools).  Exit status 0
when everything matches, 1 otherwise (and 2 when MindSpore could not read the file).
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402


def describe(d):
    from mindspore import Parameter
    out = {"keys": list(d.keys()), "values": {}}
    for k, v in d.items():
        e = {"type": "Parameter" if isinstance(v, Parameter) else type(v).__name__}
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


def compare(desc, expected):
    problems = []
    got = desc["values"]
    for name in expected:
        if name not in got:
            problems.append(f"missing in file: {name}")
    for name in got:
        if name not in expected:
            problems.append(f"not expected: {name}")
    for name, exp in expected.items():
        if name not in got:
            continue
        enc = got[name]["value"]
        if "scalar" in exp:
            if enc.get("scalar") != exp["scalar"]:
                problems.append(f"{name}: value {enc} != {exp['scalar']!r}")
            continue
        t = enc.get("tensor")
        if t is None:
            problems.append(f"{name}: not a tensor ({enc})")
            continue
        if t["dtype"] != exp["dtype"]:
            problems.append(f"{name}: dtype {t['dtype']} != {exp['dtype']}")
        if list(t["shape"]) != list(exp["shape"]):
            problems.append(f"{name}: shape {t['shape']} != {exp['shape']}")
            continue
        a, b = np.asarray(t["value"]), np.asarray(exp["value"])
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            ok = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-6, atol=1e-6, equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        if not ok:
            problems.append(f"{name}: values differ: {t['value']} != {exp['value']}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--format", choices=["ckpt", "safetensors"])
    ap.add_argument("--expect", help="JSON file {name: {dtype, shape, value}} to compare with")
    args = ap.parse_args(argv)
    paths = [os.path.abspath(p) for p in args.paths]
    expect = None
    if args.expect:
        with open(args.expect) as f:
            expect = json.load(f)
    os.chdir(tempfile.mkdtemp(prefix="oracle_check_"))
    import mindspore as ms
    status = 0
    for path in paths:
        fmt = args.format or ("safetensors" if path.endswith(".safetensors") else "ckpt")
        try:
            desc = describe(ms.load_checkpoint(path, format=fmt))
        except Exception as e:  # noqa: BLE001
            err = rc.encode_error(e)
            print(json.dumps({"path": path, **err}) if args.json else
                  f"{path}: MindSpore could not load it: {err['error']['type']}: {err['error']['message_first_line']}")
            status = max(status, 2)
            continue
        if args.json:
            print(rc.dumps({"path": path, "format": fmt, "load_checkpoint": desc}))
        else:
            print(f"{path} (format={fmt}): {len(desc['keys'])} entries")
            for k in desc["keys"]:
                e = desc["values"][k]
                enc = e["value"]
                if "tensor" in enc:
                    t = enc["tensor"]
                    print(f"  {k}: {e['type']} {t['dtype']} shape={t['shape']} "
                          f"requires_grad={e.get('requires_grad')} value={t['value']}")
                else:
                    print(f"  {k}: {e['type']} {enc}")
        if expect is not None:
            problems = compare(desc, expect)
            for pr in problems:
                print(f"  MISMATCH {pr}")
            print(f"  {'OK: matches' if not problems else 'FAILED: does not match'} {args.expect}")
            if problems:
                status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
