"""`mindspore.ops.op_info_register` under pycompile's name: the operator-information builders model code
writes for custom kernels - CustomRegOp (the `reg_info` of ops.Custom), CpuRegOp, AiCPURegOp, TBERegOp,
AkgAscendRegOp, AkgGpuRegOp - the DataType table of (dtype, format) pairs, and the decorators
op_info_register / custom_info_register.

A builder's methods each add one entry (an input, an output, an attribute, a dtype / format row) or set
one field, check their arguments' types with MindSpore's words ("1 value must be str", TypeError) and
return the builder; `get_op_info()` returns the dict MindSpore 2.10 returns - the same keys in the same
order, each field's trailing underscore dropped and TBE's flags in MindSpore's camelCase (recorded
from the wheel: tests/conformance/cases_op_info.py). pycompile compiles its kernels itself, so the
information is kept, not acted on: ops.Custom takes it as `reg_info` and `op_info_register` checks it
is JSON (a dict or a str) and returns the function to call, as MindSpore's does."""
from __future__ import annotations

import functools
import inspect
import json
import os

from pycompile.common.log import logger

__all__ = ["AiCPURegOp", "AkgAscendRegOp", "AkgGpuRegOp", "CpuRegOp", "CustomRegOp", "DataType", "TBERegOp",
           "custom_info_register", "op_info_register"]


def _check(kind):
    def check(value):
        if not isinstance(value, kind):
            raise TypeError(f"{value} value must be {kind.__name__}")
    return check


_STR, _INT, _BOOL, _LIST = _check(str), _check(int), _check(bool), _check(list)

# the camelCase keys get_op_info gives TBE's flags (MindSpore's names)
_RENAMED = {"dynamic_shape_support": "dynamicShapeSupport", "dynamic_rank_support": "dynamicRankSupport",
            "dynamic_compile_static": "dynamicCompileStatic", "need_check_support": "needCheckSupport",
            "dynamic_format": "dynamicFormat"}


def _entry(fields, kwargs):
    """{key: value} of the (key, value, check) fields given (not None), checked, then the extra kwargs."""
    out = {}
    for key, value, check in fields:
        if value is not None:
            check(value)
            out[key] = value
    out.update(kwargs)
    return out


class RegOp:
    """The fields every builder has: op_name, inputs, outputs, attributes, fusion type, dtype / formats."""

    def __init__(self, op_name=""):
        if not isinstance(op_name, str):
            raise ValueError("op name value must be string")
        if not op_name.strip():
            raise ValueError("op name is empty")
        self.op_name = op_name
        self.inputs, self.outputs, self.attr_ = [], [], []
        self.fusion_type_ = ""
        self.dtype_format_ = []

    def fusion_type(self, fusion_type):
        _STR(fusion_type)
        self.fusion_type_ = fusion_type
        return self

    def dtype_format(self, *args):
        """One row: a (dtype, format) or (dtype, format, kind) tuple per input then per output."""
        if len(args) != len(self.inputs) + len(self.outputs):
            raise ValueError("input size add output size must be equal to dtype format size")
        return self._row(args)

    def _row(self, args):
        for arg in args:
            if not isinstance(arg, tuple) or len(arg) not in (2, 3):
                raise ValueError("dtype and format value must be tuple of two or three elements")
            for part in arg:
                _STR(part)
        self.dtype_format_.append(tuple(args))
        return self

    def _set(self, field, value, check):
        check(value)
        setattr(self, field, value)
        return self

    def get_op_info(self):
        info = {}
        for key, value in vars(self).items():
            if key.endswith("_"):
                key = key.rstrip("_")
                key = _RENAMED.get(key, key)
            info[key] = value
        return info


