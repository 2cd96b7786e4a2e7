"""Record MindSpore 2.10's gradients where the differentiated tensor is also read another way
(run ONLY in the MindSpore venv, from a scratch directory):

    cd $(mktemp -d) && /work/ms-venv/bin/python /path/to/tests/oracle/record_grad_alias.py

Writes data/grad_alias.json: per case, the gradient MindSpore's graph mode (ms.jit) gives and
the one its PyNative mode gives. They differ: graph mode differentiates with respect to the
function's parameter (a closure reading the same tensor, or the tensor passed at two positions,
is a constant for it: the partial derivative), PyNative with respect to the tensor object (the
total one). tests/autodiff/test_core32c_grad_alias.py holds pycompile's two modes to the
graph-mode (partial) result, which pycompile's PyNative already gave.
"""
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import grad_alias_cases as C  # noqa: E402


def main():
    import mindspore as ms
    from mindspore import Tensor
    out = []
    for name, fn in C.cases(ms).items():
        x = Tensor(C.input_array())
        rec = {"name": name}
        for mode, f in (("graph", ms.jit(fn)), ("pynative", fn)):
            g = f(x)
            g = g if isinstance(g, tuple) else (g,)
            rec[mode] = [t.asnumpy().tolist() for t in g]
        out.append(rec)
        print(name, rec, flush=True)
    (HERE / "data" / "grad_alias.json").write_text(json.dumps({"mindspore": ms.__version__, "results": out}, indent=1))


if __name__ == "__main__":
    main()
