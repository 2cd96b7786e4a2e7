"""MindSpore's argument checks for the export entry points (its Validator's messages)."""
from __future__ import annotations

import re

_FILE_NAME = r"^[0-9a-zA-Z@\_\-\.\:\/\\]+$"


def check_file_name(file_name) -> None:
    """MindSpore's Validator.check_file_name_by_regular."""
    if not isinstance(file_name, str):
        raise TypeError(f"The '{file_name}' must be string, but got {type(file_name)}.")
    if file_name.endswith("\\") or file_name.endswith("/"):
        raise ValueError(f"The '{file_name}' cannot be a directory path.")
    if re.match(_FILE_NAME, file_name) is None:
        raise ValueError(f"The '{file_name}' is illegal, it must be match regular '{_FILE_NAME}'.")


def check_isinstance(arg_name: str, value, cls):
    """MindSpore's Validator.check_isinstance (a ValueError, as MindSpore raises)."""
    if not isinstance(value, cls):
        raise ValueError(f"The parameter '{arg_name}' must be isinstance of {cls}, but got {value}.")
    return value
