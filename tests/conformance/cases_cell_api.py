"""The conformance table: nn.Cell's configuration and state API (pycompile's nn/cell_api.py) -
flags, recompute, shard, pipeline_stage / pipeline_segment, set_comm_fusion, set_boost,
set_data_parallel, set_jit_config, apply, to / to_empty, buffers, the torch-like state dict with
its hooks and extra state, parameters_dict and the Parameter-name helpers, scopes, mixed precision
type, register_backward_pre_hook. Most are Python-side effects on the Cell (graph=False); the
Cells they configure are also run compiled where that says something (values of a recomputed,
sharded, buffer-holding or state-loaded Cell, gradients through backward pre-hooks). Ids start
with ``cellapi_``."""
group("cell_api")

_CA_HOST = dict(graph=False, reason="Cell methods run in Python, on the Cell, outside construct")
_CA_W = np.array([[0.5, -1.0], [1.5, 0.25]], np.float32)
_CA_B = np.array([0.1, -0.2], np.float32)


class _CaNet(nn.Cell):
    """Dense + ReLU times a Parameter, with a Primitive attribute (set_data_parallel, recompute)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init=Tensor(_CA_W), bias_init=Tensor(_CA_B))
        self.act = nn.ReLU()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.mul = ops.Mul()

    def construct(self, x):
        return self.mul(self.act(self.fc(x)), self.w)


class _CaBuffered(nn.Cell):
    """A persistent Int32 buffer, a non-persistent Float32 one used by construct, a None one."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init=Tensor(_CA_W), bias_init=Tensor(_CA_B))
        self.register_buffer("buf", Tensor(np.array([1, 2, 3], np.int32)))
        self.register_buffer("fbuf", Tensor(np.array([1.5, 2.5], np.float32)), persistent=False)
        self.register_buffer("nbuf", None)

    def construct(self, x):
        return self.fc(x) + self.fbuf


class _CaOuter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = _CaBuffered()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.register_buffer("ob", Tensor(np.array([7.0, -1.0], np.float32)))

    def construct(self, x):
        return self.inner(x) * self.w + self.ob


