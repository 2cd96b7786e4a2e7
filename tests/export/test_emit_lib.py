"""`pycompile MODEL --emit lib`: a standalone C library a C program links and calls (backend/lib.py).

One build per model for the module (LeNet-5 with the portable default: x86-64-v3 plus an AVX-512
variant; an MLP with two outputs for --target-cpu native; MindSpore 2.10's MLP MINDIR file), each
linked with tests/export/c/run_model.c by the system C compiler. Its outputs must equal the
Python model's, compiled and PyNative (1e-5 relative), and MindSpore's recorded ones for the file.
"""
import importlib.util
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import pycompile as ms
from pycompile import cli
from pycompile.backend import lib as pclib

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "lib_models.py")
DRIVER = os.path.join(HERE, "c", "run_model.c")
MINDIR = os.path.join(HERE, "..", "oracle", "data", "mindir")
CC = os.environ.get("CC", "cc").split()

pytestmark = pytest.mark.skipif(shutil.which(CC[0]) is None, reason="needs a C compiler")


def _link(out_dir, name, n_in, n_out, static=False):
    """run_model.c built against out_dir's header and library (lib<name>.so, or the .a)."""
    exe = os.path.join(out_dir, "run_model" + ("_static" if static else ""))
    lib = [os.path.join(out_dir, f"lib{name}.a"), f"-L{out_dir}", "-lscipy_openblas", "-lm", "-pthread"] \
        if static else [f"-L{out_dir}", f"-l{name}"]
    cmd = CC + ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", DRIVER, f'-DHEADER="{name}.h"', f"-DNAME={name}",
                f"-DNUM_IN={n_in}", f"-DNUM_OUT={n_out}", f"-I{out_dir}", "-o", exe, *lib, "-Wl,-rpath,$ORIGIN"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def _emit(tmp, args):
    out_dir = str(tmp)
    rc = cli.main([*args, "--emit", "lib", "-o", out_dir, "-q"])
    assert rc == 0
    return out_dir


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    lenet = _emit(tmp_path_factory.mktemp("lenet"), [MODELS, "--entry", "lenet"])
    mlp = _emit(tmp_path_factory.mktemp("mlp"), [MODELS, "--entry", "mlp", "--target-cpu", "native"])
    mindir = _emit(tmp_path_factory.mktemp("mindir"), [os.path.join(MINDIR, "mlp.mindir"), "--target-cpu", "native"])
    return {"lenet": (lenet, _link(lenet, "lenet", 1, 1)), "mlp": (mlp, _link(mlp, "mlp", 1, 2)),
            "mindir": (mindir, _link(mindir, "mlp", 1, 1))}


def _models():
    """The file's models, imported afresh (the same weights the command compiled)."""
    spec = importlib.util.spec_from_file_location("lib_models_for_test", MODELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_c(exe, inputs, n_out_bytes, threads=1, weights=None, tmp=None):
    d = os.path.dirname(exe)
    with open(os.path.join(d, "in.bin"), "wb") as f:
        for x in inputs:
            f.write(np.ascontiguousarray(x).tobytes())
    args = [exe, "run", os.path.join(d, "in.bin"), os.path.join(d, "out.bin"), str(threads)]
    proc = subprocess.run(args + ([weights] if weights else []), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = open(os.path.join(d, "out.bin"), "rb").read()
    assert len(data) == n_out_bytes
    return data


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(want).max())))


def _python_outputs(net, x):
    outs = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        y = net(ms.Tensor(x))
        outs[mode] = [t.asnumpy() for t in (y if isinstance(y, tuple) else (y,))]
    return outs


@pytest.mark.parametrize("threads", [1, 2])
def test_lenet_library_equals_the_python_model(built, threads):
    out_dir, exe = built["lenet"]
    x = np.random.default_rng(0).standard_normal((1, 1, 32, 32)).astype(np.float32)
    got = np.frombuffer(_run_c(exe, [x], 40, threads), np.float32).reshape(1, 10)
    for mode, (want,) in _python_outputs(_models().lenet, x).items():
        _close(got, want)
    # the same weights read from the .bin beside it instead of the embedded ones
    again = _run_c(exe, [x], 40, threads, weights=os.path.join(out_dir, "lenet.bin"))
    assert again == got.tobytes()


def test_mlp_with_two_outputs_built_for_this_cpu(built):
    out_dir, exe = built["mlp"]
    x = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    data = _run_c(exe, [x], 2 * 3 * 4 * 4)
    got = [np.frombuffer(data[:48], np.float32).reshape(3, 4), np.frombuffer(data[48:], np.float32).reshape(3, 4)]
    for mode, want in _python_outputs(_models().mlp, x).items():
        assert len(want) == 2
        for g, w in zip(got, want):
            _close(g, w)
    header = open(os.path.join(out_dir, "mlp.h")).read()
    assert "built for native" in header and "x86-64-v4" not in header


