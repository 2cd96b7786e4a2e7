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


def test_seed_50079_two_padded_filter_gradients_compile_in_one_function(tmp_path):
    """Found by a 400-program soak (seed 50079: two 'same' convolutions of few channels, whose
    filter gradients both run the row kernel, conv_filter_rows.py): each declared its padded input
    copy `XP` in the function's scope, and GCC rejected the second definition."""
    assert not C.grad_batch([50079], tmp_path)


def test_seeds_50123_50315_pool_windows_without_input_take_no_gradient(tmp_path):
    """Found by the same soak: `max_pool2d(x, 2, 1, 1, 2)` over a 1 x 1 plane, every window wholly
    in the padding; PyNative's NumPy form sent each window's cotangent to the plane's first
    element, the compiled kernel (and MindSpore 2.10) none. tests/nn/test_pool_inf_windows.py has
    the wheel's values."""
    assert not C.grad_batch([50123, 50315], tmp_path)
