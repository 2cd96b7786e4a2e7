"""FlopsUtilizationCollector: after the first step of a graph-mode network prints its FLOPs per
step (forward and backward products and 2-D convolutions, counted from the compiled graph:
ms.flops_collection), then every step whose number `data_size` does not divide (MindSpore's rule)
the step's time and the model / hardware FLOPs utilization against `computility`, the peak FLOPs
per second of the device, in MindSpore's words:

    Full model flops is 5632.0, Full hardware flops is 5632.0, Shard model flops is 5632.0, Shard hardware
    flops is 5632.0.     (one line)
    Train per step time: 0.482 ms mfu:0.00% hfu:0.00%

The percentages are floored to two decimals, as MindSpore's. With `computility=1` and
`enable_ma_collector=True` it prints nothing; `enable_ma_collector` writes MindSpore's
flops_rank_<r>.txt / time_step_rank_<r>.txt records to $MA_LOG_DIR (default: the working
directory). A network that is not compiled (PyNative) is MindSpore's ValueError at the first step's
end. One process holds the whole model: full and shard counts are equal (the wheel's pipeline-stage
AllReduce has nothing to add)."""
from __future__ import annotations

import math
import os
import stat
import time

from pycompile.common import knobs
from pycompile.common import validator as V
from pycompile.common.log import logger
from pycompile.train.callback._callback import Callback

# ms.flops_collection, installed by pycompile.flops (the compiler sits above this layer)
FLOPS_COLLECTION: list = [None]


def _floored_percentage(label: str, value: float) -> str:
    return f"{label}{math.floor(value * 10 ** 4) / 10 ** 2:.2f}%"


class FlopsUtilizationCollector(Callback):
    """MindSpore's FlopsUtilizationCollector (see the module docstring)."""

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        super().__init__()
        self.step_time = time.time()
        self.computility = computility
        self.full_mfu = self.full_hfu = self.shard_mfu = self.shard_hfu = 0.0
        self.full_model_flops = self.shard_model_flops = 0.0
        self.full_hardware_flops = self.shard_hardware_flops = 0.0
        self.mfu_calculated = False
        self.data_size = data_size
        self.time_step_path = ""
        self.full_flops = full_flops
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.ma = enable_ma_collector
        self.batch_step_size = None
        V.check_bool(full_flops, "full_flops")
        V.check_bool(enable_ma_collector, "enable_ma_collector")
        V.check_positive_int(data_size, "data_size")

    def step_begin(self, run_context):
        if self.batch_step_size is None:
            self.batch_step_size = self.data_size
            batch_num = getattr(run_context.original_args(), "batch_num", None)
            if isinstance(batch_num, int) and not isinstance(batch_num, bool) and batch_num > 0:
                self.batch_step_size = batch_num
        self.step_time = time.time()

    def _refuse(self, message: str) -> bool:
        if self.verbose:
            raise ValueError(message)
        logger.info(message)
        return False

    def _count(self, run_context) -> bool:
        """Read the network's FLOPs once; False (after MindSpore's message) when they cannot be had."""
        cb_params = run_context.original_args()
        if cb_params.mode not in ("train", "eval"):
            return self._refuse("FlopsUtilizationCollector only support train and eval mode!")
        network = cb_params.train_network if cb_params.mode == "train" else cb_params.eval_network
        if not getattr(network, "compiled", False):
            return self._refuse("FlopsUtilizationCollector now only support graph mode.")
        counts = FLOPS_COLLECTION[0](network.current_phase)
        (self.full_model_flops, self.full_hardware_flops, self.shard_model_flops,
         self.shard_hardware_flops, dynamic) = counts
        if dynamic:
            return self._refuse("FlopsUtilizationCollector now do not support dynamic shape.")
        return True

    def _write_ma(self, name: str, text: str) -> None:
        flags, modes = os.O_WRONLY | os.O_CREAT, stat.S_IWUSR | stat.S_IRUSR
        with os.fdopen(os.open(name, flags, modes), "w") as f:
            f.write(text)

    def step_end(self, run_context):
        step_ms = (time.time() - self.step_time) * 1000
        cb_params = run_context.original_args()
        if not self.mfu_calculated:
            if not self._count(run_context):
                return
            c = self.computility
            self.full_mfu, self.full_hfu = self.full_model_flops / c, self.full_hardware_flops / c
            self.shard_mfu, self.shard_hfu = self.shard_model_flops / c, self.shard_hardware_flops / c
            self.mfu_calculated = True
            log_dir = os.path.realpath(knobs.get("MA_LOG_DIR") or "./")
            if self.ma:
                stamp = int(round(time.time() * 1000))
                self.time_step_path = os.path.join(log_dir, "time_step_rank_0.txt")
                self._write_ma(os.path.join(log_dir, "flops_rank_0.txt"),
                               f'flops{{type="model_flops", rank_id="0"}} {self.shard_model_flops} {stamp}\n'
                               f'flops{{type="hardware_flops", rank_id="0"}} {self.shard_hardware_flops} {stamp}\n')
            if self.verbose:
                shard = (f"Shard model flops is {self.shard_model_flops}, "
                         f"Shard hardware flops is {self.shard_hardware_flops}.")
                if self.full_flops:
                    print(f"Full model flops is {self.full_mfu * c}, Full hardware flops is {self.full_hfu * c}, "
                          + shard, flush=True)
                else:
                    print(shard, flush=True)
        if cb_params.get("dataset_sink_mode"):
            step_ms /= self.batch_step_size
        if self.ma:
            self._write_ma(self.time_step_path, f'time_monitor{{type="per_step_time", rank_id="0"}} {step_ms} '
                                                f'{int(round(time.time() * 1000))}\n')
        if self.verbose and cb_params.cur_step_num % self.data_size:
            mfu, hfu = (self.full_mfu, self.full_hfu) if self.full_flops else (self.shard_mfu, self.shard_hfu)
            line = f"{cb_params.mode.title()} per step time: {step_ms:5.3f} ms"
            print(line + _floored_percentage(" mfu:", 1000 * mfu / step_ms)
                  + _floored_percentage(" hfu:", 1000 * hfu / step_ms), flush=True)
