"""Schedules of mindspore.experimental.optim.lr_scheduler whose learning rates
record_lr_scheduler.py records from MindSpore 2.10 (its schedulers run on the CPU wheel) and
tests/train/test_experimental_optim.py compares: name -> (class, keyword arguments). Each runs on
an SGD of two groups (lr 0.1 and 0.05) for STEPS steps."""

STEPS = 8


def half_each_epoch(epoch):
    return 0.5 ** epoch


def ninety_percent(epoch):
    return 0.9


CASES = {
    "step": ("StepLR", dict(step_size=2, gamma=0.5)),
    "multistep": ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.1)),
    "exponential": ("ExponentialLR", dict(gamma=0.8)),
    "cosine": ("CosineAnnealingLR", dict(T_max=3, eta_min=0.01)),
    "linear": ("LinearLR", dict(start_factor=0.25, end_factor=0.75, total_iters=4)),
    "constant": ("ConstantLR", dict(factor=0.5, total_iters=3)),
    "lambda": ("LambdaLR", dict(lr_lambda=half_each_epoch)),
    "multiplicative": ("MultiplicativeLR", dict(lr_lambda=ninety_percent)),
    "polynomial": ("PolynomialLR", dict(total_iters=5, power=2.0)),
    "cyclic": ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3)),
    "cyclic_triangular2": ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, step_size_down=1,
                                            mode="triangular2")),
    "cyclic_exp_range": ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9)),
    "warm_restarts": ("CosineAnnealingWarmRestarts", dict(T_0=3, eta_min=0.001)),
    "warm_restarts_mult": ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=2)),
}

# ReduceLROnPlateau steps on a metric: each case takes METRICS in order (a plateau, an improvement,
# another plateau) after construction
METRICS = [1.0, 0.99995, 1.2, 1.0, 1.1, 0.5, 0.5, 0.5, 0.49, 0.7, 0.7, 0.7]
PLATEAU = {
    "plateau_min": dict(factor=0.5, patience=1),
    "plateau_max_abs_cooldown": dict(mode="max", factor=0.2, patience=1, threshold=0.05, threshold_mode="abs",
                                     cooldown=2, min_lr=[0.02, 0.001]),
}
# CosineAnnealingWarmRestarts stepped to explicit epochs
# (T_mult = 1: the wheel's step(epoch) with T_mult > 1 raises TypeError inside it, "Log.__call__() takes 2
# positional arguments"; tests/train/test_experimental_optim.py checks that case against stepping one by one)
EPOCHS = {"warm_restarts_epochs": (dict(T_0=3, eta_min=0.001), [1, 2, 5, 3, 7, 13, 0])}

# SequentialLR: (the schedulers as (class, keyword arguments), milestones), stepped STEPS + 4 times
SEQUENTIAL = {
    "sequential_doc": ([("ConstantLR", dict(factor=0.1, total_iters=2)), ("ExponentialLR", dict(gamma=0.9))], [2]),
    "sequential_three": ([("LinearLR", dict(start_factor=0.5, total_iters=3)), ("StepLR", dict(step_size=2, gamma=0.5)),
                          ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01))], [3, 6]),
    "sequential_poly_lambda": ([("PolynomialLR", dict(total_iters=4, power=2.0)),
                                ("LambdaLR", dict(lr_lambda=half_each_epoch))], [1]),
}
# step(epoch) of the schedules with a closed form (MultiStepLR's raises AttributeError in the wheel:
# its closed form reads a step_size it does not have; tests/train/test_experimental_optim.py checks
# pycompile's against PyTorch's documented rule)
JUMPS = {
    "jump_step": ("StepLR", dict(step_size=2, gamma=0.5)),
    "jump_exponential": ("ExponentialLR", dict(gamma=0.8)),
    "jump_cosine": ("CosineAnnealingLR", dict(T_max=3, eta_min=0.01)),
    "jump_linear": ("LinearLR", dict(start_factor=0.25, end_factor=0.75, total_iters=4)),
    "jump_constant": ("ConstantLR", dict(factor=0.5, total_iters=3)),
    "jump_polynomial": ("PolynomialLR", dict(total_iters=5, power=2.0)),
}
JUMP_EPOCHS = [3, 1, 6, 0, 2, 9]