def test_mindspore_mindir_file_as_a_library_equals_mindspore(built):
    """MindSpore 2.10 wrote mlp.mindir and recorded its outputs (tests/oracle/record_mindir.py)."""
    out_dir, exe = built["mindir"]
    with open(os.path.join(MINDIR, "mindspore_outputs.json")) as f:
        rec = json.load(f)["models"]["mlp"]
    x = np.asarray(rec["inputs"][0], np.float32)
    want = np.asarray(rec["graphcell_output"], np.float32)
    got = np.frombuffer(_run_c(exe, [x], want.nbytes), np.float32).reshape(want.shape)
    _close(got, want)
    cell = ms.nn.GraphCell(ms.load(os.path.join(MINDIR, "mlp.mindir")))
    for mode, (py,) in _python_outputs(cell, x).items():
        _close(got, py)


def test_static_archive_links_into_a_program(built):
    out_dir, exe = built["lenet"]
    static = _link(out_dir, "lenet", 1, 1, static=True)
    x = np.random.default_rng(2).standard_normal((1, 1, 32, 32)).astype(np.float32)
    assert _run_c(static, [x], 40) == _run_c(exe, [x], 40)


def test_bad_input_to_the_c_api_returns_error_codes(built):
    out_dir, exe = built["lenet"]
    other = os.path.join(built["mlp"][0], "mlp.bin")          # another model's weights
    cut = os.path.join(out_dir, "cut.bin")
    with open(os.path.join(out_dir, "lenet.bin"), "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:1000])
    results = {}
    for bad in (other, cut):
        proc = subprocess.run([exe, "errors", os.path.join(out_dir, "lenet.bin"), bad], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        for line in proc.stdout.splitlines():
            case, status, *msg = line.split(" ", 2)
            results.setdefault(case, []).append((int(status), msg[0] if msg else ""))
    E = {"ok": 0, "arg": 1, "threads": 2, "weights": 4}
    expect = {"threads_negative": "threads", "threads_too_many": "threads", "weights_missing": "weights",
              "weights_bad": "weights", "weights_file": "ok", "run_null_ctx": "arg", "run_null_inputs": "arg",
              "run_null_outputs": "arg", "run_null_input0": "arg", "run_null_output0": "arg", "run_ok": "ok",
              "threads_zero": "ok"}
    for case, kind in expect.items():
        assert [s for s, _ in results[case]] == [E[kind]] * 2, (case, results[case])
    assert "num_threads is -1" in results["threads_negative"][0][1]
    assert "weights of another model" in results["weights_bad"][0][1]
    assert "truncated" in results["weights_bad"][1][1]
    assert "inputs[0] (x) is NULL" in results["run_null_input0"][0][1]


def test_no_python_at_run_time(built):
    """The library needs no libpython, cffi or NumPy: it exports only its C API and loads only the C
    library, libm and OpenBLAS (copied beside it)."""
    out_dir, _ = built["lenet"]
    so = os.path.join(out_dir, "liblenet.so")
    needed = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
    libs = {line.split("[", 1)[1].split("]", 1)[0] for line in needed.splitlines() if "(NEEDED)" in line}
    glibc = {"libc.so.6", "libm.so.6", "libmvec.so.1", "libpthread.so.0", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
    assert libs <= glibc | {"libscipy_openblas.so"}, libs
    assert not any("python" in lib or "ffi" in lib for lib in libs)
    defined = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True).stdout.split()
    assert sorted(s for s in defined if s.startswith("pc_")) == [
        "pc_lenet_create", "pc_lenet_destroy", "pc_lenet_last_error", "pc_lenet_last_status", "pc_lenet_run"]
    undefined = subprocess.run(["nm", "-D", "--undefined-only", so], capture_output=True, text=True).stdout
    assert "Py" not in undefined and "ffi_" not in undefined
    ldd = subprocess.run(["ldd", so], capture_output=True, text=True).stdout
    assert "python" not in ldd and "not found" not in ldd
    assert os.path.exists(os.path.join(out_dir, "libscipy_openblas.so"))


def test_names_from_user_files_are_sanitized(tmp_path):
    """Entry and file names become C identifiers; input names and file names reach the header only
    escaped, and the header compiles."""
    assert pclib.lib_name("my model-v2 (1)") == "my_model_v2_1"
    assert pclib.lib_name("3d*/net") == "m3d_net"
    assert pclib.lib_name("../..") == "model" and pclib.lib_name("") == "model"
    assert pclib.lib_name("LeNet5") == "lenet5"
    args = [{"index": 0, "kind": "input", "name": 'x */ "\\\n#error', "dtype": "float32", "dtype_code": 10,
             "shape": [2, 3], "nbytes": 24},
            {"index": 1, "kind": "output", "name": "y??/", "dtype": "int32", "dtype_code": 3, "shape": [],
             "nbytes": 4}]
    header = pclib.header_text("evil", "evil */ entry", "a\n#error */.py", args, "x86-64-v3", False)
    path = tmp_path / "evil.h"
    path.write_text(header)
    c = tmp_path / "use.c"
    c.write_text('#include "evil.h"\nint main(void) { return pc_evil_input_rank[0] == 2 && '
                 'pc_evil_output_rank[0] == 0 ? 0 : 1; }\n')
    proc = subprocess.run(CC + ["-std=c99", "-Wall", "-Werror", "-pedantic", f"-I{tmp_path}", "-o",
                                str(tmp_path / "use"), str(c)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(tmp_path / "use")]).returncode == 0


_CPUINFO_NAMES = {"sse3": "pni", "sse4.1": "sse4_1", "sse4.2": "sse4_2", "bmi": "bmi1", "avx5124fmaps": "avx512_4fmaps"}


def _missing_feature():
    """An instruction set this x86 CPU lacks: one of those a build checks, else AVX512-4FMAPS (only
    Knights Mill had it; GCC's __builtin_cpu_supports knows it), so the test runs on every x86."""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return None
    features = [f for _, f in pclib._X86_FEATURES] + ["avx5124fmaps"]
    return next((f for f in features if _CPUINFO_NAMES.get(f, f.replace(".", "_")) not in flags), None)


@pytest.mark.skipif(_missing_feature() is None, reason="an x86 Linux CPU (/proc/cpuinfo flags) is needed")
def test_cpu_check_picks_a_variant_this_cpu_runs_or_returns_an_error_code(tmp_path):
    """create runs the build for the first CPU level this CPU has; with none, PC_LIB_E_CPU naming
    the instruction set, never an illegal instruction. The model and runtime are stubs here."""
    missing = _missing_feature()
    args = [{"index": 0, "kind": "input", "name": "x", "dtype": "float32", "dtype_code": 10, "shape": [2],
             "nbytes": 8},
            {"index": 1, "kind": "output", "name": "y", "dtype": "float32", "dtype_code": 10, "shape": [2],
             "nbytes": 8},
            {"index": 2, "kind": "arena", "name": "arena", "nbytes": 64, "alignment": 64}]
    (tmp_path / "weights.bin").write_bytes(b"\0" * 64)
    abi = pclib._abi_version()
    (tmp_path / "stubs.c").write_text(
        f"int pc_a_module_init(const void *a) {{ (void)a; return {abi}; }}\n"
        "int pc_a_entry(void **a) { (void)a; return 1000; }\n"
        f"int pc_b_module_init(const void *a) {{ (void)a; return {abi}; }}\n"
        "int pc_b_entry(void **a) { ((float *)a[1])[0] = 42; return 0; }\n"
        "const void *pc_lib_api(void) { return 0; }\nvoid pc_lib_set_team(int n) { (void)n; }\n"
        "void pc_lib_params_written(void) {}\n")
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "t.h"\n'
        "int main(void) { float x[2] = {0}, y[2] = {0}; const void *in[] = {x}; void *out[] = {y};\n"
        "  pc_t_ctx *c = pc_t_create(NULL, 1);\n"
        '  if (!c) { printf("%d %s\\n", pc_t_last_status(), pc_t_last_error()); return 0; }\n'
        '  int rc = pc_t_run(c, in, out); printf("ran %d %g\\n", rc, y[0]); pc_t_destroy(c); return 0; }\n')
    (tmp_path / "t.h").write_text(pclib.header_text("t", "t", "t.py", args, "test", False))
    outputs = []
    for variants in ([("pc_a_", [missing])], [("pc_a_", [missing]), ("pc_b_", [])]):
        (tmp_path / "api.c").write_text(pclib.api_text("t", args, 64, 0, [], variants, False))
        exe = str(tmp_path / "t")
        proc = subprocess.run(CC + ["-O1", "-I.", "api.c", "stubs.c", "main.c", "-o", exe, "-pthread"],
                              cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        outputs.append(subprocess.run([exe], capture_output=True, text=True).stdout.strip())
    assert outputs[0] == f"3 libt was built for a CPU with {missing}, which this one lacks (rebuild it with " \
                         f"pycompile --emit lib --target-cpu for this machine)"
    assert outputs[1] == "ran 0 42"


def test_two_entries_with_one_library_name_are_refused(tmp_path, capsys):
    model = tmp_path / "dup.py"
    model.write_text("import numpy as np\nimport pycompile as ms\n\n\n@ms.jit\ndef Net(x):\n    return x + 1\n\n\n"
                     "@ms.jit\ndef net(x):\n    return x * 2\n\n\n"
                     "def example_inputs():\n    return (ms.Tensor(np.ones(3, np.float32)),)\n")
    rc = cli.main([str(model), "--emit", "lib", "--target-cpu", "native", "-o", str(tmp_path / "out"), "-q"])
    assert rc == 1
    assert "entry net: --emit: its library name 'net' is entry Net's too" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path / "out")) == ["libnet.a", "libnet.so", "net.bin", "net.h"]
