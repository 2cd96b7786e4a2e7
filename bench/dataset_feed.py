"""Does the dataset pipeline keep the compiled training step fed? (issue 16's criterion)

One training epoch over 60,000 generated 28x28 uint8 images, batch 64 (937 steps, the remainder
dropped), through W5's step - the W4 MLP with softmax cross-entropy, SGD with momentum, as one
compiled `TrainOneStepCell` call in GRAPH_MODE - fed four ways:

  precomputed   the float32 batches already in memory as Tensors (the reference: no data work)
  numpy_slices  NumpySlicesDataset -> map(Rescale(1/255), HWC2CHW) -> map(TypeCast) -> batch(64)
  generator     GeneratorDataset over a random-access source (__getitem__ / __len__) -> same
  model_train   Model(net, loss, opt).train(1, <numpy_slices pipeline>) - Model's loop included

The pipelines run in the iterator's background thread; the compiled step releases the GIL while it
runs, so the two overlap. Each round runs every variant once (interleaved; variants rotate their
order per round), times are medians over rounds with the range, and `wait` is the time the step
spent blocked on the iterator (iterator.wait_time). `cpu` is the process's CPU time for the epoch
(all threads), a steadier measure than wall time when other processes load the machine. Prints
`uptime` before and after.

    python bench/dataset_feed.py                    # 5 rounds, 60,000 images
    python bench/dataset_feed.py --rounds 3 --rows 20000
    taskset -c 0 python bench/dataset_feed.py       # one core: the pipeline thread and the step share it

`--images` runs issue 35's image feed instead (bench/dataset_feed_images.py: an ImageFolder of
10,000 JPEGs decoded, cropped, flipped, normalised and batched by 64 in 2 worker processes,
feeding W10's stage as a training step, against torch's DataLoader); the other options go to it.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np

import pycompile as ms
import pycompile.dataset as ds
import pycompile.dataset.transforms as transforms
import pycompile.dataset.vision as vision
from pycompile import nn

B = 64


class MLP(nn.Cell):
    """W4's MLP (bench/w5.py's network without its built-in loss)."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layers = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                                        nn.Dense(512, 10))

    def construct(self, x):
        return self.layers(self.flatten(x))


class Source:
    """A random-access source, as users write them for GeneratorDataset."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __getitem__(self, i):
        return self.images[i], self.labels[i]

    def __len__(self):
        return len(self.labels)


def make_data(rows):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (rows, 28, 28, 1), dtype=np.uint8)
    labels = rng.integers(0, 10, rows).astype(np.int64)
    return images, labels


def pipeline(source):
    data = source.map([vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()], input_columns="image")
    data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(B, drop_remainder=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=60000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"cpus available: {len(os.sched_getaffinity(0))}; rows {args.rows}, batch {B}")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    images, labels = make_data(args.rows)
    n_steps = args.rows // B
    # The reference: exactly the arrays the pipeline produces, batched ahead of time.
    x_all = (images.astype(np.float32) * np.float32(1.0 / 255.0)).transpose(0, 3, 1, 2)
    pre = [(ms.Tensor(np.ascontiguousarray(x_all[i * B:(i + 1) * B])), ms.Tensor(labels[i * B:(i + 1) * B].astype(np.int32)))
           for i in range(n_steps)]
    del x_all

    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = ms.Model(net, loss, opt)
    step = model.train_network
    step(*pre[0])                                   # compile once, outside the timings

    slices = pipeline(ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False))
    generator = pipeline(ds.GeneratorDataset(Source(images, labels), ["image", "label"], shuffle=False))
    its = {"numpy_slices": slices.create_tuple_iterator(num_epochs=-1),
           "generator": generator.create_tuple_iterator(num_epochs=-1)}
    first = next(iter(slices.create_tuple_iterator(num_epochs=1)))
    np.testing.assert_array_equal(first[0].asnumpy(), pre[0][0].asnumpy())

    def run_pre():
        for x, y in pre:
            out = step(x, y)
        return out, 0.0

    def run_iter(name):
        it = its[name]
        before, n = it.wait_time, 0
        for x, y in it:
            out = step(x, y)
            n += 1
        assert n == n_steps, n
        return out, it.wait_time - before

    def run_model():
        model.train(1, slices)
        return None, float("nan")

    variants = {"precomputed": run_pre, "numpy_slices": lambda: run_iter("numpy_slices"),
                "generator": lambda: run_iter("generator"), "model_train": run_model}
    names = list(variants)
    times = {k: [] for k in names}
    cpus = {k: [] for k in names}
    waits = {k: [] for k in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            time.sleep(0.3)
            t0, c0 = time.perf_counter(), time.process_time()
            _, wait = variants[name]()
            times[name].append(time.perf_counter() - t0)
            cpus[name].append(time.process_time() - c0)
            waits[name].append(wait)
        print(f"round {r + 1}: " + ", ".join(f"{k} {times[k][-1]:.2f} s" for k in names), flush=True)
    ref = np.median(times["precomputed"])
    print(f"\nepoch of {n_steps} steps (median over {args.rounds} rounds, [min, max]); ratio = median of "
          f"per-round ratios to precomputed")
    for name in names:
        t = np.array(times[name])
        ratio = np.median(t / np.array(times["precomputed"]))
        w = np.median(waits[name])
        c = np.median(np.array(cpus[name]) / np.array(cpus["precomputed"]))
        print(f"  {name:13s} {np.median(t):6.2f} s [{t.min():.2f}, {t.max():.2f}]  x{ratio:.3f}  "
              f"cpu {np.median(cpus[name]):6.2f} s x{c:.3f}" + ("" if np.isnan(w) else f"  wait {w:.2f} s"))
    print(f"  per step (precomputed): {ref / n_steps * 1e3:.2f} ms")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    import sys
    if "--images" in sys.argv[1:]:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import dataset_feed_images
        dataset_feed_images.main([a for a in sys.argv[1:] if a != "--images"])
    else:
        main()
