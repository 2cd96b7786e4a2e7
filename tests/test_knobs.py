"""The environment knobs (common/knobs.py): one place reads the environment, the documentation
(docs/guide/knobs.md) lists every knob, and the parsers behave as documented."""
import os
import re

import pytest

from pycompile.common import context, knobs

SRC = os.path.join(os.path.dirname(__file__), "..", "src", "pycompile")
KNOBS_PAGE = os.path.join(os.path.dirname(__file__), "..", "docs", "guide", "knobs.md")
# variables that are not pycompile's knobs: the system's search path
NOT_KNOBS = {"PATH"}


def test_only_knobs_reads_the_environment():
    reads = []
    pattern = re.compile(r"(?:os\.environ(?:\.get)?\(|os\.environ\[|getenv\()\s*[\"']([A-Z_0-9]+)")
    for root, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".py") and f != "knobs.py":
                text = open(os.path.join(root, f)).read()
                reads += [(f, name) for name in pattern.findall(text) if name not in NOT_KNOBS]
    assert reads == []


def test_docs_list_every_knob():
    text = open(KNOBS_PAGE).read()
    missing = [name for name in knobs.KNOBS if f"`{name}" not in text]
    assert missing == []


def test_defaults_and_parsing(monkeypatch):
    for name in knobs.KNOBS:
        monkeypatch.delenv(name, raising=False)
    assert knobs.get("PYCOMPILE_OPT_LEVEL") == 3
    assert knobs.get("MS_DEV_CELL_REUSE") is True
    assert knobs.get("CC") == "cc"
    monkeypatch.setenv("PYCOMPILE_OPT_LEVEL", "1")
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "0")
    monkeypatch.setenv("PYCOMPILE_CACHE_EXPLAIN", "2")
    monkeypatch.setenv("PYCOMPILE_VERIFY", "off")
    monkeypatch.setenv("PYCOMPILE_NUM_THREADS", "0")          # not a count: the default
    assert knobs.get("PYCOMPILE_OPT_LEVEL") == 1
    assert knobs.get("MS_DEV_CELL_REUSE") is False
    assert knobs.get("PYCOMPILE_CACHE_EXPLAIN") == 2
    assert knobs.get("PYCOMPILE_VERIFY") is False
    assert knobs.get("PYCOMPILE_NUM_THREADS") is None
    monkeypatch.setenv("PYCOMPILE_OPT_LEVEL", "")            # empty = unset
    assert knobs.get("PYCOMPILE_OPT_LEVEL") == 3
    assert knobs.get("PYCOMPILE_COMM_TIMEOUT") == 300.0
    monkeypatch.setenv("PYCOMPILE_COMM_TIMEOUT", "2.5")
    assert knobs.get("PYCOMPILE_COMM_TIMEOUT") == 2.5


@pytest.mark.parametrize("name,value", [("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "7"),
                                        ("PYCOMPILE_OPT_LEVEL", "fast"), ("PYCOMPILE_COMM_TIMEOUT", "0")])
def test_out_of_range_is_a_value_error_naming_the_knob(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        knobs.get(name)


def test_context_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("PYCOMPILE_NUM_THREADS", "3")
    context.reset()
    assert context.num_threads() == 3
    try:
        context.set_context(runtime_num_threads=1)
        assert context.num_threads() == 1
    finally:
        context.reset()
