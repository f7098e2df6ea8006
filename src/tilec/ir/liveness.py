"""Liveness across blocks, nested regions and loop iterations (seed 001, "Essential analyses").

``Liveness(function)`` records, for every attached operation, the set of
values live just after it. A value is live at a point when some execution
that continues from that point may still read it. The rules:

1. **Straight-line code.** Within a block, a value is live after ``op`` when
   an operation later in the block uses it, or it is live out of the block.
   Results are born at their operation; block arguments at block entry.
2. **Blocks of one region** (connected by ``br`` successors) use the usual
   backward data flow: live-out of a block is the union of its successors'
   live-in; branch operands are uses in the branching block and successor
   arguments are definitions at the successor's entry. Blocks without
   successors take the live-out of the region (rule 4).
3. **A use inside a nested region is a use by the enclosing operation.** The
   *captures* of ``op`` are the values that something nested in ``op`` uses
   but that are defined outside ``op``; for the enclosing block they count as
   operands of ``op``.
4. **Captured values are live across the whole enclosing operation.** A
   region may run many times (parallel instances, loop iterations, map
   elements, reduction steps), so a captured value stays live after every
   operation inside ``op``'s regions. The live-out of each region of ``op``
   is therefore ``captures(op)`` plus what is live after ``op`` (without its
   results, which do not exist yet). ``if`` is treated the same way, which
   is conservative but simple.
5. **Loop-carried state is live around the loop.** The carried block
   arguments of a ``serial`` body (all but the induction variable) are live
   after every operation in the body: the carried state occupies storage for
   the whole loop, across the back edge. Likewise for a ``pipeline``: the
   carried arguments of stage 0 are live in every stage.
6. **Values crossing pipeline stages are live across their stage.** The
   arguments of stage ``k > 0`` (stage ``k-1``'s yielded values) are live
   after every operation of stage ``k``, because in a software pipeline the
   next iteration's stage ``k-1`` overwrites its outputs while stage ``k``
   still reads them; the yielded values themselves are live up to their
   ``yield`` by rule 1. Captured values are live across all stages (rule 4).

Rules 5 and 6 can be switched off (``carried_spans_body=False``) for plain
SSA liveness, where a carried argument dies after its last use in the body.

Detached operations are outside the IR: they have no liveness (empty sets).
Build cost: O(operations x live values) for the per-operation sets, plus a
fixpoint over the blocks of each multi-block region.
"""

from __future__ import annotations

from typing import Any

from .analysis import Analysis
from .core import Block, BlockArgument, Operation, OpResult, Region, Value

__all__ = ["Liveness"]

_EMPTY: frozenset[Value] = frozenset()


def _def_block(v: Value) -> Block | None:
    """The block a value is defined in (its op's block, or the block it is an argument of)."""
    if isinstance(v, OpResult):
        return v.owner.parent
    if isinstance(v, BlockArgument):
        return v.owner
    return None


