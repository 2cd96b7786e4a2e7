"""Text forms, checked against MindSpore 2.10: repr(t), print(t) (str), Parameter and Cell reprs,
and ops.Print in PyNative mode. Every expected string below is MindSpore's output, hard-coded."""
from collections import OrderedDict

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, nn, ops
from pycompile import Tensor as T

# (tensor, MindSpore's repr(t), MindSpore's str(t))
TENSOR_TEXT = [
    (lambda: T([1, 2, 3]),
     'Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])',
     '[1 2 3]'),
    (lambda: T(np.array([1, -2, 3], np.int32)),
     'Tensor(shape=[3], dtype=Int32, value= [ 1, -2,  3])',
     '[ 1 -2  3]'),
    (lambda: T([1.5, 2.0, -3.25]),
     'Tensor(shape=[3], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00, -3.25000000e+00'
     '])',
     '[ 1.5   2.   -3.25]'),
    (lambda: T(21.0),
     'Tensor(shape=[], dtype=Float32, value= 21)',
     '21.0'),
    (lambda: T(np.float32(1e-8)),
     'Tensor(shape=[], dtype=Float32, value= 1e-08)',
     '1e-08'),
    (lambda: T(1/3),
     'Tensor(shape=[], dtype=Float32, value= 0.333333)',
     '0.33333334'),
    (lambda: T(1234567.0),
     'Tensor(shape=[], dtype=Float32, value= 1.23457e+06)',
     '1234567.0'),
    (lambda: T(-0.0),
     'Tensor(shape=[], dtype=Float32, value= -0)',
     '-0.0'),
    (lambda: T(3.14159, ms.float16),
     'Tensor(shape=[], dtype=Float16, value= 3.14062)',
     '3.14'),
    (lambda: T(np.float64(1/3)),
     'Tensor(shape=[], dtype=Float64, value= 0.333333)',
     '0.3333333333333333'),
    (lambda: T(5),
     'Tensor(shape=[], dtype=Int64, value= 5)',
     '5'),
    (lambda: T(True),
     'Tensor(shape=[], dtype=Bool, value= True)',
     'True'),
    (lambda: T(False),
     'Tensor(shape=[], dtype=Bool, value= False)',
     'False'),
    (lambda: T([True, False, True]),
     'Tensor(shape=[3], dtype=Bool, value= [ True, False,  True])',
     '[ True False  True]'),
    (lambda: T([1.5, 2.0, 3.14159], ms.float16),
     'Tensor(shape=[3], dtype=Float16, value= [ 1.5000e+00,  2.0000e+00,  3.1406e+00])',
     '[1.5  2.   3.14]'),
    (lambda: T(np.array([1.0, 1/3])),
     'Tensor(shape=[2], dtype=Float64, value= [ 1.00000000e+00,  3.33333333e-01])',
     '[1.         0.33333333]'),
    (lambda: T([[1, 2], [3, 4]]),
     'Tensor(shape=[2, 2], dtype=Int64, value=\n'
     '[[1, 2],\n'
     ' [3, 4]])',
     '[[1 2]\n'
     ' [3 4]]'),
    (lambda: T([[1.0, 2.5], [3.0, 4.0]]),
     'Tensor(shape=[2, 2], dtype=Float32, value=\n'
     '[[ 1.00000000e+00,  2.50000000e+00],\n'
     ' [ 3.00000000e+00,  4.00000000e+00]])',
     '[[1.  2.5]\n'
     ' [3.  4. ]]'),
    (lambda: T(np.arange(8).reshape(2, 2, 2)),
     'Tensor(shape=[2, 2, 2], dtype=Int64, value=\n'
     '[[[0, 1],\n'
     '  [2, 3]],\n'
     ' [[4, 5],\n'
     '  [6, 7]]])',
     '[[[0 1]\n'
     '  [2 3]]\n'
     '\n'
     ' [[4 5]\n'
     '  [6 7]]]'),
    (lambda: T(np.zeros((0, 3), np.float32)),
     'Tensor(shape=[0, 3], dtype=Float32, value=\n'
     ')',
     '[]'),
    (lambda: T(np.zeros((0,), np.int64)),
     'Tensor(shape=[0], dtype=Int64, value= )',
     '[]'),
    (lambda: T([float("nan"), float("inf"), -float("inf")]),
     'Tensor(shape=[3], dtype=Float32, value= [            nan,             inf,            -inf'
     '])',
     '[ nan  inf -inf]'),
    (lambda: T([1.0, float("nan")], ms.float16),
     'Tensor(shape=[2], dtype=Float16, value= [ 1.0000e+00,         nan])',
     '[ 1. nan]'),
    (lambda: T(np.array([3, 200], np.uint8)),
     'Tensor(shape=[2], dtype=UInt8, value= [  3, 200])',
     '[  3 200]'),
    (lambda: T(np.array([-1000, 5, 12])),
     'Tensor(shape=[3], dtype=Int64, value= [-1000,     5,    12])',
     '[-1000     5    12]'),
    (lambda: T(np.arange(13, dtype=np.float32)),
     'Tensor(shape=[13], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+0'
     '0,  3.00000000e+00,  4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00,  8'
     '.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01, \n'
     '  1.20000000e+01])',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12.]'),
    (lambda: T(np.arange(24, dtype=np.int32)),
     'Tensor(shape=[24], dtype=Int32, value= [ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12'
     ', 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23\n'
     ' ])',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23]'),
    (lambda: T(np.ones(12, bool)),
     'Tensor(shape=[12], dtype=Bool, value= [ True,  True,  True,  True,  True,  True,  True,  T'
     'rue,  True,  True,  True,  True\n'
     ' ])',
     '[ True  True  True  True  True  True  True  True  True  True  True  True]'),
    (lambda: T(np.arange(1001, dtype=np.int32)),
     'Tensor(shape=[1001], dtype=Int32, value= [   0,    1,    2 ...  998,  999, 1000])',
     '[   0    1    2 ...  998  999 1000]'),
    (lambda: T(np.arange(14).reshape(7, 2)),
     'Tensor(shape=[7, 2], dtype=Int64, value=\n'
     '[[ 0,  1],\n'
     ' [ 2,  3],\n'
     ' [ 4,  5],\n'
     ' ...\n'
     ' [ 8,  9],\n'
     ' [10, 11],\n'
     ' [12, 13]])',
     '[[ 0  1]\n'
     ' [ 2  3]\n'
     ' [ 4  5]\n'
     ' [ 6  7]\n'
     ' [ 8  9]\n'
     ' [10 11]\n'
     ' [12 13]]'),
    (lambda: T(np.arange(14).reshape(2, 7).astype(np.float32)),
     'Tensor(shape=[2, 7], dtype=Float32, value=\n'
     '[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00 ...  4.00000000e+00,  5.00000000e+00, '
     ' 6.00000000e+00],\n'
     ' [ 7.00000000e+00,  8.00000000e+00,  9.00000000e+00 ...  1.10000000e+01,  1.20000000e+01, '
     ' 1.30000000e+01]])',
     '[[ 0.  1.  2.  3.  4.  5.  6.]\n'
     ' [ 7.  8.  9. 10. 11. 12. 13.]]'),
    (lambda: T(np.arange(8 * 7 * 2).reshape(8, 7, 2)),
     'Tensor(shape=[8, 7, 2], dtype=Int64, value=\n'
     '[[[  0,   1],\n'
     '  [  2,   3],\n'
     '  [  4,   5],\n'
     '  ...\n'
     '  [  8,   9],\n'
     '  [ 10,  11],\n'
     '  [ 12,  13]],\n'
     ' [[ 14,  15],\n'
     '  [ 16,  17],\n'
     '  [ 18,  19],\n'
     '  ...\n'
     '  [ 22,  23],\n'
     '  [ 24,  25],\n'
     '  [ 26,  27]],\n'
     ' [[ 28,  29],\n'
     '  [ 30,  31],\n'
     '  [ 32,  33],\n'
     '  ...\n'
     '  [ 36,  37],\n'
     '  [ 38,  39],\n'
     '  [ 40,  41]],\n'
     ' ...\n'
     ' [[ 70,  71],\n'
     '  [ 72,  73],\n'
     '  [ 74,  75],\n'
     '  ...\n'
     '  [ 78,  79],\n'
     '  [ 80,  81],\n'
     '  [ 82,  83]],\n'
     ' [[ 84,  85],\n'
     '  [ 86,  87],\n'
     '  [ 88,  89],\n'
     '  ...\n'
     '  [ 92,  93],\n'
     '  [ 94,  95],\n'
     '  [ 96,  97]],\n'
     ' [[ 98,  99],\n'
     '  [100, 101],\n'
     '  [102, 103],\n'
     '  ...\n'
     '  [106, 107],\n'
     '  [108, 109],\n'
     '  [110, 111]]])',
     '[[[  0   1]\n'
     '  [  2   3]\n'
     '  [  4   5]\n'
     '  [  6   7]\n'
     '  [  8   9]\n'
     '  [ 10  11]\n'
     '  [ 12  13]]\n'
     '\n'
     ' [[ 14  15]\n'
     '  [ 16  17]\n'
     '  [ 18  19]\n'
     '  [ 20  21]\n'
     '  [ 22  23]\n'
     '  [ 24  25]\n'
     '  [ 26  27]]\n'
     '\n'
     ' [[ 28  29]\n'
     '  [ 30  31]\n'
     '  [ 32  33]\n'
     '  [ 34  35]\n'
     '  [ 36  37]\n'
     '  [ 38  39]\n'
     '  [ 40  41]]\n'
     '\n'
     ' [[ 42  43]\n'
     '  [ 44  45]\n'
     '  [ 46  47]\n'
     '  [ 48  49]\n'
     '  [ 50  51]\n'
     '  [ 52  53]\n'
     '  [ 54  55]]\n'
     '\n'
     ' [[ 56  57]\n'
     '  [ 58  59]\n'
     '  [ 60  61]\n'
     '  [ 62  63]\n'
     '  [ 64  65]\n'
     '  [ 66  67]\n'
     '  [ 68  69]]\n'
     '\n'
     ' [[ 70  71]\n'
     '  [ 72  73]\n'
     '  [ 74  75]\n'
     '  [ 76  77]\n'
     '  [ 78  79]\n'
     '  [ 80  81]\n'
     '  [ 82  83]]\n'
     '\n'
     ' [[ 84  85]\n'
     '  [ 86  87]\n'
     '  [ 88  89]\n'
     '  [ 90  91]\n'
     '  [ 92  93]\n'
     '  [ 94  95]\n'
     '  [ 96  97]]\n'
     '\n'
     ' [[ 98  99]\n'
     '  [100 101]\n'
     '  [102 103]\n'
     '  [104 105]\n'
     '  [106 107]\n'
     '  [108 109]\n'
     '  [110 111]]]'),
    (lambda: T([[True, False], [False, True]]),
     'Tensor(shape=[2, 2], dtype=Bool, value=\n'
     '[[ True, False],\n'
     ' [False,  True]])',
     '[[ True False]\n'
     ' [False  True]]'),
    (lambda: T([1e20, 1e-20]),
     'Tensor(shape=[2], dtype=Float32, value= [ 1.00000002e+20,  9.99999968e-21])',
     '[1.e+20 1.e-20]'),
]


