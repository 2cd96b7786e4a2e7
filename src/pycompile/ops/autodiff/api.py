"""The autodiff API with MindSpore's signatures and result structures: `ops.GradOperation`,
`ms.grad` / `ops.grad`, `ms.value_and_grad`, `ops.stop_gradient`.

Each returns (or is) a function over the differentiated function's arguments. Called with
PyNative values it differentiates on a tape (tape.py). Called inside graph code - with values
of a graph being built - it hands itself to that graph's tracer (`differentiate`), and the
compiler differentiates the traced graph with the same rules, so the gradient compiles into the
same C as the forward.

Result structures (checked against MindSpore 2.10, tests/oracle/data/autodiff.json):
  GradOperation()                     grad of the first input
  GradOperation(get_all=True)         (grad of each tensor input,)
  GradOperation(get_by_list=True)     (grad of each weight,)
  both flags                          ((input grads,), (weight grads,))
  grad(fn, 0) / grad(fn, (1,))        one grad;  grad(fn, (0, 1)) a tuple
  grad(fn, None, weights)             weight grads (a tuple; one grad for a single Parameter)
  grad(fn, pos, weights)              (position grads, weight grads)
  has_aux=True                        (grads, (aux outputs,)): only the first output is
                                      differentiated
  return_ids=True                     each grad as (position, grad) / (parameter name, grad)
  value_and_grad                      (the function's whole output, grads)
Without has_aux every tensor output is differentiated (their gradients add up), with a
cotangent of ones or the `sens` given. Outputs that are not tensors give zero gradients; an
input that is not a tensor gets none; a tensor that is not a Parameter given as a weight gets
zeros; an integer or bool input gets a gradient of its own dtype.
"""
from __future__ import annotations

from pycompile.common.abstract import Symbolic, TensorType, type_of
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import OpIndexError, OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.autodiff import saved_hooks
from pycompile.ops.autodiff.tape import NO_GRAD, GradTrace, GradTracer, fit
from pycompile.ops.autodiff.tensor_hooks import hooks_of


def stop_gradient(value):
    """`value`, through which no gradient flows (a view: it costs nothing when compiled)."""
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    if not isinstance(getattr(value, "_abstract", None), TensorType):
        return value
    return apply(P.StopGradient, [value])


