"""MindSpore 2.10's public names (recorded from the wheel by record_names.py into
src/pycompile/data/mindspore_names.json): how many pycompile has, and what a user sees for one it lacks.

Run with `-s` to see the presence table. The floor below is the count when the list was committed;
raise it as names are added, so that a name that disappears fails here.
"""
import importlib
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile.common.missing import mindspore_names, present

MODULES = {"ms": "pycompile", "ops": "pycompile.ops", "ops.operations": "pycompile.ops.operations",
           "ops.functional": "pycompile.ops.functional", "nn": "pycompile.nn", "train": "pycompile.train",
           "amp": "pycompile.amp", "communication": "pycompile.communication", "dataset": "pycompile.dataset",
           "dataset.vision": "pycompile.dataset.vision", "dataset.transforms": "pycompile.dataset.transforms",
           "dataset.text": "pycompile.dataset.text", "numpy": "pycompile.numpy"}

PRESENT_FLOOR = 3789     # of 4,407 names at the end of 2026-11-29 (2,899 that night, 1,960 at the end of 2026-11-28)


def _owner(namespace):
    if namespace == "Tensor":
        return ms.Tensor
    try:
        return importlib.import_module(MODULES[namespace])
    except ImportError:
        return None


def presence() -> dict:
    """namespace -> (present, total)."""
    out = {}
    for namespace, entries in mindspore_names().items():
        owner = _owner(namespace)
        out[namespace] = (sum(owner is not None and present(owner, n) for n in entries), len(entries))
    return out


def test_every_namespace_of_the_list_has_a_pycompile_counterpart():
    assert set(mindspore_names()) == set(MODULES) | {"Tensor"}


def test_presence_of_mindspore_names(capsys):
    table = presence()
    have = sum(p for p, _ in table.values())
    total = sum(t for _, t in table.values())
    with capsys.disabled():
        print(f"\nMindSpore 2.10 public names present in pycompile: {have} / {total} = {have / total:.1%}")
        for namespace, (p, t) in sorted(table.items()):
            print(f"  {namespace:20s} {p:5d} / {t:5d}")
    assert total > 4000                      # the list is the whole API, not a sample
    assert have >= PRESENT_FLOOR


def _lacking(count):
    """`count` names MindSpore has and pycompile lacks, spread over ms / ops / ops Primitives / nn /
    Tensor (the first ones in sorted order of each: the choice follows the code, never a hand list)."""
    picks = []
    names = mindspore_names()
    for namespace, kind in [("ops", "function"), ("ops", "class"), ("nn", "class"), ("Tensor", "function"),
                            ("ms", None)]:
        owner = _owner(namespace)
        lacking = [n for n, e in sorted(names[namespace].items())
                   if not hasattr(owner, n) and (kind is None or e["kind"] == kind) and n.isidentifier()]
        picks += [(namespace, n) for n in lacking[:2]]
    return picks[:count]


LACKING = _lacking(10)


def test_ten_lacking_names_are_chosen():
    assert len(LACKING) == 10


@pytest.mark.parametrize("namespace,name", LACKING)
def test_a_lacking_name_says_it_is_unsupported_mindspore_api(namespace, name):
    owner = _owner(namespace)
    target = owner(np.ones(2, np.float32)) if namespace == "Tensor" else owner
    with pytest.raises(AttributeError) as info:
        getattr(target, name)
    message = str(info.value)
    spelled = f"mindspore.Tensor.{name}" if namespace == "Tensor" else \
        ("mindspore" if namespace == "ms" else f"mindspore.{namespace}") + f".{name}"
    assert spelled in message
    assert "MindSpore 2.10 API that pycompile does not support yet" in message
    assert f"docs/api/{namespace}.md" in message


def test_a_name_mindspore_lacks_too_keeps_pythons_message():
    with pytest.raises(AttributeError) as info:
        ms.ops.certainly_not_an_op
    assert str(info.value) == "module 'pycompile.ops' has no attribute 'certainly_not_an_op'"
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'not_a_method'$"):
        ms.Tensor(np.ones(2, np.float32)).not_a_method


@pytest.mark.parametrize("namespace,name", LACKING)
def test_a_lacking_name_in_graph_code_is_reported_at_the_users_line(tmp_path, monkeypatch, namespace, name):
    expr = {"Tensor": f"x.{name}", "ms": f"ms.{name}"}.get(namespace, f"{namespace}.{name}")
    source = ("import pycompile as ms\nfrom pycompile import ops, nn\n\n\n"
              f"def fn(x):\n    y = x + 1\n    return {expr}\n")
    module_name = f"lacking_{namespace}_{name}".replace(".", "_")
    (tmp_path / f"{module_name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(module_name)
    try:
        with pytest.raises(RuntimeError) as info:
            ms.jit(module.fn)(ms.Tensor(np.ones(2, np.float32)))
    finally:
        sys.modules.pop(module_name, None)
    message = str(info.value)
    assert f"{module_name}.py:7:" in message               # the user's file and line
    assert "MindSpore 2.10 API that pycompile does not support yet" in message
    assert name in message
