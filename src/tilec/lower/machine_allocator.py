"""The shared-memory allocator of one group's Scheduled -> Machine lowering.

``GroupLowering`` (``machine``) asks it for the group's shared memory while it
lowers the SIMT region: dedicated buffers (staged operands, repartitions, rings
with a version axis, 128-byte swizzled buffers) and one reusable scratch pool per
element type. Each is created as a placeholder ``memory`` operation in the grid
body; ``finish`` gives the pools their final sizes and the placeholders their
roles and versions. Offsets are not chosen here: the allocate stage places the
buffers (``tilec.ir.allocation``).

It is separate from ``machine`` because it knows nothing of distributions or
rules: only the grid body's builder and the buffers it has handed out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import tilec.ir as ir
from tilec.ir.atoms import swizzle_slack

__all__ = ["SharedAllocator"]



@dataclass
class _Alloc:
    placeholder: ir.Operation
    shape: tuple[int, ...]
    dtype: ir.ScalarType
    role: str
    size: int = 0
    versions: int = 1
    swizzle: int = 0


class SharedAllocator:
    """The group's shared memory: dedicated buffers and one reusable scratch pool per type.

    Allocations are created as placeholders in the grid body while the SIMT region is
    lowered, then sized (the pool grows to its largest use) by ``finish``.
    """

    def __init__(self, at: ir.Builder) -> None:
        self.at = at
        """Builder positioned in the grid body, before the SIMT region."""
        self.allocs: list[_Alloc] = []
        self.pools: dict[str, _Alloc] = {}
        self.set_aside: list[_Alloc] = []
        """Pools of regions lowered with their own (``own_pools``), sized by ``finish`` too."""
        self.offered: list[_Alloc] = []
        """Buffers of an earlier exclusive alternative that ``buffer`` may hand out again
        (``alternatives``)."""

    def buffer(self, shape: Sequence[int], dtype: ir.ScalarType, role: str,
               versions: int = 1, swizzle: int = 0) -> ir.Value:
        """A dedicated buffer of ``shape`` (with a leading version axis when ``versions > 1``).

        ``swizzle = 128``: the buffer starts on a 1024-byte boundary and its logical byte
        offset ``x`` is stored at ``x ^ (((x >> 7) & 7) << 4)`` (``tilec.ir.atoms.
        SWIZZLE_BYTES``); every access of every backend goes through that permutation."""
        full = ((versions,) if versions > 1 else ()) + tuple(int(e) for e in shape)
        for a in self.offered:
            if (a.shape, a.dtype, a.role, a.versions, a.swizzle) == \
                    (full, dtype, role, versions, swizzle):
                self.offered.remove(a)
                return a.placeholder.result
        attrs = {"swizzle": swizzle} if swizzle else {}
        op = self.at.create("memory", [], [ir.MemoryType(full, dtype, "shared")], attrs,
                            result_names=[role.replace(" ", "_")])
        a = _Alloc(op, full, dtype, role, math.prod(full), versions, swizzle)
        self.allocs.append(a)
        return op.result

    def pool(self, dtype: ir.ScalarType, elements: int) -> ir.Value:
        """The flat scratch pool of ``dtype``, grown to at least ``elements``."""
        a = self.pools.get(dtype.name)
        if a is None:
            op = self.at.create("memory", [], [ir.MemoryType((1,), dtype, "shared")],
                                result_names=[f"scratch_{dtype.name}"])
            a = _Alloc(op, (1,), dtype, "scratch")
            self.pools[dtype.name] = a
            self.allocs.append(a)
        a.size = max(a.size, elements)
        return a.placeholder.result

    @contextmanager
    def own_pools(self) -> Iterator[None]:
        """Inside: scratch pools of their own, apart from the group's (a ping-pong consumer,
        which runs while the other uses the group's pools)."""
        outer, self.pools = self.pools, {}
        try:
            yield
        finally:
            self.set_aside.extend(self.pools.values())
            self.pools = outer

    def alternatives(self, *bodies: Callable[[], None]) -> list[Callable[[], None]]:
        """``bodies`` wrapped to run as exclusive alternatives (the arms of one ``if``, each
        lowered once, of which a group runs one): each arm is offered the buffers that the
        arms lowered before it allocated, and takes one whose shape, type, role, versions and
        swizzle match instead of a new one. Only for arms whose buffers are dead after the
        ``if`` (the consumers' two unswitched copies of the same operations)."""
        earlier: list[_Alloc] = []

        def arm(body: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                outer, self.offered = self.offered, list(earlier)
                start = len(self.allocs)
                try:
                    body()
                finally:
                    earlier.extend(a for a in self.allocs[start:] if a.role != "scratch")
                    self.offered = outer
            return run
        return [arm(b) for b in bodies]

    @property
    def bytes(self) -> int:
        """Total shared bytes of the group."""
        total = sum(a.size * a.dtype.bytes for a in self.allocs)
        return total + swizzle_slack(sum(1 for a in self.allocs if a.swizzle))

    def finish(self) -> None:
        """Give the pools their final sizes (their users keep working: only the type grows)."""
        for a in [*self.pools.values(), *self.set_aside]:
            old = a.placeholder
            new = ir.Operation("memory", [], [ir.MemoryType((max(1, a.size),), a.dtype,
                                                            "shared")],
                               {"role": "scratch"}, loc=old.loc,
                               result_names=[old.result.name_hint])
            old.parent.insert_op(new, old)
            for use in list(old.result.uses):
                use.owner.set_operand(use.index, new.result)
            old.erase()
            a.placeholder = new
        for a in self.allocs:
            a.placeholder.attributes.setdefault("role", a.role)
            if a.versions > 1:
                a.placeholder.attributes["versions"] = a.versions
