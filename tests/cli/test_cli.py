"""The `pycompile` command, run as a subprocess (`python -m pycompile ...`) on small model files:
exit codes, the summary table, errors at the model's file:line, and the files --emit writes
(including calling the emitted .so from a C program through the manifest alone)."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pycompile

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run_cli(*args, cwd=None, timeout=120):
    env = dict(os.environ)
    env.pop("PYCOMPILE_OPT_LEVEL", None)
    proc = subprocess.run([sys.executable, "-m", "pycompile", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def write(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("pycompile: error:")]


MODEL = """\
    import numpy as np
    import pycompile as ms
    from pycompile import Tensor, nn, ops


    class Small(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 16)
            self.offset = Tensor(np.arange(6 * 16, dtype=np.float32).reshape(6, 16) / 10)

        def construct(self, x):
            y = ops.relu(self.fc(x))
            return y + self.offset


    class NeedsInputs(nn.Cell):
        def construct(self, a, b):
            return a * b


    @ms.jit(input_signature=(Tensor(shape=[2, 3], dtype=ms.float32),))
    def square(x):
        return x * x, x.sum()


    @ms.jit
    def scale(x, k: int = 2):
        return x * k


    net = Small()
    net.set_inputs(Tensor(shape=[6, 4], dtype=ms.float32))
