"""mindspore.dataset.transforms: Fill, Mask (with Relational), Duplicate, Concatenate, Slice,
PadEnd, Unique, RandomApply, RandomChoice, RandomOrder. Outputs, dtypes and error messages are
MindSpore 2.10's, recorded from the wheel (tests/dataset/test_more_transforms.py); its pipeline
errors are RuntimeErrors carrying "[ERROR] <Op>: ...", kept word for word."""
from __future__ import annotations

import enum

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.dataset.transforms._base import RandomOperation, TensorOperation


def _fail(message: str):
    return RuntimeError(f"Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n"
                        f"[ERROR] {message}")


def _numeric(a: np.ndarray) -> bool:
    return a.dtype.kind in "biuf"


def _cast_scalar(value, dtype: np.dtype):
    """A Python scalar converted to `dtype` as C converts (300 in uint8 is 44, 2.5 in int32 is 2)."""
    with np.errstate(all="ignore"):
        return np.array(value).astype(dtype)


class Fill(TensorOperation):
    """Every element set to `fill_value`, converted to the input's dtype."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (str, bytes, bool, int, float, np.generic)):
            raise TypeError(f"Argument fill_value with value {fill_value!r} is not of type [<class 'str'>, "
                            "<class 'float'>, <class 'bool'>, <class 'int'>, <class 'bytes'>], but got "
                            f"{type(fill_value)}.")
        self.fill_value = fill_value

    def _apply(self, x):
        if isinstance(self.fill_value, (str, bytes)) != (not _numeric(x)):
            kind = "string" if isinstance(self.fill_value, (str, bytes)) else "numeric"
            raise _fail(f"Fill: fill_value and the input tensor must be of the same data type when involving "
                        f"strings or bytes, but got fill_value data type {kind} and input tensor data type {x.dtype}")
        if not _numeric(x):
            return np.full(x.shape, self.fill_value)        # a string array sized to the value
        return np.full(x.shape, _cast_scalar(self.fill_value, x.dtype), x.dtype)


class Relational(enum.IntEnum):
    """The comparison Mask applies: input <op> constant."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less, Relational.LE: np.less_equal}


class Mask(TensorOperation):
    """`input <operator> constant` elementwise (the constant converted to the input's dtype first),
    as `dtype` (default bool)."""

    def __init__(self, operator, constant, dtype=mstype.bool_):
        if not isinstance(operator, Relational):
            raise TypeError(f"Argument operator with value {operator!r} is not of type [<enum 'Relational'>], "
                            f"but got {type(operator)}.")
        self.operator, self.constant = operator, constant
        self._np = dtype.np if isinstance(dtype, mstype.DType) else np.dtype(dtype)

    def _apply(self, x):
        if isinstance(self.constant, (str, bytes)) == _numeric(x):
            raise _fail("Mask: input datatype does not match the value datatype, both should be numeric or "
                        "non-numerical in the same time.")
        value = self.constant if not _numeric(x) else _cast_scalar(self.constant, x.dtype)
        return _COMPARE[self.operator](x, value).astype(self._np)


class Duplicate(TensorOperation):
    """Two copies of the input (map it with output_columns naming both)."""

    def _apply(self, x):
        return x.copy(), x.copy()