class GradFunction:
    """A differentiated function with its configuration (see the module docstring)."""

    def __init__(self, fn, positions, weights, *, style: str, single_weight: bool = False, has_aux=False,
                 return_ids=False, sens_param=False, value=False):
        self.fn = fn
        self.positions = positions          # tuple of indices, "all", or None
        self.weights = weights              # list of Parameters / Tensors, or None
        self.single_weight = single_weight  # weights was one Parameter (or Tensor), not a sequence
        self.weights_defaulted = False      # GradOperation(get_by_list=True)(cell) without weights
        self.style = style                  # "gradop" | "grad"
        self.has_aux, self.return_ids, self.sens_param, self.value = has_aux, return_ids, sens_param, value
        self.__name__ = f"grad({getattr(fn, '__name__', type(fn).__name__)})"

    def __call__(self, *args, **kwargs):
        tracer = _graph_tracer(args, kwargs)
        if tracer is not None:
            return tracer.differentiate(self, args, kwargs)
        if _graph_target(self.fn) and _concrete(args, kwargs) and not self._hooked_args(args):
            return self.compiled()(*args, **kwargs)
        return self.eager(args, kwargs)

    def _hooked_args(self, args) -> bool:
        """A differentiated argument holds Tensor.register_hook hooks: they belong to this call's
        object, so the gradient is taken on the tape (tensor_hooks.py)."""
        if self.positions == "all":
            return any(hooks_of(a) for a in args)
        return any(hooks_of(args[i]) for i in self.positions or () if i < len(args))

    def compiled(self):
        """The gradient of a `@jit` function, or of a Cell in GRAPH_MODE, called from Python: one
        compiled function, forward and backward (MindSpore 2.10 compiles it too). It ran on the
        tape before - graph code in Python, a hook MindSpore's graph ignores called, and each call
        traced the @jit function again with the tape's values."""
        if getattr(self, "_jit", None) is None:
            jit = JIT[0]            # pycompile.api.jit, handed over when it is imported (the entry layer)
            grad_fn = self

            def compiled_gradient(*args, **kwargs):
                return grad_fn(*args, **kwargs)
            compiled_gradient.__name__ = compiled_gradient.__qualname__ = self.__name__
            target = getattr(self.fn, "fn", None) or getattr(type(self.fn), "construct", None)
            compiled_gradient._pycompile_origin = target
            self._jit = jit(compiled_gradient)
        return self._jit

    # ---- PyNative ---------------------------------------------------------------------------------
    def eager(self, args, kwargs):
        if NO_GRAD.get():
            raise RuntimeError("In no_grad context, you can not calculate gradient")
        args = list(args)
        sens = args.pop() if self.sens_param else None
        positions = self.check_positions(len(args))
        trace = GradTrace()
        leaves = {}
        for i in positions:
            args[i], leaves[i] = trace.watch(args[i])
        if saved_hooks.USED[0]:     # MindSpore saves for every tensor argument (saved_hooks.py)
            for i in range(len(args)):
                if i not in leaves:
                    args[i] = trace.watch(args[i], shadow=True)[0]
        weights = list(self.weights or ())
        weight_leaves = [trace.watch_weight(w) if isinstance(w, Parameter) else None for w in weights]
        with tracing.tracing(trace):
            out = self.fn(*args, **kwargs)
        out = _strip(out, trace, keep=True)
        diff = self.differentiated(out)
        seeds = _seeds(diff, sens)
        cts = trace.backward(seeds)
        pos_grads = [(i, _grad_of(leaves[i], cts, args[i])) for i in positions if leaves[i] is not None]
        w_grads = [(w, _grad_of(leaf, cts, w)) for w, leaf in zip(weights, weight_leaves)]
        return self.assemble(_strip(out, trace), pos_grads, w_grads)

    # ---- shared with the compiler -------------------------------------------------------------
    def check_positions(self, n_args: int, graph: bool = False) -> list:
        """The differentiated positions. MindSpore raises IndexError for one out of range in graph
        mode, RuntimeError in PyNative."""
        if self.positions == "all":
            return list(range(n_args))
        if self.positions is None:
            return []
        for i in self.positions:
            if i >= n_args:
                raise (OpIndexError if graph else OpRuntimeError)(f"Position index {i} is exceed input size.")
        return list(self.positions)

    def check_weights(self, graph: bool) -> None:
        """In graph code MindSpore refuses weights that are not Parameters, and a GradOperation
        with get_by_list given no weights (PyNative takes the Cell's trainable parameters)."""
        if not graph:
            return
        if self.weights_defaulted:
            raise OpRuntimeError("For 'S_Prim_grad', the size of input should be 2, but got 1. Please check "
                                 "inputs of the operator.")
        if any(not isinstance(w, Parameter) for w in self.weights or ()):
            raise OpRuntimeError("For 'grad', the weights must be Parameters in graph mode")

    def differentiated(self, out, graph: bool = False) -> list:
        """The outputs the gradient is taken of."""
        if self.has_aux:
            if not isinstance(out, tuple) or len(out) < 2:
                raise (OpRuntimeError if graph else OpValueError)(
                    "When has_aux is True, origin fn requires more than one outputs.")
            return [out[0]]
        return list(out) if isinstance(out, tuple) else [out]

    def assemble(self, out, pos_grads: list, w_grads: list):
        """The result structure from (position, grad) and (weight, grad) pairs."""
        if self.style == "gradop":
            g_in = tuple(g for _, g in pos_grads)
            g_w = tuple(g for _, g in w_grads)
            if self.positions == "all" and self.weights is not None:
                return g_in, g_w
            if self.positions == "all":
                return g_in
            if self.weights is not None:
                return g_w
            return g_in[0] if g_in else ()
        ids = self.return_ids
        g_in = tuple((i, g) if ids else g for i, g in pos_grads)
        g_w = tuple((w.name, g) if ids else g for w, g in w_grads)
        # MindSpore drops the positions that hold no tensor; one grad left is returned alone
        if len(g_in) == 1:
            g_in = g_in[0]
        if self.single_weight and len(g_w) == 1:
            g_w = g_w[0]
        if self.positions is None:
            grads = g_w
        elif self.weights is None:
            grads = g_in
        else:
            grads = (g_in, g_w)
        if self.value:
            return out, grads
        if self.has_aux:
            return grads, tuple(out[1:])
        return grads


from pycompile.ops.graph_call import JIT, concrete as _concrete, graph_target as _graph_target  # noqa: E402,F401


def _graph_tracer(args, kwargs):
    """The tracer of a graph being built that should differentiate this call, if any."""
    best = None
    for x in list(args) + list(kwargs.values()):
        for y in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(y, Symbolic) and (best is None or y._level > best._level):
                best = y
    tracer = best._tracer if best is not None else tracing.capturing()
    return tracer if hasattr(tracer, "differentiate") else None


