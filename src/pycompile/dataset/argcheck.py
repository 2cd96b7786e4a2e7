"""MindSpore's dataset argument checks, with its words (mindspore/dataset/core/validator_helpers.py's
`type_check` and `check_value`): one copy for the sources and transforms that raise them."""
from __future__ import annotations


def type_check(value, types, name, shown=None):
    """TypeError unless value is of one of `types`; a bool is not an int; an empty string is printed
    as \"\" (as MindSpore prints it); `shown` replaces the printed list of types."""
    value_text = '""' if repr(value) == repr("") else value
    if isinstance(value, bool) and bool not in types and int in types:
        raise TypeError(f"Argument {name} with value {value_text} is not of type {tuple(types)}, "
                        f"but got {type(value)}.")
    if not isinstance(value, types):
        raise TypeError(f"Argument {name} with value {value_text} is not of type {shown or list(types)}, "
                        f"but got {type(value)}.")


def check_interval(value, name, low, high):
    """ValueError unless low <= value <= high."""
    if not low <= value <= high:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, {high}].")
