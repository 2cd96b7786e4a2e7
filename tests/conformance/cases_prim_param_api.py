"""The conformance table: the public methods of ops.Primitive (shard with strategies or Layouts, recompute,
set_stage, place, instance names, the attribute tables, the compiler flags) on class forms of every kind,
and ms.Parameter's parallel / cache flags (defaults, setters' checks, what clone / copy / deepcopy / pickle
carry). A sharded, recomputed or staged primitive and a flagged Parameter compute what the plain ones do,
eagerly and in graph code. Ids start with ``primapi_``."""
import copy as _pa_copy
import pickle as _pa_pickle

group("prim_param_api")

_PA_HOST = dict(graph=False, reason="primitive and Parameter attributes are set and read on the host")
_PA_SHARD = "ops.Primitive.shard"


def _pa_case(name, names, fn):
    add(f"primapi_{name}", names, fn, **_PA_HOST)


def _pa_errors(names, **calls):
    """One case per call, each giving (exception class, first line) or 'no error'."""
    for name, fn in calls.items():
        _pa_case(name, names, lambda fn=fn: error_words(fn))


def _pa_attr(prim, key):
    return repr(prim.attrs[key]) if key in prim.attrs else "absent"


def _pa_layout():
    return ms.Layout((2, 2, 2), ("dp", "sp", "mp"))


# ---- shard ---------------------------------------------------------------------------------------------
def _pa_shard_tuple():
    mm = ops.MatMul()
    out = mm.shard(((1, 2), (2, 1)))
    return (out is mm, repr(mm.in_strategy), _pa_attr(mm, "in_strategy"), hasattr(mm, "out_strategy"),
            error_words(lambda: mm.out_strategy))


def _pa_shard_in_out():
    p = ops.Add()
    p.shard(((1, 1), (1, 1)), ((1, 1),))
    # MindSpore's get_attr_dict is a hash map: its order is not insertion order, so compared sorted
    return repr(p), repr(p.attrs), repr(p.out_strategy), repr(sorted(p.get_attr_dict().items()))


def _pa_shard_layout():
    lay = _pa_layout()
    mm = ops.MatMul().shard((lay("dp", "sp"), lay("sp", "mp")), (lay("dp", "mp"),))
    return _pa_attr(mm, "in_layout"), _pa_attr(mm, "out_layout"), repr(mm.in_layout), _pa_attr(mm, "in_strategy")


def _pa_shard_layout_kinds():
    inter = ms.Layout((2, 2), ("dp", "interleaved_parallel"))
    ranked = ms.Layout((2, 2), ("dp", "mp"), rank_list=[3, 2, 1, 0])
    lay = _pa_layout()
    return (_pa_attr(ops.MatMul().shard((inter("dp", "None"),)), "in_layout"),
            _pa_attr(ops.MatMul().shard((ranked("dp", "mp"),)), "in_layout"),
            _pa_attr(ops.MatMul().shard((lay(("dp", "sp"), "mp"), lay("mp", "None"))), "in_layout"))


def _pa_shard_empty():
    plain, empty, out_empty = ops.Add(), ops.Add().shard(()), ops.Add().shard(((1, 1),), ())
    layout_out = ops.MatMul().shard((), (_pa_layout()("dp", "mp"),))
    return (plain.shard() is plain, repr(plain.attrs), repr(empty), repr(out_empty.attrs),
            _pa_attr(layout_out, "in_layout"), _pa_attr(layout_out, "out_layout"),
            repr(ops.Add().shard(((), (1, 1))).attrs), repr(ops.Add().shard(((True, 1), (1, 1))).attrs))


def _pa_shard_again():
    twice = ops.Add().shard(((1, 1), (1, 1))).shard(((2, 1), (2, 1)))
    lay = _pa_layout()
    both = ops.MatMul().shard(((1, 1), (1, 1))).shard((lay("dp", "sp"), lay("sp", "mp")))
    return repr(twice.attrs), _pa_attr(both, "in_strategy"), _pa_attr(both, "in_layout")


