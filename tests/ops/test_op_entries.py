"""The declarative op entries (pycompile/ops/entry.py, ops/entries/): one definition gives the
functional, Primitive and Tensor forms, checks arguments, carries its mixed-precision class, and
differentiates / batches / compiles through its decomposition. MindSpore's values for these ops
are in tests/conformance/cases_entries.py (recorded from the wheel); here: the mechanism, and the
ops whose MindSpore 2.10 CPU build has no kernel (fmin, the functional addcdiv / addcmul),
against NumPy as their documentation defines them."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import _mixed, entry
from pycompile.ops.entry import ENTRIES, Arg, op_entry


def _cases():
    return sorted(ENTRIES.values(), key=lambda e: e.name)


@pytest.mark.parametrize("e", _cases(), ids=lambda e: e.name)
def test_every_form_is_installed_where_mindspore_has_it(e):
    import pycompile.ops.function as function
    import pycompile.ops.functional as functional
    import pycompile.ops.operations.math_ops as math_ops
    if e.public:
        assert getattr(ops, e.name) is e.functional
        assert getattr(functional, e.name) is e.functional
        assert getattr(function, e.name) is e.functional
    else:
        assert not hasattr(ops, e.name)
    if e.primitive:
        assert getattr(ops, e.primitive) is e.primitive_cls
        assert getattr(ops.operations, e.primitive) is e.primitive_cls
        assert getattr(math_ops, e.primitive) is e.primitive_cls
        assert e.primitive in ops.operations.__all__
    if e.tensor_method:
        assert getattr(Tensor, e.tensor_method) is e.method


def test_a_name_is_declared_once():
    with pytest.raises(ValueError, match="declared twice"):
        op_entry("logaddexp", args=[Arg("input")])(lambda input: input)
    e = entry.Entry(name="add", impl=lambda input: input, args=(Arg("input"),), prim_name="Add",
                    primitive=None, tensor_method=None, amp=None, aliases=())
    e.functional = lambda input: input
    saved = dict(ENTRIES)
    ENTRIES.clear()
    ENTRIES["add"] = e
    try:
        with pytest.raises(ValueError, match="ops.add exists already"):
            entry.install({"add": ops.add})
    finally:
        ENTRIES.clear()
        ENTRIES.update(saved)


def test_arguments_are_bound_and_checked_with_mindspore_error_classes():
    x = Tensor(np.float32([1.0, 2.0]))
    with pytest.raises(TypeError, match="For 'Logaddexp'.*unexpected keyword"):
        ops.logaddexp(x, x, bogus=1)
    with pytest.raises(TypeError, match="For 'Hypot'.*missing"):
        ops.hypot(x)
    with pytest.raises(TypeError, match="must be a Tensor, but got <class 'list'>"):
        ops.sinc([1.0, 2.0])
    with pytest.raises(TypeError, match="should be one of"):
        ops.logit(Tensor(np.int32([1])))
    with pytest.raises(TypeError, match="For 'Hypot', too many positional"):
        ops.Hypot()(x, x, x)


def test_primitive_constructor_arguments_are_attributes():
    p = ops.Logit(eps=0.1)
    assert p.attrs == {"eps": 0.1} and p.name == "Logit"
    x = Tensor(np.float32([0.0, 0.5, 1.0]))
    np.testing.assert_allclose(p(x).asnumpy(), np.log(np.clip([0, 0.5, 1], 0.1, 0.9) / (1 - np.clip([0, 0.5, 1], 0.1, 0.9))),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="For 'Logit'"):
        ops.Logit(eps="a")


def test_mixed_precision_class_casts_inputs_under_amp_auto():
    seen = []

    def impl(input):
        seen.append(input.dtype)
        return input
    e_fn = op_entry("_test_full_precision", args=[Arg("input")], amp="full")(impl)
    try:
        x = Tensor(np.float16([1.0, 2.0]))
        _mixed.call(_mixed.AutoPolicy(ms.float16), (x,), {}, lambda a, k: e_fn(*a))
        e_fn(x)
        assert seen == [ms.float32, ms.float16]
    finally:
        del ENTRIES["_test_full_precision"]
        entry._NAMES.discard("_test_full_precision")


_A = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0, np.nan], np.float32)
_B = np.array([-0.0, 0.0, 2.0, -3.0, 1.0, np.nan, 1.0, np.nan, np.nan], np.float32)


def test_fmin_follows_mindspore_documentation_eager_and_compiled():
    # MindSpore 2.10's CPU wheel has no Fmin kernel; its documentation: the minimum, a NaN on one
    # side ignored (NumPy's fmin)
    want = np.fmin(_A, _B)
    got = ops.fmin(Tensor(_A), Tensor(_B)).asnumpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
    compiled = ms.jit(_fmin)(Tensor(_A), Tensor(_B)).asnumpy()
    np.testing.assert_array_equal(compiled.view(np.int32), got.view(np.int32))


def _fmin(a, b):
    return ops.fmin(a, b)


def _addc(x, a, b):
    return ops.addcdiv(x, a, b, value=0.5), ops.addcmul(x, a, b, value=-2), x.addcdiv(a, b), x.addcmul(a, b)


def test_addcdiv_addcmul_functional_forms_eager_and_compiled():
    rng = np.random.default_rng(0)
    x, a, b = (rng.uniform(0.5, 2, (3, 4)).astype(np.float32) for _ in range(3))
    want = (x + 0.5 * a / b, x - 2 * a * b, x + a / b, x + a * b)
    for got in (_addc(Tensor(x), Tensor(a), Tensor(b)), ms.jit(_addc)(Tensor(x), Tensor(a), Tensor(b))):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)


def _loss(x, y):
    return ops.sum(ops.logaddexp(x, y) * ops.hypot(x, y) + ops.sinc(x) * ops.xlogy(y, y + 3.0))


@pytest.mark.cc
def test_gradient_through_decompositions_matches_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (3, 4))
    y = rng.uniform(-2, 2, (3, 4))
    g_eager = ms.grad(_loss, grad_position=(0, 1))(Tensor(x), Tensor(y))
    g_graph = ms.jit(ms.grad(_loss, grad_position=(0, 1)))(Tensor(x), Tensor(y))
    f = lambda a, b: float(_loss(Tensor(a), Tensor(b)).asnumpy())  # noqa: E731
    h = 1e-6
    for i, (arr, other) in enumerate(((x, y), (y, x))):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            p, m = arr.copy(), arr.copy()
            p[idx] += h
            m[idx] -= h
            num[idx] = (f(p, other) - f(m, other)) / (2 * h) if i == 0 else (f(other, p) - f(other, m)) / (2 * h)
        np.testing.assert_allclose(g_eager[i].asnumpy(), num, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g_graph[i].asnumpy(), num, rtol=1e-5, atol=1e-6)


def test_vmap_of_an_entry_equals_the_loop():
    rng = np.random.default_rng(2)
    x = rng.uniform(-3, 3, (5, 4)).astype(np.float32)
    y = rng.uniform(-3, 3, (5, 4)).astype(np.float32)
    got = ops.vmap(ops.logaddexp)(Tensor(x), Tensor(y)).asnumpy()
    want = np.stack([ops.logaddexp(Tensor(a), Tensor(b)).asnumpy() for a, b in zip(x, y)])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, np.logaddexp(x, y), rtol=1e-5)


def _graph_error(x):
    return ops.hypot(x, x)


def test_an_argument_error_in_graph_code_names_the_users_line():
    with pytest.raises(TypeError) as info:
        ms.jit(_graph_error)(Tensor(np.int32([1, 2])))
    assert "test_op_entries.py" in str(info.value) and "Hypot" in str(info.value)


def test_entries_carry_mindspore_amp_auto_classes():
    # MindSpore 2.10's amp 'auto' promote list names Addcdiv, Addcmul, Cross; its white list names
    # Addmm, Addmv, Addbmm, but the wheel's ops.addmm & co. are compositions whose float32 input
    # keeps the result float32 (tests/oracle/data/amp_auto_ops.json): no class of their own, their
    # product's MatMul reads float16 (tests/train/test_amp_auto_ops.py checks values and dtypes)
    assert {n: ENTRIES[n].amp for n in ("addmm", "addmv", "addbmm", "addcdiv", "addcmul", "cross")} == {
        "addmm": None, "addmv": None, "addbmm": None, "addcdiv": "promote", "addcmul": "promote", "cross": "promote"}
    a = Tensor(np.ones((2, 2), np.float32))
    h = Tensor(np.ones((2, 2), np.float16))
    out = _mixed.call(_mixed.AutoPolicy(ms.float16), (a, h), {}, lambda args, k: (ops.addmm(args[0], args[0], args[0]),
                                                                                   ops.addcmul(args[0], args[1], args[1])))
    assert out[0].dtype == ms.float32 and out[1].dtype == ms.float32
