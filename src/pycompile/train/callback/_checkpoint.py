"""CheckpointConfig and ModelCheckpoint: save the training network every N steps (or seconds)
under MindSpore's file names, keeping the newest `keep_checkpoint_max`.

File names are `{prefix}-{epoch}_{step in epoch}.ckpt`. When files of an earlier run with the
same prefix are already in the directory, the prefix becomes `{prefix}_1`, `{prefix}_2`, ...
(decided once, when the callback is built), so runs never overwrite each other. Training's last
step is always saved at the end, unless it was just saved. MindSpore also writes
`{prefix}-graph.meta` (its compiled graph as a protobuf) in GRAPH_MODE; pycompile has no
MindSpore graph to write and writes no .meta file.
"""
from __future__ import annotations

import logging
import os
import stat
import time

from pycompile.train import serialization
from pycompile.train.callback._callback import Callback, check_bool, check_non_negative_int

logger = logging.getLogger("pycompile.train")

_APPEND_NAMES = ("epoch_num", "step_num")


class CheckpointConfig:
    """When to save and what to keep. `save_checkpoint_steps` wins over
    `save_checkpoint_seconds`, and `keep_checkpoint_max` over `keep_checkpoint_per_n_minutes`
    (the loser reads back as None); with neither keep rule, one file is kept. `append_info` is a
    list of "epoch_num" / "step_num" and at most one dict of extra values saved in every file."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, crc_check=False,
                 remove_redundancy=False, format="ckpt", **kwargs):
        from pycompile.nn.cell import Cell
        values = [save_checkpoint_steps, save_checkpoint_seconds, keep_checkpoint_max, keep_checkpoint_per_n_minutes]
        for value in values:
            if value is not None:
                check_non_negative_int(value)
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, "
                            f"but got {type(saved_network)}.")
        if not any(values):
            raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                             "can't be all None or 0.")
        self.exception_save = check_bool(exception_save, "exception_save")
        self._save_checkpoint_steps = save_checkpoint_steps
        self._save_checkpoint_seconds = None if save_checkpoint_steps else save_checkpoint_seconds
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        if keep_checkpoint_max:
            self._keep_checkpoint_per_n_minutes = None
        elif not keep_checkpoint_per_n_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = check_bool(integrated_save, "integrated_save")
        self._async_save = serialization._check_async_save(async_save)
        self._saved_network = saved_network
        self._append_dict = self._handle_append_info(append_info)
        if enc_key is not None and not isinstance(enc_key, bytes):
            raise TypeError(f"For 'CheckpointConfig', the argument 'enc_key' must be bytes or None, "
                            f"but got {type(enc_key)}.")
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._crc_check = check_bool(crc_check, "crc_check")
        if not isinstance(format, str):
            raise TypeError(f"For 'CheckpointConfig', the argument 'format' must be str, but got {type(format)}.")
        self._format = format
        self._map_param_inc = kwargs.get("incremental", False)
        self.enable_redundance = kwargs.get("enable_redundance", False)
        self.remove_redundancy = check_bool(remove_redundancy, "remove_redundancy")
        if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM" or crc_check or exception_save
                                        or self._map_param_inc):
            raise ValueError("For 'save_checkpoint', when format is 'safetensors', other param must be default.")

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)
    append_dict = property(lambda self: self._append_dict)
    map_param_inc = property(lambda self: self._map_param_inc)

    def get_checkpoint_policy(self) -> dict:
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info):
        from pycompile.common.tensor import Tensor
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list,"
                            f"but got {type(append_info)}.")
        result = {name: 0 for name in _APPEND_NAMES if name in append_info}
        dicts = 0
        for element in append_info:
            if not isinstance(element, (str, dict)):
                raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' element must be str or dict,"
                                f"but got {type(element)}.")
            if isinstance(element, str) and element not in _APPEND_NAMES:
                raise ValueError(f"For 'CheckpointConfig', the value of element in the argument 'append_info' "
                                 f"must be in {list(_APPEND_NAMES)}, but got {element}.")
            if isinstance(element, dict):
                dicts += 1
                if dicts > 1:
                    # MindSpore's message, including its unformatted placeholder
                    raise TypeError("For 'CheckpointConfig', the element of 'append_info' must has only one dict, "
                                    "but got {dict_num}")
                for key, value in element.items():
                    if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
                        raise TypeError(f"For 'CheckpointConfig', the key type of the dict 'append_info' must be "
                                        f"string, the value type must be int or float or bool, but got key type "
                                        f"{type(key)}, value type {type(value)}")
                    result[key] = value
        return result


def _prefix_after_earlier_runs(directory: str, prefix: str) -> str:
    """`prefix`, or `prefix_N` with N one past the highest earlier run found in `directory`
    (a file `prefix-...` counts as run 0, `prefix_3-...` as run 3)."""
    suffix = 0
    for filename in os.listdir(directory):
        ext = os.path.splitext(filename)[1]
        if ext not in (".ckpt", ".safetensors") or filename.endswith("_breakpoint.ckpt"):
            continue
        if not filename.startswith(prefix) or filename[len(prefix)].isalpha():
            continue
        rest = filename[len(prefix):]
        dash = rest.find("-")
        if dash == 0:
            suffix = max(suffix, 1)
        elif dash > 0 and rest[1:dash].isdigit():
            suffix = max(suffix, int(rest[1:dash]) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class ModelCheckpoint(Callback):
    """Saves `config.saved_network` (default: cb_params.train_network) into `directory`
    (default: the working directory; made if missing) as `{prefix}-{epoch}_{step}.ckpt`.
    `prefix` and `directory` may be functions of cb_params, called at every step (a function
    prefix names the file `{prefix}.ckpt`). Pruning removes the oldest file of this prefix, by
    modification time; files written in the same clock tick are ordered by when this callback
    wrote them (MindSpore leaves that order to the directory listing)."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        self._latest_ckpt_file_name = ""
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = 0
        if not callable(prefix) and (not isinstance(prefix, str) or "/" in prefix):
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it "
                             f"must be callable or string that does not contain '/', but got {prefix}.")
        self._prefix_func = prefix if callable(prefix) else None
        self._directory_func = directory if callable(directory) else None
        self._prefix = prefix
        if directory is None:
            self._directory = os.getcwd()
        elif not callable(directory):
            self._directory = _make_directory(directory)
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the type of argument 'config' should be 'CheckpointConfig', "
                            f"but got {type(config)}.")
        self._config = config
        self._manager = _CheckpointManager(config.format)
        if self._prefix_func is None and self._directory_func is None:
            self._prefix = _prefix_after_earlier_runs(self._directory, self._prefix)
        self._append_dict = config.append_dict or {}
        self._append_epoch_num = self._append_dict.get("epoch_num", 0)
        self._append_step_num = self._append_dict.get("step_num", 0)

    @property
    def latest_ckpt_file_name(self) -> str:
        return self._latest_ckpt_file_name

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        if self._prefix_func is not None:
            self._prefix = self._prefix_func(cb_params)
            if not isinstance(self._prefix, str) or "/" in self._prefix:
                raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is "
                                 f"callable, it must return a string that does not contain '/', but got "
                                 f"{self._prefix}.")
        if self._directory_func is not None:
            self._directory = _make_directory(self._directory_func(cb_params))
        self._save_ckpt(cb_params)

    def end(self, run_context):
        self._save_ckpt(run_context.original_args(), force=True)
        if self._config.async_save:
            serialization._wait_async_saves()

    def _due(self, cb_params, force: bool) -> bool:
        steps, seconds = self._config.save_checkpoint_steps, self._config.save_checkpoint_seconds
        if steps:
            return force or cb_params.cur_step_num >= self._last_triggered_step + steps
        if seconds:
            now = time.time()
            if now - self._last_time > seconds or force:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params, force=False):
        if cb_params.cur_step_num == self._last_triggered_step or not self._due(cb_params, force):
            return
        config = self._config
        if config.async_save:
            serialization._wait_async_saves()
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if self._prefix_func is not None:
            name = f"{self._prefix}.{config.format}"
        else:
            name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.{config.format}"
        self._manager.update_ckpoint_filelist(self._directory, self._prefix)
        if config.keep_checkpoint_max and 0 < config.keep_checkpoint_max <= self._manager.ckpoint_num:
            self._manager.remove_oldest_ckpoint_file()
        elif config.keep_checkpoint_per_n_minutes:
            now = time.time()
            if now - self._last_time_for_keep < config.keep_checkpoint_per_n_minutes * 60:
                self._manager.keep_one_ckpoint_per_minutes(config.keep_checkpoint_per_n_minutes, now)
        path = os.path.join(self._directory, name)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = cb_params.cur_step_num
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + cb_params.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + cb_params.cur_step_num
        network = config.saved_network if config.saved_network is not None else cb_params.train_network
        serialization.save_checkpoint(network, path, config.integrated_save, config.async_save,
                                      self._append_dict or None, config.enc_key, config.enc_mode,
                                      crc_check=config.crc_check, format=config.format)
        self._manager.note_saved(path)
        self._latest_ckpt_file_name = path


