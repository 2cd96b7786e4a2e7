"""Functional forms of the random Primitives in ops/random_rand33.py and ops/random_dist_rand33.py
(`ops.random_categorical`, `ops.choice_with_mask`, `ops.uniform_candidate_sampler`,
`ops.log_uniform_candidate_sampler`, `ops.random_gamma`, `ops.multinomial_with_replacement`):
each builds the Primitive and calls it, as MindSpore's functional forms do."""
from pycompile.common import dtype as mstype
from pycompile.ops import ctc_rand33 as C
from pycompile.ops import random_dist_rand33 as D
from pycompile.ops import random_rand33 as R
from pycompile.ops.entry import Arg, op_entry


@op_entry("random_categorical", prim_name="RandomCategorical",
          args=[Arg("logits"), Arg("num_sample", "value"), Arg("seed", "value", default=0),
                Arg("dtype", "value", default=mstype.int64)])
def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """`num_sample` class indices per row of the (batch, classes) logits."""
    return R.random_categorical(logits, num_sample, seed, dtype)


@op_entry("choice_with_mask", prim_name="RandomChoiceWithMask",
          args=[Arg("input_x"), Arg("count", "value", default=256), Arg("seed", "value", default=None)])
def choice_with_mask(input_x, count=256, seed=None):
    """(coordinates, mask) of `count` random True elements of the bool input_x."""
    return R.choice_with_mask(input_x, count, seed)


@op_entry("uniform_candidate_sampler", prim_name="UniformCandidateSampler",
          args=[Arg("true_classes"), Arg("num_true", "value"), Arg("num_sampled", "value"), Arg("unique", "value"),
                Arg("range_max", "value"), Arg("seed", "value", default=0),
                Arg("remove_accidental_hits", "value", default=False)])
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count), classes uniform in [0, range_max)."""
    return R.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed,
                                       remove_accidental_hits)


@op_entry("log_uniform_candidate_sampler", prim_name="LogUniformCandidateSampler",
          args=[Arg("true_classes"), Arg("num_true", "value", default=1), Arg("num_sampled", "value", default=5),
                Arg("unique", "value", default=True), Arg("range_max", "value", default=5),
                Arg("seed", "value", default=0)])
def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """(sampled_candidates, true_expected_count, sampled_expected_count), classes log-uniform in [0, range_max)."""
    return R.log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed)


@op_entry("random_gamma", prim_name="RandomGamma",
          args=[Arg("shape", "value"), Arg("alpha"), Arg("seed", "value", default=None)])
def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) samples of shape `shape + alpha.shape`."""
    return D.random_gamma(shape, alpha, seed)


@op_entry("multinomial_with_replacement", prim_name="MultinomialWithReplacement",
          args=[Arg("x"), Arg("seed"), Arg("offset"), Arg("numsamples", "value"),
                Arg("replacement", "value", default=False)])
def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """`numsamples` category indices per row of the probabilities x (int64)."""
    return D.multinomial_with_replacement(x, seed, offset, numsamples, replacement)


# ---- ops/ctc_rand33.py --------------------------------------------------------------------------
@op_entry("ctc_loss", prim_name="CTCLossV2",
          args=[Arg("log_probs"), Arg("targets", "value"), Arg("input_lengths", "value"),
                Arg("target_lengths", "value"), Arg("blank", "value", default=0),
                Arg("reduction", "value", default="mean"), Arg("zero_infinity", "value", default=False)])
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """(loss, log_alpha) of the CTC loss of log_probs (T, N, C) and padded targets (N, S)."""
    return C.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


@op_entry("ctc_greedy_decoder", prim_name="CTCGreedyDecoder",
          args=[Arg("inputs"), Arg("sequence_length"), Arg("merge_repeated", "value", default=True)])
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """(decoded_indices, decoded_values, decoded_shape, log_probability) of greedy CTC decoding."""
    return C.ctc_greedy_decoder(inputs, sequence_length, merge_repeated)


@op_entry("unique_with_pad", prim_name="UniqueWithPad", args=[Arg("x"), Arg("pad_num", "value")])
def unique_with_pad(x, pad_num):
    """(x's distinct values in first-seen order padded with pad_num, each element's index into them)."""
    return C.unique_with_pad(x, pad_num)