def _pa_shard_mixed_tuple_first():
    # MindSpore decides by the first item: tuples, so the Layout is kept as it is in in_strategy
    mm = ops.MatMul().shard(((1, 2), _pa_layout()("sp", "mp")))
    return repr(mm.in_strategy[0]), type(mm.in_strategy[1]).__name__, "in_layout" in mm.attrs


_pa_case("shard_tuple", (_PA_SHARD, "ops.MatMul"), _pa_shard_tuple)
_pa_case("shard_in_out", (_PA_SHARD, "ops.Primitive.get_attr_dict", "ops.Add"), _pa_shard_in_out)
_pa_case("shard_layout", (_PA_SHARD, "ms.Layout", "ops.MatMul"), _pa_shard_layout)
_pa_case("shard_layout_kinds", (_PA_SHARD, "ms.Layout", "ops.MatMul"), _pa_shard_layout_kinds)
_pa_case("shard_empty", (_PA_SHARD, "ms.Layout", "ops.Add", "ops.MatMul"), _pa_shard_empty)
_pa_case("shard_again", (_PA_SHARD, "ms.Layout", "ops.Add", "ops.MatMul"), _pa_shard_again)
_pa_case("shard_mixed_tuple_first", (_PA_SHARD, "ms.Layout", "ops.MatMul"), _pa_shard_mixed_tuple_first)
_pa_errors(
    (_PA_SHARD, "ms.Layout", "ops.Add", "ops.MatMul"),
    shard_err_list=lambda: ops.Add().shard([(1, 1), (1, 1)]),
    shard_err_str=lambda: ops.Add().shard("ab"),
    shard_err_int_item=lambda: ops.Add().shard((1, 1)),
    shard_err_float_value=lambda: ops.Add().shard(((1.0, 1), (1, 1))),
    shard_err_nested_tuple=lambda: ops.Add().shard((((1,), 1), (1, 1))),
    shard_err_str_value=lambda: ops.Add().shard((("1", 1), (1, 1))),
    shard_err_out_list=lambda: ops.Add().shard(((1, 1), (1, 1)), [(1, 1)]),
    shard_err_out_int_item=lambda: ops.Add().shard(((1, 1), (1, 1)), (1,)),
    shard_err_out_without_in=lambda: ops.Add().shard(None, ((1, 1),)),
    shard_err_in_tuple_out_layout=lambda: ops.MatMul().shard(((1, 2), (2, 1)), (_pa_layout()("dp", "mp"),)),
    shard_err_in_layout_out_tuple=lambda: ops.MatMul().shard(
        (_pa_layout()("dp", "sp"), _pa_layout()("sp", "mp")), ((1, 1),)),
    shard_err_layout_then_tuple=lambda: ops.MatMul().shard((_pa_layout()("dp", "sp"), (2, 1))),
    shard_err_layout_not_called=lambda: ops.MatMul().shard((ms.Layout((2, 2), ("dp", "mp")),)))


# ---- recompute, set_stage, instance names --------------------------------------------------------------
def _pa_recompute():
    relu = ops.ReLU()
    out = relu.recompute()
    # as in MindSpore, the recorded attribute then shadows the method on the instance
    return (out is relu, _pa_attr(relu, "recompute"), relu.recompute is True, repr(ops.Add().recompute(False)),
            repr(ops.Add().shard(((1, 1), (1, 1))).recompute().set_stage(0).attrs))


def _pa_set_stage():
    p = ops.Add()
    return (p.set_stage(1) is p, repr(p), p.stage, repr(ops.Add().set_stage("a")), repr(ops.Add().set_stage(-1)),
            error_words(lambda: ops.Add().stage))


def _pa_instance_name():
    p = ops.Add()
    before = hasattr(p, "instance_name")
    out = p.set_prim_instance_name("add")
    q = ops.Add()
    return (before, out is p, p.instance_name, repr(p.attrs), repr(p.get_attr_dict()), repr(p),
            q.set_instance_name("x"), hasattr(q, "instance_name"))


