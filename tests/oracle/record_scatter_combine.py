"""Record MindSpore 2.10's CPU results of scatter_combine_cases (run ONLY in the MindSpore venv,
from a scratch directory: MindSpore writes rank_0/ into the cwd):

    cd $(mktemp -d) && /work/ms-venv/bin/python /path/to/tests/oracle/record_scatter_combine.py

Writes data/scatter_combine.json: per case its result (dtype, shape, the values' bits as
hexadecimal integers, so NaN, -0 and denormals stay exact) or the error MindSpore raised.
"""
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scatter_combine_cases as S  # noqa: E402
from record_common import encode_error  # noqa: E402


def main():
    import mindspore as ms
    from mindspore import Tensor, ops
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = []
    for name, (op, dt, x, i, u) in S.cases().items():
        rec = {"name": name}
        try:
            with np.errstate(all="ignore"):
                y = getattr(ops, f"tensor_scatter_{op}")(Tensor(x), Tensor(i), Tensor(u)).asnumpy()
            rec["result"] = {"dtype": str(y.dtype), "shape": list(y.shape),
                             "bits": [hex(int(b)) for b in y.reshape(-1).view(f"u{y.itemsize}")]}
        except Exception as e:  # noqa: BLE001 - recorded
            rec.update(encode_error(e))
        print(name, rec.get("error") or rec["result"]["dtype"], flush=True)
        out.append(rec)
    (HERE / "data" / "scatter_combine.json").write_text(
        "{\"mindspore\": " + json.dumps(ms.__version__) + ", \"results\": [\n"
        + ",\n".join(json.dumps(r) for r in out) + "\n]}\n")


if __name__ == "__main__":
    main()