class CpuRegOp(RegOp):
    """Operator information of a CPU kernel."""
    _imply = "CPU"

    def __init__(self, op_name):
        super().__init__(op_name)
        self.imply_type = self._imply

    def input(self, index=None, name=None, param_type=None, **kwargs):
        self.inputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("paramType", param_type, _STR)],
                                  kwargs))
        return self

    def output(self, index=None, name=None, param_type=None, **kwargs):
        self.outputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("paramType", param_type, _STR)],
                                   kwargs))
        return self

    def attr(self, name=None, value_type=None, value=None, **kwargs):
        self.attr_.append(_entry([("name", name, _STR), ("type", value_type, _STR), ("value", value, _STR)], kwargs))
        return self


class AiCPURegOp(CpuRegOp):
    """Operator information of an AiCPU kernel (Ascend's CPU cores)."""
    _imply = "AiCPU"


class _AkgRegOp(RegOp):
    _processor = None

    def __init__(self, op_name):
        super().__init__(op_name)
        self.imply_type = "AKG"
        self.processor = self._processor

    def input(self, index=None, name=None, param_type=None, **kwargs):
        self.inputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("paramType", param_type, _STR)],
                                  kwargs))
        return self

    def output(self, index=None, name=None, **kwargs):
        self.outputs.append(_entry([("index", index, _INT), ("name", name, _STR)], kwargs))
        return self

    def attr(self, name=None, param_type=None, value_type=None, **kwargs):
        self.attr_.append(_entry([("name", name, _STR), ("paramType", param_type, _STR), ("type", value_type, _STR)],
                                 kwargs))
        return self


class AkgGpuRegOp(_AkgRegOp):
    """Operator information of an AKG kernel for GPUs."""
    _processor = "CUDA"


class AkgAscendRegOp(_AkgRegOp):
    """Operator information of an AKG kernel for Ascend."""
    _processor = "AiCore"


class TBERegOp(RegOp):
    """Operator information of a TBE kernel (Ascend): the flags below, each set by the method named
    after it (binfile_name sets `binfile`, kernel_name `kernel`, dynamic_shape `dynamicShapeSupport`,
    need_check_supported `needCheckSupport`, is_dynamic_format `dynamicFormat`)."""

    def __init__(self, op_name):
        super().__init__(op_name)
        self.imply_type = "TBE"
        self.async_flag_, self.binfile_, self.compute_cost_, self.kernel_ = False, "", 10, ""
        self.partial_flag_, self.reshape_type_ = False, ""
        self.dynamic_rank_support_ = self.dynamic_shape_support_ = self.dynamic_compile_static_ = False
        self.need_check_support_ = self.dynamic_format_ = False
        self.op_pattern_ = ""
        self.real_input_index_, self.input_to_attr_index_, self.unknown_shape_formats_ = [], [], []

    def unknown_shape_formats(self, unknown_shape_formats):
        _LIST(unknown_shape_formats)
        self.unknown_shape_formats_.append(unknown_shape_formats)
        return self

    def dynamic_rank_support(self, dynamic_rank_support):
        return self._set("dynamic_rank_support_", dynamic_rank_support, _BOOL)

    def real_input_index(self, real_input_index):
        return self._set("real_input_index_", real_input_index, _LIST)

    def input_to_attr_index(self, input_to_attr_index):
        return self._set("input_to_attr_index_", input_to_attr_index, _LIST)

    def async_flag(self, async_flag=False):
        return self._set("async_flag_", async_flag, _BOOL)

    def binfile_name(self, binfile_name):
        return self._set("binfile_", binfile_name, _STR)

    def compute_cost(self, compute_cost=10):
        return self._set("compute_cost_", compute_cost, _INT)

    def kernel_name(self, kernel_name):
        return self._set("kernel_", kernel_name, _STR)

    def partial_flag(self, partial_flag=True):
        return self._set("partial_flag_", partial_flag, _BOOL)

    def reshape_type(self, reshape_type):
        return self._set("reshape_type_", reshape_type, _STR)

    def dynamic_shape(self, dynamic_shape=False):
        return self._set("dynamic_shape_support_", dynamic_shape, _BOOL)

    def dynamic_compile_static(self, dynamic_compile_static=False):
        return self._set("dynamic_compile_static_", dynamic_compile_static, _BOOL)

    def need_check_supported(self, need_check_supported=False):
        return self._set("need_check_support_", need_check_supported, _BOOL)

    def is_dynamic_format(self, is_dynamic_format=False):
        return self._set("dynamic_format_", is_dynamic_format, _BOOL)

    def op_pattern(self, pattern=None):
        if pattern is not None:
            self._set("op_pattern_", pattern, _STR)
        return self

    def attr(self, name=None, param_type=None, value_type=None, value=None, default_value=None, **kwargs):
        self.attr_.append(_entry([("name", name, _STR), ("paramType", param_type, _STR), ("type", value_type, _STR),
                                  ("value", value, _STR), ("defaultValue", default_value, _STR)], kwargs))
        return self

    def input(self, index=None, name=None, need_compile=None, param_type=None, shape=None, value_depend=None,
              **kwargs):
        self.inputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("needCompile", need_compile, _BOOL),
                                   ("paramType", param_type, _STR), ("shape", shape, _STR),
                                   ("valueDepend", value_depend, _STR)], kwargs))
        return self

    def output(self, index=None, name=None, need_compile=None, param_type=None, shape=None, **kwargs):
        # MindSpore spells this key need_compile for outputs (needCompile for inputs)
        self.outputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("need_compile", need_compile, _BOOL),
                                    ("paramType", param_type, _STR), ("shape", shape, _STR)], kwargs))
        return self


