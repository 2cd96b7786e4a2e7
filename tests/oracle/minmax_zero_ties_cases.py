"""Ties between -0 and +0 (the only equal floats with different bits) in ReduceMin / ReduceMax:
the inputs record_minmax_zero_ties.py gives MindSpore 2.10 and tests/compiler/test_minmax_zero_ties.py
gives pycompile in both modes. Shared by both (no MindSpore import here)."""
import numpy as np

DTYPES = ("float16", "float32", "float64")


def _zeros_row(n: int, first_negative: bool, seed: int) -> list:
    """n values >= 0 with several zeros: the first zero -0 (or +0), the later ones the other sign."""
    rng = np.random.default_rng(seed)
    row = rng.integers(1, 9, n).astype(float)
    at = sorted(rng.choice(n, min(4, n), replace=False).tolist())
    for k, i in enumerate(at):
        row[i] = -0.0 if (k == 0) == first_negative else 0.0
    return row.tolist()


def cases() -> list:
    """(name, values, shape, axis): every reduction path of the generated C (a last-axis row,
    columns, non-contiguous axes, all axes) and of NumPy (short rows, rows past a vector)."""
    out = []
    for first_negative in (True, False):
        s = "neg_first" if first_negative else "pos_first"
        out.append((f"pair_{s}", [-0.0, 0.0] if first_negative else [0.0, -0.0], (2,), 0))
        for n in (3, 9, 37, 130):
            out.append((f"row{n}_{s}", _zeros_row(n, first_negative, n), (n,), 0))
        rows = sum((_zeros_row(40, first_negative, 100 + r) for r in range(3)), [])
        out.append((f"last_axis_{s}", rows, (3, 40), 1))
        cube = sum((_zeros_row(4, first_negative, 200 + r) for r in range(6)), [])
        out.append((f"axes02_{s}", cube, (2, 3, 4), (0, 2)))
        out.append((f"axis1_{s}", cube, (2, 3, 4), 1))
        out.append((f"all_{s}", cube, (2, 3, 4), None))
    return out


def inputs(values, shape, dtype: str, op: str) -> np.ndarray:
    """ReduceMax gets the values negated (its ties are at the top too)."""
    x = np.array(values, dtype=np.float64).reshape(shape)
    return (-x if op == "ReduceMax" else x).astype(dtype)
