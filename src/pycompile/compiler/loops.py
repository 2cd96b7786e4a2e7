"""Loops for the frontend: `for i in range(n)` and `for row in tensor` traced once into a `For`
node that stays a loop (the first iteration peeled when a carried value changes type; unrolled
when the body needs a compile-time index), and `while` on a graph value traced into a `While`
node. A mixin of the interpreter (see control.py for the conditions, `if` and exits it uses).
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TupleType, U_TYPE
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.builder import NeedsConstant, Sym
from pycompile.compiler.control import (BREAK, BRK, CNT, CONTINUE, MAYBE, NORMAL, RET, RETURN, RETVAL,
                                        UNROLL_LIMIT, UNSET, LoopRetry, _common_type, _exit_flag_slots,
                                        _is_number, _leaf_type, _placeholder_like, _pname, _pretty, _scalar_sym,
                                        _target_name, _target_names, _Undefined, assigned_names, has_break,
                                        mutable_names, snapshot)
from pycompile.compiler.pytree import flatten, unflatten
from pycompile.compiler.stacking import StackedLoops
from pycompile.ops import functional as F


class Loops(StackedLoops):
    """Mixin: needs the ControlFlow methods and `self.builder`, `self.exec_stmts`, `self.error`."""

    # ---- for over range ---------------------------------------------------------------------------
    def exec_for_range(self, frame, node, rng: range, item=None):
        """`for target in rng`; with `item`, the target is item(index) instead (a tensor's row)."""
        at = item or (lambda i: i)
        target = node.target
        frame.env[CNT] = False      # code runs only while enclosing loops did not `continue`
        n = len(rng)
        if n == 0:
            return self.exec_stmts(frame, node.orelse)
        if self.differentiating > 1 and n <= UNROLL_LIMIT:
            # inside a gradient of a gradient (grad of grad, jvp, jacfwd) a loop of known length is
            # unrolled: the backward of a loop reads its iterations back from stacks, which a
            # second differentiation cannot see through yet (autodiff.py)
            return self._unrolled_range(frame, node, rng, 0, at)
        if n > 1:
            st = self.try_stacked_loop(frame, node, rng, at)     # a list filled row by row
            if st is not None:
                return st
        body = node.body
        name = _target_name(target)
        carried = (assigned_names(body) | mutable_names(frame.env) | {BRK, CNT, RET, RETVAL}) - {name}
        # after the loop the target holds the last index: rng[-1] unless a `break` can stop the
        # loop early, in which case the index is carried out of the loop
        can_break = name is not None and has_break(body)
        if can_break:
            carried.add(name)
        start = 0
        peeled = 0
        lift: set = set()
        while start < n:
            if n - start == 1:
                return self._unrolled_range(frame, node, rng, start, at)
            attempt_env = frame.env
            try:
                if can_break:
                    frame.env = dict(frame.env)
                    frame.env[name] = at(rng[start])
                status = self._try_loop(frame, node, rng, start, carried, lift, at)
                if not can_break:
                    self.assign_target(frame, target, at(rng[-1]))
                return self._after_loop(frame, node, status)
            except LoopRetry as r:
                frame.env = attempt_env
                if self._widen(frame, attempt_env, r, lift):
                    continue
                if r.kind in ("peel", "lift", "retval") and peeled < 2:
                    st = self._one_iteration(frame, node, at(rng[start]))
                    peeled += 1
                    start += 1
                    if st == BREAK:
                        frame.env[BRK] = False
                        return NORMAL
                    if st == RETURN:
                        return RETURN
                    if st == MAYBE:
                        return self._guarded_rest(frame, node, rng, start, at)
                    continue
                return self._unrolled_range(frame, node, rng, start, at)
            except NeedsConstant:
                frame.env = attempt_env
                return self._unrolled_range(frame, node, rng, start, at)
        return NORMAL

    def _widen(self, frame, env0, r: LoopRetry, lift: set) -> bool:
        """A retry that asks for more runtime values: Python numbers lifted to runtime scalars,
        or a placeholder for a return value set inside the loop. True: build the loop again."""
        if r.kind == "lift" and not r.names <= lift:
            lift |= r.names
            return True
        if r.kind == "retval" and RETVAL not in lift:
            frame.env = self._with_retval_placeholder(env0, r.value)
            lift.add(RETVAL)
            return True
        return False

    def _one_iteration(self, frame, node, index):
        self.assign_target(frame, node.target, index)
        frame.env[CNT] = False
        st = self.exec_stmts(frame, node.body)
        frame.env[CNT] = False
        return NORMAL if st == CONTINUE else st

    def _unrolled_range(self, frame, node, rng, start, at):
        if len(rng) - start > UNROLL_LIMIT:
            raise self.error(node, f"this loop must be unrolled ({len(rng) - start} iterations) because its body "
                                   f"needs the index at compile time, which exceeds the limit of {UNROLL_LIMIT}",
                             "avoid indexing Python tuples/lists with the loop index, or use a smaller range")
        return self.exec_unrolled(frame, node, [at(rng[i]) for i in range(start, len(rng))])

    def _guarded_rest(self, frame, node, rng, start, at):
        return self.exec_unrolled(frame, node, [at(rng[i]) for i in range(start, len(rng))], guarded=True)

    def exec_unrolled(self, frame, node, items, guarded=False):
        """Run the body once per item at compile time (loops over tuples, CellLists, zip ...).
        After an iteration that may have exited (a runtime break / return), the remaining ones
        run under `if not flag`."""
        if len(items) > UNROLL_LIMIT:
            raise self.error(node, f"loop over {len(items)} items exceeds the unroll limit of {UNROLL_LIMIT}")
        if not guarded:
            # a loop of its own: its break flag starts clear. (Guarded, this continues a loop whose
            # peeled first iteration may have set the flag at run time: keep it.) Code only runs
            # while the enclosing loops' flags are clear, so clearing the flag after the loop is
            # right for them too.
            frame.env[BRK] = False
        maybe = guarded
        for item in items:
            if maybe:
                st = self.run_guarded(frame, lambda item=item: self._one_iteration(frame, node, item), node)
            else:
                st = self._one_iteration(frame, node, item)
            if st == BREAK:
                frame.env[BRK] = False
                return NORMAL
            if st == RETURN:
                return RETURN
            if st == MAYBE:
                maybe = True
        return self._after_loop(frame, node, NORMAL)

    def _try_loop(self, frame, node, rng, start, carried, lift, at):
        b = self.builder
        env0, u0 = frame.env, b.u
        index = ir.Param(name=_target_name(node.target) or "i", type=ScalarType("int"))
        if rng.step > 0 and rng[start] >= 0:
            self.builder.nonneg.add(id(index))      # lets `2 ** i` stay an int power in the loop
        params, inits, body_env = [], [], snapshot(env0)
        plan, owners = {}, []
        for name in env0:           # in definition order, so the IR is the same in every process
            if name not in carried:
                continue
            v = env0[name]
            if isinstance(v, _Undefined):
                continue
            leaves, tree = flatten(v)
            new_leaves, kinds = [], []
            for leaf in leaves:
                p = self._carry_param(name, leaf, name in lift)
                if p is None:
                    new_leaves.append(leaf)
                    kinds.append(None)
                else:
                    params.append(p)
                    owners.append(name)
                    inits.append(self._init_value(leaf, p.type))
                    new_leaves.append(Sym(p, b))
                    kinds.append(p)
            plan[name] = (tree, kinds, leaves)
            body_env[name] = unflatten(tree, new_leaves)
        status, body_nodes, env1, u_param, u1 = self._trace_body(frame, node, body_env, index, at)
        if status in (BREAK, RETURN):
            raise LoopRetry("peel")
        results = self._loop_results(env0, env1, plan, body_nodes, node, skip=_target_names(node.target))
        results.append(u1)
        body = ir.Block((index, *params, u_param), tuple(body_nodes), tuple(results))
        types = tuple(p.type for p in params) + (U_TYPE,)
        loop = b.add(ir.FOR, (ir.Const.scalar(rng[start]), ir.Const.scalar(rng.stop), ir.Const.scalar(rng.step),
                              *inits, u0), TupleType(types), {"exit_flags": _exit_flag_slots(owners)},
                     blocks=(body,))
        outs = [b.add(ir.GETITEM, (loop,), t, {"index": i}) for i, t in enumerate(types)]
        b.u = outs.pop()
        self._rebind(frame, env0, plan, outs)
        return status

    def _trace_body(self, frame, node, body_env, index, at):
        """One iteration of a `for` body traced as a block of its own, in `body_env`, with the loop
        index `index`: (status, nodes, environment after, the block's U parameter, U after). The
        frame's environment and the builder's U are restored, also when tracing raises."""
        b = self.builder
        env0, u0 = frame.env, b.u
        u_param = ir.Param(name="U", type=U_TYPE)
        b.push_block()
        frame.env = body_env
        b.u = u_param
        try:
            self.assign_target(frame, node.target, at(Sym(index, b)))
            frame.env[CNT] = False
            status = self.exec_stmts(frame, node.body)
            frame.env[CNT] = False
        finally:
            nodes = b.pop_block()
            env1, u1 = frame.env, b.u
            frame.env, b.u = env0, u0
        return status, nodes, env1, u_param, u1

    def _carry_param(self, name, leaf, lift: bool):
        if isinstance(leaf, Sym):
            return ir.Param(name=_pname(name), type=leaf._value.type)
        if lift and _is_number(leaf):
            return ir.Param(name=_pname(name), type=ScalarType(mstype.scalar_kind(leaf)))
        if lift and isinstance(leaf, Tensor):
            return ir.Param(name=_pname(name), type=leaf._abstract)
        return None

    def _init_value(self, leaf, t):
        if isinstance(leaf, Sym):
            return leaf._value
        return self.builder.value(leaf) if isinstance(leaf, Tensor) else ir.Const.scalar(leaf)

    def _loop_results(self, env0, env1, plan, body_nodes, node, skip=()) -> list:
        """Results of the body in carried order; raises LoopRetry when the types do not fit."""
        new_names = [k for k in env1 if k not in env0 and k not in (BRK, CNT, RET, RETVAL)
                     and not k.startswith("__") and k not in skip]
        if new_names:
            raise LoopRetry("peel", new_names)
        if env0.get(RETVAL, UNSET) is UNSET and env1.get(RETVAL, UNSET) is not UNSET and RETVAL in plan:
            # a `return` under a runtime condition: carry a placeholder of the returned type
            raise LoopRetry("retval", [RETVAL], env1[RETVAL])
        results, lift = [], set()
        for name, (tree, kinds, old_leaves) in plan.items():
            v = env1.get(name)
            if isinstance(v, _Undefined):
                raise LoopRetry("peel", [name])
            leaves, tree1 = flatten(v)
            if tree1 != tree or len(leaves) != len(kinds):
                raise LoopRetry("unroll", [name])
            for leaf, p, old in zip(leaves, kinds, old_leaves):
                if p is None:
                    if leaf is old or (_is_number(leaf) and _is_number(old) and type(leaf) is type(old) and leaf == old):
                        continue
                    if _is_number(old) and (_is_number(leaf) or _scalar_sym(leaf)):
                        lift.add(name)
                        continue
                    if isinstance(old, Tensor) and isinstance(leaf, (Sym, Tensor)) and _leaf_type(leaf) == old._abstract:
                        lift.add(name)
                        continue
                    raise LoopRetry("peel" if isinstance(leaf, Sym) else "unroll", [name])
                # a carried graph value: the body must give back the same type
                lt = _leaf_type(leaf)
                if lt == p.type:
                    results.append(leaf._value if isinstance(leaf, Sym) else self._convert_in(leaf, p.type, body_nodes))
                elif lt is not None and _is_number(leaf) and _common_type(lt, p.type) == p.type:
                    results.append(self._convert_in(leaf, p.type, body_nodes))
                elif isinstance(leaf, Sym) and isinstance(p.type, ScalarType) and isinstance(lt, ScalarType):
                    raise LoopRetry("unroll", [name])
                else:
                    raise LoopRetry("peel", [name])
        if lift:
            raise LoopRetry("lift", lift)
        return results

    def _rebind(self, frame, env0, plan, outs):
        env = dict(env0)
        k = 0
        for name, (tree, kinds, old_leaves) in plan.items():
            leaves = []
            for p, old in zip(kinds, old_leaves):
                if p is None:
                    leaves.append(old)
                else:
                    leaves.append(Sym(outs[k], self.builder))
                    k += 1
            env[name] = unflatten(tree, leaves)
        frame.env = env

    def _after_loop(self, frame, node, status):
        """Consume the loop's break flag; run `else:` if the loop neither broke nor returned."""
        frame.env[CNT] = False
        st = NORMAL
        if node.orelse:
            def orelse():
                frame.env[BRK] = False
                return self.exec_stmts(frame, node.orelse)
            st = self.run_guarded(frame, orelse, node)
        frame.env[BRK] = False
        if st == NORMAL and isinstance(frame.env.get(RET), Sym):
            st = MAYBE
        return st

    # ---- while --------------------------------------------------------------------------------------
    def exec_while(self, frame, node):
        iterations = 0
        saved_brk = frame.env.get(BRK, False)
        frame.env[BRK] = frame.env[CNT] = False
        while True:
            cond = self.cond_value(self.eval(frame, node.test), node.test)
            if not isinstance(cond, bool):
                return self._runtime_while(frame, node, saved_brk)
            if not cond:
                break
            iterations += 1
            if iterations > UNROLL_LIMIT:
                raise self.error(node, f"this while loop has a compile-time condition and ran {UNROLL_LIMIT} "
                                       f"iterations at compile time without ending",
                                 "make the condition depend on a tensor, or bound the loop")
            frame.env[CNT] = False
            st = self.exec_stmts(frame, node.body)
            frame.env[CNT] = False
            if st == BREAK:
                frame.env[BRK] = saved_brk
                return NORMAL
            if st == RETURN:
                return RETURN
            if st == MAYBE:
                return self._runtime_while(frame, node, saved_brk)
        if node.orelse:
            st = self.exec_stmts(frame, node.orelse)
            if st != NORMAL:
                return st
        frame.env[BRK] = saved_brk
        return NORMAL

    def _runtime_while(self, frame, node, saved_brk):
        carried = assigned_names(node.body) | mutable_names(frame.env) | {BRK, CNT, RET, RETVAL}
        lift: set = set()
        for _ in range(6):
            env0 = frame.env
            try:
                self._try_while(frame, node, carried, lift)
            except LoopRetry as r:
                frame.env = env0
                if self._widen(frame, env0, r, lift):
                    continue
                if r.kind == "once":
                    return self._while_once(frame, node, saved_brk)
                names = ", ".join(sorted(_pretty(n) for n in r.names))
                raise self.error(node, f"variable(s) {names} change type or structure inside this while loop, "
                                       f"whose condition is a tensor value",
                                 "give them their final type (e.g. a Tensor of the right shape and dtype) "
                                 "before the loop")
            status = self._after_loop(frame, node, NORMAL)
            frame.env[BRK] = saved_brk
            return status
        raise self.error(node, "could not build this while loop")

    def _while_once(self, frame, node, saved_brk):
        """A `while` whose body always ends in break / return runs it at most once: an `if`."""
        cond = self.cond_value(self.eval(frame, node.test), node.test)

        def body():
            frame.env[CNT] = False
            st = self.exec_stmts(frame, node.body)
            frame.env[BRK] = frame.env[CNT] = False
            return NORMAL if st == BREAK else st

        def orelse():
            return self.exec_stmts(frame, node.orelse) if node.orelse else NORMAL
        if isinstance(cond, bool):
            st = body() if cond else orelse()
        else:
            st = self.runtime_if(frame, cond, body, orelse, node)
        frame.env[BRK] = saved_brk
        return st

    def _with_retval_placeholder(self, env, value):
        env = dict(env)
        env[RETVAL] = _placeholder_like(value)
        return env

    def _try_while(self, frame, node, carried, lift):
        b = self.builder
        env0, u0 = frame.env, b.u
        params, inits, plan = [], [], {}
        body_env = snapshot(env0)
        for name in env0:
            if name not in carried or isinstance(env0[name], _Undefined):
                continue
            leaves, tree = flatten(env0[name])
            kinds, new_leaves = [], []
            for leaf in leaves:
                p = self._carry_param(name, leaf, name in lift)
                kinds.append(p)
                if p is None:
                    new_leaves.append(leaf)
                else:
                    params.append(p)
                    inits.append(self._init_value(leaf, p.type))
                    new_leaves.append(Sym(p, b))
            plan[name] = (tree, kinds, leaves)
            body_env[name] = unflatten(tree, new_leaves)
        u_param = ir.Param(name="U", type=U_TYPE)

        def param_env():
            env = snapshot(body_env)
            return env

        # condition block: not (break or return) and test
        b.push_block()
        frame.env = param_env()
        b.u = u_param
        try:
            test = self.eval(frame, node.test)
            guard = self.not_flags(frame)
            cond = test if guard is True else F.logical_and(guard, test if isinstance(test, Sym) else bool(test))
            cond_v = self.cond_value(cond, node.test)
            if isinstance(cond_v, bool):
                cond_v = ir.Const.scalar(cond_v)
        finally:
            cond_nodes = b.pop_block()
        cond_block = ir.Block((), tuple(cond_nodes), (cond_v,))
        # body block
        b.push_block()
        frame.env = param_env()
        b.u = u_param
        try:
            frame.env[CNT] = False
            status = self.exec_stmts(frame, node.body)
            frame.env[CNT] = False
        except BaseException:
            b.pop_block()
            frame.env, b.u = env0, u0
            raise
        body_nodes = b.pop_block()
        env1, u1 = frame.env, b.u
        frame.env, b.u = env0, u0
        if status in (BREAK, RETURN):
            raise LoopRetry("once")
        # names the body defines are its temporaries: not carried, not usable after the loop
        local = {k for k in env1 if k not in env0 and k not in (BRK, CNT, RET, RETVAL) and not k.startswith("__")}
        results = self._loop_results(env0, env1, plan, body_nodes, node, skip=local)
        results.append(u1)
        all_params = (*params, u_param)
        cond_block = ir.Block(all_params, cond_block.nodes, cond_block.results)
        body = ir.Block(all_params, tuple(body_nodes), tuple(results))
        types = tuple(p.type for p in params) + (U_TYPE,)
        loop = b.add(ir.WHILE, (*inits, u0), TupleType(types), blocks=(cond_block, body))
        outs = [b.add(ir.GETITEM, (loop,), t, {"index": i}) for i, t in enumerate(types)]
        b.u = outs.pop()
        self._rebind(frame, env0, plan, outs)
        for k in local:
            frame.env[k] = _Undefined(k, b.loc, "while")
        return NORMAL


# ---- helpers -----------------------------------------------------------------------------------------
