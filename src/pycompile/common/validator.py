"""Argument checks with MindSpore's messages and exception classes (its `_checkparam`
conventions): 'For 'Cls', the 'name' must be int and must > 0, but got '0' with type 'int'.'
Library code outside graphs uses these so users see the errors MindSpore users see."""
from __future__ import annotations

import math

_REL = {"gt": ("> ", lambda a, b: a > b), "ge": (">= ", lambda a, b: a >= b)}


def _prefix(name, prim_name):
    head = f"For '{prim_name}', the " if prim_name else "The "
    return head + (f"'{name}'" if name else "input value")


def check_number(value, bound, rel, arg_type, name=None, prim_name=None):
    info = _prefix(name, prim_name)
    if not isinstance(value, arg_type) or (arg_type is not bool and isinstance(value, bool)):
        if not isinstance(value, arg_type):
            raise TypeError(f"{info} must be {arg_type.__name__}, but got '{type(value).__name__}'")
    if math.isinf(value) or math.isnan(value):
        raise ValueError(f"{info} must be a legal value, but got '{value}'.")
    text, ok = _REL[rel]
    if isinstance(value, bool) or not ok(value, bound):
        msg = (f"{info} must be {arg_type.__name__} and must {text}{bound}, "
               f"but got '{value}' with type '{type(value).__name__}'.")
        raise (TypeError if isinstance(value, bool) else ValueError)(msg)
    return value


def check_positive_int(value, name=None, prim_name=None):
    return check_number(value, 0, "gt", int, name, prim_name)


def check_non_negative_int(value, name=None, prim_name=None):
    return check_number(value, 0, "ge", int, name, prim_name)


def check_positive_float(value, name=None, prim_name=None):
    return check_number(value, 0, "gt", float, name, prim_name)


def check_non_negative_float(value, name=None, prim_name=None):
    return check_number(value, 0, "ge", float, name, prim_name)


def check_is_float(value, name=None, prim_name=None):
    if not isinstance(value, float):
        raise TypeError(f"{_prefix(name, prim_name)} must be float, but got '{type(value).__name__}'")
    return value


def check_value_type(name, value, valid_types, prim_name=None):
    valid_types = tuple(valid_types) if isinstance(valid_types, (list, tuple)) else (valid_types,)
    if isinstance(value, bool) and bool not in valid_types:
        ok = False
    else:
        ok = isinstance(value, valid_types)
    if not ok:
        names = [t.__name__ for t in valid_types]
        head = f"For '{prim_name}', the type of '{name}'" if prim_name else f"The type of '{name}'"
        want = names[0] if len(names) == 1 else f"one of {names}"
        raise TypeError(f"{head} must be {want}, but got '{value}' with type '{type(value).__name__}'.")
    return value
