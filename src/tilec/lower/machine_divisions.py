"""Machine lowering of integer divisions whose divisor may be zero (tileir.md: an error).

A zero divisor stops the program like a failed check, and on a GPU a group
stops as a whole: a thread that left alone would strand the others at the
next barrier. So the lowering turns every such division of a group into a
uniform ``check {kind = "zerodiv"}`` (whose failure the targets report as
``KernelArithmeticError`` at the division's location, through the channel of
their checks):

* a scalar division: ``check(divisor != 0)`` right before it (Candidate
  scalars are uniform across the group);
* a division in a ``map`` or ``reduce`` region whose divisor depends on
  uniform values only (scalar operands, values from outside, constants):
  the divisor is computed once before the operation and checked there, when
  the region runs at least once;
* a ``map`` division whose divisor depends on the elements: the region
  divides by ``select(d == 0, 1, d)`` and also yields ``d == 0`` per register
  (false on registers of a masked distribution that hold no element); the
  atom ``vote.any`` (one group barrier) makes the group's flags one uniform
  ``i1``, which the check after the map reads. Nothing after the map runs in
  a group that failed, and no register of any thread divides by zero;
* such a division in a ``reduce`` update is refused (a ``LoweringError``):
  the update runs in lane folds and shuffle trees with no place for a vote.

Divisions by a constant or a provably nonzero value (``ir.ranges``)
get nothing. Top-level divisions are the host's (``kernel_checks.HostChecks``
evaluates them with the host checks): their copies in the SIMT region get
nothing. Nor does the prefetch of a staged load's address for a later
iteration (``speculative``): it must not fail ahead of program order, so it
divides by 1 where the divisor is 0, and that iteration checks its own copy
when it comes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.ranges import analyze_ranges, divisor_may_be_zero

from .cloning import clone_region
from .machine import GroupLowering, Lowered
from .options import LoweringError
from .schedule import SCHEDULE_ATTRS

__all__ = ["may_divide_by_zero", "guard_scalar_division", "guard_region", "RegionGuard",
           "validity", "vote_check", "has_masked_registers"]


def may_divide_by_zero(g: GroupLowering, op: ir.Operation) -> bool:
    """True for an integer division of the Scheduled function whose divisor may be zero (the
    divisions this module guards; the range analysis runs once per function)."""
    fl = g.fl
    if fl.ranges is None:
        fl.ranges = analyze_ranges(fl.src)  # once per function (ir.ranges: its cost)
    return divisor_may_be_zero(op, fl.ranges)


def _zerodiv_check(g: GroupLowering, ok: ir.Value, division: ir.Operation) -> None:
    """``check(ok) {kind = "zerodiv"}`` at the division's location."""
    g.b.create("check", [ok], [], {"message": division.attr("fn"), "labels": (),
                                   "kind": "zerodiv"}, loc=division.loc)


def guard_scalar_division(g: GroupLowering, op: ir.Operation, operands: list[ir.Value]
                          ) -> list[ir.Value]:
    """The machine operands of a scalar Candidate ``arith`` of a group, after emitting the
    check its divisor needs, if any. Ahead of program order (``speculative``) there is no
    check and a zero divisor is replaced by 1: the value is never used, since the iteration
    it is for fails its own check first."""
    if not may_divide_by_zero(g, op):
        return operands
    d = operands[1]
    nonzero = g.arith("ne", d, _zero(g, d.type))
    if g.speculative:
        one = g.op("constant", [], [d.type], {"value": 1}).result
        return [operands[0], g.arith("select", nonzero, d, one)]
    _zerodiv_check(g, nonzero, op)
    return operands


def _zero(g: GroupLowering, t: ir.Type) -> ir.Value:
    return g.op("constant", [], [t], {"value": 0}).result


# ------------------------------------------------------------------- regions


class RegionGuard:
    """The guards of one ``map``/``reduce`` region: hoisted checks, and the rewritten region
    of a ``map`` whose divisors depend on the elements (``flags`` extra results)."""

    def __init__(self, region: ir.Region, flags: int, valid: bool) -> None:
        self.region = region
        """The region to lower (the original when nothing was rewritten)."""
        self.flags = flags
        """Extra ``i1`` results: one per element-dependent division, in region order."""
        self.valid = valid
        """True when the rewritten region takes one more argument, the register validity."""
        self.divisions: list[ir.Operation] = []
        """The Candidate divisions the flags stand for, in order."""


def guard_region(g: GroupLowering, op: ir.Operation, uniform_args: Sequence[ir.Value | None],
                 runs: bool, masked: bool) -> RegionGuard:
    """Guard the divisions of ``op``'s region.

    ``uniform_args[k]`` is the Candidate value region argument ``k`` stands for when it is
    uniform (a scalar operand), else None; ``runs``: the region runs at least once (an empty
    domain divides nothing); ``masked``: some registers of the result hold no element.
    Uniform divisors are checked here, before ``op``; element-dependent ones are rewritten
    for a vote (``map`` only; a located ``LoweringError`` for ``reduce``).
    """
    region = op.regions[0]
    block = region.entry
    divisions = [d for d in region.walk() if may_divide_by_zero(g, d)] if runs else []
    if not divisions:
        return RegionGuard(region, 0, False)
    uniform = _uniform_values(block, uniform_args)
    voted: list[ir.Operation] = []
    for d in divisions:
        if d.parent is not block:
            raise LoweringError(ir.format_located(
                "an integer division whose divisor may be zero inside a nested region of a "
                f"'{op.name}' is not lowered for {g.target}", d.loc))
        if not voted and d.operand(1) in uniform:
            _hoist_check(g, d, block, uniform_args)
        elif op.name != "map":
            raise LoweringError(ir.format_located(
                f"{g.target} cannot stop a group at an integer division inside a reduction "
                "update whose divisor depends on the reduced elements and may be zero: divide "
                "before the reduction (an elementwise division is supported)", d.loc))
        else:
            voted.append(d)
    if not voted:
        return RegionGuard(region, 0, False)
    guard = _flagged(region, voted, masked)
    guard.divisions = voted
    return guard


