"""BackupAndRestore and OnRequestExit inside Model.train: the backup checkpoint written per epoch,
loaded when training starts again and removed at the end; a SIGTERM during training stops it at
that step and saves a checkpoint and a MINDIR that load back (the MINDIR through ms.load)."""
import os
import signal

import numpy as np
import pytest

import pycompile as ms
import pycompile.dataset as ds
from pycompile import nn
from pycompile.train import BackupAndRestore, Callback, Model, OnRequestExit


def _data():
    rng = np.random.default_rng(0)
    return ds.NumpySlicesDataset({"x": rng.normal(size=(16, 3)).astype(np.float32),
                                  "y": rng.normal(size=(16, 2)).astype(np.float32)}, shuffle=False).batch(4)


def _model():
    net = nn.Dense(3, 2)
    return net, Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))


def _weights(net):
    return {p.name: p.asnumpy().copy() for p in net.trainable_params()}


def test_backup_is_written_restored_and_deleted(tmp_path):
    net, model = _model()
    model.train(2, _data(), callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)])
    backup = tmp_path / "backup.ckpt"
    assert backup.exists()
    trained = _weights(net)
    net2, model2 = _model()

    class Capture(Callback):
        def on_train_begin(self, run_context):      # runs after BackupAndRestore's, which loaded the backup
            self.seen = _weights(run_context.original_args().train_network.network)
    cap = Capture()
    model2.train(1, _data(), callbacks=[BackupAndRestore(str(tmp_path)), cap])
    for name, value in trained.items():
        np.testing.assert_array_equal(cap.seen[name], value)
    assert not backup.exists()
    with pytest.raises(ValueError, match="must > 0"):
        BackupAndRestore(str(tmp_path), save_freq=0)


class _SendSignal(Callback):
    def __init__(self, at):
        self.at, self.steps = at, 0

    def on_train_step_end(self, run_context):
        self.steps += 1
        if self.steps == self.at:
            os.kill(os.getpid(), signal.SIGTERM)


def test_a_signal_stops_training_and_saves_checkpoint_and_mindir(tmp_path):
    previous = signal.getsignal(signal.SIGTERM)
    net, model = _model()
    sender = _SendSignal(at=3)
    exit_cb = OnRequestExit(file_name="lenet", directory=str(tmp_path))
    model.train(3, _data(), callbacks=[sender, exit_cb])
    assert sender.steps == 3                              # 12 steps were planned
    assert signal.getsignal(signal.SIGTERM) == previous
    ckpt, mindir = tmp_path / "rank_0" / "lenet_train.ckpt", tmp_path / "rank_0" / "lenet_train.mindir"
    assert ckpt.exists() and mindir.exists()
    saved = ms.load_checkpoint(str(ckpt))
    for p in net.trainable_params():
        np.testing.assert_array_equal(saved[p.name].asnumpy(), p.asnumpy())
    x = ms.Tensor(np.ones((4, 3), np.float32))
    loaded = nn.GraphCell(ms.load(str(mindir)))             # the forward network, for deployment
    np.testing.assert_allclose(loaded(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="SIGKILL"):
        OnRequestExit(sig=signal.SIGKILL)
