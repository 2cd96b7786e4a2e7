"""examples/train_lenet_digits.py - MindSpore's quick start on scikit-learn's digits - runs end to
end with fewer epochs, in GRAPH_MODE: dataset -> Model -> train (LossMonitor, TimeMonitor, ModelCheckpoint) ->
load_checkpoint into a fresh LeNet -> eval. The full run (15 epochs) reaches >= 95 % test accuracy
(docs/guide/training.md); two epochs already classify most digits (0.78). scikit-learn comes with the `test`
extra; the test skips only when it is missing."""
import importlib.util
import re
from pathlib import Path

import pytest

import pycompile as ms

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_lenet_digits.py"


def test_quick_start_on_digits(tmp_path, capsys):
    pytest.importorskip("sklearn")     # here, not at import: collecting it cost every xdist worker ~4 s
    spec = importlib.util.spec_from_file_location("train_lenet_digits", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    try:
        acc = example.main(["--epochs", "2", "--ckpt-dir", str(tmp_path)])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    out = capsys.readouterr().out
    assert re.findall(r"^epoch: (\d) step: 89, loss is \d", out, re.M) == ["1", "2"]
    assert len(re.findall(r"^Train epoch time: [\d.]+ ms, per step time: [\d.]+ ms$", out, re.M)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lenet_digits-1_89.ckpt", "lenet_digits-2_89.ckpt"]
    assert "checkpoint: lenet_digits-2_89.ckpt" in out
    assert set(acc) == {"accuracy"} and acc["accuracy"] > 0.6, acc        # 0.78 here; 0.98 after the full 15 epochs