"""


def test_summary_table_check_and_skipped_entries(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    rc, out, err = run_cli(model, "--check")
    assert rc == 0, err
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert out.splitlines()[0].split()[:4] == ["entry", "inputs", "nodes", "C"]
    assert set(rows) == {"NeedsInputs", "square", "scale", "net"}
    assert "x:float32[2,3]" in rows["square"] and "ok (max err" in rows["square"]
    assert "x:float32[6,4]" in rows["net"] and "ok (max err" in rows["net"]
    assert "miss" in rows["net"]
    assert "skipped: no known inputs for (a, b)" in rows["NeedsInputs"]
    assert "skipped: no known inputs for (x, k)" in rows["scale"]
    assert "[1/2] square: compiling" in err and "[2/2] net: compiling" in err
    assert not error_lines(err)


def test_inputs_from_the_command_line_and_entry(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    rc, out, err = run_cli(model, "--entry", "scale", "--input", "x=int32[5]", "--bench", "3", "-v")
    assert rc == 0, err
    assert "x:int32[5]" in out
    assert "bench scale:" in out and "ms/call compiled" in out
    assert "pass " in out                      # -v prints per-pass statistics
    assert "[1/" not in err                    # one entry: no progress lines
    rc, out, err = run_cli(model, "--entry", "NeedsInputs", "--input", "a=float32[3]", "--input", "b=float32[]",
                           "--check", "-q")
    assert rc == 0, err
    assert out == ""                           # -q: errors only


def test_example_inputs_function(tmp_path):
    model = write(tmp_path, "ex.py", """\
        import numpy as np
        import pycompile as ms


        @ms.jit
        def f(x, y):
            return x - y


        @ms.jit
        def g(z):
            return z + 1


        def example_inputs():
            return {"f": (ms.Tensor(np.ones((2, 2), np.float64)), ms.Tensor(np.ones(2, np.float64))),
                    "g": (ms.Tensor(np.zeros(3, np.int64)),)}
    """)
    rc, out, err = run_cli(model, "--check")
    assert rc == 0, err
    assert "x:float64[2,2] y:float64[2]" in out and "z:int64[3]" in out
    assert out.count("ok (max err 0)") == 2


def test_emit_writes_ir_c_so_and_a_manifest_a_c_program_can_use(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    out_dir = tmp_path / "out"
    rc, out, err = run_cli(model, "--entry", "net", "--emit", "ir,c,so", "-o", out_dir)
    assert rc == 0, err
    for name in ("net.ir", "net.frontend.ir", "net.c", "net.so", "net.bin", "net.json", "pycompile_rt.h"):
        assert (out_dir / name).is_file(), name
    assert (out_dir / "net.ir").read_text().startswith("# IR entry: @Small_construct")
    c_source = (out_dir / "net.c").read_text()
    assert "/* model.py:13: y = ops.relu(self.fc(x)) */" in c_source
    assert "int pc_entry(void **args)" in c_source

    m = json.loads((out_dir / "net.json").read_text())
    assert m["format"] == "pycompile-manifest/1" and m["entry"] == "net"
    assert m["symbols"] == {"init": "pc_module_init", "entry": "pc_entry"}
    assert [a["kind"] for a in m["args"]] == ["input", "parameter", "parameter", "output", "constant", "arena"]
    assert [a["index"] for a in m["args"]] == list(range(6))
    x_arg, w_arg, b_arg, out_arg, const_arg, arena = m["args"]
    assert (x_arg["name"], x_arg["dtype"], x_arg["shape"], x_arg["nbytes"]) == ("x", "float32", [6, 4], 96)
    assert (w_arg["name"], w_arg["shape"]) == ("fc.weight", [16, 4])
    assert (out_arg["dtype"], out_arg["shape"]) == ("float32", [6, 16])
    assert const_arg["shape"] == [6, 16] and const_arg["file"] == "net.bin"
    assert arena["alignment"] == 64 and arena["nbytes"] == m["arena_bytes"]
    assert m["api"]["header"] == "pycompile_rt.h" and m["api"]["struct"] == "pc_api"
    assert m["api"]["abi_version"] == 11 and "num_threads" in m["api"]["fields"]
    assert "sgemm_nt" in m["api"]["fields"]      # ABI 6: the small-product kernel (NULL: BLAS)
    assert "sgemm_ep" in m["api"]["fields"]     # ABI 7: the same adding a bias (NULL: BLAS, then the bias)
    assert "params_written" in m["api"]["fields"]   # ABI 8: graphs that assign Parameters say so (NULL: nothing)
    assert "parallel_for" in m["api"]["fields"]

    blob = (out_dir / "net.bin").read_bytes()

    def stored(a):
        return np.frombuffer(blob[a["offset"]:a["offset"] + a["nbytes"]], a["dtype"]).reshape(a["shape"])
    np.testing.assert_allclose(stored(const_arg), np.arange(96, dtype=np.float32).reshape(6, 16) / 10)

    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    got = _call_from_c(tmp_path, out_dir, m, tmp_path / "x.bin")
    want = np.maximum(x @ stored(w_arg).T + stored(b_arg), 0) + stored(const_arg)
    np.testing.assert_allclose(got.reshape(6, 16), want, rtol=1e-5, atol=1e-5)

    # the manifest's build command, run in the output directory, rebuilds net.so from net.c
    # no OpenMP runtime: parallel loops run on the pc_api table's parallel_for
    assert not any("gomp" in lib or "libomp" in lib for lib in m["build"]["runtime_libraries"])
    (out_dir / "net.so").unlink()
    subprocess.run(m["build"]["command"], shell=True, cwd=out_dir, check=True)
    rebuilt = _call_from_c(tmp_path, out_dir, m, tmp_path / "x.bin")
    np.testing.assert_array_equal(rebuilt, got)


def test_portable_export_runs_from_a_copied_directory(tmp_path):
    """--emit so --target-cpu generic --portable: the .so is built for the architecture's baseline
    and the libraries it loads besides glibc are copied beside it with an $ORIGIN rpath; the
    directory, copied elsewhere, is called from a C program built here and gives the same result."""
    model = write(tmp_path, "model.py", MODEL)
    out_dir = tmp_path / "out"
    rc, out, err = run_cli(model, "--entry", "net", "--emit", "so", "--target-cpu", "generic", "--portable",
                           "-o", out_dir)
    assert rc == 0, err
    shipped = tmp_path / "elsewhere" / "dist"
    shutil.copytree(out_dir, shipped)
    shutil.rmtree(out_dir)
    m = json.loads((shipped / "net.json").read_text())
    assert m["target_cpu"] == "generic" and m["portable"] is True
    assert "libscipy_openblas.so" in m["bundled_libraries"]
    for lib in m["bundled_libraries"]:
        assert (shipped / lib).is_file()
    dynamic = subprocess.run(["readelf", "-d", str(shipped / "net.so")], capture_output=True, text=True).stdout
    runpaths = re.findall(r"\((?:RPATH|RUNPATH)\).*\[(.*)\]", dynamic)
    assert runpaths == ["$ORIGIN"], dynamic
    resolved = subprocess.run(["ldd", str(shipped / "net.so")], capture_output=True, text=True).stdout
    assert f"libscipy_openblas.so => {shipped}/libscipy_openblas.so" in resolved, resolved

    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    got = _call_from_c(tmp_path, shipped, m, tmp_path / "x.bin").reshape(6, 16)
    blob = (shipped / "net.bin").read_bytes()
    w, b, c = (np.frombuffer(blob[a["offset"]:a["offset"] + a["nbytes"]], a["dtype"]).reshape(a["shape"])
               for a in m["args"] if a["kind"] in ("parameter", "constant"))
    np.testing.assert_allclose(got, np.maximum(x @ w.T + b, 0) + c, rtol=1e-5, atol=1e-5)

    rc, out, err = run_cli(model, "--entry", "net", "--target-cpu", "x86-64-v3")
    assert rc == 2 and "add --emit so" in err


def _call_from_c(tmp_path, out_dir, m, input_file):
    """Load the .so with dlopen from a C program written from the manifest alone; one input."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    assert cc, "the compiled tests need a C compiler"
    loads = []
    for a in m["args"]:
        i, n = a["index"], a["nbytes"]
        loads.append(f"args[{i}] = aligned_alloc(64, {(n + 63) // 64 * 64 or 64});")
        if a["kind"] == "input":
            loads.append(f'load(args[{i}], argv[2], 0, {n});')
        elif a["kind"] in ("parameter", "constant"):
            loads.append(f'load(args[{i}], "{out_dir / a["file"]}", {a["offset"]}, {n});')
    out = next(a for a in m["args"] if a["kind"] == "output")
    driver = textwrap.dedent("""\
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include "pycompile_rt.h"
        static int status;
        static int num_threads(void) { return 1; }
        static void parallel_for(pc_task_fn fn, void *ctx, long n) { fn(ctx, 0, n); }
        static void status_raise(int bits) { status |= bits; }
        static int status_get(void) { return status; }
        static void status_clear(void) { status = 0; }
        static void print_tensor(const void *d, int t, int n, const int64_t *s) { (void)d; (void)t; (void)n; (void)s; }
        static void print_str(const char *s, int64_t n) { fwrite(s, 1, (size_t)n, stdout); putchar(10); }
        static void print_scalar(double v, int t) { (void)t; printf("%g\\n", v); }
        static void load(void *dst, const char *path, long offset, size_t n) {
            FILE *f = fopen(path, "rb");
            if (!f || fseek(f, offset, SEEK_SET) || fread(dst, 1, n, f) != n) { perror(path); exit(3); }
            fclose(f);
        }
        int main(int argc, char **argv) {
            (void)argc;
            void *lib = dlopen(argv[1], RTLD_NOW);
            if (!lib) { fprintf(stderr, "%s\\n", dlerror()); return 4; }
            int (*init)(const void *) = (int (*)(const void *))dlsym(lib, "pc_module_init");
            int (*entry)(void **) = (int (*)(void **))dlsym(lib, "pc_entry");
            static const pc_api api = {PC_RT_ABI_VERSION, num_threads, parallel_for, status_raise, status_get, status_clear,
                                       print_tensor, print_str, print_scalar};
            if (init(&api) != PC_RT_ABI_VERSION) return 5;
            void *args[NARGS];
            LOADS
            int rc = entry(args);
            if (rc) return 6;
            FILE *f = fopen(argv[3], "wb");
            fwrite(args[OUT], 1, OUT_BYTES, f);
            fclose(f);
            return 0;
        }
    """).replace("NARGS", str(len(m["args"]))).replace("LOADS", "\n    ".join(loads)) \
        .replace("OUT_BYTES", str(out["nbytes"])).replace("OUT", str(out["index"]))
    src = tmp_path / "driver.c"
    src.write_text(driver)
    exe = tmp_path / "driver"
    subprocess.run([cc, "-std=gnu11", f"-I{out_dir}", "-o", str(exe), str(src), "-ldl"], check=True)
    result = tmp_path / "result.bin"
    proc = subprocess.run([str(exe), str(out_dir / m["library"]), str(input_file), str(result)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return np.frombuffer(result.read_bytes(), out["dtype"])


def test_syntax_error_points_at_the_line(tmp_path):
    model = write(tmp_path, "syn.py", """\
        import pycompile as ms


        @ms.jit
        def f(x)
            return x
    """)
    rc, out, err = run_cli(model, cwd=tmp_path)
    assert rc == 1
    assert error_lines(err) == ["pycompile: error: syn.py:5:9: SyntaxError: expected ':'"]
    assert "Traceback" not in err


def test_exception_at_import_points_at_the_line(tmp_path):
    model = write(tmp_path, "boom.py", """\
        import numpy as np

        TABLE = np.zeros(3).reshape(7)
    """)
    rc, out, err = run_cli(model, cwd=tmp_path)
    assert rc == 1
    assert error_lines(err) == ["pycompile: error: cannot import boom.py: boom.py:3: ValueError: "
                                "cannot reshape array of size 3 into shape (7,)"]
    assert "Traceback" not in err
    rc, out, err = run_cli(model, "--traceback", cwd=tmp_path)
    assert rc == 1 and "Traceback" in err


def test_missing_file(tmp_path):
    rc, out, err = run_cli(tmp_path / "nope.py")
    assert rc == 2
    assert error_lines(err) == [f"pycompile: error: no such file: {tmp_path / 'nope.py'}"]
    assert out == ""


def test_entry_failing_to_compile_does_not_stop_the_others(tmp_path):
    model = write(tmp_path, "bad.py", """\
        import pycompile as ms
        from pycompile import Tensor


        @ms.jit(input_signature=(Tensor(shape=[3], dtype=ms.float32),))
        def bad(x):
            try:
                y = x + 1
            except ValueError:
                y = x
            return y


        @ms.jit(input_signature=(Tensor(shape=[3], dtype=ms.float32),))
        def good(x):
            return x + 1
    """)
    rc, out, err = run_cli(model, cwd=tmp_path)
    assert rc == 1
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert rows["bad"].endswith("FAILED") and rows["good"].endswith("ok")
    assert error_lines(err) == ["pycompile: error: entry bad: bad.py:7:4: Unsupported statement 'Try' in graph code."]
    assert "    try:" in err and "hint:" in err
    assert "Traceback" not in err and "pycompile/" not in err


def test_check_failure_exits_1(tmp_path):
    # the compiled graph calls bump() once, at compile time; PyNative calls it again
    model = write(tmp_path, "drift.py", """\
        import pycompile as ms
        from pycompile import Tensor

        STATE = {"calls": 0}


        def bump():
            STATE["calls"] += 1
            return STATE["calls"]


        @ms.jit(input_signature=(Tensor(shape=[3], dtype=ms.float32),))
        def f(x):
            return x * bump()
    """)
    rc, out, err = run_cli(model, "--check")
    assert rc == 1
    assert "FAILED (max err" in out
    [line] = error_lines(err)
    assert line.startswith("pycompile: error: entry f: --check failed: output 0: max abs error")


@pytest.mark.parametrize("spec, message", [
    ("x", "bad --input 'x': expected NAME=DTYPE[D0,D1,...]"),
    ("x=float32", "bad --input 'x=float32': expected NAME=DTYPE[D0,D1,...]"),
    ("x=float32[2,", "bad --input 'x=float32[2,': expected NAME=DTYPE[D0,D1,...]"),
    ("x=float33[2]", "bad --input 'x=float33[2]': unknown dtype 'float33'; use one of bool, int8,"),
    ("x=float32[2,-1]", "bad --input 'x=float32[2,-1]': dimension '-1' is not a non-negative integer"),
    ("1x=float32[2]", "bad --input '1x=float32[2]': expected NAME=DTYPE[D0,D1,...]"),
])
def test_bad_input_strings(tmp_path, spec, message):
    model = write(tmp_path, "model.py", MODEL)
    rc, out, err = run_cli(model, "--input", spec)
    assert rc == 2
    [line] = err.splitlines()
    assert line.startswith("pycompile: error: " + message), line


def test_input_naming_no_parameter_is_a_usage_error(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    rc, out, err = run_cli(model, "--input", "q=float32[2]")
    assert rc == 2
    [line] = err.splitlines()
    assert line.startswith("pycompile: error: --input q: no entry has a parameter named 'q'")


def test_unwritable_output_directory(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    blocker = tmp_path / "file"
    blocker.write_text("")
    rc, out, err = run_cli(model, "--emit", "c", "-o", blocker / "out")
    assert rc == 2
    assert err.splitlines() == [f"pycompile: error: cannot write to output directory '{blocker / 'out'}': "
                                "Not a directory"]


@pytest.mark.parametrize("args, message", [
    (["--emit", "c,asm"], "bad --emit 'c,asm': expected a comma-separated list of ir, c, so"),
    (["--entry", "Nope"], "no entry named 'Nope' in"),
    (["--opt-level", "5"], "argument --opt-level: invalid choice: 5"),
    (["--device", "GPU"], "argument --device: invalid choice: 'GPU'"),
    (["--bench", "0"], "--bench N needs N >= 1"),
])
def test_usage_errors(tmp_path, args, message):
    model = write(tmp_path, "model.py", MODEL)
    rc, out, err = run_cli(model, *args)
    assert rc == 2
    [line] = err.splitlines()
    assert line.startswith("pycompile: error: " + message), line


def test_version_and_help():
    rc, out, err = run_cli("--version")
    assert rc == 0 and out.strip() == f"pycompile {pycompile.__version__}"
    rc, out, err = run_cli("--help")
    assert rc == 0
    for text in ("--emit", "--check", "--bench", "--opt-level", "--device", "examples:", "exit codes:",
                 "whose __init__ needs no arguments"):
        assert text in out


def test_examples_compile_check_and_emit(tmp_path):
    """The README's commands: every example compiles, matches PyNative, and writes readable C."""
    out_dir = tmp_path / "out"
    expected = {"network.py": ["Network"], "gpt_blocks.py": ["GPT"], "jit_class_sample.py": ["net", "rescale"]}
    for example, entries in expected.items():
        rc, out, err = run_cli(EXAMPLES / example, "--emit", "ir,c", "-o", out_dir, "--check", cwd=tmp_path)
        assert rc == 0, (example, err)
        for entry in entries:
            [row] = [line for line in out.splitlines() if line.split()[0] == entry]
            assert "ok (max err" in row, row
            c_source = (out_dir / f"{entry}.c").read_text()
            assert f"/* {example}:" in c_source
            assert (out_dir / f"{entry}.ir").is_file()
