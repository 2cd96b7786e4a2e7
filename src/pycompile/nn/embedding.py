"""nn.EmbeddingLookup: rows of an embedding table by id, with MindSpore 2.10's CPU semantics
(target 'CPU', its default): an id outside [0, vocab_size) gives a row of zeros, not an error.
target 'DEVICE' gathers (an id out of range is an error). `max_norm` rescales each looked-up row
to at most that L2 norm, as MindSpore's ClipByNorm does."""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import initializer
from pycompile.common.parameter import Parameter
from pycompile.nn.cell import Cell
from pycompile.nn.rnn import check_bool, check_positive_int


class EmbeddingLookup(Cell):
    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=mstype.float32):
        super().__init__()
        check_bool("EmbeddingLookup", "sparse", sparse)
        self.vocab_size = check_positive_int("EmbeddingLookup", "vocab_size", vocab_size)
        self.embedding_size = check_positive_int("EmbeddingLookup", "embedding_size", embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For 'EmbeddingLookup', the 'target' must be in ['CPU', 'DEVICE'], but got {target!r}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For 'EmbeddingLookup', 'sparse' must be True when 'target' is \"CPU\", but got "
                             f"'sparse': {sparse} and 'target': {target}")
        if max_norm is not None and (not isinstance(max_norm, float) or max_norm <= 0):
            raise ValueError(f"For 'EmbeddingLookup', 'max_norm' must be a positive float, but got {max_norm!r}.")
        self.target, self.sparse, self.slice_mode, self.max_norm = target, sparse, slice_mode, max_norm
        self.embedding_table = Parameter(initializer(param_init, [vocab_size, embedding_size], dtype=dtype),
                                         name="embedding_table")

    def construct(self, indices):
        if self.target == "CPU":
            valid = ops.logical_and(ops.greater_equal(indices, 0), ops.less(indices, self.vocab_size))
            rows = ops.gather(self.embedding_table, ops.select(valid, indices, ops.zeros_like(indices)), 0)
            out = rows * ops.cast(ops.expand_dims(valid, -1), rows.dtype)
        else:
            out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.sum(out * out, -1, keepdim=True))
            out = out * (self.max_norm / ops.maximum(norm, self.max_norm))
        return out

    def extend_repr(self):
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, target={self.target}"
