"""MINDIR files written and read by MindSpore 2.10 (run ONLY in the MindSpore venv).

    /work/ms-venv/bin/python tests/oracle/record_mindir.py export
        writes data/mindir/NAME.mindir (MindSpore's ms.export of each net of mindir_models.py;
        NAME_dyn.mindir for DYNAMIC_MODELS, exported with a None batch dimension)
        and data/mindir/mindspore_outputs.json: the inputs, the net's output on them in
        GRAPH_MODE, and the output of ms.load + nn.GraphCell on the exported file.

    /work/ms-venv/bin/python tests/oracle/record_mindir.py check-export
        loads data/mindir/pycompile_NAME.mindir (written by pycompile's export:
        tests/export/write_mindir_exports.py) with ms.load + nn.GraphCell and records
        MindSpore's outputs (or its error) in data/mindir/pycompile_export_in_mindspore.json;
        and pycompile_NAME_dyn.mindir (a None batch dimension) at each recorded batch size
        (under "dynamic_batch").

    /work/ms-venv/bin/python tests/oracle/record_mindir.py errors
        records what ms.load raises for bad file names and bad files (error_cases() below) in
        data/mindir/load_errors.json.

    /work/ms-venv/bin/python tests/oracle/record_mindir.py util
        records ms.load_mindir / save_mindir / export_split_mindir's errors (util_cases() below)
        and a user_info edit saved and loaded back, in data/mindir/util_errors.json.

    /work/ms-venv/bin/python tests/oracle/record_mindir.py check-schema
        compares src/pycompile/export/mindir_pb.py's schema with the wheel's mind_ir_pb2
        descriptor, field by field (prints "schema equal"; exits 1 with a diff otherwise).

Each net runs in a fresh subprocess from a temporary directory (MindSpore's rank_0/ dumps).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "mindir")


def _ms():
    import mindspore as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("CPU")
    return ms


def export_one(name):
    sys.path.insert(0, HERE)
    import mindir_models
    ms = _ms()
    net, inputs = mindir_models.MODELS[name](ms)
    tensors = [ms.Tensor(x) for x in inputs]
    path = os.path.join(DATA, name)
    ms.export(net, *tensors, file_name=path, file_format="MINDIR")
    out_graph = net(*tensors).asnumpy()
    graph = ms.load(path + ".mindir")
    loaded = ms.nn.GraphCell(graph)(*tensors).asnumpy()
    return {"inputs": [x.tolist() for x in inputs], "output": out_graph.astype(np.float64).tolist(),
            "shape": list(out_graph.shape), "graphcell_output": loaded.astype(np.float64).tolist(),
            "bytes": os.path.getsize(path + ".mindir")}


def export_dynamic(name):
    """NAME_dyn.mindir: exported with a None batch dimension; GraphCell outputs at batch 1 and 3."""
    sys.path.insert(0, HERE)
    import mindir_models
    ms = _ms()
    net, inputs = mindir_models.MODELS[name](ms)
    shape = [None] + list(inputs[0].shape[1:])
    path = os.path.join(DATA, name + "_dyn")
    ms.export(net, ms.Tensor(shape=shape, dtype=ms.float32), file_name=path, file_format="MINDIR")
    cell = ms.nn.GraphCell(ms.load(path + ".mindir"))
    out = {}
    for batch in (1, 3):
        x = np.random.RandomState(batch).standard_normal([batch] + shape[1:]).astype(np.float32)
        out[str(batch)] = {"input": x.tolist(), "output": cell(ms.Tensor(x)).asnumpy().astype(np.float64).tolist()}
    return out


def check_one(name):
    ms = _ms()
    path = os.path.join(DATA, f"pycompile_{name}.mindir")
    with open(os.path.join(DATA, "pycompile_outputs.json")) as f:
        inputs = json.load(f)[name]["inputs"]
    tensors = [ms.Tensor(np.asarray(x, np.float32)) for x in inputs]
    try:
        out = ms.nn.GraphCell(ms.load(path))(*tensors).asnumpy()
    except Exception as e:  # noqa: BLE001  (recorded, not hidden)
        return {"error": {"type": type(e).__name__, "message_first_line": str(e).splitlines()[0]}}
    return {"output": out.astype(np.float64).tolist(), "shape": list(out.shape)}


def check_dynamic(name):
    """pycompile_NAME_dyn.mindir (a None batch dimension) in the wheel: its input / output dims
    as MindSpore reads them, and its outputs at each recorded batch size."""
    ms = _ms()
    path = os.path.join(DATA, f"pycompile_{name}_dyn.mindir")
    with open(os.path.join(DATA, "pycompile_outputs.json")) as f:
        cases = json.load(f)[name + "_dyn"]
    try:
        cell = ms.nn.GraphCell(ms.load(path))
        out = {b: cell(ms.Tensor(np.asarray(c["input"], np.float32))).asnumpy().astype(np.float64).tolist()
               for b, c in cases.items()}
    except Exception as e:  # noqa: BLE001  (recorded, not hidden)
        return {"error": {"type": type(e).__name__, "message_first_line": str(e).splitlines()[0]}}
    return {"outputs": out}


def error_cases(workdir):
    """name -> the argument given to ms.load; the tests rebuild the same files."""
    with open(os.path.join(DATA, "mlp.mindir"), "rb") as f:
        blob = f.read()
    files = {"truncated.mindir": blob[:3000], "text.mindir": b"hello\n", "empty.mindir": b""}
    for name, data in files.items():
        with open(os.path.join(workdir, name), "wb") as f:
            f.write(data)
    return {"missing": "nonexistent.mindir", "extension": "model.txt", "not_a_string": 3,
            **{name.split(".")[0]: os.path.join(workdir, name) for name in files}}


def record_errors():
    ms = _ms()
    work = tempfile.mkdtemp()
    out = {}
    for case, arg in error_cases(work).items():
        try:
            ms.load(arg)
            out[case] = {"loaded": True}
        except Exception as e:  # noqa: BLE001  (recorded, not hidden)
            out[case] = {"error": {"type": type(e).__name__,
                                   "message_first_line": str(e).splitlines()[0].replace(work, "<dir>")}}
    return out


def util_cases():
    """(function, args) per case of ms.load_mindir / save_mindir / export_split_mindir; file names
    relative to a work dir holding m.mindir (a copy of mlp.mindir) and junk.mindir. The tests
    rebuild the same files."""
    return {"load_missing": ("load_mindir", ["nope.mindir"]), "load_not_string": ("load_mindir", [3]),
            "load_bad_name": ("load_mindir", ["bad name!.mindir"]), "load_junk": ("load_mindir", ["junk.mindir"]),
            "save_not_a_model": ("save_mindir", ["x", "y.mindir"]), "save_name_not_string": ("save_mindir", [None, 5]),
            "split_not_string": ("export_split_mindir", [3]), "split_extension": ("export_split_mindir", ["m.txt"]),
            "split_missing": ("export_split_mindir", ["nope.mindir"])}


def record_util():
    import shutil
    ms = _ms()
    work = os.getcwd()
    shutil.copy(os.path.join(DATA, "mlp.mindir"), "m.mindir")
    with open("junk.mindir", "wb") as f:
        f.write(b"hello\n")
    out = {}
    for case, (fn, args) in util_cases().items():
        if fn == "save_mindir" and args[0] is None:
            args = [ms.load_mindir("m.mindir"), args[1]]
        try:
            getattr(ms, fn)(*args)
            out[case] = {"ok": True}
        except Exception as e:  # noqa: BLE001  (recorded, not hidden)
            out[case] = {"error": {"type": type(e).__name__,
                                   "message_first_line": str(e).splitlines()[0].replace(work, "<dir>")}}
    md = ms.load_mindir("m.mindir")
    md.user_info["version"] = "pangu v100"
    ms.save_mindir(md, "out/new")
    out["save_then_load"] = {"user_info": dict(ms.load_mindir("out/new.mindir").user_info),
                             "mode": oct(os.stat("out/new.mindir").st_mode & 0o777),
                             "graph_name": md.graph.name, "nodes": len(md.graph.node)}
    return out


def check_schema():
    import difflib
    import importlib.util
    from google.protobuf import descriptor_pb2
    from mindspore.train import mind_ir_pb2
    path = os.path.join(HERE, "..", "..", "src", "pycompile", "export", "mindir_pb.py")
    spec = importlib.util.spec_from_file_location("pycompile_mindir_pb", path)
    ours = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ours)          # the module needs protobuf only, not pycompile

    def normalized(fd):
        def walk(m):
            for n in m.nested_type:
                walk(n)
            m.field.sort(key=lambda f: f.number)
            for f in m.field:
                f.ClearField("json_name")
            m.nested_type.sort(key=lambda n: n.name)
        fd.ClearField("syntax")            # "" and "proto2" say the same
        for m in fd.message_type:
            walk(m)
        fd.message_type.sort(key=lambda n: n.name)
        return fd
    theirs = descriptor_pb2.FileDescriptorProto()
    mind_ir_pb2.DESCRIPTOR.CopyToProto(theirs)
    mine = descriptor_pb2.FileDescriptorProto()
    ours._pool.FindFileByName("mind_ir.proto").CopyToProto(mine)
    a, b = normalized(theirs), normalized(mine)
    if a != b:
        print("\n".join(difflib.unified_diff(str(a).splitlines(), str(b).splitlines(), lineterm="")))
        raise SystemExit(1)
    print("schema equal")


def _run(mode, name):
    proc = subprocess.run([sys.executable, __file__, "--one", mode, name], capture_output=True, text=True,
                          cwd=tempfile.mkdtemp())
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
    if proc.returncode or not lines:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        raise SystemExit(f"{mode} {name} failed")
    return json.loads(lines[0][len("@@RESULT@@"):])


def main():
    if sys.argv[1] == "check-schema":
        return check_schema()
    if sys.argv[1] == "errors":
        import mindspore
        os.chdir(tempfile.mkdtemp())
        with open(os.path.join(DATA, "load_errors.json"), "w") as f:
            json.dump({"mindspore": mindspore.__version__, "cases": record_errors()}, f, indent=1, sort_keys=True)
            f.write("\n")
        return
    if sys.argv[1] == "util":
        import mindspore
        os.chdir(tempfile.mkdtemp())
        with open(os.path.join(DATA, "util_errors.json"), "w") as f:
            json.dump({"mindspore": mindspore.__version__, "cases": record_util()}, f, indent=1, sort_keys=True)
            f.write("\n")
        return
    if sys.argv[1] == "--one":
        fn = {"export": export_one, "dynamic": export_dynamic, "check-export": check_one,
              "check-dynamic": check_dynamic}[sys.argv[2]]
        print("@@RESULT@@" + json.dumps(fn(sys.argv[3])))
        return
    sys.path.insert(0, HERE)
    import mindir_models
    import mindspore
    mode = sys.argv[1]
    names = sys.argv[2:] or (list(mindir_models.MODELS) if mode == "export" else list(mindir_models.EXPORT_MODELS))
    out_name = "mindspore_outputs.json" if mode == "export" else "pycompile_export_in_mindspore.json"
    out = {"mindspore": mindspore.__version__, "models": {}}
    if sys.argv[2:] and os.path.exists(os.path.join(DATA, out_name)):     # some models: keep the others
        with open(os.path.join(DATA, out_name)) as f:
            out = json.load(f)
    for name in names:
        out["models"][name] = _run(mode, name)
        print(name, "ok", flush=True)
    if mode == "export":
        out["dynamic_batch"] = {name: _run("dynamic", name) for name in mindir_models.DYNAMIC_MODELS}
    else:
        out.setdefault("dynamic_batch", {})
        for name in [n for n in names if n in mindir_models.DYNAMIC_EXPORT_MODELS]:
            out["dynamic_batch"][name] = _run("check-dynamic", name)
            print(name, "dynamic ok", flush=True)
    with open(os.path.join(DATA, out_name), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
