"""A compile-cache entry whose calling layout was edited and its hash recomputed is stale, not
trusted (reliability issue 31, item 11): the module states its own layout (pc_layout()), and a
hit compares the entry's with it before the first call. Before, another output shape in the
entry made the call write past its output buffer (SIGABRT / SIGSEGV) or return a (65, 64)
result. The reading runs in a child process: on failure it may crash."""
import glob
import hashlib
import json
import os
import subprocess
import sys

from pycompile.backend.cache.common import MAGIC

PROGRAM = '''
import json, sys
import numpy as np
import pycompile as ms

C = ms.Tensor(np.arange(4096, dtype=np.float32).reshape(64, 64) / 7)


@ms.jit
def layout_func(x, y):
    return ops_free(x, y) + C


def ops_free(x, y):
    return x * y + x


ms.set_context(enable_compile_cache=True, compile_cache_path=sys.argv[1])
x = ms.Tensor(np.full((64, 64), 2, np.float32))
out = layout_func(x, x)
rep = layout_func.compiled(x, x)
print(json.dumps({"shape": list(out.shape), "sum": float(out.asnumpy().sum()), "cache": rep.cache}))
'''

EDITS = {
    "output_shape": lambda layout: layout["out_types"][0].__setitem__(1, [65, 64]),
    "input_count": lambda layout: layout.__setitem__("input_paths", layout["input_paths"][:1]),
}


def _run(script, cache):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, str(script), str(cache)], capture_output=True, text=True, env=env,
                          timeout=120)


def _rewrite(entry_path, edit):
    raw = open(entry_path, "rb").read()
    meta = json.loads(raw.partition(b"\n")[2])
    edit(meta["layout"])
    body = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
    with open(entry_path, "wb") as f:
        f.write(MAGIC + b" " + hashlib.sha256(body).hexdigest().encode() + b" " + str(len(body)).encode()
                + b"\n" + body)


def test_an_entry_with_an_edited_layout_is_rebuilt(tmp_path):
    script = tmp_path / "layout_prog.py"
    script.write_text(PROGRAM)
    cache = tmp_path / "cache"
    first = _run(script, cache)
    assert first.returncode == 0, first.stderr
    want = json.loads(first.stdout.strip().splitlines()[-1])
    for edit in sorted(EDITS):          # each run rebuilds the entry the next edit then changes
        (entry,) = glob.glob(str(cache / "**" / "*.entry"), recursive=True)
        _rewrite(entry, EDITS[edit])
        again = _run(script, cache)
        assert again.returncode == 0, f"{edit}: exit {again.returncode}: {again.stderr[-2000:]}"
        got = json.loads(again.stdout.strip().splitlines()[-1])
        assert got["shape"] == want["shape"] == [64, 64] and got["sum"] == want["sum"], edit
        assert got["cache"] == "miss" and "layout" in again.stderr, (edit, again.stderr)
    last = _run(script, cache)                  # the rebuilt entry is used
    assert json.loads(last.stdout.strip().splitlines()[-1])["cache"] == "disk"
