"""Record MindSpore's gradients through tensor loops that assign a Parameter (issue 31) into
data/loop_grads.json.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_loop_grads.py

Each case is a module text defining `Prog` (the Cell) and `Grad` (its gradient Cell); the
recorder runs `Grad(Prog())(*inputs)` in GRAPH_MODE and in PYNATIVE_MODE, each time on a fresh
`Prog`, and writes the encoded gradients and the Parameters' values after the call. The cases:
the spec's BackwardNet with a tensor `if` in the loop (issue 31 item 1), a runtime `while`
and a `for` over a range in float32, and programs of tests/compiler/fuzz_loop_grads.py
(float64, gradients of the inputs and of the Parameters). MindSpore's two modes differ where a
Parameter is read and then assigned: GRAPH_MODE differentiates each read at the value it saw,
PYNATIVE_MODE at the value the Parameter has when the backward runs. For the fuzzer's programs
"pynative_copy_reads" is PYNATIVE_MODE on the program with each read written `(self.w + 0)`:
every read differentiated at the value it saw, by MindSpore. GRAPH_MODE gives that too, except
for a read *before* a runtime `while` that assigns the Parameter (seeds 8 and 30): there
MindSpore 2.10's graph takes the value after the loop, which finite differences contradict;
pycompile follows the read's value (tests/autodiff/test_loop_param_grads.py).
"""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compiler"))
import record_common as rc  # noqa: E402
import fuzz_loop_grads as F  # noqa: E402  (text only: imports no framework)

import numpy as np  # noqa: E402
import mindspore as ms  # noqa: E402

SPEC = F.HEADER + '''
import numpy as np


class Prog(nn.Cell):
    def __init__(self, max_cycles=3):
        super().__init__()
        self.max_cycles = max_cycles
        self.i = Tensor(np.array(0), ms.int32)
        self.zero = Tensor(np.array(0), ms.int32)
        self.weight = Parameter(Tensor(np.array(0), ms.int32), name="weight")

    def construct(self, x, y):
        i = self.i
        out = self.zero
        while i < self.max_cycles:
            ops.assign(self.weight, i)
            if x < y:
                out = out + x * self.weight
            else:
                out = out + y * self.weight
            i = i + 1
        return out


class Grad(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.forward_net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, *inputs):
        return self.grad(self.forward_net)(*inputs)
'''

LOOPS = F.HEADER + '''
import numpy as np


class Prog(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array(0.5), ms.float32), name="w")

    def construct(self, x, y, n):
        i = ops.zeros_like(n)
        out = x * 0
        LOOP
            ops.assign(self.w, ops.cast(i, ms.float32) + 1.5)
            if x < y:
                out = out + x * self.w
            else:
                out = out + y * self.w
            out = out * self.w
            i = i + 1
        return out


class Grad(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, *inputs):
        return self.grad(self.net)(*inputs)
'''


def _spec_inputs():
    return [np.array(1, np.int32), np.array(3, np.int32)]


def _loop_inputs(x):
    return [np.array(x, np.float32), np.array(3.0, np.float32), np.array(3, np.int32)]


def cases():
    out = [("spec_while_tensor_if_int32", SPEC, _spec_inputs()),
           ("spec_while_tensor_if_int32_else", SPEC, [np.array(4, np.int32), np.array(3, np.int32)])]
    for x in (1.25, 4.0):
        out.append((f"runtime_while_float32_x{x}", LOOPS.replace("LOOP", "while i < n:"), _loop_inputs(x)))
        out.append((f"for_range_float32_x{x}", LOOPS.replace("LOOP", "for _ in range(3):"), _loop_inputs(x)))
    for seed in (3, 8, 14, 26, 30):
        g = F.Gen(seed)
        out.append((f"fuzz_seed_{seed}", g.source(copy_reads=False), list(g.arrays()), g.source(copy_reads=True)))
    return out


def run(src, inputs, mode, directory, stem):
    path = os.path.join(directory, f"{stem}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[stem] = mod             # (MindSpore's parser looks the module up by name)
    spec.loader.exec_module(mod)
    ms.set_context(mode=mode)
    net = mod.Prog()
    grads = mod.Grad(net)(*(ms.Tensor(a) for a in inputs))
    return {"grads": rc.encode(grads), "params_after": [rc.encode(ms.Tensor(p.asnumpy())) for p in net.get_parameters()]}


def main():
    data = rc.meta("tests/oracle/record_loop_grads.py")
    data["cases"] = []
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        for k, (name, src, inputs, *copy) in enumerate(cases()):
            results = {}
            runs = [("graph", ms.GRAPH_MODE, src), ("pynative", ms.PYNATIVE_MODE, src)]
            runs += [("pynative_copy_reads", ms.PYNATIVE_MODE, c) for c in copy]
            for label, mode, text in runs:
                try:
                    results[label] = run(text, inputs, mode, d, f"case_{k}_{label}")
                except Exception as e:          # noqa: BLE001 - recorded, not hidden
                    results[label] = rc.encode_error(e)
            data["cases"].append({"name": name, "source": src, "inputs": [rc.encode(a) for a in inputs],
                                  "results": results})
            print(name, results["graph"].get("grads"), file=sys.stderr)
    rc.write_json(os.path.join(HERE, "data", "loop_grads.json"), data)


if __name__ == "__main__":
    main()
