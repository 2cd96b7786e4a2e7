"""ops.logaddexp2: log2(2**input + 2**other), without overflow."""
from pycompile.ops import functional as F
from pycompile.ops import function_math as M
from pycompile.ops.entries._common import require_float
from pycompile.ops.entry import Arg, op_entry


@op_entry("logaddexp2", args=[Arg("input"), Arg("other")], tensor_method=True)
def logaddexp2(input, other):
    """log2(2**input + 2**other) as max + log2(1 + 2**-|input - other|) (MindSpore's formula; both
    inputs float, else TypeError)."""
    require_float("logaddexp2", input=input, other=other)
    return F.maximum(input, other) + M.log2(1.0 + F.pow(2.0, F.neg(F.abs(input - other))))
