"""The op entries: one definition per op (`pycompile.ops.entry.op_entry`), one file per op or
per small family. Every module of this package is imported here, in name order, so a new file
is a new op: no other source file lists it."""
import importlib as _importlib
import pkgutil as _pkgutil

for _m in sorted(m.name for m in _pkgutil.iter_modules(__path__)):
    _importlib.import_module(f"{__name__}.{_m}")
del _m
