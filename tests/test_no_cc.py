"""Tests without the `cc` marker pass on a machine with no C compiler (PyNative, the op table,
data, metrics...): the marked ones are exactly those that can compile a graph."""
import os
import subprocess
import sys


def test_unmarked_tests_pass_without_a_c_compiler(tmp_path):
    env = dict(os.environ, CC=str(tmp_path / "no-such-cc"))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not cc",
                           "-x", os.path.join(root, "tests")],
                          capture_output=True, text=True, env=env, cwd=root, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout
