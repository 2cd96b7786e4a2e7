"""Devices choose passes and state what they render (issue 32, item 5; backend/devices.py).

A test device that renders neither Softmax, LayerNorm nor FusedConv compiles a program using all
three: the pre-render pass gives it their decompositions (FusedConv, which the CPU's
`conv_epilogue` pass makes after it, is expanded again before fusion), the rows are gone from the
optimized graph, and the values equal the CPU device's within docs/architecture.md's figures for
these fast paths (Softmax within 2 ulps, LayerNorm and the convolution epilogue bit for bit). A
row a device neither renders nor can decompose is a CompileError naming the op, the device and
the user's line. The pipeline runs a device's chosen passes only (`layout`, `conv_epilogue` are
the CPU's), and the compile-cache key holds the device's passes and unrendered rows.
"""
import numpy as np
import pytest

import pycompile as ms
from pycompile import ops
from pycompile.backend import devices, pipeline
from pycompile.backend.cpu import CPU
from pycompile.common import context
from pycompile.errors import CompileError
from pycompile.ops import prims as P
from pycompile.ops.functional import layer_norm


class NoFastPaths(CPU):
    name = "TestNoFastPaths"
    description = "test: the CPU's code without three fast paths"

    def renders(self, op) -> bool:
        return op not in (P.Softmax, P.LayerNorm, P.FusedConv)


class NoExp(CPU):
    name = "TestNoExp"
    description = "test: a core row it cannot render"

    def renders(self, op) -> bool:
        return op is not P.Exp


class NoDevicePasses(CPU):
    name = "TestNoDevicePasses"
    description = "test: the CPU's rendering without the CPU's passes"
    passes = ()


@pytest.fixture
def use_device(monkeypatch):
    def use(dev):
        monkeypatch.setitem(devices._REGISTRY, dev.name, dev)
        monkeypatch.setattr(context, "_DEVICE_TARGETS", context._DEVICE_TARGETS + [dev.name])
        ms.set_context(device_target=dev.name)
    return use


def fast_paths(x, g, b, img, w, cb):
    s = ops.softmax(x, -1)
    y = layer_norm(x, g, b)[0]
    c = ops.relu(ops.conv2d(img, w, pad_mode="pad", padding=1) + cb.reshape(1, -1, 1, 1)) * 0.5
    return s, y, c


def _args():
    r = np.random.default_rng(5)
    shapes = [(6, 33), (33,), (33,), (2, 3, 7, 6), (4, 3, 3, 3), (4,)]
    return [ms.Tensor(r.standard_normal(s).astype(np.float32)) for s in shapes]


ROWS = ("Softmax(", "LayerNorm(", "FusedConv(")


def test_a_device_that_lacks_fast_paths_gets_their_decompositions(use_device):
    args = _args()
    j = ms.jit(fast_paths)
    cpu_out = [t.asnumpy() for t in j(*args)]
    cpu = ms.inspect(j, *args)
    assert all(row in cpu.ir_after for row in ROWS)           # the CPU renders all three
    use_device(NoFastPaths())
    out = [t.asnumpy() for t in j(*args)]
    report = ms.inspect(j, *args)
    assert not [row for row in ROWS if row in report.ir_after], report.ir_after
    names = [s.name for s in report.pass_stats]
    assert "conv_epilogue" in names and "decompose_unrendered" in names
    np.testing.assert_array_max_ulp(out[0], cpu_out[0], maxulp=2)
    np.testing.assert_array_equal(out[1], cpu_out[1])
    np.testing.assert_array_equal(out[2], cpu_out[2])


def exp_of(x):
    return ops.exp(x) + 1


def test_a_row_neither_rendered_nor_decomposable_is_a_compile_error(use_device):
    use_device(NoExp())
    with pytest.raises(CompileError) as e:
        ms.jit(exp_of)(ms.Tensor(np.ones(3, np.float32)))
    msg = str(e.value)
    assert "'TestNoExp' does not render the op Exp" in msg and "no decomposition" in msg
    assert "test_device_render.py" in msg and "ops.exp(x)" in msg     # the user's line


def test_only_the_devices_own_passes_run(use_device):
    from pycompile.compiler.frontend import trace
    from pycompile.compiler.passes import DEVICE_PASSES, run_pipeline
    from pycompile.compiler.printer import print_graph
    args = _args()
    assert CPU.passes == ("layout", "conv_epilogue")
    for dev in devices._REGISTRY.values():
        assert set(dev.passes) <= set(DEVICE_PASSES), dev
    runs = {}
    for dev in (devices.get("CPU"), NoDevicePasses()):
        use_device(dev)
        opts = pipeline.options()
        graph, stats = run_pipeline(trace(fast_paths, args, {}).graph, opts["opt_level"], False, opts)
        runs[dev.name] = ([s.name for s in stats], print_graph(graph))
    cpu_passes, cpu_graph = runs["CPU"]
    passes, graph = runs["TestNoDevicePasses"]
    assert [p for p in cpu_passes if p not in ("layout", "conv_epilogue")] == passes
    assert "FusedConv(" in cpu_graph and "FusedConv(" not in graph
    with pytest.raises(ValueError, match="asks for the passes \\['tiling'\\]"):
        run_pipeline(trace(exp_of, (args[0],), {}).graph, 3, False, dict(opts, device_passes=("tiling",)))


def test_the_cache_key_holds_the_devices_passes_and_rendered_rows(use_device, tmp_path):
    from pycompile.backend.cache.key import LookupKey
    from pycompile.backend.cache.store import open_store
    store = open_store(str(tmp_path))
    args = (ms.Tensor(np.ones(3, np.float32)),)
    keys = {}
    # three devices of one name: only what they declare differs
    for tag, dev in (("cpu", CPU()), ("no_fast", NoFastPaths()), ("no_passes", NoDevicePasses())):
        dev.name = "TestKeyed"
        use_device(dev)
        keys[tag] = LookupKey(exp_of, args, {}, None, "exp_of", store)
    assert len({k.digest for k in keys.values()}) == 3
    assert '"unrendered": ["FusedConv", "LayerNorm", "Softmax"]' in keys["no_fast"].components["options"]
    assert '"device_passes": []' in keys["no_passes"].components["options"]
