"""ops.logaddexp: log(exp(input) + exp(other)), without overflow."""
from pycompile.ops import functional as F
from pycompile.ops import function_math as M
from pycompile.ops.entries._common import require_float
from pycompile.ops.entry import Arg, op_entry


@op_entry("logaddexp", args=[Arg("input"), Arg("other")], tensor_method=True)
def logaddexp(input, other):
    """log(exp(input) + exp(other)) as max + log1p(exp(-|input - other|)), so that large inputs do
    not overflow (MindSpore's formula; both inputs float, else TypeError)."""
    require_float("logaddexp", input=input, other=other)
    return F.maximum(input, other) + M.log1p(F.exp(F.neg(F.abs(input - other))))
