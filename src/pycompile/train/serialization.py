"""save_checkpoint / load_checkpoint / load_param_into_net, reading and writing MindSpore's own
`.ckpt` files (see `_checkpoint_pb` for the format) and, with the `safetensors` extra, the
`.safetensors` files MindSpore 2.10 writes.

The bytes match the MindSpore wheel's: one `Checkpoint` message per entry in save order,
entries over 512 MB split into slices along axis 0, strings stored as NumPy UTF-32 with
dims [0] and type "str", an optional CRC trailer `b"crc_num" + crc32.to_bytes(10, "big")`,
and the finished file made read-only for its owner (mode 0o400). Tests compare the bytes with
files the wheel wrote.

One deliberate difference: MindSpore deletes the old file and then writes the new one in place,
so a crash mid-save loses both. Here a save writes a temporary file in the same directory,
fsyncs it and `os.replace`s it over the final name, so the final name always holds either the
previous complete file or the new complete file.
"""
from __future__ import annotations

import binascii
import io
import logging
import math
import os
import stat
import tempfile
import threading
from collections import OrderedDict

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor

logger = logging.getLogger("pycompile.train")

_SLICE_BYTES = 512 * 1024 * 1024      # MindSpore splits an entry above 512 MB into slices
_CRC_MARK = b"crc_num"
_FORMATS = ("ckpt", "safetensors")
# Integer / float families inside which load_param_into_net converts silently (not strict).
_FLOATS = ("Float16", "Float32", "Float64", "BFloat16")
_INTS = ("Int8", "Int16", "Int32", "Int64")

_save_lock = threading.RLock()


def _pb():
    """The protobuf schema, imported on first use: `import pycompile` does not pay for protobuf."""
    from pycompile.train import _checkpoint_pb
    return _checkpoint_pb

_async_threads: list[threading.Thread] = []
_async_errors: list[BaseException] = []


# -- saving ------------------------------------------------------------------------------------
def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt",
                    **kwargs) -> None:
    """Save a Cell's Parameters, a list of Parameters / `{"name", "data"}` dicts, or a dict of
    name -> Parameter / Tensor / ndarray / str to `ckpt_file_name` (".ckpt" or ".safetensors"
    appended when the name does not end with the format).

    `append_dict` values (int, float, bool, str, Tensor) are stored after the parameters: an int
    becomes an Int64 scalar, a float a Float32 scalar, a bool a Bool scalar, as in MindSpore.
    `async_save` (True, "thread" or "process") writes in a background thread from a snapshot
    taken now; `crc_check` appends MindSpore's CRC trailer. Encryption is not supported."""
    path = _check_save_args(save_obj, ckpt_file_name, format)
    if not isinstance(integrated_save, bool):
        raise TypeError(f"For 'save_checkpoint', the argument 'integrated_save' must be bool, "
                        f"but got {type(integrated_save)}.")
    async_save = _check_async_save(async_save)
    _check_append_dict(append_dict)
    if enc_key is not None and not isinstance(enc_key, bytes):
        raise TypeError(f"For 'save_checkpoint', the argument 'enc_key' must be bytes or None, "
                        f"but got {type(enc_key)}.")
    if not isinstance(enc_mode, str):
        raise TypeError(f"For 'save_checkpoint', the argument 'enc_mode' must be str, but got {type(enc_mode)}.")
    if not isinstance(crc_check, bool):
        raise TypeError(f"For 'save_checkpoint', the argument 'crc_check' must be bool, but got {type(crc_check)}.")
    if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM"):
        name, value = ("enc_key", enc_key) if enc_key is not None else ("enc_mode", enc_mode)
        raise ValueError(f"For 'save_checkpoint', when format is 'safetensors', the parameter '{name}' must be "
                         f"set to default value, but got '{value}'.")
    if enc_key is not None:
        raise NotImplementedError("pycompile's save_checkpoint does not encrypt checkpoints (enc_key); "
                                  "save without enc_key and protect the file by other means")

    entries = _collect_entries(save_obj, choice_func)
    for key, value in (append_dict or {}).items():
        entries[key] = value if isinstance(value, str) else _array_of(value)

    if async_save:
        # The snapshot above is already a copy, so training may go on changing the Parameters.
        thread = threading.Thread(target=_async_write, args=(path, entries, crc_check, format),
                                  name="pycompile-ckpt-save", daemon=False)
        with _save_lock:
            _async_threads.append(thread)
        thread.start()
    else:
        _write(path, entries, crc_check, format)


