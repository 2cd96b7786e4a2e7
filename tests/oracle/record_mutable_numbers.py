"""Records, with the MindSpore 2.10 wheel (run ONLY in its venv), what ms.jit functions return when
they compute with ms.mutable numbers (the cases of mutable_number_cases.py) ->
data/mutable_numbers.json (checked by tests/compiler/test_mutable_numbers.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mutable_number_cases import cases, describe  # noqa: E402
from record_common import DATA_DIR, write_json  # noqa: E402


def main():
    import mindspore as ms
    out = {}
    for name, fn, args in cases(ms):
        try:
            out[name] = describe(ms.jit(fn)(*args()))
        except Exception as e:  # noqa: BLE001 - the exception class is the record
            out[name] = {"error": type(e).__name__}
    write_json(os.path.join(DATA_DIR, "mutable_numbers.json"), out)


if __name__ == "__main__":
    main()
