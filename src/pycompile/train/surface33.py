"""Training helpers of mindspore.train added by issue 33 (surface33): checkpoint format conversion
(`ckpt_to_safetensors`, `safetensors_to_ckpt`), `merge_sliced_parameter`, and the dataset-sink
helpers (`DatasetHelper`, `connect_network_with_dataset`, `data_sink`) with their CPU meaning:
MindSpore's CPU target has no device queue, so "sinking" a dataset feeds it batch by batch from
the host, which is what these do.
"""
from __future__ import annotations

import os
import re

import numpy as np

from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.train.mixed_precision import build_train_network  # noqa: F401
from pycompile.train.serialization import load_checkpoint, save_checkpoint


def _convert(file_path, save_path, name_map, file_name_regex, src, dst, where):
    if not isinstance(file_path, str):
        raise TypeError(f"For '{where}', the argument 'file_path' must be str, but got {type(file_path)}.")
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"For '{where}', the argument 'name_map' must be dict, but got {type(name_map)}.")
    if os.path.isdir(file_path):
        pattern = re.compile(file_name_regex) if file_name_regex else None
        files = [os.path.join(file_path, f) for f in sorted(os.listdir(file_path))
                 if f.endswith("." + src) and (pattern is None or pattern.search(f))]
    elif os.path.isfile(file_path):
        if not file_path.endswith("." + src):
            raise ValueError(f"For '{where}', the file {file_path} must end with '.{src}'.")
        files = [file_path]
    else:
        raise ValueError(f"For '{where}', the path {file_path} does not exist.")
    out_dir = save_path if save_path is not None else (file_path if os.path.isdir(file_path)
                                                       else os.path.dirname(file_path))
    os.makedirs(out_dir or ".", exist_ok=True)
    for path in files:
        params = load_checkpoint(path, format=src)
        renamed = {(name_map or {}).get(name, name): value for name, value in params.items()}
        stem = os.path.splitext(os.path.basename(path))[0]
        save_checkpoint(renamed, os.path.join(out_dir, stem + "." + dst), format=dst)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Write each `.ckpt` (one file, or those of a directory whose names match `file_name_regex`)
    as a `.safetensors` file of the same stem in `save_path` (default: beside it), renaming
    parameters by `name_map` {old: new}. Needs the `safetensors` extra."""
    _convert(file_path, save_path, name_map, file_name_regex, "ckpt", "safetensors", "ckpt_to_safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """The reverse of ckpt_to_safetensors: `.safetensors` files to `.ckpt` files."""
    _convert(file_path, save_path, name_map, file_name_regex, "safetensors", "ckpt", "safetensors_to_ckpt")


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from the slices of a model-parallel Parameter. Without `strategy` the slices
    are concatenated along axis 0, as MindSpore does; a sharding strategy (from a distributed
    run's strategy file) is not supported: pycompile trains on one device."""
    if not isinstance(sliced_parameters, list):
        raise TypeError(f"For 'merge_sliced_parameter', the argument 'sliced_parameters' should be list, "
                        f"but got {type(sliced_parameters)}.")
    if not sliced_parameters:
        raise ValueError("For 'merge_sliced_parameter', the argument 'sliced_parameters' should not be empty.")
    if strategy and not isinstance(strategy, dict):
        raise TypeError(f"For 'merge_sliced_parameter', the argument 'strategy' should be dict, "
                        f"but got {type(strategy)}.")
    first = sliced_parameters[0]
    name, shape = first.name, tuple(first.shape)
    for index, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"For 'merge_sliced_parameter', each element in 'sliced_parameters' should be "
                            f"Parameter, but got {type(p)} at index {index}.")
        if p.name != name or len(p.shape) != len(shape) or tuple(p.shape[1:]) != shape[1:]:
            raise ValueError(f"For 'merge_sliced_parameter', please make sure that the elements in "
                             f"'slice_parameters' have the same name, dimension length and shape except 0 axis. "
                             f"The name, dimension length, shape except 0 axis should be {name}, {len(shape)}, "
                             f"{shape[1:]}, but got name: {p.name}, dimension length: {len(p.shape)}, shape "
                             f"except 0 axis: {tuple(p.shape[1:])} at index {index}.")
    if strategy:
        if name not in strategy:
            raise KeyError(f"For 'merge_sliced_parameter', the parameter name {name} should be a key in the "
                           f"'strategy'. Please check 'sliced_parameter' and 'strategy'.")
        raise ValueError("For 'merge_sliced_parameter', merging by a sharding strategy is not supported by "
                         "pycompile (single-device training); pass strategy=None to concatenate on axis 0.")
    merged = np.concatenate([p.asnumpy() for p in sliced_parameters])
    return Parameter(Tensor(merged), name, first.requires_grad)


