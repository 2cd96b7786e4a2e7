"""Shared fixtures: every test starts from the default context and a fixed seed."""
import pytest

import pycompile as ms
from pycompile.common import context


@pytest.fixture(autouse=True)
def _fresh_context():
    context.reset()
    ms.set_seed(1234)
    yield
    context.reset()
