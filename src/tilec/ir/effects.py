"""Memory effects and alias roots (seed 001, "memory effects and alias sets").

Each opcode declares an effect class in its ``OpDef`` (``ops.py``); this
analysis turns it into effect records:

| class        | records                                                     |
| ------------ | ----------------------------------------------------------- |
| ``pure``     | none (``view`` is pure: it only names a window)             |
| ``read``     | read of operand 0                                           |
| ``write``    | write of operand 0                                          |
| ``read_write``| read and write of operand 0                                |
| ``alloc``    | alloc of result 0                                           |
| ``sync``     | one ``sync`` record with no memory (orders everything)      |
| ``unknown``  | one ``unknown`` record with no memory (may touch anything)  |
| ``control``  | none of its own                                             |

An operation with regions also carries the records of everything nested in
it (a ``parallel`` reads whatever its body reads), except effects on memory
allocated inside it, which nothing outside can observe. Memory reaching a
region through a block argument (a carried or snapshot value) keeps that
argument as an opaque root, so it conservatively aliases everything.

Every record names the accessed value and its *alias root*: the value
reached by following ``view`` chains back to operand 0. A root that is the
result of a ``memory`` op is an identified allocation; a root that is a
function parameter is caller memory; anything else (a block argument of a
nested region, a call result) is opaque. ``may_alias`` is conservative:
distinct allocations never alias each other or a parameter, two parameters
alias unless ``distinct_arguments`` says the caller passes distinct buffers,
and an opaque root may alias anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .analysis import Analysis
from .core import BlockArgument, Operation, OpResult, Value
from .types import MemoryType

__all__ = ["MemoryEffects", "EffectRecord", "EFFECT_KINDS", "alias_root"]

EFFECT_KINDS = ("read", "write", "alloc", "sync", "unknown")
"""Kinds of effect records."""


@dataclass(frozen=True)
class EffectRecord:
    """One memory effect of an operation (or of an operation nested inside it)."""

    kind: str
    """One of ``EFFECT_KINDS``."""
    value: Value | None
    """The memory value accessed (None for ``sync``/``unknown``: all memory)."""
    root: Value | None
    """The alias root of ``value`` (``view`` chains followed back)."""
    op: Operation
    """The operation that performs the effect (may be nested in the one queried)."""

    @property
    def is_write_like(self) -> bool:
        """True for effects that may change memory (write, alloc, unknown)."""
        return self.kind in ("write", "alloc", "unknown")


def alias_root(value: Value) -> Value:
    """Follow ``view`` chains from ``value`` back to the memory they window. O(chain length)."""
    v = value
    while isinstance(v, OpResult) and v.owner.name == "view" and v.owner.num_operands:
        v = v.owner.operand(0)
    return v


def _is_allocation(root: Value) -> bool:
    return isinstance(root, OpResult) and root.owner.name == "memory"


def _is_parameter(root: Value) -> bool:
    if not isinstance(root, BlockArgument):
        return False
    region = root.owner.parent
    return region is not None and not isinstance(region.owner, Operation) \
        and root.owner is region.blocks.first


def _private_to(root: Value | None, op: Operation) -> bool:
    """True when ``root`` is an allocation made inside ``op``'s regions. O(depth)."""
    return isinstance(root, OpResult) and root.owner.name == "memory" \
        and op.is_ancestor_of(root.owner)


class MemoryEffects(Analysis):
    """Per-operation memory effect records, aggregated over regions, with alias queries."""

    name = "memory-effects"

    def __init__(self, root: Any, distinct_arguments: bool = False) -> None:
        self.root = root
        """The Module, Function or Operation analysed."""
        self.distinct_arguments = distinct_arguments
        """True when distinct function parameters are known not to alias (restrict)."""
        self._effects: dict[Operation, tuple[EffectRecord, ...]] = {}
        if isinstance(root, Operation):
            self._visit(root)
        else:
            functions = list(root.functions) if hasattr(root, "functions") else [root]
            for fn in functions:
                for block in fn.body.blocks:
                    for op in block.operations:
                        self._visit(op)

    # -- construction ------------------------------------------------------------------
    def _own(self, op: Operation) -> list[EffectRecord]:
        cls = op.opdef.effect
        if cls in ("pure", "control"):
            return []
        if cls in ("sync", "unknown"):
            return [EffectRecord(cls, None, None, op)]
        if cls == "alloc":
            r = op.results[0]
            return [EffectRecord("alloc", r, r, op)]
        if not op.num_operands:
            return [EffectRecord("unknown", None, None, op)]
        target = op.operand(0)
        root = alias_root(target)
        kinds = {"read": ("read",), "write": ("write",), "read_write": ("read", "write")}
        return [EffectRecord(k, target, root, op) for k in kinds.get(cls, ("unknown",))]

    def _visit(self, op: Operation) -> tuple[EffectRecord, ...]:
        """Post-order: own records, then nested ones minus region-local memory. O(n * depth)."""
        records = self._own(op)
        seen = set()
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    for rec in self._visit(inner):
                        if _private_to(rec.root, op):
                            continue  # nothing outside can observe this allocation
                        key = (rec.kind, id(rec.value), id(rec.op))
                        if key not in seen:
                            seen.add(key)
                            records.append(rec)
        result = tuple(records)
        self._effects[op] = result
        return result

    # -- queries -----------------------------------------------------------------------
    def effects(self, op: Operation) -> tuple[EffectRecord, ...]:
        """Effect records of ``op`` including nested ones (empty for ops outside the snapshot)."""
        return self._effects.get(op, ())

    def is_pure(self, op: Operation) -> bool:
        """True when ``op`` (with everything nested in it) has no memory effect."""
        return not self._effects.get(op, ())

    def reads(self, op: Operation) -> list[Value | None]:
        """Memory values ``op`` may read (None stands for all memory)."""
        return [r.value for r in self.effects(op) if r.kind in ("read", "unknown")]

    def writes(self, op: Operation) -> list[Value | None]:
        """Memory values ``op`` may write (None stands for all memory)."""
        return [r.value for r in self.effects(op) if r.kind in ("write", "unknown")]

    def may_alias(self, a: Value | None, b: Value | None) -> bool:
        """True unless ``a`` and ``b`` provably name disjoint memory (None: all memory)."""
        if a is None or b is None:
            return True
        if not (isinstance(a.type, MemoryType) and isinstance(b.type, MemoryType)):
            return False  # tiles and scalars are values, not storage
        ra, rb = alias_root(a), alias_root(b)
        if ra is rb:
            return True
        alloc_a, alloc_b = _is_allocation(ra), _is_allocation(rb)
        if alloc_a or alloc_b:
            # An allocation is a fresh object: it overlaps only itself (and its views).
            return not ((alloc_a or _is_parameter(ra)) and (alloc_b or _is_parameter(rb)))
        if _is_parameter(ra) and _is_parameter(rb):
            return not self.distinct_arguments
        return True  # an opaque root may be anything

    def conflicts(self, x: Operation, y: Operation) -> bool:
        """True when reordering ``x`` and ``y`` may change results (a write meets an access)."""
        ex, ey = self.effects(x), self.effects(y)
        for a in ex:
            for b in ey:
                if a.kind == "sync" or b.kind == "sync":
                    return True
                if not (a.is_write_like or b.is_write_like):
                    continue
                if a.kind == "alloc" and b.kind == "alloc":
                    continue
                if self.may_alias(a.value, b.value):
                    return True
        return False

    def __repr__(self) -> str:
        return f"<MemoryEffects of {self.root!r}: {len(self._effects)} ops>"
