"""The conformance table: gradients ("autodiff" in API_USAGE.md) and training — optimizers
stepped on a small Dense network, the training wrappers, loss scaling, learning-rate schedules,
gradient clipping. Part of the table loaded after cases.py."""
group("autodiff")


def f_poly(x, y):
    return ops.sum(x * x * y + ops.sin(x))


def f_two_outputs(x):
    return ops.sum(ops.exp(x)), x * 2


def f_stopped(x, y):
    return ops.sum(x * ops.stop_gradient(x * y))


@case("ms.grad", inputs=[rnd(2, 3), rnd(2, 3)])
def grad_positions(x, y):
    return ms.grad(f_poly)(x, y), ms.grad(f_poly, grad_position=(0, 1))(x, y), ms.grad(f_poly, 1)(x, y)


@case("ms.grad", "ops.stop_gradient", inputs=[rnd(2, 3), rnd(2, 3)])
def grad_stop_gradient(x, y):
    return ms.grad(f_stopped, (0, 1))(x, y)


@case("ms.grad", inputs=[rnd(3)])
def grad_has_aux(x):
    return ms.grad(f_two_outputs, has_aux=True)(x)


@case("ms.value_and_grad", inputs=[rnd(2, 3), rnd(2, 3)])
def value_and_grad_fn(x, y):
    return ms.value_and_grad(f_poly)(x, y), ms.value_and_grad(f_poly, (0, 1))(x, y)


@case("ops.value_and_grad", "ops.grad", inputs=[rnd(2, 3), rnd(2, 3)])
def ops_value_and_grad(x, y):
    return ops.value_and_grad(f_poly, 1)(x, y), ops.grad(f_poly)(x, y)


@case("ops.GradOperation", inputs=[rnd(2, 3), rnd(2, 3)])
def grad_operation(x, y):
    return ops.GradOperation()(f_poly)(x, y), ops.GradOperation(get_all=True)(f_poly)(x, y)


def f_elementwise(a, b):
    return a * b + ops.exp(a)


@case("ops.GradOperation", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3)])
def grad_operation_sens(x, y, s):
    return ops.GradOperation(sens_param=True)(f_elementwise)(x, y, s)


W_NET = H.uniform((2, 3), -0.5, 0.5, seed=H.seed_of("W_NET"))
B_NET = np.array([0.1, -0.2], np.float32)


def small_net():
    return nn.Dense(3, 2, weight_init=Tensor(W_NET), bias_init=Tensor(B_NET))


class GradByWeights(nn.Cell):
    """The gradient of a Cell's loss with respect to its Parameters (a tuple per Parameter)."""

    def __init__(self, use_value_and_grad):
        super().__init__()
        self.net = small_net()
        self.weights = ms.ParameterTuple(self.net.trainable_params())
        self.use_value_and_grad = use_value_and_grad

    def loss(self, x, y):
        return ops.mean(ops.square(self.net(x) - y))

    def construct(self, x, y):
        if self.use_value_and_grad:
            return ms.value_and_grad(self.loss, None, self.weights)(x, y)
        return ops.GradOperation(get_by_list=True)(self.loss, self.weights)(x, y)


@cell("ms.value_and_grad", "nn.Cell", inputs=[rnd(4, 3), rnd(4, 2)])
def value_and_grad_weights():
    return GradByWeights(True)


@cell("ops.GradOperation", "ms.ParameterTuple", "nn.Cell", inputs=[rnd(4, 3), rnd(4, 2)])
def grad_operation_by_list():
    return GradByWeights(False)


# ==== training =======================================================================================
group("training")


class TrainSteps(nn.Cell):
    """Three steps of `TrainOneStepCell(WithLossCell(Dense, MSELoss), optimizer)`: the losses,
    then the Dense weight and bias after."""

    def __init__(self, make_optimizer, steps=3):
        super().__init__()
        self.net = small_net()
        self.step = nn.TrainOneStepCell(nn.WithLossCell(self.net, nn.MSELoss()), make_optimizer(self.net.trainable_params()))
        self.step.set_train()
        self.steps = steps

    def construct(self, x, y):
        losses = ()
        for _ in range(self.steps):
            losses = losses + (self.step(x, y),)
        return losses, self.net.weight + 0, self.net.bias + 0


