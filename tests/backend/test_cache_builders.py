"""Several processes building the same compile-cache entry at once leave one shared object in the
cache, not one each (reliability issue 31, item 13: 30 builders left 29 orphans). Each build's C
file was named with a per-build suffix, which the shared object's symbol table records, so every
builder stored different bytes under its own payload name and only the last entry's was used."""
import os
import subprocess
import sys
import time

PROGRAM = '''
import os, sys, time
import pycompile as ms

@ms.jit
def builders_func(x, y):
    out = x
    for _ in range(5):
        out = x + x * y + out
    return out

ms.set_context(enable_compile_cache=True, compile_cache_path=sys.argv[1])
start_at = float(os.environ["PC_TEST_START_AT"])
while time.time() < start_at:
    time.sleep(0.001)
print(builders_func(ms.Tensor([1.0]), ms.Tensor([2.0])).asnumpy().tolist())
'''


def test_concurrent_builders_of_one_entry_leave_one_shared_object(tmp_path):
    script = tmp_path / "builders.py"
    script.write_text(PROGRAM)
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PC_TEST_START_AT": str(time.time() + 3)}
    procs = [subprocess.Popen([sys.executable, str(script), str(cache)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip().splitlines()[-1] == "[16.0]"
    blobs = os.listdir(cache / "pycompile-v1" / "blobs")
    assert len([b for b in blobs if b.endswith(".so")]) == 1, blobs
    assert not [b for b in blobs if b.startswith(".")], blobs          # no temporary left behind
