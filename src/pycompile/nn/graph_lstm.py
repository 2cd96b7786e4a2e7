"""MindSpore's fused CPU `LSTM` primitive, as it appears in a MINDIR file, in pycompile ops.

Weights arrive packed in one tensor: for each layer (and direction), w_ih [4H, I] then w_hh
[4H, H] flattened, and after every layer's matrices the bias b_ih + b_hh [4H] per layer and
direction (MindSpore's CPU kernel layout). Gates are ordered i, f, g, o. The time loop is a
Python loop over the static sequence length, so a compiled graph holds it unrolled.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.nn.graph_prims import GraphLoadError


def lstm(node, x, h0, c0, w):
    a = node.attrs
    if a.get("bidirectional") or a.get("proj_size", 0):
        raise GraphLoadError(f"node {node.output}: LSTM with bidirectional=True or proj_size > 0 is not supported")
    inp, hid, layers = int(a["input_size"]), int(a["hidden_size"]), int(a["num_layers"])
    flat = ops.reshape(w, (-1,))
    offset, mats = 0, []
    for layer in range(layers):
        size_in = inp if layer == 0 else hid
        w_ih = ops.reshape(flat[offset:offset + 4 * hid * size_in], (4 * hid, size_in))
        offset += 4 * hid * size_in
        w_hh = ops.reshape(flat[offset:offset + 4 * hid * hid], (4 * hid, hid))
        offset += 4 * hid * hid
        mats.append((w_ih, w_hh))
    biases = []
    for layer in range(layers):
        if a.get("has_bias", True):
            biases.append(flat[offset:offset + 4 * hid])
            offset += 4 * hid
        else:
            biases.append(None)
    seq = x.shape[0]
    hs, cs = [], []
    for layer in range(layers):
        w_ih, w_hh = mats[layer]
        h, c = h0[layer], c0[layer]
        outs = []
        for t in range(seq):
            gates = ops.matmul(x[t], ops.transpose(w_ih, (1, 0))) + ops.matmul(h, ops.transpose(w_hh, (1, 0)))
            if biases[layer] is not None:
                gates = gates + biases[layer]
            i, f, g, o = ops.split(gates, hid, 1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
            outs.append(h)
        x = ops.stack(outs, 0)
        hs.append(h)
        cs.append(c)
    return (x, ops.stack(hs, 0), ops.stack(cs, 0), None, None)
