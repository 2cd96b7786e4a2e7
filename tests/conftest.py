"""Shared fixtures: every test starts from the default context and a fixed seed; the IR
verifier runs after every compiler pass."""
import os

import pytest

os.environ.setdefault("PYCOMPILE_VERIFY", "1")

# record_*.py scripts run under MindSpore's venv to write the fixtures tests compare against.
collect_ignore_glob = ["record_*.py", "*/record_*.py"]

import pycompile as ms
from pycompile.common import context


@pytest.fixture(autouse=True)
def _fresh_context():
    context.reset()
    ms.set_seed(1234)
    yield
    context.reset()
