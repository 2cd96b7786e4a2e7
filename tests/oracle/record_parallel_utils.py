"""Record what MindSpore 2.10's private parallel helpers that model code imports answer
(`mindspore.parallel._auto_parallel_context.auto_parallel_context()`, `mindspore.parallel._utils`)
and its algorithm-parameter functions, over a sequence of settings, in one process without a
communication group:

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_parallel_utils.py

Writes data/parallel_utils.json: per step, the setting made (or the error it raised) and what
each reader returned.
"""
import json
import os

import mindspore as ms
from mindspore.parallel import get_algo_parameters, reset_algo_parameters, set_algo_parameters
from mindspore.parallel._auto_parallel_context import auto_parallel_context
from mindspore.parallel import _utils

HERE = os.path.dirname(os.path.abspath(__file__))
GETTERS = ["get_parallel_mode", "get_device_num", "get_global_rank", "get_gradients_mean", "get_full_batch",
           "get_enable_parallel_optimizer", "get_pipeline_stages", "get_parameter_broadcast",
           "get_device_num_is_set", "get_global_rank_is_set", "get_full_batch_is_set", "get_grad_accumulation_step"]
UTILS = ["_get_parallel_mode", "_get_gradients_mean", "_get_full_batch", "_get_pipeline_stages",
         "_get_enable_parallel_optimizer", "_is_in_auto_parallel_mode", "_is_in_data_parallel_mode",
         "_is_in_hybrid_parallel_mode", "_get_device_num", "_get_global_rank", "_get_stage_device_num"]
ALGO = ["fully_use_devices", "elementwise_op_strategy_follow", "tensor_slice_align_enable",
        "tensor_slice_align_size", "enable_algo_approxi", "algo_approxi_epsilon"]
# (what to do, keyword arguments)
STEPS = [
    ("none", {}),
    ("set_auto_parallel_context", {"parallel_mode": "data_parallel", "gradients_mean": True, "device_num": 8,
                                   "global_rank": 3}),
    ("set_auto_parallel_context", {"parallel_mode": "semi_auto_parallel", "pipeline_stages": 2, "full_batch": True}),
    ("reset_auto_parallel_context", {}),
    ("set_algo_parameters", {"elementwise_op_strategy_follow": True, "tensor_slice_align_size": 32,
                             "algo_approxi_epsilon": 0.5, "enable_algo_approxi": True}),
    ("set_algo_parameters", {"no_such_key": True}),
    ("set_algo_parameters", {"tensor_slice_align_size": 2048}),
    ("set_algo_parameters", {"fully_use_devices": 1}),
    ("get_algo_parameters", {"attr_key": "no_such_key"}),
    ("reset_algo_parameters", {}),
]


def _read(fn):
    try:
        return fn()
    except Exception as e:          # noqa: BLE001 - what the reader raises is recorded
        return {"error": type(e).__name__, "message": str(e)}


def main():
    ctx = auto_parallel_context()
    out = []
    for what, kwargs in STEPS:
        step = {"do": what, "kwargs": kwargs}
        fn = {"set_auto_parallel_context": ms.set_auto_parallel_context,
              "reset_auto_parallel_context": ms.reset_auto_parallel_context,
              "set_algo_parameters": set_algo_parameters, "reset_algo_parameters": reset_algo_parameters,
              "get_algo_parameters": get_algo_parameters, "none": lambda: None}[what]
        try:
            fn(**kwargs)
        except Exception as e:      # noqa: BLE001
            step["raised"] = [type(e).__name__, str(e)]
        step["context"] = {g: _read(getattr(ctx, g)) for g in GETTERS}
        step["utils"] = {u: _read(getattr(_utils, u)) for u in UTILS}
        step["algo"] = {a: _read(lambda a=a: get_algo_parameters(a)) for a in ALGO}
        out.append(step)
    with open(os.path.join(HERE, "data", "parallel_utils.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "steps": out}, f, indent=1)
    print(json.dumps(out, indent=1)[:4000])


if __name__ == "__main__":
    main()
