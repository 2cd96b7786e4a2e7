"""Shared fixtures: every test starts from the default context and a fixed seed; the IR
verifier runs after every compiler pass."""
import os

import pytest

os.environ.setdefault("PYCOMPILE_VERIFY", "1")

import pycompile as ms
from pycompile.common import context


@pytest.fixture(autouse=True)
def _fresh_context():
    context.reset()
    ms.set_seed(1234)
    yield
    context.reset()