def _strip(v, trace, keep=False):
    """`v` with this trace's GradTracers replaced by their primal values (keep=True: as is)."""
    if isinstance(v, GradTracer) and v.trace is trace:
        return v if keep else v.primal
    if isinstance(v, tuple):
        return tuple(_strip(x, trace, keep) for x in v)
    if isinstance(v, list):
        return [_strip(x, trace, keep) for x in v]
    return v


def _leaves(v) -> list:
    if isinstance(v, (tuple, list)):
        return [y for x in v for y in _leaves(x)]
    return [v]


def _seeds(outputs: list, sens) -> list:
    """(output, cotangent) pairs: the sens given (matched to the outputs' structure), or ones."""
    flat = _leaves(outputs)
    if sens is None:
        return [(o, F.ones_like(o)) for o in flat if isinstance(getattr(o, "_abstract", None), TensorType)]
    sens_flat = _leaves(sens if len(outputs) > 1 else [sens])
    if len(sens_flat) != len(flat):
        raise OpValueError(f"For 'GradOperation', sens must have the structure of the output: {len(flat)} "
                           f"tensors, but got {len(sens_flat)}")
    seeds = []
    for o, s in zip(flat, sens_flat):
        ot, st = getattr(o, "_abstract", None), type_of(s)
        if not isinstance(ot, TensorType):
            continue
        if not isinstance(st, TensorType) or st.shape != ot.shape:
            raise OpValueError(f"For 'GradOperation', the shape of sens should be {list(ot.shape)}, "
                               f"but got {list(getattr(st, 'shape', ()))}")
        seeds.append((o, s))
    return seeds


def _grad_of(leaf, cts, like):
    """The gradient of a leaf: its cotangent, or zeros of its dtype when nothing reached it."""
    c = cts.get(id(leaf)) if leaf is not None else None
    if c is None:
        t = type_of(like)
        return F.zeros(t.shape, t.dtype) if isinstance(t, TensorType) else None
    return fit(c, like)


# ---- MindSpore's constructors -------------------------------------------------------------------------

def _weights_list(weights):
    if weights is None:
        return None
    if isinstance(weights, Parameter):
        return [weights]
    if isinstance(weights, (ParameterTuple, list, tuple)):
        return list(weights)
    if isinstance(getattr(weights, "_abstract", None), TensorType):
        return [weights]
    raise OpTypeError(f"For 'grad', 'weights' must be a Parameter, a ParameterTuple or a list of Parameters, "
                      f"but got {type(weights).__name__}")


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """ms.grad / ops.grad: a function returning the gradients of `fn` (see the module docstring).
    With sens_param=True (accepted by MindSpore 2.10 too) the last argument is the output's
    cotangent instead of ones."""
    return _make(fn, grad_position, weights, has_aux, return_ids, sens_param, value=False)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """ms.value_and_grad: a function returning (fn's output, the gradients)."""
    return _make(fn, grad_position, weights, has_aux, return_ids, sens_param, value=True)


def _make(fn, grad_position, weights, has_aux, return_ids, sens_param, value):
    if grad_position is None and weights is None:
        raise OpValueError("`grad_position` and `weight` can not be None at the same time.")
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, type(None))):
        raise OpTypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
    positions = (grad_position,) if isinstance(grad_position, int) else grad_position
    for i in positions or ():
        if not isinstance(i, int) or isinstance(i, bool):
            raise OpTypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
        if i < 0:
            raise OpValueError("grad_position must be >= 0.")
    return GradFunction(fn, positions, _weights_list(weights), style="grad",
                        single_weight=weights is not None and not isinstance(weights, (ParameterTuple, list, tuple)),
                        has_aux=has_aux, return_ids=return_ids, sens_param=sens_param, value=value)


class GradOperation:
    """ops.GradOperation(get_all=False, get_by_list=False, sens_param=False): `GradOperation(...)(fn)`
    or `(fn, weights)` is the gradient function."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise OpTypeError(f"For 'GradOperation', the '{name}' should be bool, but got {type(v).__name__}")
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn, weights=None):
        defaulted = self.get_by_list and weights is None
        if defaulted:
            # MindSpore's PyNative mode takes a Cell's trainable parameters then
            weights = fn.trainable_params() if hasattr(fn, "trainable_params") else ()
        gf = GradFunction(fn, "all" if self.get_all else (0,), _weights_list(weights) if self.get_by_list else None,
                          style="gradop", sens_param=self.sens_param)
        gf.weights_defaulted = defaulted
        return gf
