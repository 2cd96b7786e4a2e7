"""mint.nn layers whose Parameters (names, shapes, dtypes, trainable) record_mint_layers.py records
from MindSpore 2.10 and tests/ops/test_mint_layers.py compares: name -> constructor call text.
(The wheel builds these layers but has no CPU kernel to run most of them: their values are checked
against NumPy in the test.)"""

LAYERS = {
    "conv2d": "mint.nn.Conv2d(3, 4, 3, padding=1)",
    "conv2d_groups_nobias": "mint.nn.Conv2d(4, 6, (3, 2), stride=2, groups=2, bias=False)",
    "conv1d": "mint.nn.Conv1d(3, 2, 3)",
    "batchnorm2d": "mint.nn.BatchNorm2d(3)",
    "batchnorm1d_noaffine": "mint.nn.BatchNorm1d(4, affine=False)",
    "embedding": "mint.nn.Embedding(5, 3, padding_idx=1)",
    "maxpool2d": "mint.nn.MaxPool2d(2)",
    "groupnorm": "mint.nn.GroupNorm(2, 4)",
    "groupnorm_noaffine": "mint.nn.GroupNorm(2, 4, affine=False)",
    "prelu": "mint.nn.PReLU(3, 0.1)",
    "avgpool2d": "mint.nn.AvgPool2d(3, 2, 1)",
}
