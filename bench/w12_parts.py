"""Parts of W12's 2-rank W5 step that bench/w12.py does not time (run by `w12.py --breakdown`):
the Python path of one compiled training-step call (a one-weight network, whose native work is
nothing), and the memory passes of the gradient buckets (their copy in, the mean's scaling and
the copies out) as NumPy passes of the same sizes."""
from __future__ import annotations

import json
import statistics
import time

import numpy as np

import pycompile as ms
from pycompile import nn


class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(1, 1)

    def construct(self, x):
        return (self.dense(x) ** 2).mean()


def _median_us(fn, n=2000):
    for _ in range(50):
        fn()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n // 5):
            fn()
        times.append((time.perf_counter() - t0) / (n // 5))
    return statistics.median(times) * 1e6


def main():
    ms.set_context(mode=ms.GRAPH_MODE, runtime_num_threads=1)
    net = Tiny()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x = ms.Tensor(np.ones((1, 1), np.float32))
    out = {"call_us": _median_us(lambda: step(x))}
    # W5's buckets (float32 elements): 267,786 and 401,920
    for n in (267786, 401920):
        a, b = np.ones(n, np.float32), np.empty(n, np.float32)
        out[f"copy_{n}_us"] = _median_us(lambda: np.copyto(b, a), 400)
        out[f"scale_{n}_us"] = _median_us(lambda: np.multiply(a, np.float32(0.5), out=b), 400)
    print("W12parts: " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
