"""Other names MindSpore 2.10 gives ops pycompile has: float_power_ext (float_power), isnan_ext
(isnan), mirror_pad (the MirrorPad Primitive as a function). Recorded in
tests/conformance/cases_internal.py."""
import pycompile.ops as ops
from pycompile.ops.entry import Arg, op_entry


@op_entry("float_power_ext", args=[Arg("input", "tensor|number"), Arg("exponent", "tensor|number")])
def float_power_ext(input, exponent):
    """input ** exponent computed in float64 (float_power)."""
    return ops.float_power(input, exponent)


@op_entry("isnan_ext", args=[Arg("tensor")])
def isnan_ext(tensor):
    """Where tensor is NaN (isnan)."""
    return ops.isnan(tensor)


@op_entry("mirror_pad", args=[Arg("input_x"), Arg("paddings"), Arg("mode", "value")])
def mirror_pad(input_x, paddings, mode):
    """MirrorPad(mode)(input_x, paddings): 'REFLECT' or 'SYMMETRIC' padding by a (rank, 2) tensor."""
    return ops.MirrorPad(mode)(input_x, paddings)
