"""Helpers of the pycompile command (cli.py): the entry of a MindSpore model file, and the
`--check` comparison (random arguments of an entry's signature, the outputs' leaves, compiled
against PyNative within a tolerance)."""
from __future__ import annotations

import os

import numpy as np


def mindir_entries(path: str, entry_cls, error_cls) -> list:
    """The one entry of a MINDIR or ONNX file: `nn.GraphCell(ms.load(path))` (`pycompile.onnx.load(path)`
    for a .onnx file), named after the file, its inputs the graph's declared inputs (a -1 dimension
    is compiled at size 1 unless --input gives it). A file the loader or GraphCell refuses raises
    `error_cls` with their message (it names the file)."""
    import re
    from pycompile.common.tensor import Tensor
    from pycompile.export.mindir_load import load
    from pycompile.nn.graph_cell import GraphCell
    try:
        if path.lower().endswith(".onnx"):
            from pycompile.export.onnx_load import load as load_onnx
            cell = load_onnx(path)
        else:
            cell = GraphCell(load(path))
    except (ValueError, RuntimeError, TypeError, NotImplementedError, ImportError) as e:
        raise error_cls(f"{type(e).__name__}: {e}") from e
    graph = cell._graph
    cell.set_inputs(*(Tensor(shape=[None if d == -1 else d for d in shape], dtype=dt) for _, shape, dt in graph.inputs))
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "model"
    # MindSpore names inputs "<graph>:x": --input takes the part after the last ':' (input<k> when
    # that is no identifier, or repeats)
    names = []
    for k, (full, _, _) in enumerate(graph.inputs):
        short = str(full).rsplit(":", 1)[-1]
        names.append(short if short.isidentifier() and short not in names else f"input{k}")
    return [entry_cls(name, "cell", cell, [(n, False) for n in names])]


def random_like(args, rng):
    """Arguments of the same signature: normal floats, small ints, random bools."""
    from pycompile.common.parameter import Parameter
    from pycompile.common.tensor import Tensor
    out = []
    for a in args:
        if isinstance(a, Tensor) and not isinstance(a, Parameter):
            shape, dt = a.shape, a.dtype.np
            if dt.kind == "f":
                arr = rng.standard_normal(shape).astype(dt)
            elif dt.kind in "iu":
                arr = rng.integers(0, 8, shape).astype(dt)
            elif dt.kind == "b":
                arr = rng.random(shape) < 0.5
            else:
                arr = np.zeros(shape, dt)
            out.append(Tensor(np.ascontiguousarray(arr)))
        elif isinstance(a, (tuple, list)):
            out.append(type(a)(random_like(a, rng)))
        else:
            out.append(a)
    return tuple(out)


def copy_args(args):
    from pycompile.common.parameter import Parameter
    from pycompile.common.tensor import Tensor
    out = []
    for a in args:
        if isinstance(a, Tensor) and not isinstance(a, Parameter):
            out.append(Tensor(a._data.copy()))
        elif isinstance(a, (tuple, list)):
            out.append(type(a)(copy_args(a)))
        else:
            out.append(a)
    return tuple(out)


def leaves(value) -> list:
    from pycompile.common.tensor import Tensor
    if isinstance(value, Tensor):
        return [np.asarray(value._data)]
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value, key=str) for x in leaves(value[k])]
    if isinstance(value, (bool, int, float, np.generic)):
        return [np.asarray(value)]
    return [value]


_RTOL = {2: 1e-2, 4: 1e-4, 8: 1e-9}


def compare(got: list, want: list) -> tuple[float, str]:
    """(max abs error, what is wrong or "") of compiled `got` against PyNative `want`. Floats
    pass within a relative tolerance of the output's magnitude; other dtypes must be equal."""
    if len(got) != len(want):
        return float("inf"), f"{len(got)} outputs, PyNative returned {len(want)}"
    err = 0.0
    for k, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, np.ndarray) or not isinstance(g, np.ndarray):
            if type(g) is not type(w) or not (g is w or g == w):
                return float("inf"), f"output {k}: {g!r}, PyNative {w!r}"
            continue
        if g.shape != w.shape or g.dtype != w.dtype:
            return float("inf"), f"output {k}: {g.dtype}{list(g.shape)}, PyNative {w.dtype}{list(w.shape)}"
        if w.size == 0:
            continue
        w64, g64 = w.astype(np.float64), g.astype(np.float64)
        same = (np.isnan(w64) & np.isnan(g64)) | (w64 == g64)
        diff = np.where(same, 0.0, np.abs(g64 - w64))
        e = float(np.nan_to_num(diff, nan=np.inf).max())
        err = max(err, e)
        tol = 0.0
        if w.dtype.kind == "f":
            finite = np.abs(w64[np.isfinite(w64)])
            tol = _RTOL.get(w.dtype.itemsize, 1e-4) * max(1.0, float(finite.max()) if finite.size else 1.0)
        if e > tol:
            return err, f"output {k}: max abs error {e:.3g} exceeds tolerance {tol:.3g}"
    return err, ""
