"""Record MindSpore 2.10's streams of the random ops pycompile follows exactly (issue 33, rand33;
run ONLY in the MindSpore venv):

    /work/ms-venv/bin/python tests/oracle/record_rand33.py     # data/rand33_streams.json

* random_categorical: one RandomCategorical instance called with seeds 5, 5, 6, 5 (a stream per
  seed value, continued call after call), in GRAPH_MODE (a Cell) and PYNATIVE_MODE;
* choice_with_mask: one RandomChoiceWithMask(4, 9) instance called twice (one engine, kept);
* uniform_candidate_sampler: one UniformCandidateSampler(1, 3, True, 10, seed=3) called twice;
* log_uniform_candidate_sampler: LogUniformCandidateSampler(1, 4, True, 30, seed=7) called twice.
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_common import DATA_DIR, meta, write_json  # noqa: E402


def main():
    import mindspore as ms
    from mindspore import Tensor, nn
    from mindspore.ops import operations as P

    class Categorical(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rc = P.RandomCategorical(ms.int64)

        def construct(self, x, n, seed):
            return self.rc(x, n, seed)

    x = Tensor(np.array([[1, 2, 3, 4, 5], [0.5, 0.1, 3.0, -1.0, 0.0]], np.float32))
    mask = Tensor(np.array([1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1], np.bool_))
    out = {"meta": meta("tests/oracle/record_rand33.py"), "seeds": [5, 5, 6, 5]}
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode, device_target="CPU")
        net = Categorical()
        rec = {"random_categorical": [net(x, 10, s).asnumpy().tolist() for s in out["seeds"]]}
        p = P.RandomChoiceWithMask(4, 9)
        rec["choice_with_mask"] = [[a.asnumpy().tolist() for a in p(mask)] for _ in range(2)]
        s = P.UniformCandidateSampler(1, 3, True, 10, seed=3)
        t = Tensor(np.array([[1], [2]], np.int32))
        rec["uniform_candidate_sampler"] = [[a.asnumpy().tolist() for a in s(t)] for _ in range(2)]
        lu = P.LogUniformCandidateSampler(1, 4, True, 30, seed=7)
        t64 = Tensor(np.array([[1], [20]], np.int64))
        rec["log_uniform_candidate_sampler"] = [[a.asnumpy().astype(np.float64).tolist() for a in lu(t64)]
                                                for _ in range(2)]
        out[name] = rec
    write_json(os.path.join(DATA_DIR, "rand33_streams.json"), out)


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp())
    main()
