"""Does an image pipeline with 2 worker processes keep the W10 training step fed? (issue 35, item 7)

An ImageFolder of 10,000 small JPEGs (10 classes, 64-96 px sides of varied sizes, generated once
with Pillow and cached under bench/.cache/, git-ignored) goes through

    ImageFolderDataset -> map(TypeCast(int32), "label") -> map([Decode, RandomResizedCrop(224),
    RandomHorizontalFlip, Normalize, HWC2CHW], "image", num_parallel_workers=2,
    python_multiprocessing=True) -> batch(64)     (the workers map and stack whole batches)

into a training step of W10's network (examples/resnet_block.py: ResNet-18's first stage) with a
head (global mean + Dense(64, 10)), softmax cross-entropy and Momentum, one compiled
TrainOneStepCell call in GRAPH_MODE. Variants, interleaved round by round:

  precomputed   64 x 3 x 224 x 224 batches already in memory as Tensors (the step alone)
  pycompile     the pipeline above, 2 worker processes
  torch         torch.utils.data.DataLoader(num_workers=2, batch_size=64) over the same files with
                torchvision's ImageFolder + v1 transforms (RandomResizedCrop, RandomHorizontalFlip,
                ToTensor, Normalize) when torchvision imports; else the same operations written as
                torchvision's v1 code does them on PIL images (PIL crop + bilinear resize, transpose,
                from_numpy / div(255), sub / div) - said in the output. The batches feed the same
                pycompile step (converted with Tensor(x.numpy())).

`wait` is the time the loop spent in next() on the loader (Tensor conversion included): its share
of the loop's wall time is the figure of issue 35 (target <= 10 % with 2 workers). Prints
`uptime` before and after: other processes on the machine change every figure.

    PYTHONPATH=src python bench/dataset_feed.py --images                  # 3 rounds of 30 steps
    PYTHONPATH=src python bench/dataset_feed_images.py --steps 156 --rounds 1  # a whole epoch
    PYTHONPATH=src python bench/dataset_feed_images.py --profile          # per-stage costs, one process
    PYTHONPATH=src python bench/dataset_feed_images.py --throughput 20    # the loaders alone, batches/s

torch (and torchvision) come from a venv that has them, e.g. /work/benchvenv; pycompile then runs
from the same interpreter through PYTHONPATH=src.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import pycompile as ms  # noqa: E402
import pycompile.dataset as ds  # noqa: E402
import pycompile.dataset.transforms as transforms  # noqa: E402
import pycompile.dataset.vision as vision  # noqa: E402
from pycompile import nn, ops  # noqa: E402

B = 64
N_IMAGES = 10_000
CLASSES = 10
CACHE = os.path.join(HERE, ".cache", "imagefolder10k")
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def make_folder(root: str = CACHE, n: int = N_IMAGES) -> str:
    """The ImageFolder (once): class folders c0..c9 of JPEGs (quality 90) with smooth colour
    gradients, a few shapes and noise, so they compress like photos rather than like noise."""
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return root
    from PIL import Image
    rng = np.random.default_rng(0)
    for c in range(CLASSES):
        os.makedirs(os.path.join(root, f"c{c}"), exist_ok=True)
    for i in range(n):
        h, w = (int(v) for v in rng.integers(64, 97, 2))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        base = rng.uniform(0, 255, 3).astype(np.float32)
        slope = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
        img = base + yy[..., None] * slope[0] + xx[..., None] * slope[1]
        cy, cx, r = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(8, 30)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.uniform(0, 255, 3)
        img += rng.normal(0, 8, img.shape).astype(np.float32)
        pixels = np.clip(img, 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(root, f"c{i % CLASSES}", f"{i:05d}.jpg"), quality=90)
    open(done, "w").close()
    return root


class Head(nn.Cell):
    """W10's stage with a classifier, in training mode."""

    def __init__(self):
        super().__init__()
        import resnet_block
        self.stage = resnet_block.ResNetStage1()
        self.fc = nn.Dense(64, CLASSES)

    def construct(self, x):
        return self.fc(ops.mean(self.stage(x), (2, 3)))


