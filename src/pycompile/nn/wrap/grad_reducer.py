"""nn.DistributedGradReducer and the data-parallel hooks of the training wrappers (issue 21).

In DATA_PARALLEL mode every rank computes the gradients of its part of the global batch; the
reducer sums them across ranks (AllReduce) and, with gradients_mean, divides by the number of
ranks, so every rank's optimizer applies the gradient of the whole batch and the replicas stay
equal. Inside a compiled step the all-reduces are calls of the runtime's MPI bridge in the same
native call as the backward and the optimizer.

Gradients are reduced in buckets: the gradients of one dtype are flattened into one buffer of at
most BUCKET_BYTES and reduced with one call, so a network with many small Parameters pays MPI's
latency once per bucket, not once per Parameter. float16 gradients are reduced as float32 and
cast back, as MindSpore does (MPI has no float16).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import auto_parallel
from pycompile.common import dtype as mstype
from pycompile.nn.cell import Cell
from pycompile.ops import functional as F
from pycompile.ops.operations_comm import AllReduce, Broadcast, ReduceOp

WORLD = "hccl_world_group"
BUCKET_BYTES = 32 << 20


def _buckets(shapes_dtypes, limit):
    """Indices of the gradients grouped into buckets: same dtype, at most `limit` bytes each
    (a larger gradient is a bucket of its own), in parameter order."""
    buckets, open_ = [], {}
    for k, (shape, dt) in enumerate(shapes_dtypes):
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        cur = open_.get(dt)
        if cur is None or cur[1] + nbytes > limit:
            cur = [[], 0]
            open_[dt] = cur
            buckets.append(cur)
        cur[0].append(k)
        cur[1] += nbytes
    return [tuple(b[0]) for b in buckets]


class DistributedGradReducer(Cell):
    """Sum (mean=True: average) gradients across the ranks of `group`; MindSpore's signature."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=WORLD):
        super().__init__(auto_prefix=False)
        from pycompile.communication import management
        self.mean = auto_parallel.get_gradients_mean() if mean is None else mean
        if degree is None:
            degree = management.get_group_size(group)
        elif not isinstance(degree, int) or isinstance(degree, bool) or degree <= 0:
            raise ValueError("For 'DistributedGradReducer', parameter 'degree' in DistributedGradReducer "
                             f"should large than 0 and be int, degree: {degree}.")
        self.degree = degree
        self.scale = 1.0 / degree
        self.allreduce = AllReduce(ReduceOp.SUM, group)
        params = list(parameters)
        # float16 goes as float32 (MPI has no float16); buckets are formed on the reduced dtypes
        self.shapes = tuple(tuple(p.shape) for p in params)
        self.dtypes = tuple(p.dtype for p in params)
        wire = [(s, mstype.float32 if d == mstype.float16 else d) for s, d in zip(self.shapes, self.dtypes)]
        self.buckets = tuple(_buckets(wire, BUCKET_BYTES)) if fusion_type else tuple((k,) for k in range(len(params)))

    def _reduce(self, g):
        r = self.allreduce(g)
        if self.mean:
            r = r * self.scale
        return r

    def construct(self, grads):
        out = list(grads)
        for bucket in self.buckets:
            if len(bucket) == 1:
                k = bucket[0]
                g = grads[k]
                if self.dtypes[k] == mstype.float16:
                    out[k] = F.cast(self._reduce(F.cast(g, mstype.float32)), mstype.float16)
                else:
                    out[k] = self._reduce(g)
                continue
            flat = F.concat([F.reshape(F.cast(grads[k], mstype.float32) if self.dtypes[k] == mstype.float16
                                       else grads[k], (-1,)) for k in bucket])
            flat = self._reduce(flat)
            start = 0
            for k in bucket:
                n = 1
                for d in self.shapes[k]:
                    n *= d
                piece = F.reshape(flat[start:start + n], self.shapes[k])
                out[k] = F.cast(piece, mstype.float16) if self.dtypes[k] == mstype.float16 else piece
                start += n
        return tuple(out)


def data_parallel_reducer(parameters):
    """The gradient reducer a training wrapper puts between the backward and the optimizer: a
    DistributedGradReducer in DATA_PARALLEL / HYBRID_PARALLEL mode (mean and degree from the
    auto-parallel context, as MindSpore's TrainOneStepCell), else None. Broadcasts the Parameters
    from rank 0 first when the context says parameter_broadcast."""
    if not auto_parallel.data_parallel():
        return None
    from pycompile.communication import GlobalComm
    if auto_parallel.get_auto_parallel_context("parameter_broadcast"):
        broadcast_parameters(parameters)
    return DistributedGradReducer(parameters, auto_parallel.get_gradients_mean(), auto_parallel.get_device_num(),
                                  group=GlobalComm.WORLD_COMM_GROUP)


def broadcast_parameters(parameters, root_rank=0, group=WORLD):
    """Give every rank root_rank's values of `parameters` (in place): replicas start equal."""
    bcast = Broadcast(root_rank, group)
    for p in parameters:
        value = bcast((p.value() if hasattr(p, "value") else p,))[0]
        p.set_data(value)