def _make_directory(path) -> str:
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"The checkpoint directory must be a non-empty string, but got {path!r}.")
    real = os.path.realpath(path)
    os.makedirs(real, exist_ok=True)
    return real


class _CheckpointManager:
    """The checkpoint files of one prefix in one directory, and their pruning."""

    def __init__(self, format="ckpt"):
        self._ckpoint_filelist = []
        self._format = format
        self._written = {}          # path -> order written, to break ties between equal mtimes

    @property
    def ckpoint_filelist(self):
        return self._ckpoint_filelist

    @property
    def ckpoint_num(self) -> int:
        return len(self._ckpoint_filelist)

    def note_saved(self, path: str) -> None:
        self._written[path] = len(self._written)

    def update_ckpoint_filelist(self, directory, prefix):
        """Files `{prefix}-<no letters>.{format}` in `directory` (so `lenet-...` is not a file of
        prefix `le`, and `CKP_1-...` not one of `CKP`)."""
        ext = f".{self._format}"
        self._ckpoint_filelist = []
        for filename in os.listdir(directory):
            if os.path.splitext(filename)[1] != ext or not filename.startswith(prefix + "-"):
                continue
            middle = filename[len(prefix):-len(ext)]
            if not any(ch.isalpha() for ch in middle):
                self._ckpoint_filelist.append(os.path.join(directory, filename))

    def remove_ckpoint_file(self, file_name):
        try:
            os.chmod(file_name, stat.S_IWRITE)
            os.remove(file_name)
            self._ckpoint_filelist.remove(file_name)
        except OSError:
            logger.warning("OSError, failed to remove the older ckpt file %s.", file_name)
        except ValueError:
            logger.warning("ValueError, failed to remove the older ckpt file %s.", file_name)

    def remove_oldest_ckpoint_file(self):
        def age(path):
            return os.path.getmtime(path), self._written.get(path, -1)
        self.remove_ckpoint_file(min(self._ckpoint_filelist, key=age))

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the files written in the last `minutes`, keep only the oldest."""
        recent = [f for f in self._ckpoint_filelist if cur_time - os.path.getmtime(f) < 60 * minutes]
        if not recent:
            return
        oldest = min(recent, key=lambda f: (os.path.getmtime(f), self._written.get(f, -1)))
        for f in recent:
            if f != oldest:
                self.remove_ckpoint_file(f)
