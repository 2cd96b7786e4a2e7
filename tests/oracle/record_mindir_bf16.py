"""Export with MindSpore 2.10 a graph that casts to bfloat16, scales by 2 (Muls) and casts back, as
data/mindir/bf16_cast.mindir: what tests/export/test_bf16_export.py loads and runs, and where it reads
the wheel's numbers for bfloat16 (Cast's dst_type TypeId, the value's TensorProto data type).

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_mindir_bf16.py"""
import os

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))


class _Net(nn.Cell):
    def construct(self, x):
        return ops.cast(ops.cast(x, ms.bfloat16) * 2, ms.float32)


def main():
    path = os.path.join(HERE, "data", "mindir", "bf16_cast")
    ms.export(_Net(), Tensor(np.ones((2, 3), np.float32)), file_name=path, file_format="MINDIR")
    print("wrote", path + ".mindir")


if __name__ == "__main__":
    main()
