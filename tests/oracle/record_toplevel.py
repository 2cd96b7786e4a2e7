"""Record MindSpore 2.10's small top-level utilities (dtype aliases and conversions, JitConfig's
defaults, the rng-state shape) into data/toplevel.json. Run under the MindSpore venv."""
import json
import os

import mindspore as ms
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


class Twice(ms.nn.Cell):
    def construct(self, x):
        return x * 2 + 1


def err(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001
        return {"type": type(e).__name__, "message": str(e).splitlines()[0]}
    return None


def main():
    aliases = {n: str(getattr(ms, n)) for n in "byte ubyte short ushort intc uintc intp uintp long".split()}
    dts = [ms.bool_, ms.int8, ms.uint8, ms.int32, ms.int64, ms.float16, ms.float32, ms.float64]
    out = {
        "mindspore": ms.__version__,
        "aliases": aliases,
        "dtype_to_nptype": {str(d): ms.dtype_to_nptype(d).__name__ for d in dts},
        "dtype_to_pytype": {str(d): ms.dtype_to_pytype(d).__name__ for d in dts},
        "pytype_to_dtype": {"int": str(ms.pytype_to_dtype(int)), "float": str(ms.pytype_to_dtype(float)),
                            "bool": str(ms.pytype_to_dtype(bool)), "np.float32": str(ms.pytype_to_dtype(np.float32)),
                            "np.int16": str(ms.pytype_to_dtype(np.int16))},
        "pytype_to_dtype_error": err(lambda: ms.pytype_to_dtype("x")),
        "get_py_obj_dtype": {"1": str(ms.get_py_obj_dtype(1)), "1.0": str(ms.get_py_obj_dtype(1.0)),
                             "True": str(ms.get_py_obj_dtype(True))},
        "jit_config_default": ms.JitConfig().jit_config_dict,
        "jit_config_O1": ms.JitConfig(jit_level="O1").jit_config_dict,
        "from_numpy": {"dtype": str(ms.from_numpy(np.ones((2, 3), np.int16)).dtype),
                       "shape": list(ms.from_numpy(np.ones((2, 3), np.int16)).shape)},
        "from_numpy_error": err(lambda: ms.from_numpy([1, 2])),
        "recompute": float(ms.recompute(Twice(), ms.Tensor(np.float32(3.0))).asnumpy()),
        "recompute_function_error": err(lambda: ms.recompute(lambda x: x, ms.Tensor(np.float32(3.0)))),
        "set_deterministic_error": err(lambda: ms.set_deterministic(1)),
    }
    with open(os.path.join(HERE, "data", "toplevel.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
