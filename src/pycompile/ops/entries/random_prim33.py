"""ops.standard_laplace (the StandardLaplace Primitive and `laplace` are in ops/operations_cnn.py):
Laplace(0, 1) samples by the inverse CDF of the project's uniform draws (ops.rand: the same seed
gives the same numbers in PyNative and graph mode; MindSpore's own stream is not followed, as
docs/DESIGN.md says of randomness)."""
from pycompile.ops.operations_cnn import laplace
from pycompile.ops._table import OpTypeError
from pycompile.ops.entry import Arg, op_entry


def _shape(v, op_name):
    if not isinstance(v, tuple) or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in v):
        raise OpTypeError(f"For '{op_name}', 'shape' must be a tuple of positive ints, but got {v!r}.")


def _int_seed(v, op_name):
    if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
        raise OpTypeError(f"For '{op_name}', the seeds must be ints, but got {v!r}.")


@op_entry("standard_laplace", prim_name="StandardLaplace",
          args=[Arg("shape", "value", check=_shape), Arg("seed", "value", default=None, check=_int_seed),
                Arg("seed2", "value", default=None, check=_int_seed)])
def standard_laplace(shape, seed=None, seed2=None):
    """Float32 samples of Laplace(0, 1) of the given shape."""
    s = int(seed or 0) * 1000003 + int(seed2 or 0)
    return laplace(shape, s or None)
