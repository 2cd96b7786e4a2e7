"""NumPy-checked specs of the CNN family's ops, built from the references of cnn_refs.py
(imported by op_specs.py, which extends its CASES with these)."""
from __future__ import annotations

import numpy as np

from cnn_refs import _a, _conv_attrs, all_cases, ref_conv
from op_specs import Case

from pycompile import ops
from pycompile.ops import OPS

CNN_CASES = [Case(n, o, fn, ref, args) for n, o, fn, ref, args in all_cases()]
# FusedConv is made by the compiler only (tests/compiler/test_conv_epilogue.py runs it)
CNN_CASES.append(Case("FusedConv eager", "FusedConv",
                      lambda x, w, b: ops.apply(OPS["FusedConv"], [x, w, (b,)], dict(
                          _conv_attrs((1, 1), (1, 1), (1, 1, 1, 1), 1),
                          program=(("Add", ("acc",), ("extra", 0)), ("ReLU", ("step", 0))), fold_scale=False)),
                      lambda x, w, b: np.maximum(ref_conv(x, w, (1, 1), (1, 1), (1, 1, 1, 1), 1) + b, 0),
                      (_a(1, 2, 4, 4), _a(3, 2, 3, 3, seed=1), _a(1, 3, 1, 1, seed=2))))
