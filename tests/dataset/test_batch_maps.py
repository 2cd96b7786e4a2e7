"""map -> batch pipelines whose operations also work on a whole batch (Rescale, Normalize,
HWC2CHW, TypeCast) run them once per stacked batch (datasets.BatchDataset._batchable_maps); the
batches are identical to mapping row by row (forced here by wrapping each op in a lambda, which
has no batch form), for 3-D and 2-D images, chained maps, a partial last batch, and an op that
cannot take the batch (Normalize of 2-D images) falling back to rows."""
import numpy as np
import pytest

import pycompile as ms
import pycompile.dataset as ds
import pycompile.dataset.transforms as transforms
import pycompile.dataset.vision as vision


def _rowwise(op):
    return lambda x: op(x)


def _pipeline(images, labels, image_ops, wrap):
    ops = [wrap(op) for op in image_ops]
    data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    data = data.map(ops[:1], input_columns="image").map(ops[1:], input_columns="image")
    data = data.map(wrap(transforms.TypeCast(ms.int32)), input_columns="label")
    return data.batch(4)


@pytest.mark.parametrize("shape", [(10, 6, 5, 3), (10, 6, 5)])
def test_batched_maps_equal_row_maps(shape):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, shape, dtype=np.uint8)
    labels = rng.integers(0, 10, shape[0]).astype(np.int64)
    image_ops = [vision.Rescale(1 / 255, -0.5), vision.Normalize([0.1, 0.2, 0.3][:shape[-1]] if len(shape) == 4
                                                                 else [0.1], [0.5, 0.6, 0.7][:shape[-1]] if len(shape) == 4
                                                                 else [0.5]),
                 vision.HWC2CHW()]
    fused = list(_pipeline(images, labels, image_ops, lambda op: op).create_tuple_iterator(output_numpy=True))
    rows = list(_pipeline(images, labels, image_ops, _rowwise).create_tuple_iterator(output_numpy=True))
    assert len(fused) == len(rows) == 3 and fused[-1][0].shape[0] == 2
    for (a, la), (b, lb) in zip(fused, rows):
        assert a.dtype == b.dtype == np.float32 and la.dtype == lb.dtype == np.int32
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(la, lb)


def test_the_batched_path_is_taken_only_for_batchable_maps():
    data = ds.NumpySlicesDataset({"image": np.zeros((4, 2, 2, 1), np.uint8), "label": np.arange(4)}, shuffle=False)
    maps, _ = data.map([vision.Rescale(1, 0), vision.HWC2CHW()], "image").batch(2)._batchable_maps()
    assert len(maps) == 1
    assert data.map([vision.RandomHorizontalFlip()], "image").batch(2)._batchable_maps()[0] == []
    assert data.map([lambda x: x], "image").batch(2)._batchable_maps()[0] == []


@pytest.mark.parametrize("kwargs", [{"shuffle": False}, {"shuffle": True}, {"shuffle": True, "num_shards": 3,
                                                                           "shard_id": 1}, {"num_samples": 7}])
@pytest.mark.parametrize("drop_remainder", [False, True])
def test_in_memory_batches_equal_stacked_rows(kwargs, drop_remainder):
    """NumpySlicesDataset -> batch takes each batch by fancy indexing; a subclass (not taken for
    in-memory arrays) goes row by row, and must give the same batches in the same order."""
    class RowByRow(ds.NumpySlicesDataset):
        """Not NumpySlicesDataset itself, so batches are taken row by row."""

    rng = np.random.default_rng(1)
    data = {"image": rng.integers(0, 256, (23, 4, 3), dtype=np.uint8), "label": rng.integers(0, 5, 23)}
    if kwargs.get("num_samples"):          # strings take the row path (stacked width = widest row)
        data["name"] = np.array([f"r{i}" for i in range(23)])
    ds.config.set_seed(5)
    direct = ds.NumpySlicesDataset(data, **kwargs).batch(4, drop_remainder)
    rows = RowByRow(data, **kwargs).batch(4, drop_remainder)
    a = list(direct.create_tuple_iterator(output_numpy=True))
    b = list(rows.create_tuple_iterator(output_numpy=True))
    assert len(a) == len(b) == direct.get_dataset_size() > 0
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            assert u.dtype == v.dtype
            np.testing.assert_array_equal(u, v)
