"""Optimizer runs whose values tests/oracle/record_torch_optim.py records from torch (the PyTorch
algorithms mindspore.experimental.optim documents; MindSpore 2.10's CPU wheel cannot run their
steps) and tests/train/test_experimental_optim.py compares: name -> (class, group options, per-group
keyword arguments). Two Parameters, three steps with the gradients below."""
import numpy as np

W0 = [np.array([1.0, -2.0, 3.0], np.float32), np.array([[0.5, -0.25], [0.75, 2.0]], np.float32)]
GRADS = [[np.array([0.5, 0.1, -0.3], np.float32) * (k + 1) - 0.1 * k,
          np.array([[0.2, -0.4], [0.1, 0.3]], np.float32) * (1 - 0.5 * k)] for k in range(3)]

CASES = {
    "adamw": ("AdamW", None, dict(lr=0.1)),
    "adamw_wd_amsgrad": ("AdamW", None, dict(lr=0.05, weight_decay=0.1, amsgrad=True, betas=(0.8, 0.99))),
    "adam": ("Adam", None, dict(lr=0.05)),
    "adam_wd_maximize": ("Adam", None, dict(lr=0.05, weight_decay=0.1, maximize=True, eps=1e-6)),
    "sgd": ("SGD", None, dict(lr=0.1)),
    "sgd_momentum": ("SGD", None, dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov_wd": ("SGD", None, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "sgd_dampening": ("SGD", None, dict(lr=0.1, momentum=0.5, dampening=0.3)),
    "adamw_groups": ("AdamW", [dict(lr=0.2), dict(weight_decay=0.0)], dict(lr=0.1)),
}
