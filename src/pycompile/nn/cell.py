"""nn.Cell: the building block of models, as in MindSpore.

Assigning a Parameter or a Cell to an attribute registers it. Parameter names are prefixed
with the attribute path when a Cell is assigned into another ("fc.weight", "seq.0.bias"),
as MindSpore does. Calling a Cell runs `construct`: eagerly in PYNATIVE_MODE, compiled in
GRAPH_MODE or when `construct` is decorated with `@jit`.
"""
from __future__ import annotations

from collections import OrderedDict

from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.cellbase import KEY_EPOCH, CellBase, bump
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.ops import _mixed, tracing
from pycompile.ops.autodiff.saved_hooks import saved_tensors_hooks
from pycompile.ops.primitive import Primitive
from pycompile.errors import UserAttributeError, UserKeyError
from pycompile.nn import cell_api, cell_phase, hooks


class Cell(CellBase, cell_api.Cell, cell_phase.Cell):
    """Base class of layers and models: subclasses define `construct`. Flags, recomputation and
    parallel hints, buffers, the state dict, `to` and backward pre-hooks are nn/cell_api.py's."""

    def __init__(self, auto_prefix: bool = True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_compiled", None)
        object.__setattr__(self, "_input_signature", None)
        object.__setattr__(self, "_attr_version", 0)
        if flags:
            self.add_flags(**flags)

    # -- registration ------------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        if "_params" not in self.__dict__:
            raise UserAttributeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        if cell_api.claims_attribute(self, name, value):
            return          # a buffer's assignment
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        params.pop(name, None)
        if not isinstance(value, Cell):
            # a Cell replacing a Cell keeps its place, as in MindSpore: SequentialCell runs its
            # cells in this order (setattr(seq, "1", cell) must not move the new one to the end)
            cells.pop(name, None)
        for key in self.__dict__.setdefault("_tuple_params", {}).pop(name, ()):
            params.pop(key, None)
        if isinstance(value, Parameter):
            if not value._explicit_name:
                # an unnamed Parameter takes the name of the first attribute it is assigned to
                value.name = name
                value._explicit_name = True
            params[name] = value
        elif isinstance(value, Cell):
            if self._auto_prefix and value is not self:
                value._prefix_parameter_names(name)
            cells[name] = value
        elif isinstance(value, ParameterTuple):
            # each Parameter is registered under its own name, as MindSpore does: an optimizer's
            # `moments = params.clone("moments")` lists 'moments.w' in parameters_and_names
            keys = []
            for i, p in enumerate(value):
                if not p._explicit_name:
                    p.name = f"{name}.{i}"
                    p._explicit_name = True
                if p.name not in params:
                    params[p.name] = p
                    keys.append(p.name)
            self.__dict__["_tuple_params"][name] = keys
        elif isinstance(value, Primitive):
            value.set_prim_instance_name(name)      # as MindSpore names an operator by its attribute
        object.__setattr__(self, name, value)
        # attributes that change after construction are part of what compiled code depends on
        bump(self)

    def __delattr__(self, name: str) -> None:
        self._params.pop(name, None)
        self._cells.pop(name, None)
        self.__dict__.get("_buffers", {}).pop(name, None)
        object.__delattr__(self, name)
        KEY_EPOCH[0] += 1           # the sub-Cells may have changed: _graph_key walks them again

    def _prefix_parameter_names(self, prefix: str) -> None:
        """Name every Parameter by its attribute path under `prefix`, as MindSpore does: a Cell
        moved to another attribute is renamed ('b.weight'), not prefixed twice ('b.a.weight')."""
        for path, p in self.parameters_and_names():
            p.name = f"{prefix}.{path}"

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot=True):
        if check_name_contain_dot and "." in param_name:
            raise UserKeyError(f"For 'insert_param_to_cell', the argument 'param_name' should not contain '.', "
                           f"but got {param_name!r}")
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the argument 'param' must be a Parameter, "
                            f"but got {type(param).__name__}")
        setattr(self, param_name, param)

    def insert_child_to_cell(self, child_name: str, child_cell: "Cell"):
        """Register a sub-Cell. Unlike attribute assignment, its Parameters keep their names
        (MindSpore does the same); parameters_and_names still reports the full path."""
        if not isinstance(child_name, str) or "." in child_name or not child_name:
            raise UserKeyError(f"For 'insert_child_to_cell', the argument 'child_name' must be a non-empty "
                           f"string without '.', but got {child_name!r}")
        if not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the argument 'child_cell' must be a Cell, "
                            f"but got {type(child_cell).__name__}")
        self._cells.pop(child_name, None)
        self._params.pop(child_name, None)
        self._cells[child_name] = child_cell
        object.__setattr__(self, child_name, child_cell)
        bump(self)

    # -- traversal ---------------------------------------------------------------------------------
    def parameters_and_names(self, name_prefix: str = "", expand: bool = True):
        """(attribute path, Parameter) pairs, each Parameter once, e.g. ('seq.0.weight', p)."""
        seen = set()
        for cell_name, cell in self.cells_and_names(name_prefix) if expand else [(name_prefix, self)]:
            for pname, p in cell._params.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{cell_name}.{pname}" if cell_name else pname), p

    def get_parameters(self, expand: bool = True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def cells_and_names(self, cell_name: str = "", _seen=None):
        seen = set() if _seen is None else _seen
        if id(self) in seen:
            return
        seen.add(id(self))
        yield cell_name, self
        for name, cell in self._cells.items():
            child = f"{cell_name}.{name}" if cell_name else name
            yield from cell.cells_and_names(child, seen)

    def cells(self):
        return list(self._cells.values())

    def name_cells(self) -> "OrderedDict[str, Cell]":
        return OrderedDict(self._cells)

    # -- modes -----------------------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> "Cell":
        # _attr_version makes compiled calls of the Cell recompile (construct may read
        # self.training); _mode_version records that the bump was only a mode change, which
        # keeps a lazy_inline Cell shareable (its subgraphs are keyed by the mode, as in MindSpore)
        self.__dict__["_phase"] = "train" if mode else "predict"     # MindSpore's: this Cell's only
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
            cell_api.record_flags(cell, training=mode)          # (get_flags() shows it, as MindSpore's)
            bump(cell)
            object.__setattr__(cell, "_mode_version", cell.__dict__.get("_mode_version", 0) + 1)
        return self

    def _graph_key(self) -> tuple:
        """What a compiled call of this Cell is keyed by besides its arguments: attribute changes
        other than set_train (the version minus the mode bumps), and the train / eval mode of
        each Cell of the subtree. Keying by the modes themselves, not by how often they changed,
        lets a loop that switches between training and evaluation (Model.fit, or set_train
        called again with the same mode) reuse both compiled versions instead of recompiling at
        every switch. A Cell without children (a layer called alone) skips the walk: the same
        key, at a third of a one-row call's cost. A Cell with children keeps its key while no
        Cell anywhere has changed since (cellbase.KEY_EPOCH: every attribute assignment, sub-Cell
        insertion or deletion, set_train and to_float moves it): one comparison per call instead
        of a walk (15 us for W5's 13 Cells)."""
        d = self.__dict__
        kept = d.get("_graph_key_kept")
        if kept is not None and kept[0] == KEY_EPOCH[0]:
            return kept[1]
        version = d.get("_attr_version", 0) - d.get("_mode_version", 0)
        if not self._cells:
            own = (d.get("_mixed_precision"), d.get("_mixed_output"))
            if own != (None, None):
                version = (version, str((own,)))
            return version, (self.training,)
        cells = [c for _, c in self.cells_and_names()]
        precisions = tuple((c.__dict__.get("_mixed_precision"), c.__dict__.get("_mixed_output")) for c in cells)
        if any(p != (None, None) for p in precisions):
            # to_float / an amp level on a sub-Cell changes the code of every Cell containing it
            version = (version, str(precisions))
        key = version, tuple(c.training for c in cells)
        d["_graph_key_kept"] = (KEY_EPOCH[0], key)      # (not __setattr__: that would move the epoch)
        return key

    def to_float(self, dst_type) -> "Cell":
        """Run this Cell and every sub-Cell with their float inputs and Parameters cast to
        dst_type (float16 or float32), as MindSpore's flags do; the Parameters stay as they are
        (ops/_mixed.py). A later call overrides: net.to_float(float16) then
        net.bn.to_float(float32) keeps the BatchNorm in float32."""
        _mixed.check_dtype(dst_type)
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_mixed_precision", dst_type)
            cell_api.record_flags(cell, fp16=dst_type == mstype.float16, fp32=dst_type == mstype.float32, bf16=False)
            bump(cell)
        return self

    def set_grad(self, requires_grad: bool = True) -> "Cell":
        return self

    def compile(self, *args, **kwargs) -> None:
        """MindSpore's Cell.compile: in GRAPH_MODE, compile `construct` for these arguments without
        running it (a later call with the same signature reuses the build); nothing in PyNative."""
        if context.get_context("mode") == context.GRAPH_MODE and _GRAPH_COMPILE[0] is not None:
            _GRAPH_COMPILE[0](self, args, kwargs)

    def set_inputs(self, *inputs) -> None:
        """Declare the input signature (Tensors, possibly with shapes only) for compiling
        ahead of the first call, e.g. by the `pycompile` command."""
        object.__setattr__(self, "_input_signature", inputs)

    def get_inputs(self):
        return self._input_signature

    # -- calling ---------------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise UserAttributeError(f"For '{type(self).__name__}', the method 'construct' is not defined.")

    def __call__(self, *args, **kwargs):
        precision = self.__dict__.get("_mixed_precision")
        if precision is not None:
            return _mixed.call_cell(self, args, kwargs, lambda a, k: self._call(*a, **k))
        return self._call(*args, **kwargs)

    def _call(self, *args, **kwargs):
        sym = _first_symbolic(args)
        if sym is not None:
            # inside a graph being built: let the frontend inline this Cell
            return sym._tracer.call_cell(self, args, kwargs)
        graph = tracing.capturing()
        if graph is not None:
            # called from library code while a graph is built, with no graph value among the
            # arguments (an optimizer's schedule called with its global_step Parameter): still
            # part of that graph, not a separate call run once while tracing
            return graph.call_cell(self, args, kwargs)
        if context.get_context("mode") == context.GRAPH_MODE and not _construct_is_jit(self):
            if self.__dict__.get("_hooks"):
                # a top-level call: the forward hooks run around the compiled construct
                return hooks.invoke(self, args, kwargs, lambda a, k: _GRAPH_CALL[0](self, tuple(a), k))
            return _GRAPH_CALL[0](self, args, kwargs)
        if "_saved_tensors_hooks" in self.__dict__:     # PyNative: construct under its saved-tensor hooks
            with saved_tensors_hooks(*self.__dict__["_saved_tensors_hooks"]):
                return self._run_construct(args, kwargs)
        return self._run_construct(args, kwargs)

    def _run_construct(self, args, kwargs):
        if "_hooks" in self.__dict__ or _has_bprop(self):
            return hooks.invoke(self, args, kwargs, lambda a, k: self.construct(*a, **k))
        return self.construct(*args, **kwargs)

    def register_saved_tensors_hooks(self, pack_hook, unpack_hook) -> None:
        """Pack / unpack the tensors the gradient of this Cell's construct saves (ms.saved_tensors_hooks
        around construct in PyNative; register_saved_tensors_hooks's packing in graph code)."""
        self.__dict__["_saved_tensors_hooks"] = (pack_hook, unpack_hook)
        bump(self)

    # -- hooks (nn/hooks.py) ---------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """hook_fn(cell, args) before construct; a value returned replaces the arguments."""
        return hooks.register(self, "forward_pre", hook_fn, prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False, always_call=False):
        """hook_fn(cell, args, output) after construct; a value returned replaces the output."""
        handle = hooks.register(self, "forward", hook_fn, prepend, with_kwargs=with_kwargs)
        cell_api.keep_backward_pre_hooks_last(self)
        return handle

    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) in the backward pass; a tuple returned replaces
        grad_input."""
        return hooks.register(self, "backward", hook_fn)

    # -- printing ----------------------------------------------------------------------------------
    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        head = type(self).__name__
        extra = self.extend_repr()
        if not self._cells:
            return f"{head}({extra})"
        lines = [f"{head}("]
        if extra:
            lines.append(f"  {extra}")
        for name, cell in self._cells.items():
            child = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({name}): {child}")
        lines.append(")")
        return "\n".join(lines)

    @property
    def cls_name(self) -> str:
        return type(self).__name__


# How a Cell call compiles in GRAPH_MODE: set by pycompile.api (the layer that owns compiling);
# nn never imports the compiler
_GRAPH_CALL: list = [None]


_GRAPH_COMPILE: list = [None]


def set_graph_call(fn, compile_only=None) -> None:
    """Install fn(cell, args, kwargs) as the GRAPH_MODE call path of every Cell, and
    compile_only(cell, args, kwargs) as Cell.compile's."""
    _GRAPH_CALL[0] = fn
    if compile_only is not None:
        _GRAPH_COMPILE[0] = compile_only


def _first_symbolic(args):
    for a in args:
        if isinstance(a, Symbolic):
            return a
        if isinstance(a, (tuple, list)):
            s = _first_symbolic(a)
            if s is not None:
                return s
    return None


def _has_bprop(cell) -> bool:
    return getattr(type(cell), "bprop", None) is not None


def _construct_is_jit(cell) -> bool:
    """_is_jit(cell.construct) without binding a method: an attribute lookup missing on a bound
    method raises internally (~0.5 us a call); on the function it is a dict miss."""
    fn = cell.__dict__.get("construct")
    return _is_jit(type(cell).construct if fn is None else fn)


def _is_jit(fn) -> bool:
    return getattr(fn, "_pycompile_jit", False) or getattr(getattr(fn, "__func__", None), "_pycompile_jit", False)
