"""docs/api/ is generated (tools/gen_api_reference.py) from MindSpore 2.10's recorded name list and
pycompile itself, never edited by hand: this fails when it is stale (a name added or removed, a case
recorded) and says how to regenerate it."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = os.path.join(ROOT, "docs", "api")


@pytest.fixture(scope="module")
def pages():
    """The pages as tools/gen_api_reference.py renders them in a fresh process: a name's presence
    must not depend on what the test process imported before (importing a MindSpore module path,
    as tests/common/test_module_paths.py does, sets its name on the parent package: the reference
    was stale in the worker that had run that file first)."""
    code = ("import json, sys; sys.path.insert(0, 'tools'); import gen_api_reference as g; "
            "json.dump(g.render(), sys.stdout)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_the_api_reference_is_current(pages):
    stale = [name for name, text in pages.items()
             if not os.path.exists(os.path.join(API, name)) or open(os.path.join(API, name)).read() != text]
    extra = sorted(set(os.listdir(API)) - set(pages))
    assert not stale and not extra, f"docs/api is stale ({stale + extra}): run python tools/gen_api_reference.py"


def test_the_reference_lists_every_recorded_name_with_a_status(pages):
    from pycompile.common.missing import mindspore_names
    for namespace, entries in mindspore_names().items():
        rows = [line for line in pages[f"{namespace}.md"].splitlines() if line.startswith("| `")]
        assert len(rows) == len(entries)
        assert all(" | yes | " in r or " | not yet | " in r for r in rows)
