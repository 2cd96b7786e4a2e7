"""Issue 33 (surface33): mindspore.train's checkpoint conversion, merge_sliced_parameter and the
dataset-sink helpers (DatasetHelper, connect_network_with_dataset, data_sink) on the CPU."""
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn

pytest.importorskip("safetensors")


def _save(path, **arrays):
    ms.save_checkpoint({k: Parameter(Tensor(v), name=k) for k, v in arrays.items()}, path)


def test_ckpt_to_safetensors_and_back(tmp_path):
    w, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1, 2], np.int32)
    _save(str(tmp_path / "net.ckpt"), w=w, b=b)
    ms.train.ckpt_to_safetensors(str(tmp_path / "net.ckpt"), str(tmp_path / "st"), name_map={"w": "weight"})
    loaded = ms.load_checkpoint(str(tmp_path / "st" / "net.safetensors"), format="safetensors")
    assert sorted(loaded) == ["b", "weight"]
    np.testing.assert_array_equal(loaded["weight"].asnumpy(), w)
    assert loaded["b"].dtype == ms.int32
    ms.safetensors_to_ckpt(str(tmp_path / "st"), str(tmp_path / "back"))
    again = ms.load_checkpoint(str(tmp_path / "back" / "net.ckpt"))
    np.testing.assert_array_equal(again["weight"].asnumpy(), w)


def test_ckpt_to_safetensors_directory_with_regex(tmp_path):
    for name in ("a_1", "a_2", "b_1"):
        _save(str(tmp_path / f"{name}.ckpt"), x=np.ones(2, np.float32))
    ms.ckpt_to_safetensors(str(tmp_path), file_name_regex=r"^a_")
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".safetensors")) == ["a_1.safetensors",
                                                                                       "a_2.safetensors"]
    with pytest.raises(ValueError, match="does not exist"):
        ms.ckpt_to_safetensors(str(tmp_path / "missing"))


def test_merge_sliced_parameter():
    parts = [Parameter(Tensor(np.full((2, 3), i, np.float32)), name="w") for i in range(3)]
    merged = ms.merge_sliced_parameter(parts)
    assert merged.name == "w" and merged.shape == (6, 3)
    np.testing.assert_array_equal(merged.asnumpy()[:, 0], [0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="same name"):
        ms.merge_sliced_parameter([parts[0], Parameter(Tensor(np.ones((2, 4), np.float32)), name="w")])
    with pytest.raises(KeyError):
        ms.merge_sliced_parameter(parts, {"other": None})
    with pytest.raises(TypeError):
        ms.merge_sliced_parameter(parts[0])


def _dataset():
    import pycompile.dataset as ds
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6, dtype=np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2)


def test_dataset_helper_feeds_batches():
    helper = ms.DatasetHelper(_dataset(), dataset_sink_mode=True, sink_size=2)
    assert helper.sink_size() == 2 and len(helper) == 2
    batches = list(helper)
    assert len(batches) == 2 and isinstance(batches[0][0], Tensor)
    np.testing.assert_array_equal(batches[1][1].asnumpy(), [2, 3])
    np.testing.assert_array_equal(list(helper)[0][1].asnumpy(), [4, 5])      # the next epoch continues
    assert ms.DatasetHelper(_dataset()).sink_size() == 3
    net = nn.Dense(2, 1)
    assert ms.connect_network_with_dataset(net, helper) is net
    with pytest.raises(ValueError, match="sink_size"):
        ms.DatasetHelper(_dataset(), sink_size=0)


def test_data_sink_runs_fn_on_the_next_batches():
    seen = []

    def step(x, y):
        seen.append(float(y.asnumpy()[0]))
        return ms.ops.reduce_sum(x)

    sink = ms.data_sink(step, _dataset(), sink_size=2)
    out = sink()
    assert seen == [0.0, 2.0] and float(out.asnumpy()) == 4 + 5 + 6 + 7
    sink()
    assert seen == [0.0, 2.0, 4.0, 0.0]
    with pytest.raises(ValueError, match="sink_size"):
        ms.data_sink(step, _dataset(), sink_size=0)


def test_load_checkpoint_async_segmented_and_status(tmp_path):
    _save(str(tmp_path / "a.ckpt"), w=np.ones((2, 2), np.float32))
    _save(str(tmp_path / "b.ckpt"), b=np.zeros(3, np.float32))
    future = ms.load_checkpoint_async(str(tmp_path / "a.ckpt"))
    np.testing.assert_array_equal(future.result()["w"].asnumpy(), np.ones((2, 2)))
    assert sorted(ms.load_segmented_checkpoints(str(tmp_path))) == ["b", "w"]
    with pytest.raises(ValueError, match="directory"):
        ms.load_segmented_checkpoints(str(tmp_path / "a.ckpt"))
    assert ms.async_ckpt_thread_status() is False
    ms.save_checkpoint({"x": Parameter(Tensor(np.ones(4, np.float32)), name="x")}, str(tmp_path / "c.ckpt"),
                       async_save=True)
    ms.train.serialization._wait_async_saves()
    assert ms.train.async_ckpt_thread_status() is False


def test_algo_and_ps_context_knobs():
    assert ms.get_algo_parameters("tensor_slice_align_size") == 16
    assert ms.get_algo_parameters("algo_approxi_epsilon") == pytest.approx(0.1)
    ms.set_algo_parameters(fully_use_devices=True)
    assert ms.get_algo_parameters("fully_use_devices") is True
    ms.reset_algo_parameters()
    assert ms.get_algo_parameters("fully_use_devices") is False
    with pytest.raises(ValueError, match="not recognized"):
        ms.get_algo_parameters("nope")
    with pytest.raises(TypeError, match="fully_use_devices"):
        ms.set_algo_parameters(fully_use_devices=3)
    assert ms.get_ps_context("enable_ps") is False and ms.get_ps_context("config_file_path") == ""
    with pytest.raises(ValueError, match="parameter-server"):
        ms.set_ps_context(enable_ps=True)
    with pytest.warns(UserWarning, match="set_dump"):
        ms.set_dump(nn.Dense(2, 2))

    @ms.enable_dynamic(x=Tensor(shape=[None, 2], dtype=ms.float32))
    def double(x):
        return x * 2

    np.testing.assert_array_equal(ms.jit(double)(Tensor(np.ones((3, 2), np.float32))).asnumpy(), np.full((3, 2), 2))
    with pytest.raises(TypeError, match="enable_dynamic"):
        ms.enable_dynamic(x=None)
