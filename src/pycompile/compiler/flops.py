"""The floating-point operations of a compiled graph, as MindSpore's FlopsUtilizationCollector
counts them: its products (MatMul, BatchMatMul) and 2-D convolutions (forward, and the gradients
Conv2DBackpropInput / Conv2DBackpropFilter), 2 per multiply-add, in the graph as compiled - after
autodiff and dead-code removal, so a gradient no Parameter needs (a network input's) is not counted,
as in the wheel (recorded: tests/train/test_flops_collector.py). A node inside a `For` counts once per
iteration (MindSpore unrolls such loops) - a differentiated loop's backward `For` runs once per value
its forward pushed on the stack it reads - one inside a `While` once, an `If` its costlier branch."""
from __future__ import annotations

import math

from pycompile.compiler import ir

_CONV_FORWARD = ("Conv2D", "FusedConv")


def _shape(v) -> tuple:
    t = v.type
    return tuple(getattr(t, "shape", ()) or ())


def node_flops(n: ir.Node) -> int:
    """2 x the multiply-adds of one product or 2-D convolution node; 0 for any other."""
    name = getattr(n.op, "name", "")
    if name in ("MatMul", "BatchMatMul"):
        out, a = _shape(n), _shape(n.inputs[0])
        m = out[-2] if len(out) >= 2 else 1
        k = math.prod(a[-2:]) // max(m, 1) if len(a) >= 2 else (a[-1] if a else 1)
        return 2 * math.prod(out) * k
    if name in _CONV_FORWARD:                      # out (N, Cout, Ho, Wo), w (Cout, Cin / g, kh, kw)
        w = _shape(n.inputs[1])
        return 2 * math.prod(_shape(n)) * math.prod(w[1:]) if len(w) == 4 else 0
    if name == "Conv2DBackpropInput":              # (dout, w): the forward's multiply-adds
        dout, w = _shape(n.inputs[0]), _shape(n.inputs[1])
        return 2 * math.prod(dout) * math.prod(w[1:]) if len(w) == 4 else 0
    if name == "Conv2DBackpropFilter":             # (dout, x) -> dw (Cout, Cin / g, kh, kw)
        dout, dw = _shape(n.inputs[0]), _shape(n)
        return 2 * math.prod(dout) * math.prod(dw[1:]) if len(dw) == 4 else 0
    return 0


def _const_trips(n: ir.Node):
    bounds = n.inputs[:3]
    if all(isinstance(b, ir.Const) for b in bounds):
        return len(range(*(int(b.value) for b in bounds)))
    return None


def _stack_lengths(block: ir.Block, times: int, out: dict) -> dict:
    """StackNew node id -> how many values the program pushes on it: a differentiated loop's
    forward pushes once per iteration, and its backward loop runs StackLen(stack) times."""
    for n in block.nodes:
        if getattr(n.op, "name", "") == "StackPush" and getattr(n.inputs[0].op, "name", "") == "StackNew":
            out[id(n.inputs[0])] = out.get(id(n.inputs[0]), 0) + times
        if n.blocks:
            inner = times * (_const_trips(n) or 1) if n.op is ir.FOR else times
            for b in n.blocks:
                _stack_lengths(b, inner, out)
    return out


def _trips(n: ir.Node, stacks: dict) -> int:
    if n.op is not ir.FOR:
        return 1
    trips = _const_trips(n)
    if trips is not None:
        return trips
    start, stop, step = n.inputs[:3]
    if (isinstance(start, ir.Const) and int(start.value) == 0 and isinstance(step, ir.Const) and int(step.value) == 1
            and getattr(stop.op, "name", "") == "StackLen" and id(stop.inputs[0]) in stacks):
        return stacks[id(stop.inputs[0])]          # a backward loop: one step per forward push
    return 1


def block_flops(block: ir.Block, stacks: dict) -> int:
    total = 0
    for n in block.nodes:
        total += node_flops(n)
        if n.op is ir.IF:                          # the costlier branch
            total += max((block_flops(b, stacks) for b in n.blocks), default=0)
        elif n.op is ir.CALL:                      # a shared (lazy_inline) subgraph, once per call
            total += graph_flops(n.attrs["graph"])
        elif n.blocks:
            total += sum(block_flops(b, stacks) for b in n.blocks) * _trips(n, stacks)
    return total


def graph_flops(graph: ir.Graph) -> int:
    return block_flops(graph.body, _stack_lengths(graph.body, 1, {}))
