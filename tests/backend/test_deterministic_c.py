"""The same program gives byte-identical C in two fresh processes, whatever was compiled
before in each and whatever the hash seed: C names are numbered in emission order
(backend/c/naming.py), not from the process-wide IR uids."""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    import pycompile as ms
    from pycompile import nn, ops

    if sys.argv[1] == "warm":          # shifts every IR uid of what follows
        @ms.jit
        def other(x):
            return ops.exp(x) * 3 + ops.sin(x)
        other(ms.Tensor(np.ones((5, 7), np.float32)))

    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.full((8, 8), 0.1, np.float32)), name="w")

        def construct(self, x):
            return ops.relu(ops.matmul(x, self.w)) + 1

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = Block()

        def construct(self, x, n):
            y = x
            for i in range(n):
                y = self.a(y)
            y = self.b(y)
            if y.sum() > 3:
                y = y * 2
            return ops.tanh(y).sum()

    net = Net()

    def f(x):
        return ms.grad(lambda a: net(a, 3))(x)

    report = ms.inspect(ms.jit(f), ms.Tensor(np.ones((4, 8), np.float32)))
    sys.stdout.write(report.c_source)
''')


def _c_source(tmp_path, warm, seed):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    env = dict(os.environ, PYTHONHASHSEED=str(seed), MS_COMPILER_CACHE_ENABLE="0")
    out = subprocess.run([sys.executable, str(prog), warm], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_c_is_byte_identical_across_processes(tmp_path):
    first = _c_source(tmp_path, "cold", 1)
    second = _c_source(tmp_path, "warm", 7)
    assert "pc_entry" in first and len(first) > 1000
    assert first == second
