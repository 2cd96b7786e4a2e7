"""Code that runs as plain Python while a graph is traced - the __init__ of a class created in
graph code, a property getter, a user `__getitem__` - reads module globals the frontend never
sees; the compile cache records them (issue 20, defect 4). Before, editing such a global between
two processes returned the first process's result from the cache. Reads a record cannot capture
(the environment) make the call uncacheable, with the reason PYCOMPILE_CACHE_EXPLAIN prints."""
import json
import os
import re
import subprocess
import sys

CONFIG = '''
SHIFT = {shift}
'''

MODULE = '''
import os
import pycompile as ms
import cfg

SCALE = {scale}
OFFSET = {offset}


def offset():
    return OFFSET


class Helper:
    def __init__(self):
        self.k = SCALE + offset() + cfg.SHIFT      # a global, a global through a call, another module


class WithProperty:
    def __init__(self, v):
        self.v = v

    @property
    def doubled(self):
        return self.v * SCALE


class Table:
    def __getitem__(self, i):
        return OFFSET * i


class FromEnv:
    def __init__(self):
        self.k = float(os.environ.get("PC_TEST_K", "1"))


@ms.jit
def init_reads(x):
    return x * Helper().k


@ms.jit
def property_reads(x):
    return x + WithProperty(2.0).doubled


@ms.jit
def getitem_reads(x):
    return x + Table()[3]


@ms.jit
def reads_environment(x):
    return x * FromEnv().k
'''

RUNNER = '''
import json, sys
import numpy as np
import pycompile as ms
ms.set_context(enable_compile_cache=True, compile_cache_path=sys.argv[1])
import mod
x = ms.Tensor(np.array([1.0], np.float32))
out = {}
for name in ("init_reads", "property_reads", "getitem_reads", "reads_environment"):
    fn = getattr(mod, name)
    value = fn(x).asnumpy().tolist()
    rep = fn.compiled(x)
    out[name] = [value[0], rep.cache, rep.cache_reason]
print(json.dumps(out))
'''


def _write(tmp_path, scale, offset, shift):
    (tmp_path / "mod.py").write_text(MODULE.format(scale=scale, offset=offset))
    (tmp_path / "cfg.py").write_text(CONFIG.format(shift=shift))
    for stale in (tmp_path / "__pycache__").glob("*.pyc"):
        stale.unlink()                # same size and second as the old file: never trust the pyc


def _run(tmp_path):
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    proc = subprocess.run([sys.executable, str(runner), str(tmp_path / "cache")], capture_output=True, text=True,
                          cwd=str(tmp_path), timeout=300,
                          env={**os.environ, "PYCOMPILE_CACHE_EXPLAIN": "1", "PC_TEST_K": "5"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_globals_read_by_plain_python_during_tracing_are_dependencies(tmp_path):
    _write(tmp_path, scale=2.0, offset=10.0, shift=100.0)
    first, _ = _run(tmp_path)
    assert {k: v[:2] for k, v in first.items()} == {
        "init_reads": [112.0, "miss"], "property_reads": [5.0, "miss"], "getitem_reads": [31.0, "miss"],
        "reads_environment": [5.0, "miss"]}
    # the environment cannot be recorded: the call is never cached, and says why
    assert "not cacheable" in first["reads_environment"][2] and "os.environ" in first["reads_environment"][2]

    again, _ = _run(tmp_path)
    assert [v[1] for v in again.values()] == ["disk", "disk", "disk", "miss"]

    _write(tmp_path, scale=3.0, offset=20.0, shift=100.0)          # the module's globals change
    edited, stderr = _run(tmp_path)
    assert {k: v[:2] for k, v in edited.items()} == {
        "init_reads": [123.0, "miss"], "property_reads": [7.0, "miss"], "getitem_reads": [61.0, "miss"],
        "reads_environment": [5.0, "miss"]}
    assert re.search(r"global mod\.(SCALE|OFFSET) changed", edited["init_reads"][2]), stderr
    assert "global mod.SCALE changed" in edited["property_reads"][2], stderr
    assert "global mod.OFFSET changed" in edited["getitem_reads"][2], stderr

    _write(tmp_path, scale=3.0, offset=20.0, shift=1000.0)         # another module's global changes
    other, stderr = _run(tmp_path)
    assert other["init_reads"][:2] == [1023.0, "miss"] and "cfg.SHIFT changed" in other["init_reads"][2], stderr
    assert other["property_reads"][1] == "disk"
