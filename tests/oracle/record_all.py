"""Run every oracle recorder, one subprocess each (run ONLY in the MindSpore venv):

    . /work/ms-venv/bin/activate && python tests/oracle/record_all.py
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDERS = ["record_autodiff.py", "record_optimizers.py", "record_lr_schedules.py",
             "record_loss_scale.py", "record_checkpoint.py", "record_robustness.py", "record_export.py",
             "record_autodiff_transforms.py", "record_amp_auto_ops.py"]


def main():
    failed = []
    for name in RECORDERS:
        t0 = time.time()
        p = subprocess.run([sys.executable, os.path.join(HERE, name)], capture_output=True, text=True)
        wrote = [ln for ln in p.stderr.splitlines() if ln.startswith("wrote ")]
        print(f"{name}: exit {p.returncode} in {time.time() - t0:.0f}s; " + "; ".join(wrote))
        if p.returncode:
            failed.append(name)
            print(p.stderr[-3000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
