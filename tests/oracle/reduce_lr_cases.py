"""ReduceLROnPlateau cases: (constructor kwargs, monitored value per epoch, initial lr). Shared by
record_reduce_lr.py (MindSpore 2.10) and tests/train/test_reduce_lr_on_plateau.py."""
DOWN_THEN_FLAT = [1.0, 0.8, 0.8, 0.8, 0.8, 0.79995, 0.8, 0.8, 0.8, 0.8, 0.5, 0.5]
CASES = {
    "patience2": ({"patience": 2}, DOWN_THEN_FLAT, 0.1),
    "patience0": ({"patience": 0, "factor": 0.5}, DOWN_THEN_FLAT, 0.1),
    "cooldown": ({"patience": 1, "cooldown": 2, "factor": 0.5}, DOWN_THEN_FLAT, 0.1),
    "min_lr": ({"patience": 1, "factor": 0.5, "min_lr": 0.03}, DOWN_THEN_FLAT, 0.1),
    "max_mode": ({"monitor": "acc", "patience": 1, "factor": 0.5}, [0.5, 0.6, 0.6, 0.55, 0.7, 0.7, 0.7], 0.2),
    "min_delta": ({"patience": 1, "min_delta": 0.1, "factor": 0.5}, [1.0, 0.95, 0.85, 0.8, 0.6, 0.55], 0.1),
    "loss_monitor": ({"monitor": "loss", "patience": 1, "factor": 0.3}, [2.0, 1.5, 1.6, 1.7, 1.2, 1.3], 0.05),
    "zero_skipped": ({"patience": 1, "factor": 0.5}, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 0.1),
    "bad_factor": ({"factor": 1.5}, [1.0], 0.1),
    "bad_mode": ({"mode": "up"}, [1.0], 0.1),
    "bad_patience": ({"patience": -1}, [1.0], 0.1),
}
