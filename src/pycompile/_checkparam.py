"""`mindspore._checkparam` under pycompile's name: the argument checks with MindSpore's call
shapes (`check_value_type(name, value, [int], prim_name)`, `check_float_range(v, 0.0, 1.0,
INC_NEITHER, name, prim_name)`, ...), the same objects as `pycompile.common.validator`'s.
(pycompile's own `validator.check_number` takes other arguments and is not exported here.)"""
from pycompile.common.validator import (EQ, GE, GT, IN, INC_BOTH, INC_LEFT, INC_NEITHER,  # noqa: F401
                                        INC_RIGHT, LE, LT, NE, NOT_IN, check_bool, check_float_range,
                                        check_int, check_int_range, check_is_float, check_isinstance,
                                        check_non_negative_float, check_non_negative_int,
                                        check_number_range, check_positive_float, check_positive_int,
                                        check_scalar_or_tensor_types_same, check_string,
                                        check_tensor_dtype_valid, check_type_name, check_value_type)
