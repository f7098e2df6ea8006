"""Random IR under random rewriter mutations keeps the use-list contract (seed 001).

A hypothesis state machine builds a random function (scalar ``constant`` and
``arith`` ops, ``parallel`` and ``serial`` nests, operands drawn among the
values that dominate the use), then applies random mutations through
``IRRewriter``: detach and reinsert elsewhere, ``set_operand``,
``replace_all_uses_with``, ``erase``, new operations, and swapping the bodies
of two nests by moving region blocks. Illegal outcomes (a broken dominance
relation) are rolled back through the rewriter too. After every step it
checks, against an independent walk of the attached module:

(a) every value's use list, as a set of ``Use`` objects, equals the operand
    slots of attached operations that name it; detached operations have no
    linked uses;
(b) every linked ``Use`` sits in its own value's list with consistent
    neighbours, and ``num_uses`` matches the list;
(c) ``tilec.ir.verify`` accepts the module (skipped, with the reason printed,
    while the verifier is a placeholder), and independently every operand
    dominates its user.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tilec.ir import (
    AnalysisManager,
    Block,
    DominanceInfo,
    Function,
    IRRewriter,
    Liveness,
    Module,
    Operation,
    Region,
    Value,
    f32,
    index,
    verify,
)


def _verifier_state() -> str | None:
    """None when ``verify`` works, else why check (c) is skipped."""
    fn = Function("probe", [f32])
    fn.entry.append(Operation("return"))
    try:
        verify(Module([fn]))
    except NotImplementedError:
        return "tilec.ir.verify is still a placeholder (NotImplementedError)"
    except Exception as e:  # a working verifier must accept this trivial module
        return f"tilec.ir.verify rejects a trivial module: {e}"
    return None


VERIFY_SKIP = _verifier_state()


# ------------------------------------------------------------------ helpers


def _attached_values(fn: Function) -> list[Value]:
    """Every value defined in the attached function: arguments, block arguments, results."""
    out: list[Value] = list(fn.args)
    for op in fn.walk():
        out.extend(op.results)
        for r in op.regions:
            for b in r.blocks:
                out.extend(b.args)
    return out


def _blocks(fn: Function) -> list[Block]:
    out = list(fn.body.blocks)
    for op in fn.walk():
        for r in op.regions:
            out.extend(r.blocks)
    return out


def _dominance_ok(fn: Function) -> bool:
    dom = DominanceInfo(fn)
    return all(dom.dominates(v, op) for op in fn.walk() for v in op.operands)


def _candidates(fn: Function, at: Operation, type_) -> list[Value]:
    """Values of ``type_`` available at ``at`` (those dominating it)."""
    dom = DominanceInfo(fn)
    return [v for v in _attached_values(fn) if v.type is type_ and dom.dominates(v, at)]


class MutationMachine(RuleBasedStateMachine):
    """Random IR + random rewriter mutations; the use-list contract holds after each step."""

    def __init__(self) -> None:
        super().__init__()
        self.fn = Function("f", [f32, f32, index])
        self.module = Module([self.fn])
        self.am = AnalysisManager(self.module)
        self.rw = IRRewriter(self.am)
        self.created: list[Operation] = []  # every op ever made, attached or not
        self.blocks: list[Block] = [self.fn.entry]
        self.fn.entry.append(Operation("return"))

    # -- building ----------------------------------------------------------------------
    def _new_op(self, rng: random.Random, at: Operation) -> Operation:
        """A random operation whose operands dominate ``at`` (inserted before ``at``)."""
        fvals = _candidates(self.fn, at, f32)
        ivals = _candidates(self.fn, at, index)
        kind = rng.choice(["const", "const_i", "arith", "arith", "arith_i", "parallel",
                           "serial"])
        if kind == "const":
            op = Operation("constant", [], [f32], {"value": float(rng.randint(-4, 4))})
        elif kind == "const_i":
            op = Operation("constant", [], [index], {"value": rng.randint(0, 8)})
        elif kind == "arith":
            fnn = rng.choice(["add", "mul", "sub", "max"])
            op = Operation("arith", [rng.choice(fvals), rng.choice(fvals)], [f32], {"fn": fnn})
        elif kind == "arith_i":
            op = Operation("arith", [rng.choice(ivals), rng.choice(ivals)], [index],
                           {"fn": "add"})
        elif kind == "parallel":
            body = Block([index])
            body.append(Operation("yield"))
            op = Operation("parallel", [rng.choice(ivals)], [], {"rank": 1}, [Region([body])])
            self.blocks.append(body)
        else:
            body = Block([index, f32])
            body.append(Operation("yield", [body.args[1]]))
            bounds = [rng.choice(ivals) for _ in range(3)]
            op = Operation("serial", [*bounds, rng.choice(fvals)], [f32], {}, [Region([body])])
            self.blocks.append(body)
        for o in op.walk():
            self.created.append(o)
        return op

    def _random_point(self, rng: random.Random) -> Operation:
        """A random attached operation to insert before (terminators included)."""
        blocks = [b for b in _blocks(self.fn) if len(b.operations)]
        block = rng.choice(blocks)
        return rng.choice(list(block.operations))

    def _grow(self, rng: random.Random) -> None:
        at = self._random_point(rng)
        self.rw.insert(self._new_op(rng, at), at.parent, at)

    @initialize(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 25))
    def build(self, seed: int, size: int) -> None:
        rng = random.Random(seed)
        for _ in range(size):
            self._grow(rng)

    def _warm(self) -> int:
        self.am.get(DominanceInfo)
        self.am.get(Liveness)
        return self.rw.num_mutations

    def _check_invalidated(self, before: int) -> None:
        if self.rw.num_mutations != before:
            assert not self.am.is_cached(DominanceInfo) and not self.am.is_cached(Liveness)

    # -- mutations ---------------------------------------------------------------------
    @rule(seed=st.integers(0, 2**32 - 1))
    def add_op(self, seed: int) -> None:
        n = self._warm()
        self._grow(random.Random(seed))
        self._check_invalidated(n)

    @rule(data=st.data())
    def detach_and_reinsert(self, data: st.DataObject) -> None:
        movable = [op for op in self.fn.walk() if not op.opdef.terminator]
        if not movable:
            return
        op = data.draw(st.sampled_from(movable))
        home = op.next_op  # never None: every block ends in a terminator
        targets = [t for t in self.fn.walk() if t is not op and not op.is_ancestor_of(t)]
        target = data.draw(st.sampled_from(targets))
        n = self._warm()
        uses = op.operand_uses
        self.rw.detach(op)
        self._check_contract()  # detached: outside the IR, no linked uses
        self.rw.insert(op, target.parent, target)
        assert op.operand_uses == uses  # the same Use objects came back
        if not _dominance_ok(self.fn):
            self.rw.move_before(op, home)
        self._check_invalidated(n)

    @rule(data=st.data())
    def set_operand(self, data: st.DataObject) -> None:
        users = [op for op in self.fn.walk() if op.num_operands]
        if not users:
            return
        op = data.draw(st.sampled_from(users))
        i = data.draw(st.integers(0, op.num_operands - 1))
        choices = _candidates(self.fn, op, op.operand(i).type)
        if not choices:
            return
        n = self._warm()
        use = op.operand_uses[i]
        self.rw.set_operand(op, i, data.draw(st.sampled_from(choices)))
        assert op.operand_uses[i] is use
        self._check_invalidated(n)

    @rule(data=st.data())
    def replace_all_uses(self, data: st.DataObject) -> None:
        used = [v for v in _attached_values(self.fn) if v.has_uses]
        if not used:
            return
        old = data.draw(st.sampled_from(used))
        dom = DominanceInfo(self.fn)
        users = [u.owner for u in old.uses]
        news = [v for v in _attached_values(self.fn)
                if v is not old and v.type is old.type and all(dom.dominates(v, u) for u in users)]
        if not news:
            return
        new = data.draw(st.sampled_from(news))
        moved = set(old.uses)
        n = self._warm()
        self.rw.replace_all_uses_with(old, new)
        assert not old.has_uses and moved <= set(new.uses)
        self._check_invalidated(n)

    @rule(data=st.data())
    def erase(self, data: st.DataObject) -> None:
        dead = [op for op in self.fn.walk()
                if not op.opdef.terminator and not any(r.has_uses for r in op.results)]
        if not dead:
            return
        n = self._warm()
        self.rw.erase(data.draw(st.sampled_from(dead)))
        self._check_invalidated(n)

    @rule(data=st.data())
    def swap_bodies(self, data: st.DataObject) -> None:
        nests = [op for op in self.fn.walk() if op.name in ("parallel", "serial")]
        pairs = [(a, b) for a in nests for b in nests
                 if a is not b and a.name == b.name and not a.is_ancestor_of(b)
                 and not b.is_ancestor_of(a)]
        if not pairs:
            return
        a, b = data.draw(st.sampled_from(pairs))
        n = self._warm()
        self._swap(a, b)
        if not _dominance_ok(self.fn):
            self._swap(a, b)
        self._check_invalidated(n)

    def _swap(self, a: Operation, b: Operation) -> None:
        tmp = Region()
        self.rw.move_region_blocks(a.regions[0], tmp)
        self._check_contract()  # a's body is in a detached region now
        self.rw.move_region_blocks(b.regions[0], a.regions[0])
        self.rw.inline_region_before(tmp, b.regions[0])

    # -- the contract ------------------------------------------------------------------
    def _check_contract(self) -> None:
        attached = list(self.fn.walk())
        attached_ids = {id(op) for op in attached}
        expected: dict[int, set] = {}
        for op in attached:
            assert op.is_attached
            for u in op.operand_uses:
                expected.setdefault(id(u.value), set()).add(u)
        values: dict[int, Value] = {id(v): v for v in self.fn.args}
        for op in self.created:
            values.update((id(r), r) for r in op.results)
        for b in self.blocks:
            values.update((id(a), a) for a in b.args)
        for op in attached:
            values.update((id(v), v) for v in op.operands)
        for key, v in values.items():
            actual = list(v.uses)
            # (a) the use list is exactly the attached operand slots naming v
            assert set(actual) == expected.get(key, set()), f"use list of {v!r} is wrong"
            assert len(actual) == v.num_uses == len(set(actual))
            # (b) every link belongs to its value and its neighbours agree
            for u in actual:
                assert u.linked_list_owner is u.value is v
                assert u.neighbours_consistent
        for op in self.created:
            if id(op) not in attached_ids:
                assert not op.is_attached
                assert all(not u.is_linked and u.neighbours_consistent for u in op.operand_uses)

    @invariant()
    def contract_holds(self) -> None:
        self._check_contract()

    @invariant()
    def dominance_and_verifier(self) -> None:
        assert _dominance_ok(self.fn)
        if VERIFY_SKIP is None:
            verify(self.module)


MutationMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestMutations = MutationMachine.TestCase


def test_verifier_check_is_active():
    """Reports (as a skip) when check (c) could not run against the real verifier."""
    if VERIFY_SKIP is not None:
        pytest.skip(f"check (c) skipped: {VERIFY_SKIP}")
