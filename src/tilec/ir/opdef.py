"""The vocabulary opcodes are declared in, and the registry that holds them.

``OpDef`` declares one opcode (counts, attributes, effect class, verify hook) and
``AttrDef`` one attribute it accepts; ``register_op`` adds a declaration to ``OPS`` and
``lookup_op`` reads it back. The inventory itself, every opcode with its verify hook, is
``ops.py``: this module is separate so that the form of a declaration and the table can
be read (by the parser, the verifier and ``Operation``) apart from the hundreds of lines
of per-opcode checks that fill it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Operation

__all__ = ["OpDef", "AttrDef", "OpVerifyError", "register_op", "lookup_op", "OPS", "EFFECTS"]


class OpVerifyError(Exception):
    """Raised by a verify hook; the verifier turns it into a located ``VerificationError``."""

    def __init__(self, message: str, invariant: str = "op-signature") -> None:
        super().__init__(message)
        self.invariant = invariant


@dataclass(frozen=True)
class AttrDef:
    """One attribute an opcode accepts."""

    check: Callable[[Any], bool]
    """Predicate on the attribute value."""
    required: bool = False
    """True when the attribute must be present."""
    doc: str = ""
    """What the attribute means."""


EFFECTS = ("pure", "read", "write", "read_write", "alloc", "sync", "unknown", "control")
"""Effect classes for the memory-effects analysis."""


@dataclass(frozen=True)
class OpDef:
    """The declaration of one opcode."""

    name: str
    """The opcode as printed."""
    family: str
    """Inventory family (control, structured, aggregation, pure, effect, machine)."""
    summary: str
    """One-line meaning."""
    operands: tuple[int, int | None] = (0, 0)
    """Minimum and maximum operand count (None: unbounded)."""
    results: tuple[int, int | None] = (0, 0)
    """Minimum and maximum result count."""
    regions: tuple[int, int | None] = (0, 0)
    """Minimum and maximum region count."""
    successors: int = 0
    """Exact number of successor blocks."""
    attrs: dict[str, AttrDef] = field(default_factory=dict)
    """Accepted attributes; others are rejected unless ``open_attrs``."""
    open_attrs: bool = False
    """True when unlisted attributes are allowed (machine atoms carry target attributes)."""
    terminator: bool = False
    """True for block terminators."""
    effect: str = "pure"
    """Effect class (one of ``EFFECTS``); ``read``/``write`` act on operand 0."""
    verify: Callable[[Operation], None] | None = None
    """Type/structure hook; raises ``OpVerifyError``."""
    operand_names: tuple[str, ...] = ()
    """Names of the leading operands, in order (``Operation.operand_named``); the rest
    (variadic symbols, inits) are read by position."""


OPS: dict[str, OpDef] = {}
"""The registry: opcode name to definition."""


def register_op(opdef: OpDef) -> OpDef:
    """Add an opcode to the registry (names are unique)."""
    if opdef.name in OPS:
        raise ValueError(f"opcode {opdef.name!r} is already registered")
    if opdef.effect not in EFFECTS:
        raise ValueError(f"unknown effect class {opdef.effect!r}")
    OPS[opdef.name] = opdef
    return opdef


def lookup_op(name: str) -> OpDef:
    """The definition of ``name`` (``KeyError`` with the known names otherwise)."""
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown operation {name!r}") from None
