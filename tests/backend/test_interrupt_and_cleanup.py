"""Runaway loops and killed processes (issue 20, defect 7): Ctrl-C stops a compiled endless
`while` loop with KeyboardInterrupt (before, the process had to be killed), and the build
directory a killed process leaves behind is removed by the next process that compiles."""
import os
import signal
import subprocess
import sys
import textwrap
import time

from pycompile.backend import pipeline

ENDLESS = textwrap.dedent('''
    import signal
    # Python's own handler, even when this test runs in the background of a non-interactive
    # shell (which starts it with SIGINT ignored, as every child it spawns)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import pycompile as ms

    @ms.jit
    def grow(x):
        while x.sum() > 0:
            x = x + 1
        return x

    print(grow(ms.Tensor(np.array([-5.0], np.float32))), flush=True)     # compiled, and ends
    print("calling", flush=True)
    try:
        grow(ms.Tensor(np.array([1.0], np.float32)))                      # never ends
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    print(grow(ms.Tensor(np.array([-2.0], np.float32))), flush=True)     # and still works
''')


def test_ctrl_c_stops_an_endless_compiled_while_loop(tmp_path):
    script = tmp_path / "endless.py"
    script.write_text(ENDLESS)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "[-5.]"
        assert proc.stdout.readline().strip() == "calling"
        time.sleep(0.5)                  # inside the loop by now; if not yet, the flag waits for it
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out.split() == ["interrupted", "[-2.]"], (out, err)


COMPILE_AND_DIE = textwrap.dedent('''
    import os, signal, sys
    import numpy as np
    import pycompile as ms
    from pycompile.backend import pipeline

    @ms.jit
    def f(x):
        return x + 1

    f(ms.Tensor(np.ones(2, np.float32)))
    print(pipeline.workdir(), flush=True)
    if sys.argv[1] == "die":
        os.kill(os.getpid(), signal.SIGKILL)
''')


def test_build_directory_of_a_killed_process_is_removed_by_the_next(tmp_path):
    script = tmp_path / "compile.py"
    script.write_text(COMPILE_AND_DIE)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    died = subprocess.run([sys.executable, str(script), "die"], capture_output=True, text=True, env=env, timeout=120)
    assert died.returncode == -signal.SIGKILL
    left = died.stdout.strip()
    assert os.path.isdir(left) and os.listdir(left)            # its .c / .so files stayed behind
    old = time.time() - 3600
    os.utime(left, (old, old))
    lived = subprocess.run([sys.executable, str(script), "live"], capture_output=True, text=True, env=env,
                           timeout=120)
    assert lived.returncode == 0, lived.stderr
    assert not os.path.exists(left)
    assert os.listdir(tmp) == []                                # and the living one removed its own at exit


def test_only_dead_idle_directories_of_this_user_are_removed(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = child.pid                  # reaped: no process has this pid now
    old = time.time() - 3600
    dirs = {"stale": f"pycompile-{dead}-aaaa", "busy": f"pycompile-{dead}-bbbb", "alive": f"pycompile-{os.getppid()}-cccc",
            "other": "pycompile-cache", "mine": f"pycompile-{os.getpid()}-dddd"}
    for key, name in dirs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.c").write_text("int x;")
        if key != "busy":
            os.utime(tmp_path / name, (old, old))
    removed = pipeline.remove_stale_workdirs(str(tmp_path))
    assert removed == [str(tmp_path / dirs["stale"])]
    assert sorted(os.listdir(tmp_path)) == sorted(v for k, v in dirs.items() if k != "stale")
