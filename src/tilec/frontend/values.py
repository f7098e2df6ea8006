"""The kinds of value a Python local can denote while a kernel is captured.

A local is bound to one of: a Python constant (``int``/``float``/``bool``/
``str``/``None``, or a tuple of bindings) known at compile time; a
``ScalarVal`` or ``TileVal`` wrapping an SSA value; a ``MemVal`` (an array
parameter, a view or manual memory); a compile-time object (a dtype, a DSL
builtin, a local function); or ``Undefined`` when it is not definitely
assigned on every path to the current point. ``Elem`` and ``ViewTile`` are
transient: an elementwise expression tree and a lazy reindex that capture
fuses into one ``map`` / one ``reindex`` when the expression is consumed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir

__all__ = ["Undefined", "Affine", "ScalarVal", "TileVal", "ViewTile", "Elem", "MemVal",
           "LocalFunction", "BoundMethod", "is_number", "describe"]


@dataclass(frozen=True)
class Undefined:
    """A local that is not definitely assigned here; reading it is an error naming ``reason``."""

    reason: str
    """Why, e.g. ``assigned only in the then-branch of the if at line 7``."""


@dataclass(frozen=True)
class Affine:
    """``sum(coeff * atom) + const`` over SSA index values (cancels ``(i+1)*8 - i*8``)."""

    terms: tuple[tuple[int, int], ...] = ()
    """``(id(atom value), coefficient)``, sorted, non-zero."""
    const: int = 0
    """The constant part."""

    @staticmethod
    def atom(v: ir.Value) -> Affine:
        """The affine form of one opaque SSA value."""
        return Affine(((id(v), 1),), 0)

    def add(self, o: Affine, sign: int = 1) -> Affine:
        """``self + sign * o``."""
        acc = dict(self.terms)
        for k, c in o.terms:
            acc[k] = acc.get(k, 0) + sign * c
        return Affine(tuple(sorted((k, c) for k, c in acc.items() if c)),
                      self.const + sign * o.const)

    def scale(self, c: int) -> Affine:
        """``c * self``."""
        return Affine(tuple((k, v * c) for k, v in self.terms if v * c), self.const * c)

    @property
    def is_const(self) -> bool:
        """True when no atom remains."""
        return not self.terms


@dataclass
class ScalarVal:
    """A scalar SSA value (``index``, ``i32``, ``f32``, ``i1``, ...)."""

    value: ir.Value
    """The SSA value."""
    affine: Affine | None = None
    """Its affine form over index atoms, when capture can track one."""
    recipe: tuple[str, ast.AST, tuple[Any, ...]] | None = None
    """For an integer computed by capture's scalar arithmetic, ``(fn, node, operands)``: an
    index position recomputes it in ``index`` from its operands (``tiles.widen_index``), since
    casting the narrow result would keep a wrap that already happened."""

    @property
    def dtype(self) -> ir.ScalarType:
        """The scalar type."""
        return self.value.type  # type: ignore[return-value]


@dataclass
class TileVal:
    """A tile SSA value ``tile<...>`` with a static shape."""

    value: ir.Value
    """The SSA value."""

    @property
    def shape(self) -> tuple[int, ...]:
        """Static extents."""
        return tuple(int(e) for e in self.value.type.shape)  # type: ignore[attr-defined]

    @property
    def dtype(self) -> ir.ScalarType:
        """Element type."""
        return self.value.type.dtype  # type: ignore[attr-defined]


@dataclass
class ViewTile:
    """A lazy ``reindex``: ``result[i] = src[map(i, syms)]`` (composed with further reindexes)."""

    src: ir.Value
    """The tile read."""
    map: ir.IndexMap
    """Result coordinate (and symbols) to source coordinate."""
    syms: tuple[ir.Value, ...]
    """Index operands bound to the map's symbols."""
    shape: tuple[int, ...]
    """Result extents."""
    loc: ir.Location | None = None
    """Where the slice or index with a runtime start was written (the location its
    ``reindex`` reports when it leaves the tile); None for static views."""

    @property
    def dtype(self) -> ir.ScalarType:
        """Element type."""
        return self.src.type.dtype  # type: ignore[attr-defined]


@dataclass
class Elem:
    """A node of a fused elementwise expression; materialized as one ``map``.

    ``fn`` is an ``arith`` function name, ``cast``, ``leaf`` (``args[0]`` is a
    tile, scalar or lazy view) or ``const`` (``args[0]`` a Python number).
    """

    fn: str
    """The scalar function."""
    args: tuple[Any, ...]
    """Child nodes (or the leaf payload)."""
    dtype: ir.ScalarType
    """Element type of the result."""
    shape: tuple[int, ...]
    """Result extents (broadcast of the children)."""


@dataclass
class MemVal:
    """Addressable memory: an array parameter, a ``view`` of it, or manual ``tc.memory``."""

    value: ir.Value
    """The SSA value of memory type."""
    fill: Any = None
    """Fill value for out-of-range elements when the view is loaded."""
    loaded: Any = None
    """``(tile, block, epoch)`` of the snapshot loaded at the first use as a value; reused only
    in that block's scope and until the next write."""
    window: bool = False
    """True for ``A.tile(...)`` windows: as values they are tiles (``.T`` transposes the tile)."""

    @property
    def type(self) -> ir.MemoryType:
        """The memory type."""
        return self.value.type  # type: ignore[return-value]

    @property
    def dtype(self) -> ir.ScalarType:
        """Element type."""
        return self.type.dtype


@dataclass
class LocalFunction:
    """A ``def`` or ``lambda`` written inside the kernel (a combine function for ``tc.reduce``)."""

    node: ast.AST
    """The ``FunctionDef`` or ``Lambda`` node."""
    env: dict[str, Any] = field(default_factory=dict)
    """The bindings visible where it was defined (read-only inside it)."""

    @property
    def params(self) -> list[str]:
        """Parameter names in order."""
        args = self.node.args  # type: ignore[attr-defined]
        return [a.arg for a in args.args]


@dataclass
class BoundMethod:
    """``receiver.name`` for a DSL method (``x.to``, ``A.tile``, ``v.store`` ...)."""

    receiver: Any
    """The value the method is bound to."""
    name: str
    """Method name."""


def is_number(x: Any) -> bool:
    """True for Python ``int``/``float``/``bool`` compile-time constants."""
    return isinstance(x, (int, float, bool))


def describe(x: Any) -> str:
    """A short phrase for error messages: ``a tile<64x64xf32>``, ``the Python int 3``."""
    if isinstance(x, (TileVal, ViewTile, Elem)):
        shape = "x".join(str(e) for e in x.shape)
        return f"a tile<{shape + 'x' if shape else ''}{x.dtype}>"
    if isinstance(x, ScalarVal):
        return f"a scalar {x.dtype}"
    if isinstance(x, MemVal):
        return f"memory {x.type}"
    if isinstance(x, bool):
        return f"the Python bool {x}"
    if isinstance(x, (int, float, str)):
        return f"the Python {type(x).__name__} {x!r}"
    if isinstance(x, tuple):
        return f"a tuple of {len(x)}"
    if x is None:
        return "None"
    return f"a {type(x).__name__}"