_pa_case("recompute", ("ops.Primitive.recompute", "ops.Primitive.set_stage", "ops.ReLU", "ops.Add"), _pa_recompute)
_pa_case("set_stage", ("ops.Primitive.set_stage", "ops.Add"), _pa_set_stage)
_pa_case("instance_name", ("ops.Primitive.set_prim_instance_name", "ops.Primitive.set_instance_name", "ops.Add"),
         _pa_instance_name)
_pa_errors(("ops.Primitive.recompute", "ops.Add"),
           recompute_err_int=lambda: ops.Add().recompute(1),
           recompute_err_str=lambda: ops.Add().recompute("a"),
           recompute_err_none=lambda: ops.Add().recompute(None))
_pa_errors(("ops.Primitive.set_prim_instance_name", "ops.Primitive.set_instance_name", "ops.Add"),
           instance_name_err_int=lambda: ops.Add().set_prim_instance_name(3),
           instance_name_err_none=lambda: ops.Add().set_instance_name(None))


# ---- the attribute tables ------------------------------------------------------------------------------
def _pa_add_attr():
    p = ops.Add()
    r = p.add_attr("k", 3)
    return r is None, repr(p.attrs), repr(p.get_attr_dict()), p.k, repr(p), p.add_prim_attr("a", 1) is p, repr(p)


def _pa_del_prim_attr():
    p = ops.Add().add_prim_attr("x", 1)
    out = p.del_prim_attr("x")
    missing = p.del_prim_attr("nope") is p
    q = ops.Add()
    q.add_attr("y", 1)
    kept = q.del_prim_attr("y")       # only add_attr's table holds it: kept
    kept_dict = repr(q.get_attr_dict())
    gone = q.del_attr("y")
    r = ops.Add().add_prim_attr("k", 3)
    r.del_attr("k")
    return (out is p, repr(p.attrs), repr(p.get_attr_dict()), missing, kept is q, kept_dict, gone,
            repr(q.get_attr_dict()), error_words(lambda: q.y), repr(r.attrs), repr(r.get_attr_dict()), r.k,
            ops.Add().del_attr("zz"), repr(ops.Add().del_prim_attr(3)))


def _pa_attr_lookup():
    base = ops.Primitive("myop")
    return (base.name, repr(base.attrs), repr(base.shard(((2,),)).recompute()), error_words(lambda: base.foo),
            error_words(lambda: ops.Add().foo), repr(ops.Add().get_attr_dict()))


def _pa_set_device():
    p = ops.Add()
    return p.set_device("GPU") is p, p.primitive_target, repr(p.attrs), repr(p.get_attr_dict())


_pa_case("add_attr", ("ops.Primitive.add_attr", "ops.Primitive.get_attr_dict", "ops.Primitive.add_prim_attr",
                      "ops.Add"), _pa_add_attr)
_pa_case("del_prim_attr", ("ops.Primitive.del_prim_attr", "ops.Primitive.del_attr", "ops.Primitive.add_attr",
                           "ops.Primitive.get_attr_dict", "ops.Add"), _pa_del_prim_attr)
_pa_case("attr_lookup", ("ops.Primitive", _PA_SHARD, "ops.Primitive.recompute", "ops.Primitive.get_attr_dict",
                         "ops.Add"), _pa_attr_lookup)
_pa_case("set_device", ("ops.Primitive.set_device", "ops.Primitive.get_attr_dict", "ops.Add"), _pa_set_device)
_pa_errors(("ops.Primitive.add_attr", "ops.Primitive.del_attr", "ops.Primitive.set_device", "ops.Add"),
           add_attr_err_int_name=lambda: ops.Add().add_attr(1, 2),
           del_attr_err_int_name=lambda: ops.Add().del_attr(1),
           set_device_err_unknown=lambda: ops.Add().set_device("TPU"))


