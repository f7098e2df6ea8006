"""IRRewriter: the mutation API that passes use, keeping cached analyses honest.

Every method performs one mutation through the core's link-preserving
primitives (seed 001, "Ownership and mutation contract") and then tells the
``AnalysisManager`` (if any) which analyses are now stale, and sets
``changed``. Direct calls on ``Operation``/``Block`` stay legal, but then the
pass must invalidate analyses itself.

Structural mutations preserve nothing. Attribute mutations preserve the
analyses that declare ``reads_attributes = False`` (dominance and liveness
look only at structure and use-def edges).

Legality checks here are the ones the core cannot make cheaply on its own:
inserting an operation into its own region, moving blocks into a region
nested in themselves, replacing with values of the wrong type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .analysis import Analysis, AnalysisManager
from .attributes import ReductionPolicy
from .builder import InsertionPoint
from .core import Block, IRError, Operation, Region, Use, Value
from .location import UNKNOWN, Location
from .types import Type

__all__ = ["IRRewriter"]


def _op_encloses_block(op: Operation, block: Block) -> bool:
    """True when ``block`` lies (at any depth) inside one of ``op``'s regions. O(depth)."""
    cur: Block | None = block
    while cur is not None:
        owner = cur.parent_op
        if owner is op:
            return True
        cur = owner.parent if owner is not None else None
    return False


def _region_encloses(outer: Region, inner: Region) -> bool:
    """True when ``inner`` is ``outer`` or nested inside one of its blocks. O(depth)."""
    cur: Region | None = inner
    while cur is not None:
        if cur is outer:
            return True
        owner = cur.owner
        if not isinstance(owner, Operation) or owner.parent is None:
            return False
        cur = owner.parent.parent
    return False


