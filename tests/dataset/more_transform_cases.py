"""Cases for the dataset.transforms of src/pycompile/dataset/transforms/_more.py: (transform
constructor as a lambda of the framework's transforms module, input arrays). Shared by
record_more_transforms.py (MindSpore 2.10) and test_more_transforms.py."""
import numpy as np

A = np.array([3, 1, 2, 3, 1, 5], np.int32)
M2 = np.array([[3, 1], [3, 5]], np.int32)
F2 = np.array([[2.5, 1.0], [2.5, 0.0]], np.float32)
U8 = np.array([1, 200], np.uint8)
S = np.array(["a", "bb", "a"])

CASES = {
    "fill_int": (lambda T: T.Fill(7), [A]),
    "fill_float_into_int": (lambda T: T.Fill(2.5), [A]),
    "fill_wraps_uint8": (lambda T: T.Fill(300), [U8]),
    "fill_bool_into_float": (lambda T: T.Fill(True), [F2]),
    "fill_string": (lambda T: T.Fill("z"), [S]),
    "fill_string_into_int": (lambda T: T.Fill("x"), [A]),
    "mask_gt": (lambda T: T.Mask(T.Relational.GT, 2), [A]),
    "mask_le_float_constant": (lambda T: T.Mask(T.Relational.LE, 2.5), [A]),
    "mask_eq_int32": (lambda T: T.Mask(T.Relational.EQ, 3, _int32(T)), [A]),
    "mask_ne_float": (lambda T: T.Mask(T.Relational.NE, 2.5), [F2]),
    "mask_string": (lambda T: T.Mask(T.Relational.EQ, "a"), [S]),
    "mask_type_mismatch": (lambda T: T.Mask(T.Relational.GT, "a"), [A]),
    "duplicate": (lambda T: T.Duplicate(), [A]),
    "concatenate": (lambda T: T.Concatenate(0, np.array([9, 9], np.int32), np.array([8], np.int32)), [A]),
    "concatenate_append_only": (lambda T: T.Concatenate(-1, append=np.array([0], np.int32)), [A]),
    "concatenate_dtype": (lambda T: T.Concatenate(0, np.array([1.5])), [A]),
    "concatenate_2d_input": (lambda T: T.Concatenate(), [M2]),
    "slice_range": (lambda T: T.Slice(slice(1, 4)), [A]),
    "slice_list": (lambda T: T.Slice([0, 2, 5]), [A]),
    "slice_int": (lambda T: T.Slice(2), [A]),
    "slice_negative": (lambda T: T.Slice(-1), [A]),
    "slice_none": (lambda T: T.Slice(None), [A]),
    "slice_ellipsis": (lambda T: T.Slice(Ellipsis), [A]),
    "slice_2d": (lambda T: T.Slice(slice(0, 1), [1]), [np.arange(6, dtype=np.int64).reshape(2, 3)]),
    "slice_step": (lambda T: T.Slice(slice(None, None, 2)), [A]),
    "slice_too_many": (lambda T: T.Slice(slice(1, 2), slice(0, 1)), [A]),
    "padend": (lambda T: T.PadEnd([8], 0), [A]),
    "padend_default": (lambda T: T.PadEnd([7]), [A]),
    "padend_2d": (lambda T: T.PadEnd([3, 4], -1), [np.ones((2, 3), np.float32)]),
    "padend_cut": (lambda T: T.PadEnd([4]), [A]),
    "padend_mixed_cut_pad": (lambda T: T.PadEnd([1, 4], 7), [M2]),
    "padend_string": (lambda T: T.PadEnd([5], "-"), [S]),
    "padend_rank": (lambda T: T.PadEnd([2, 2]), [A]),
    "padend_string_value": (lambda T: T.PadEnd([8], "x"), [A]),
    "unique": (lambda T: T.Unique(), [M2]),
    "unique_float": (lambda T: T.Unique(), [F2]),
    "unique_3d": (lambda T: T.Unique(), [np.array([[[4, 4], [2, 9]], [[9, 2], [4, 0]]], np.int64)]),
    "unique_1d": (lambda T: T.Unique(), [A]),
}


def _int32(T):
    import importlib
    return importlib.import_module(T.__name__.split(".")[0]).int32