# ---- place -----------------------------------------------------------------------------------------------
def _pa_place():
    p = ops.Add()
    r = p.place("MS_WORKER", 1)
    return r is None, repr(p.attrs), p.ms_role, p.rank_id


def _pa_place_in_mode(mode):
    def run():
        ms.set_auto_parallel_context(parallel_mode=mode)
        try:
            return error_words(lambda: ops.Add().place("MS_WORKER", 0))
        finally:
            ms.reset_auto_parallel_context()
    return run


_pa_case("place", ("ops.Primitive.place", "ops.Add"), _pa_place)
_pa_errors(("ops.Primitive.place", "ops.Add"),
           place_err_negative=lambda: ops.Add().place("MS_WORKER", -1),
           place_err_float=lambda: ops.Add().place("MS_WORKER", 1.0),
           place_err_bool=lambda: ops.Add().place("MS_WORKER", True),
           place_err_role=lambda: ops.Add().place("MS_PSERVER", 0),
           place_err_role_int=lambda: ops.Add().place(1, 0),
           place_err_both=lambda: ops.Add().place("bad", -1))
for _pa_mode in ("data_parallel", "semi_auto_parallel", "hybrid_parallel", "auto_parallel", "stand_alone"):
    _pa_case(f"place_in_{_pa_mode}", ("ops.Primitive.place", "ops.Add", "ms.set_auto_parallel_context",
                                      "ms.reset_auto_parallel_context"), _pa_place_in_mode(_pa_mode))


# ---- compiler flags and user data ------------------------------------------------------------------------
def _pa_flags():
    p = ops.Add()
    return (p.set_const_prim(True), p.set_inplace_prim(True), p.set_const_input_indexes([0]),
            p.set_const_input_indexes((1,)), p.set_const_prim(None), p.set_inplace_prim(2.5),
            p.set_const_input_indexes([True, np.int64(1)]), repr(p.attrs), repr(p.get_attr_dict()),
            p.check_elim(1, 2), p.update_parameter, ops.Assign().update_parameter,
            isinstance(ops.Primitive.update_parameter, property))


def _pa_user_data():
    p = ops.Add()
    return p.set_user_data("k", [1, 2]), p.get_user_data("k"), repr(p.attrs), error_words(lambda: p.get_user_data("x"))


_pa_flags_names = ("ops.Primitive.set_const_prim", "ops.Primitive.set_inplace_prim",
                   "ops.Primitive.set_const_input_indexes", "ops.Primitive.check_elim",
                   "ops.Primitive.update_parameter", "ops.Add", "ops.Assign")
_pa_case("flags", _pa_flags_names, _pa_flags)
_pa_case("user_data", ("ops.Primitive.set_user_data", "ops.Primitive.get_user_data", "ops.Add"), _pa_user_data)
_pa_errors(_pa_flags_names,
           const_prim_err_str=lambda: ops.Add().set_const_prim("a"),
           inplace_prim_err_list=lambda: ops.Add().set_inplace_prim([1]),
           const_input_indexes_err_float=lambda: ops.Add().set_const_input_indexes([0.5]),
           const_input_indexes_err_str=lambda: ops.Add().set_const_input_indexes("a"))
_pa_errors(("ops.Primitive.set_user_data", "ops.Primitive.get_user_data", "ops.Add"),
           user_data_err_int_key=lambda: ops.Add().set_user_data(1, 2),
           get_user_data_err_int_key=lambda: ops.Add().get_user_data(1))


# ---- every kind of class form: the methods come from the base class, values unchanged ---------------------
_PA_CLASS_FORMS = (("Add", (), ((1, 1), (1, 1))), ("MatMul", (), ((1, 2), (2, 1))), ("ReLU", (), ((2, 1),)),
                   ("Addcmul", (), ((1, 1), (1, 1), (1, 1), (1, 1))), ("DivNoNan", (), ((1, 1), (1, 1))),
                   ("Softmax", (), ((2, 1),)), ("ReduceSum", (True,), ((2, 1),)), ("Concat", (1,), ((1, 1),)),
                   ("Cross", (), ((1, 1), (1, 1))), ("CumSum", (), ((2, 1),)), ("Sqrt", (), ((2, 1),)))


