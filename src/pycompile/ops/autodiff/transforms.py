"""MindSpore's derived autodiff transforms: `ops.vjp`, `ops.jvp`, `ops.jacrev`, `ops.jacfwd` and
`ops.get_grad`, with MindSpore 2.10's result structures (recorded in
tests/oracle/data/autodiff_transforms.json).

vjp and jacrev are built on the reverse mode of api.py, so one implementation serves PyNative (the tape)
and graph code (the compiler differentiates the traced IR):

- `vjp(fn, *inputs)` is (fn's output, vjp_fn); vjp_fn(v) is GradOperation(get_all=True,
  sens_param=True) of fn with cotangent v. The forward runs again when vjp_fn is called (in
  graph code the second copy is shared with the first by CSE where it is pure).
- `jvp` is forward mode: one pass of fn carrying tangents (ops/autodiff/forward.py in PyNative
  and under vmap, compiler/forward.py's transformation of the IR in graph code), by the ops'
  JVP rules. `jvp_by_transpose` is the previous form, as MindSpore 2.10 computes it: the
  gradient map u -> J^T u is linear in u, so its own gradient with cotangent v is J v (a grad
  of a grad, about three forward passes); the compiler falls back to it where its forward
  transformation stops.
- `jacrev` / `jacfwd` are vmap over the vjp / jvp of the rows of an identity matrix, so a
  Jacobian is batched code, not a loop over its rows; the result is laid out as MindSpore's:
  output shape + input shape, `jac[output][input]` when both are several (a flat tuple when
  either is one, the array alone when both are). jacfwd maps the forward-mode jvp, so a
  Jacobian by columns is one batched forward pass.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import Symbolic, TensorType, type_of
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.autodiff.api import GradFunction, _graph_tracer
from pycompile.ops.autodiff.forward import run_jvp
from pycompile.ops.batching import vmap


def _is_tensor(v) -> bool:
    return isinstance(getattr(v, "_abstract", None), TensorType)


def call(fn, args):
    """`fn(*args)`; in graph code the graph builder walks `fn` as user code (its `if` / loops
    become graph control flow) instead of running it as Python."""
    for x in tracing._leaves(args):
        if isinstance(x, Symbolic) and hasattr(x._tracer, "call_cell") and getattr(x._tracer, "walks_code", False):
            return x._tracer.call_cell(fn, list(args), {})
    tracer = tracing.capturing()
    if tracer is not None and getattr(tracer, "walks_code", False):
        return tracer.call_cell(fn, list(args), {})
    return fn(*args)


def _check_has_aux(has_aux) -> None:
    if not isinstance(has_aux, bool):
        raise OpTypeError("The 'has_aux' must be bool type.")


def _aux_split(out):
    """(differentiated output, aux) of has_aux=True: MindSpore returns the second output alone
    when there are two, the rest as a tuple otherwise."""
    if not isinstance(out, tuple) or len(out) < 2:
        raise OpValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")
    return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))


# ---- vjp ------------------------------------------------------------------------------------------

def _check_vjp_inputs(inputs) -> None:
    for x in inputs:
        if not (_is_tensor(x) or isinstance(x, (tuple, list))):
            raise OpTypeError("The inputs type must be Tensor.")


def vjp(fn, *inputs, weights=None, has_aux=False):
    """ops.vjp: (fn(*inputs), vjp_fn) or, with has_aux, (first output, vjp_fn, aux). vjp_fn(v)
    returns the gradient of every input (a tuple), and with `weights` (inputs' grads, weights'
    grads); v has the structure of the (first) output."""
    _check_vjp_inputs(inputs)
    _check_has_aux(has_aux)
    from pycompile.ops.autodiff.api import _weights_list
    wlist = _weights_list(weights)
    res = call(fn, inputs)
    gradfn = GradFunction(fn, "all", wlist, style="gradop", has_aux=has_aux, sens_param=True)

    def vjp_fn(*v):
        _check_vjp_inputs(v)
        return gradfn(*inputs, v[0] if len(v) == 1 else tuple(v))

    vjp_fn.__name__ = f"vjp_fn({getattr(fn, '__name__', type(fn).__name__)})"
    if has_aux:
        first, aux = _aux_split(res)
        return first, vjp_fn, aux
    return res, vjp_fn


# ---- jvp ------------------------------------------------------------------------------------------

def _tangent(fn, inputs: tuple, v: tuple, has_aux: bool, out):
    """J v of fn at `inputs`: the gradient, with cotangent v, of the linear map u -> J^T u."""
    outs = out if isinstance(out, tuple) else (out,)
    inner = GradFunction(fn, "all", None, style="gradop", has_aux=has_aux, sens_param=True)

    def transpose(*us):
        return inner(*inputs, us[0] if len(us) == 1 else tuple(us))

    outer = GradFunction(transpose, "all", None, style="gradop", sens_param=True)
    us = [F.ones_like(o) for o in outs]
    t = outer(*us, v if len(v) > 1 else v[0])
    return t if isinstance(out, tuple) else t[0]


def _as_tuple(x, what: str) -> tuple:
    if _is_tensor(x):
        return (x,)
    if isinstance(x, (tuple, list)):
        return tuple(x)
    raise OpTypeError("The inputs type must be a Tensor, tuple or list of Tensors.")


def jvp(fn, inputs, v, has_aux=False):
    """ops.jvp: (fn(*inputs), J v) or, with has_aux, (first output, J v, aux), by forward mode:
    one pass of fn carrying tangents (see the module docstring)."""
    _check_has_aux(has_aux)
    ins, vs = _as_tuple(inputs, "inputs"), _as_tuple(v, "v")
    if len(ins) != len(vs):
        raise OpValueError(f"v has invalid length: should be {len(ins)}, but got {len(vs)}")
    vs = tuple(_tangent_like(t, x) for x, t in zip(ins, vs))
    tracer = _graph_tracer(ins + vs, {})
    if tracer is not None and hasattr(tracer, "forward_differentiate"):
        # graph code: the compiler transforms the traced IR (compiler/forward.py)
        res, tan = tracer.forward_differentiate(fn, ins, vs)
    else:
        res, tan = run_jvp(fn, ins, vs, call)
    if has_aux:
        (out, aux), (t, _) = _aux_split(res), _aux_split(tan)
        return out, t, aux
    return res, tan


def _tangent_like(t, x):
    """A tangent of x's dtype broadcast to x's shape, as MindSpore 2.10 accepts it (it joins the
    two dtypes: a tangent of another dtype is its TypeError)."""
    if not (_is_tensor(x) and _is_tensor(t)):
        return t
    tt, xt = type_of(t), type_of(x)
    if tt.dtype is not xt.dtype:
        raise OpTypeError(f"Type Join Failed: dtype1 = {tt.dtype}, dtype2 = {xt.dtype}.")
    return t if tt.shape == xt.shape else F.broadcast_to(t, xt.shape)


def jvp_by_transpose(fn, inputs, v, has_aux=False):
    """The jvp of before forward mode, as MindSpore 2.10 computes it: the gradient, with cotangent
    v, of the linear map u -> J^T u (a grad of a grad). Kept as the reference forward mode is
    tested against, and as the compiler's path where its forward transformation stops (a loop)."""
    ins, vs = _as_tuple(inputs, "inputs"), _as_tuple(v, "v")
    res = call(fn, ins)
    out, aux = _aux_split(res) if has_aux else (res, None)
    t = _tangent(fn, ins, vs, has_aux, out)
    return (out, t, aux) if has_aux else (out, t)


