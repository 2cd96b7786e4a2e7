"""Tests without the `cc` marker pass on a machine with no C compiler (PyNative, the op table,
data, metrics...): the marked ones are exactly those that can compile a graph."""
import os
import subprocess
import sys


def test_unmarked_tests_pass_without_a_c_compiler(tmp_path):
    # a fresh pytest run (not a worker of this one); the `exclusive` tests (an idle machine) run in
    # the outer suite only: this run shares the machine with the outer suite's other workers
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["CC"] = str(tmp_path / "no-such-cc")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not cc and not exclusive",
                           "-x", os.path.join(root, "tests")],
                          capture_output=True, text=True, env=env, cwd=root, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout
