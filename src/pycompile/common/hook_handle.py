"""mindspore.common.hook_handle.HookHandle: what registering a Cell hook returns."""
from __future__ import annotations

import itertools

_IDS = itertools.count()


class HookHandle:
    """`remove()` unregisters the hook (a second call does nothing)."""

    def __init__(self, hooks: dict, on_change=None):
        self.handle_id = next(_IDS)
        self._hooks = hooks
        self._on_change = on_change

    def remove(self) -> None:
        if self._hooks.pop(self.handle_id, None) is not None and self._on_change is not None:
            self._on_change()
