"""Dataset fixtures defined once (NumPy / stdlib only), for record_dataset.py (MindSpore's venv)
and the pycompile tests: the small MNIST / CIFAR-10 files, the generator sources, the pipelines
and the transform inputs. Builders take the dataset module (`ds`) and transform modules as
arguments, so the same code builds a MindSpore pipeline or a pycompile one."""
import os
import struct

import numpy as np


# -- files ---------------------------------------------------------------------------------------
def mnist_arrays(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), rng.integers(0, 10, n, dtype=np.uint8)


def write_mnist(directory, n_train=5, n_test=3):
    for prefix, n, seed in (("train", n_train, 1), ("t10k", n_test, 2)):
        images, labels = mnist_arrays(n, seed)
        with open(os.path.join(directory, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with open(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def cifar_records(n, seed):
    """n CIFAR records whose bytes depend only on (index, seed): a file of 10000 (what MindSpore
    needs) and one of 20 begin with the same rows."""
    rec = np.zeros((n, 3073), np.uint8)
    rec[:, 0] = (np.arange(n) * 7 + seed) % 10
    rec[:, 1:] = ((np.arange(n * 3072, dtype=np.int64).reshape(n, 3072) * 13 + seed * 5) % 251).astype(np.uint8)
    return rec


def write_cifar(directory, n=10000):
    cifar_records(n, 1).tofile(os.path.join(directory, "data_batch_1.bin"))
    cifar_records(n, 2).tofile(os.path.join(directory, "data_batch_2.bin"))
    cifar_records(n, 3).tofile(os.path.join(directory, "test_batch.bin"))


# -- sources -------------------------------------------------------------------------------------
def gen_rows():
    """7 rows: an int32 pair and an int64 label."""
    for i in range(7):
        yield np.array([i, i * 10], np.int32), np.array(i % 3, np.int64)


def python_rows():
    """Python scalars and lists: the dtypes NumPy gives them."""
    for i in range(3):
        yield i, i / 2, True, [i, i + 1], [0.5 * i]


class RandomAccess:
    def __init__(self, n=8):
        self.n = n

    def __getitem__(self, i):
        return np.array(i, np.int32), np.full((2,), i * 1.5, np.float32)

    def __len__(self):
        return self.n


def double(x):
    return x * 2


def split(x):
    return x, x + 1


def add(a, b):
    # cast first: int32 + a 0-d int64 array is int32 under NumPy 1 (MindSpore's) and int64 under 2
    return a + b.astype(a.dtype)


def pipelines(ds):
    """name -> a pipeline (no shuffling anywhere): what its rows and sizes are is recorded."""
    def gen():
        return ds.GeneratorDataset(gen_rows, ["x", "y"], shuffle=False)
    return {
        "batch3": gen().batch(3),
        "batch3_drop": gen().batch(3, drop_remainder=True),
        "repeat2_batch4": gen().repeat(2).batch(4),
        "batch4_repeat2": gen().batch(4).repeat(2),
        "map_batch_repeat": gen().map(double, input_columns=["x"]).batch(2).repeat(2),
        "map_split": gen().map(split, input_columns=["x"], output_columns=["x1", "x2"]),
        "map_merge": gen().map(add, input_columns=["x", "y"], output_columns=["s"]),
        "map_rename_in_place": gen().map(double, input_columns=["y"], output_columns=["y2"]),
        "map_list_of_ops": gen().map([double, double], input_columns="x"),
        "map_default_column": gen().map(double),
        "take3": gen().take(3),
        "skip5": gen().skip(5),
        "skip_all": gen().skip(10),
        "project_y_x": gen().project(["y", "x"]),
        "rename": gen().rename(["x"], ["z"]),
        "take_after_repeat": gen().repeat(3).take(10),
        "python_scalars": ds.GeneratorDataset(python_rows, ["i", "f", "b", "l", "fl"]),
        "random_access": ds.GeneratorDataset(RandomAccess(), ["i", "v"], shuffle=False),
        "numpy_dict": ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(8.0).reshape(4, 2)}, shuffle=False),
        "numpy_tuple": ds.NumpySlicesDataset((np.arange(3), np.array([1.5, 2.5, 3.5], np.float32)), shuffle=False),
        "numpy_list": ds.NumpySlicesDataset([[1, 2], [3, 4], [5, 6]], shuffle=False),
        "numpy_names": ds.NumpySlicesDataset(np.arange(4, dtype=np.uint8), column_names=["u"], shuffle=False),
        "num_samples": ds.GeneratorDataset(RandomAccess(), ["i", "v"], shuffle=False, num_samples=5),
        "gen_num_samples": ds.GeneratorDataset(gen_rows, ["x", "y"], num_samples=4),
    }


# (source builder name, n rows, num_shards) whose shards are recorded for every shard_id
SHARDS = [("numpy", 10, 3), ("numpy", 10, 4), ("random_access", 8, 3), ("numpy", 2, 4)]


def sharded(ds, kind, n, num_shards, shard_id):
    if kind == "numpy":
        return ds.NumpySlicesDataset(list(range(n)), shuffle=False, num_shards=num_shards, shard_id=shard_id)
    return ds.GeneratorDataset(RandomAccess(n), ["i", "v"], shuffle=False, num_shards=num_shards, shard_id=shard_id)


# -- transforms ----------------------------------------------------------------------------------
def images():
    rng = np.random.default_rng(3)
    return {
        "u8": rng.integers(0, 256, (4, 5, 3), dtype=np.uint8),
        "u8_big": rng.integers(0, 256, (28, 28, 1), dtype=np.uint8),
        "u8_wide": rng.integers(0, 256, (6, 9, 3), dtype=np.uint8),
        "f32": (rng.random((5, 7, 3)) * 10).astype(np.float32),
        "gray": rng.integers(0, 256, (6, 4), dtype=np.uint8),
    }


def transform_cases(vision, transforms, ms_dtype):
    """name -> (transform, input image name)."""
    Inter = vision.Inter
    return {
        "rescale": (vision.Rescale(1.0 / 255, -0.5), "u8"),
        "rescale_f32": (vision.Rescale(2.0, 1.0), "f32"),
        "normalize_hwc": (vision.Normalize([120.0, 110.0, 100.0], [50.0, 60.0, 70.0]), "u8"),
        "normalize_chw": (vision.Normalize([1.0, 2.0, 3.0], [2.0, 4.0, 8.0], is_hwc=False), "u8_chw"),
        "hwc2chw": (vision.HWC2CHW(), "u8"),
        "to_tensor": (vision.ToTensor(), "u8"),
        "center_crop_2": (vision.CenterCrop(2), "u8"),
        "center_crop_3x2": (vision.CenterCrop((3, 2)), "u8"),
        "center_crop_pad": (vision.CenterCrop((6, 8)), "u8"),
        "flip_always": (vision.RandomHorizontalFlip(1.0), "u8"),
        "flip_never": (vision.RandomHorizontalFlip(0.0), "u8"),
        "random_crop_pad_full": (vision.RandomCrop((8, 9), padding=2, fill_value=7), "u8"),
        "random_crop_pad4": (vision.RandomCrop((6, 9), padding=(1, 0, 3, 2)), "u8"),
        "type_cast_f16": (transforms.TypeCast(ms_dtype.float16), "u8"),
        "type_cast_np_i32": (transforms.TypeCast(np.int32), "f32"),
        "one_hot": (transforms.OneHot(5), "labels"),
        "one_hot_smooth": (transforms.OneHot(4, 0.2), "label_scalar"),
        "one_hot_single": (transforms.OneHot(5), "label_single"),
        "compose": (transforms.Compose([vision.Rescale(1.0 / 255, 0.0), vision.HWC2CHW()]), "u8"),
        **{f"resize_{name}_{inter}": (vision.Resize(size, getattr(Inter, inter)), img)
           for name, size, img in [("up", (8, 10), "u8"), ("down", (3, 2), "u8"), ("int", 3, "u8"),
                                   ("int_wide", 4, "u8_wide"), ("mnist32", (32, 32), "u8_big"),
                                   ("same", (4, 5), "u8"), ("f32", (9, 4), "f32"), ("f32_down", (2, 3), "f32"),
                                   ("gray", (3, 7), "gray")]
           for inter in ("LINEAR", "NEAREST")},
    }


def transform_input(name):
    extra = {"u8_chw": images()["u8"].transpose(2, 0, 1).copy(), "labels": np.array([0, 3, 4, 1], np.int32),
             "label_scalar": np.array(2, np.int64),
             "label_single": np.array([3], np.uint8)}
    return extra[name] if name in extra else images()[name]
