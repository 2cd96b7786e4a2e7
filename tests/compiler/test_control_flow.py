"""Control flow in graph code: constant-folded and runtime `if`, loops that stay loops, `while`,
break / continue / early return, compared with running the same function eagerly."""
import numpy as np

from frontend_helpers import assert_same, check, check_many, t

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.compiler import ir


def structural_ops(graph) -> list:
    return [n.op.name for n in ir.iter_nodes(graph.body) if ir.is_structural(n) and n.op is not ir.GETITEM]


# ---- if ------------------------------------------------------------------------------------------------

def if_constant(x, mode, flag=True):
    if mode == "double":
        y = x * 2
    elif mode == "neg":
        y = -x
    else:
        y = x
    if flag and x.shape[0] > 1:
        y = y + 1
    if not flag:
        y = y - 100
    if x.ndim == 2:
        y = y.sum()
    return y


def test_if_on_constants_folds_at_compile_time():
    x = t([1.0, 2.0])
    for mode in ("double", "neg", "other"):
        check(if_constant, x, mode)
    check(if_constant, x, "neg", False)
    report = ms.inspect(if_constant, x, "double")
    assert structural_ops(report.graph_before) == []


def if_runtime(x, y):
    if x.sum() > y.sum():
        a = x - y
        b = 1.0                     # a Python number here, a tensor in the other branch
        c = 2
    elif x.sum() < 0:
        a = x + y
        b = y * 3
        c = 5
    else:
        a = x * y
        b = x
        c = 2
    z = a + b + c
    if x[0] > 0:
        z = z * 2
    s = 0
    if y[1] > 0:
        s = s + 1
    else:
        s = s - 1
    return z, s


def test_runtime_if_elif_else_merges_variables():
    jf = check_many(if_runtime,
                    (t([5.0, 1.0]), t([1.0, 2.0])),
                    (t([-5.0, 1.0]), t([1.0, -2.0])),
                    (t([1.0, 1.0]), t([1.0, 2.0])))
    assert "If" in structural_ops(ms.inspect(jf, t([1.0, 1.0]), t([1.0, 2.0])).graph_before)


def ternary(x, k):
    a = x * 2 if x[0] > 0 else x - 1
    b = 1.0 if x.sum() > 3 else x
    c = "pos" if k > 0 else "neg"
    d = (x + 1 if x[1] > 0 else x - 1) if x[0] > 0 else -x
    return a, b, c, d


def test_ternary_constant_and_runtime():
    check_many(ternary, (t([1.0, 2.0]), 1), (t([-1.0, 2.0]), 1), (t([3.0, -2.0]), 1))
    check(ternary, t([1.0, 2.0]), -1)


def scalar_tensor_condition(x, n):
    if x:                           # a one-element tensor is a valid condition
        r = x + n
    else:
        r = x - n
    if n > 2:
        r = r * n
    return r


def test_runtime_if_on_single_element_tensor_and_constant():
    check_many(scalar_tensor_condition, (t(2.0), 3), (t(0.0), 3))
    check(scalar_tensor_condition, t([1.5]), 1)


def mixed_number_kinds(x):
    acc = 0
    for i in range(4):
        if x[0] > i:
            acc = acc + 1           # int in one branch, float in the other: a float
        else:
            acc = acc + 0.5
    flag = False
    if x[1] > 2:
        flag = 1                    # a bool and an int: an int
    return acc, flag, x + flag


def test_python_numbers_of_different_kinds_merge_like_python():
    check_many(mixed_number_kinds, (t([2, 3], np.int32),), (t([0, 1], np.int32),))


# ---- for -------------------------------------------------------------------------------------------------

