"""examples/quickstart.py - the README's quick-start job - runs end to end with a few steps: it
trains LeNet-5 in PyNative and GRAPH_MODE from the same weights, the two give the same losses,
and it prints the lines the README shows (times, speed-up, the generated C's path)."""
import importlib.util
import re
from pathlib import Path

import pytest

import pycompile as ms

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


@pytest.mark.cc
def test_quickstart_runs_and_agrees(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("quickstart_example", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    try:
        res = example.main(["--steps", "4", "--eager-steps", "4", "--out", str(tmp_path)])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(res["graph"]) == len(res["eager"]) == 4
    for g, e in zip(res["graph"], res["eager"]):
        assert abs(g - e) <= 1e-4 * max(1.0, abs(e)), (res["graph"], res["eager"])
    out = capsys.readouterr().out
    assert re.search(r"^LeNet-5 training, batch 64, 4 steps: loss [\d.]+ -> [\d.]+$", out, re.M), out
    assert re.search(r"^PyNative: +[\d.]+ ms per step$", out, re.M), out
    assert re.search(r"^GRAPH_MODE: +[\d.]+ ms per step \(first step [\d.]+ s", out, re.M), out
    assert re.search(r"^speed-up: +[\d.]+x; max \|loss difference\| = ", out, re.M), out
    c_file = tmp_path / "lenet_train_step.c"
    assert "generated C (" in out and str(c_file) in out
    assert "pc_entry" in c_file.read_text()
