"""nn.SampledSoftmaxLoss: the softmax cross-entropy over each example's true classes and a shared
sample of others (Jean et al., "On Using Very Large Target Vocabulary for Neural Machine
Translation", 2015), as MindSpore 2.10 computes it:

    sampled, q_true, q_sampled = UniformCandidateSampler(num_true, num_sampled, unique=True,
                                                         num_classes, seed, remove_accidental_hits)(labels)
    true logit    = <logits_i, weights[label]> + biases[label] - log(q_true)
    sampled logit = logits_i @ weights[sampled]^T + biases[sampled] - log(q_sampled)
    loss_i        = -sum_j t_ij log(softmax(row i)_j + 1e-20),  t = 1 / num_true on the true columns

The sampler is MindSpore's own generator (ops.UniformCandidateSampler), so a seeded loss draws the
wheel's classes. `sampled_values` (candidates, true and sampled expected counts) replaces the
sampler. MindSpore 2.10 returns the per-example losses whatever `reduction` says; pycompile applies
`reduction` as documented ('mean' / 'sum': a scalar), so the default 'none' is the wheel's result.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.nn.loss import LossBase


class SampledSoftmaxLoss(LossBase):
    """SampledSoftmaxLoss(num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=True, seed=0, reduction='none'); called with (weights [num_classes,
    dim], biases [num_classes], labels [batch, num_true] int, logits [batch, dim])."""

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
                 seed=0, reduction="none"):
        super().__init__(reduction)
        name = type(self).__name__
        if num_true < 1:
            raise ValueError(f"For '{name}', the 'num_true' must be greater than or equal to 1, but got {num_true}.")
        if seed < 0:
            raise ValueError(f"For '{name}', the 'seed' must be greater than or equal to 0, but got {seed}.")
        if num_sampled > num_classes:
            raise ValueError(f"For '{name}', the 'num_sampled' must be smaller than or equal to 'num_classes', but "
                             f"got 'num_sampled': {num_sampled} and 'num_classes': {num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For '{name}', the 'num_true' must be smaller than or equal to 'num_classes', but got "
                             f"'num_true': {num_true} amd 'num_classes': {num_classes}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For '{name}', the type of 'sampled_values' must be a list or tuple, but got "
                                f"{type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For '{name}', the length of 'sampled_values' must be equal to 3,but got "
                                 f"{len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits, self.seed = remove_accidental_hits, seed
        self.sampler = ops.UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed,
                                                   remove_accidental_hits)

    def construct(self, weights, biases, labels, logits):
        name = type(self).__name__
        for what, t in (("weights", weights), ("biases", biases), ("labels", labels), ("logits", logits)):
            if not isinstance(t, TensorMethods):
                raise TypeError(f"For '{name}', the '{what}' must be a Tensor, but got {type(t).__name__}.")
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{name}', the 'labels' must be an int32 or int64 Tensor, but got {labels.dtype}.")
        out_logits, targets = self._sampled_logits(weights, biases, labels, logits)
        stable = ops.exp(out_logits - ops.amax(out_logits, 1, True))
        pred = stable / ops.sum(stable, 1, True)
        return self.get_loss(-1 * ops.sum(targets * ops.log(pred + 1.0e-20), 1))

    def _sampled_logits(self, weights, biases, labels, logits):
        """(logits of the true and the sampled classes, their target probabilities), each
        [batch, num_true + num_sampled]."""
        k = self.num_true
        labels = ops.reshape(ops.cast(labels, mstype.int32), (-1, k))
        flat = ops.reshape(labels, (-1,))
        sampled, q_true, q_sampled = self.sampled_values if self.sampled_values is not None else self.sampler(labels)
        sampled = ops.cast(sampled, mstype.int32)
        n_true = flat.shape[0]
        ids = ops.concat((flat, sampled), 0)
        all_w = ops.gather(weights, ids, 0)
        all_b = ops.gather(biases, ids, 0)
        true_w, sampled_w = all_w[:n_true], all_w[n_true:]
        sampled_logits = ops.matmul(logits, ops.transpose(sampled_w, (1, 0))) + all_b[n_true:]
        dots = ops.expand_dims(logits, 1) * ops.reshape(true_w, (-1, k, all_w.shape[1]))
        true_logits = ops.reshape(ops.sum(ops.reshape(dots, (-1, all_w.shape[1])), 1), (-1, k)) + \
            ops.reshape(all_b[:n_true], (-1, k))
        true_logits = true_logits - ops.log(q_true)
        sampled_logits = sampled_logits - ops.log(q_sampled)
        targets = ops.concat((ops.ones_like(true_logits) / k, ops.zeros_like(sampled_logits)), 1)
        return ops.concat((true_logits, sampled_logits), 1), targets
