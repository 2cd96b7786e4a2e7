"""`mindspore.ops.operations.sparse_ops` under pycompile's name: every class-form op of
`pycompile.ops.operations` (the same objects; pycompile does not split them by MindSpore's files)."""
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import __all__  # noqa: F401
from pycompile.ops.sparse_ops_sparse33 import (SparseAdd, SparseAddmm, SparseCountSparseOutput,  # noqa: F401,E402
                                               SparseDenseCwiseAdd,
                                               SparseDenseCwiseDiv, SparseDenseCwiseMul, SparseMatrixMatMul,
                                               SparseMatrixSoftmax,
                                               SparseReorder, SparseReshape, SparseSparseMaximum,
                                               SparseSparseMinimum, SparseSegmentMeanWithNumSegments,
                                               SparseTensorToCSRSparseMatrix)
# (only here, as in MindSpore)
