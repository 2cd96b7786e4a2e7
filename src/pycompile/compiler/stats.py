"""What the pass pipeline reports per pass (importable without the passes: a compile-cache hit
rebuilds its report from these)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PassStat:
    name: str
    seconds: float
    nodes_before: int
    nodes_after: int