def _pa_class_forms():
    out = []
    for name, args, strategy in _PA_CLASS_FORMS:
        p = new(ops, name, *args)
        same = p.shard(strategy) is p and p.recompute() is p and p.set_stage(1) is p
        p.set_prim_instance_name(name.lower())
        out.append((name, same, _pa_attr(p, "in_strategy"), _pa_attr(p, "recompute"), _pa_attr(p, "stage"),
                    p.instance_name, repr(p.get_attr_dict().get("in_strategy"))))
    return tuple(out)


_pa_case("class_forms", (_PA_SHARD, "ops.Primitive.recompute", "ops.Primitive.set_stage",
                         "ops.Primitive.set_prim_instance_name", "ops.Primitive.get_attr_dict",
                         *(f"ops.{n}" for n, _, _ in _PA_CLASS_FORMS)), _pa_class_forms)


def _pa_annotated(name, *args, strategy):
    """The class form `ops.<name>(*args)`, sharded, recomputed and staged (built at load time: MindSpore's
    graph code cannot call these methods)."""
    p = new(ops, name, *args)
    for method, arg in (("shard", strategy), ("recompute", True), ("set_stage", 0)):
        if hasattr(p, method):
            p = getattr(p, method)(arg)
    return p


_PA_ANNOTATED = {name: _pa_annotated(name, *args, strategy=strategy) for name, args, strategy in _PA_CLASS_FORMS}
_PA_PLAIN = {name: new(ops, name, *args) for name, args, _ in _PA_CLASS_FORMS}


def _pa_run_all(table, x, y, z):
    return (table["Add"](x, z), table["MatMul"](x, y), table["ReLU"](x), table["Addcmul"](x, z, x, z),
            table["DivNoNan"](x, z), table["Softmax"](x), table["ReduceSum"](x, 1), table["Concat"]((x, z)),
            table["Cross"](x, z), table["CumSum"](x, 1), table["Sqrt"](ops.abs(x)))


@case(_PA_SHARD, "ops.Primitive.recompute", "ops.Primitive.set_stage", *(f"ops.{n}" for n, _, _ in _PA_CLASS_FORMS),
      "ops.abs", inputs=[rnd(2, 3), rnd(3, 2), rnd(2, 3, lo=0.5, hi=2.0)])
def primapi_annotated_values(x, y, z):
    # the annotated class forms, then the plain ones, on the same inputs
    return _pa_run_all(_PA_ANNOTATED, x, y, z), _pa_run_all(_PA_PLAIN, x, y, z)


# ---- in a Cell, eagerly and in GRAPH_MODE --------------------------------------------------------------
_PA_W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32)


class _PaNet(nn.Cell):
    """Sharded (strategies and Layouts), recomputed and staged primitives beside a flagged Parameter."""

    def __init__(self):
        super().__init__()
        lay = ms.Layout((2, 2), ("dp", "mp"))
        self.mm = ops.MatMul().shard(((1, 2), (2, 1)))
        self.mm_t = ops.MatMul(transpose_b=True).shard((lay("dp", "mp"), lay("None", "mp")))
        self.add = ops.Add().recompute()
        self.relu = ops.ReLU().set_stage(0)
        self.w = Parameter(Tensor(_PA_W), name="w", parallel_optimizer=False, layerwise_parallel=True)
        self.w.comm_fusion = 2
        self.w.parallel_optimizer_comm_recompute = True
        self.w.add_pipeline_stage(0)

    def construct(self, x):
        return self.relu(self.add(self.mm(x, self.w), 1.0)), self.mm_t(x, x)


@cell(_PA_SHARD, "ops.Primitive.recompute", "ops.Primitive.set_stage", "ms.Layout", "ops.MatMul", "ops.Add",
      "ops.ReLU", "ms.Parameter.parallel_optimizer", "ms.Parameter.layerwise_parallel", "ms.Parameter.comm_fusion",
      "ms.Parameter.parallel_optimizer_comm_recompute", "ms.Parameter.add_pipeline_stage", inputs=[rnd(2, 3)])