class IRRewriter:
    """Inserts, replaces, moves and erases IR, invalidating ``analysis_manager`` each time."""

    def __init__(self, analysis_manager: AnalysisManager | None = None,
                 ip: InsertionPoint | None = None, loc: Location = UNKNOWN) -> None:
        self.am = analysis_manager
        """The manager whose cached analyses each mutation invalidates (None: no caching)."""
        self.ip = ip
        """Where ``create`` puts new operations when no point is given (None: detached)."""
        self.loc = loc
        """Location given to created operations that name none."""
        self.changed = False
        """True once any mutation went through this rewriter."""
        self.num_mutations = 0
        """How many mutations went through this rewriter."""
        self.listeners: list[Callable[[str, Any], None]] = []
        """Callbacks ``(kind, subject)`` run after each mutation (pattern drivers, tracing)."""

    # -- bookkeeping -------------------------------------------------------------------
    def _notify(self, kind: str, subject: Any, structural: bool = True) -> None:
        """Record one mutation and invalidate what it may have made stale. O(cached analyses)."""
        self.changed = True
        self.num_mutations += 1
        if self.am is not None:
            if structural:
                self.am.invalidate()
            else:
                self.am.invalidate(self._attribute_blind())
        for cb in self.listeners:
            cb(kind, subject)

    def _attribute_blind(self) -> frozenset[type[Analysis]]:
        """Cached analyses that do not read attributes, so survive attribute edits."""
        assert self.am is not None
        return frozenset(k for k in self.am.cached_kinds() if not k.reads_attributes)

    @contextmanager
    def at(self, ip: InsertionPoint) -> Iterator[IRRewriter]:
        """Temporarily move the default insertion point used by ``create``."""
        saved = self.ip
        self.ip = ip
        try:
            yield self
        finally:
            self.ip = saved

    # -- insertion ---------------------------------------------------------------------
    def insert(self, op: Operation, ip_or_block: InsertionPoint | Block,
               before: Operation | None = None) -> Operation:
        """Insert a detached ``op`` at an insertion point, or before ``before`` in a block."""
        if isinstance(ip_or_block, InsertionPoint):
            block, before = ip_or_block.block, ip_or_block.before
        else:
            block = ip_or_block
        if op.parent is not None:
            raise IRError(f"{op.name}#{op.id} is already in a block; use move_before/after")
        if _op_encloses_block(op, block):
            raise IRError(f"cannot insert {op.name}#{op.id} into a block of its own region")
        block.insert_op(op, before)
        self._notify("insert", op)
        return op

    def create(self, name: str, operands: Sequence[Value] = (),
               result_types: Sequence[Type] = (), attributes: dict[str, Any] | None = None,
               regions: Sequence[Region] = (), successors: Sequence[Block] = (),
               loc: Location | None = None, result_names: Sequence[str | None] | None = None,
               ip: InsertionPoint | None = None) -> Operation:
        """Create ``name`` and insert it at ``ip`` (default ``self.ip``; None: detached)."""
        op = Operation(name, operands, result_types, attributes, regions, successors,
                       loc if loc is not None else self.loc, result_names)
        where = ip if ip is not None else self.ip
        if where is not None:
            self.insert(op, where)
        return op

    def create_block(self, region: Region, arg_types: Sequence[Type] = (),
                     before: Block | None = None,
                     arg_names: Sequence[str | None] | None = None) -> Block:
        """Append (or insert before ``before``) a new empty block to ``region``."""
        block = region.add_block(Block(arg_types, arg_names), before)
        self._notify("create_block", block)
        return block

    # -- operands and uses -------------------------------------------------------------
    def set_operand(self, op: Operation, i: int, value: Value) -> None:
        """Point operand ``i`` of ``op`` at ``value``. O(1)."""
        op.set_operand(i, value)
        self._notify("set_operand", op)

    def set_operands(self, op: Operation, values: Sequence[Value]) -> None:
        """Replace the whole operand list of ``op`` (the slot count may change). O(operands)."""
        op.set_operands(values)
        self._notify("set_operands", op)

    def add_argument(self, block: Block, type: Type, name_hint: str | None = None) -> Value:
        """Append an argument to ``block``; returns it."""
        arg = block.add_argument(type, name_hint)
        self._notify("add_argument", block)
        return arg

    def erase_argument(self, block: Block, i: int) -> None:
        """Remove argument ``i`` of ``block``; it must be unused."""
        block.erase_argument(i)
        self._notify("erase_argument", block)

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        """Redirect every attached use of ``old`` to ``new``. O(uses of old)."""
        if old is new:
            return
        old.replace_all_uses_with(new)
        self._notify("replace_all_uses_with", old)

    def replace_uses_with_if(self, old: Value, new: Value,
                             keep: Callable[[Use], bool]) -> int:
        """Redirect the uses of ``old`` for which ``keep(use)`` is true; returns how many."""
        if new.type is not old.type:
            raise IRError(f"replace_uses_with_if: type mismatch {old.type} vs {new.type}")
        chosen = [u for u in old.uses if keep(u)]  # collect first: the list changes below
        for u in chosen:
            u.owner.set_operand(u.index, new)
        if chosen:
            self._notify("replace_uses_with_if", old)
        return len(chosen)

    def replace_op(self, op: Operation, new_values: Sequence[Value] | Operation) -> None:
        """Redirect each result of ``op`` to the matching new value, then erase ``op``."""
        values = new_values.results if isinstance(new_values, Operation) else tuple(new_values)
        if len(values) != len(op.results):
            raise IRError(f"replace_op: {op.name}#{op.id} has {len(op.results)} results but "
                          f"{len(values)} replacements were given")
        for r, v in zip(op.results, values):
            if r.type is not v.type:
                raise IRError(f"replace_op: result {r.index} of {op.name}#{op.id} is {r.type}, "
                              f"replacement is {v.type}")
        for r, v in zip(op.results, values):
            r.replace_all_uses_with(v)
        op.erase()
        self._notify("replace_op", op)

    def detach(self, op: Operation) -> Operation:
        """Take ``op`` out of its block (unlinking its and its nested uses); returns it.

        The operation keeps its ``Use`` objects; inserting it again re-links
        the same ones. While detached it is outside the IR.
        """
        op.remove_self()
        self._notify("detach", op)
        return op

    # -- erasure -----------------------------------------------------------------------
    def erase(self, op: Operation) -> None:
        """Erase ``op``; its results must be unused (``IRError`` otherwise)."""
        op.erase()
        self._notify("erase", op)

    def erase_block(self, block: Block) -> None:
        """Erase ``block`` and its operations; nothing outside it may use their values."""
        for a in block.args:
            for u in a.uses:
                if not _inside_block(u.owner, block):
                    raise IRError(f"cannot erase block #{block.id}: argument {a.index} is used "
                                  f"by {u.owner.name}#{u.owner.id} outside it")
        for op in block.operations:
            for nested in op.walk():
                for r in nested.results:
                    for u in r.uses:
                        if not _inside_block(u.owner, block):
                            raise IRError(f"cannot erase block #{block.id}: {nested.name}#"
                                          f"{nested.id} is used by {u.owner.name}#{u.owner.id}")
        if block.parent is not None:
            block.remove_self()  # detaching unlinks every use inside, so erasure is legal
        for op in list(reversed(block.operations)):
            op.erase()
        self._notify("erase_block", block)

    # -- movement ----------------------------------------------------------------------
    def move_before(self, op: Operation, ref: Operation) -> None:
        """Move ``op`` just before ``ref``; the same ``Use`` objects are re-linked. O(1)."""
        self._move(op, ref, after=False)

    def move_after(self, op: Operation, ref: Operation) -> None:
        """Move ``op`` just after ``ref``. O(1)."""
        self._move(op, ref, after=True)

    def _move(self, op: Operation, ref: Operation, after: bool) -> None:
        if op is ref:
            raise IRError("cannot move an operation relative to itself")
        block = ref.parent
        if block is None:
            raise IRError(f"reference {ref.name}#{ref.id} is detached")
        if _op_encloses_block(op, block):
            raise IRError(f"cannot move {op.name}#{op.id} into its own region")
        if op.parent is not None:
            op.remove_self()
        block.insert_op(op, ref.next_op if after else ref)
        self._notify("move", op)

    def move_region_blocks(self, src: Region, dst: Region, before: Block | None = None) -> None:
        """Move every block of ``src`` into ``dst`` (at the end, or before ``before``)."""
        self.inline_region_before(src, dst, before)

    def inline_region_before(self, src: Region, dst: Region, before: Block | None = None) -> None:
        """Move all blocks of ``src``, in order, into ``dst`` before ``before`` (None: at the end).

        O(blocks + uses inside them): each block is detached (unlinking its
        uses) and re-inserted (re-linking the same uses).
        """
        if src is dst:
            raise IRError("cannot inline a region into itself")
        if _region_encloses(src, dst):
            raise IRError("cannot move a region's blocks into a region nested inside it")
        if before is not None and before.parent is not dst:
            raise IRError(f"block #{before.id} is not in the destination region")
        blocks = list(src.blocks)
        for b in blocks:
            b.remove_self()
            dst.add_block(b, before)
        self._notify("inline_region_before", dst)

    def inline_block_before(self, src: Block, ref: Operation,
                            arg_values: Sequence[Value] = ()) -> None:
        """Move ``src``'s operations before ``ref``, replacing its arguments by ``arg_values``.

        The block is left empty (and is not removed from its region).
        """
        if len(arg_values) != len(src.args):
            raise IRError(f"inline_block_before: block takes {len(src.args)} arguments, "
                          f"got {len(arg_values)} values")
        for a, v in zip(src.args, arg_values):
            if a.type is not v.type:
                raise IRError(f"inline_block_before: argument {a.index} is {a.type}, value is "
                              f"{v.type}")
        dst = ref.parent
        if dst is None:
            raise IRError(f"reference {ref.name}#{ref.id} is detached")
        cur: Block | None = dst
        while cur is not None:  # refuse to splice a block into itself
            if cur is src:
                raise IRError("cannot inline a block into a block nested inside it")
            owner = cur.parent_op
            cur = owner.parent if owner is not None else None
        if src.is_attached:
            for a, v in zip(src.args, arg_values):
                a.replace_all_uses_with(v)  # O(uses): attached uses are all linked
        else:
            # Detached uses are not in any use list; find them by walking the block.
            args = {id(a): v for a, v in zip(src.args, arg_values)}
            for op in src.walk():
                for u in op.operand_uses:
                    v = args.get(id(u.value))
                    if v is not None:
                        op.set_operand(u.index, v)
        for op in list(src.operations):
            op.remove_self()
            dst.insert_op(op, ref)
        self._notify("inline_block_before", dst)

    # -- attributes --------------------------------------------------------------------
    def set_attribute(self, op: Operation, name: str, value: Any) -> None:
        """Set attribute ``name``; structure-only analyses survive."""
        op.attributes[name] = value
        self._notify("set_attribute", op, structural=False)

    def remove_attribute(self, op: Operation, name: str) -> None:
        """Remove attribute ``name`` (KeyError when absent)."""
        del op.attributes[name]
        self._notify("remove_attribute", op, structural=False)

    def set_reduction_policy(self, op: Operation, policy: ReductionPolicy) -> None:
        """Change the order policy of a ``reduce``; derived placements and costs become stale."""
        if op.name != "reduce":
            raise IRError(f"set_reduction_policy: {op.name}#{op.id} is not a reduce")
        if not isinstance(policy, ReductionPolicy):
            raise IRError(f"set_reduction_policy: {policy!r} is not a ReductionPolicy")
        op.attributes["policy"] = policy
        self._notify("set_reduction_policy", op, structural=False)


def _inside_block(op: Operation, block: Block) -> bool:
    """True when ``op`` is in ``block`` or nested inside one of its operations. O(depth)."""
    cur: Operation | None = op
    while cur is not None:
        if cur.parent is block:
            return True
        cur = cur.parent_op
    return False
