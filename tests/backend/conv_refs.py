"""A float64 reference for the kernel tests of this folder, written from the definition."""
from __future__ import annotations

import numpy as np


def dw_reference(dy, x, kh, kw, pads):
    """A stride-1 convolution's filter gradient: dW[k, c, r, s] = sum over n, oh, ow of
    dY[n, k, oh, ow] * Xpadded[n, c, oh + r, ow + s], in float64."""
    pt, pb, pl, pr = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh, ow = dy.shape[2:]
    out = np.empty((dy.shape[1], x.shape[1], kh, kw))
    for r in range(kh):
        for s in range(kw):
            out[:, :, r, s] = np.einsum("nkhw,nchw->kc", dy.astype(np.float64), xp[:, :, r:r + oh, s:s + ow])
    return out