class DatasetHelper:
    """Iterate a dataset for a training loop: each step yields one batch as a tuple of Tensors.
    On the CPU (MindSpore's and pycompile's) there is no device queue: the batches come from the
    host one at a time, `sink_size` batches per epoch (-1: the whole dataset)."""

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"The type of 'dataset_sink_mode' must be bool, but got {type(dataset_sink_mode)}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int):
            raise TypeError(f"The type of 'sink_size' must be int, but got {type(sink_size)}.")
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"The 'sink_size' must be -1 or positive, but got sink_size {sink_size}.")
        self.dataset, self.dataset_sink_mode, self._sink_size, self.epoch_num = dataset, dataset_sink_mode, \
            sink_size, epoch_num
        self._iter = None

    def sink_size(self) -> int:
        """Batches per epoch: sink_size, or the dataset's size when it is -1."""
        return self.dataset.get_dataset_size() if self._sink_size == -1 else self._sink_size

    def types_shapes(self):
        """(the column dtypes, the column shapes) of the dataset's batches."""
        return self.dataset.output_types(), self.dataset.output_shapes()

    def __len__(self):
        return self.sink_size()

    def _next(self):
        """The next batch; at the dataset's end it starts over (the next epoch)."""
        for _ in range(2):
            if self._iter is None:
                self._iter = iter(self.dataset.create_tuple_iterator(num_epochs=1))
            try:
                return tuple(next(self._iter))
            except StopIteration:
                self._iter = None
        raise ValueError("For 'DatasetHelper', the dataset is empty.")

    def __iter__(self):
        for _ in range(self.sink_size()):
            yield self._next()

    def get_data_info(self):
        return self.types_shapes()

    def get_send_info(self, run_context=None):
        return {}

    def get_mbuf_queue_size(self) -> int:
        return 0

    def stop_send(self):
        """Stop feeding the device queue (there is none)."""

    def continue_send(self):
        """Resume feeding the device queue (there is none)."""

    def release(self):
        """Free the host iterator."""
        self._iter = None


def connect_network_with_dataset(network, dataset_helper):
    """The network that takes its inputs from the dataset helper. On the CPU the data is passed
    as arguments, so the network itself is returned (as MindSpore does off Ascend / GPU)."""
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', the type of 'dataset_helper' must be DatasetHelper, "
                        f"but got {type(dataset_helper)}.")
    if not dataset_helper.dataset_sink_mode:
        raise RuntimeError("The API 'connect_network_with_dataset' should be called in dataset sink mode.")
    return network


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """A function of no arguments that runs `fn` on the next `sink_size` batches of `dataset` (each
    batch's columns as its arguments) and returns the last result."""
    if not callable(fn):
        raise TypeError(f"For 'data_sink', the argument 'fn' must be callable, but got {type(fn)}.")
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size <= 0:
        raise ValueError(f"For 'data_sink', the argument 'sink_size' must be a positive int, but got {sink_size}.")
    helper = DatasetHelper(dataset, True, sink_size)

    def sink_fn(*args):
        out = None
        for batch in helper:
            out = fn(*batch)
        return out
    return sink_fn


__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt", "merge_sliced_parameter", "DatasetHelper",
           "connect_network_with_dataset", "data_sink", "build_train_network"]