class CustomRegOp(RegOp):
    """The registration information of an ops.Custom function: its inputs and outputs (param_type
    "required" by default), attributes, dtype / format rows and target."""

    def __init__(self, op_name="Custom"):
        super().__init__(op_name)
        self.target_ = "UnKnown"

    def input(self, index=None, name=None, param_type="required", **kwargs):
        self.inputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("paramType", param_type, _STR)],
                                  kwargs))
        return self

    def output(self, index=None, name=None, param_type="required", **kwargs):
        self.outputs.append(_entry([("index", index, _INT), ("name", name, _STR), ("paramType", param_type, _STR)],
                                   kwargs))
        return self

    def dtype_format(self, *args):
        expected = len(self.inputs) + len(self.outputs)
        if len(args) != expected:
            raise ValueError(f"The size of 'args' must be equal to the sum of input tensors and output tensors, but "
                             f"got {len(args)} vs {expected}")
        return self._row(args)

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        self.attr_.append(_entry([("name", name, _STR), ("paramType", param_type, _STR), ("type", value_type, _STR),
                                  ("defaultValue", default_value, _STR)], kwargs))
        return self

    def target(self, target=None):
        if target is not None:
            _STR(target)
        self.target_ = target
        return self


# ---- DataType: (dtype, format) pairs ------------------------------------------------------------------
_FORMATS = {"None": ("",), "Default": ("DefaultFormat",), "5HD": ("NC1HWC0",), "FracZ": ("FRACTAL_Z",),
            "FracNZ": ("FRACTAL_NZ",), "C1HWNCoC0": ("C1HWNCoC0",), "NCHW": ("NCHW",), "NHWC": ("NHWC",),
            "HWCN": ("HWCN",), "NDHWC": ("NDHWC",), "NCDHW": ("NCDHW",), "DHWCN": ("DHWCN",),
            "NDC1HWC0": ("NDC1HWC0",), "NC1HWC0": ("NC1HWC0",), "FRACTAL_Z_3D": ("FRACTAL_Z_3D",),
            "FracZNLSTM": ("FRACTAL_ZN_LSTM",), "FracZNRNN": ("FRACTAL_ZN_RNN",), "ND_RNNBIAS": ("ND_RNN_BIAS",),
            "ChannelLast": ("ChannelLast",), "Default_Tuple": ("DefaultFormat", "tuple"),
            "Default_List": ("DefaultFormat", "list")}
