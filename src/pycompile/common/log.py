"""pycompile's logger: Python `logging` under the name "pycompile", one child logger per channel.

Silent by default: the channels log at INFO, and each channel logger stays at WARNING until it
is switched on — `PYCOMPILE_LOG=compiles,recompiles,cache,output_code` (any subset; `all`), or
`set_context(log="compiles,recompiles")` (the context wins), like TORCH_LOGS / JAX_LOG_COMPILES.
Warnings print either way: a compile that runs past a second ("compiling f ...", so a long first
call is never silent) and the recompile limit ("f recompiled 8 times ... ms.mutable").

Records go to the "pycompile" logger's own handler, which writes "[pycompile] message" to the
sys.stderr of the moment (so redirections and test capture see it) and does not propagate: a
program that configures the root logger does not get each line twice. To route pycompile's
records elsewhere, add a handler to logging.getLogger("pycompile") and remove `HANDLER`.

channels:
  compiles     one line per compile: function, signature, total and per-stage times, cache
  recompiles   a signature of an already compiled function: which argument changed and how
  cache        the on-disk compile cache: hits, and the reason of each miss
  output_code  the generated C of each compile (several hundred lines per graph)
"""
from __future__ import annotations

import logging
import sys

from pycompile.common import knobs

CHANNELS = ("compiles", "recompiles", "cache", "output_code")

logger = logging.getLogger("pycompile")
compiles = logging.getLogger("pycompile.compiles")
recompiles = logging.getLogger("pycompile.recompiles")
cache = logging.getLogger("pycompile.cache")
output_code = logging.getLogger("pycompile.output_code")
_BY_NAME = {"compiles": compiles, "recompiles": recompiles, "cache": cache, "output_code": output_code}


class _StderrHandler(logging.StreamHandler):
    """A StreamHandler bound to whatever sys.stderr is when a record is written."""

    def __init__(self):
        super().__init__(sys.stderr)

    def emit(self, record):
        self.stream = sys.stderr
        super().emit(record)


HANDLER = _StderrHandler()
HANDLER.setFormatter(logging.Formatter("[pycompile] %(message)s"))
logger.addHandler(HANDLER)
logger.propagate = False
logger.setLevel(logging.INFO)


def parse(spec) -> frozenset:
    """'compiles,recompiles' / ['cache'] / 'all' / '' / None -> the set of channel names.
    An unknown name is a ValueError listing the valid ones."""
    if spec is None:
        return frozenset()
    items = spec.replace(";", ",").split(",") if isinstance(spec, str) else list(spec)
    names = set()
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"log channels are strings, but got {type(item).__name__}: {item!r}")
        item = item.strip().lower().lstrip("+")
        if item in ("", "0", "off", "none"):
            continue
        if item == "all":
            names.update(CHANNELS)
        elif item in CHANNELS:
            names.add(item)
        else:
            raise ValueError(f"unknown pycompile log channel {item!r}; valid channels: "
                             f"{', '.join(CHANNELS)} (or all)")
    return frozenset(names)


def configure(spec=None) -> frozenset:
    """Switch the channels in `spec` on and the others off (None: follow PYCOMPILE_LOG)."""
    names = parse(knobs.get("PYCOMPILE_LOG") if spec is None else spec)
    for name, channel in _BY_NAME.items():
        channel.setLevel(logging.INFO if name in names else logging.WARNING)
    return names


def enabled(channel: logging.Logger) -> bool:
    return channel.isEnabledFor(logging.INFO)
