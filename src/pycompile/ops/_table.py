"""The op table: one `OpDef` per primitive holding everything every stage needs.

* `infer(types, **attrs)`: output abstract type from input types (frontend, verifier, PyNative);
  it is where user errors are caught and named ("For 'Add', ...").
* `eager(*values, **attrs)`: NumPy implementation (PyNative, constant folding, test oracle).
* `lower`: a typed lowering (`ops.lowering`): an elementwise expression, a loop template, a BLAS
  call, a view, a copy, an effect; the C text for it lives with the C renderer (`backend/c/ops`).
* `grad`, `batch`: autodiff and vmap rules, written with other ops of this table.
* typed facts the passes read instead of keeping lists of op names: `cse`, `movable`,
  `speculatable`, `check_infer` (see OpDef).
* `eager_kernel`: PyNative runs the op through the C graph mode generates for it (a per-signature
  single-op kernel, backend/eager.py) instead of `eager`, so the two modes agree bit for bit.

`apply(op, inputs, attrs)` is the only way an op runs: it infers, then either hands the call to
the builder of a tracer among the inputs (graph mode) or runs the op now (PyNative): its C
kernel where the row asks for one and a C compiler works, else `eager`.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, Symbolic, TensorType, TupleType, type_of
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.errors import StandsFor, stands_for
from pycompile.ops import _bf16, _mixed, tracing
from pycompile.ops.lowering import Elementwise, Lowering


class Kind(enum.Enum):
    """What an op does to data, as the passes see it."""
    ELEMENTWISE = "elementwise"
    REDUCE = "reduce"
    LAYOUT = "layout"
    MATMUL = "matmul"
    EFFECT = "effect"
    CREATE = "create"


class Effect(enum.Enum):
    PURE = "pure"
    MEM = "memory"      # writes a Parameter (Assign, optimizer updates)
    IO = "io"           # Print
    STATUS = "status"   # reads/writes the float-status register (ordered with Depend)


@dataclass(frozen=True, eq=False)
class OpDef:
    """One primitive. Identity is the object: passes compare `n.op is Reshape`.

    cse          two nodes with equal inputs and attributes may be merged (False for
                 UpdateState / MakeTuple / TensorMove: each one orders or copies on its own)
    movable      loop-invariant code motion may hoist it (False for Load and the ordering ops)
    speculatable it can run where the program would not run it without failing (False for
                 Gather, which raises on an out-of-range index): hoisting out of a `while`
                 body that may run zero times needs it
    check_infer  the verifier re-runs `infer` on the node's inputs (False where graph inputs
                 differ from the user-facing ones: Fill's folded attributes)
    graph_only   the op exists only inside compiled graphs, made by a transformation (the stacks
                 of differentiated loops): it has no PyNative meaning
    decompose    a function of the op's inputs (and attributes, by name) computing it with other
                 rows: the op's code is its decomposition (docs/architecture.md, "The core"). The
                 row stays the op everywhere before rendering (PyNative runs `eager`, the graph
                 holds the row, its gradient and batch rules apply); the pre-render pass
                 (compiler/passes/decompose.py) replaces each node of it by its parts, which the
                 renderer and the fusion passes see
    fast_path    with `decompose`: the row is a composition by meaning (its decomposition) that
                 keeps a hand-written lowering for speed, which the compiler chooses (the
                 pre-render pass leaves the row whole); PYCOMPILE_FAST_PATHS=0 compiles the
                 decomposition instead, and tests/ops/test_core32_fast_paths.py checks the two
                 agree. `expands` says whether the pass replaces the row by default
    eager_kernel PyNative runs it on graph mode's C (one kernel per signature, compiled on first
                 use: backend/eager.py) rather than on `eager`, which stays the reference and the
                 fallback without a C compiler. For ops whose NumPy form is slow (convolutions,
                 pooling, normalizations, softmax) and the products (graph mode's product code,
                 built into the runtime: backend/eager_products.py, no NumPy BLAS threads);
                 cheap ops keep NumPy, whose call costs less. On a decomposed row: PyNative
                 runs its decomposition compiled (the parts fused), not the parts one by one.
                 A number instead of True: the kernel from results of that many elements
                 (`_wants_kernel`: the elementwise rows, NumPy below)
    any_dtype    the op is given bfloat16 values as they are (Cast converts them itself, a Custom op's
                 function is handed the bfloat16 array); every other pure op computes bfloat16 in
                 float32 and rounds its result (ops/_bf16.py)
    """
    name: str
    inputs: tuple
    infer: Callable
    eager: Callable
    kind: Kind = Kind.ELEMENTWISE
    attrs: dict = field(default_factory=dict)
    effect: Effect = Effect.PURE
    lower: Lowering | None = None
    grad: Any = None
    jvp: Any = None                  # forward-mode rule (ops/grads/forward.py); None: the VJP rule transposed
    batch: Any = None
    variadic: bool = False           # last input is a tuple of tensors (Concat, Stack, AddN)
    cse: bool = True
    movable: bool = True
    speculatable: bool = True
    check_infer: bool = True
    graph_only: bool = False
    eager_kernel: bool | int = False     # or the result's element count from which it runs the kernel
    any_dtype: bool = False          # takes bfloat16 as it is: not widened (ops/_bf16.py)
    decompose: Any = None
    fast_path: bool = False
    doc: str = ""

    @property
    def expands(self) -> bool:
        """The row is its decomposition everywhere past tracing (not a fast path kept whole)."""
        return self.decompose is not None and not self.fast_path

    def __repr__(self) -> str:
        return f"<op {self.name}>"


OPS: dict[str, OpDef] = {}


def defop(name: str, inputs, *, infer, eager, **kw) -> OpDef:
    """Declare an op. Each name is declared exactly once."""
    if name in OPS:
        raise ValueError(f"op {name} declared twice")
    kind = kw.setdefault("kind", Kind.ELEMENTWISE)
    if not isinstance(kind, Kind):
        raise TypeError(f"op {name}: kind must be a Kind, got {kind!r}")
    if not isinstance(kw.get("lower"), Lowering):
        raise TypeError(f"op {name}: lower must be a Lowering, got {kw.get('lower')!r}")
    if "batch" not in kw:
        # vmap rule (ops/batching.py): elementwise and reductions have general rules; any other
        # op is mapped by looping over the batch and stacking unless it names a rule
        kw["batch"] = {Kind.ELEMENTWISE: "elementwise", Kind.REDUCE: "reduce"}.get(kind, "loop")
    if kind is Kind.EFFECT:
        kw.setdefault("check_infer", False)
    op = OpDef(name=name, inputs=tuple(inputs), infer=infer, eager=eager, **kw)
    OPS[name] = op
    return op


class OpError(Exception, metaclass=StandsFor):
    """Mixin marker for errors raised by `infer` (so the frontend can add the user's line)."""


class OpTypeError(TypeError, OpError):
    pass


class OpValueError(ValueError, OpError):
    pass


class OpRuntimeError(RuntimeError, OpError):
    pass


class OpIndexError(IndexError, OpError):
    pass


# a user sees MindSpore's class names: type(e).__name__ is 'TypeError', and type(e) == TypeError,
# as MindSpore raises (pycompile.errors.StandsFor)
for _cls in (OpTypeError, OpValueError, OpRuntimeError, OpIndexError):
    stands_for(_cls, _cls.__mro__[1])

def fmt_shape(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def describe(t) -> str:
    if isinstance(t, TensorType):
        return f"Tensor[{t.dtype}]{fmt_shape(t.shape)}"
    if isinstance(t, ScalarType):
        return {"bool": "bool", "int": "int", "float": "float", "complex": "complex"}[t.kind]
    return str(t)


def _symbolic_in(inputs) -> Symbolic | None:
    """The tracer that handles this call: the innermost transformation (highest `_level`:
    a vmap inside a jit sees its batch tracers before the graph's)."""
    best = None
    for x in inputs:
        for y in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(y, Symbolic) and (best is None or y._level > best._level):
                best = y
    return best


def input_types(op: OpDef, inputs) -> list:
    types = []
    for i, x in enumerate(inputs):
        if op.variadic and i == len(inputs) - 1 and isinstance(x, (tuple, list)):
            types.append(TupleType(tuple(_type_or_error(op, y) for y in x)))
        else:
            types.append(_type_or_error(op, x))
    return types


def _type_or_error(op: OpDef, x):
    try:
        return type_of(x)
    except TypeError:
        raise OpTypeError(
            f"For '{op.name}', the inputs must be Tensors or numbers, but got {type(x).__name__}"
        ) from None


def apply(op: OpDef, inputs, attrs: dict | None = None):
    """Run `op` on `inputs` (Tensors, tracers, Python numbers) with compile-time `attrs`.

    PyNative's steady state is one dictionary hit: a call whose inputs are plain Tensors (or
    Parameters, outside every trace) and Python numbers is keyed by (op, attributes, each input's dtype and shape or number kind),
    and the first such call stores a plan (`_plan`) holding what `infer`, `check_size` and the
    compute-dtype rule decided for that key; later calls run the plan: convert, call the NumPy
    `eager`, wrap. A key holds everything `infer` reads, so a cached decision is the one `infer`
    would make again. Anything else (tracers, Parameters, NumPy scalars, tuple inputs,
    attributes that are not plain values) takes the full path below, every time."""
    if _mixed.SCOPE:        # inside a Cell run under to_float / an amp level: inputs are recast first
        return _apply(op, inputs, attrs or {}, None)
    if not attrs and len(inputs) == 2:
        # the commonest call (`x + y`: two plain Tensors, no attributes) looks its plan up by the
        # same key the loop below builds, without building a list first
        a, b = inputs
        if a.__class__ is Tensor and b.__class__ is Tensor:
            da, db = a._data, b._data
            plan = _PLANS.get((op, (), da.dtype, da.shape, db.dtype, db.shape))
            if plan is not None:
                return plan(inputs, _NO_ATTRS)
    key = [op, _attrs_key(attrs) if attrs else ()]
    for x in inputs:
        c = x.__class__
        # a Parameter is a plain value while no tracer is active (none could capture its read)
        if c is Tensor or (c is Parameter and not tracing._ACTIVE.get()):
            d = x._data
            key.append(d.dtype)
            key.append(d.shape)
        elif c in _NUMBER_KEYS:
            key.append(_NUMBER_KEYS[c])
        else:
            key = None
            break
    if key is not None:
        if key[1] is None:
            key = None
        else:
            key = tuple(key)
            plan = _PLANS.get(key)
            if plan is not None:
                return plan(inputs, attrs or _NO_ATTRS)
    return _apply(op, inputs, attrs or {}, key)


def _apply(op: OpDef, inputs, attrs: dict, key):
    """The full path: infer, check, then a tracer, a graph capturing the call, or eager."""
    if len(inputs) != len(op.inputs):
        raise OpTypeError(
            f"For '{op.name}', expected {len(op.inputs)} inputs ({', '.join(op.inputs)}), "
            f"but got {len(inputs)}")
    if _mixed.SCOPE and op.effect is Effect.PURE and op.name != "Cast":
        inputs = _mixed.adjust(op, inputs)     # inside a Cell run under to_float / an amp level
    if op.effect is Effect.PURE and not op.any_dtype and _bf16.involved(inputs, attrs):
        return _bf16.widen(op, inputs, attrs, apply, OPS["Cast"])     # computed in float32
    sym = _symbolic_in(inputs)
    if sym is not None and getattr(sym._tracer, "infers_itself", False):
        # a value of run-time length (ops/dynamic_length.py): its type's length is only a bound,
        # so the tracer decides what the op means before any infer compares shapes
        return sym._tracer.emit(op, list(inputs), attrs, None)
    types = input_types(op, inputs)
    out_type = op.infer(types, **attrs)
    check_size(op.name, out_type)
    if sym is not None:
        return sym._tracer.emit(op, list(inputs), attrs, out_type)
    if op.effect is not Effect.PURE or _parameter_in(inputs):
        # inside graph code, effects (Assign, Print, the float-status ops) happen when the graph
        # runs, never now; a Parameter read is a Load when the graph runs, not its value now
        graph = tracing.capturing()
        if graph is not None:
            return graph.emit(op, list(inputs), attrs, out_type)
    profile = PROFILE[0]
    if key is not None and op.kind in _PLANNED_KINDS and op.effect is Effect.PURE and op.eager is not None:
        plan = _plan(op, types, out_type, attrs)
        if profile is not None:
            plan = profile(op, plan)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
        return plan(inputs, attrs)
    if profile is not None:
        return profile(op, lambda i, *rest: run_eager(op, i, *rest))(inputs, attrs, out_type, types)
    return run_eager(op, inputs, attrs, out_type, types)


# (op, attributes key, per input: dtype and shape, or a number kind's marker) -> plan
_PLANS: dict = {}
# while a Profiler records: wrap(op, fn) -> fn timed as a call of op (backend/profiling.py)
PROFILE: list = [None]
_MAX_PLANS = 8192       # a bound, not a tuning knob: a program meets a few hundred keys
_NO_ATTRS: dict = {}    # only ever unpacked (**), never handed on
# the kinds whose infer reads nothing but its types and attributes (EFFECT and CREATE rows may
# read the device or the random state; they always take the full path)
_PLANNED_KINDS = frozenset((Kind.ELEMENTWISE, Kind.REDUCE, Kind.LAYOUT, Kind.MATMUL))


class _NumberKey:
    """A Python number's place in a plan key: only its kind reaches infer. A marker object,
    not a string or type, since NumPy dtypes compare equal to both ('f' == float32)."""
    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:
        return f"<{self.kind}>"


_NUMBER_KEYS = {bool: _NumberKey("bool"), int: _NumberKey("int"), float: _NumberKey("float")}
_ATTR_ATOMS = frozenset((bool, int, float, str, type(None), mstype.DType))


def _attrs_key(attrs: dict):
    """A hashable key for plain attribute values (numbers, strings, None, dtypes, tuples of
    ints), with each value's class so `keep_dims=1` and `keep_dims=True` (equal, and equally
    hashed) stay apart: infer may accept one and refuse the other. None for anything else."""
    key = []
    for name, v in attrs.items():
        c = v.__class__
        if c in _ATTR_ATOMS or (c is tuple and all(e.__class__ is int for e in v)):
            key.append((name, c, v))
        else:
            return None
    return tuple(key)


_EXACT_IN_DOUBLE = 1 << 53
_BF16_NP = mstype.bfloat16.np


def _converter(t, cdt: np.dtype):
    """How a plan converts one input to the compute dtype `cdt`: `convert`, or for a Python
    float (or an int a double holds exactly) going to a float dtype, one `np.array` call - the
    same double -> cdt rounding as `convert`'s, at a third of its cost (`x * 0.5`, `x + 1`)."""
    if isinstance(t, ScalarType) and cdt.kind == "f" and t.kind in ("float", "int"):
        def number_to_float(v):
            if v.__class__ is float or -_EXACT_IN_DOUBLE <= v <= _EXACT_IN_DOUBLE:
                return np.array(v, dtype=cdt)
            return convert(v, cdt)
        return number_to_float
    return lambda v: convert(v, cdt)


def _then_float32(first):
    if first is None:
        return lambda v: np.asarray(v, np.float32)
    return lambda v: np.asarray(first(v), np.float32)


def _wants_kernel(op: OpDef, out_type) -> bool:
    """Whether PyNative asks for `op`'s kernel at this signature: `eager_kernel` True, or a number
    of elements the result reaches (the elementwise rows: below it NumPy's few microseconds beat a
    kernel's compile at the signature's first call)."""
    want = op.eager_kernel
    if not want or EAGER_KERNELS[0] is None:
        return False
    if want is True:
        return True
    return isinstance(out_type, TensorType) and math.prod(out_type.shape) >= want


def _plan(op: OpDef, types: list, out_type, attrs: dict):
    """What a call with these input types runs once infer has accepted it: for an `eager_kernel`
    op its compiled kernel, where one can be built (EAGER_KERNELS), else the NumPy plan."""
    if op.expands and any(isinstance(t, TensorType) for t in types) and isinstance(out_type, TensorType):
        parts = _parts_plan(op, out_type)
        if _wants_kernel(op, out_type):
            # a decomposed row PyNative runs as its compiled decomposition: the parts fused into one
            # kernel per signature (ops/defs/norm.py's batch-norm rows), the parts where none is built
            kernel = EAGER_KERNELS[0].plan(op, types, out_type, attrs, parts)
            if kernel is not None:
                return kernel
        return parts
    numpy_plan = _numpy_plan(op, types, out_type)
    if _wants_kernel(op, out_type):
        kernel = EAGER_KERNELS[0].plan(op, types, out_type, attrs, numpy_plan)
        if kernel is not None:
            return kernel
    return numpy_plan


def _parts_plan(op: OpDef, out_type):
    """A row defined by its decomposition (`OpDef.expands`) runs its parts in PyNative, as compiled
    code does (each part on its own plan: NumPy or its kernel), so the two modes compute the same
    formula, with the core rows' edge semantics (Exp's float32 flush below -87 included). A tape
    above records the row itself (autodiff/tape.py runs `apply` below its trace): the gradient is
    the row's rule, finite where the parts' own gradient is not (SiLU at -100, Elu at +90)."""
    out_np, shape = out_type.dtype.np, out_type.shape
    decompose = op.decompose

    def run(inputs, attrs):
        if _mixed.SCOPE or STATUS_TRACKING[0]:
            return parts_aside(inputs, attrs)
        return parts(inputs, attrs)

    def parts(inputs, attrs):
        out = decompose(*inputs, **attrs)
        arr = out._data
        if arr.dtype != out_np or arr.shape != shape:     # a Python number's result type
            return Tensor._wrap_array(np.ascontiguousarray(arr.astype(out_np).reshape(shape)))
        return out

    def parts_aside(inputs, attrs):
        # the row's inputs were recast already (a Cell's amp scope): its parts are not; and the
        # float-status register sees the row's result, as a compiled kernel's, not the parts'
        # (SiLU(-100)'s exp(100) is inf on the way to -0)
        tracking, STATUS_TRACKING[0] = STATUS_TRACKING[0], False
        try:
            with _mixed.exact():
                out = parts(inputs, attrs)
        finally:
            STATUS_TRACKING[0] = tracking
        if tracking and out_type.dtype.is_float:
            _record_status(out._data)
        return out
    return run


def _numpy_plan(op: OpDef, types: list, out_type):
    """The NumPy plan of a call with these input types: the inputs converted
    to the compute dtype where they differ from it (the same `convert` as `eager_values`), the
    eager function under ignored floating-point errors, the result as `wrap_result` makes it
    and, on the Ascend device, its float status recorded (as `run_eager` does)."""
    eager = op.eager
    conv = ()
    if isinstance(op.lower, Elementwise):
        cdt = op.lower.compute(types, out_type).np
        conv = tuple((i, _converter(t, cdt)) for i, t in enumerate(types)
                     if not (isinstance(t, TensorType) and t.dtype.np == cdt) and i not in op.lower.as_is)
        if cdt == np.float16:
            # as eager_values: the operands rounded to float16, then computed in float32
            to16 = dict(conv)
            conv = tuple((i, _then_float32(to16.get(i))) for i in range(len(types)) if i not in op.lower.as_is)

    def compute(values, attrs):
        token = _ERRSTATE.set(_IGNORE_ALL)
        try:
            for i, to in conv:
                values[i] = to(values[i])
            return eager(*values, **attrs)
        finally:
            _ERRSTATE.reset(token)

    if not isinstance(out_type, TensorType):
        def run_other(inputs, attrs):
            return wrap_result(compute([getattr(x, "_data", x) for x in inputs], attrs), out_type, Tensor)
        return run_other
    out_np = out_type.dtype.np
    shape = out_type.shape
    is_float = out_type.dtype.is_float
    new = object.__new__
    # one or two inputs (nearly every call) are unpacked by position: cheaper than a loop
    arity = len(types) if len(types) in (1, 2) else 0
    t0, t1 = (isinstance(t, TensorType) for t in (types + [None, None])[:2])

    def run(inputs, attrs):
        if arity == 2:
            a, b = inputs
            values = [a._data if t0 else a, b._data if t1 else b]
        elif arity == 1:
            values = [inputs[0]._data if t0 else inputs[0]]
        else:
            values = [getattr(x, "_data", x) for x in inputs]
        # compute(values, attrs), written out: a call less per op
        token = _ERRSTATE.set(_IGNORE_ALL)
        try:
            for i, to in conv:
                values[i] = to(values[i])
            out = eager(*values, **attrs)
        finally:
            _ERRSTATE.reset(token)
        # np.asarray(out, dtype=out_np), skipped when `out` is that already
        if out.__class__ is np.ndarray and out.dtype is out_np:
            arr = out
        elif getattr(out, "dtype", None) is out_np:     # a NumPy scalar (a full sum): no cast to warn of
            arr = np.asarray(out)
        else:       # float16's overflow to inf is the result, as in C: no NumPy warning
            token = _ERRSTATE.set(_IGNORE_ALL)
            try:
                arr = np.asarray(out, dtype=out_np)
            finally:
                _ERRSTATE.reset(token)
        if arr.shape != shape:
            arr = arr.reshape(shape)
        if is_float and STATUS_TRACKING[0]:
            _record_status(arr)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        t = new(Tensor)         # Tensor._wrap_array(arr), written out: a call less per op
        t._data = arr
        return t
    return run


MAX_BYTES = int(np.iinfo(np.intp).max)


def check_size(op_name: str, t) -> None:
    """A result too large for any memory (more bytes than an intp counts) is the user's error,
    raised at their line: the C index arithmetic and NumPy's buffers would overflow."""
    if isinstance(t, TupleType):
        for e in t.elems:
            check_size(op_name, e)
        return
    if not isinstance(t, TensorType):
        return
    n = 1
    for d in t.shape:
        n *= d
    if n * t.dtype.itemsize > MAX_BYTES:
        raise OpValueError(f"For '{op_name}', the result of shape {list(t.shape)} would have {n} elements "
                           f"({n * t.dtype.itemsize} bytes of {t.dtype}): more than memory can address "
                           f"(at most {MAX_BYTES} bytes)")


def _parameter_in(inputs) -> bool:
    for x in inputs:
        if isinstance(x, Parameter):
            return True
        if isinstance(x, (tuple, list)) and any(isinstance(y, Parameter) for y in x):
            return True
    return False


def run_eager(op: OpDef, inputs, attrs: dict, out_type, types: list | None = None):
    """Run `op` now: its compiled kernel for an `eager_kernel` op where one can be built, else
    on NumPy values (`types`: the inputs' types, when the caller has them)."""
    values = []
    if types is None:
        types = input_types(op, inputs)
    if op.expands and any(isinstance(t, TensorType) for t in types) and isinstance(out_type, TensorType):
        return _parts_plan(op, out_type)(inputs, attrs)
    if _wants_kernel(op, out_type):
        kernel = EAGER_KERNELS[0].plan(op, types, out_type, attrs, None)
        if kernel is not None:
            return kernel(inputs, attrs)
    for i, x in enumerate(inputs):
        if op.variadic and i == len(inputs) - 1 and isinstance(x, (tuple, list)):
            values.append([_value(y) for y in x])
        else:
            values.append(_value(x))
    out = eager_values(op, values, attrs, types, out_type)
    if STATUS_TRACKING[0] and isinstance(out_type, TensorType) and out_type.dtype.is_float:
        _record_status(np.asarray(out, dtype=out_type.dtype.np))
    return wrap_result(out, out_type, Tensor)


# The provider of PyNative's compiled kernels (backend/eager.py installs it; None: NumPy for every
# op). `plan(op, types, out_type, attrs)` -> a plan as `_plan` makes them (run(inputs, attrs) ->
# the result; `numpy_plan` is what it falls back on), or None where no kernel can be had (no C
# compiler, inputs that are not tensors).
# `anticipate(op, inputs, attrs)` is told of each eager_kernel op the autodiff tape records, so the
# kernels of its gradient can be compiled before the backward pass needs them.
EAGER_KERNELS: list = [None]


# True while the current device emulates the NPU float-status register (set by the backend when
# the device changes): eager float ops then record overflow / NaN there, as compiled kernels do.
STATUS_TRACKING = [False]


def _record_status(arr: np.ndarray) -> None:
    if arr.size and not np.isfinite(arr).all():
        from pycompile._rt import lib
        lib.pc_status_raise((1 if np.isinf(arr).any() or np.isnan(arr).any() else 0)
                            | (2 if np.isnan(arr).any() else 0))


def eager_values(op: OpDef, values: list, attrs: dict, types: list, out_type):
    """Run op.eager on raw values (NumPy arrays, Python numbers). Elementwise inputs are first
    converted to the op's compute dtype, as generated code does: float16 is computed in float32
    and the result rounded once (the C does; NumPy would round every step of a composite body
    such as Mish's x * tanh(softplus(x)))."""
    if op.eager is None:
        raise OpTypeError(f"For '{op.name}', there is no eager implementation")
    lower = op.lower
    token = _ERRSTATE.set(_IGNORE_ALL)     # int8 + 300 wraps, as in C: no NumPy warning
    try:
        if isinstance(lower, Elementwise):
            cdt = lower.compute(types, out_type)
            if cdt is mstype.float16:      # operands rounded to float16, computed in float32
                values = [np.asarray(convert(v, np.float16), np.float32) if not isinstance(v, list) and i not in lower.as_is
                          else v for i, v in enumerate(values)]
                out = op.eager(*values, **attrs)
                return out.astype(np.float16) if getattr(out, "dtype", None) == np.float32 else out
            values = [convert(v, cdt.np) if not isinstance(v, list) and i not in lower.as_is else v
                      for i, v in enumerate(values)]
        return op.eager(*values, **attrs)
    finally:
        _ERRSTATE.reset(token)


class _Errstate:
    """`np.errstate(all="ignore")` as a set / reset pair (the fallback where NumPy's context
    variable below is not there)."""

    def set(self, _ignored):
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def reset(self, state):
        state.__exit__(None, None, None)


# NumPy (>= 2.0) keeps its floating-point error state in a context variable: setting it to a
# prebuilt "ignore all" state costs ~0.1 us, where entering `np.errstate` costs ~1 us - half of
# an eager op's budget. The state is per thread and per task, like np.errstate, and is reset
# after each eager call: nothing leaks to the user's NumPy code.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE, _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except (ImportError, TypeError):        # another NumPy layout: the public context manager
    _ERRSTATE, _IGNORE_ALL = _Errstate(), None


def convert(v, to: np.dtype) -> np.ndarray:
    """`v` as an array of dtype `to`, as generated code converts it (pc_<float>_to_<int> in
    pycompile_kernels.h). NumPy's own float -> uint32 result for NaN and out-of-range values
    depends on the array's length (its SIMD and scalar loops differ); both sides use its scalar
    loop's: through int64."""
    a = np.asarray(v)
    if a.dtype.kind == "V" and to is not _BF16_NP:      # (kind 'V': only bfloat16 among pycompile's types)
        a = a.astype(np.float32)    # exact; then float32's conversions, as the C's pc_bf2f then convert
    elif to is _BF16_NP and a.dtype.kind != "V":
        return mstype.to_bfloat16(a)     # through float32, as the C converts
    if a.dtype.kind == "c" and np.dtype(to).kind != "c":
        # complex to a real type keeps the real part, to bool too (MindSpore's Cast: 0 + 1j is False)
        a = a.real
    if a.dtype.kind == "f" and to == np.uint32:
        return a.astype(np.int64).astype(np.uint32)
    return a.astype(to, copy=False)


def _value(x):
    data = getattr(x, "_data", None)
    return data if data is not None else x


def wrap_result(out, out_type, tensor_cls):
    if isinstance(out_type, TensorType):
        arr = np.asarray(out, dtype=out_type.dtype.np)
        if arr.shape != out_type.shape:
            arr = arr.reshape(out_type.shape)
        return tensor_cls._wrap(arr)
    if isinstance(out_type, ScalarType):
        return {"bool": bool, "int": int, "float": float}[out_type.kind](out)
    if isinstance(out_type, TupleType):
        return tuple(wrap_result(o, t, tensor_cls) for o, t in zip(out, out_type.elems))
    return out


# ---------------------------------------------------------------------------------------------
# Shared infer helpers


def broadcast_shapes(op_name: str, *shapes) -> tuple:
    """NumPy/MindSpore broadcasting with MindSpore's error text."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(ndim):
        dim = 1
        for s in shapes:
            k = axis - (ndim - len(s))
            if k < 0:
                continue
            d = s[k]
            if d == 1:
                continue
            if dim != 1 and d != dim:
                names = " and ".join(f"input{i + 1}.shape = {fmt_shape(s)}" for i, s in enumerate(shapes))
                raise OpValueError(
                    f"For '{op_name}', the shapes of the inputs can not broadcast: dimension "
                    f"{axis - ndim} has sizes {dim} and {d}; got {names}")
            dim = d
        out.append(dim)
    return tuple(out)


def tensor_arg(op_name: str, t, what: str = "x") -> TensorType:
    if not isinstance(t, TensorType):
        raise OpTypeError(f"For '{op_name}', '{what}' must be a Tensor, but got {describe(t)}")
    return t


def norm_axis(op_name: str, axis: int, ndim: int, extra: int = 0) -> int:
    """Normalize a possibly negative axis for a rank-`ndim` tensor (extra: Stack/ExpandDims)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise OpTypeError(f"For '{op_name}', 'axis' must be an int, but got {type(axis).__name__}")
    n = ndim + extra
    if not -n <= axis < max(n, 1):
        raise OpValueError(
            f"For '{op_name}', 'axis' must be in range [{-n}, {n}), but got {axis}")
    return int(axis) % n if n else 0


def norm_axes(op_name: str, axis, ndim: int) -> tuple:
    """Reduction axes: None or () means all; returns a sorted tuple of distinct axes."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    if ndim == 0:       # a 0-d tensor accepts axis 0 / -1 (as MindSpore does): nothing to reduce
        for a in axis if isinstance(axis, (list, tuple)) else (axis,):
            norm_axis(op_name, a, 1)
        return ()
    if isinstance(axis, (list, tuple)):
        axes = tuple(norm_axis(op_name, a, ndim) for a in axis)
    else:
        axes = (norm_axis(op_name, axis, ndim),)
    if len(set(axes)) != len(axes):
        raise OpValueError(f"For '{op_name}', 'axis' has duplicate entries: {axis}")
    return tuple(sorted(axes))


def result_dtype(types) -> mstype.DType | str:
    """Promoted dtype of elementwise inputs; a scalar kind string if all inputs are scalars."""
    tensor_dt = None
    scalar_kind = None
    for t in types:
        if isinstance(t, TensorType):
            tensor_dt = t.dtype if tensor_dt is None else mstype.promote(tensor_dt, t.dtype)
        elif isinstance(t, ScalarType):
            scalar_kind = t.kind if scalar_kind is None else mstype.promote_scalar_kinds(scalar_kind, t.kind)
    if tensor_dt is None:
        return scalar_kind
    if scalar_kind is None:
        return tensor_dt
    return mstype.promote_scalar(tensor_dt, scalar_kind)
