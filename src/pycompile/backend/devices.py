"""The device registry: `set_context(device_target=...)` / `set_device(...)` choose one.

A device is one object implementing this interface; adding a device is adding one module that
defines it and calls `register` (and one import line in pycompile/backend/__init__.py):

  name            the target name users pass
  float_status    True when it emulates the NPU float-status register (NPU*FloatStatus ops work,
                  and compiled float kernels record overflow / NaN / Inf into it)
  description     one line for `available()` listings
  render(graph)   target code for an optimized graph (a module object with .source and .plan)
  build(module, path_stem) -> path of the loadable artefact
  load(path, layout) -> a callable executable (see backend/executable.py)
  identity()      what about the device's toolchain goes into compile-cache keys
  passes          the device-chosen passes it wants, by name (compiler/passes DEVICE_PASSES: each
                  runs at its place in the pipeline; default none)
  renders(op)     whether it renders the table row `op` (an OpDef); default every row. The
                  pre-render pass (compiler/passes/decompose.py) replaces each row it does not
                  render by the row's decomposition; a row without one is a compile error

The passes and the IR know nothing else of the target: `pipeline_options()` turns the two
declarations into the pipeline's options (`device_passes`, `unrendered`), which the compile-cache
key and PyNative's kernel key include, and the pipeline hands the device a graph.
"""
from __future__ import annotations

from pycompile.common import context


class Device:
    name: str = ""
    float_status: bool = False
    description: str = ""
    passes: tuple = ()

    def renders(self, op) -> bool:
        return True

    def pipeline_options(self) -> dict:
        """What the pipeline reads about this device: its name, its passes and the names of the
        table rows it does not render (sorted; computed again when the table grows)."""
        from pycompile.ops._table import OPS
        memo = self.__dict__.get("_unrendered")
        if memo is None or memo[0] != len(OPS):
            memo = (len(OPS), tuple(sorted(name for name, op in OPS.items() if not self.renders(op))))
            self.__dict__["_unrendered"] = memo
        return {"device": self.name, "device_passes": tuple(self.passes), "unrendered": memo[1]}

    def render(self, graph, profile: bool = False):
        """The module of `graph`; `profile`: with its kernels timed (backend/c/profile.py)."""
        raise NotImplementedError

    def build(self, module, stem: str) -> str:
        raise NotImplementedError

    def load(self, path: str, layout: dict):
        raise NotImplementedError

    def identity(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<device {self.name}>"


_REGISTRY: dict[str, Device] = {}


def register(device: Device) -> Device:
    _REGISTRY[device.name] = device
    context.register_device_target(device.name)
    return device


def available() -> list[str]:
    return list(_REGISTRY)


def get(name: str) -> Device:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown device target {name!r}; available: {', '.join(_REGISTRY)}") from None


def current() -> Device:
    return get(context.get_context("device_target"))
