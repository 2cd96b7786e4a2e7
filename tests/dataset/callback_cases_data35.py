"""DSCallback cases (NumPy only) for tests/oracle/record_ds_callback_data35.py and
tests/dataset/test_ds_callback_data35.py: a map over NumpySlicesDataset(np.arange(rows)) with a
logging callback, iterated for some epochs; the log grouped by hook (MindSpore calls the step
hooks from worker threads, so only each hook's own sequence is ordered)."""
import numpy as np

CASES = {"step_1": (5, 1, 2), "step_2": (5, 2, 2), "step_3_three_epochs": (7, 3, 3), "step_10": (4, 10, 1)}
HOOKS = ("ds_begin", "ds_epoch_begin", "ds_epoch_end", "ds_step_begin", "ds_step_end")


def run(ds, case):
    rows, step_size, epochs = CASES[case]
    log = {h: [] for h in HOOKS}

    class Logger(ds.DSCallback):
        pass

    for hook in HOOKS:
        setattr(Logger, hook, lambda self, c, hook=hook: log[hook].append(
            [c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num]))
    d = ds.NumpySlicesDataset(np.arange(rows), ["x"], shuffle=False).map(lambda x: x,
                                                                          callbacks=[Logger(step_size=step_size)])
    it = d.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    for _ in range(epochs):
        for _row in it:
            pass
    return log
