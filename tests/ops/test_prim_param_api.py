"""ops.Primitive's public methods (shard, recompute, set_stage, place, instance names, attribute tables) on
every class form pycompile has, and ms.Parameter's parallel / cache flags. The wheel's own outputs are the
conformance cases `primapi_*` (tests/conformance/cases_prim_param_api.py); these tests check what a table
of recorded outputs cannot: that every Primitive class gets the methods from the base class, and that an
annotated primitive or a flagged Parameter computes what the plain one does, eagerly, under ms.jit, in
GRAPH_MODE and through a gradient."""
import copy
import pickle

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.ops import operations as P
from pycompile.ops.primitive import Primitive

_METHODS = ("shard", "recompute", "set_stage", "place", "set_prim_instance_name", "set_instance_name", "add_attr",
            "del_attr", "del_prim_attr", "get_attr_dict", "add_prim_attr", "set_const_prim", "set_inplace_prim",
            "set_const_input_indexes", "set_user_data", "get_user_data", "check_elim", "update_parameter")


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _primitive_classes():
    """Every Primitive class ops / ops.operations export (hand-written, entry-generated, `_simple`)."""
    found = {}
    for mod in (ops, P):
        for name in dir(mod):
            obj = getattr(mod, name, None)
            if isinstance(obj, type) and issubclass(obj, Primitive):
                found[obj.__qualname__ + obj.__module__] = obj
    return sorted(found.values(), key=lambda c: (c.__module__, c.__qualname__))


def test_every_primitive_class_inherits_the_methods():
    classes = _primitive_classes()
    assert len(classes) > 500
    kinds = {"entry": 0, "simple": 0, "hand": 0}
    for cls in classes:
        for m in _METHODS:
            assert getattr(cls, m) is getattr(Primitive, m), f"{cls.__name__}.{m} is not the base class's"
        kinds["entry" if hasattr(cls, "entry") else "simple" if cls.__init__ is Primitive.__init__ else "hand"] += 1
    assert all(n > 50 for n in kinds.values()), kinds


def test_every_default_constructible_primitive_shards_and_recomputes():
    built = 0
    for cls in set(_primitive_classes()) | set(_subclasses(Primitive)):
        try:
            p = cls()
        except Exception:  # noqa: BLE001 - classes whose constructor needs arguments
            continue
        built += 1
        assert p.shard(((1,),)) is p and p.attrs["in_strategy"] == ((1,),) and p.in_strategy == ((1,),)
        assert p.recompute() is p and p.attrs["recompute"] is True
        assert p.set_stage(2) is p and p.stage == 2
        assert p.set_prim_instance_name("x") is p and p.instance_name == "x"
        assert p.get_attr_dict()["in_strategy"] == ((1,),)
    assert built > 400


def test_shard_layouts_hold_the_layout_dict_without_the_rank_list():
    lay = ms.Layout((2, 4), ("dp", "mp"), rank_list=[7, 6, 5, 4, 3, 2, 1, 0])
    mm = ops.MatMul().shard((lay("dp", "mp"), lay("mp", "None")), (lay("dp", "None"),))
    want = [{"device_matrix": (2, 4), "tensor_map": (1, 0), "interleaved_parallel": False, "alias_name": ("dp", "mp")},
            {"device_matrix": (2, 4), "tensor_map": (0, -1), "interleaved_parallel": False, "alias_name": ("dp", "mp")}]
    assert list(mm.in_layout) == want
    assert mm.out_layout == ({"device_matrix": (2, 4), "tensor_map": (1, -1), "interleaved_parallel": False,
                              "alias_name": ("dp", "mp")},)
    assert "in_strategy" not in mm.attrs and "rank_list" not in mm.in_layout[0]