_COMMON = "None Default 5HD FracZ FracNZ C1HWNCoC0 NCHW NHWC HWCN NDHWC"
_FLOAT_EXTRA = "NCDHW DHWCN NDC1HWC0 FRACTAL_Z_3D FracZNLSTM FracZNRNN ND_RNNBIAS ChannelLast"
_TAIL = "Default_Tuple Default_List"
# each dtype's prefix, name and the formats MindSpore 2.10 names for it
_DTYPES = [("None", "", "None Default"),
           ("BOOL", "bool", f"{_COMMON} ChannelLast {_TAIL}"),
           ("I8", "int8", f"{_COMMON} NCDHW ChannelLast NDC1HWC0 NC1HWC0 {_TAIL}"),
           ("U8", "uint8", f"{_COMMON} NCDHW ChannelLast NDC1HWC0 NC1HWC0 {_TAIL}"),
           ("I16", "int16", f"{_COMMON} ChannelLast {_TAIL}"),
           ("U16", "uint16", f"{_COMMON} ChannelLast {_TAIL}"),
           ("I32", "int32", f"{_COMMON} NDC1HWC0 NCDHW ChannelLast {_TAIL}"),
           ("U32", "uint32", f"{_COMMON} ChannelLast {_TAIL}"),
           ("I64", "int64", f"{_COMMON} ChannelLast {_TAIL}"),
           ("U64", "uint64", f"{_COMMON} ChannelLast {_TAIL}"),
           ("F16", "float16", f"{_COMMON} {_FLOAT_EXTRA} {_TAIL}"),
           ("F32", "float32", f"{_COMMON} {_FLOAT_EXTRA} {_TAIL}"),
           ("F64", "float64", f"{_COMMON} ChannelLast {_TAIL}"),
           ("BF16", "bfloat16", f"{_COMMON} {_FLOAT_EXTRA} {_TAIL}"),
           ("C64", "complex64", "Default Default_Tuple"),
           ("C128", "complex128", "Default Default_Tuple")]


class DataType:
    """The (dtype, format) pairs of dtype_format rows: `DataType.F32_Default` is ("float32",
    "DefaultFormat"), `DataType.F16_5HD` ("float16", "NC1HWC0"), `DataType.I32_Default_Tuple`
    ("int32", "DefaultFormat", "tuple") - the 204 names of MindSpore 2.10."""


for _prefix, _dtype, _names in _DTYPES:
    for _name in _names.split():
        setattr(DataType, f"{_prefix}_{_name}", (_dtype,) + _FORMATS[_name])


# ---- decorators ---------------------------------------------------------------------------------------
def op_info_register(op_info):
    """A decorator registering `op_info` (a dict or a JSON str) for the function it decorates, which it
    returns wrapped (as `wrapped_function`, MindSpore's name). pycompile builds its own kernels, so the
    information is only checked: a str (MindSpore's TypeError), and JSON - where it is not, the error is
    logged and the function returned, as MindSpore's oplib logs one and goes on."""
    def decorator(func):
        text = json.dumps(op_info) if isinstance(op_info, dict) else op_info
        if not isinstance(text, str):
            raise TypeError(f"The type of 'op_info' should be 'str', but got type '{type(text).__name__}'.")
        try:
            json.loads(text)
        except ValueError as e:
            try:
                where = os.path.realpath(inspect.getfile(func))
            except TypeError:       # a builtin
                where = repr(func)
            logger.error("Invalid op info %s (%s): %s", where, e, text)

        def wrapped_function(*args, **kwargs):
            return func(*args, **kwargs)
        return wrapped_function
    return decorator


def custom_info_register(*reg_info):
    """A decorator binding the registration information `reg_info` (each a dict or a JSON str) to an
    ops.Custom function: the function gets a `reg_info` attribute (the tuple) and is returned wrapped."""
    def decorator(func):
        func.reg_info = reg_info

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            return func(*args, **kwargs)
        return wrapped
    return decorator
