"""Record MindSpore 2.10's outcome of each call in context_cases.CALLS (run ONLY in the MindSpore
venv, from a scratch directory):

    cd /tmp && /work/msvenv/bin/python /path/to/tests/oracle/record_context_errors.py

Writes data/context_errors.json: per call its returned value (repr) or the exception class and the
first line of its message."""
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import context_cases  # noqa: E402


def main():
    import mindspore as ms
    out = []
    for call in context_cases.CALLS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = eval("ms." + call)      # noqa: S307 - the recorder's own call list
            out.append({"call": call, "value": repr(value)})
        except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
            out.append({"call": call, "error": {"type": type(e).__name__, "message": str(e).splitlines()[0]}})
    path = os.path.join(HERE, "data", "context_errors.json")
    with open(path, "w") as f:
        json.dump({"mindspore": ms.__version__, "calls": out}, f, indent=1)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