def _uniform_values(block: ir.Block, uniform_args: Sequence[ir.Value | None]) -> set[ir.Value]:
    """The values a region's entry block may read that are uniform: those defined outside
    the region are not listed (they are uniform scalars); the uniform arguments and what
    the block computes from them, constants and outside values alone are."""
    out = {a for a, u in zip(block.args, uniform_args) if u is not None}
    inside = set(block.args)
    for o in block.operations:
        inside.update(o.results)
    for o in block.operations:
        if o.regions or o.opdef.terminator:
            continue
        if all(v in out or v not in inside for v in o.operands):
            out.update(o.results)
    return out | {v for o in block.operations for v in o.operands if v not in inside}


def _hoist_check(g: GroupLowering, d: ir.Operation, block: ir.Block,
                 uniform_args: Sequence[ir.Value | None]) -> None:
    """Compute division ``d``'s uniform divisor before the region's operation; check it."""
    env: dict[ir.Value, ir.Value] = {}
    for a, u in zip(block.args, uniform_args):
        if u is not None:
            env[a] = g.scalar(u)

    def value(v: ir.Value) -> ir.Value:
        got = env.get(v)
        if got is not None:
            return got
        src = v.defining_op
        if src is None or src.parent is not block:
            return g.scalar(v)  # defined outside the region
        new = g.op(src.name, [value(x) for x in src.operands], [r.type for r in src.results],
                   {k: a for k, a in src.attributes.items() if k not in SCHEDULE_ATTRS})
        env.update(zip(src.results, new.results))
        return env[v]

    divisor = value(d.operand(1))
    _zerodiv_check(g, g.arith("ne", divisor, _zero(g, divisor.type)), d)


def _flagged(region: ir.Region, divisions: list[ir.Operation], masked: bool) -> RegionGuard:
    """A copy of a ``map`` region whose ``divisions`` divide by ``select(d == 0, 1, d)`` and
    that also yields ``d == 0`` for each (and-ed with a trailing validity argument when
    ``masked``)."""
    copies: dict[int, ir.Operation] = {}
    new = clone_region(region, {}, ops=copies)
    block = new.entry
    valid = block.add_argument(ir.i1, "valid") if masked else None
    flags = []
    for d in divisions:
        div = copies[d.id]
        b = ir.Builder(ir.InsertionPoint.before_op(div), d.loc)
        divisor = div.operand(1)
        t = divisor.type
        zero = b.value("constant", [], t, {"value": 0})
        one = b.value("constant", [], t, {"value": 1})
        z = b.value("arith", [divisor, zero], ir.i1, {"fn": "eq"})
        div.set_operand(1, b.value("arith", [z, one, divisor], t, {"fn": "select"}))
        flags.append(b.value("arith", [z, valid], ir.i1, {"fn": "and"}) if valid is not None
                     else z)
    term = block.terminator
    assert term is not None
    term.set_operands(list(term.operands) + flags)
    return RegionGuard(new, len(flags), masked)


def validity(g: GroupLowering, layout: L.DistLayout) -> Lowered:
    """Per register of ``layout``: true where it holds a tile element (``layout.map`` of
    ``(tid, register)`` inside the tile). Parts that are valid on every thread are a
    constant; others a ``reindex`` of a one-element constant through the coordinates."""
    _, valid = layout.table()
    shape = layout.shape

    def make(start: int, length: int) -> ir.Value:
        if valid[:, start:start + length].all():
            return g.splat(True, length, ir.i1)
        src = g.op("constant", [], [ir.TileType((1,) * len(shape), ir.i1)],
                   {"value": True}).result
        results = [e.substitute([ir.s(0), ir.d(0) + start]).floordiv(int(n))
                   for e, n in zip(layout.map.results, shape)]
        return g.op("reindex", [src, g.tid], [ir.TileType((length,), ir.i1)],
                    {"map": ir.IndexMap(1, results, 1), "fill": False}).result

    return g.build(layout, ir.i1, make)


def vote_check(g: GroupLowering, guard: RegionGuard, flags: Sequence[Lowered]) -> None:
    """After the rewritten ``map``: one group vote and one check per flagged division."""
    for d, f in zip(guard.divisions, flags):
        any_zero = g.atom("vote.any", list(f.parts), [ir.i1]).result
        _zerodiv_check(g, g.arith("not", any_zero), d)


def has_masked_registers(layout: L.DistLayout) -> bool:
    """True when some register of ``layout`` holds no tile element."""
    return bool(layout.masked and not np.all(layout.table()[1]))