def test_nested_layouts_only_for_the_ops_that_take_them():
    lay = ms.Layout((2, 2), ("dp", "mp"))
    custom = Primitive("GroupedMatmul")
    custom.shard(((lay("dp", "mp"), lay("mp", "None")), (lay("dp", "None"),)))
    assert len(custom.in_layout) == 2 and len(custom.in_layout[0]) == 2
    with pytest.raises(TypeError, match="the value of strategy must be int type"):
        ops.MatMul().shard(((lay("dp", "mp"),), lay("mp", "None")))


def test_shard_errors_keep_the_primitive_unchanged():
    p = ops.Add()
    for bad in ([(1, 1)], ((1.5, 1),), (1, 1)):
        with pytest.raises(TypeError):
            p.shard(bad)
    with pytest.raises(ValueError, match="need to set in_strategy"):
        p.shard(None, ((1, 1),))
    assert p.attrs == {} and p.get_attr_dict() == {}


def test_attribute_shadows_the_method_as_in_mindspore():
    relu = ops.ReLU().recompute()
    assert relu.recompute is True
    with pytest.raises(TypeError, match="not callable"):
        relu.recompute()


def test_unknown_attribute_and_copy_protocols():
    p = ops.MatMul(transpose_b=True).shard(((1, 2), (1, 2))).recompute()
    with pytest.raises(AttributeError, match="'MatMul' object has no attribute 'nope'"):
        p.nope
    assert not hasattr(p, "__setstate_x__")
    for q in (copy.deepcopy(p), copy.copy(p), pickle.loads(pickle.dumps(p))):
        assert q.in_strategy == ((1, 2), (1, 2)) and q.attrs["recompute"] is True and q.transpose_b is True
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(q(Tensor(a), Tensor(b)).asnumpy(), a @ b.T)


def test_place_and_parallel_modes():
    p = ops.Add()
    assert p.place("MS_WORKER", 3) is None and p.attrs == {"ms_role": "MS_WORKER", "rank_id": 3}
    ms.set_auto_parallel_context(parallel_mode="data_parallel")
    try:
        with pytest.raises(RuntimeError, match="Primitive.place mixed with other parallel features"):
            ops.Add().place("MS_WORKER", 0)
    finally:
        ms.reset_auto_parallel_context()


def test_place_in_a_scheduler_process_does_nothing(monkeypatch):
    monkeypatch.setenv("MS_ROLE", "MS_SCHED")
    p = ops.Add()
    assert p.place("anything", -1) is None and p.attrs == {}


# ---- values: annotated primitives compute what the plain ones do ----------------------------------------
_X = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], np.float32)
_W = np.array([[1.0, -2.0], [0.5, 0.25], [-1.0, 3.0]], np.float32)


def _annotated():
    lay = ms.Layout((2, 2), ("dp", "mp"))
    return (ops.MatMul().shard(((1, 2), (2, 1))).recompute().set_stage(1),
            ops.MatMul(transpose_b=True).shard((lay("dp", "mp"), lay("None", "mp"))),
            ops.ReLU().recompute(), ops.Addcmul().shard(((1, 1), (1, 1), (1, 1), (1, 1))),
            ops.Softmax().shard(((2, 1),)).recompute())


def _run(mm, mm_t, relu, addcmul, softmax, x, w):
    h = relu(mm(x, w))
    return h, mm_t(x, x), addcmul(x, x, x, ops.ones_like(x)), softmax(x)


def _reference(x, w):
    h = np.maximum(x @ w, 0)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return h, x @ x.T, x + x * x, e / e.sum(axis=-1, keepdims=True)


