"""The conformance table: MindSpore 2.10 names that were missing (src/pycompile/ops/entries/prim36.py):
the fused optimizer Primitives FusedCastAdamWeightDecay and FusedWeightScaleApplyMomentum, and the
small utility Primitives ScalarCast, TensorToTuple, MapUniform.

The optimizer cases compare the Parameters after the update (what the Primitive wrote), as
cases_optim_dense.py does: the wheel's FusedCastAdamWeightDecay kernel returns uninitialised
outputs (zeros) while it writes the right values into var, m and v. FusedWeightScaleApplyMomentum
has no CPU kernel in the wheel: its value case records that (and is skipped) and
tests/ops/test_prim36.py checks the formula against NumPy. Part of the table loaded after cases.py."""
group("prim36")


# ---- FusedCastAdamWeightDecay -------------------------------------------------------------------------
class _FusedCastAdamNet(nn.Cell):
    def __init__(self, var_dtype, lr, decay, norm):
        super().__init__()
        rng = np.random.default_rng(5)
        self.var = Parameter(Tensor(rng.uniform(0.1, 1.0, (2, 3)).astype(var_dtype)), name="var")
        self.m = Parameter(Tensor(rng.uniform(-0.5, 0.5, (2, 3)).astype(np.float32)), name="m")
        self.v = Parameter(Tensor(rng.uniform(0.1, 1.0, (2, 3)).astype(np.float32)), name="v")
        self.opt = ops.FusedCastAdamWeightDecay()
        self.lr, self.decay, self.norm = lr, decay, norm

    def construct(self, g):
        # the wheel's outputs are uninitialised memory (zeros): only the Parameters are compared
        self.opt(self.var, self.m, self.v, self.lr, 0.9, 0.999, 1e-6, self.decay, g, self.norm)
        return self.var, self.m, self.v