def _check_save_args(save_obj, ckpt_file_name, format) -> str:
    from pycompile.nn.cell import Cell
    if format not in _FORMATS:
        raise ValueError(f"For 'save_checkpoint', the format must be 'safetensors' or 'ckpt', but got {format}.")
    if not isinstance(save_obj, (Cell, list, dict)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict, "
                        f"but got {type(save_obj)}.")
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'save_checkpoint', the parameter {ckpt_file_name} for checkpoint file name is invalid,"
                        f"'ckpt_file_name' must be string, but got {type(ckpt_file_name)}.")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', the parameter `ckpt_file_name`: {path} is a directory, "
                                f"it must be a file name.")
    # MindSpore tests the bare format name, so "modelckpt" keeps its name.
    return path if path.endswith(format) else f"{path}.{format}"


def _check_async_save(async_save):
    if not isinstance(async_save, (bool, str)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'async_save' must be bool or str, "
                        f"but got {type(async_save)}.")
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError(f"For 'save_checkpoint', the argument 'async_save' can only be 'process' or 'thread',"
                         f"but got {async_save}.")
    return async_save


def _check_append_dict(append_dict) -> None:
    if append_dict is None:
        return
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', the argument 'append_dict' must be dict, but got {type(append_dict)}.")
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', the type of dict 'append_info' must be key: string, "
                            f"value: int, float, bool or Generator, but got key: {type(key)}, value: {type(value)}")


def _array_of(value) -> np.ndarray:
    """A private C-contiguous copy: what gets written is the value at the time of the call."""
    if isinstance(value, Tensor):
        return np.array(value._data, copy=True, order="C")
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True, order="C")
    return Tensor(value)._data    # Python scalars get MindSpore's defaults: Int64, Float32, Bool


def _collect_entries(save_obj, choice_func) -> "OrderedDict[str, np.ndarray | str]":
    """name -> array or str, in the order MindSpore writes them. A repeated name keeps its first
    position and its last value (MindSpore fills an ordered dict)."""
    from pycompile.nn.cell import Cell
    chosen = (lambda name: True) if choice_func is None else choice_func
    out: OrderedDict = OrderedDict()
    if isinstance(save_obj, Cell):
        for _, p in save_obj.parameters_and_names():
            if chosen(p.name):
                out[p.name] = _array_of(p)
    elif isinstance(save_obj, list):
        dict_items = bool(save_obj) and isinstance(save_obj[0], dict)
        for item in save_obj:
            if dict_items:
                if not (isinstance(item, dict) and "name" in item and "data" in item):
                    raise TypeError(f"For save_checkpoint, save_obj should be a list of dict items, and the dict "
                                    f"should have key values 'name' and 'value', but got {type(item)} and {item}.")
                if not isinstance(item["name"], str):
                    raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the name in dict "
                                    f"should be string, but got {type(item['name'])}.")
                if not isinstance(item["data"], Tensor):
                    raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the data in dict "
                                    f"should be parameter, but got {type(item['data'])}.")
                if chosen(item["name"]):
                    out[item["name"]] = _array_of(item["data"])
            else:
                if not isinstance(item, Parameter):
                    raise TypeError(f"For save_checkpoint, when save_obj is made up by list of Parameter,"
                                    f"the param should be parameter, but got {type(item)}")
                if chosen(item.name):
                    out[item.name] = _array_of(item)
    else:
        for key, value in save_obj.items():
            if not isinstance(key, str) or not isinstance(value, (Tensor, np.ndarray, str)):
                raise TypeError(f"For save_checkpoint, when save_obj is made up by dict, the key should be str and"
                                f"value should be Parameter, but got the type of key is {type(key)} and"
                                f"the type of value is {type(value)}")
            if chosen(key):
                out[key] = value if isinstance(value, str) else _array_of(value)
    return out