class Concatenate(TensorOperation):
    """`prepend`, the input and `append` joined along axis 0 (1-D tensors only, as MindSpore)."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError("only 1D concatenation supported.")
        for v, what in ((prepend, "prepend"), (append, "append")):
            if v is not None and np.asarray(v).ndim != 1:
                raise ValueError(f"can only {what} 1D arrays.")
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def _apply(self, x):
        if x.ndim != 1:
            raise _fail(f"Concatenate: only 1D input supported, got rank of input: {x.ndim}")
        parts = []
        for v, what in ((self.prepend, "prepend"), (self.append, "append")):
            if v is not None and v.dtype != x.dtype:
                raise _fail(f"Concatenate: input datatype does not match the {what} datatype, got input datatype: "
                            f"{x.dtype}, {what} datatype:{v.dtype}")
        if self.prepend is not None:
            parts.append(self.prepend)
        parts.append(x)
        if self.append is not None:
            parts.append(self.append)
        return np.concatenate(parts)


class Slice(TensorOperation):
    """The input indexed by one selector per leading axis: an int, a list of ints, a slice with
    step 1 (MindSpore refuses other steps), None (the whole axis) or Ellipsis."""

    def __init__(self, *slices):
        self.slices = slices

    def _apply(self, x):
        if len(self.slices) > x.ndim:
            raise _fail("Invalid shape, should be greater than slices index.")
        index = []
        for s in self.slices:
            if s is None or s is Ellipsis:
                index.append(slice(None))
            elif isinstance(s, slice):
                if s.step not in (None, 1):
                    raise _fail("Wrong slice object")
                index.append(s)
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool):
                index.append([int(s)])
            else:
                index.append(list(s))
        out = x
        for axis, sel in enumerate(index):
            out = out[(slice(None),) * axis + (sel,)]
        return out


class PadEnd(TensorOperation):
    """The input padded at the end of every axis (or cut) to `pad_shape` with `pad_value`
    (default 0, or '' for strings)."""

    def __init__(self, pad_shape, pad_value=None):
        self.pad_shape = list(pad_shape)
        self.pad_value = pad_value

    def _apply(self, x):
        if len(self.pad_shape) != x.ndim:
            raise _fail(f"PadEnd: invalid pad shape, as rank of input is: {x.ndim}, and rank of pad value: "
                        f"{len(self.pad_shape)}")
        value = self.pad_value
        if value is not None and isinstance(value, (str, bytes)) == _numeric(x):
            kind = "string" if isinstance(value, (str, bytes)) else str(x.dtype)
            raise _fail(f"PadEnd: can not pad numeric and string tensors together, but got: {kind} and {x.dtype}.")
        fill = (0 if _numeric(x) else "") if value is None else value
        out = np.full(self.pad_shape, _cast_scalar(fill, x.dtype) if _numeric(x) else fill, x.dtype)
        keep = tuple(slice(0, min(a, b)) for a, b in zip(x.shape, self.pad_shape))
        out[keep] = x[keep]
        return out


class Unique(TensorOperation):
    """(the distinct values in order of first appearance, each element's index among them, each
    value's count) of the flattened input; int32 indices and counts. The input must be at least
    2-D (MindSpore's rule)."""

    def _apply(self, x):
        if x.ndim < 2:
            raise _fail(f"Unique: input must be at least 2-D in order to do unique op, got rank:{x.ndim}")
        flat = x.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")                # first appearance order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse.reshape(-1)].astype(np.int32), counts[order].astype(np.int32)


def _transform_list(name, transforms):
    if not isinstance(transforms, list):
        raise TypeError(f"{name}: transforms is not a list.")
    if not transforms:
        raise ValueError(f"{name}: transforms list is empty.")
    if not all(callable(t) for t in transforms):
        raise TypeError(f"{name}: every transform must be callable.")
    return transforms


def _run(rng, op, values):
    random_apply = getattr(op, "_apply_random", None)
    out = random_apply(rng, *values) if random_apply else op(*values)
    return out if isinstance(out, tuple) else (out,)


def _result(values):
    return values if len(values) > 1 else values[0]


class RandomApply(RandomOperation):
    """With probability `prob`, `transforms` applied in order; otherwise the input unchanged."""

    def __init__(self, transforms, prob=0.5):
        self.transforms = _transform_list("RandomApply", transforms)
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.prob = prob

    def _apply_random(self, rng, *arrays):
        values = arrays
        if rng.random() < self.prob:
            for op in self.transforms:
                values = _run(rng, op, values)
        return _result(values)


class RandomChoice(RandomOperation):
    """One of `transforms`, chosen uniformly at random, applied."""

    def __init__(self, transforms):
        self.transforms = _transform_list("RandomChoice", transforms)

    def _apply_random(self, rng, *arrays):
        return _result(_run(rng, self.transforms[int(rng.integers(len(self.transforms)))], arrays))


class RandomOrder(RandomOperation):
    """`transforms` applied in a random order."""

    def __init__(self, transforms):
        self.transforms = _transform_list("RandomOrder", transforms)

    def _apply_random(self, rng, *arrays):
        values = arrays
        for k in rng.permutation(len(self.transforms)):
            values = _run(rng, self.transforms[int(k)], values)
        return _result(values)


__all__ = ["Fill", "Mask", "Relational", "Duplicate", "Concatenate", "Slice", "PadEnd", "Unique", "RandomApply",
           "RandomChoice", "RandomOrder"]
