"""Record MindSpore 2.10 running the ops of its amp_level="auto" lists under
`amp.auto_mixed_precision(fn, "auto")` in PyNative (tests/oracle/amp_auto_op_cases.py), once,
in MindSpore's venv, from a temporary directory:

    cd $(mktemp -d) && /work/ms-venv/bin/python /path/to/tests/oracle/record_amp_auto_ops.py

writes data/amp_auto_ops.json. Not collected by pytest.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _promote_list(doc):
    """The promote list is kept in the wheel's C++; its docstring names it (``Addcdiv``, ...)."""
    import re
    para = doc.split("Operators in `promote_list` are:", 1)[1].split("Note:", 1)[0]
    return re.findall(r"``(\w+)``", para)


def main():
    import mindspore as ms
    import amp_auto_op_cases as C
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    from mindspore.train import amp
    out = {"mindspore": ms.__version__, "cases": {},
           "lists": {"low": [p.__name__ for p in amp.AMP_AUTO_WHITE_LIST],
                     "full": [p.__name__ for p in amp.AMP_AUTO_BLACK_LIST],
                     "promote": _promote_list(amp.auto_mixed_precision.__doc__)}}
    for name in C.cases(ms):
        out["cases"][name] = C.run(ms, name)
        print(name, out["cases"][name].get("dtype", out["cases"][name].get("error")), flush=True)
    with open(os.path.join(HERE, "data", "amp_auto_ops.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
