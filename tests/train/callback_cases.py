"""Callback scenarios shared by record_callbacks.py (MindSpore's Model.train) and the pycompile
tests (a driver that replays Model.train's loop), NumPy / stdlib only."""

LOSSES = [0.1, 0.25, 1.5]          # one epoch = three steps whose net output is this value

OLD_HOOKS = ["begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end"]
NEW_HOOKS = ["on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
             "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
             "on_eval_step_end", "on_eval_epoch_end", "on_eval_end"]


def lr_function(lr, step):
    """Halve the learning rate on even steps."""
    return lr * 0.5 if step % 2 == 0 else lr


# Each scenario: ModelCheckpoint runs, one after the other, into one fresh directory.
CKPT_SCENARIOS = {
    "every_2_steps_keep_2": {"runs": [
        {"epochs": 2, "config": {"save_checkpoint_steps": 2, "keep_checkpoint_max": 2}}]},
    "end_saves_the_last_step": {"runs": [
        {"epochs": 1, "config": {"save_checkpoint_steps": 2, "keep_checkpoint_max": 5}}]},
    "second_run_same_prefix": {"runs": [
        {"epochs": 1, "config": {"save_checkpoint_steps": 3}},
        {"epochs": 1, "config": {"save_checkpoint_steps": 3}},
        {"epochs": 1, "config": {"save_checkpoint_steps": 3}}]},
    "other_prefix": {"runs": [
        {"epochs": 1, "prefix": "lenet", "config": {"save_checkpoint_steps": 3}},
        {"epochs": 1, "prefix": "le", "config": {"save_checkpoint_steps": 3}}]},
    "append_info": {"runs": [
        {"epochs": 2, "config": {"save_checkpoint_steps": 3,
                                 "append_info": ["epoch_num", "step_num", {"lr": 0.01, "tag": "run1"}]}}]},
    "keep_max_1": {"runs": [
        {"epochs": 2, "config": {"save_checkpoint_steps": 1, "keep_checkpoint_max": 1}}]},
}

CONFIG_ERRORS = {
    "all_zero": {"save_checkpoint_steps": 0, "keep_checkpoint_max": 0},
    "negative_steps": {"save_checkpoint_steps": -1},
    "append_info_not_list": {"append_info": "epoch_num"},
    "append_info_bad_name": {"append_info": ["epochs"]},
    "append_info_two_dicts": {"append_info": [{"a": 1}, {"b": 2}]},
    "ok_seconds": {"save_checkpoint_steps": None, "save_checkpoint_seconds": 10},
}

CONFIG_POLICIES = {
    "default": {},
    "steps_win_over_seconds": {"save_checkpoint_steps": 5, "save_checkpoint_seconds": 10},
    "minutes": {"keep_checkpoint_max": 0, "keep_checkpoint_per_n_minutes": 2},
    "no_keep_rule": {"keep_checkpoint_max": 0, "keep_checkpoint_per_n_minutes": 0, "save_checkpoint_steps": 3},
}
