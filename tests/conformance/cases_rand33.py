"""The conformance table: random, sampler and CTC ops of MindSpore's CPU suite (issue 33, rand33):
RandomCategorical, RandomChoiceWithMask and the candidate samplers with fixed seeds (their values
come from the wheel's own generator, which pycompile follows for these ops), CTCLoss, CTCLossV2 /
ctc_loss, CTCGreedyDecoder, UniqueWithPad, NoRepeatNGram, and the distributions (Uniform,
TruncatedNormal, ParameterizedTruncatedNormal, RandomGamma, MultinomialWithReplacement) by
shape, dtype and range. Part of the table loaded after cases.py."""
group("rand33")


def _random_ops():
    return __import__(ops.__name__ + ".operations.random_ops", fromlist=["random_ops"])


_LOGITS = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [0.5, 0.1, 3.0, -1.0, 0.0]], np.float32)
_MASK1 = np.array([1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1], np.bool_)
_MASK2 = np.array([[1, 0, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]], np.bool_)


# ---- values MindSpore's generator gives for fixed seeds ------------------------------------------
@case("ops.RandomCategorical", "ops.random_categorical", inputs=[_LOGITS, _LOGITS.astype(np.float64)])
def rand33_random_categorical_seeded(x, x64):
    return (ops.RandomCategorical(ms.int64)(x, 10, 5), ops.RandomCategorical(ms.int32)(x64, 7, 123),
            ops.random_categorical(x, 4, 9, ms.int16))


@case("ops.RandomCategorical", inputs=[_LOGITS.astype(np.float16)])
def rand33_random_categorical_f16(x):
    return ops.RandomCategorical(ms.int32)(x, 6, 77)


@case("ops.RandomCategorical", inputs=[_LOGITS], error=True)
def rand33_random_categorical_bad_dtype(x):
    return ops.RandomCategorical(ms.float32)(x, 3, 1)


@case("ops.RandomChoiceWithMask", "ops.choice_with_mask", inputs=[_MASK1, _MASK2])
def rand33_choice_with_mask_seeded(m1, m2):
    return (ops.RandomChoiceWithMask(10, 9)(m1), ops.RandomChoiceWithMask(4, 1)(m2),
            ops.RandomChoiceWithMask(20, 3, 7)(m2))


@case("ops.choice_with_mask", inputs=[_MASK2])
def rand33_choice_with_mask_functional(m):
    # the functional form's seeds go through the global seed (values differ between modes in MindSpore)
    idx, mask = ops.choice_with_mask(m, 6)
    return idx.shape, idx.dtype, mask.shape, mask.dtype, mask.sum()


@case("ops.RandomChoiceWithMask", inputs=[rnd(3, 4)], error=True)
def rand33_choice_with_mask_float_input(x):
    return ops.RandomChoiceWithMask(4, 1)(x)


@case("ops.log_uniform_candidate_sampler", "ops.LogUniformCandidateSampler",
      inputs=[np.array([[1, 7], [0, 4], [3, 3]], np.int64), np.array([[2], [40]], np.int64)])
def rand33_log_uniform_sampler_seeded(t2, t1):
    return (ops.log_uniform_candidate_sampler(t2, 2, 5, True, 5, 1),
            ops.LogUniformCandidateSampler(1, 6, False, 50, 3)(t1),
            ops.LogUniformCandidateSampler(1, 8, True, 100, 17)(t1))


@case("ops.uniform_candidate_sampler", "ops.UniformCandidateSampler",
      inputs=[np.array([[1], [3], [4], [6], [3]], np.int32), np.array([[1, 2], [3, 2]], np.int64)])
def rand33_uniform_sampler_seeded(t1, t2):
    return (ops.uniform_candidate_sampler(t1, 1, 3, True, 4, 1),
            ops.UniformCandidateSampler(2, 5, False, 10, seed=4)(t2),
            ops.UniformCandidateSampler(1, 3, True, 8, seed=2, remove_accidental_hits=True)(t1))