class AddK(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x + self.k


def for_iterables(x, y):
    acc = x * 0
    for i in range(3):
        acc = acc + x * i
    for v in (x, y, 2.0):
        acc = acc + v
    for v in [y, y]:
        acc = acc - v
    for a, b in zip((x, y), (1.0, 10.0)):
        acc = acc + a * b
    for i, v in enumerate((x, y)):
        acc = acc + v * (i + 1)
    for i in range(len(x)):
        acc = acc + x[i]
    for row in ops.reshape(y, (2, 1)):
        acc = acc + row
    for i in range(1, 7, 2):
        acc = acc * 0.5 + i
    for i in range(5, 0, -2):
        acc = acc - i
    for i in range(0):
        acc = acc + 1000.0
    return acc


def test_for_over_range_tuples_lists_zip_enumerate_tensor_rows():
    check(for_iterables, t([1.0, 2.0]), t([0.5, -1.0]))


class Layers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cells = nn.CellList([AddK(1.0), nn.ReLU(), AddK(-2.0)])
        self.seq = nn.SequentialCell([AddK(3.0), nn.ReLU()])

    def construct(self, x):
        for cell in self.cells:
            x = cell(x)
        for cell in self.seq:
            x = cell(x) * 2
        for i in range(len(self.cells)):
            x = self.cells[i](x)
        return self.seq(x)


def test_for_over_celllist_and_sequentialcell():
    net = Layers()
    x = t([0.5, -3.0, 2.0])
    expected = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x)
    np.testing.assert_allclose(got.asnumpy(), expected.asnumpy())


def list_append_in_loops(x):
    outs = []
    for i in range(3):
        outs.append(x * i)
    rows = []
    for r in x:
        rows.append(r + 1)
    more = [x]
    for i in range(2):
        more = more + [more[-1] * 2]
    return ops.stack(outs), ops.stack(rows), len(outs), more[-1]


def test_list_append_in_loops_unrolls():
    check(list_append_in_loops, t([[1.0, 2.0], [3.0, 4.0]]))


def slices_at_the_loop_index(x):
    acc = x[:, 0:2]
    for i in range(1, 3):
        acc = acc + x[:, i:i + 2] * x[i - 1:i, i:i + 2]
    return acc


