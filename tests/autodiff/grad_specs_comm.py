"""Finite-difference specs of the collectives' gradient rules in a world of one process (init()
outside mpirun: the collectives are the identity there, so this checks the rules' plumbing; the
multi-rank gradients are checked under mpirun in tests/distributed)."""
from __future__ import annotations

import numpy as np

from pycompile import communication, ops
from pycompile.ops import OPS


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 1.5, size=shape).astype(np.float64)


def _op(name, **attrs):
    def run(*xs):
        communication.init()          # idempotent; tests/distributed releases the world again
        return ops.apply(OPS[name], list(xs), attrs)
    return run


COMM = [
    ("AllReduce", _op("AllReduce", op=0), [rnd(2, 3)], (0,)),
    ("AllReduce", _op("AllReduce", op=1), [rnd(2, 3)], (0,)),
    ("AllReduce", _op("AllReduce", op=3), [rnd(2, 3)], (0,)),
    ("AllGather", _op("AllGather"), [rnd(2, 3)], (0,)),
    ("ReduceScatter", _op("ReduceScatter", op=0), [rnd(2, 3)], (0,)),
    ("Broadcast", _op("Broadcast", root_rank=0), [rnd(2, 3)], (0,)),
]