@case("ops.UniformCandidateSampler", inputs=[np.array([[1], [3]], np.int32)], error=True)
def rand33_uniform_sampler_num_true_wrong(t):
    return ops.UniformCandidateSampler(2, 3, True, 4, seed=1)(t)


# ---- CTC ---------------------------------------------------------------------------------------------
_CTC_IDX = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]], np.int64)
_CTC_VAL = np.array([1, 3, 2, 2, 0, 4], np.int32)


@case("ops.CTCLoss", inputs=[normal(6, 3, 6), _CTC_IDX, _CTC_VAL, np.array([6, 5, 3], np.int32)])
def rand33_ctc_loss_v1(x, idx, val, lengths):
    return ops.CTCLoss()(x, idx, val, lengths)


@case("ops.CTCLoss", inputs=[normal(4, 3, 6, dtype="float64"), _CTC_IDX, _CTC_VAL, np.array([4, 4, 2], np.int32)],
      tol={"Float64": (2e-6, 1e-7)}, note="MindSpore's CTCLoss kernel computes Float64 inputs in float32")
def rand33_ctc_loss_v1_f64_ignore_longer(x, idx, val, lengths):
    return ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(x, idx, val, lengths)


def _log_softmax(shape, seed, dtype):
    z = np.random.default_rng(seed).uniform(-3.0, 0.0, shape)
    # rounded: NumPy versions differ in exp / log's last bit, and the inputs are compared exactly
    return np.round(z - np.log(np.exp(z).sum(axis=-1, keepdims=True)), 6).astype(dtype)


_TARGETS = np.array([[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 2]], np.int64)


@case("ops.ctc_loss", "ops.CTCLossV2", inputs=[_log_softmax((7, 3, 5), 1, np.float32), _TARGETS,
                                                 np.array([7, 6, 7], np.int64), np.array([4, 2, 3], np.int64)])
def rand33_ctc_loss_v2(lp, tg, il, tl):
    return (ops.CTCLossV2(blank=0, reduction="none")(lp, tg, il, tl), ops.ctc_loss(lp, tg, il, tl),
            ops.ctc_loss(lp, tg, il, tl, reduction="sum"))


@case("ops.CTCLossV2", graph=False, reason="the constructor's argument checks", error=True)
def rand33_ctc_loss_v2_reduction_mean():
    return ops.CTCLossV2(blank=0, reduction="mean")


@case("ops.ctc_loss", inputs=[_log_softmax((3, 2, 4), 2, np.float64), np.array([[1, 1, 1], [2, 3, 1]], np.int32),
                              np.array([3, 3], np.int32), np.array([3, 3], np.int32)])
def rand33_ctc_loss_impossible(lp, tg, il, tl):
    # [1, 1, 1] needs 5 frames: an infinite loss, which MindSpore's kernel keeps with zero_infinity too
    return ops.ctc_loss(lp, tg, il, tl, reduction="none"), ops.ctc_loss(lp, tg, il, tl, zero_infinity=True)


@case("ops.ctc_loss", inputs=[rnd(2, 1, 3), np.array([[1, 1]], np.int32), np.array([2], np.int32)], error=True)
def rand33_ctc_loss_float_lengths(lp, tg, il):
    return ops.ctc_loss(lp, tg, il, (0.17,))


@case("ops.CTCGreedyDecoder", "ops.ctc_greedy_decoder", inputs=[normal(5, 3, 4), np.array([5, 2, 4], np.int32)])
def rand33_ctc_greedy_decoder(x, lengths):
    return ops.CTCGreedyDecoder()(x, lengths), ops.ctc_greedy_decoder(x, lengths, merge_repeated=False)


@case("ops.CTCGreedyDecoder", inputs=[normal(2, 2, 3), np.array([3, 1], np.int32)], error=True)
def rand33_ctc_greedy_decoder_too_long(x, lengths):
    return ops.CTCGreedyDecoder()(x, lengths)


