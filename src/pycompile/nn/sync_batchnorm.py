"""nn.SyncBatchNorm: batch normalization whose batch statistics cover the whole global batch of a
data-parallel run, not one rank's part of it (MindSpore's signature, issue 21).

In training each rank sums x and x * x per channel over its part, one AllReduce adds those sums
(and the element counts) across the group, and every rank normalizes with the global mean and
(biased) variance; the moving statistics get the unbiased variance, as BatchNorm's. The
gradient needs no rule of its own: AllReduce-sum's gradient is AllReduce-sum, so the backward
reduces the statistics' cotangents across ranks too. Without communication.init() (or in a
group of one) it is BatchNorm on the local batch. In evaluation it uses the moving statistics.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.nn.normalization import _BatchNorm
from pycompile.ops import function_image as FI
from pycompile.ops import functional as F
from pycompile.ops.operations_comm import AllReduce, ReduceOp

WORLD = "hccl_world_group"


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over N-D input (N, C, ...) with statistics across the ranks of
    `process_groups` (None: the world; a list of lists of world ranks: each rank's own group)."""
    _dims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        self.group = self._group(process_groups)
        self.allreduce = None if self.group is None else AllReduce(ReduceOp.SUM, self.group)

    @staticmethod
    def _group(process_groups):
        from pycompile.communication import management
        if not management.is_initialized():
            return None
        if process_groups is None:
            return WORLD if management.get_group_size() > 1 else None
        if not isinstance(process_groups, list) or not all(isinstance(g, list) for g in process_groups):
            raise TypeError("For 'SyncBatchNorm', the 'process_groups' must be a list of lists of rank ids, "
                            f"but got {process_groups!r}")
        rank, mine = management.get_rank(), None
        for k, ranks in enumerate(process_groups):
            name = f"sync_bn_group{k}"
            if name not in management.world().groups:
                management.create_group(name, ranks)
            if rank in ranks:
                mine = name
        if mine is None:
            raise ValueError(f"For 'SyncBatchNorm', rank {rank} is in none of the 'process_groups' {process_groups}")
        return mine

    def construct(self, x):
        self._check_input_dim(x)
        batch_stats = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if not batch_stats:
            return FI.batch_norm_eval(x, self.moving_mean, self.moving_variance, self.gamma, self.beta, self.eps)
        if self.allreduce is None:
            return FI.batch_norm_train(x, self.gamma, self.beta, self.eps, self.moving_mean, self.moving_variance,
                                       self.momentum)
        shape = x.shape
        c = shape[1]
        axes = (0,) + tuple(range(2, len(shape)))
        xs = F.cast(x, mstype.float32)
        local_n = x.size // c
        count = F.fill(mstype.float32, (1,), float(local_n))
        sums = self.allreduce(F.concat([F.sum(xs, axes), F.sum(xs * xs, axes), count]))
        n = sums[2 * c]
        mean = sums[:c] / n
        var = sums[c:2 * c] / n - mean * mean
        view = (1, c) + (1,) * (len(shape) - 2)
        scale = self.gamma * F.rsqrt(var + self.eps)
        y = (xs - F.reshape(mean, view)) * F.reshape(scale, view) + F.reshape(self.beta, view)
        unbiased = var * (n / F.maximum(n - 1.0, 1.0))
        F.assign(self.moving_mean, self.moving_mean * (1.0 - self.momentum) + mean * self.momentum)
        F.assign(self.moving_variance,
                 self.moving_variance * (1.0 - self.momentum) + unbiased * self.momentum)
        return F.cast(y, x.dtype)