OPTIMIZERS = {
    "SGD": lambda p: nn.SGD(p, learning_rate=0.1),
    "SGD_momentum_nesterov_wd": lambda p: nn.SGD(p, learning_rate=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Momentum": lambda p: nn.Momentum(p, learning_rate=0.1, momentum=0.9),
    "Momentum_wd": lambda p: nn.Momentum(p, learning_rate=0.05, momentum=0.8, weight_decay=0.1),
    "Adam": lambda p: nn.Adam(p, learning_rate=0.01),
    "Adam_wd": lambda p: nn.Adam(p, learning_rate=0.01, beta1=0.8, beta2=0.99, eps=1e-6, weight_decay=0.05),
    "AdamWeightDecay": lambda p: nn.AdamWeightDecay(p, learning_rate=0.01, weight_decay=0.1),
    "RMSProp": lambda p: nn.RMSProp(p, learning_rate=0.01),
    "RMSProp_centered_momentum": lambda p: nn.RMSProp(p, learning_rate=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda p: nn.Adagrad(p, learning_rate=0.1),
    "Lamb": lambda p: nn.Lamb(p, learning_rate=0.01),
    "FTRL": lambda p: nn.FTRL(p),
    "LARS": lambda p: nn.LARS(nn.Momentum(p, learning_rate=0.1, momentum=0.9)),
}
for _k, _make in OPTIMIZERS.items():
    _cls = "nn." + _k.split("_")[0]
    _names = (_cls, "nn.TrainOneStepCell", "nn.WithLossCell", "nn.MSELoss", "nn.Dense")
    if _k == "LARS":
        _names += ("nn.Momentum",)
    add(f"train_{_k}", _names, (lambda m: (lambda: TrainSteps(m)))(_make), [rnd(4, 3), rnd(4, 2)], kind="cell")


@cell("nn.Momentum", "nn.TrainOneStepCell", "nn.WithLossCell", "nn.MSELoss", "nn.Dense", "nn.PolynomialDecayLR",
      inputs=[rnd(4, 3), rnd(4, 2)])
def train_Momentum_lr_schedule():
    return TrainSteps(lambda p: nn.Momentum(p, nn.PolynomialDecayLR(0.1, 0.01, 2, 1.0), momentum=0.9))


@cell("nn.SGD", "nn.TrainOneStepCell", "nn.WithLossCell", "nn.MSELoss", "nn.Dense", "nn.piecewise_constant_lr",
      inputs=[rnd(4, 3), rnd(4, 2)])
def train_SGD_lr_list():
    return TrainSteps(lambda p: nn.SGD(p, learning_rate=nn.piecewise_constant_lr([1, 2, 3], [0.1, 0.05, 0.01])))


class LossScaleSteps(nn.Cell):
    """TrainOneStepWithLossScaleCell: (loss, overflow, scale) per step, then the weight."""

    def __init__(self, scale_sense, steps=2):
        super().__init__()
        self.net = small_net()
        loss_net = nn.WithLossCell(self.net, nn.MSELoss())
        self.step = nn.TrainOneStepWithLossScaleCell(loss_net, nn.SGD(self.net.trainable_params(), 0.1), scale_sense)
        self.step.set_train()
        self.steps = steps

    def construct(self, x, y):
        out = ()
        for _ in range(self.steps):
            out = out + (self.step(x, y),)
        return out, self.net.weight + 0


@cell("nn.TrainOneStepWithLossScaleCell", "nn.DynamicLossScaleUpdateCell", "nn.SGD", "nn.WithLossCell",
      inputs=[rnd(4, 3), rnd(4, 2)])
def train_dynamic_loss_scale():
    return LossScaleSteps(nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=1))


@cell("nn.TrainOneStepWithLossScaleCell", "nn.FixedLossScaleUpdateCell", "nn.SGD", "nn.WithLossCell",
      inputs=[rnd(4, 3), rnd(4, 2)])
def train_fixed_loss_scale():
    return LossScaleSteps(nn.FixedLossScaleUpdateCell(128.0))


@cell("nn.TrainOneStepWithLossScaleCell", "nn.DynamicLossScaleUpdateCell", "nn.SGD", "nn.WithLossCell",
      inputs=[np.array([[1e38, 1e38, 1e38]] * 4, np.float32), rnd(4, 2)])
def train_dynamic_loss_scale_overflow():
    return LossScaleSteps(nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=1000))


@case("ms.FixedLossScaleManager", "ms.DynamicLossScaleManager", graph=False,
      reason="loss-scale managers are Python objects configuring ms.Model")
def loss_scale_managers():
    f = ms.FixedLossScaleManager(256.0, drop_overflow_update=False)
    d = ms.DynamicLossScaleManager(init_loss_scale=1024, scale_factor=2, scale_window=10)
    return f.get_loss_scale(), f.get_drop_overflow_update(), d.get_loss_scale(), d.get_drop_overflow_update()


class EvalCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.eval_net = nn.WithEvalCell(small_net(), nn.MSELoss())

    def construct(self, x, y):
        return self.eval_net(x, y)


@cell("nn.WithEvalCell", "nn.MSELoss", "nn.Dense", inputs=[rnd(4, 3), rnd(4, 2)])
def with_eval_cell():
    return EvalCell()


