"""Group-shared memory of Machine TileIR: where each buffer of a group lives.

A grid ``parallel``'s body declares its shared buffers as ``memory`` operations (space
``shared``). They are placed one after another, the 128-byte swizzled ones first, each
group in program order, each buffer at the next offset aligned to the target's
``shared_alignment`` (a swizzled buffer at the next ``atoms.SWIZZLE_ALIGN`` boundary; the
group's base is then aligned to that too, which costs one ``SWIZZLE_ALIGN`` of slack in the
launch size). Swizzled buffers first: their sizes are whole ``SWIZZLE_ALIGN`` blocks for
every warpgroup operand tile, so none waits for alignment behind a small buffer (the
planner counts no padding for them: ``plan.matrix.ring_extra``). Buffers are never reused:
every one is live for the whole group.

``allocate_shared`` (the driver's ``allocate`` stage) writes the placement into the IR:
``offset`` on each buffer, ``shared_bytes`` (what a launch provides, slack included) and
``shared_base_align`` (when above the alignment) on the grid ``parallel``.
A group whose placement exceeds the target's ``limit`` (its shared memory per group) is
refused there with a located ``SharedCapacityError`` naming the group, the bytes placed and
the limit: alignment can push a group the lowering counted within the limit past it, and
the launch would fail.
``shared_layout`` reads a placement back (or computes it for IR that carries none), so the
emitter prints it and the verifier checks it, and nothing derives it twice.
Cost: O(buffers) per group.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from math import prod

from .atoms import SWIZZLE_ALIGN
from .core import Operation
from .diagnostics import UserError, format_located
from .module import Module
from .types import MemoryType

__all__ = ["SharedLayout", "SharedCapacityError", "buffer_bytes", "shared_buffers",
           "shared_layout", "allocate_shared"]


class SharedCapacityError(UserError):
    """A group's shared buffers, placed at the target's alignment, exceed its shared memory
    per group (the message names the group's function and location, both byte counts)."""

    __module__ = "tilec"


@dataclass(frozen=True)
class SharedLayout:
    """The placement of one group's shared buffers."""

    offsets: dict[Operation, int] = field(default_factory=dict)
    """Byte offset of each shared ``memory`` operation from the group's (aligned) base."""
    end: int = 0
    """Bytes from the base to the end of the last buffer."""
    base_align: int = 1
    """The alignment the base needs (``SWIZZLE_ALIGN`` when a buffer is swizzled)."""
    slack: int = 0
    """Bytes a launch adds so that the base can be aligned to ``base_align``."""

    @property
    def launch_bytes(self) -> int:
        """Dynamic shared memory a launch of the group provides."""
        return self.end + self.slack if self.end else 0


def buffer_bytes(op: Operation) -> int:
    """The bytes of shared ``memory`` operation ``op``."""
    t = op.result.type
    assert isinstance(t, MemoryType)
    return prod(int(e) for e in t.shape) * t.dtype.bytes


def shared_buffers(grid: Operation) -> Iterator[Operation]:
    """The shared ``memory`` operations of grid ``parallel`` ``grid``'s body, in order."""
    for op in grid.regions[0].entry.operations:
        if op.name == "memory" and isinstance(op.result.type, MemoryType) \
                and op.result.type.space == "shared":
            yield op


def shared_layout(grid: Operation, align: int) -> SharedLayout:
    """The placement of ``grid``'s shared buffers: the one written by ``allocate_shared``
    when there is one, else the one it would write (``align``: the target's alignment)."""
    offsets: dict[Operation, int] = {}
    end, base = 0, align
    for op in sorted(shared_buffers(grid), key=lambda op: not op.attr("swizzle")):
        a = SWIZZLE_ALIGN if op.attr("swizzle") else align
        base = max(base, a)
        off = op.attr("offset")
        if off is None:
            off = -(-end // a) * a
        offsets[op] = off
        end = max(end, off + buffer_bytes(op))
    slack = base if base > align else 0
    return SharedLayout(offsets, end, base, slack)


def allocate_shared(module: Module, align: int, limit: int | None = None) -> None:
    """Write the placement of every group's shared buffers into ``module`` (in place);
    ``limit``: the target's shared bytes per group, which no placement may exceed (a
    ``SharedCapacityError``; None: no check)."""
    for fn in module:
        for grid in fn.walk():
            if grid.name != "parallel" or grid.attr("level") != "grid":
                continue
            for op in shared_buffers(grid):  # a fresh placement, not an earlier one
                op.attributes.pop("offset", None)
            lay = shared_layout(grid, align)
            if limit is not None and lay.launch_bytes > limit:
                raise SharedCapacityError(format_located(
                    f"the group of @{fn.name} places {lay.launch_bytes} bytes of shared "
                    f"memory ({lay.end} in its buffers at {align}-byte alignment, "
                    f"{lay.slack} to align its base); the target allows {limit} per group "
                    f"(smaller tiles, or fewer staged operands)", grid.loc))
            for op, off in lay.offsets.items():
                op.attributes["offset"] = off
            grid.attributes["shared_bytes"] = lay.launch_bytes
            if lay.base_align > align:
                grid.attributes["shared_base_align"] = lay.base_align
            else:
                grid.attributes.pop("shared_base_align", None)