def primapi_cell_annotated():
    return _PaNet()


class _PaRecomputeGrad(nn.Cell):
    """MindSpore's documented recompute example: the gradient through a recomputed ReLU."""

    def __init__(self):
        super().__init__()
        self.relu = ops.ReLU().recompute()
        self.sqrt = ops.Sqrt()
        self.grad = ops.GradOperation()

    def net(self, x):
        return self.sqrt(self.relu(x))

    def construct(self, x):
        return self.grad(self.net)(x)


@cell("ops.Primitive.recompute", "ops.ReLU", "ops.Sqrt", "ops.GradOperation", inputs=[rnd(2, 3, lo=0.5, hi=2.0)])
def primapi_recompute_grad():
    return _PaRecomputeGrad()


class _PaTwoWeights(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor(_PA_W), name="w1")
        self.w2 = Parameter(Tensor(_PA_W[::-1].copy()), name="w2")
        self.w1.comm_fusion = 3
        self.w1.sliced = True
        self.w2.requires_grad = False          # the property: trainable_params() leaves it out

    def construct(self, x):
        return ops.sum(ops.matmul(x, self.w1) * ops.matmul(x, self.w2))


class _PaWeightGrads(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = _PaTwoWeights()
        self.params = ms.ParameterTuple(self.net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, self.params)(x)


@cell("ms.Parameter.requires_grad", "ms.Parameter.comm_fusion", "ms.Parameter.sliced", "ms.ParameterTuple",
      "ops.GradOperation", "ops.matmul", "ops.sum", inputs=[rnd(2, 3)])
def primapi_param_flags_grad():
    return _PaWeightGrads()


# ---- Parameter -----------------------------------------------------------------------------------------
_PA_PARAM_PROPS = ("requires_grad", "layerwise_parallel", "parallel_optimizer", "parallel_optimizer_comm_recompute",
                   "comm_fusion", "sliced", "key", "cache_enable", "cache_shape", "inited_param", "unique")


def _pa_param(name="p", **kw):
    return Parameter(Tensor(np.ones(2, np.float32)), name=name, **kw)


def _pa_flags_of(p):
    return tuple((n, repr(getattr(p, n))) for n in _PA_PARAM_PROPS)


def _pa_param_defaults():
    p = _pa_param()
    return _pa_flags_of(p) + (p.requires_aggr, p.is_in_parallel,
                              tuple(isinstance(getattr(Parameter, n), property) for n in _PA_PARAM_PROPS))


def _pa_param_info():
    p = _pa_param("info", requires_grad=False)
    p.comm_fusion, p.key, p.cache_enable, p.cache_shape = 5, 9, True, (4, 2)
    i = p.param_info
    return (i.name, i.requires_grad, i.layerwise_parallel, i.parallel_optimizer, i.parallel_optimizer_comm_recompute,
            i.comm_fusion, i.key, i.cache_enable, list(i.cache_shape), list(i.parameter_shape), i.storage_format,
            i.requires_aggr)


_PA_SETS = (("requires_grad", (False, 1, None, np.bool_(True))), ("layerwise_parallel", (True, 1, "x")),
            ("parallel_optimizer", (False, 0, np.bool_(False))),
            ("parallel_optimizer_comm_recompute", (True, 1, "x", None)),
            ("comm_fusion", (3, 0, -1, 1.5, True, np.int64(2), "2", None)), ("sliced", (True, 5, "x")),
            ("key", (2, -5, 1.0, True, "1")), ("cache_enable", (True, 1)),
            ("cache_shape", ([1, 2], (3,), 5, "ab", [], ())), ("unique", (True, 3)))


def _pa_set(prop, value):
    """The value read back after `p.<prop> = value`, or the error."""
    read = []

    def run():
        p = _pa_param("q")
        setattr(p, prop, value)
        read.append(repr(getattr(p, prop)))
    outcome = error_words(run)
    return read[0] if read else outcome


def _pa_param_ctor():
    return (_pa_flags_of(_pa_param(parallel_optimizer=False, layerwise_parallel=True, requires_grad=False)),
            error_words(lambda: _pa_param(requires_grad=1)), error_words(lambda: _pa_param(layerwise_parallel=1)),
            error_words(lambda: _pa_param(parallel_optimizer=0)))


def _pa_pipeline_stage():
    p = _pa_param()
    return (p.add_pipeline_stage(1), p.add_pipeline_stage(0), p.add_pipeline_stage(True),
            error_words(lambda: p.add_pipeline_stage(-1)), error_words(lambda: p.add_pipeline_stage(1.0)),
            error_words(lambda: p.add_pipeline_stage("1")))


def _pa_flagged():
    q = _pa_param("q", requires_grad=False, parallel_optimizer=False, layerwise_parallel=True)
    q.comm_fusion, q.sliced, q.key, q.cache_enable, q.cache_shape = 4, True, 7, True, [1, 2]
    q.parallel_optimizer_comm_recompute, q.unique = True, True
    return q


def _pa_carried(c):
    # a cache-enabled clone gets a new key from a process-wide counter: compared as 'new, non-negative'
    flags = tuple(item for item in _pa_flags_of(c) if item[0] != "key")
    return (type(c).__name__, c.name, c.key != 7 and c.key >= 0, c.key == 7) + flags + (c.asnumpy().tolist(),)


def _pa_param_clone():
    q = _pa_flagged()
    return _pa_carried(q.clone()), _pa_carried(q.copy()), _pa_carried(q.clone(init="zeros"))


def _pa_param_deepcopy_pickle():
    q = _pa_flagged()
    return _pa_carried(_pa_copy.deepcopy(q)), _pa_carried(_pa_pickle.loads(_pa_pickle.dumps(q)))


def _pa_param_in_semi_auto():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    try:
        inside = _pa_param().is_in_parallel
    finally:
        ms.reset_auto_parallel_context()
    return inside, _pa_param().is_in_parallel


def _pa_param_keeps_flags():
    q = _pa_flagged()
    q.set_data(Tensor(np.array([3.0, 4.0], np.float32)))
    return _pa_flags_of(q) + (repr(q), q.asnumpy().tolist())


_PA_PARAM_NAMES = tuple(f"ms.Parameter.{n}" for n in _PA_PARAM_PROPS)
_pa_case("param_defaults", _PA_PARAM_NAMES, _pa_param_defaults)
_pa_case("param_info", ("ms.Parameter.param_info", "ms.Parameter.comm_fusion", "ms.Parameter.key",
                        "ms.Parameter.cache_enable", "ms.Parameter.cache_shape"), _pa_param_info)
for _pa_prop, _pa_values in _PA_SETS:
    _pa_case(f"param_set_{_pa_prop}", (f"ms.Parameter.{_pa_prop}",),
             lambda _p=_pa_prop, _v=_pa_values: tuple(_pa_set(_p, v) for v in _v))
_pa_case("param_ctor_flags", _PA_PARAM_NAMES, _pa_param_ctor)
_pa_case("param_add_pipeline_stage", ("ms.Parameter.add_pipeline_stage",), _pa_pipeline_stage)
_pa_case("param_clone", _PA_PARAM_NAMES + ("ms.Parameter.clone", "ms.Parameter.copy"), _pa_param_clone)
_pa_case("param_deepcopy_pickle", _PA_PARAM_NAMES, _pa_param_deepcopy_pickle)
_pa_case("param_is_in_parallel", ("ms.Parameter", "ms.set_auto_parallel_context", "ms.reset_auto_parallel_context"),
         _pa_param_in_semi_auto)
_pa_case("param_set_data_keeps_flags", _PA_PARAM_NAMES + ("ms.Parameter.set_data",), _pa_param_keeps_flags)
