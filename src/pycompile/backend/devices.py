"""The device registry: `set_context(device_target=...)` / `set_device(...)` choose one.

A device is one object implementing this small interface:
  name           the target name users pass
  float_status   True when it emulates the NPU float-status register (NPU*FloatStatus ops work,
                 and compiled float kernels record overflow / NaN / Inf into it)
  cflags         extra C compiler flags for kernels built for it
Both devices run the generated C on this machine's CPU; `Ascend` is an emulation stub.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycompile.common import context


@dataclass(frozen=True)
class Device:
    name: str
    float_status: bool = False
    description: str = ""


_REGISTRY: dict[str, Device] = {}


def register(device: Device) -> Device:
    _REGISTRY[device.name] = device
    context.register_device_target(device.name)
    return device


CPU = register(Device("CPU", float_status=False, description="native C on this machine's cores"))
ASCEND = register(Device("Ascend", float_status=True,
                         description="stub: runs the CPU code and emulates the NPU float-status register"))


def available() -> list[str]:
    return list(_REGISTRY)


def get(name: str) -> Device:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown device target {name!r}; available: {', '.join(_REGISTRY)}") from None


def current() -> Device:
    return get(context.get_context("device_target"))
