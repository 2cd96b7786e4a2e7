"""Values a compiled module's runtime error carries (branch rows32b): a template that wants them in
its message stores them in the module's `PC_ERRINFO` slots before returning its error code, and
registers a message holding the placeholders below; Executable._raise (backend/executable.py)
reads the slots through the module's `pc_error_info()` and fills the message in Python, so no
value the user gave is ever written into the C source.

Slot 0: the position; slot 1: how many values follow; slots 2...: the values.
"""
from __future__ import annotations

ERRINFO_SLOTS = 34
ERRINFO_POSITION = "<pc:position>"
ERRINFO_VALUES = "<pc:values>"


def fill(text: str, slots) -> str:
    """text with its placeholders replaced by the values in `slots` (a sequence of int64)."""
    if ERRINFO_POSITION not in text and ERRINFO_VALUES not in text:
        return text
    count = max(0, min(int(slots[1]), ERRINFO_SLOTS - 2))
    values = ", ".join(str(int(slots[2 + q])) for q in range(count))
    return text.replace(ERRINFO_POSITION, f"{int(slots[0])}-th").replace(ERRINFO_VALUES, f"[{values}]")


def plain(text: str) -> str:
    """text without the values (a `--emit lib` library's message table, backend/lib.py, which does
    not read the slots): the position and the values read as placeholders."""
    return text.replace(ERRINFO_POSITION, "k-th").replace(ERRINFO_VALUES, "[...]")
