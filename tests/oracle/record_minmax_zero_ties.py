"""Record MindSpore 2.10's ReduceMin / ReduceMax where -0 and +0 tie (minmax_zero_ties_cases.py):
data/minmax_zero_ties.json, the sign bits of each result. Run under /work/ms-venv from a temp dir."""
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import minmax_zero_ties_cases as Z  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import ops  # noqa: E402


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    results = []
    for name, values, shape, axis in Z.cases():
        for dtype in Z.DTYPES:
            for op in ("ReduceMin", "ReduceMax"):
                x = Z.inputs(values, shape, dtype, op)
                prim = getattr(ops, op)()
                y = prim(ms.Tensor(x), axis if axis is not None else ()).asnumpy()
                results.append({"name": name, "dtype": dtype, "op": op, "shape": list(y.shape),
                                "values": y.astype(np.float64).reshape(-1).tolist(),
                                "signbit": np.signbit(y).astype(int).reshape(-1).tolist()})
    out = HERE / "data" / "minmax_zero_ties.json"
    out.write_text(json.dumps({"mindspore": ms.__version__, "results": results}, indent=0) + "\n")
    print(out, len(results))


if __name__ == "__main__":
    main()