@pytest.mark.parametrize("make, expected_repr, expected_str", TENSOR_TEXT)
def test_tensor_repr_and_str_match_mindspore(make, expected_repr, expected_str):
    t = make()
    assert repr(t) == expected_repr
    assert str(t) == expected_str


def test_print_writes_numpy_text(capsys):
    print(T([1, 2, 3]))
    print(T(21.0))
    print(T(1234567.0))     # NumPy 2 alone would print 1.234567e+06
    assert capsys.readouterr().out == "[1 2 3]\n21.0\n1234567.0\n"


def test_tensor_format_spec():
    assert f"{T(2.5):.2f}" == "2.50"
    assert f"{T([1, 2])}" == "[1 2]"


def test_parameter_repr():
    p = Parameter(T([1.0, 2.0]), name="w")
    assert repr(p) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"
    assert str(p) == repr(p)
    q = Parameter(T(np.ones((2, 3), np.float32)), name="fc.weight", requires_grad=False)
    assert repr(q) == "Parameter (name=fc.weight, shape=(2, 3), dtype=Float32, requires_grad=False)"
    r = Parameter(T(3, ms.int32))
    assert repr(r) == f"Parameter (name={r.name}, shape=(), dtype=Int32, requires_grad=True)"
    assert r.name.startswith("Parameter#")


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.seq = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU(),
                                     nn.SequentialCell([nn.Dense(2, 1, activation="relu"), nn.Sigmoid()]))

    def construct(self, x):
        return self.seq(self.fc(x))


