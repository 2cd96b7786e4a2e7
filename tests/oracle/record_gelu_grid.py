"""Record MindSpore 2.10's nn.GELU() (the tanh form) on 24,001 points of [-12, 12] into
data/gelu_tanh_grid.npz. Run with MindSpore's own virtualenv (`pip install mindspore==2.10.0
numpy==1.26.4`), never with pycompile: `python tests/oracle/record_gelu_grid.py`. The wheel gives
the same values in PyNative and graph mode (checked when recorded, 30 Nov)."""
import os

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn

x = np.linspace(-12, 12, 240_001).astype(np.float32)[::10].copy()
values = []
for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
    ms.set_context(mode=mode)
    values.append(nn.GELU()(Tensor(x)).asnumpy())
assert np.array_equal(values[0], values[1])
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gelu_tanh_grid.npz"),
                    x=x, gelu=values[0])