class _CaGradOf(nn.Cell):
    """The gradients of `net` with respect to its input and its trainable Parameters."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, self.weights)(x)


class _CaTimes5(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return self.net(x) * 5


def _ca_items(d):
    return sorted((k, v) for k, v in d.items())


def _ca_host(id, names, fn):
    add(f"cellapi_{id}", names, fn, **_CA_HOST)


# ---- recompute -------------------------------------------------------------------------------------

def _ca_recompute_marks():
    n, k, m = _CaNet(), _CaNet(), _CaNet()
    first = n.recompute()
    n.recompute()               # a second call changes nothing
    k.fc.recompute()            # a sub-Cell marked first keeps its flag
    k.recompute()
    m.recompute(output_recompute=True)
    return (first, _ca_items(n.get_flags()), _ca_items(n.fc.get_flags()), n.get_scope(), n.fc.get_scope(),
            _ca_items(k.get_flags()), _ca_items(k.fc.get_flags()), _ca_items(k.act.get_flags()),
            _ca_items(m.get_flags()), _ca_items(m.fc.get_flags()))


def _ca_recompute_kwargs():
    n, m = _CaNet(), _CaNet()
    out = (n.recompute(mp_comm_recompute=False, recompute_slice_activation=True, early_stop=False),
           m.recompute(use_reentrant=False, context_fn=None, parallel_optimizer_comm_recompute=False))
    return out + (n.mul.attrs.get("recompute_comm_op"), n.mul.attrs.get("slice_activation"))


def _ca_recompute_errors():
    return tuple(error_words(f) for f in (
        lambda: _CaNet().recompute(foo=1), lambda: _CaNet().recompute(mp_comm_recompute=1),
        lambda: _CaNet().recompute(parallel_optimizer_comm_recompute=1), lambda: _CaNet().recompute(output_recompute=1),
        lambda: _CaNet().recompute(context_fn=1), lambda: _CaNet().recompute(True)))


_ca_host("recompute_marks", ("nn.Cell.recompute", "nn.Cell.get_flags", "nn.Cell.get_scope"), _ca_recompute_marks)
_ca_host("recompute_kwargs", "nn.Cell.recompute", _ca_recompute_kwargs)
_ca_host("recompute_errors", "nn.Cell.recompute", _ca_recompute_errors)


@cell("nn.Cell.recompute", "nn.Cell", "ops.GradOperation", inputs=[rnd(3, 2)])
def cellapi_recompute_gradients():
    net = _CaNet()
    net.recompute()
    return _CaGradOf(net)


@cell("nn.Cell.recompute", "nn.Cell", inputs=[rnd(3, 2)])
def cellapi_recompute_values():
    net = _CaNet()
    net.recompute(output_recompute=True)
    return net


# ---- shard, pipeline, comm fusion, boost, data parallel, jit config ---------------------------------

@cell("nn.Cell.shard", "nn.Cell", inputs=[rnd(3, 2)])
def cellapi_shard_one_process():
    net = _CaNet()
    net.shard(((1, 1),), out_strategy=((1, 1),), parameter_plan={"w": (1,)})
    return net


_ca_host("shard_signature", "nn.Cell.shard", lambda: (
    _CaNet().shard("anything", 5, 3), error_words(lambda: _CaNet().shard(((1, 1),), device="Ascend")),
    error_words(lambda: _CaNet().shard())))


def _ca_pipeline():
    n = _CaNet()
    before = error_words(lambda: n.pipeline_stage), error_words(lambda: n.pipeline_segment)
    n.pipeline_stage, n.pipeline_segment = 2, 0
    errors = tuple(error_words(lambda v=v, a=a: setattr(n, a, v)) for a in ("pipeline_stage", "pipeline_segment")
                   for v in (True, -1, 1.0, "1"))
    return before, n.pipeline_stage, n.pipeline_segment, error_words(lambda: n.fc.pipeline_stage), errors


_ca_host("pipeline_stage_segment", ("nn.Cell.pipeline_stage", "nn.Cell.pipeline_segment"), _ca_pipeline)


def _ca_comm_fusion():
    n = _CaNet()
    same = n.set_comm_fusion(3) is n
    all3 = [p.comm_fusion for p in n.trainable_params()]
    n.fc.set_comm_fusion(4, recurse=False)
    n.set_comm_fusion(5, recurse=False)
    errors = tuple(error_words(lambda v=v: n.set_comm_fusion(v)) for v in (-1, 1.5, True, "a"))
    return same, all3, [(p.name, p.comm_fusion) for p in n.trainable_params()], errors


_ca_host("set_comm_fusion", "nn.Cell.set_comm_fusion", _ca_comm_fusion)


def _ca_boost_broadcast():
    n = _CaNet()
    same = n.set_boost("less_bn") is n, n.set_broadcast_flag() is n
    errors = error_words(lambda: n.set_boost("more")), error_words(lambda: n.set_boost(1))
    return same, _ca_items(n.get_flags()), _ca_items(n.fc.get_flags()), n.less_bn, n.fc.broadcast_flag, errors


_ca_host("set_boost_broadcast", ("nn.Cell.set_boost", "nn.Cell.set_broadcast_flag"), _ca_boost_broadcast)


def _ca_data_parallel():
    n = _CaNet()
    return n.set_data_parallel(), n.mul.attrs.get("strategy_gen_mode")


_ca_host("set_data_parallel", "nn.Cell.set_data_parallel", _ca_data_parallel)


def _ca_jit_config():
    n = _CaNet()
    empty = _ca_items(n.jit_config_dict)
    first = n.set_jit_config(ms.JitConfig(jit_level="O1"))
    n.set_jit_config(ms.JitConfig(jit_level="O0"))      # ignored: set once
    return empty, first, _ca_items(n.jit_config_dict), error_words(lambda: _CaNet().set_jit_config(3))


_ca_host("set_jit_config", ("nn.Cell.set_jit_config", "nn.Cell.jit_config_dict", "ms.JitConfig"), _ca_jit_config)


# ---- flags and mixed precision ------------------------------------------------------------------------

class _CaFlagged(nn.Cell):
    def __init__(self):
        super().__init__(flags={"k": 1})

    def construct(self, x):
        return x


def _ca_flags():
    m = _CaNet()
    same = m.add_flags(a=1, b="x") is m, m.add_flags_recursive(c=True) is m
    own = _ca_items(m.get_flags()), m.a, m.b, _ca_items(m.fc.get_flags()), m.fc.c
    m.add_flags(training=True)
    trained = m.training, m.fc.training
    t = _CaNet().set_train()
    f = _CaFlagged()
    return same, own, trained, _ca_items(t.get_flags()), _ca_items(t.fc.get_flags()), _ca_items(f.get_flags()), f.k


_ca_host("add_flags", ("nn.Cell.add_flags", "nn.Cell.add_flags_recursive", "nn.Cell.get_flags"), _ca_flags)


def _ca_mixed_type():
    n = _CaNet()
    kind = type(n.get_mixed_precision_type())
    default = str(n.get_mixed_precision_type()), n.mixed_precision_type
    n.to_float(ms.float16)
    half = str(n.get_mixed_precision_type()), str(n.fc.get_mixed_precision_type()), _ca_items(n.fc.get_flags())
    n.to_float(ms.float32)
    single = str(n.get_mixed_precision_type()), _ca_items(n.get_flags())
    m = _CaNet()
    m.set_mixed_precision_type(kind.FP16)
    own = str(m.get_mixed_precision_type()), str(m.fc.get_mixed_precision_type()), _ca_items(m.get_flags())
    a = _CaNet()
    a.add_flags(fp16=True)
    flagged = str(a.get_mixed_precision_type()), str(a.fc.get_mixed_precision_type()), int(a.mixed_precision_type)
    return (default, half, single, own, flagged, error_words(lambda: m.set_mixed_precision_type(None)),
            m.cast_inputs((Tensor(1.0),), ms.float16))


_ca_host("mixed_precision_type", ("nn.Cell.get_mixed_precision_type", "nn.Cell.set_mixed_precision_type",
                                  "nn.Cell.to_float", "nn.Cell.cast_inputs"), _ca_mixed_type)


@cell("nn.Cell.add_flags", "nn.Cell", inputs=[rnd(3, 2)], graph=False,
      reason="MindSpore's GRAPH_MODE casts only the flagged Cell's inputs, so the sub-Cell's Float32 weights meet "
             "Float16 inputs (TypeError); pycompile casts as PyNative does")
def cellapi_add_flags_fp16_runs_in_float16():
    net = _CaNet()
    net.add_flags(fp16=True)
    return net


# ---- apply, traversal, Parameter names, scopes --------------------------------------------------------

def _ca_apply():
    n = _CaNet()
    seen = []
    return n.apply(lambda c: seen.append(type(c).__name__)) is n, seen


_ca_host("apply_order", "nn.Cell.apply", _ca_apply)


def _ca_init_dense(c):
    if isinstance(c, nn.Dense):
        c.weight.set_data(Tensor(np.full((2, 2), 0.25, np.float32)))


@cell("nn.Cell.apply", "nn.Cell", inputs=[rnd(3, 2)])
def cellapi_apply_initializes():
    return _CaNet().apply(_ca_init_dense)


def _ca_sub_cells():
    o = nn.SequentialCell([_CaOuter(), nn.ReLU()])
    return (type(o.get_sub_cell("0.inner.fc")).__name__, o.get_sub_cell("") is o,
            error_words(lambda: o.get_sub_cell("0.inner.buf")), error_words(lambda: o.get_sub_cell("0.q")),
            error_words(lambda: o.get_sub_cell("1.x")))


_ca_host("get_sub_cell", "nn.Cell.get_sub_cell", _ca_sub_cells)


def _ca_parameters_dict():
    n = _CaNet()
    full, own = n.parameters_dict(), n.parameters_dict(recurse=False)
    replaced = n.init_parameters_data()
    return (type(full).__name__, list(full), list(own), all(v is n.parameters_dict()[k] for k, v in full.items()),
            sorted(k.name for k in replaced), all(k is v for k, v in replaced.items()),
            len(n.init_parameters_data(auto_parallel_mode=True)), list(n.parameters_broadcast_dict()),
            nn.ReLU().parameters_broadcast_dict())


_ca_host("parameters_dict", ("nn.Cell.parameters_dict", "nn.Cell.init_parameters_data",
                             "nn.Cell.parameters_broadcast_dict"), _ca_parameters_dict)


class _CaSameNames(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.ones(2, np.float32)), name="x")
        self.b = Parameter(Tensor(np.zeros(2, np.float32)), name="x")

    def construct(self, x):
        return x


def _ca_names():
    n = _CaNet()
    out = [n.update_parameters_name("net.")]
    out.append([p.name for p in n.get_parameters()])
    out += [error_words(lambda v=v: n.update_parameters_name(v)) for v in ("a b", 3, None, "x-y/z.", "é")]
    n.update_parameters_name("")
    out.append([p.name for p in n.get_parameters()])
    n.fc.update_parameters_name("q-1.", recurse=False)
    out.append([p.name for p in n.get_parameters()])
    s = _CaSameNames()
    out += [n.check_names(), error_words(s.check_names), s.check_names_and_refresh_name(),
            [p.name for p in s.get_parameters()]]
    return out


_ca_host("parameter_names", ("nn.Cell.update_parameters_name", "nn.Cell.check_names",
                             "nn.Cell.check_names_and_refresh_name"), _ca_names)


def _ca_scopes():
    n = _CaNet()
    before = n.get_scope(), n.fc.get_scope()
    n.generate_scope()
    s = nn.SequentialCell([_CaNet(), _CaNet()])
    s[1].recompute()
    s.generate_scope()
    n.update_cell_prefix()
    n.update_cell_type("quant")
    # (MindSpore's recompute adds a private sub-Cell, `_recompute_cell`, running construct: not pycompile's)
    scopes = [(k, c.get_scope()) for k, c in s.cells_and_names() if "_recompute_cell" not in k]
    return (before, n.get_scope(), n.fc.get_scope(), scopes,
            n.param_prefix, n.fc.param_prefix, n.cell_type, n.fc.cell_type)


_ca_host("scopes_prefixes", ("nn.Cell.get_scope", "nn.Cell.generate_scope", "nn.Cell.update_cell_prefix",
                             "nn.Cell.param_prefix", "nn.Cell.update_cell_type"), _ca_scopes)


def _ca_misc():
    n = _CaNet()
    debug = n.bprop_debug
    n.bprop_debug = True
    return (debug, n.bprop_debug, error_words(lambda: setattr(n, "bprop_debug", 1)),
            n.remove_redundant_parameters())


_ca_host("bprop_debug_misc", ("nn.Cell.bprop_debug", "nn.Cell.remove_redundant_parameters"), _ca_misc)


# ---- to / to_empty ------------------------------------------------------------------------------------

def _ca_dtypes(c):
    return ([(k, str(p.dtype), type(p).__name__) for k, p in c.parameters_and_names()],
            [(k, str(b.dtype)) for k, b in c.named_buffers()])


def _ca_to():
    n = _CaBuffered()
    w = n.fc.weight
    out = [n.to(ms.float16) is n, _ca_dtypes(n), n.fc.weight is w, w.name]
    n.to(ms.float64)
    out.append(_ca_dtypes(n))
    n.to(Tensor(np.ones(2, np.float16)))
    out.append(_ca_dtypes(n))
    n.to("CPU", ms.float32, True)
    out.append(_ca_dtypes(n))
    for form in (lambda: n.to(device="cpu"), lambda: n.to(None), lambda: n.to(), lambda: n.to(non_blocking=True),
                 lambda: n.to(dtype=ms.float16, non_blocking=False), lambda: n.to("CPU", dtype=ms.float32)):
        out.append(form() is n)
    out.append(_ca_dtypes(n))
    return out


_ca_host("to_dtypes", "nn.Cell.to", _ca_to)


def _ca_to_errors():
    n = _CaNet()
    return tuple(error_words(f) for f in (
        lambda: n.to(ms.int32), lambda: n.to(ms.bool_), lambda: n.to(Tensor(np.ones(2, np.int32))),
        lambda: n.to(3), lambda: n.to("foo"), lambda: n.to("GPU"), lambda: n.to(ms.float16, 1),
        lambda: n.to(ms.float16, non_blocking=1), lambda: n.to(tensor=Tensor(1.0)), lambda: n.to([1]),
        lambda: n.to(ms.float16, ms.float32), lambda: n.to(ms.float16, device="CPU"), lambda: n.to(device=3),
        lambda: n.to(np.float16), lambda: n.to((1, 2)), lambda: n.to(2.5)))


_ca_host("to_errors", "nn.Cell.to", _ca_to_errors)


@cell("nn.Cell.to", "nn.Cell", inputs=[rnd(3, 2, dtype="float16")])
def cellapi_to_float16_runs():
    return _CaNet().to(ms.float16)


def _ca_to_empty():
    n = _CaBuffered()
    w = n.fc.weight
    same = n.to_empty() is n, n.fc.weight is w, n.to_empty(device="CPU", recurse=False) is n
    return (same, _ca_dtypes(n), [tuple(p.shape) for p in n.get_parameters()],
            error_words(lambda: n.to_empty(device="foo")), error_words(lambda: n.to_empty("CPU")))


_ca_host("to_empty", "nn.Cell.to_empty", _ca_to_empty)


# ---- buffers ------------------------------------------------------------------------------------------

def _ca_named_buffers():
    o = _CaOuter()
    return ([k for k, _ in o.named_buffers()], [k for k, _ in o.named_buffers(prefix="p", recurse=False)],
            [k for k, _ in o.named_buffers(prefix="p")], list(o.buffers()), list(o.buffers(recurse=False)),
            o.get_buffer("inner.buf"), o.get_buffer("ob"), o.get_buffer("inner.nbuf"), o.inner.buf,
            o.get_buffer("inner.buf") is o.inner.buf, o.inner.nbuf)


_ca_host("named_buffers", ("nn.Cell.register_buffer", "nn.Cell.named_buffers", "nn.Cell.buffers",
                           "nn.Cell.get_buffer"), _ca_named_buffers)


def _ca_buffer_errors():
    o = _CaOuter()
    return tuple(error_words(f) for f in (
        lambda: o.get_buffer("inner.xx"), lambda: o.get_buffer("w"), lambda: o.get_buffer("inner.fc.weight"),
        lambda: o.get_buffer("zz.buf"), lambda: o.get_buffer(""),
        lambda: o.register_buffer("w", Tensor(1)), lambda: o.register_buffer("inner", Tensor(1)),
        lambda: o.register_buffer("a.b", Tensor(1)), lambda: o.register_buffer("", Tensor(1)),
        lambda: o.register_buffer(3, Tensor(1)), lambda: o.register_buffer("q", 3),
        lambda: o.register_buffer("q", np.ones(2)), lambda: o.register_buffer("training", Tensor(1)),
        lambda: o.register_buffer("construct", Tensor(1))))


_ca_host("buffer_errors", ("nn.Cell.register_buffer", "nn.Cell.get_buffer"), _ca_buffer_errors)


class _CaSharedBuffer(nn.Cell):
    def __init__(self):
        super().__init__()
        t = Tensor(np.ones(2, np.float32))
        self.register_buffer("a", t)
        self.register_buffer("b", t)
        self.plain = 1.0

    def construct(self, x):
        return x


def _ca_buffer_assign():
    o = _CaOuter()
    mistyped = tuple(error_words(lambda v=v: setattr(o, "ob", v), replace=(("pycompile", "mindspore"),))
                     for v in (Tensor(np.array([9.0, 9.0], np.float32)), 5))
    o.register_buffer("ob", Tensor(np.array([8.0, 8.0], np.float32)))
    again = o.ob, o.get_buffer("ob")
    o.ob = None
    cleared = o.ob, [k for k, _ in o.named_buffers()]
    del o.inner.buf
    s = _CaSharedBuffer()
    s.plain = s.a            # a buffer assigned to an attribute is a buffer of it too
    return (mistyped, again, cleared, [k for k, _ in o.named_buffers()], [k for k, _ in s.named_buffers()],
            [k for k, _ in s.named_buffers(remove_duplicate=False)], list(s.state_dict()))


_ca_host("buffer_assignment", ("nn.Cell.register_buffer", "nn.Cell.named_buffers"), _ca_buffer_assign)


@cell("nn.Cell.register_buffer", "nn.Cell", inputs=[rnd(3, 2)])
def cellapi_buffers_in_construct():
    return _CaOuter()


# ---- state dict ---------------------------------------------------------------------------------------

def _ca_state_dict():
    o = _CaOuter()
    sd = o.state_dict()
    d = {}
    return (type(sd).__name__, list(sd), [type(v).__name__ for v in sd.values()],
            sd["ob"] is o.ob and sd["inner.fc.weight"] is o.inner.fc.weight, list(sd._metadata),
            list(o.state_dict(prefix="m.")), list(o.state_dict(prefix="m.")._metadata),
            o.state_dict(keep_vars=True)["w"] is o.w, o.state_dict(destination=d) is d, list(d),
            list(o.inner.state_dict()),
            list(nn.SequentialCell([nn.Dense(1, 1), nn.ReLU(), nn.Dense(1, 2)]).state_dict()),
            list(nn.LSTM(2, 3).state_dict()),
            error_words(lambda: o.state_dict(destination=[])), error_words(lambda: o.state_dict(prefix=1)),
            error_words(lambda: o.state_dict(keep_vars=1)))


_ca_host("state_dict", "nn.Cell.state_dict", _ca_state_dict)


def _ca_sd_values():
    return {"w": Tensor(np.array([3.0, 4.0], np.float64)), "ob": Tensor(np.array([5.0, 6.0], np.float32)),
            "inner.buf": Tensor(np.array([4.7, 5.0, -6.2], np.float32)),
            "inner.fc.weight": Tensor(np.full((2, 2), 0.5, np.float32)),
            "inner.fc.bias": Tensor(np.array([1, 2], np.int32))}


def _ca_load():
    o = _CaOuter()
    w = o.w
    r = o.load_state_dict(_ca_sd_values())
    loaded = (repr(r), type(r).__name__, r.missing_keys, r.unexpected_keys, o.w is w, o.w, o.ob, o.inner.buf,
              o.inner.fc.weight, o.inner.fc.bias)
    partial = o.load_state_dict({"w": Tensor(np.array([1.0, 1.0], np.float32))}, strict=False)
    extra = o.load_state_dict({**_ca_sd_values(), "extra": Tensor(1.0), "inner.zz": Tensor(1.0),
                               "inner.fc.q": Tensor(1.0), "nope.a": Tensor(1.0)}, strict=False)
    return loaded, repr(partial), list(partial), repr(extra), o.load_state_dict(o.state_dict(), strict=3)


_ca_host("load_state_dict", "nn.Cell.load_state_dict", _ca_load)


def _ca_load_message(sd, **kw):
    try:
        _CaOuter().load_state_dict(sd, **kw)
    except Exception as e:  # noqa: BLE001 - the whole message is the outcome
        return type(e).__name__, str(e)
    return "no error"


def _ca_load_errors():
    good = _ca_sd_values()
    return (_ca_load_message({"w": good["w"]}),
            _ca_load_message({**good, "extra": Tensor(1.0), "inner.zz": Tensor(1.0), "nope.a": Tensor(1.0)}),
            _ca_load_message({**good, "w": Tensor(np.ones(3, np.float32))}),
            _ca_load_message({**good, "w": Tensor(np.ones(3, np.float32))}, strict=False),
            _ca_load_message({**good, "w": np.ones(2, np.float32)}), _ca_load_message({**good, "w": 3.0}),
            _ca_load_message({"w": Tensor(np.ones(3, np.float32)), "inner.fc.weight": Tensor(np.ones(3, np.float32))}),
            _ca_load_message({**good, "inner.fbuf": Tensor(np.ones(2, np.float32))}), _ca_load_message([1, 2]),
            error_words(lambda: _CaOuter().load_state_dict(good, assign=True)))


_ca_host("load_state_dict_errors", "nn.Cell.load_state_dict", _ca_load_errors)


@cell("nn.Cell.load_state_dict", "nn.Cell.state_dict", "nn.Cell", inputs=[rnd(3, 2)])
def cellapi_load_state_dict_round_trip():
    a, b = _CaOuter(), _CaOuter()
    set_params(a, 7)
    a.register_buffer("ob", Tensor(np.array([0.5, -3.0], np.float32)))
    b.load_state_dict(a.state_dict())
    return b


class _CaExtra(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init=Tensor(_CA_W), bias_init=Tensor(_CA_B))
        self.k = 3
        self.log = []

    def get_extra_state(self):
        return (self.k, "state")

    def set_extra_state(self, state):
        self.log.append(state)
        self.k = state[0]

    def construct(self, x):
        return self.fc(x)


class _CaExtraOuter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ex = _CaExtra()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        return self.ex(x)


def _ca_extra_state():
    sd = _CaExtraOuter().state_dict()
    o = _CaExtraOuter()
    o.ex.k = 0
    r = o.load_state_dict(sd)
    without = {k: v for k, v in sd.items() if k != "ex._extra_state"}
    dense = {"weight": Tensor(np.ones((1, 1), np.float32)), "bias": Tensor(np.ones(1, np.float32)), "_extra_state": 1}
    return (list(sd), sd["ex._extra_state"], repr(r), o.ex.k, o.ex.log,
            _ca_err_text(lambda: o.load_state_dict(without)),
            repr(o.load_state_dict(without, strict=False)), _ca_err_text(lambda: nn.Dense(1, 1).load_state_dict(dense)),
            repr(nn.Dense(1, 1).load_state_dict(dense, strict=False)), error_words(nn.Dense(1, 1).get_extra_state),
            error_words(lambda: nn.Dense(1, 1).set_extra_state({})))


def _ca_err_text(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the whole message is the outcome
        return type(e).__name__, str(e)
    return "no error"


_ca_host("extra_state", ("nn.Cell.get_extra_state", "nn.Cell.set_extra_state", "nn.Cell.state_dict",
                         "nn.Cell.load_state_dict"), _ca_extra_state)


def _ca_state_dict_hooks():
    log = []
    o = _CaExtraOuter()
    h1 = o.register_state_dict_pre_hook(lambda c, prefix, keep: log.append(("pre", type(c).__name__, prefix, keep)))
    o.ex.register_state_dict_pre_hook(lambda c, prefix, keep: log.append(("pre", type(c).__name__, prefix, keep)))

    def post(c, sd, prefix, meta):
        log.append(("post", type(c).__name__, prefix, list(sd), sorted(meta.items())))
        sd[prefix + "added"] = Tensor(1.0)
    h3 = o.register_state_dict_post_hook(post)
    o.ex.register_state_dict_post_hook(post)
    first = list(o.state_dict(prefix="p."))
    h1.remove()
    h3.remove()
    second = list(o.state_dict())
    bad = _CaExtraOuter()
    bad.ex.register_state_dict_post_hook(lambda *a: 1)
    return first, second, log, type(h1).__name__, error_words(bad.state_dict)


_ca_host("state_dict_hooks", ("nn.Cell.register_state_dict_pre_hook", "nn.Cell.register_state_dict_post_hook"),
         _ca_state_dict_hooks)


def _ca_load_hooks():
    log = []
    o = _CaExtraOuter()
    sd = o.state_dict()

    def pre(c, sd, prefix, meta, strict, missing, unexpected, errors):
        log.append(("pre", type(c).__name__, prefix, sorted(meta.items()), strict, list(sd), list(missing),
                    list(unexpected), list(errors)))

    def post(c, keys):
        log.append(("post", type(c).__name__, type(keys).__name__, list(keys.missing_keys),
                    list(keys.unexpected_keys)))
    for c in (o, o.ex):
        c.register_load_state_dict_pre_hook(pre)
        c.register_load_state_dict_post_hook(post)
    first = repr(o.load_state_dict(sd))
    second = repr(o.load_state_dict({"w": sd["w"], "zz": Tensor(1.0)}, strict=False))

    def clear(c, keys):
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()
    cleared = _CaExtraOuter()
    cleared.register_load_state_dict_post_hook(clear)
    returning = _CaExtraOuter()
    returning.register_load_state_dict_post_hook(lambda c, k: 5)
    return (first, second, log, repr(cleared.load_state_dict({"w": sd["w"], "zz": Tensor(1.0)})),
            error_words(lambda: returning.load_state_dict(sd)))


_ca_host("load_state_dict_hooks", ("nn.Cell.register_load_state_dict_pre_hook",
                                   "nn.Cell.register_load_state_dict_post_hook"), _ca_load_hooks)


# ---- backward pre-hooks -------------------------------------------------------------------------------

def _ca_pre_times10(cell, grad_output):
    return (grad_output[0] * 10,)


def _ca_pre_none(cell, grad_output):
    return None


def _ca_pre_tensor(cell, grad_output):
    return grad_output[0] * 2


def _ca_pre_ones(cell, grad_output):
    return (ops.ones_like(grad_output[0]),)


def _ca_backward_add(cell, grad_input, grad_output):
    return (grad_input[0] + grad_output[0],)


def _ca_forward_times3(cell, args, output):
    return output * 3


def _ca_hooked(*pre, backward=None, forward=None, removed=False):
    """_CaTimes5 over a _CaNet with these backward pre-hooks (and a backward / forward hook)."""
    inner = _CaNet()
    if forward is not None:
        inner.register_forward_hook(forward)
    handles = [inner.register_backward_pre_hook(h) for h in pre]
    if backward is not None:
        inner.register_backward_hook(backward)
    if removed:
        for h in handles:
            h.remove()
    return _CaTimes5(inner)


@cell("nn.Cell.register_backward_pre_hook", "nn.Cell.register_backward_hook", "ops.GradOperation", "nn.Cell",
      inputs=[rnd(3, 2, lo=0.5, hi=2.0)])
def cellapi_backward_pre_hook_then_backward_hook():
    return _CaGradOf(_ca_hooked(_ca_pre_times10, backward=_ca_backward_add))


@cell("nn.Cell.register_backward_pre_hook", "ops.GradOperation", "nn.Cell", inputs=[rnd(3, 2, lo=0.5, hi=2.0)])
def cellapi_backward_pre_hooks_in_order():
    return _CaGradOf(_ca_hooked(_ca_pre_none, _ca_pre_times10, _ca_pre_tensor))


@cell("nn.Cell.register_backward_pre_hook", "nn.Cell.register_forward_hook", "ops.GradOperation", "nn.Cell",
      inputs=[rnd(3, 2, lo=0.5, hi=2.0)])
def cellapi_backward_pre_hook_after_forward_hook():
    # the pre-hook replaces the gradient of the forward hook's output (x3 is outside it)
    return _CaGradOf(_ca_hooked(_ca_pre_ones, forward=_ca_forward_times3))


@cell("nn.Cell.register_backward_pre_hook", "ops.GradOperation", "nn.Cell", inputs=[rnd(3, 2, lo=0.5, hi=2.0)])
def cellapi_backward_pre_hook_removed():
    return _CaGradOf(_ca_hooked(_ca_pre_times10, removed=True))


@cell("nn.Cell.register_backward_pre_hook", "nn.Cell", inputs=[rnd(3, 2, lo=0.5, hi=2.0)])
def cellapi_backward_pre_hook_keeps_forward_value():
    return _ca_hooked(_ca_pre_times10)


def _ca_pre_two(cell, grad_output):
    return (grad_output[0], grad_output[0])


def _ca_pre_errors():
    net = _ca_hooked(_ca_pre_two)
    x = Tensor(np.ones((1, 2), np.float32))
    return error_words(lambda: _CaNet().register_backward_pre_hook(3)), error_words(lambda: _CaGradOf(net)(x))


_ca_host("backward_pre_hook_errors", "nn.Cell.register_backward_pre_hook", _ca_pre_errors)