NET_REPR = """\
_Net(
  (fc): Dense(input_channels=3, output_channels=2, has_bias=True)
  (seq): SequentialCell(
    (0): Dense(input_channels=2, output_channels=2, has_bias=True)
    (1): ReLU()
    (2): SequentialCell(
      (0): Dense(
        input_channels=2, output_channels=1, has_bias=True, activation=ReLU()
        (activation): ReLU()
      )
      (1): Sigmoid()
    )
  )
)"""


def test_nested_cell_repr():
    assert repr(_Net()) == NET_REPR


@pytest.mark.parametrize("make, expected", [
    (lambda: nn.Dense(3, 4), "Dense(input_channels=3, output_channels=4, has_bias=True)"),
    (lambda: nn.Dense(3, 4, has_bias=False, activation="relu"),
     "Dense(\n  input_channels=3, output_channels=4, activation=ReLU()\n  (activation): ReLU()\n)"),
    (lambda: nn.ReLU(), "ReLU()"),
    (lambda: nn.GELU(), "GELU()"),
    (lambda: nn.GELU(approximate=False), "GELU()"),
    (lambda: nn.Softmax(), "Softmax()"),
    (lambda: nn.Flatten(), "Flatten()"),
    (lambda: nn.Dropout(p=0.2), "Dropout(p=0.2)"),
    (lambda: nn.Embedding(5, 3),
     "Embedding(vocab_size=5, embedding_size=3, use_one_hot=False, embedding_table=Parameter (name=embedding_table, "
     "shape=(5, 3), dtype=Float32, requires_grad=True), dtype=Float32, padding_idx=None)"),
    (lambda: nn.SequentialCell(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())])),
     "SequentialCell(\n  (a): ReLU()\n  (b): Tanh()\n)"),
    (lambda: nn.CellList([nn.ReLU(), nn.Tanh()]), "CellList(\n  (0): ReLU()\n  (1): Tanh()\n)"),
    (lambda: nn.MSELoss(), "MSELoss()"),
    (lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True), "SoftmaxCrossEntropyWithLogits()"),
])
def test_layer_reprs(make, expected):
    assert repr(make()) == expected


