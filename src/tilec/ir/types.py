"""Interned immutable TileIR types.

Scalars (``f16 bf16 f32 f64 i1 i8 i16 i32 i64 u8 u16 u32 index``), ``TileType`` (a
logical value tile), ``MemoryType`` (addressable storage in a space),
``TokenType`` (a protocol/synchronization token) and ``TupleType``.
Identity is equality: ``TileType((4, 4), f32) is TileType((4, 4), f32)``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .dims import Dim, as_dim
from .interning import Interned

__all__ = [
    "Type", "ScalarType", "TileType", "MemoryType", "TokenType", "TupleType",
    "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
    "index", "token", "SCALARS", "MEMORY_SPACES", "scalar_type",
]


class Type(Interned):
    """Base of every TileIR type."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<type {self}>"


class ScalarType(Type):
    """A scalar element type."""

    __slots__ = ("name", "bits", "kind")
    name: str
    """Printed name, e.g. ``f32``."""
    bits: int
    """Storage width in bits."""
    kind: str
    """``"float"``, ``"int"`` (two's complement; ``i1`` is 0 or 1), ``"uint"`` (unsigned,
    arithmetic modulo ``2**bits``) or ``"index"`` (a machine-sized integer for coordinates)."""

    @classmethod
    def _key(cls, name: str) -> tuple:
        if name not in _SCALAR_INFO:
            raise ValueError(f"unknown scalar type {name!r}; known: {', '.join(_SCALAR_INFO)}")
        return (name,)

    def _init(self, key: tuple) -> None:
        name = key[0]
        bits, kind = _SCALAR_INFO[name]
        self._set("name", name)
        self._set("bits", bits)
        self._set("kind", kind)

    @property
    def bytes(self) -> int:
        """Storage width in bytes (an ``i1`` takes one)."""
        return max(1, self.bits // 8)

    @property
    def is_float(self) -> bool:
        """True for floating-point types."""
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        """True for integer and index types."""
        return self.kind in ("int", "uint", "index")

    @property
    def is_unsigned(self) -> bool:
        """True for the unsigned integer types (``u8``, ``u16``, ``u32``)."""
        return self.kind == "uint"

    @property
    def int_bounds(self) -> tuple[int, int]:
        """The smallest and largest value of an integer type (``i1``: 0 and 1)."""
        if not self.is_int:
            raise TypeError(f"{self} is not an integer type")
        if self.name == "i1":
            return 0, 1
        if self.kind == "uint":
            return 0, (1 << self.bits) - 1
        return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1

    def __str__(self) -> str:
        return self.name


_SCALAR_INFO: dict[str, tuple[int, str]] = {
    "f16": (16, "float"), "bf16": (16, "float"), "f32": (32, "float"), "f64": (64, "float"),
    "i1": (1, "int"), "i8": (8, "int"), "i16": (16, "int"), "i32": (32, "int"),
    "i64": (64, "int"), "u8": (8, "uint"), "u16": (16, "uint"), "u32": (32, "uint"),
    "index": (64, "index"),
}

f16 = ScalarType("f16")
bf16 = ScalarType("bf16")
f32 = ScalarType("f32")
f64 = ScalarType("f64")
i1 = ScalarType("i1")
i8 = ScalarType("i8")
i16 = ScalarType("i16")
i32 = ScalarType("i32")
i64 = ScalarType("i64")
u8 = ScalarType("u8")
u16 = ScalarType("u16")
u32 = ScalarType("u32")
index = ScalarType("index")

SCALARS: dict[str, ScalarType] = {n: ScalarType(n) for n in _SCALAR_INFO}
"""Every scalar type by its printed name."""


def scalar_type(name: str) -> ScalarType:
    """The scalar type named ``name`` (raises ``ValueError`` for unknown names)."""
    return ScalarType(name)


def _shape(shape: Iterable[Dim | int | str]) -> tuple[Dim, ...]:
    return tuple(as_dim(e) for e in shape)


def _shape_str(shape: tuple[Dim, ...]) -> str:
    return "".join(f"{e}x" for e in shape)


class TileType(Type):
    """A logical value tile ``tile<8x16xf32>``: pure, no address, no storage decision."""

    __slots__ = ("shape", "dtype")
    shape: tuple[Dim, ...]
    """Extents, outermost first."""
    dtype: ScalarType
    """Element type."""

    @classmethod
    def _key(cls, shape: Iterable[Dim | int | str], dtype: ScalarType) -> tuple:
        if not isinstance(dtype, ScalarType):
            raise TypeError(f"a tile's element type is a scalar type, got {dtype!r}")
        return (_shape(shape), dtype)

    def _init(self, key: tuple) -> None:
        self._set("shape", key[0])
        self._set("dtype", key[1])

    @property
    def rank(self) -> int:
        """Number of axes."""
        return len(self.shape)

    def __str__(self) -> str:
        return f"tile<{_shape_str(self.shape)}{self.dtype}>"


MEMORY_SPACES = ("global", "shared", "local", "fragment")
"""Address spaces a ``MemoryType`` may name."""


class MemoryType(Type):
    """Addressable storage ``mem<MxKxf32, global>``; reads and writes are effects."""

    __slots__ = ("shape", "dtype", "space")
    shape: tuple[Dim, ...]
    """Logical extents, outermost first; symbolic extents are bound at specialization."""
    dtype: ScalarType
    """Element type."""
    space: str
    """One of ``MEMORY_SPACES``."""

    @classmethod
    def _key(cls, shape: Iterable[Dim | int | str], dtype: ScalarType,
             space: str = "global") -> tuple:
        if not isinstance(dtype, ScalarType):
            raise TypeError(f"a memory's element type is a scalar type, got {dtype!r}")
        if space not in MEMORY_SPACES:
            raise ValueError(f"unknown memory space {space!r}; known: {', '.join(MEMORY_SPACES)}")
        return (_shape(shape), dtype, space)

    def _init(self, key: tuple) -> None:
        self._set("shape", key[0])
        self._set("dtype", key[1])
        self._set("space", key[2])

    @property
    def rank(self) -> int:
        """Number of axes."""
        return len(self.shape)

    def __str__(self) -> str:
        return f"mem<{_shape_str(self.shape)}{self.dtype}, {self.space}>"


class TokenType(Type):
    """A protocol token: orders asynchronous effects and synchronization."""

    __slots__ = ()

    @classmethod
    def _key(cls) -> tuple:
        return ()

    def _init(self, key: tuple) -> None:
        pass

    def __str__(self) -> str:
        return "token"


token = TokenType()


class TupleType(Type):
    """An aggregate of values ``tuple<f32, tile<4xf32>>``."""

    __slots__ = ("elements",)
    elements: tuple[Type, ...]
    """Element types in order."""

    @classmethod
    def _key(cls, elements: Iterable[Type]) -> tuple:
        elems = tuple(elements)
        for e in elems:
            if not isinstance(e, Type):
                raise TypeError(f"tuple elements are types, got {e!r}")
        return (elems,)

    def _init(self, key: tuple) -> None:
        self._set("elements", key[0])

    def __str__(self) -> str:
        return "tuple<" + ", ".join(str(e) for e in self.elements) + ">"