# ---- UniqueWithPad, NoRepeatNGram ----------------------------------------------------------------------
@case("ops.UniqueWithPad", "ops.unique_with_pad",
      inputs=[np.array([5, 1, 5, 2, 9, 1, 1], np.int32), np.array([3, 3, -1, 0], np.int64),
              np.array([1.5, 2.0, 1.5, -0.0], np.float32)])
def rand33_unique_with_pad(a, b, c):
    return ops.UniqueWithPad()(a, 0), ops.unique_with_pad(b, -7), ops.UniqueWithPad()(c, 9.0)


@case("ops.UniqueWithPad", inputs=[ints(2, 3)], error=True)
def rand33_unique_with_pad_2d(a):
    return ops.UniqueWithPad()(a, 0)


_STATE = np.array([[[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]], [[7, 7, 2, 7, 9, 9, 4], [4, 8, 8, 4, 3, 4, 8]]],
                  np.int32)


@case("ops.NoRepeatNGram", inputs=[_STATE, rnd(2, 2, 10)])
def rand33_no_repeat_ngram(state, logp):
    return ops.NoRepeatNGram(3)(state, logp), ops.NoRepeatNGram(2)(state, logp), ops.NoRepeatNGram(1)(state, logp)


# ---- distributions: shapes, dtypes, ranges -------------------------------------------------------------
@case("ops.operations", inputs=[rnd(3, 4, dtype="float64"), rnd(5, dtype="float16")])
def rand33_uniform_range(x, y):
    u = _random_ops().Uniform(minval=1.0, maxval=2.0)
    a, b = u(x), u(y)
    return a.shape, a.dtype, ((a >= 1.0) & (a < 2.0)).all(), b.shape, b.dtype


@case("ops.TruncatedNormal", graph=False, reason="the shape is a Tensor's values (a dynamic shape in MindSpore)")
def rand33_truncated_normal_range():
    z = _random_ops().TruncatedNormal(seed=3)(Tensor(np.array([40, 5], np.int32)))
    return z.shape, z.dtype, (ops.abs(z) <= 2.0).all()


@case("ops.ParameterizedTruncatedNormal", graph=False,
      reason="the shape is a Tensor's values (a dynamic shape in MindSpore)")
def rand33_parameterized_truncated_normal_range():
    p = _random_ops().ParameterizedTruncatedNormal(seed=1, seed2=2)
    f = lambda *v: Tensor(np.array(v, np.float32))   # noqa: E731
    z = p(Tensor(np.array([3, 50], np.int64)), f(10), f(1), f(1, 4, 0), f(20, 5, 8))
    # MindSpore's values for the far-tail rows ([4, 5] and [0, 8] around a mean of 10) leave the bounds
    return z.shape, z.dtype, ((z[0] >= 1.0) & (z[0] <= 20.0)).all()


@case("ops.random_gamma", "ops.RandomGamma", graph=False, reason="the shape is a Tensor's values")
def rand33_random_gamma_shape():
    alpha = Tensor(np.array([[0.5, 4.0], [1.0, 30.0]], np.float32))
    g = ops.random_gamma(Tensor(np.array([100, 3], np.int32)), alpha, 5)
    h = ops.RandomGamma(seed=2)(Tensor(np.array([3], np.int64)), Tensor(np.array([2.0], np.float64)))
    return g.shape, g.dtype, (g > 0).all(), h.shape, h.dtype


@case("ops.multinomial_with_replacement", "ops.MultinomialWithReplacement", inputs=[rnd(4, 6, lo=0.1, hi=1.0)])
def rand33_multinomial_with_replacement(x):
    out = ops.multinomial_with_replacement(x, Tensor(np.array([5], np.int64)), Tensor(np.array([2], np.int64)), 9, True)
    prim = ops.MultinomialWithReplacement(7, True)(x, Tensor(np.array([3], np.int64)), Tensor(np.array([1], np.int64)))
    return (out.shape, out.dtype, ((out >= 0) & (out < 6)).all(),
            prim.shape, prim.dtype, ((prim >= 0) & (prim < 6)).all())