class Liveness(Analysis):
    """Values live after each operation of a Function (or of every function of a Module)."""

    name = "liveness"
    reads_attributes = False

    def __init__(self, root: Any, carried_spans_body: bool = True) -> None:
        self.root = root
        """The Function or Module analysed."""
        self.carried_spans_body = carried_spans_body
        """True to keep loop-carried and stage-crossing arguments live across their region."""
        self._after: dict[Operation, frozenset[Value]] = {}
        self._captures: dict[Operation, frozenset[Value]] = {}
        self._live_in: dict[Block, frozenset[Value]] = {}
        self._live_out: dict[Block, frozenset[Value]] = {}
        functions = list(root.functions) if hasattr(root, "functions") else [root]
        for fn in functions:
            for op in fn.walk():
                if op.regions and op not in self._captures:
                    self._capture(op)
            self._region(fn.body, _EMPTY, _EMPTY)

    # -- captures (rule 3) ------------------------------------------------------------
    def _capture(self, op: Operation) -> frozenset[Value]:
        """Values used inside ``op`` but defined outside it; bottom-up, O(nested uses)."""
        caps: set[Value] = set()
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    used = self._uses(inner)
                    for v in used:
                        b = _def_block(v)
                        # A value used at depth one is either defined directly in one of
                        # op's blocks or outside op; deeper ones arrive via inner captures.
                        if b is None or b.parent is None or b.parent.owner is not op:
                            caps.add(v)
        result = frozenset(caps)
        self._captures[op] = result
        return result

    def _uses(self, op: Operation) -> frozenset[Value] | set[Value]:
        """What ``op`` reads as seen from its block: operands plus captures."""
        if not op.regions:
            return set(op.operands)
        caps = self._captures.get(op)
        if caps is None:
            caps = self._capture(op)
        return caps.union(op.operands)

    # -- data flow ----------------------------------------------------------------------
    @staticmethod
    def _successors(block: Block) -> list[Block]:
        last = block.operations.last
        if last is None:
            return []
        return [s for s in last.successors if s.parent is block.parent]

    def _transfer(self, block: Block, out: frozenset[Value] | set[Value],
                  record: bool) -> set[Value]:
        """Walk ``block`` backwards from ``out``; returns its live-in. O(ops x live)."""
        live = set(out)
        for op in reversed(block.operations):
            if record:
                self._after[op] = frozenset(live)
            live.difference_update(op.results)
            live.update(self._uses(op))
        live.difference_update(block.args)
        return live

    def _region(self, region: Region, exit_live: frozenset[Value],
                always: frozenset[Value]) -> None:
        """Solve one region, given what is live when it finishes and what is live throughout."""
        blocks = list(region.blocks)
        base = exit_live | always
        outs: dict[Block, frozenset[Value]] = {}
        if len(blocks) <= 1:
            for b in blocks:
                outs[b] = base
        else:
            ins: dict[Block, set[Value]] = {b: set() for b in blocks}
            changed = True
            while changed:  # reverse block order approximates post-order: few sweeps
                changed = False
                for b in reversed(blocks):
                    succ = self._successors(b)
                    out = set(always)
                    if succ:
                        for s in succ:
                            out |= ins[s]
                    else:
                        out |= exit_live
                    new_in = self._transfer(b, out, record=False)
                    if new_in != ins[b]:
                        ins[b] = new_in
                        changed = True
                    outs[b] = frozenset(out)
        for b in blocks:
            self._live_out[b] = outs[b]
            self._live_in[b] = frozenset(self._transfer(b, outs[b], record=True))
            for op in b.operations:
                if op.regions:
                    self._nested(op)

    def _nested(self, op: Operation) -> None:
        """Solve the regions of ``op`` under rules 4-6."""
        around = (self._after[op] - frozenset(op.results)) | self._captures[op]
        stage0: frozenset[Value] = _EMPTY
        spans = self.carried_spans_body and op.name in ("serial", "pipeline")
        if spans and op.regions and op.regions[0].blocks.first is not None:
            stage0 = frozenset(op.regions[0].entry.args[1:])
        for k, region in enumerate(op.regions):
            always = stage0
            if spans and k > 0 and region.blocks.first is not None:
                always = always | frozenset(region.entry.args[1:])
            self._region(region, around, always)

    # -- queries ------------------------------------------------------------------------
    def live_after(self, op: Operation) -> frozenset[Value]:
        """Values live just after ``op`` (empty for detached or unknown operations)."""
        return self._after.get(op, _EMPTY)

    def live_before(self, op: Operation) -> frozenset[Value]:
        """Values live just before ``op`` (its reads included)."""
        if op not in self._after:
            return _EMPTY
        return (self._after[op] - frozenset(op.results)) | frozenset(self._uses(op))

    def is_live_after(self, value: Value, op: Operation) -> bool:
        """True when ``value`` may still be read after ``op`` executes."""
        return value in self._after.get(op, _EMPTY)

    def live_in(self, block: Block) -> frozenset[Value]:
        """Values live on entry to ``block`` (its arguments excluded)."""
        return self._live_in.get(block, _EMPTY)

    def live_out(self, block: Block) -> frozenset[Value]:
        """Values live when ``block`` finishes."""
        return self._live_out.get(block, _EMPTY)

    def captures(self, op: Operation) -> frozenset[Value]:
        """Values used inside ``op``'s regions but defined outside ``op``."""
        return self._captures.get(op, _EMPTY)

    def __repr__(self) -> str:
        return f"<Liveness of {self.root!r}: {len(self._after)} ops>"