# ---- Jacobians ------------------------------------------------------------------------------------

def _positions(grad_position, n_args: int) -> tuple:
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple)):
        raise OpTypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
    pos = (grad_position,) if isinstance(grad_position, int) else grad_position
    if len(set(pos)) != len(pos):
        raise OpValueError("There are duplicate positions in `grad_position`, please check it")
    for p in pos:
        if isinstance(p, bool) or not isinstance(p, int):
            raise OpTypeError("For 'F.grad', the element in 'grad_position' must be int.")
        if p < 0 or p >= n_args:
            raise OpValueError("The element in grad_position must belong to [0, args_num).")
    return tuple(pos)


def _basis(shapes, dtypes) -> list:
    """One (N, *shape) block of the N x N identity per shape (N = the sum of their sizes)."""
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    n, off, out = sum(sizes), 0, []
    for s, k, dt in zip(shapes, sizes, dtypes):
        out.append(Tensor(np.eye(n, k, -off, dtype=np.float32).reshape((n,) + tuple(s)), dtype=dt))
        off += k
    return out


def _layout(blocks: list, n_out: int, n_in: int):
    """blocks[o][i] -> MindSpore's Jacobian structure."""
    if n_out == 1 and n_in == 1:
        return blocks[0][0]
    if n_out == 1:
        return tuple(blocks[0])
    if n_in == 1:
        return tuple(b[0] for b in blocks)
    return tuple(tuple(b) for b in blocks)


def _shape(x) -> tuple:
    return tuple(type_of(x).shape)


def _call_watching(fn, args):
    """fn(*args) as `call` runs it, and whether graph code traced control flow on run-time values
    there (an `if` on a tensor, a loop with a run-time trip count): vmap runs the function it maps
    as Python, so a Jacobian of such code is built row by row instead (see jacrev)."""
    tracer = _graph_tracer(args, {})
    graph = getattr(tracer, "walks_code", False) and hasattr(tracer, "nodes")
    start = len(tracer.nodes) if graph else 0
    res = call(fn, args)
    return res, graph and any(n.blocks for n in tracer.nodes[start:])