def test_layernorm_repr_without_mindspores_missing_equals_sign():
    # MindSpore 2.10 prints "gammaParameter (...)": a typo pycompile does not copy
    assert repr(nn.LayerNorm((4,))) == (
        "LayerNorm(normalized_shape=(4,), begin_norm_axis=-1, begin_params_axis=-1, "
        "gamma=Parameter (name=gamma, shape=(4,), dtype=Float32, requires_grad=True), "
        "beta=Parameter (name=beta, shape=(4,), dtype=Float32, requires_grad=True))")


def test_ops_print_in_pynative_mode(capsys):
    out = ops.Print()("hello", T([1, 2]), 3, T(1.5), T([[1.0, 2.0]]), (1, 2))
    assert capsys.readouterr().out == (
        "hello\n"
        "Tensor(shape=[2], dtype=Int64, value= [1, 2])\n"
        "3\n"
        "Tensor(shape=[], dtype=Float32, value= 1.5)\n"
        "Tensor(shape=[1, 2], dtype=Float32, value=\n"
        "[[ 1.00000000e+00,  2.00000000e+00]])\n"
        "(1, 2)\n")
    assert out.dtype == ms.int32 and out.shape == ()
    ops.Print()(T(True))
    assert capsys.readouterr().out == "Tensor(shape=[], dtype=Bool, value= True)\n"


def test_ops_print_rejects_objects():
    with pytest.raises(TypeError, match="For 'Print'"):
        ops.Print()(object())


def test_graph_print_form():
    # MindSpore 2.10's graph-mode Print (jit): spaces instead of commas, no space after 'value=',
    # a 0-d tensor as its bare value, bools as 0 / 1
    from pycompile.common._format import print_form
    assert print_form(np.array([1, 2, 3]), "Int64") == "Tensor(shape=[3], dtype=Int64, value=[1 2 3])"
    assert print_form(np.array([[1.5, 2.0]], np.float32), "Float32") == (
        "Tensor(shape=[1, 2], dtype=Float32, value=\n[[ 1.50000000e+00  2.00000000e+00]])")
    assert print_form(np.array(2.5, np.float32), "Float32") == "2.5"
    assert print_form(np.array(21.0, np.float32), "Float32") == "21"
    assert print_form(np.array(True), "Bool") == "1"
    assert print_form(np.arange(30, dtype=np.int32), "Int32") == (
        "Tensor(shape=[30], dtype=Int32, value=[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 "
        "\n 24 25 26 27 28 29])")
    assert print_form(np.arange(14).reshape(7, 2), "Int64") == (
        "Tensor(shape=[7, 2], dtype=Int64, value=\n[[ 0  1]\n [ 2  3]\n [ 4  5]\n ...\n [ 8  9]\n [10 11]\n [12 13]])")
