"""Split-K legality: which K loop of a matrix group may run split over programs.

``LowerOptions.split_k = S`` asks for the K loop of each matrix group to be split over
``S`` programs per output tile (docs/design/split_k.md): program ``s`` runs K steps
``[s * T, min((s + 1) * T, n))`` with ``T = cdiv(n, S)``, stores its partial
accumulators, and the last program of the tile to arrive adds the ``S`` partials in split
order and runs everything after the loop. ``split_loop`` finds the loop and proves that
this computes what the program says, or names why not:

* the target realizes it (a CUDA profile: the ``split.*`` atoms and the launcher's
  workspace; the SIMT simulator runs the same Machine TileIR);
* the loop is a ``serial`` or ``pipeline`` loop directly in the grid body holding an
  ``mma`` (the first of them that passes the rules below; other loops and matrix products
  are pure, so they run as written, in every split before the loop and in the combining
  program after it);
* every value the loop carries is an ``f32`` accumulator that starts from a constant zero
  tile and is updated only by one ``mma`` whose order policy is ``unordered_tree``
  (splitting regroups the sum over K; ``strict_fold`` forbids that, and nothing weaker than
  the source order is substituted);
* nothing before or inside the loop writes memory, allocates it or synchronizes (those
  effects would run once per split instead of once per tile); reads are fine;
* no enclosing ``if``: the loop's results are combined at the loop, and everything after
  it runs in the combining program only.

These are facts of the program, never a profitability judgement: whether splitting pays is
for the tuner (``tuning_variants``) and the benchmarks to say.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.exec import TargetProfile

__all__ = ["split_loop"]

_WRITES = ("write", "read_write", "alloc", "sync", "unknown")
"""Effects that must not run once per split."""


def split_loop(par: ir.Operation, profile: TargetProfile, splits: int
               ) -> tuple[ir.Operation | None, str]:
    """The K loop of group ``par`` that may run split ``splits`` ways, with a note; or
    ``(None, why not)``."""
    if not profile.name.startswith("cuda"):
        return None, f"{profile.name} has no split-K realization (CUDA targets have)"
    body = par.regions[0].entry
    if not any(op.name == "mma" for op in par.walk(include_self=False)):
        return None, "the group has no mma"
    loops = [op for op in body.operations if op.name in ("serial", "pipeline")
             and any(o.name == "mma" for o in op.walk(include_self=False))]
    if not loops:
        return None, "no loop directly in the grid body holds the mma"
    first = ""
    for loop in loops:  # the first that may be split; the others run as written
        why = _blocker(body, loop)
        if not why:
            return loop, (f"{loop.name} at {loop.loc}: K steps split over {splits} programs "
                          "per output tile; the last to arrive adds the partials in split "
                          "order")
        first = first or why
    return None, first


def _blocker(body: ir.Block, loop: ir.Operation) -> str:
    """Why ``loop`` of grid body ``body`` may not be split ('' when it may)."""
    for top in body.operations:
        if top is loop:
            break
        for op in top.walk():
            why = _effect(op)
            if why:
                return f"{why} before the K loop at {op.loc} (it would run once per split)"
    for op in loop.walk(include_self=False):
        why = _effect(op)
        if why:
            return f"{why} in the K loop at {op.loc}"
    return _carried(loop)


def _effect(op: ir.Operation) -> str:
    """What ``op`` does that may not be repeated per split ('' when nothing)."""
    eff = op.opdef.effect
    if eff in _WRITES:
        return f"'{op.name}' ({eff})"
    return ""


def _carried(loop: ir.Operation) -> str:
    """Why a value the loop carries is not a zero-started accumulator of one regrouping
    ``mma`` ('' when every one is). In a multi-stage ``pipeline`` the stages before the
    last hand each accumulator on unchanged (it is their block argument ``1 + k`` and their
    yield's operand ``k``, read by nothing else) and the last stage updates it."""
    blocks = [r.entry for r in loop.regions]
    if any(b.terminator is None for b in blocks):
        return "the K loop has no yield"
    if not loop.results:
        return "the K loop carries no accumulator"
    running = _running_values(blocks, len(loop.results))
    for k, r in enumerate(loop.results):
        t = r.type
        if not isinstance(t, ir.TileType) or t.dtype is not ir.f32:
            return (f"the K loop carries {t} (split-K combines f32 accumulators only: "
                    "their partials are f32)")
        init = loop.operand(3 + k).defining_op
        if init is None or init.name != "constant" or init.attr("value") not in (0, 0.0) \
                or str(init.attr("value")) == "-0.0":
            return (f"accumulator {k} of the K loop does not start from a constant zero tile "
                    "(the combining program would add a nonzero start once per split)")
        for b in blocks[:-1]:  # earlier stages: handed on as it is
            arg = b.args[1 + k]
            if b.terminator.operand(k) is not arg or len(list(arg.uses)) != 1:
                return (f"accumulator {k} is read or changed in a stage before the last of "
                        "the pipeline")
        body = blocks[-1]
        arg = body.args[1 + k]
        y = body.terminator.operand(k).defining_op
        if y is None or y.name != "mma" or y.operand(2) is not arg or y.parent is not body:
            return (f"accumulator {k} of the K loop is not updated by one mma of the loop "
                    "body (acc = mma(a, b, acc))")
        if len(list(arg.uses)) != 1:
            return f"accumulator {k} has another reader in the K loop than its mma"
        if y.operand(0) in running or y.operand(1) in running:
            return (f"an operand of the mma at {y.loc} is computed from an accumulator's "
                    "running value (a split's partial sum is not that value)")
        policy = y.attr("policy")
        if policy is None or policy.order != "unordered_tree":
            return (f"the mma at {y.loc} sums in source order (order=\"strict_fold\"); "
                    "splitting K regroups that sum")
    return ""


def _running_values(blocks: list[ir.Block], carried: int) -> set[ir.Value]:
    """The values of the loop's stages computed from an accumulator's running value: the
    carried block arguments, the results of every operation (a nested one's too) that reads
    one, and what a stage hands to the next from them."""
    out: set[ir.Value] = set()
    prev: ir.Operation | None = None
    for b in blocks:
        out.update(b.args[1:1 + carried])
        if prev is not None:
            out.update(a for v, a in zip(prev.operands, b.args[1:]) if v in out)
        for op in b.operations:
            if any(v in out for inner in op.walk() for v in inner.operands):
                out.update(op.results)
        prev = b.terminator
    return out