def _rows(row, basis: list, by_rows: bool) -> list:
    """vmap(row)(*basis), or, by_rows, row on each row of the basis stacked (graph code whose
    control flow depends on run-time values: one gradient or jvp per row, each compiled as graph
    code, which vmap cannot map)."""
    if not by_rows:
        return vmap(row)(*basis)
    per_row = [row(*[b[k] for b in basis]) for k in range(int(basis[0].shape[0]))]
    return [F.stack([r[j] for r in per_row]) for j in range(len(per_row[0]))]


def jacrev(fn, grad_position=0, has_aux=False):
    """ops.jacrev: the Jacobian of fn by reverse mode (vmap of vjp over the outputs' basis)."""
    _check_has_aux(has_aux)

    def jacobian(*args):
        pos = _positions(grad_position, len(args))
        res, by_rows = _call_watching(fn, args)
        out, aux = _aux_split(res) if has_aux else (res, None)
        outs = out if isinstance(out, tuple) else (out,)
        basis = _basis([_shape(o) for o in outs], [type_of(o).dtype for o in outs])
        gradfn = GradFunction(fn, pos, None, style="grad", has_aux=has_aux, sens_param=True)

        def row(*cts):
            g = gradfn(*args, cts[0] if len(cts) == 1 else tuple(cts))
            return g if isinstance(g, tuple) else (g,)

        rows = _rows(row, basis, by_rows)     # per position: (N, *input shape)
        blocks, off = [], 0
        for o in outs:
            so = _shape(o)
            k = int(np.prod(so, dtype=np.int64))
            blocks.append([F.reshape(r[off:off + k], so + _shape(args[p])) for r, p in zip(rows, pos)])
            off += k
        jac = _layout(blocks, len(outs), len(pos))
        return (jac, aux) if has_aux else jac

    jacobian.__name__ = f"jacrev({getattr(fn, '__name__', type(fn).__name__)})"
    return jacobian


def jacfwd(fn, grad_position=0, has_aux=False):
    """ops.jacfwd: the Jacobian of fn by forward mode (vmap of jvp over the inputs' basis)."""
    _check_has_aux(has_aux)

    def jacobian(*args):
        pos = _positions(grad_position, len(args))
        res, by_rows = _call_watching(fn, args)
        out, aux = _aux_split(res) if has_aux else (res, None)
        outs = out if isinstance(out, tuple) else (out,)
        basis = _basis([_shape(args[p]) for p in pos], [type_of(args[p]).dtype for p in pos])

        def row(*tangents):
            by_pos = dict(zip(pos, tangents))
            vs = tuple(by_pos[i] if i in by_pos else F.zeros_like(a) for i, a in enumerate(args))
            t = jvp(fn, tuple(args), vs, has_aux)[1]
            return t if isinstance(t, tuple) else (t,)

        cols = _rows(row, basis, by_rows)     # per output: (N, *output shape)
        blocks = []
        for c, o in zip(cols, outs):
            so, off, per_in = _shape(o), 0, []
            for p in pos:
                si = _shape(args[p])
                k = int(np.prod(si, dtype=np.int64))
                part = c[off:off + k]
                perm = tuple(range(1, len(so) + 1)) + (0,)
                per_in.append(F.reshape(F.transpose(part, perm), so + si))
                off += k
            blocks.append(per_in)
        jac = _layout(blocks, len(outs), len(pos))
        return (jac, aux) if has_aux else jac

    jacobian.__name__ = f"jacfwd({getattr(fn, '__name__', type(fn).__name__)})"
    return jacobian


# ---- get_grad -------------------------------------------------------------------------------------

def get_grad(gradients, identifier):
    """ops.get_grad: the gradient of position `identifier` (an int) or of Parameter `identifier`
    in the result of grad / value_and_grad with return_ids=True."""
    if isinstance(identifier, bool) or not isinstance(identifier, (int, Parameter)):
        raise OpTypeError(f"For `get_grad`, the `x` should be an integer or a Parameter, but got {identifier}")
    key = identifier.name if isinstance(identifier, Parameter) else identifier
    found = []

    def search(g):
        if not isinstance(g, tuple):
            return
        if len(g) == 2 and _same_id(g[0], key):
            found.append(g[1])
            return
        for x in g:
            search(x)

    search(gradients)
    if not found:
        raise OpRuntimeError(f"Can not find the gradient for position or Parameter {identifier}")
    return found[-1]


def _same_id(a, key) -> bool:
    if isinstance(a, (int, str)) and not isinstance(a, bool) and type(a) is type(key):
        return a == key
    return False