def _close(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


def test_annotated_primitives_eagerly():
    _close(_run(*_annotated(), Tensor(_X), Tensor(_W)), _reference(_X, _W))


def test_annotated_primitives_under_jit():
    prims = _annotated()
    compiled = ms.jit(lambda x, w: _run(*prims, x, w))
    _close(compiled(Tensor(_X), Tensor(_W)), _reference(_X, _W))

    def builds_inside(x, w):      # pycompile also runs the methods in graph code (MindSpore cannot)
        return ops.MatMul().shard(((1, 2), (2, 1))).recompute()(x, w)
    np.testing.assert_allclose(ms.jit(builds_inside)(Tensor(_X), Tensor(_W)).asnumpy(), _X @ _W, rtol=1e-6)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mm, self.mm_t, self.relu, self.addcmul, self.softmax = _annotated()
        self.w = Parameter(Tensor(_W), name="w", parallel_optimizer=False, layerwise_parallel=True)
        self.w.comm_fusion = 0
        self.w.parallel_optimizer_comm_recompute = True
        self.w.cache_enable = True
        self.w.add_pipeline_stage(1)

    def construct(self, x):
        return _run(self.mm, self.mm_t, self.relu, self.addcmul, self.softmax, x, self.w)


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_annotated_cell_in_both_modes(mode):
    ms.set_context(mode=getattr(ms, mode))
    _close(_Net()(Tensor(_X)), _reference(_X, _W))


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_gradients_through_recomputed_primitives_and_flagged_weights(mode):
    ms.set_context(mode=getattr(ms, mode))
    net = _Net()
    grad = ops.GradOperation(get_by_list=True)(lambda x: ops.sum(net(x)[0]), ms.ParameterTuple([net.w]))
    (g,) = grad(Tensor(_X))
    # d/dW sum(relu(x @ W)) = x^T @ (x @ W > 0)
    np.testing.assert_allclose(g.asnumpy(), _X.T @ ((_X @ _W) > 0).astype(np.float32), rtol=1e-6)


# ---- Parameter -----------------------------------------------------------------------------------------
def test_requires_grad_is_a_checked_property_that_trainable_params_reads():
    assert isinstance(Parameter.requires_grad, property)

    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(Tensor(np.ones(2, np.float32)), name="a")
            self.b = Parameter(Tensor(np.ones(2, np.float32)), name="b")

        def construct(self, x):
            return x * self.a * self.b

    net = Two()
    net.b.requires_grad = False
    assert [p.name for p in net.trainable_params()] == ["a"]
    with pytest.raises(TypeError, match="`requires_grad` must be bool type"):
        net.a.requires_grad = 1
    assert net.a.requires_grad is True


def test_flags_live_in_param_info_and_follow_a_cell_rename():
    p = Parameter(Tensor(np.ones(2, np.float32)))
    p.comm_fusion = 6

    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = p

        def construct(self, x):
            return x * self.weight

    Holder()
    assert p.name == "weight" and p.param_info.name == "weight" and p.param_info.comm_fusion == 6


def test_clone_copies_the_info_not_shares_it():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    p.cache_shape = [3, 2]
    c = p.clone()
    c.comm_fusion = 9
    c.param_info.cache_shape.append(1)
    assert p.comm_fusion == 1 and p.cache_shape == [3, 2]
    keys = [p.clone().key for _ in range(2)]
    assert keys == [-1, -1]                 # only cache-enabled clones get fresh keys
    p.cache_enable = True
    k1, k2 = p.clone().key, p.clone().key
    assert k2 == k1 + 1 and k1 >= 0


def test_a_parameter_made_without_init_has_the_default_flags():
    bare = Parameter.__new__(Parameter)
    assert bare.comm_fusion == 1 and bare.parallel_optimizer is True and bare.sliced is False
    assert bare.inited_param is None and bare.key == -1


def test_set_data_sets_sliced_from_its_argument():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    p.sliced = True
    p.set_data(Tensor(np.zeros(2, np.float32)))
    assert p.sliced is False
    p.set_data(Tensor(np.ones(2, np.float32)), slice_shape=True)
    assert p.sliced is True


def test_a_primitive_assigned_to_a_cell_attribute_takes_its_name():
    """MindSpore 2.10: `self.add = ops.Add()` in a Cell names the operator 'add' (instance_name)."""
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.add = ops.Add()
            self.mm = ops.MatMul().shard(((1, 1), (1, 1)))

    net = Net()
    assert (net.add.instance_name, net.mm.instance_name) == ("add", "mm")
    other = ops.Add()
    net.other = other
    assert other.instance_name == "other"
