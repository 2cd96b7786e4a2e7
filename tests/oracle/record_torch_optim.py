"""Record torch's Adam / AdamW / SGD on optim_step_cases.CASES (run in the bench venv, which has
torch: /work/benchvenv/bin/python tests/oracle/record_torch_optim.py): data/torch_optim_steps.json,
per case the two Parameters after each of the three steps."""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import optim_step_cases as C  # noqa: E402


def main():
    import torch
    out = {"torch": torch.__version__, "cases": {}}
    for name, (cls, groups, kw) in C.CASES.items():
        ws = [torch.nn.Parameter(torch.tensor(w)) for w in C.W0]
        params = ws if groups is None else [dict(params=[w], **g) for w, g in zip(ws, groups)]
        opt = getattr(torch.optim, cls)(params, **kw)
        steps = []
        for grads in C.GRADS:
            for w, g in zip(ws, grads):
                w.grad = torch.tensor(g)
            opt.step()
            steps.append([w.detach().numpy().astype(np.float64).tolist() for w in ws])
        out["cases"][name] = steps
    with open(os.path.join(HERE, "data", "torch_optim_steps.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote data/torch_optim_steps.json")


if __name__ == "__main__":
    main()
