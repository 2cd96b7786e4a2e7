"""`ops.RNNTLoss(blank_label)(acts, labels, input_lengths, label_lengths)` -> (costs, grads): the RNN
transducer loss (Graves 2012) of a (B, T, U, V) lattice of logits, as MindSpore documents it (its CPU
wheel has no kernel: "Unsupported op [RNNTLoss] on CPU"; the argument checks it makes first are
recorded, tests/conformance/cases_rnnt.py).

acts are logits: their log-softmax over V gives, at each (t, u), the blank's log-probability and the
next label's. With alpha[0, 0] = 0 and

    alpha[t, u] = logaddexp(alpha[t-1, u] + blank[t-1, u], alpha[t, u-1] + label[t, u-1])

example b's cost is -(alpha[T_b-1, U_b-1] + blank[T_b-1, U_b-1]) with T_b = input_lengths[b] and
U_b = label_lengths[b] + 1 (as warp-transducer, the kernel MindSpore's comes from, computes it).
Each row t of alpha is one vectorized step: along u the recurrence is a prefix log-sum-exp,
alpha[t, u] = S[u] + logcumsumexp_k(alpha[t-1, k] + blank[t-1, k] - S[k]) with S the running sum of
the label terms - so a (T, U) lattice is T steps of a few ops in both modes. grads is d costs.sum() /
d acts (through the log-softmax), taken by autodiff of that computation; the costs' own gradient
is grads times the costs' cotangent (MindSpore's bprop), so training on them does not
differentiate twice. costs have acts' dtype (the documentation's "int32" is a slip: they are
negative log-likelihoods).
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.autodiff import custom
from pycompile.ops.autodiff.api import grad, stop_gradient
from pycompile.ops.entries.diag_order import logcumsumexp
from pycompile.ops.function_index import gather_d
from pycompile.ops.function_math import cumsum
from pycompile.ops.entry import primitive_class
from pycompile.ops.primitive import Primitive

_OP = "RNNTLoss"
_SUFFIX = ("The supported data types depend on the hardware that executes the operator, for more details, "
           "please refer to the MindSpore official website to get more information about the data type.")


def _costs(acts, labels, input_lengths, label_lengths, blank):
    """(B,) float32 negative log-likelihoods of float32 logits acts."""
    b, t_len, u_len, v = acts.shape
    logp = F.log_softmax(acts, -1)
    blank_lp = F.gather(logp, blank, 3) if blank >= 0 else F.gather(logp, v + blank, 3)      # (B, T, U)
    if u_len > 1:
        idx = F.broadcast_to(F.reshape(F.cast(labels, mstype.int32), (b, 1, u_len - 1, 1)), (b, t_len, u_len - 1, 1))
        label_lp = F.reshape(gather_d(logp[:, :, :u_len - 1], 3, idx), (b, t_len, u_len - 1))
    else:
        label_lp = F.zeros((b, t_len, 0), mstype.float32)
    zero = F.zeros((b, 1), mstype.float32)
    rows = []
    alpha = None
    for t in range(t_len):
        # S[u]: the label terms of row t summed from 0 to u-1
        steps = F.concat((zero, cumsum(label_lp[:, t], 1)), 1) if u_len > 1 else zero
        if t == 0:
            alpha = steps                           # only moves right along u from (0, 0)
        else:
            down = F.add(alpha, blank_lp[:, t - 1])
            alpha = F.add(steps, logcumsumexp(F.sub(down, steps), 1))
        rows.append(alpha)
    lattice = F.stack(rows, 1)                      # (B, T, U)
    total = F.add(lattice, blank_lp)                # each cell's alpha + its final blank
    t_last = F.sub(F.cast(input_lengths, mstype.int32), 1)
    u_last = F.cast(label_lengths, mstype.int32)
    flat = F.reshape(total, (b, t_len * u_len))
    pick = F.add(F.mul(t_last, u_len), u_last)
    return F.neg(F.reshape(gather_d(flat, 1, F.reshape(pick, (b, 1))), (b,)))


@primitive_class
class RNNTLoss(Primitive):
    """`ops.RNNTLoss(blank_label=0)` (see the module docstring)."""

    def __init__(self, blank_label=0):
        super().__init__(_OP)
        if isinstance(blank_label, bool) or not isinstance(blank_label, int):
            raise OpTypeError(f"For '{_OP}', the type of 'blank_label' should be 'int', but got type "
                              f"'{type(blank_label).__name__}'.")
        self.blank_label = blank_label
        self.add_prim_attr("blank_label", blank_label)

    def _check(self, acts, labels, input_lengths, label_lengths):
        def element(name, t, allowed, what):
            got = f"Tensor[{t.dtype}]" if isinstance(t, TensorMethods) else "External"
            if not isinstance(t, TensorMethods) or t.dtype not in allowed:
                raise OpTypeError(f"For '{_OP}', the element of '{name}' must be {what}, but got {got}.{_SUFFIX}")
        element("acts_type", acts, (mstype.float32, mstype.float16), "one of Tensor[Float32], Tensor[Float16]")
        for name, t in (("labels", labels), ("input_length", input_lengths), ("label_length", label_lengths)):
            element(name, t, (mstype.int32,), "Tensor[Int32]")
        if acts.ndim != 4:
            raise OpValueError(f"For '{_OP}', the 'acts_rank' must be int and must = 4, but got '{acts.ndim}' with "
                               f"type 'int'.")
        b, _, u_len, v = acts.shape
        shapes = (tuple(labels.shape), tuple(input_lengths.shape), tuple(label_lengths.shape))
        if shapes != ((b, u_len - 1), (b,), (b,)):
            raise OpValueError(f"For '{_OP}', with acts (B, T, U, V) = {tuple(acts.shape)} 'labels' must be "
                               f"(B, U-1) = {(b, u_len - 1)} and the lengths (B,) = {(b,)}, but got "
                               f"{tuple(labels.shape)}, {tuple(input_lengths.shape)} and "
                               f"{tuple(label_lengths.shape)}.")
        if not -v <= self.blank_label < v:
            raise OpValueError(f"For '{_OP}', 'blank_label' must be in [{-v}, {v}), but got {self.blank_label}.")
        for name, t, top in (("input_lengths", input_lengths, acts.shape[1]), ("label_lengths", label_lengths,
                                                                                u_len - 1)):
            if isinstance(t, Tensor):
                v_ = t.asnumpy()
                if v_.size and (v_.min() < (1 if name == "input_lengths" else 0) or v_.max() > top):
                    raise OpValueError(f"For '{_OP}', every value of '{name}' must be in "
                                       f"[{1 if name == 'input_lengths' else 0}, {top}], but got {v_.tolist()}.")

    def __call__(self, acts, labels, input_lengths, label_lengths):
        self._check(acts, labels, input_lengths, label_lengths)
        blank = self.blank_label
        wide = F.cast(stop_gradient(acts), mstype.float32)

        def total(a):
            return F.sum(_costs(a, labels, input_lengths, label_lengths, blank))
        costs32 = _costs(wide, labels, input_lengths, label_lengths, blank)
        grads32 = grad(total)(wide)
        costs, grads = F.cast(costs32, acts.dtype), F.cast(grads32, acts.dtype)

        def rule(dout, out, inputs):         # grads reaches the rule as an input of the node, not a closure
            return [F.mul(inputs[1], F.reshape(F.cast(dout, inputs[1].dtype), (-1, 1, 1, 1))), None]
        return custom.custom(costs, [acts, stop_gradient(grads)], rule), grads

