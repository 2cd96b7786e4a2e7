"""ops.DynamicRNN and ops.DynamicGRUV2: MindSpore 2.10's fused recurrent Primitives (Ascend kernels
in MindSpore; its CPU wheel has none), each one decomposition over a loop in time, so PyNative and
graph code run one definition and the gradient is the loop's.

    y, output_h, output_c, i, j, f, o, tanhc = ops.DynamicRNN(...)(x, w, b, None, init_h, init_c)

An LSTM over x (num_step, batch, input_size). w (input_size + hidden_size, 4 * hidden_size) is
applied to [x_t, h_{t-1}] (its first input_size rows to x, the rest to h), its columns and b's the
gates in the order i, j, f, o (j the candidate tanh(...); the order MindSpore's own nn.LSTM builds
for it on Ascend from PyTorch's i, f, g, o):
    i = sigmoid(.), j = tanh(.), f = sigmoid(. + forget_bias), o = sigmoid(.)
    c_t = f * c_{t-1} + i * j,  tanhc = tanh(c_t),  h_t = o * tanhc
Every output is (num_step, batch, hidden_size), one row per step; y and output_h are both h.
init_h / init_c are (1, batch, hidden_size). Every input is float16 (the wheel's infer refuses a
float32 b, though the docstring's Raises allows one), and so is every output.

    y, output_h, update, reset, new, hidden_new = ops.DynamicGRUV2(...)(x, weight_input, weight_hidden,
                                                                      bias_input, bias_hidden, None, init_h)

A GRU: weight_input (input_size, 3H) and weight_hidden (H, 3H) right-multiply x_t and h_{t-1};
their columns (and the biases') are the gates r, z, n for gate_order 'rzh', z, r, n for 'zrh':
    r = sigmoid(x W_ir + b_ir + h W_hr + b_hr),  z = sigmoid(x W_iz + b_iz + h W_hz + b_hz)
    hidden_new = h W_hn + b_hn,  n = tanh(x W_in + b_in + r * hidden_new),  h_t = (1 - z) * n + z * h
With reset_after=False the reset gate is applied before the product: hidden_new = (r * h) W_hn
+ b_hn and n = tanh(x W_in + b_in + hidden_new). The outputs are y = output_h = h_t, update z,
reset r, new n and hidden_new, each (num_step, batch, H), of init_h's dtype; x and the weights are
float16, init_h and the biases (None: zeros) float16 or float32.

Both compute in float32 and cast the results. The attribute and the infer checks, their order
and their messages are the wheel's (recorded in tests/conformance/cases_dynrnn.py). Attribute
values the wheel accepts but whose meaning needs inputs the Primitives do not take (peephole
weights, a projection, a dropout mask, stacked cells) are refused with a ValueError, not
ignored: DynamicRNN's use_peephole=True, num_proj > 0, keep_prob < 1, cell_depth != 1;
DynamicGRUV2's num_proj > 0, keep_prob < 1, cell_clip > 0, cell_depth != 1. DynamicRNN's
cell_clip > 0 clips c_t to [-cell_clip, cell_clip] before tanh (TensorFlow's LSTMBlockCell, whose
attributes and outputs these are; -1, the default, is no clip). is_training changes nothing here:
the gate outputs are always computed.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.tracing import walk_as_graph_code

_F16, _F32 = mstype.float16, mstype.float32


# ---- the constructors' checks (MindSpore's validator messages) -----------------------------------
def _arg(name, default, kind, extra=None):
    """An attribute checked by validator.check_value_type (a bool is not an int or a float), then
    by `extra`."""
    def check(v, op):
        if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
            raise OpTypeError(f"For '{op}', the type of '{name}' should be '{kind.__name__}', but got type "
                              f"'{type(v).__name__}'.")
        if extra is not None:
            extra(v, op)
    return Arg(name, "value", default=default, init=True, check=check)


def _one_of(name, allowed, type_first, default=None):
    """validator.check_string, after a type check where MindSpore makes one (DynamicRNN)."""
    def check(v, op):
        if type_first and not isinstance(v, str):
            raise OpTypeError(f"For '{op}', the type of '{name}' should be 'str', but got type '{type(v).__name__}'.")
        if v not in allowed:
            raise OpValueError(f"For '{op}', the '{name}' must be str and must be in '{list(allowed)}', but got '{v}'.")
    return Arg(name, "value", default=default or allowed[0], init=True, check=check)


def _non_negative_int(v, op):
    """validator.check_non_negative_int (its two TypeError wordings)."""
    if isinstance(v, bool):
        raise OpTypeError(f"For '{op}', the 'num_proj' must be int and must >= 0, but got '{v}' with type 'bool'.")
    if not isinstance(v, int):
        raise OpTypeError(f"For '{op}', the 'num_proj' must be int, but got '{type(v).__name__}'")
    if v < 0:
        raise OpValueError(f"For '{op}', the 'num_proj' must be int and must >= 0, but got '{v}' with type 'int'.")


def _keep_prob_range(v, op):
    if not 0.0 <= v <= 1.0:
        raise OpValueError(f"The 'keep_prob' must be in range of [0.0, 1.0], but got {v} with type 'float'.")


def _time_major_true(v, op):
    if v is not True:
        raise OpValueError(f"For '{op}', the 'time_major' should be = the supported value: True, but got {v}.")


_NUM_PROJ = Arg("num_proj", "value", default=0, init=True, check=_non_negative_int)


# ---- the infer functions' checks -----------------------------------------------------------------
def _dtype_name(t) -> str:
    return f"Tensor[{t.dtype}]"


def _types_same(op, named: dict, allowed, scalar_form=False):
    """CheckAndConvertUtils' type check of several inputs: one dtype for all, then an allowed one
    (reported under the first name in sorted order, as MindSpore's map holds them)."""
    dtypes = {t.dtype for t in named.values()}
    if len(dtypes) > 1:
        raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    first = sorted(named)[0]
    t = named[first]
    if t.dtype not in allowed:
        kinds = ", ".join(f"Tensor[{d}]" for d in allowed)
        if scalar_form:
            kinds = ", ".join(f"{d}, Tensor[{d}]" for d in allowed)
        raise OpTypeError(f"For primitive[{op}], the input argument[{first}] must be a type of {{{kinds}}}, but got "
                          f"{_dtype_name(t)}.")


def _equal(op, what, got, want):
    if got != want:
        raise OpValueError(f"For primitive[{op}], the {what} must be equal to {want}, but got {got}.")


def _shape_same(op, what, shape, want):
    shape, want = tuple(shape), tuple(want)
    if shape != want:
        fmt = (lambda s: f"({s[0]})") if len(want) == 1 else str
        raise OpValueError(f"The primitive[{op}]'s input arguments {what} shape should equal to {fmt(want)}, but get "
                           f"the real shape {fmt(shape)}.")


def _rnn_checks(x, w, b, seq_length, init_h, init_c):
    op = "DynamicRNN"
    if seq_length is not None:
        raise OpValueError(f"For '{op}' seq is not None, please check seq's type")
    _types_same(op, {"x": x, "w": w, "h": init_h, "c": init_c}, (_F16,), scalar_form=True)
    if b.dtype != _F16:
        raise OpTypeError(f"For primitive[{op}], the input argument[b] must be a type of {{Tensor[Float16]}}, but got "
                          f"{_dtype_name(b)}.")
    _equal(op, "x_shape", x.ndim, 3)
    _equal(op, "w_shape", w.ndim, 2)
    _equal(op, "b_shape", b.ndim, 1)
    input_size, gates = x.shape[2], w.shape[1]
    hidden = gates // 4
    if gates % 4:
        raise OpValueError(f"For '{op}', w_shape[-1] should multiple of 4, now is {gates}.")
    if w.shape[0] != input_size + hidden:
        raise OpValueError(f"For '{op}', w_shape[0] should equal to input_size + hidden_size, but gets {w.shape[0]}.")
    if b.shape[0] != gates:
        raise OpValueError(f"For '{op}', b_shape[0] should equal to w_shape[1], but gets {b.shape[0]}.")
    _equal(op, "h_shape", init_h.ndim, 3)
    for k, want in enumerate((1, x.shape[1], hidden)):
        _equal(op, f"h_shape[{k}]", init_h.shape[k], want)
    _equal(op, "c_shape", init_c.ndim, 3)
    _shape_same(op, "c_shape", init_c.shape, init_h.shape)
    return hidden


def _gru_checks(x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h):
    op = "DynamicGRUV2"
    for name, t in (("bias_input", bias_input), ("bias_hidden", bias_hidden)):
        if t is not None and not hasattr(t, "dtype"):
            raise OpTypeError(f"For '{op}', the input '{name}' must be a Tensor or None, but got {type(t).__name__}.")
    _types_same(op, {"x_dtype": x, "winput_dtype": weight_input, "whidden_dtype": weight_hidden}, (_F16,))
    states = {"init_h": init_h}
    states.update({n: t for n, t in (("bias_input", bias_input), ("bias_hidden", bias_hidden)) if t is not None})
    _types_same(op, states, (_F16, _F32))
    _equal(op, "x shape rank", x.ndim, 3)
    _equal(op, "weight input shape rank", weight_input.ndim, 2)
    _equal(op, "weight hidden shape rank", weight_hidden.ndim, 2)
    _equal(op, "h shape rank", init_h.ndim, 2)
    batch, input_size, hidden = x.shape[1], x.shape[2], weight_hidden.shape[0]
    _shape_same(op, "weight input", weight_input.shape, (input_size, 3 * hidden))
    _shape_same(op, "weight hidden", weight_hidden.shape, (hidden, 3 * hidden))
    _shape_same(op, "init h", init_h.shape, (batch, hidden))
    if bias_input is not None:
        _shape_same(op, "binput", bias_input.shape, (3 * hidden,))
    if bias_hidden is not None:
        _shape_same(op, "bhidden", bias_hidden.shape, (3 * hidden,))
    if seq_length is not None:
        dims = ", ".join(str(d) for d in getattr(seq_length, "shape", ()))
        raise OpValueError(f"For '{op}', the dimension of 'seq_length' must be None, but got [const vector]{{{dims}}}.")
    return hidden


def _unsupported(op, what, value, needs):
    raise OpValueError(f"For '{op}', {what}={value!r} needs {needs}, which the Primitive does not take; pycompile "
                       f"runs only the documented configuration without it.")


# ---- the time loop -------------------------------------------------------------------------------
def _run(step, xw, state, extra, width):
    """(final state, per-step rows (S, B, width)) of `step` over every t of xw (S, B, G): one `For`
    in graph code (ops/time_loop.py, walked as graph code), a Python loop in PyNative."""
    from pycompile.ops import time_loop as R
    seq, batch = xw.shape[0], xw.shape[1]
    ys = ops.zeros((seq, batch, width), xw.dtype)
    walked, out = walk_as_graph_code(R._time_loop, (step, xw, state, ys, range(seq), extra))
    if walked:
        return out
    return R._time_loop_eager(step, xw, state, range(seq), extra)


def _input_part(x, w, b):
    """x @ w + b for every step at once: (S, B, I) -> (S, B, G)."""
    seq, batch, size = x.shape
    xw = ops.matmul(ops.reshape(x, (seq * batch, size)), w)
    if b is not None:
        xw = xw + b
    return ops.reshape(xw, (seq, batch, w.shape[1]))


def _lstm_step(xw, t, state, extra):
    """One DynamicRNN step; the row is [h, c, i, j, f, o, tanh(c)]."""
    w_h, forget_bias, clip = extra
    h, c = state
    hidden = c.shape[-1]
    g = ops.matmul(h, w_h) + ops.gather(xw, t, 0)
    i = ops.sigmoid(g[:, :hidden])
    j = ops.tanh(g[:, hidden:2 * hidden])
    f = ops.sigmoid(g[:, 2 * hidden:3 * hidden] + forget_bias)
    o = ops.sigmoid(g[:, 3 * hidden:])
    c_new = f * c + i * j
    if clip > 0:
        c_new = ops.clamp(c_new, -clip, clip)
    tanhc = ops.tanh(c_new)
    h_new = o * tanhc
    return (h_new, c_new), ops.concat((h_new, c_new, i, j, f, o, tanhc), 1)


def _gru_step(xw, t, h, extra):
    """One DynamicGRUV2 step; the row is [h, z, r, n, hidden_new]."""
    w_h, b_h, z_first, reset_after = extra
    hidden = h.shape[-1]
    gx = ops.gather(xw, t, 0)
    if reset_after:
        gh = ops.matmul(h, w_h) + b_h
        rz = ops.sigmoid(gx[:, :2 * hidden] + gh[:, :2 * hidden])
        hidden_new = gh[:, 2 * hidden:]
    else:
        rz = ops.sigmoid(gx[:, :2 * hidden] + ops.matmul(h, w_h[:, :2 * hidden]) + b_h[:2 * hidden])
    first, second = rz[:, :hidden], rz[:, hidden:]
    z, r = (first, second) if z_first else (second, first)
    if reset_after:
        n = ops.tanh(gx[:, 2 * hidden:] + r * hidden_new)
    else:
        hidden_new = ops.matmul(r * h, w_h[:, 2 * hidden:]) + b_h[2 * hidden:]
        n = ops.tanh(gx[:, 2 * hidden:] + hidden_new)
    h_new = n + z * (h - n)
    return h_new, ops.concat((h_new, z, r, n, hidden_new), 1)


# ---- the Primitives ------------------------------------------------------------------------------
@op_entry("dynamic_rnn", primitive="DynamicRNN", functional=False, args=[
    Arg("x"), Arg("w"), Arg("b"), Arg("seq_length", "value"), Arg("init_h"), Arg("init_c"),
    _one_of("cell_type", ("LSTM",), True), _one_of("direction", ("UNIDIRECTIONAL",), True),
    _arg("cell_depth", 1, int), _arg("use_peephole", False, bool),
    _arg("keep_prob", 1.0, float, _keep_prob_range), _arg("cell_clip", -1.0, float), _NUM_PROJ,
    _arg("time_major", True, bool, _time_major_true), _one_of("activation", ("tanh",), True),
    _arg("forget_bias", 0.0, float), _arg("is_training", True, bool)])
def dynamic_rnn(x, w, b, seq_length, init_h, init_c, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1,
                use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh",
                forget_bias=0.0, is_training=True):
    """(y, output_h, output_c, i, j, f, o, tanhc), each (num_step, batch, hidden) float16: an LSTM
    over x with gates i, j, f, o (see the module docstring)."""
    op = "DynamicRNN"
    hidden = _rnn_checks(x, w, b, seq_length, init_h, init_c)
    if use_peephole:
        _unsupported(op, "use_peephole", use_peephole, "peephole weights")
    if num_proj > 0:
        _unsupported(op, "num_proj", num_proj, "a projection weight")
    if keep_prob < 1.0:
        _unsupported(op, "keep_prob", keep_prob, "a dropout mask")
    if cell_depth != 1:
        _unsupported(op, "cell_depth", cell_depth, "the weights of every cell")
    size = x.shape[2]
    wf = ops.cast(w, _F32)
    xw = _input_part(ops.cast(x, _F32), wf[:size], ops.cast(b, _F32))
    state = (ops.cast(init_h[0], _F32), ops.cast(init_c[0], _F32))
    _, rows = _run(_lstm_step, xw, state, (wf[size:], float(forget_bias), float(cell_clip)), 7 * hidden)
    rows = ops.cast(rows, _F16)
    h, c, i, j, f, o, tanhc = (rows[:, :, k * hidden:(k + 1) * hidden] for k in range(7))
    return h, h, c, i, j, f, o, tanhc


@op_entry("dynamic_gru_v2", primitive="DynamicGRUV2", functional=False, args=[
    Arg("x"), Arg("weight_input"), Arg("weight_hidden"), Arg("bias_input", "value"), Arg("bias_hidden", "value"),
    Arg("seq_length", "value"), Arg("init_h"),
    _one_of("direction", ("UNIDIRECTIONAL",), False), _arg("cell_depth", 1, int), _arg("keep_prob", 1.0, float),
    _arg("cell_clip", -1.0, float), _NUM_PROJ, _arg("time_major", True, bool), _one_of("activation", ("tanh",), False),
    _one_of("gate_order", ("zrh", "rzh"), False, "rzh"), _arg("reset_after", True, bool),
    _arg("is_training", True, bool)])
def dynamic_gru_v2(x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h,
                   direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                   activation="tanh", gate_order="rzh", reset_after=True, is_training=True):
    """(y, output_h, update, reset, new, hidden_new), each (num_step, batch, hidden) of init_h's
    dtype: a GRU over x (see the module docstring)."""
    op = "DynamicGRUV2"
    hidden = _gru_checks(x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h)
    if num_proj > 0:
        _unsupported(op, "num_proj", num_proj, "a projection weight")
    if keep_prob < 1.0:
        _unsupported(op, "keep_prob", keep_prob, "a dropout mask")
    if cell_clip > 0:
        _unsupported(op, "cell_clip", cell_clip, "a cell state")
    if cell_depth != 1:
        _unsupported(op, "cell_depth", cell_depth, "the weights of every cell")
    if not time_major:
        _unsupported(op, "time_major", time_major, "a batch-major layout")
    zeros = ops.zeros((3 * hidden,), _F32)
    b_i = zeros if bias_input is None else ops.cast(bias_input, _F32)
    b_h = zeros if bias_hidden is None else ops.cast(bias_hidden, _F32)
    xw = _input_part(ops.cast(x, _F32), ops.cast(weight_input, _F32), b_i)
    extra = (ops.cast(weight_hidden, _F32), b_h, gate_order == "zrh", bool(reset_after))
    _, rows = _run(_gru_step, xw, ops.cast(init_h, _F32), extra, 5 * hidden)
    rows = ops.cast(rows, init_h.dtype)
    h, z, r, n, hidden_new = (rows[:, :, k * hidden:(k + 1) * hidden] for k in range(5))
    return h, h, z, r, n, hidden_new
