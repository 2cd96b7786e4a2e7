"""The conformance table: the dense optimizer Primitives of src/pycompile/ops/operations_optim_dense.py
(ApplyMomentum, SGD, Adam, AdamWeightDecay, AdamNoUpdateParam, ApplyRMSProp, ApplyCenteredRMSProp,
ApplyAdagradDA, ApplyAddSign, ApplyAdamWithAmsgradV2; ApplyKerasMomentum and LARSUpdate have no CPU
kernel in the wheel: tests/ops/test_optim_dense.py checks them against NumPy), each once on Parameters of its own, returning its outputs and then its slots' new
values (read after the update). Part of the table loaded after cases.py."""
group("optim_dense")


class _DenseOptNet(nn.Cell):
    def __init__(self, nesterov=False):
        super().__init__()
        rng = np.random.default_rng(11)
        for k in range(40):
            setattr(self, f"p{k}", Parameter(Tensor(rng.uniform(0.1, 1.0, (2, 3)).astype(np.float32)), name=f"p{k}"))
        self.stat = Parameter(Tensor(np.ones((2, 3), np.float32)), name="stat")
        self.stat2 = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="stat2")
        self.step = Parameter(Tensor(np.array(3, np.int64)), name="step")
        self.mom = ops.ApplyMomentum()      # the wheel's CPU kernel ignores use_nesterov: test_optim_dense.py
        self.sgd = ops.SGD(dampening=0.0 if nesterov else 0.1, weight_decay=0.01, nesterov=nesterov)
        self.adam = ops.Adam(use_nesterov=nesterov)
        self.adamw = ops.AdamWeightDecay()
        self.adam_noup = ops.AdamNoUpdateParam(use_nesterov=nesterov)
        self.rms, self.crms = ops.ApplyRMSProp(), ops.ApplyCenteredRMSProp()
        self.addsign = ops.ApplyAddSign()
        self.ams2 = ops.ApplyAdamWithAmsgradV2()

    def construct(self, g):
        s = Tensor(np.float32(0.01))
        out = (self.mom(self.p0, self.p1, s * 10, g, s * 90),
               self.sgd(self.p2, g, s * 10, self.p3, s * 90, self.stat),
               self.sgd(self.p4, g, s * 10, self.p5, s * 90, self.stat2),
               self.adam_noup(self.p12, self.p13, s * 90, s * 99.9, s, s * 90, s * 99.9, s * 1e-6, g),
               self.addsign(self.p24, self.p25, s * 10, s * 100, s * 50, s * 90, g),
               self.ams2(self.p28, self.p29, self.p30, self.p31, s * 90, s * 99.9, s, s * 90, s * 99.9, s * 1e-6, g))
        # the wheel's CPU kernels of these four return uninitialised memory (zeros or leftovers)
        # instead of the updated values: what they wrote into the Parameters is compared below
        self.adam(self.p6, self.p7, self.p8, s * 90, s * 99.9, s, s * 90, s * 99.9, s * 1e-6, g)
        self.adamw(self.p9, self.p10, self.p11, s, s * 90, s * 99.9, s * 1e-6, s, g)
        self.crms(self.p17, self.p18, self.p19, self.p20, g, s * 10, 0.9, 0.5, 1e-6)
        self.rms(self.p14, self.p15, self.p16, s * 10, g, 0.9, 0.5, 1e-6)
        params = (self.p0, self.p1, self.p2, self.p3, self.p4, self.p5, self.stat, self.p6, self.p7, self.p8,
                  self.p9, self.p10, self.p11, self.p12, self.p13, self.p14, self.p15, self.p16, self.p17, self.p18,
                  self.p19, self.p20, self.p24, self.p25, self.p28, self.p29,
                  self.p30, self.p31)
        return out, params


_OPTIMS = ("ops.ApplyMomentum", "ops.SGD", "ops.Adam", "ops.AdamWeightDecay", "ops.AdamNoUpdateParam",
           "ops.ApplyRMSProp", "ops.ApplyCenteredRMSProp", "ops.ApplyAddSign",
           "ops.ApplyAdamWithAmsgradV2")


@cell(*_OPTIMS, inputs=[rnd(2, 3, lo=-1.0, hi=1.0)])
def dense_optimizer_primitives():
    return _DenseOptNet()


@cell(*_OPTIMS, inputs=[rnd(2, 3, lo=-1.0, hi=1.0)])
def dense_optimizer_primitives_nesterov():
    return _DenseOptNet(nesterov=True)


@case("ops.SGD", inputs=[rnd(2, 3)], error=True, graph=False, reason="a constructor error")
def sgd_nesterov_needs_no_dampening(x):
    return ops.SGD(dampening=0.5, nesterov=True), x


class _AdagradDANet(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(3)
        self.var, self.ga, self.gsa = (Parameter(Tensor(rng.uniform(0.1, 1.0, (2, 3)).astype(np.float32)), name=n)
                                       for n in ("var", "ga", "gsa"))
        self.step = Parameter(Tensor(np.array(3, np.int64)), name="step")
        self.da = ops.ApplyAdagradDA()

    def construct(self, g):
        s = Tensor(np.float32(0.01))
        return self.da(self.var, self.ga, self.gsa, g, s * 10, s, s * 2, self.step), self.ga, self.gsa


@cell("ops.ApplyAdagradDA", inputs=[rnd(2, 3, lo=-1.0, hi=1.0)],
      oracle_bug="where grad_accum < -l1 * global_step the wheel's kernel shrinks it by l1 * global_step away "
                 "from 0 (ga - l1 gs) instead of towards 0 (sign(ga) max(|ga| - l1 gs, 0), its documented "
                 "formula, which pycompile follows: tests/ops/test_optim_dense.py)")
def adagrad_da():
    return _AdagradDANet()
