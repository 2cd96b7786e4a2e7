"""MindSpore's module paths under pycompile: `from mindspore.nn.loss.loss import LossBase`,
`import mindspore.dataset.vision.transforms as vision`, `from mindspore.train.model import
ParallelMode` work with `pycompile` in place of `mindspore`.

Model code imports names from deep inside MindSpore's package as often as from its namespaces.
data/mindspore_modules.json (recorded from the wheel: tests/oracle/record_module_paths.py) lists
MindSpore 2.10's public modules under the packages model code imports from and, per module, the
public names it holds, each by the namespace name it is (`nn.loss.loss` holds `nn.LossBase`). An
import finder (installed first thing by pycompile/__init__.py) serves them:

- a path pycompile has as a module of its own (`pycompile.nn.cell`) is that module, and a name it
  lacks but the table lists is looked up by its namespace name (a PEP 562 `__getattr__` put on the
  module when it is loaded, chained to the module's own);
- a path pycompile has no module for (`pycompile.nn.loss.loss`) is made from the table: a package
  whose attributes are pycompile's objects of those names.

Either way `pycompile.nn.loss.loss.LossBase is pycompile.nn.LossBase`, as MindSpore's are the
same object. A listed name pycompile does not have raises the AttributeError of a missing
MindSpore name (common/missing.py). The table is read at the first import of a pycompile module
after the finder is installed (~1 ms), a module's names parsed when it is loaded, and resolved
when they are read.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

_ROOT = "pycompile"
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mindspore_modules.json")
# namespace of mindspore_names.json -> the pycompile module holding its names
_NAMESPACES = {"ms": "", "nn": "nn", "ops": "ops", "amp": "amp", "communication": "communication",
               "dataset": "dataset", "dataset.text": "dataset.text", "dataset.transforms": "dataset.transforms",
               "dataset.vision": "dataset.vision", "numpy": "numpy", "ops.functional": "ops.functional",
               "ops.operations": "ops.operations", "train": "train"}
_TABLE: list = []           # [{path: its names as recorded}, {packages}, {path: {name: (namespace, name)}}]


def _table():
    if not _TABLE:
        with open(_DATA) as f:
            modules = json.load(f)["modules"]
        packages = {path.rsplit(".", k)[0] for path in modules for k in range(1, path.count(".") + 1)}
        _TABLE[:] = [modules, packages, {}]
    return _TABLE


def names_of(path: str) -> dict:
    """{name: (namespace, its name there)} of one listed module (parsed when first asked)."""
    modules, _, parsed = _table()
    names = parsed.get(path)
    if names is None:
        names = parsed[path] = {}
        for ns, listed in modules.get(path, {}).items():
            for item in listed.split():
                name, _, canon = item.partition("=")
                names[name] = (ns, canon or name)
    return names


def resolve(path: str, name: str):
    """The object MindSpore's `mindspore.<path>.<name>` is, in pycompile."""
    entry = names_of(path).get(name)
    if entry is None:
        raise AttributeError(f"module 'pycompile.{path}' has no attribute '{name}'")
    ns, canon = entry
    where = _NAMESPACES[ns]
    module = importlib.import_module(_ROOT + ("." + where if where else ""))
    return getattr(module, canon)       # a name pycompile lacks: that namespace's missing-name error


def _fallback(path: str, own):
    """The module's `__getattr__`: its own first (a module may install names when first read:
    ops.functional's op entries), then the table's."""
    def __getattr__(name):
        entry = names_of(path).get(name)
        # (a namespace's own module lists its names under itself: those are its own to answer)
        listed = entry is not None and (_NAMESPACES.get(entry[0]), entry[1]) != (path, name)
        if own is not None:
            try:
                return own(name)
            except AttributeError:
                if not listed:
                    raise
        if listed:
            return resolve(path, name)
        raise AttributeError(f"module 'pycompile.{path}' has no attribute '{name}'")
    __getattr__.path, __getattr__.own = path, own
    return __getattr__


def _chain(module, path: str) -> None:
    """Put the table's names of `path` behind `module`'s own attributes (once per path)."""
    own = module.__dict__.get("__getattr__")
    chain, seen = own, False
    while chain is not None and not seen:
        seen = getattr(chain, "path", None) == path
        chain = getattr(chain, "own", None)
    if not seen:
        module.__getattr__ = _fallback(path, own)


def complete_loaded() -> None:
    """Give the table's names to the listed modules already loaded under another name (the finder
    sees a module's first import only: `pycompile.context` is `pycompile.common.context`)."""
    for path in _table()[0]:
        module = sys.modules.get(f"{_ROOT}.{path}")
        if module is not None:
            _chain(module, path)


class _Completing(importlib.abc.Loader):
    """A module of pycompile's own at a listed path, loaded by its own loader and then given the
    table's names it lacks."""

    def __init__(self, loader, path: str):
        self._loader, self._path = loader, path

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        table, packages, _ = _table()
        if self._path in table:
            module.__getattr__ = _fallback(self._path, module.__dict__.get("__getattr__"))
        if self._path in packages and not hasattr(module, "__path__"):
            # a module of pycompile's (nn/loss.py) where MindSpore has a package (nn.loss.loss):
            # its listed submodules are made from the table, searched for nowhere else
            module.__path__ = []

    def __getattr__(self, name):        # get_source, get_filename, is_package ...: the real loader's
        return getattr(self._loader, name)


class _Made(importlib.abc.Loader):
    """A listed path pycompile has no module for: a package of the table's names."""

    def __init__(self, path: str):
        self._path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__doc__ = f"mindspore.{self._path}: MindSpore's module path, its names pycompile's (_module_paths.py)"
        names = names_of(self._path)
        public = []
        for name in names:
            try:
                setattr(module, name, resolve(self._path, name))
                public.append(name)
            except AttributeError:      # listed in MindSpore, missing in pycompile: raises when read
                continue
        module.__all__ = public
        module.__getattr__ = _fallback(self._path, None)


class _Alias(importlib.abc.Loader):
    """A listed path where pycompile's package already holds a module of another name
    (`pycompile.mint.optim` is `pycompile.experimental.optim`): the import gives that module. A
    module made from the table would have replaced the package's attribute, so `import
    mindspore.mint.optim` anywhere lost `mint.optim.AdamW` for the whole process."""

    def __init__(self, module, path: str):
        self._module, self._path, self._spec = module, path, module.__spec__

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        module.__spec__ = self._spec        # (the import system set the alias's spec on it)
        if self._path in _table()[0]:
            _chain(module, self._path)


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(_ROOT + "."):
            return None
        rel = fullname[len(_ROOT) + 1:]
        table, packages, _ = _table()
        if rel not in table and rel not in packages:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None:
            if spec.loader is not None:
                spec.loader = _Completing(spec.loader, rel)
            return spec
        parent, _, leaf = fullname.rpartition(".")
        held = sys.modules[parent].__dict__.get(leaf) if parent in sys.modules else None
        if isinstance(held, types.ModuleType):
            return importlib.util.spec_from_loader(fullname, _Alias(held, rel), is_package=hasattr(held, "__path__"))
        return importlib.util.spec_from_loader(fullname, _Made(rel), is_package=True)


def install() -> None:
    if not any(isinstance(f, Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, Finder())
