"""A MNIST or CIFAR-10 file that shrinks while a dataset iterates it gives a Python error naming
the file (reliability issue 31, item 9): the files were memory-mapped, and reading a row past
the new end killed the process with SIGBUS. Also: an MNIST header whose dimensions multiply past
2**64 is refused naming the file (it ended in NumPy's "array is too big")."""
import os
import struct
import subprocess
import sys

import pytest

import pycompile.dataset as ds

sys.path.insert(0, os.path.dirname(__file__))
import dataset_cases  # noqa: E402

DRIVER = os.path.join(os.path.dirname(__file__), "shrink_driver.py")


@pytest.mark.parametrize("kind", ["mnist", "cifar"])
def test_a_file_shrinking_under_the_reader_raises_naming_it(kind, tmp_path):
    if kind == "mnist":
        dataset_cases.write_mnist(str(tmp_path), n_train=40)
        victim = tmp_path / "train-images-idx3-ubyte"
    else:
        dataset_cases.write_cifar(str(tmp_path), n=40)
        victim = tmp_path / "data_batch_2.bin"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, DRIVER, kind, str(tmp_path), str(victim)], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.stdout.startswith("RAISED RuntimeError"), proc.stdout
    assert str(victim) in proc.stdout


def test_mnist_dimensions_past_2_64_name_the_file(tmp_path):
    dataset_cases.write_mnist(str(tmp_path))
    path = tmp_path / "train-images-idx3-ubyte"
    # 2**16 * 2**24 * 2**24 = 2**64: 0 in int64 arithmetic, so the file looked long enough
    path.write_bytes(struct.pack(">IIII", 2051, 2 ** 16, 2 ** 24, 2 ** 24) + b"\0" * 64)
    with pytest.raises(RuntimeError, match="shorter than its header says") as info:
        ds.MnistDataset(str(tmp_path), usage="train")
    assert str(path) in str(info.value)
