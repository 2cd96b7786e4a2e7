"""What the wheel recorders (record_more_*.py, run under MindSpore's venv) and the tests that
replay them share: a transform's outputs as JSON-able records, and one call recorded as its
outputs or its exception class and "[ERROR]" line. Imports neither framework."""
import numpy as np


def encode(out) -> list:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [{"dtype": str(np.asarray(o).dtype), "shape": list(np.asarray(o).shape), "values": np.asarray(o).tolist()}
            for o in outs]


def run(make, module, *inputs) -> dict:
    """`make(module)(*inputs)` as {"outputs": [...]} or {"raises": class name, "message": the
    pipeline's "[ERROR] ..." line (the whole message when there is none)}."""
    try:
        return {"outputs": encode(make(module)(*inputs))}
    except Exception as e:  # noqa: BLE001 - what the framework raised is the record
        text = str(e)
        i = text.find("[ERROR]")
        if i < 0:
            return {"raises": type(e).__name__, "message": text}
        end = text.find("\n", i)
        return {"raises": type(e).__name__, "message": text[i:end if end >= 0 else None]}
