"""The conformance table: ops.RNNTLoss (src/pycompile/ops/entries/rnnt_loss.py). The 2.10 CPU wheel has
no kernel for it ("Unsupported op [RNNTLoss] on CPU": the value case records that; costs and grads
are checked against a NumPy transducer lattice and central differences in tests/ops/test_rnnt_loss.py);
what it checks first - the constructor's attribute, the inputs' dtypes and rank - is recorded here.
Part of the table loaded after cases.py."""
group("rnnt")

_CTOR = dict(graph=False, reason="a Primitive's constructor: its arguments are checked when it is built, outside "
                                 "the compiled code")


def _rnnt(acts_dtype="float32", labels_dtype="int32", lengths_dtype="int32", rank=4):
    acts = rnd(*((2, 3, 3, 5) if rank == 4 else (3, 3, 5)), dtype=acts_dtype)
    return [acts, ints(2, 2, lo=1, hi=5, dtype=labels_dtype), ints(2, lo=3, hi=4, dtype=lengths_dtype),
            ints(2, lo=2, hi=3)]


@case("ops.RNNTLoss", inputs=_rnnt())
def rnnt_values(acts, labels, input_lengths, label_lengths):
    return ops.RNNTLoss()(acts, labels, input_lengths, label_lengths)


@case("ops.RNNTLoss", **_CTOR)
def rnnt_attributes():
    return ops.RNNTLoss().blank_label, ops.RNNTLoss(3).blank_label, ops.RNNTLoss(-1).blank_label


for _id, _value in [("rnnt_err_blank_float", 1.5), ("rnnt_err_blank_str", "a"), ("rnnt_err_blank_bool", True)]:
    add(_id, ("ops.RNNTLoss",), lambda v=_value: ops.RNNTLoss(v), [], error=True, **_CTOR)


@case("ops.RNNTLoss", inputs=_rnnt(acts_dtype="float64"), error=True)
def rnnt_err_acts_float64(acts, labels, input_lengths, label_lengths):
    return ops.RNNTLoss()(acts, labels, input_lengths, label_lengths)


@case("ops.RNNTLoss", inputs=_rnnt(labels_dtype="int64"), error=True)
def rnnt_err_labels_int64(acts, labels, input_lengths, label_lengths):
    return ops.RNNTLoss()(acts, labels, input_lengths, label_lengths)


@case("ops.RNNTLoss", inputs=_rnnt(lengths_dtype="int64"), error=True)
def rnnt_err_input_lengths_int64(acts, labels, input_lengths, label_lengths):
    return ops.RNNTLoss()(acts, labels, input_lengths, label_lengths)


@case("ops.RNNTLoss", inputs=_rnnt(rank=3), error=True)
def rnnt_err_acts_rank_3(acts, labels, input_lengths, label_lengths):
    return ops.RNNTLoss()(acts, labels, input_lengths, label_lengths)
