"""Argument checks with MindSpore's messages and exception classes (its `_checkparam`
conventions): 'For 'Cls', the 'name' must be int and must > 0, but got '0' with type 'int'.'
Library code outside graphs uses these so users see the errors MindSpore users see."""
from __future__ import annotations

import math

import numpy as np

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


# MindSpore's `_checkparam` relations and the checks written with them (`pycompile._checkparam`
# is this module under MindSpore's name; user primitives and optimizers call these)
EQ, NE, LT, LE, GT, GE = 1, 2, 3, 4, 5, 6
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = 7, 8, 9, 10
IN, NOT_IN = 11, 12
_BINARY = {EQ: ("=", lambda a, b: a == b), NE: ("!=", lambda a, b: a != b), LT: ("<", lambda a, b: a < b),
           LE: ("<=", lambda a, b: a <= b), GT: (">", lambda a, b: a > b), GE: (">=", lambda a, b: a >= b),
           IN: ("in", lambda a, b: a in b), NOT_IN: ("not in", lambda a, b: a not in b)}
_RANGE = {INC_NEITHER: ("({}, {})", lambda v, lo, hi: lo < v < hi),
          INC_LEFT: ("[{}, {})", lambda v, lo, hi: lo <= v < hi),
          INC_RIGHT: ("({}, {}]", lambda v, lo, hi: lo < v <= hi),
          INC_BOTH: ("[{}, {}]", lambda v, lo, hi: lo <= v <= hi)}


def _ms_prefix(arg_name, prim_name):
    return (f"For '{prim_name}', the" if prim_name else "The") + (f" '{arg_name}'" if arg_name else " input value")


def check_number_range(arg_value, lower_limit, upper_limit, rel, value_type, arg_name=None, prim_name=None):
    """`lower_limit <rel> arg_value <rel> upper_limit`, rel one of INC_NEITHER / LEFT / RIGHT / BOTH."""
    info = _ms_prefix(arg_name, prim_name)
    if isinstance(arg_value, bool) or not isinstance(arg_value, (np.ndarray, np.generic, value_type)):
        raise TypeError(f"{info} must be '{value_type.__name__}',  but got '{type(arg_value).__name__}'.")
    text, ok = _RANGE[rel]
    if not ok(arg_value, lower_limit, upper_limit):
        raise ValueError(f"{info} must be in range of {text.format(lower_limit, upper_limit)}, "
                         f"but got {arg_value} with type '{type(arg_value).__name__}'.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, int, arg_name, prim_name)


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, float, arg_name, prim_name)


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    """`arg_value <rel> value` for an int (rel one of EQ, NE, LT, LE, GT, GE)."""
    info = _ms_prefix(arg_name, prim_name)
    if not isinstance(arg_value, int):
        raise TypeError(f"{info} must be int, but got '{type(arg_value).__name__}'")
    text, ok = _BINARY[rel]
    if isinstance(arg_value, bool) or not ok(arg_value, value):
        msg = (f"{info} must be int and must {text} {value}, "
               f"but got '{arg_value}' with type '{type(arg_value).__name__}'.")
        raise (TypeError if isinstance(arg_value, bool) else ValueError)(msg)
    return arg_value


def check_bool(arg_value, arg_name=None, prim_name=None):
    if not isinstance(arg_value, bool):
        raise TypeError(f"{_ms_prefix(arg_name, prim_name)} must be a bool, but got {type(arg_value).__name__}.")
    return arg_value


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    if not (isinstance(arg_value, str) and arg_value in valid_values):
        head = f"For '{prim_name}', the" if prim_name else "The"
        raise ValueError(f"{head} '{arg_name or 'parameter'}' must be str and must be in '{valid_values}', "
                         f"but got '{arg_value}'.")
    return arg_value


def check_isinstance(arg_name, arg_value, classes):
    if not isinstance(arg_value, classes):
        raise ValueError(f"The '{arg_name}' must be {classes}, but got {arg_value}.")
    return arg_value


def _element_type(t):
    """A tensor type's element dtype (pycompile's dtypes stand for both)."""
    return getattr(t, "dtype", t)


def check_tensor_dtype_valid(arg_name, arg_type, valid_dtypes, prim_name):
    valid = list(valid_dtypes) if isinstance(valid_dtypes, (list, tuple, set)) else [valid_dtypes]
    if _element_type(arg_type) not in valid:
        raise TypeError(f"For '{prim_name}', the '{arg_name}' must be a Tensor with type in {valid}, "
                        f"but got {arg_type}.")
    return arg_type


def check_scalar_or_tensor_types_same(args, valid_values, prim_name, allow_mix=False):
    """Every value of `args` (name -> dtype) is in valid_values, and all are the same."""
    first = None
    for key, value in args.items():
        t = _element_type(value)
        if t not in valid_values:
            raise TypeError(f"For '{prim_name}', the type of '{key}' must be in {valid_values}, but got {t}.")
        if first is not None and t != first[1]:
            raise TypeError(f"For '{prim_name}', the type of '{key}' must be same as '{first[0]}', "
                            f"but got '{first[0]}' with type {first[1]} and '{key}' with type {t}.")
        first = first or (key, t)


def check_type_name(arg_name, arg_type, valid_types, prim_name):
    valid = tuple(valid_types) if isinstance(valid_types, (list, tuple, set)) else (valid_types,)
    t = _element_type(arg_type)
    if t not in valid:
        head = f"For '{prim_name}', the" if prim_name else "The"
        raise TypeError(f"{head} '{arg_name}' should be {'one of ' if len(valid) > 1 else ''}"
                        f"{list(valid) if len(valid) > 1 else valid[0]}, but got '{t}'.")
    return t
