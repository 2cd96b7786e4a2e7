"""MindSpore's quick start (dataset -> Model -> train with LossMonitor + ModelCheckpoint ->
load_checkpoint -> eval) on scikit-learn's handwritten digits, with only the import changed.

The digits are 8x8 images with values 0..16 (1,797 of them; 1,437 train, 360 test). LeNet-5 is
the model zoo's unchanged network for 32x32 inputs, so the pipeline does what the quick start does
to MNIST: `vision.Resize((32, 32))` (bilinear upsampling of the 8x8 image), `Rescale` to [0, 1],
`HWC2CHW`, then batches.

What it shows: the whole MindSpore training workflow - dataset, Model, callbacks, checkpoints,
evaluation - unchanged. How to run:

    pip install 'pycompile[examples]'           # scikit-learn (the data) and tqdm
    python examples/train_lenet_digits.py        # GRAPH_MODE, 15 epochs: >= 95 % test accuracy
    python examples/train_lenet_digits.py --epochs 3 --mode pynative
"""
import argparse
import os
import sys
import tempfile

import numpy as np

import pycompile as ms                              # the one changed line: `import mindspore as ms`
import pycompile.dataset as ds
import pycompile.dataset.transforms as transforms
import pycompile.dataset.vision as vision
from pycompile import nn
from pycompile.train import CheckpointConfig, LossMonitor, Model, ModelCheckpoint, TimeMonitor


# the model zoo's LeNet-5, unchanged (examples/lenet.py, as the quick start imports src/lenet.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lenet import LeNet5  # noqa: E402


def load_digits(n_train=1437):
    """scikit-learn's digits as (N, 8, 8, 1) uint8 images and int32 labels, split train / test at
    random (seeded: the file is ordered by writer, so its last rows alone are not a fair test)."""
    from sklearn.datasets import load_digits as sk_digits
    digits = sk_digits()
    order = np.random.RandomState(0).permutation(len(digits.target))
    images = digits.images.astype(np.uint8)[order, ..., None]          # values 0..16, HWC
    labels = digits.target.astype(np.int32)[order]
    return (images[:n_train], labels[:n_train]), (images[n_train:], labels[n_train:])


def create_dataset(images, labels, batch_size, shuffle):
    data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=shuffle)
    image_ops = [vision.Resize((32, 32)), vision.Rescale(1.0 / 16.0, 0.0), vision.HWC2CHW()]
    data = data.map(image_ops, input_columns="image")
    data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=shuffle)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--mode", choices=("graph", "pynative"), default="graph")
    parser.add_argument("--ckpt-dir", default=None, help="where checkpoints go (default: a temporary directory)")
    args = parser.parse_args(argv)

    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(1)
    ds.config.set_seed(1)
    (x_train, y_train), (x_test, y_test) = load_digits()
    train_ds = create_dataset(x_train, y_train, args.batch_size, shuffle=True)
    test_ds = create_dataset(x_test, y_test, 120, shuffle=False)
    steps = train_ds.get_dataset_size()

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"accuracy"})

    ckpt_dir = args.ckpt_dir or tempfile.mkdtemp(prefix="lenet_digits_")
    config = CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=2)
    ckpt_cb = ModelCheckpoint(prefix="lenet_digits", directory=ckpt_dir, config=config)
    model.train(args.epochs, train_ds, callbacks=[LossMonitor(steps), TimeMonitor(), ckpt_cb])

    # A fresh network from the last checkpoint, evaluated on the held-out digits.
    eval_net = LeNet5()
    param_dict = ms.load_checkpoint(ckpt_cb.latest_ckpt_file_name)
    ms.load_param_into_net(eval_net, param_dict)
    eval_model = Model(eval_net, loss, metrics={"accuracy"})
    acc = eval_model.eval(test_ds)
    print(f"checkpoint: {os.path.basename(ckpt_cb.latest_ckpt_file_name)}")
    print(f"test accuracy: {acc}")
    return acc


if __name__ == "__main__":
    main()
