"""What the Metal target hands its launcher: the kernel's MSL and its calling contract.

The buffer indices are the declaration order (docs/design/metal.md): ``params`` (user
memories and scalars, shape symbols, other extents), then ``tc_aligned`` (bit ``i``: user
parameter ``i`` is bound 16-byte aligned), then ``tc_check`` when ``checks`` is not empty.
The grid is sized on the host by ``host_steps`` as for CUDA (``cuda.source.host_arith``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tilec.ir as ir
from tilec.targets.clike import IndentedBuffer
from tilec.targets.cuda.source import CUDASource, HostStep, ParamInfo
from tilec.targets.kernel_checks import CheckInfo

__all__ = ["MetalSource"]


@dataclass
class MetalSource:
    """An emitted Metal kernel and what a launcher needs to dispatch it."""

    text: str
    """The MSL source."""
    buffer: IndentedBuffer
    """The same text, line by line, with the IR operation behind each line."""
    kernel: str
    """The kernel function's name."""
    params: list[ParamInfo]
    """Buffer-bound parameters in order: ``[[buffer(k)]]`` is ``params[k]``."""
    threads: int
    """Threads per threadgroup."""
    grid_rank: int
    """Rank of the grid ``parallel`` (above 3: linearized onto x)."""
    host_steps: list[HostStep]
    """Scalar ops that size the grid, in order."""
    grid_keys: list[int]
    """Keys of the grid extents."""
    shared_bytes: int
    """Threadgroup memory the kernel declares (static: the allocate stage's size, plus
    the vote words)."""
    checks: list[CheckInfo] = field(default_factory=list)
    """Device checks; number ``k + 1`` in word 0 of ``tc_check`` is ``checks[k]``, its values
    follow as (low, high) 32-bit pairs."""
    ops: dict[int, tuple[str, ir.Location]] = field(default_factory=dict)
    """Operation id -> (opcode, location)."""
    name: str = "?"
    """The TileIR function name."""

    grid = CUDASource.grid
    """The grid extents for entry-argument values (the host steps, as for CUDA)."""
    launch_grid = CUDASource.launch_grid
    """Threadgroups per grid for grid extents: the last coordinate on x; above rank 3 all on
    x (the emitter's mapping)."""

    @property
    def aligned_index(self) -> int:
        """The buffer index of ``tc_aligned``."""
        return len(self.params)

    @property
    def check_index(self) -> int | None:
        """The buffer index of ``tc_check`` (None: the kernel has no device checks)."""
        return len(self.params) + 1 if self.checks else None

    @property
    def check_words(self) -> int:
        """32-bit words of the ``tc_check`` record (word 0 and two per value)."""
        return 1 + 2 * max((len(c.labels) for c in self.checks), default=0)
