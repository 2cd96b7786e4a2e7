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

The passes and the IR know nothing of the target: the pipeline hands the device a graph.
"""
from __future__ import annotations

from pycompile.common import context


class Device:
    name: str = ""
    float_status: bool = False
    description: str = ""

    def render(self, graph):
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
