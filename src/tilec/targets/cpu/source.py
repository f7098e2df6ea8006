"""What the cpu target hands the launcher: the translation unit and its calling contract."""

from __future__ import annotations

from dataclasses import dataclass, field

import tilec.ir as ir
from tilec.targets.clike import IndentedBuffer
from tilec.targets.kernel_checks import CheckInfo

__all__ = ["CSource", "ParamInfo", "ENTRY_SYMBOL"]

ENTRY_SYMBOL = "tilec_entry"
"""The C symbol of every translation unit's entry function."""


@dataclass(frozen=True)
class ParamInfo:
    """One entry argument as the launcher sees it."""

    kind: str
    """``mem``, ``tile``, ``scalar`` or ``symbol``."""
    dtype: ir.ScalarType
    """Element type (``index`` for symbols)."""
    shape: tuple[ir.Dim, ...] = ()
    """Extents of a ``mem`` parameter."""
    written: bool = False
    """True when the kernel stores or atomically updates this memory (an output)."""
    name: str = ""
    """The parameter's name hint."""


@dataclass
class CSource:
    """The emitted translation unit and what the launcher needs to call it."""

    text: str
    """The C source."""
    buffer: IndentedBuffer
    """The same text, line by line, with the IR operation behind each line."""
    params: list[ParamInfo]
    """Entry arguments in order (user parameters, then shape symbols)."""
    dim_slots: list[tuple[int, int]]
    """``tc_dims[k]`` is the extent of axis ``dim_slots[k][1]`` of parameter ``dim_slots[k][0]``."""
    results: list[ir.Type]
    """Result types of the function."""
    ops: dict[int, tuple[str, ir.Location]] = field(default_factory=dict)
    """Operation id -> (opcode, location), for runtime error messages."""
    checks: dict[int, CheckInfo] = field(default_factory=dict)
    """Operation id -> what an emitted ``check`` (or a tested division, or a ``total`` view
    an access leaves) reports when it fails."""
    reads: dict[tuple[int, int], CheckInfo] = field(default_factory=dict)
    """``(reindex id, source axis)`` -> what a read leaving that axis reports (its start is
    ``tc_ck[0]``, the axis ``tc_ck[1]``)."""
