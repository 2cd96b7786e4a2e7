"""Differential fuzzing of convolution, pooling and the optimizers (fuzz_cnn.py describes the
programs): compiled (ms.jit) vs PyNative, values and gradients, and optimizer updates. The CI-sized run is
a fifteenth of PYCOMPILE_FUZZ_EXAMPLES (20 programs and 6 optimizer configurations by default)."""
import pytest

from pycompile.common import knobs

import fuzz_cnn as C

COUNT = max(16, knobs.get("PYCOMPILE_FUZZ_EXAMPLES") // 15)
BATCH = 10


@pytest.mark.parametrize("start", range(0, COUNT, BATCH))
def test_random_cnn_programs_compiled_equal_pynative(start, tmp_path):
    seeds = list(range(start, min(start + BATCH, COUNT)))
    failures = C.run_batch(seeds, tmp_path)
    assert not failures, failures
    failures = C.grad_batch(seeds, tmp_path)
    assert not failures, failures


def test_random_optimizer_updates_compiled_equal_pynative(tmp_path):
    failures = {s: why for s in range(max(6, COUNT // 3)) if (why := C.check_optimizer(s, tmp_path))}
    assert not failures, failures


def test_cnn_generator_covers_the_family():
    text = "\n".join(C.CnnCase(s).src for s in range(COUNT)) + "\n".join(
        C.optimizer_expr(C.random.Random(s)) for s in range(max(6, COUNT // 3)))
    for construct in ("ops.conv2d(", "'same'", "'pad'", "'valid'", "ops.max_pool2d(", "ops.avg_pool2d(", "True)",
                      "nn.SGD(", "nn.Adam"):
        assert construct in text, construct
    assert any(", 2)" in ln and "conv2d" in ln for ln in text.splitlines()), "no grouped convolution"
