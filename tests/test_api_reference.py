"""docs/api/ is generated (tools/gen_api_reference.py) from MindSpore 2.10's recorded name list and
pycompile itself, never edited by hand: this fails when it is stale (a name added or removed, a case
recorded) and says how to regenerate it."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = os.path.join(ROOT, "docs", "api")


@pytest.fixture(scope="module")
def pages():
    spec = importlib.util.spec_from_file_location("gen_api_reference", os.path.join(ROOT, "tools", "gen_api_reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render()


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