@cell("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3, lo=-2.0, hi=2.0, dtype="float16")])
def fused_cast_adam_fp16(*_):
    return _FusedCastAdamNet(np.float16, 0.01, 0.1, 2.0)


@cell("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3, lo=-2.0, hi=2.0, dtype="float16")])
def fused_cast_adam_fp32_no_decay(*_):
    return _FusedCastAdamNet(np.float32, 0.05, 0.0, 1.0)


@cell("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3, lo=-2.0, hi=2.0)])
def fused_cast_adam_fp32_grad_negative_decay(*_):
    return _FusedCastAdamNet(np.float32, 0.05, -0.5, 0.5)


def _fcadam_params(var, m=None, v=None):
    return (Parameter(var, name="var"), Parameter(m if m is not None else ops.ones(var.shape, ms.float32), name="m"),
            Parameter(v if v is not None else ops.ones(var.shape, ms.float32), name="v"))


@case("ops.FusedCastAdamWeightDecay", inputs=[ints(2, 3), rnd(2, 3)], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_cast_adam_int_var(x, g):
    var, m, v = _fcadam_params(x)
    return ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.0, g, 1.0)


@case("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3), rnd(2, 3, dtype="float64")], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_cast_adam_f64_grad(x, g):
    var, m, v = _fcadam_params(x)
    return ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.0, g, 1.0)


@case("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3), rnd(3, 2)], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_cast_adam_grad_shape(x, g):
    var, m, v = _fcadam_params(x)
    return ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.0, g, 1.0)


@case("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3), rnd(2, 3)], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_cast_adam_m_shape(x, g):
    var, m, v = _fcadam_params(x, m=ops.ones((3,), ms.float32))
    return ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.0, g, 1.0)


@case("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3), rnd(2, 3)], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_cast_adam_m_int(x, g):
    var, m, v = _fcadam_params(x, m=ops.ones((2, 3), ms.int32))
    return ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.0, g, 1.0)


@case("ops.FusedCastAdamWeightDecay", inputs=[rnd(2, 3)], error=True, graph=False, reason="a constructor error")
def fused_cast_adam_use_locking(x):
    return ops.FusedCastAdamWeightDecay(use_locking=1), x


# ---- FusedWeightScaleApplyMomentum --------------------------------------------------------------------
class _FusedWSMomNet(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(7)
        self.var = Parameter(Tensor(rng.uniform(0.1, 1.0, (2, 3)).astype(np.float32)), name="var")
        self.acc = Parameter(Tensor(rng.uniform(-0.5, 0.5, (2, 3)).astype(np.float32)), name="acc")
        self.opt = ops.FusedWeightScaleApplyMomentum()

    def construct(self, g):
        f = lambda v: Tensor(np.float32(v))                 # noqa: E731
        out = self.opt(f(0.01), f(0.5), self.var, self.acc, f(0.1), g, f(0.9))
        return out, self.var, self.acc


@cell("ops.FusedWeightScaleApplyMomentum", inputs=[rnd(2, 3, lo=-1.0, hi=1.0)])
def fused_weight_scale_momentum(*_):
    return _FusedWSMomNet()


@case("ops.FusedWeightScaleApplyMomentum", inputs=[ints(2, 3), ints(2, 3), rnd(2, 3)], error=True, graph=False,
      reason="the case creates its Parameters (not in graph code)")
def fused_weight_scale_momentum_int_var(x, a, g):
    s = Tensor(np.float32(0.5))
    return ops.FusedWeightScaleApplyMomentum()(s, s, Parameter(x, name="var"), Parameter(a, name="acc"), s, g, s)


@case("ops.FusedWeightScaleApplyMomentum", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3, dtype="float64")], error=True,
      graph=False, reason="the case creates its Parameters (not in graph code)")
def fused_weight_scale_momentum_f64_grad(x, a, g):
    s = Tensor(np.float32(0.5))
    return ops.FusedWeightScaleApplyMomentum()(s, s, Parameter(x, name="var"), Parameter(a, name="acc"), s, g, s)


# ---- ScalarCast ---------------------------------------------------------------------------------------
@case("ops.ScalarCast", inputs=[rnd(2)])
def scalar_cast_forms(x):
    c = ops.ScalarCast()
    return c(255.7, ms.int64), c(-3.9, ms.int64), c(3, ms.float64), c(0, ms.bool_), c(2.5, ms.bool_), x


@case("ops.ScalarCast", inputs=[rnd(2)], error=True)
def scalar_cast_float32(x):
    return ops.ScalarCast()(3, ms.float32), x


@case("ops.ScalarCast", inputs=[rnd(2)], error=True)
def scalar_cast_int32(x):
    return ops.ScalarCast()(3.5, ms.int32), x


# ---- TensorToTuple ------------------------------------------------------------------------------------
@case("ops.TensorToTuple", inputs=[rnd(4), ints(3)])
def tensor_to_tuple_forms(x, i):
    return ops.TensorToTuple()(x), ops.TensorToTuple()(i)


@case("ops.TensorToTuple", "ops.functional.TensorToTuple", inputs=[rnd(1)])
def tensor_to_tuple_one(x):
    return ops.TensorToTuple()(x), ops.functional.TensorToTuple()(x)


@case("ops.TensorToTuple", inputs=[rnd(2, 2)], error=True,
      trust_graph="the wheel's PyNative TensorToTuple returns None for a 2-D Tensor; its documentation and its "
                  "GRAPH_MODE raise ValueError")
def tensor_to_tuple_2d(x):
    return ops.TensorToTuple()(x)


@case("ops.TensorToTuple", inputs=[rnd(2)], error=True,
      oracle_bug="the wheel returns None for a tuple in PyNative and fails in GRAPH_MODE with 'GetShapeVector() "
                 "doesn't implement'; its documentation says TypeError (tests/ops/test_prim36.py)")
def tensor_to_tuple_not_tensor(x):
    return ops.TensorToTuple()((1, 2)), x


# ---- MapUniform ---------------------------------------------------------------------------------------
@case("ops.MapUniform", inputs=[np.arange(8, dtype=np.int32), np.arange(12, dtype=np.int64)])
def map_uniform_doc(x, y):
    return ops.MapUniform()(x, 4, 2), ops.MapUniform()(y, 3, 4), ops.MapUniform()(y, 4, 5)


@case("ops.MapUniform", inputs=[rnd(8)], error=True)
def map_uniform_float(x):
    return ops.MapUniform()(x, 4, 2)


@case("ops.MapUniform", inputs=[np.arange(8, dtype=np.int32)], error=True)
def map_uniform_float_group(x):
    return ops.MapUniform()(x, 4.0, 2)


# ---- multi_scale_deformable_attn_function -------------------------------------------------------------
def _msda_inputs(dtype="float32", ed=8, shape_dtype=np.int32):
    shapes = np.array([[3, 4], [2, 2]], shape_dtype)
    return [rnd(2, 16, 2, ed, dtype=dtype), shapes, np.array([0, 12], shape_dtype),
            rnd(2, 3, 2, 2, 4, 2, lo=-0.1, hi=1.1, dtype=dtype), rnd(2, 3, 2, 2, 4, lo=0.0, hi=1.0, dtype=dtype)]


# no CPU kernel in the wheel (and no argument check before the kernel lookup): the values and the
# documented RuntimeErrors are checked against NumPy in tests/ops/test_prim36.py
@case("ops.multi_scale_deformable_attn_function", inputs=_msda_inputs())
def msda_forms(v, s, o, loc, w):
    return ops.multi_scale_deformable_attn_function(v, s, o, loc, w)


@case("ops.multi_scale_deformable_attn_function", inputs=_msda_inputs(), error=True)
def msda_shape_not_tensor(v, s, o, loc, w):
    return ops.multi_scale_deformable_attn_function(v, ((3, 4), (2, 2)), o, loc, w)


@case("ops.multi_scale_deformable_attn_function", inputs=_msda_inputs(), error=True)
def msda_value_not_tensor(v, s, o, loc, w):
    return ops.multi_scale_deformable_attn_function(1.0, s, o, loc, w)


# ---- ScalarToArray / scalar_to_array ------------------------------------------------------------------
_STA_BUG = ("the wheel cannot run ScalarToArray in either mode ('prim:ScalarToArray has no attr:__infer__', "
            "'no matching evaluator'); tests/ops/test_prim36.py checks the documented 0-D Tensor")


@case("ops.ScalarToArray", inputs=[rnd(2)], oracle_bug=_STA_BUG)
def scalar_to_array_forms(x):
    return ops.ScalarToArray()(2), ops.ScalarToArray()(2.5), x


@case("ops.functional.scalar_to_array", inputs=[rnd(2)], oracle_bug=_STA_BUG)
def scalar_to_array_functional(x):
    return ops.functional.scalar_to_array(3), x + ops.functional.scalar_to_array(1.5)


# ---- string_concat / string_eq ------------------------------------------------------------------------
@case("ops.functional.string_concat", "ops.functional.string_eq", inputs=[rnd(2)])
def string_ops_forms(x):
    F = ops.functional
    s = F.string_concat("ab", "cd")
    return s, F.string_eq(s, "abcd"), F.string_eq("a", "b"), x


@case("ops.functional.string_concat", inputs=[rnd(2)], error=True)
def string_concat_not_str(x):
    return ops.functional.string_concat("ab", 1), x


# ---- typeof / hastype ---------------------------------------------------------------------------------
@case("ops.functional.typeof", "ops.functional.hastype", inputs=[rnd(2), ints(2)])
def typeof_hastype_forms(x, i):
    F = ops.functional
    return (F.hastype(x, ms.tensor_type), F.hastype(1, ms.int64), F.hastype(1.5, ms.int64),
            F.typeof(x) == F.typeof(x), F.typeof(x) == F.typeof(i), x)


# ---- TensorDump / tensordump --------------------------------------------------------------------------
# the wheel dumps in PyNative only (no CPU kernel in GRAPH_MODE): compiled code is held to the
# PyNative values; tests/ops/test_prim36.py checks the files both modes write
@case("ops.TensorDump", inputs=[rnd(2, 3)])
def tensor_dump_prim(x):
    ops.TensorDump()("/tmp/pycompile_conformance_tensordump/prim", x)
    return x + 1


@case("ops.functional.tensordump", inputs=[rnd(2, 3)])
def tensordump_functional(x):
    ops.functional.tensordump("/tmp/pycompile_conformance_tensordump/fn", x * 2)
    return x


@case("ops.TensorDump", inputs=[rnd(2, 3)], error=True)
def tensor_dump_file_not_str(x):
    ops.TensorDump()(1, x)
    return x


@case("ops.functional.tensordump", inputs=[rnd(2, 3)], error=True)
def tensordump_file_not_str(x):
    ops.functional.tensordump(1, x)
    return x


@case("ops.functional.tensordump", inputs=[rnd(2, 3)], error=True)
def tensordump_bad_mode(x):
    ops.functional.tensordump("/tmp/pycompile_conformance_tensordump/bad", x, "all")
    return x


@case("ops.TensorDump", inputs=[rnd(2, 3)], error=True)
def tensor_dump_bad_mode(x):
    ops.TensorDump(input_output="all")("/tmp/pycompile_conformance_tensordump/bad", x)
    return x


# ---- Morph --------------------------------------------------------------------------------------------
# MindSpore runs Morph only in GRAPH_MODE: its PyNative call raises RuntimeError (recorded)
def _morph_infer(*args):
    return args[0]


def _morph_mul_by(k):
    def inner(x):
        return k * x
    return inner


def _morph_scaled_bprop(x, out, dout):
    return (dout * 3.0,)


class _MorphNet(nn.Cell):
    def __init__(self, bprop=False):
        super().__init__()
        self.weight0 = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="weight0")
        self.weight1 = Parameter(Tensor(np.array([4.0, 5.0, 6.0], np.float32)), name="weight1")
        self.mul_by_100 = ops.Morph(_morph_mul_by(100), _morph_infer, _morph_infer,
                                    _morph_scaled_bprop if bprop else None)

    def construct(self, x):
        return self.mul_by_100(x * self.weight0) * self.weight1


class _MorphGrad(nn.Cell):
    def __init__(self, bprop=False):
        super().__init__()
        self.net = _MorphNet(bprop)
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)
        self.params = self.net.trainable_params()

    def construct(self, x):
        return self.grad(self.net, self.params)(x)


@cell("ops.Morph", inputs=[np.array([7.0, 8.0, 9.0], np.float32)])
def morph_doc_forward():
    return _MorphNet()


@cell("ops.Morph", "ops.GradOperation", inputs=[np.array([7.0, 8.0, 9.0], np.float32)])
def morph_doc_grad():
    return _MorphGrad()


@cell("ops.Morph", "ops.GradOperation", inputs=[np.array([7.0, 8.0, 9.0], np.float32)])
def morph_bprop_grad():
    return _MorphGrad(bprop=True)


def _morph_varargs(*a):
    return a[0]


@case("ops.Morph", inputs=[rnd(3)], error=True, graph=False, reason="a constructor error")
def morph_bprop_fn_varargs(x):
    return ops.Morph(_morph_varargs, _morph_infer, _morph_infer, _morph_scaled_bprop), x