def test_slice_bounds_at_the_loop_index_unroll_the_loop():
    """`x[:, i:i + 2]` needs i at compile time: the loop unrolls (it raised IndexError "slice
    bounds must be ints known at compile time"; nn.Unfold's patch loop hit it in GRAPH_MODE)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = x[:, 0:2].copy()
    for i in range(1, 3):
        want = want + x[:, i:i + 2] * x[i - 1:i, i:i + 2]
    np.testing.assert_array_equal(ms.jit(slices_at_the_loop_index)(Tensor(x)).asnumpy(), want)


def nested_loops(x, y):
    acc = x * 0
    for i in range(4):
        for j in range(3):
            if (x[0] + i) > j:
                acc = acc + y * j
            else:
                acc = acc - 1
        acc = acc * 0.5
    k = 0
    for i in range(3):
        for j in range(i):
            k = k + j
    return acc, k


def test_nested_loops_and_if_in_loops():
    check_many(nested_loops, (t([1.0, 0.0]), t([2.0, 3.0])), (t([-5.0, 0.0]), t([2.0, 3.0])))


def break_continue(x, n):
    acc = x * 0
    for i in range(n):
        if i == 1:
            continue                # constant condition
        if acc.sum() > 10:
            break                   # runtime condition
        if x[0] > i:
            continue
        acc = acc + x + i
    for i in range(5):
        if i == 3:
            break
        acc = acc + 1
    else:
        acc = acc * 100              # not reached: the loop breaks
    for v in (1.0, 2.0):
        acc = acc + v
    else:
        acc = acc - 0.5
    return acc


def test_break_and_continue_constant_and_runtime():
    check_many(break_continue, (t([1.0, 2.0]), 6), (t([3.0, 5.0]), 6), (t([-1.0, 0.5]), 6))


def early_return(x):
    if x[0] > 5:
        return x * 10
    for i in range(4):
        if x[1] > i:
            x = x + 1
        else:
            return x - 100 + i
    if x.sum() > 20:
        return x
    x = x * 3
    return x


def test_early_return_inside_runtime_ifs_and_loops():
    check_many(early_return, (t([6.0, 0.0]),), (t([1.0, 2.0]),), (t([1.0, 10.0]),), (t([4.0, 9.0]),))


def return_in_while(x):
    i = 0
    while i < 10:
        if x.sum() > 100:
            return x, i
        x = x * 2
        i += 1
    return x - 1, i


def test_early_return_in_while_with_constant_condition():
    check_many(return_in_while, (t([1.0, 2.0]),), (t([50.0, 60.0]),), (t([0.0, 0.0]),))


# ---- while ------------------------------------------------------------------------------------------

def while_loops(x, limit):
    n = 0
    while n < 3:                    # constant condition: runs at compile time
        x = x + n
        n += 1
    y = x
    while y.sum() < limit:          # runtime condition: one While node
        y = y * 2
    count = x * 0
    while count.sum() < 5:
        count = count + 1
        if count.sum() > 3:
            break
    z = x
    steps = ops.zeros((), ms.int32)
    while z.sum() < 100:
        z = z + 7
        steps = steps + 1
        if z.sum() < 40:
            continue
        z = z + 1
    return y, count, z, steps


def test_while_runtime_and_constant_conditions():
    jf = check_many(while_loops, (t([1.0, 2.0]), 50.0), (t([10.0, 20.0]), 50.0), (t([100.0, 2.0]), 50.0))
    kinds = structural_ops(ms.inspect(jf, t([1.0, 2.0]), 50.0).graph_after)
    assert "While" in kinds


def while_scalar_counter(x):
    i = 0
    total = x
    while total.sum() < 50:
        total = total + x
        i = i + 1                   # a Python int that becomes a runtime scalar
    return total, i


def test_while_lifts_python_counter_to_runtime_scalar():
    check_many(while_scalar_counter, (t([1.0, 2.0]),), (t([30.0, 30.0]),))


# ---- loops stay loops ---------------------------------------------------------------------------------

def hundred(x, y):
    out = x
    for _ in range(100):
        out = x + x * y + out
    return out


def test_hundred_iteration_loop_is_one_for_node():
    x, y = t([1.0]), t([2.0])
    report = ms.inspect(hundred, x, y)
    for graph in (report.graph_before, report.graph_after):
        fors = [n for n in ir.iter_nodes(graph.body) if n.op is ir.FOR]
        assert len(fors) == 1
        start, stop, step = (v.value for v in fors[0].inputs[:3])
        assert (start, stop, step) == (0, 100, 1)
        adds = [n for n in ir.iter_nodes(graph.body) if n.op.name == "Add"]
        assert len(adds) <= 4, "the body must not be copied per iteration"
    assert "For(" in report.ir_after and report.ir_after.count("Add(") <= 4
    check(hundred, x, y)
    np.testing.assert_allclose(ms.jit(hundred)(x, y).asnumpy(), [301.0])


def if_net(x, y):
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


def test_spec_if_net_peels_one_iteration_and_keeps_a_for():
    x, y = Tensor(np.array([0], np.int32)), Tensor(np.array([1], np.int32))
    report = ms.inspect(if_net, x, y)
    graph = report.graph_before
    top = [n.op.name for n in graph.body.nodes if ir.is_structural(n) and n.op is not ir.GETITEM]
    # iteration 0 (out = 0 becomes a tensor) is peeled: one If, then one For over the other 99
    assert top == ["If", "For"]
    loop = [n for n in graph.body.nodes if n.op is ir.FOR][0]
    assert [v.value for v in loop.inputs[:3]] == [1, 100, 1]
    assert [n.op.name for n in ir.iter_nodes(loop.blocks[0]) if ir.is_structural(n)].count("If") == 1
    assert "For(" in report.ir_after
    check(if_net, x, y)
    # NumPy reference
    xv, out = 0, 0
    for _ in range(100):
        xv = xv - 1 if xv < 1 else xv + 1
        out += xv
    assert ms.jit(if_net)(x, y).asnumpy().tolist() == [out]


def select_net(x, y):
    out = x
    for _ in range(100):
        cond = x < y
        x = ops.select(cond, x - y, x + y)
        out = out + x
    return out


def test_spec_select_net_is_one_loop():
    x, y = Tensor(np.array([0], np.int32)), Tensor(np.array([1], np.int32))
    report = ms.inspect(select_net, x, y)
    assert structural_ops(report.graph_before) == ["For"]
    check(select_net, x, y)


def manually_batched(xs):
    output = []
    for i in range(xs.shape[0]):
        output.append(ops.hardswish(xs[i]))
    return ops.stack(output)


def test_spec_manually_batched_loop_with_list_append():
    xs = t(np.linspace(-4, 4, 12).reshape(6, 2))
    out = check(manually_batched, xs)
    ref = xs.asnumpy() * np.clip(xs.asnumpy() + 3, 0, 6) / 6
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6)


def tensor_index_loop(x, w):
    acc = ops.zeros((2,), ms.float32)
    for i in range(8):
        acc = acc + x[i] * w           # a runtime index into a tensor keeps the loop
    return acc


def test_loop_indexing_tensor_with_loop_index_stays_a_loop():
    x = t(np.arange(16).reshape(8, 2))
    w = t([0.5, 2.0])
    report = ms.inspect(tensor_index_loop, x, w)
    assert structural_ops(report.graph_before) == ["For"]
    check(tensor_index_loop, x, w)


# ---- loop targets, else blocks, returns inside loops ---------------------------------------------------------

def loop_target_after_loop(x):
    for i in range(4):
        x = x + i
    j = 100
    for j in range(5):
        if x[0] < j * 3:
            break                   # a runtime break: j is carried out of the loop
    k = -1
    for k in range(0):
        x = x * 1000
    return x * i, x + j, k


def test_loop_target_keeps_last_index_after_loop_and_after_runtime_break():
    check_many(loop_target_after_loop, (t([2.0, 3.0]),), (t([-9.0, 3.0]),), (t([90.0, 3.0]),))


def break_in_first_iteration(x):
    for i in range(3):
        x = x + 1
        break
    if x[0] > 0:
        return x
    x = x * 5
    return x


def test_constant_break_then_runtime_if_runs_the_rest():
    check_many(break_in_first_iteration, (t([-5.0, 3.0]),), (t([5.0, 3.0]),))


def return_in_for_stays_loop(x):
    for i in range(50):
        if x.sum() > i:
            return x + i
    return x


def test_return_in_runtime_branch_of_a_long_loop_stays_a_loop():
    jf = check_many(return_in_for_stays_loop, (t([7.0, 2.0]),), (t([-70.0, 2.0]),), (t([30.0, 30.0]),))
    report = ms.inspect(jf, t([7.0, 2.0]))
    assert structural_ops(report.graph_before).count("For") == 1
    loop = [n for n in ir.iter_nodes(report.graph_before.body) if n.op is ir.FOR][0]
    assert loop.attrs["exit_flags"], "the loop must test its return flag after each iteration"


def for_else_and_while_else(x):
    for i in range(3):
        if x[i] > 0:
            return x, x
    else:
        y = -x
    n = x * 0
    while n.sum() < 20:
        n = n + 1
        if n[0] > x[0]:
            break
    else:
        n = n * 1000
    return y, n


def test_for_else_and_while_else_with_runtime_break_and_return():
    check_many(for_else_and_while_else, (t([-1.0, -2.0, -3.0]),), (t([-1.0, 2.0, -3.0]),),
               (t([-100.0, -2.0, -3.0]),))


def return_in_runtime_while(x):
    while x.sum() < 10:
        x = x + 1
        if x[0] > 3:
            return x * 100
    return x


def test_return_inside_runtime_while():
    check_many(return_in_runtime_while, (t([2.0, 3.0]),), (t([5.0, 3.0]),), (t([0.0, 0.0]),))


# ---- effects under control flow ---------------------------------------------------------------------------

class AssignsUnderControlFlow(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="p")
        self.q = ms.Parameter(Tensor(np.ones(2, np.float32)), name="q")

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.p, self.p + x)
        else:
            ops.assign(self.p, self.p - 1)
        for i in range(3):
            if x[0] > i:
                ops.assign(self.p, self.p * 2)
        seen = self.p + 0                  # read between writes: the value at this point
        n = x
        while n.sum() < 10:
            ops.assign(self.p, self.p + 1)
            n = n + 1
        out = x
        for i in range(4):
            for j in range(3):
                if out.sum() > 20 + j:
                    break
                out = out + self.q
            if out.sum() > 30:
                break
            ops.assign(self.q, self.q + 1)
        return seen, self.p + 0, n, out, self.q * 1


def test_parameter_assignments_in_runtime_branches_and_loops_match_pynative():
    for values in ([1.0, 2.0], [-3.0, 0.5], [3.0, 4.0]):
        x = t(values)
        eager, graph = AssignsUnderControlFlow(), AssignsUnderControlFlow()
        expected = [eager(x), eager(x)]            # twice: the second call starts from updated Parameters
        ms.set_context(mode=ms.GRAPH_MODE)
        got = [graph(x), graph(x)]
        ms.set_context(mode=ms.PYNATIVE_MODE)
        assert_same(got, expected)
        assert_same(graph.p.value(), eager.p.value())
        assert_same(graph.q.value(), eager.q.value())


def prints_under_control_flow(x):
    for i in range(3):
        if x[i] > 0:
            print("pos")
        else:
            print("neg")
            continue
        print("after")
    while x.sum() < 10:
        print("grow")
        x = x + 3
    if x[0] > 100:
        print("never")
    return x


def test_prints_under_runtime_control_flow_follow_python_order(capsys):
    jf = ms.jit(prints_under_control_flow)
    for values in ([1.0, -2.0, 3.0], [-1.0, -2.0, -3.0], [5.0, 5.0, 5.0]):
        x = t(values)
        prints_under_control_flow(x)
        expected = capsys.readouterr().out
        jf(x)
        assert capsys.readouterr().out == expected


def rows_loop(x, w):
    acc = w * 0
    for row in x:                   # the first axis: a For whose target is a gathered row
        acc = acc + row * w
    total = x[0, 0] * 0
    for a, b in x:
        if a > b:
            break
        total = total + a - b
    return acc, total, row


def test_loop_over_tensor_rows_stays_a_loop():
    x = t(np.arange(12, dtype=np.float32).reshape(6, 2) - 5)
    w = t([0.5, 2.0])
    report = ms.inspect(rows_loop, x, w)
    assert structural_ops(report.graph_before).count("For") == 2
    check(rows_loop, x, w)
    check(rows_loop, t([[1.0, 2.0], [3.0, 1.0], [0.0, 5.0]]), w)


# ---- found by differential fuzzing (random programs, eager vs compiled) ----------------------------------------

def while_zero_iterations_keeps_its_input(x):
    b = x - 1.0
    while b.sum() < -100:           # runs no iteration: the loop's output is its initial buffer
        b = b + 1.0
    a = b * -1.0                    # must not be computed into that buffer
    if a[1] > -2:
        return a, b
    return a, b


def chained_whiles_in_branches(x):
    a = x + 0.5
    b = x - 1.0
    ag = a
    while ag.sum() < 4:
        ag = ops.abs(ag) + 1.0
        if a[0] < a[1]:
            b = a * 1.5
    if a.sum() > 5:
        bg = b
        while bg.sum() < 8:
            bg = ops.abs(bg) + 1.0
    else:
        while ag.sum() < 2:         # its initial values are the outputs of the first While
            ag = ops.abs(ag) + 1.0
            bg = b
            while bg.sum() < 2:
                bg = ops.abs(bg) + 1.0
                b = a - 1
        a = a + 0.5
    return b + 2.0, b, a


def test_while_outputs_alias_their_inputs_until_last_use():
    check_many(while_zero_iterations_keeps_its_input, (t([1.0, 2.0]),), (t([-200.0, 2.0]),))
    check_many(chained_whiles_in_branches, (t([1.0, 2.0]),), (t([-3.0, 0.5]),), (t([4.0, -1.0]),))


def while_body_temporaries_and_break_first_time(x, n):
    total = x * 0
    ag = x
    while ag.sum() < 6:
        step = ag * 0.5             # a temporary of the body: not carried, not used after the loop
        for i in range(2):          # so is an inner loop's target
            total = total + step + i
        ag = ops.abs(ag) + 1.0
    bg = x
    while bg.sum() < 5:
        bg = bg + 1.0
        if n > 0:
            break                   # always breaks: the loop runs at most once
    return total, ag, bg


def test_while_with_body_temporaries_and_a_body_that_always_breaks():
    check_many(while_body_temporaries_and_break_first_time, (t([1.0, 2.0]), 1), (t([-3.0, 0.5]), 1),
               (t([4.0, 5.0]), 1))


def break_in_peeled_iteration(x):
    a = x
    for i in range(4):
        a = a + 1
        tmp = a * 2                 # a new name: the first iteration is peeled
        if tmp[1] == 6:
            break                   # ... and may break at run time: the rest runs under `not break`
    return a


def invariant_in_nested_while(x):
    a = x * 1.0
    b = x - 1.0
    bg = b
    while bg.sum() < 5:
        bg = ops.abs(bg) + 1.0
        ag = a
        while ag.sum() < 2:
            ag = ops.abs(ag) + 1.0
            a = ops.maximum(x, x * 0.5)     # loop-invariant, hoisted: a result of a doubly nested block
            b = a * -1.0
    return a, b


def test_break_in_a_peeled_iteration_and_invariants_of_nested_loops():
    check_many(break_in_peeled_iteration, (t([1.0, 2.0]),), (t([0.0, 0.0]),), (t([0.0, 1.0]),))
    check_many(invariant_in_nested_while, (t([1.0, 2.0]),), (t([-3.0, -2.0]),), (t([-0.5, 0.0]),))
