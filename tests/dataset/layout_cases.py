"""Folder layouts for the file datasets, built once (NumPy / stdlib only) for
tests/oracle/record_file_layouts.py (MindSpore's venv) and tests/dataset/test_file_layouts.py.

Each case is a list of (relative path, writer) and the dataset calls made on it. Writers take a
record count so MindSpore (which insists on 10000 CIFAR-10 records per file, 50000 / 10000 for
CIFAR-100) and the tests (20 records) read files that begin with the same rows."""
import os
import shutil
import struct

import numpy as np

import dataset_cases


def mnist_files(directory, prefix, n, seed, images_name=None, labels_name=None):
    images, labels = dataset_cases.mnist_arrays(n, seed)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, images_name or f"{prefix}-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with open(os.path.join(directory, labels_name or f"{prefix}-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def cifar100_records(n, seed):
    """n CIFAR-100 records (coarse label, fine label, 3072 image bytes) whose bytes depend only on
    (index, seed)."""
    rec = np.zeros((n, 3074), np.uint8)
    rec[:, 0] = (np.arange(n) * 3 + seed) % 20
    rec[:, 1] = (np.arange(n) * 11 + seed * 7) % 100
    rec[:, 2:] = ((np.arange(n * 3072, dtype=np.int64).reshape(n, 3072) * 17 + seed * 3) % 253).astype(np.uint8)
    return rec


def small_images(directory, images_name, labels_name):
    """Three 2 x 2 images and their labels (MindSpore reads 28 x 28 only)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, images_name), "wb") as f:
        f.write(struct.pack(">IIII", 2051, 3, 2, 2) + bytes(range(12)))
    with open(os.path.join(directory, labels_name), "wb") as f:
        f.write(struct.pack(">II", 2049, 3) + bytes([1, 2, 3]))


def build_mnist_official(root):
    """MindSpore's quick start layout: MNIST_Data/train holds only train-*, MNIST_Data/test only t10k-*."""
    mnist_files(os.path.join(root, "MNIST_Data", "train"), "train", 5, 1)
    mnist_files(os.path.join(root, "MNIST_Data", "test"), "t10k", 3, 2)


def build_mnist_variants(root):
    """Folders that test how MindSpore picks MNIST files by name."""
    mnist_files(os.path.join(root, "both"), "train", 5, 1)
    mnist_files(os.path.join(root, "both"), "t10k", 3, 2)
    # the names some mirrors use: dots instead of the last dash
    mnist_files(os.path.join(root, "dotted"), "train", 4, 3, "train-images.idx3-ubyte", "train-labels.idx1-ubyte")
    mnist_files(os.path.join(root, "dotted"), "t10k", 2, 4, "t10k-images.idx3-ubyte", "t10k-labels.idx1-ubyte")
    mnist_files(os.path.join(root, "no_train_labels"), "train", 2, 5)
    mnist_files(os.path.join(root, "no_train_labels"), "t10k", 1, 6)
    os.remove(os.path.join(root, "no_train_labels", "train-labels-idx1-ubyte"))
    mnist_files(os.path.join(root, "labels_only"), "train", 2, 7)
    os.remove(os.path.join(root, "labels_only", "train-images-idx3-ubyte"))
    # files that disagree: 3 images with 2 labels; images of 2 x 2 (MindSpore reads only 28 x 28)
    mnist_files(os.path.join(root, "short_labels"), "train", 3, 8)
    mnist_files(os.path.join(root, "short_labels", "two"), "train", 2, 8)
    os.replace(os.path.join(root, "short_labels", "two", "train-labels-idx1-ubyte"),
               os.path.join(root, "short_labels", "train-labels-idx1-ubyte"))
    shutil.rmtree(os.path.join(root, "short_labels", "two"))
    small_images(os.path.join(root, "small_images"), "train-images-idx3-ubyte", "train-labels-idx1-ubyte")
    os.makedirs(os.path.join(root, "empty"), exist_ok=True)
    with open(os.path.join(root, "empty", "README"), "w") as f:
        f.write("no data here\n")


def build_emnist_broken(root):
    """EMNIST (split 'mnist') files that disagree: 3 images with 2 labels; 2 x 2 images."""
    mnist_files(os.path.join(root, "emnist_short_labels"), "train", 3, 9,
                "emnist-mnist-train-images-idx3-ubyte", "emnist-mnist-train-labels-idx1-ubyte")
    with open(os.path.join(root, "emnist_short_labels", "emnist-mnist-train-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, 2) + bytes([4, 5]))
    small_images(os.path.join(root, "emnist_small_images"), "emnist-mnist-train-images-idx3-ubyte",
                 "emnist-mnist-train-labels-idx1-ubyte")


EMNIST_FOLDERS = ["emnist_short_labels", "emnist_small_images"]
MNIST_FOLDERS = ["MNIST_Data/train", "MNIST_Data/test", "both", "dotted", "no_train_labels", "labels_only", "empty",
                 "short_labels", "small_images"]
USAGES = [None, "train", "test", "all"]


def build_cifar(root, n10=10000, n100_train=50000, n100_test=10000):
    """CIFAR-10 and CIFAR-100 binary folders as the archives unpack, and broken ones."""
    c10 = os.path.join(root, "cifar-10-batches-bin")
    os.makedirs(c10)
    for i, name in enumerate(["data_batch_1.bin", "data_batch_2.bin", "data_batch_10.bin", "test_batch.bin"]):
        dataset_cases.cifar_records(n10, i + 1).tofile(os.path.join(c10, name))
    with open(os.path.join(c10, "batches.meta.txt"), "w") as f:
        f.write("airplane\nautomobile\n")
    only_train = os.path.join(root, "c10_only_train")
    os.makedirs(only_train)
    dataset_cases.cifar_records(n10, 5).tofile(os.path.join(only_train, "data_batch_1.bin"))
    other_bin = os.path.join(root, "c10_other_bin")
    os.makedirs(other_bin)
    dataset_cases.cifar_records(n10, 6).tofile(os.path.join(other_bin, "other.bin"))
    dataset_cases.cifar_records(n10, 7).tofile(os.path.join(other_bin, "test_batch.bin"))
    c100 = os.path.join(root, "cifar-100-binary")
    os.makedirs(c100)
    cifar100_records(n100_train, 1).tofile(os.path.join(c100, "train.bin"))
    cifar100_records(n100_test, 2).tofile(os.path.join(c100, "test.bin"))
    with open(os.path.join(c100, "coarse_label_names.txt"), "w") as f:
        f.write("aquatic_mammals\n")
    c100_only_test = os.path.join(root, "c100_only_test")
    os.makedirs(c100_only_test)
    cifar100_records(n100_test, 3).tofile(os.path.join(c100_only_test, "test.bin"))
    os.makedirs(os.path.join(root, "empty"))


CIFAR10_FOLDERS = ["cifar-10-batches-bin", "c10_only_train", "c10_other_bin", "empty"]
CIFAR100_FOLDERS = ["cifar-100-binary", "c100_only_test", "empty"]
