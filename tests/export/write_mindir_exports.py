"""Write pycompile's MINDIR exports of tests/oracle/mindir_models.EXPORT_MODELS for MindSpore to
check (run with pycompile's venv; pytest does not collect it):

    PYTHONPATH=src python tests/export/write_mindir_exports.py
        -> tests/oracle/data/mindir/pycompile_NAME.mindir and pycompile_outputs.json
           (the inputs and pycompile's PyNative output of each net); pycompile_NAME_dyn.mindir
           for DYNAMIC_EXPORT_MODELS, exported with a None batch dimension (outputs at each of
           DYNAMIC_BATCHES under NAME_dyn)
    /work/ms-venv/bin/python tests/oracle/record_mindir.py check-export
        -> data/mindir/pycompile_export_in_mindspore.json (MindSpore's outputs on those files)

test_mindir_export.py checks that today's export writes the same bytes as the committed files
and that MindSpore's recorded outputs equal pycompile's.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "oracle")
DATA = os.path.join(ORACLE, "data", "mindir")


def main():
    sys.path.insert(0, ORACLE)
    import mindir_models
    import pycompile as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)
    path = os.path.join(DATA, "pycompile_outputs.json")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            out = json.load(f)
    for name in sys.argv[1:] or mindir_models.EXPORT_MODELS:
        net, inputs = mindir_models.MODELS[name](ms)
        tensors = [ms.Tensor(x) for x in inputs]
        ms.export(net, *tensors, file_name=os.path.join(DATA, f"pycompile_{name}"), file_format="MINDIR")
        y = net(*tensors).asnumpy()
        out[name] = {"inputs": [x.tolist() for x in inputs], "output": y.astype(np.float64).tolist()}
        print(name, "written")
    for name in [n for n in sys.argv[1:] or mindir_models.DYNAMIC_EXPORT_MODELS
                 if n in mindir_models.DYNAMIC_EXPORT_MODELS]:
        net, inputs = mindir_models.MODELS[name](ms)
        shape = [None] + list(inputs[0].shape[1:])
        ms.export(net, ms.Tensor(shape=shape, dtype=ms.float32), file_name=os.path.join(DATA, f"pycompile_{name}_dyn"),
                  file_format="MINDIR")
        cases = {}
        for batch in mindir_models.DYNAMIC_BATCHES:
            x = np.random.RandomState(batch).standard_normal([batch] + shape[1:]).astype(np.float32)
            cases[str(batch)] = {"input": x.tolist(), "output": net(ms.Tensor(x)).asnumpy().astype(np.float64).tolist()}
        out[name + "_dyn"] = cases
        print(name + "_dyn", "written")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