def train_step():
    net = Head()
    net.set_train(True)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def pycompile_loader(root, workers=2, seed=0):
    ds.config.set_seed(seed)
    data = ds.ImageFolderDataset(root, shuffle=True)
    data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
    ops_ = [vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
            vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    # the worker map right under batch: its workers map and stack whole batches (worker_batches.py)
    data = data.map(ops_, input_columns="image", num_parallel_workers=workers, python_multiprocessing=workers > 1)
    return data.batch(B, drop_remainder=True)


def torch_loader(root, workers=2, seed=0):
    """(DataLoader, description) or (None, why)."""
    try:
        import torch
        from torch.utils.data import DataLoader
    except ImportError as e:
        return None, f"torch not importable ({e})"
    torch.manual_seed(seed)
    try:
        from torchvision import datasets, transforms as T
        tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(),
                        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        data = datasets.ImageFolder(root, transform=tf)
        what = "torchvision ImageFolder + transforms"
    except Exception as e:  # noqa: BLE001 - e.g. a torchvision build whose C ops do not load
        data = _PilFolder(root)
        what = (f"torchvision's v1 transforms written out on PIL (torchvision not usable: "
                f"{type(e).__name__}: {str(e)[:60]})")
    loader = DataLoader(data, batch_size=B, shuffle=True, num_workers=workers, drop_last=True,
                        persistent_workers=workers > 0)
    return loader, what


class _PilFolder:
    """torchvision's ImageFolder + RandomResizedCrop(224) / RandomHorizontalFlip / ToTensor /
    Normalize (v1, PIL path) as those classes compute them, for when torchvision is missing."""

    def __init__(self, root):
        self.items = []
        for c, name in enumerate(sorted(os.listdir(root))):
            folder = os.path.join(root, name)
            if os.path.isdir(folder):
                self.items += [(os.path.join(folder, f), c) for f in sorted(os.listdir(folder))]
        self.mean = np.array([0.485, 0.456, 0.406], np.float32)
        self.std = np.array([0.229, 0.224, 0.225], np.float32)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        import math
        import random
        import torch
        from PIL import Image
        path, label = self.items[i]
        with open(path, "rb") as f:
            img = Image.open(f).convert("RGB")
        w, h = img.size
        area = h * w
        box = (0, 0, w, h)
        for _ in range(10):                     # RandomResizedCrop.get_params
            target = area * random.uniform(0.08, 1.0)
            ratio = math.exp(random.uniform(math.log(3 / 4), math.log(4 / 3)))
            cw, ch = int(round(math.sqrt(target * ratio))), int(round(math.sqrt(target / ratio)))
            if 0 < cw <= w and 0 < ch <= h:
                top, left = random.randint(0, h - ch), random.randint(0, w - cw)
                box = (left, top, left + cw, top + ch)
                break
        img = img.crop(box).resize((224, 224), Image.BILINEAR)
        if random.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        x = torch.from_numpy(np.array(img, np.uint8)).permute(2, 0, 1).contiguous().float().div(255)
        x = x.sub_(torch.from_numpy(self.mean)[:, None, None]).div_(torch.from_numpy(self.std)[:, None, None])
        return x, label


def profile(root, n=256):
    """Per-stage cost of the pycompile pipeline's operations in this process (ms per image)."""
    ops_ = {"decode": vision.Decode(), "crop+resize": vision.RandomResizedCrop(224),
            "flip": vision.RandomHorizontalFlip(), "normalize": vision.Normalize(MEAN, STD), "hwc2chw": vision.HWC2CHW()}
    files = [os.path.join(root, f"c{i % CLASSES}", f"{i:05d}.jpg") for i in range(n)]
    raw = [np.fromfile(f, np.uint8) for f in files]
    rng = np.random.default_rng(0)
    times = dict.fromkeys(ops_, 0.0)
    rows, flipped = [], []
    for data in raw:
        for name, op in ops_.items():
            if name == "normalize":
                flipped.append(data)
            t0 = time.perf_counter()
            data = op._apply_random(rng, data) if hasattr(op, "_apply_random") else op(data)
            times[name] += time.perf_counter() - t0
        rows.append(data)
    t0 = time.perf_counter()
    for k in range(0, n - B + 1, B):
        np.stack(rows[k:k + B])
    stack = (time.perf_counter() - t0) / (n // B * B)
    print(f"per image over {n} images (ms): " + ", ".join(f"{k} {v / n * 1e3:.2f}" for k, v in times.items())
          + f", batch stack {stack * 1e3:.2f}; total {(sum(times.values()) / n + stack) * 1e3:.2f}")
    from pycompile.dataset.datasets import _fused
    fused = _fused([ops_["normalize"], ops_["hwc2chw"]])
    if len(fused) == 1:             # what map runs for the pair: Normalize and HWC2CHW in one pass
        flipped = flipped[:64]
        t0 = time.perf_counter()
        for img in flipped:
            fused[0](img)
        fused_ms = (time.perf_counter() - t0) / len(flipped) * 1e3
        t0 = time.perf_counter()
        for img in flipped:
            ops_["hwc2chw"](ops_["normalize"](img))
        print(f"normalize + hwc2chw as two ops {(time.perf_counter() - t0) / len(flipped) * 1e3:.2f} ms, "
              f"fused (as map runs them) {fused_ms:.2f} ms per image")


def throughput(root, workers, batches, torch_too=True):
    """Batches per second of each loader alone (no training step): what the pipeline can feed."""
    def run(make):
        it = make()
        next(it)                                           # workers started, first batch out
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(batches):
            next(it)
        return (time.perf_counter() - t0) / batches, (time.process_time() - c0) / batches

    def pyc(shared):
        def make():
            ds.config.set_enable_shared_mem(shared)
            d = pycompile_loader(root, workers)
            return iter(d.create_tuple_iterator(num_epochs=-1, output_numpy=True))
        return make

    loaders = {"pycompile": pyc(True), "pycompile (no shared memory)": pyc(False)}
    if torch_too:
        loader, what = torch_loader(root, workers)
        print("torch:", what)
        if loader is not None:
            loaders["torch"] = lambda: (b for _ in range(10 ** 6) for b in loader)
    for name, make in loaders.items():
        wall, cpu = run(make)
        print(f"  {name:30s} {wall * 1e3:7.1f} ms per batch of {B} ({B / wall:6.0f} images/s), "
              f"main process cpu {cpu * 1e3:6.1f} ms per batch", flush=True)
    ds.config.set_enable_shared_mem(True)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30, help="training steps per variant and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--throughput", type=int, default=0, metavar="BATCHES",
                        help="time the loaders alone over BATCHES batches, no training step")
    args = parser.parse_args(argv)
    uptime = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()  # noqa: E731
    print("uptime:", uptime())
    t0 = time.perf_counter()
    root = make_folder()
    print(f"image folder {root} ready in {time.perf_counter() - t0:.1f} s; cpus {len(os.sched_getaffinity(0))}, "
          f"batch {B}, {args.steps} steps x {args.rounds} rounds, {args.workers} workers", flush=True)
    if args.profile:
        profile(root)
        return
    if args.throughput:
        throughput(root, args.workers, args.throughput, not args.no_torch)
        print("uptime:", uptime())
        return
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    step = train_step()
    rng = np.random.default_rng(0)
    pre = [(ms.Tensor(rng.standard_normal((B, 3, 224, 224)).astype(np.float32)),
            ms.Tensor(rng.integers(0, CLASSES, B).astype(np.int32))) for _ in range(4)]
    t0 = time.perf_counter()
    step(*pre[0])                                          # compile outside the timings
    print(f"compiled the training step in {time.perf_counter() - t0:.1f} s", flush=True)

    def batches_pycompile():
        it = pycompile_loader(root, args.workers).create_tuple_iterator(num_epochs=-1)
        while True:
            yield next(it)

    def batches_torch(loader):
        while True:
            for x, y in loader:
                yield ms.Tensor(x.numpy()), ms.Tensor(y.numpy().astype(np.int32))

    feeds = {"precomputed": lambda: iter(pre[i % len(pre)] for i in range(10 ** 9)),
             "pycompile": batches_pycompile}
    if not args.no_torch:
        loader, what = torch_loader(root, args.workers)
        print("torch:", what)
        if loader is not None:
            feeds["torch"] = lambda: batches_torch(loader)
    gens = {name: make() for name, make in feeds.items()}
    for name, gen in gens.items():                         # start the workers, fill the first batches
        x, y = next(gen)
        assert tuple(x.shape) == (B, 3, 224, 224), (name, x.shape)
    names = list(gens)
    res = {k: {"wall": [], "wait": []} for k in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            gen = gens[name]
            time.sleep(1.0)                                # the loaders refill their prefetch
            wait = 0.0
            start = time.perf_counter()
            for _ in range(args.steps):
                t = time.perf_counter()
                x, y = next(gen)
                wait += time.perf_counter() - t
                step(x, y)
            res[name]["wall"].append(time.perf_counter() - start)
            res[name]["wait"].append(wait)
        print(f"round {r + 1}: " + ", ".join(f"{k} {res[k]['wall'][-1]:.2f} s (wait {res[k]['wait'][-1]:.2f})"
                                           for k in names), flush=True)
    print(f"\n{args.steps} steps of batch {B} (median over {args.rounds} rounds); wait = time in next()")
    ref = np.median(res["precomputed"]["wall"]) / args.steps
    for name in names:
        wall, wait = np.array(res[name]["wall"]), np.array(res[name]["wait"])
        share = np.median(wait / wall)
        print(f"  {name:12s} {np.median(wall) / args.steps * 1e3:7.1f} ms/step  x{np.median(wall) / args.steps / ref:.2f} "
              f"of precomputed  waiting {share * 100:5.1f} % [{(wait / wall).min() * 100:.1f}, "
              f"{(wait / wall).max() * 100:.1f}]")
    print("uptime:", uptime())


if __name__ == "__main__":
    main()
