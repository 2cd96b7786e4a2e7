"""Run by test_changing_files.py in a child process (a SIGBUS must not take pytest with it):
iterate a dataset of DIR, shrink FILE to half after the first row, print what the rest raised."""
import os
import sys

import pycompile.dataset as ds

kind, directory, victim = sys.argv[1:4]
data = ds.MnistDataset(directory, usage="train", shuffle=False) if kind == "mnist" else \
    ds.Cifar10Dataset(directory, usage="train", shuffle=False)
it = data.create_tuple_iterator(output_numpy=True, num_epochs=1)
next(it)
size = os.path.getsize(victim)
os.truncate(victim, size // 2)
try:
    for _ in it:
        pass
    print("NO ERROR")
except Exception as e:      # noqa: BLE001 - what it raised is the output
    print(f"RAISED {type(e).__name__}: {e}")