@cell("nn.WithLossCell", "nn.MSELoss", "nn.Dense", inputs=[rnd(4, 3), rnd(4, 2)])
def with_loss_cell():
    return nn.WithLossCell(small_net(), nn.MSELoss())


# ---- learning-rate schedules -----------------------------------------------------------------------------
@case("nn.cosine_decay_lr", "nn.piecewise_constant_lr", graph=False, reason="Python lists of learning rates")
def lr_lists():
    return (nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2), nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]))


class LRSchedules(nn.Cell):
    def __init__(self):
        super().__init__()
        self.poly = nn.PolynomialDecayLR(0.1, 0.01, 5, 2.0)
        self.poly_upd = nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True)
        self.cos = nn.CosineDecayLR(0.01, 0.1, 4)
        self.warm = nn.WarmUpLR(0.1, 4)

    def construct(self, s0, s3, s10):
        return (self.poly(s0), self.poly(s3), self.poly(s10), self.poly_upd(s10), self.cos(s0), self.cos(s3),
                self.cos(s10), self.warm(s0), self.warm(s3), self.warm(s10))


@cell("nn.PolynomialDecayLR", "nn.CosineDecayLR", "nn.WarmUpLR", "nn.Cell",
      inputs=[np.array(0, np.int32), np.array(3, np.int32), np.array(10, np.int32)])
def lr_schedule_cells():
    return LRSchedules()


# ---- clipping --------------------------------------------------------------------------------------------
@cell("nn.ClipByNorm", inputs=[rnd(3, 4), np.array(1.0, np.float32)])
def clip_by_norm_cell():
    return nn.ClipByNorm()


@cell("nn.ClipByNorm", inputs=[rnd(3, 4), np.array(0.5, np.float32)],
      oracle_bug="with an axis the wheel scales row k by a norm mixing other rows (see lm_clip_by_norm_axis in "
                 "cases_layers.py and tests/nn/test_layers_more.py)")
def clip_by_norm_axis():
    return nn.ClipByNorm(axis=1)


class PlainSGD(nn.Optimizer):
    """A user's own optimizer on the nn.Optimizer base: get_lr(), the Parameters, assign."""

    def __init__(self, params, learning_rate):
        super().__init__(learning_rate, params)

    def construct(self, gradients):
        lr = self.get_lr()
        for p, g in zip(self.parameters, gradients):
            ops.assign(p, p - lr * g)
        return True


@cell("nn.Optimizer", "nn.TrainOneStepCell", "nn.WithLossCell", "nn.MSELoss", "nn.Dense", inputs=[rnd(4, 3), rnd(4, 2)])
def train_custom_optimizer():
    return TrainSteps(lambda p: PlainSGD(p, 0.1))


@case("ops.mixed_precision_cast", inputs=[rnd(2, 3), ints(2, 3, 0, 5)])
def mixed_precision_cast_nested(x, i):
    """Float tensors cast, in tuples and lists (a list comes back a tuple); ints and numbers kept."""
    return (ops.mixed_precision_cast(ms.float16, x), ops.mixed_precision_cast(ms.float16, (x, i, 3.5)),
            ops.mixed_precision_cast(ms.float16, [x * 2, (i, x)]),
            ops.mixed_precision_cast(ms.float32, ops.cast(x, ms.float16)))


# ---- issue 34: user-given gradients and the derived transforms ----------------------------------------

def _keep_grad(grads):
    return None


def _clip_grad(g):
    return ops.clip_by_value(g, -1.0, 1.0)


_HOOK_KEEP = ops.HookBackward(_keep_grad)
_CLIP = ops.InsertGradientOf(_clip_grad)


def f_hooked(x, y):
    z = _HOOK_KEEP(x * y)
    return ops.sum(z * z)


def f_clipped(x, y):
    z = _CLIP(x * y)
    return ops.sum(z * z)


@case("ops.HookBackward", "ms.grad", inputs=[rnd(2, 3), rnd(2, 3)])
def hook_backward_keeps_grad(x, y):
    return ms.grad(f_hooked, (0, 1))(x, y)


@case("ops.InsertGradientOf", "ms.grad", inputs=[rnd(2, 3), rnd(2, 3)])
def insert_gradient_of_clips(x, y):
    return ms.grad(f_clipped, (0, 1))(x, y)


@case("ops.vjp", "ops.jvp", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3)])
def vjp_and_jvp(x, y, v):
    out, fn = ops.vjp(f_poly, x, y)
    return out, fn(ops.ones_like(out)), ops.jvp(f_poly, (x, y), (v, v))


@case("ops.jacrev", "ops.jacfwd", inputs=[rnd(2, 3), rnd(2, 3)])
def jacobians(x, y):
    return ops.jacrev(f_poly, grad_position=(0, 1))(x, y), ops.jacfwd(f_poly, grad_position=(0, 1))(x, y)
