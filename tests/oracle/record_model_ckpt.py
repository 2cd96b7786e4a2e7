"""A checkpoint that pycompile's Model training wrote, read by MindSpore 2.10 (run once per format
or model_cases change; two steps, each in its own venv):

    /work/venv-model/bin/python tests/oracle/record_model_ckpt.py write   # pycompile trains, saves
    /work/ms-venv/bin/python    tests/oracle/record_model_ckpt.py read    # MindSpore loads it

`write` runs model_cases.quickstart with pycompile (PyNative) and copies the ModelCheckpoint file
of its last step (quick-3_5.ckpt: the network's weights, Momentum's moments, learning_rate,
global_step) to tests/train/fixtures/ckpt/pyc_model_quick.ckpt. `read` loads it with MindSpore:
the entries (name, dtype, shape), load_param_into_net into a fresh network, that network's
Model.eval metrics and predictions, and the largest difference from the weights MindSpore's own
quickstart run ended with - written to tests/train/fixtures/ckpt/ms_reads_model_ckpt.json, which
test_model.py checks. Not collected by pytest.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "train")
FIX = os.path.join(TRAIN, "fixtures", "ckpt")
FILE = os.path.join(FIX, "pyc_model_quick.ckpt")
sys.path.insert(0, TRAIN)
import model_cases  # noqa: E402


def write():
    import pycompile as ms
    work = tempfile.mkdtemp()
    model_cases.quickstart(ms, work)
    if os.path.exists(FILE):
        os.chmod(FILE, 0o644)
    shutil.copyfile(os.path.join(work, "quick-3_5.ckpt"), FILE)
    os.chmod(FILE, 0o644)
    print("wrote", FILE)


def read():
    import mindspore as ms
    import mindspore.dataset  # noqa: F401
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    os.chdir(tempfile.mkdtemp())
    loaded = ms.load_checkpoint(FILE)
    entries = [[k, str(v.dtype), list(v.shape)] for k, v in loaded.items()]
    own = model_cases.quickstart(ms, tempfile.mkdtemp())      # MindSpore's own training of the same script
    max_diff = max(float(np.abs(loaded[k].asnumpy() - np.array(v, np.float32)).max())
                   for k, v in own["params_after"].items())
    net = model_cases.make_net(ms, scale=0.5)
    not_loaded = ms.load_param_into_net(net, loaded)
    _, test_ds = model_cases._datasets(ms)
    model = ms.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                     metrics={'accuracy', 'loss'})
    metrics = {k: float(v) for k, v in model.eval(test_ds).items()}
    pred = model.predict(ms.Tensor(model_cases.data()[2][:3])).asnumpy().astype(np.float64).tolist()
    record = {"mindspore": ms.__version__, "entries": entries,
              "load_param_into_net": [sorted(not_loaded[0]), sorted(not_loaded[1])],
              "max_abs_diff_from_mindspore_training": max_diff, "eval": metrics, "predict": pred,
              "mindspore_eval_after_own_training": own["eval"]}
    with open(os.path.join(FIX, "ms_reads_model_ckpt.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(record)[:2000])


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]]()
