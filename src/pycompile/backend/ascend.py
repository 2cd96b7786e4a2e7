"""An Ascend-style device stub: it runs the CPU device's code and emulates the NPU float-status
register, so `NPUAllocFloatStatus` / `NPUClearFloatStatus` / `NPUGetFloatStatus` work and every
compiled float kernel records overflow / NaN / Inf into it (ops/lowering.Status says how)."""
from __future__ import annotations

from pycompile.backend import devices
from pycompile.backend.cpu import CPU


class AscendStub(CPU):
    name = "Ascend"
    float_status = True
    description = "stub: runs the CPU code and emulates the NPU float-status register"


devices.register(AscendStub())
