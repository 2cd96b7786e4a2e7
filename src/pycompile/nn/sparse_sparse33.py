"""MindSpore's sparse layers: nn.SparseToDense (a COOTensor's dense form) and
nn.SparseTensorDenseMatmul (a COO matrix, given as its parts, times a dense one)."""
from __future__ import annotations

from pycompile.common.sparse_tensor import COOTensor
from pycompile.nn.cell import Cell
from pycompile.ops._table import OpTypeError
from pycompile.ops.entries.sparse_prims_sparse33 import sparse_dense_matmul


class SparseToDense(Cell):
    """`SparseToDense()(coo_tensor)`: the dense tensor of a COOTensor (duplicate places added)."""

    def construct(self, sparse_tensor):
        if not isinstance(sparse_tensor, COOTensor):
            raise OpTypeError(f"For 'SparseToDense', the input must be a COOTensor, but got "
                              f"{type(sparse_tensor).__name__}.")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """`SparseTensorDenseMatmul(adjoint_st, adjoint_dt)(indices, values, sparse_shape, dense)`:
    ops.SparseTensorDenseMatmul as a Cell."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        return sparse_dense_matmul(indices, values, sparse_shape, dense, self.adjoint_st, self.adjoint_dt)
