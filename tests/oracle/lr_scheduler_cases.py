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
}