def _ckpt_bytes(entries, crc_check: bool):
    """The serialized entries, one message per slice, then the CRC trailer if asked for."""
    crc = 0
    for name, value in entries.items():
        if isinstance(value, str):
            pieces = [([0], "str", np.array(value).tobytes())]
        else:
            type_name = mstype.from_numpy(value.dtype).name
            count = math.ceil(value.nbytes / 1024 / (_SLICE_BYTES // 1024)) if value.nbytes > _SLICE_BYTES else 1
            parts = np.array_split(value, count) if count > 1 else [value]
            pieces = [(value.shape, type_name, part.tobytes()) for part in parts]
        for dims, type_name, content in pieces:
            blob = _pb().encode_entry(name, dims, type_name, content)
            if crc_check:
                crc = binascii.crc32(blob, crc)
            yield blob
    if crc_check:
        yield _CRC_MARK + crc.to_bytes(10, byteorder="big")


def _write(path: str, entries, crc_check: bool, format: str) -> None:
    with _save_lock:
        if format == "safetensors":
            _atomic_write(path, lambda tmp: _safetensors_save(entries, tmp))
        else:
            def write_ckpt(tmp):
                with open(tmp, "wb") as f:
                    for blob in _ckpt_bytes(entries, crc_check):
                        f.write(blob)
            _atomic_write(path, write_ckpt)


def _atomic_write(path: str, produce) -> None:
    """Have `produce(tmp_path)` write a file beside `path`, make it durable, then rename it over
    `path` in one step. On any failure the temporary file is removed and `path` is untouched."""
    directory, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        produce(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IRUSR)        # MindSpore leaves checkpoints read-only (0o400)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        logger.critical("Failed to save the checkpoint file %s.", path)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)                   # the rename itself survives a power cut
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _safetensors_module():
    try:
        from safetensors import numpy as st_numpy
    except ImportError:
        raise ImportError("format='safetensors' needs the 'safetensors' package: "
                          "pip install 'pycompile[safetensors]'") from None
    return st_numpy


def _safetensors_save(entries, tmp: str) -> None:
    st_numpy = _safetensors_module()
    tensors = {name: (np.array(entries[name]) if isinstance(entries[name], str) else entries[name])
               for name in sorted(entries)}
    st_numpy.save_file(tensors, tmp, metadata={"format": "ms"} if tensors else None)


def _async_write(path, entries, crc_check, format) -> None:
    try:
        _write(path, entries, crc_check, format)
    except BaseException as e:  # noqa: BLE001 - handed to the next _wait_async_saves()
        with _save_lock:
            _async_errors.append(e)


def _wait_async_saves() -> None:
    """Block until every asynchronous save has finished; re-raise the first one's error."""
    while True:
        with _save_lock:
            pending = [t for t in _async_threads if t.is_alive()]
            _async_threads[:] = pending
        if not pending:
            break
        for t in pending:
            t.join()
    with _save_lock:
        errors, _async_errors[:] = list(_async_errors), []
    if errors:
        raise errors[0]


# -- loading -----------------------------------------------------------------------------------
def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt") -> dict:
    """Read a checkpoint into {name: Parameter} (strings saved through `append_dict` come back
    as str; every other value as a Parameter named by its key), in file order. With `net`, the
    result is also loaded into it (see load_param_into_net).

    `specify_prefix` keeps names starting with one of its prefixes, `filter_prefix` drops them;
    `choice_func(name) -> bool` applies only when neither prefix is given, as in MindSpore.
    A truncated, foreign or missing file raises ValueError naming the file."""
    specify_prefix = _check_prefix(specify_prefix)
    filter_prefix = _check_prefix(filter_prefix)
    if dec_key is not None and not isinstance(dec_key, bytes):
        raise TypeError(f"For 'load_checkpoint', the argument 'dec_key' must be bytes or None, "
                        f"but got {type(dec_key)}.")
    for name, value in (("crc_check", crc_check), ("remove_redundancy", remove_redundancy)):
        if not isinstance(value, bool):
            raise TypeError(f"For 'load_checkpoint', the argument '{name}' must be bool, but got {type(value)}.")
    if format == "safetensors" and (dec_key is not None or dec_mode != "AES-GCM"):
        name, value = ("dec_key", dec_key) if dec_key is not None else ("dec_mode", dec_mode)
        raise ValueError(f"For 'load_checkpoint', when format is 'safetensors', the parameter '{name}' must "
                         f"be set to default value, but got '{value}'.")
    if dec_key is not None:
        raise NotImplementedError("pycompile's load_checkpoint does not decrypt checkpoints (dec_key)")
    source = _check_file(ckpt_file_name, format)

    if format == "safetensors":
        result = _load_safetensors(source, choice_func)
    else:
        if specify_prefix is not None or filter_prefix is not None:
            def keep(name):
                return _prefix_allows(name, specify_prefix, filter_prefix)
        elif choice_func is not None:
            keep = choice_func
        else:
            def keep(name):
                return True
        result = _load_ckpt(source, keep, crc_check)
    if not result:
        raise ValueError(f"The loaded parameter dict is empty after filter or specify, please check whether "
                         f"'filter_prefix' or 'specify_prefix' are set correctly. (file: {source})")
    if net is not None:
        load_param_into_net(net, result, strict_load)
    return result


def _check_prefix(prefix):
    if prefix is None:
        return None
    if not isinstance(prefix, (str, list, tuple)):
        raise TypeError(f"For 'load_checkpoint', the type of 'specify_prefix' or 'filter_prefix' must be string, "
                        f"list[string] or tuple[string], but got {type(prefix)}.")
    prefixes = (prefix,) if isinstance(prefix, str) else tuple(prefix)
    if not prefixes:
        raise ValueError("For 'load_checkpoint', the argument 'specify_prefix' or 'filter_prefix' can't be empty when"
                         " 'specify_prefix' or 'filter_prefix' is list or tuple.")
    for index, p in enumerate(prefixes):
        if not isinstance(p, str):
            raise TypeError(f"For 'load_checkpoint', when 'specify_prefix' or 'filter_prefix' is list or tuple, "
                            f"the element in it must be string, but got {type(p)} at index {index}.")
        if p == "":
            raise ValueError("For 'load_checkpoint', the value of 'specify_prefix' or 'filter_prefix' "
                             "can't include ''.")
    return prefixes


def _prefix_allows(name, specify, filter_) -> bool:
    if specify and not name.startswith(specify):
        return False
    return not (filter_ and name.startswith(filter_))


def _check_file(file, format):
    if format not in _FORMATS:
        raise ValueError("For 'load_checkpoint', the checkpoint file should end with '.ckpt' or '.safetensors', "
                         "please input the correct 'format'.")
    if isinstance(file, io.BytesIO):
        if format == "ckpt":
            raise TypeError("ckpt don't support BytesIO as input type, please change to safetensors.")
        return file
    if not isinstance(file, str):
        raise TypeError(f"For 'load_checkpoint', the argument 'ckpt_file_name' must be string, but got {type(file)}.")
    if not file.endswith(format):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file format must same with 'format', but got "
                         f"file_name:'{file}', format:'{format}'")
    path = os.path.realpath(file)
    if not os.path.exists(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not exist, please check "
                         f"whether the 'ckpt_file_name' is correct.")
    return path


def _read_ckpt_message(path: str, crc_check: bool):
    from google.protobuf.message import DecodeError
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ValueError(f"Failed to read the checkpoint file {path}. May not have permission to read it, "
                         f"please check the correct of the file.") from e
    if blob[-17:-10] == _CRC_MARK:
        stored, blob = int.from_bytes(blob[-10:], "big"), blob[:-17]
        if crc_check and binascii.crc32(blob) != stored:
            raise ValueError(f"For 'load_checkpoint', the crc check is failed, please check whether the ckpt file "
                             f"is damaged. (file: {path})")
    elif crc_check:
        logger.warning("For 'load_checkpoint', the ckpt file do not contain the crc code, please check the file.")
    try:
        return _pb().decode(blob)
    except DecodeError as e:
        raise ValueError(f"Failed to read the checkpoint file {path}. The file may be corrupted, and the content "
                         f"cannot be parsed.") from e


def _load_ckpt(path: str, keep, crc_check: bool) -> dict:
    message = _read_ckpt_message(path, crc_check)
    result: dict = {}
    values = message.value
    pieces: list[bytes] = []
    try:
        for index, entry in enumerate(values):
            if not keep(entry.tag):
                continue
            if not entry.HasField("tensor"):
                raise ValueError(f"the entry {entry.tag!r} is a MapParameter, which pycompile cannot load")
            pieces.append(entry.tensor.tensor_content)
            last_slice = index == len(values) - 1 or values[index + 1].tag != entry.tag
            if last_slice:
                result[entry.tag] = _decode_tensor(entry.tag, list(entry.tensor.dims), entry.tensor.tensor_type,
                                                   b"".join(pieces))
                pieces.clear()
    except Exception as e:
        logger.critical("Failed to load the checkpoint file '%s'.", path)
        raise ValueError(f"{e}\nFor 'load_checkpoint', failed to load the checkpoint file {path}.") from e
    return result


def _decode_tensor(tag: str, dims: list, type_name: str, content: bytes):
    if type_name == "str":
        return str(np.frombuffer(content, f"<U{len(content) // 4}")[0]) if content else ""
    if dims == [0]:
        dims = []          # MindSpore reads dims [0] as a 0-d tensor
    try:
        dt = mstype._BY_NAME[type_name]
    except KeyError:
        raise ValueError(f"the entry {tag!r} has tensor type {type_name!r}, "
                         f"which pycompile does not know") from None
    expected = int(np.prod(dims, dtype=np.int64)) * dt.itemsize
    if len(content) != expected:
        raise ValueError(f"the entry {tag!r} holds {len(content)} bytes, but shape {tuple(dims)} of "
                         f"{type_name} needs {expected}")
    array = np.frombuffer(content, dt.np)
    return Parameter(Tensor._wrap(array.reshape(dims)), name=tag)


def _load_safetensors(source, choice_func) -> dict:
    _safetensors_module()
    from safetensors import safe_open
    from safetensors.numpy import load as st_load
    try:
        if isinstance(source, io.BytesIO):
            arrays = st_load(source.getvalue())
        else:
            with safe_open(source, framework="np") as handle:
                arrays = {name: handle.get_tensor(name) for name in handle.keys()}
    except Exception as e:
        raise ValueError(f"Failed to read the checkpoint file {source}. The file may be corrupted, and the "
                         f"content cannot be parsed.") from e
    result = {}
    for name in sorted(arrays):
        if choice_func is not None and not choice_func(name):
            continue
        # MindSpore names nothing here: the Parameters keep their default names.
        result[name] = Parameter(Tensor(np.asarray(arrays[name])))
    return result


# -- loading into a network --------------------------------------------------------------------
def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy `parameter_dict`'s values into `net`'s Parameters with the same names; returns
    `(param_not_load, ckpt_not_load)`: names in the net that got no value, and names in the dict
    that were not used, exactly as MindSpore 2.10 reports them.

    Not strict: a float value goes into any float Parameter and an int into any signed-int one
    (converted), and when some names are missing, a common prefix of the dict's names
    ("backbone.") is found and stripped - those entries stay in ckpt_not_load, as in MindSpore.
    A shape or kind mismatch raises RuntimeError."""
    from pycompile.nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', the argument 'parameter_dict' should be a dict, "
                        f"but got {type(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str, list)):
            raise TypeError(f"For 'parameter_dict', the element in the argument 'parameter_dict' should be a "
                            f"'str' and 'Parameter' , but got {type(key)} and {type(value)}.")
    if not isinstance(strict_load, bool):
        raise TypeError(f"For 'load_param_into_net', the argument 'strict_load' must be bool, "
                        f"but got {type(strict_load)}.")

    param_not_load, ckpt_not_load = [], list(parameter_dict)
    for _, param in net.parameters_and_names():
        if param.name in parameter_dict:
            new = parameter_dict[param.name]
            if not isinstance(new, Tensor):
                continue           # a string (or map) entry: left in ckpt_not_load
            _update_param(param, new, strict_load)
            ckpt_not_load.remove(param.name)
        elif not param.name.startswith("accu_grads"):
            param_not_load.append(param.name)

    if param_not_load and not strict_load:
        _load_with_dict_prefix(net, parameter_dict, param_not_load, strict_load)
    if param_not_load:
        logger.warning("For 'load_param_into_net', %d parameters in the 'net' are not loaded, because they are not "
                       "in the 'parameter_dict': %s", len(param_not_load), param_not_load)
    return param_not_load, ckpt_not_load


def _update_param(param: Parameter, new: Tensor, strict_load: bool) -> None:
    old_shape, new_shape = tuple(param.shape), tuple(new.shape)
    if old_shape != new_shape and not _only_trailing_ones(old_shape, new_shape):
        logger.critical("Failed to combine the net and the parameters for param %s.", param.name)
        raise RuntimeError(
            f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same shape as "
            f"{param.name} in the argument 'parameter_dict'. But got its shape {old_shape} in the argument 'net' "
            f"and shape {new_shape} in the argument 'parameter_dict'.May you need to check whether the checkpoint "
            f"you loaded is correct or the batch size and so on in the 'net' and 'parameter_dict' are same.")
    # A (12, 2048, 1, 1) value for a (12, 2048) Parameter passes the check; like MindSpore the
    # Parameter then takes the value's shape.
    old_t, new_t = param.dtype.name, new.dtype.name
    if old_t != new_t:
        same_family = {old_t, new_t} <= set(_FLOATS) or {old_t, new_t} <= set(_INTS)
        if strict_load or not same_family:
            logger.critical("Failed to combine the net and the parameters for param %s.", param.name)
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same type as "
                f"{param.name} in the argument 'parameter_dict'. but got its type {param.dtype} in the argument "
                f"'net' and type {new.dtype} in the argument 'parameter_dict'.May you need to check whether the "
                f"checkpoint you loaded is correct.")
        logger.warning("The type of %s:%s in 'parameter_dict' is different from the type of it in 'net':%s, "
                       "then the type convert from %s to %s in the network.", param.name, new_t, old_t, new_t, old_t)
        with np.errstate(all="ignore"):
            param.set_data(Tensor._wrap(new._data.astype(param._data.dtype)))
        return
    param.set_data(new)


def _only_trailing_ones(shape, new_shape) -> bool:
    return len(new_shape) > len(shape) and new_shape[:len(shape)] == shape and \
        all(d == 1 for d in new_shape[len(shape):])


def _load_with_dict_prefix(net, parameter_dict, param_not_load: list, strict_load: bool) -> None:
    """MindSpore's second pass: find a dict name that ends with a missing Parameter's name, take
    what precedes it as a prefix, load every missing Parameter found under that prefix, and
    repeat until no new prefix turns up. Mutates `param_not_load`."""
    tried = set()
    while param_not_load:
        prefix = None
        for missing in param_not_load:
            for name in parameter_dict:
                if name.endswith(missing) and name[:-len(missing)] not in tried:
                    prefix = name[:-len(missing)]
                    break
            if prefix is not None:
                break
        if prefix is None:
            return
        tried.add(prefix)
        logger.warning("For 'load_param_into_net', remove parameter prefix name: %s, continue to load.", prefix)
        for _, param in net.parameters_and_names():
            key = prefix + param.name
            if param.name in param_not_load and isinstance(parameter_dict.get(key), Tensor):
                _update_param(param, parameter_dict[key], strict_load)
                param_not_load.remove(param.name)


# export / load (MINDIR) live in pycompile.export, above this layer: pycompile/__init__.py sets
# this module's `export` and `load` to them, so `from mindspore.train.serialization import load` works.
