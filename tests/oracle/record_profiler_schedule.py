"""Record MindSpore 2.10's mindspore.profiler.schedule on the CPU: the action of each step for a set
of schedules, their repr, the warnings its argument checks log (each schedule built in a child
process whose stderr is read), and how many run directories profile(schedule=..., on_trace_ready=
tensorboard_trace_handler(...)) writes over 12 steps.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_profiler_schedule.py

Writes data/profiler_schedule.json."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SCHEDULES = [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1), dict(wait=0, active=1),
             dict(wait=2, warmup=0, active=3, repeat=1), dict(wait=0, warmup=2, active=1, repeat=0, skip_first=3),
             dict(wait=-1, active=1), dict(wait=1, active=0), dict(wait=1.5, active=1),
             dict(wait=1, active=1, repeat=-2), dict(wait=1, active=1, skip_first="a"), dict(wait=1, active=1, warmup=True)]

CHILD = """
import json, sys
from mindspore.profiler import schedule
s = schedule(**json.loads(sys.argv[1]))
print(json.dumps({"repr": repr(s), "actions": [str(s(i)) for i in range(14)]}))
"""

RUN = """
import numpy as np, os, mindspore as ms
from mindspore import nn, Tensor
from mindspore.profiler import schedule, tensorboard_trace_handler, ProfilerActivity
net = nn.Dense(2, 2)
prof = ms.profiler.profile(activities=[ProfilerActivity.CPU],
                           schedule=schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                           on_trace_ready=tensorboard_trace_handler("./tb"))
for i in range(12):
    net(Tensor(np.ones((2, 2), np.float32)))
    prof.step()
prof.stop()
print(len([d for d in os.listdir("./tb") if d.endswith("_ascend_ms")]))
"""


def main():
    out = {"schedules": []}
    for kwargs in SCHEDULES:
        r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kwargs)], capture_output=True, text=True,
                           cwd=tempfile.mkdtemp())
        warnings = [re.sub(r"^\[WARNING\] ME\([^]]*\] ", "", ln) for ln in r.stderr.splitlines()
                    if "profiler/schedule.py" in ln]
        out["schedules"].append({"kwargs": kwargs, **json.loads(r.stdout.strip().splitlines()[-1]),
                                 "warnings": warnings})
    r = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, cwd=tempfile.mkdtemp())
    out["run_dirs_for_repeat_2"] = int(r.stdout.strip().splitlines()[-1])
    with open(os.path.join(HERE, "data", "profiler_schedule.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out, indent=1)[:3000])


if __name__ == "__main__":
    main()
