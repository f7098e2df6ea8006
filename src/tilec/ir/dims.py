"""Dimensions, quasi-affine index expressions and index sets.

``Dim`` is one extent: static (an ``int``) or symbolic (a name bound when the
kernel is specialized). ``AffineExpr`` is a canonical quasi-affine expression
over domain coordinates ``d<i>`` and symbols ``s<i>`` (symbols are the index
operands of the operation that carries the expression), closed under ``+``,
``*`` by a constant, ``floordiv`` and ``mod`` by a positive constant.
``IndexSet`` is a rectangular domain ``[0, e0) x [0, e1) x ...``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .interning import Interned

__all__ = ["Dim", "AffineExpr", "IndexSet", "d", "s", "const", "as_dim", "as_expr"]


class Dim(Interned):
    """One extent: ``Dim(64)`` is static, ``Dim("M")`` is a named symbol."""

    __slots__ = ("value",)
    value: int | str
    """The static extent, or the symbol's name."""

    @classmethod
    def _key(cls, value: int | str) -> tuple:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise TypeError(f"Dim takes an int or a symbol name, not {value!r}")
        if isinstance(value, int) and value < 0:
            raise ValueError(f"a static extent is non-negative, got {value}")
        if isinstance(value, str) and not (value.isidentifier() or value == "?"):
            raise ValueError(f"a symbolic extent is an identifier or '?', got {value!r}")
        return (value,)

    def _init(self, key: tuple) -> None:
        self._set("value", key[0])

    @property
    def is_static(self) -> bool:
        """True when the extent is a known integer."""
        return isinstance(self.value, int)

    def __int__(self) -> int:
        if not self.is_static:
            raise ValueError(f"extent {self.value} is symbolic")
        return int(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"Dim({self.value!r})"


def as_dim(x: Dim | int | str) -> Dim:
    """Coerce an int or a name to a ``Dim``."""
    return x if isinstance(x, Dim) else Dim(x)


# An atom of an affine expression: ("d", i), ("s", i), ("floordiv", expr, c), ("mod", expr, c).
Atom = tuple


def _atom_sort_key(atom: Atom) -> tuple:
    if atom[0] in ("d", "s"):
        return (0 if atom[0] == "d" else 1, atom[1], "")
    return (2, 0, atom[0] + str(atom[1]) + str(atom[2]))


class AffineExpr(Interned):
    """A canonical quasi-affine expression: ``sum(coeff * atom) + constant``.

    Canonical means: atoms sorted, zero coefficients dropped, so two equal
    expressions are the same interned object.
    """

    __slots__ = ("terms", "constant")
    terms: tuple[tuple[Atom, int], ...]
    """``(atom, coefficient)`` pairs, sorted, coefficients non-zero."""
    constant: int
    """The constant offset."""

    @classmethod
    def _key(cls, terms: Iterable[tuple[Atom, int]] = (), constant: int = 0) -> tuple:
        acc: dict[Atom, int] = {}
        for atom, coeff in terms:
            acc[atom] = acc.get(atom, 0) + int(coeff)
        items = tuple(sorted(((a, c) for a, c in acc.items() if c != 0),
                             key=lambda t: _atom_sort_key(t[0])))
        return (items, int(constant))

    def _init(self, key: tuple) -> None:
        self._set("terms", key[0])
        self._set("constant", key[1])

    # -- construction helpers ------------------------------------------------
    @property
    def is_constant(self) -> bool:
        """True when the expression has no atoms."""
        return not self.terms

    def __add__(self, other: ExprLike) -> AffineExpr:
        o = as_expr(other)
        return AffineExpr(self.terms + o.terms, self.constant + o.constant)

    __radd__ = __add__

    def __neg__(self) -> AffineExpr:
        return self * -1

    def __sub__(self, other: ExprLike) -> AffineExpr:
        return self + (-as_expr(other))

    def __rsub__(self, other: ExprLike) -> AffineExpr:
        return as_expr(other) - self

    def __mul__(self, other: ExprLike) -> AffineExpr:
        o = as_expr(other)
        if o.is_constant:
            c = o.constant
            return AffineExpr(((a, k * c) for a, k in self.terms), self.constant * c)
        if self.is_constant:
            return o * self.constant
        raise ValueError(f"product of two non-constant expressions is not affine: ({self}) * ({o})")

    __rmul__ = __mul__

    def floordiv(self, c: int) -> AffineExpr:
        """``floor(self / c)`` for a positive constant ``c``."""
        if c <= 0:
            raise ValueError(f"floordiv needs a positive constant, got {c}")
        if c == 1:
            return self
        if self.is_constant:
            return AffineExpr((), self.constant // c)
        whole, rest = self._split_multiples(c)
        if rest.is_constant:
            return whole + rest.constant // c
        # floor((c*q + r) / c) = q + floor(r / c) for integer q: multiples of c move out.
        return whole + AffineExpr(((("floordiv", rest, c), 1),), 0)

    def mod(self, c: int) -> AffineExpr:
        """``self mod c`` (result in ``[0, c)``) for a positive constant ``c``."""
        if c <= 0:
            raise ValueError(f"mod needs a positive constant, got {c}")
        if c == 1:
            return AffineExpr((), 0)
        if self.is_constant:
            return AffineExpr((), self.constant % c)
        _, rest = self._split_multiples(c)
        if rest.is_constant:
            return AffineExpr((), rest.constant % c)
        # (c*q + r) mod c = r mod c for integer q: multiples of c drop out.
        return AffineExpr(((("mod", rest, c), 1),), 0)

    def _split_multiples(self, c: int) -> tuple[AffineExpr, AffineExpr]:
        """``(q, r)`` with ``self = c*q + r``: ``q`` collects the terms whose coefficient is a
        multiple of ``c`` (divided by ``c``) and the constant's whole multiples of ``c``
        (rounded toward zero); ``r`` keeps the rest."""
        moved = [(a, k // c) for a, k in self.terms if k % c == 0]
        kept = [(a, k) for a, k in self.terms if k % c != 0]
        q = abs(self.constant) // c * (1 if self.constant >= 0 else -1)  # keeps d - 1 as is
        return AffineExpr(moved, q), AffineExpr(kept, self.constant - q * c)

    def __floordiv__(self, c: int) -> AffineExpr:
        return self.floordiv(c)

    def __mod__(self, c: int) -> AffineExpr:
        return self.mod(c)

    # -- inspection ------------------------------------------------------------
    def max_dim(self) -> int:
        """One more than the largest domain coordinate index used (0 if none)."""
        return self._max_index("d")

    def max_symbol(self) -> int:
        """One more than the largest symbol index used (0 if none)."""
        return self._max_index("s")

    def _max_index(self, kind: str) -> int:
        m = 0
        for atom, _ in self.terms:
            if atom[0] == kind:
                m = max(m, atom[1] + 1)
            elif atom[0] in ("floordiv", "mod"):
                m = max(m, atom[1]._max_index(kind))
        return m

    def coefficient(self, kind: str, index: int) -> int:
        """Coefficient of the plain atom ``d<index>`` or ``s<index>`` (0 if absent)."""
        for atom, c in self.terms:
            if atom == (kind, index):
                return c
        return 0

    def evaluate(self, dims: Sequence[Any], syms: Sequence[Any] = ()) -> Any:
        """Evaluate with concrete values (ints or numpy integer arrays)."""
        total: Any = self.constant
        for atom, c in self.terms:
            if atom[0] == "d":
                v = dims[atom[1]]
            elif atom[0] == "s":
                v = syms[atom[1]]
            elif atom[0] == "floordiv":
                v = atom[1].evaluate(dims, syms) // atom[2]
            else:
                v = atom[1].evaluate(dims, syms) % atom[2]
            total = total + (v * c if c != 1 else v)
        return total

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] | None = None
                   ) -> AffineExpr:
        """Replace ``d<i>`` by ``dims[i]`` (and ``s<i>`` by ``syms[i]`` when given)."""
        out = AffineExpr((), self.constant)
        for atom, c in self.terms:
            if atom[0] == "d":
                v = dims[atom[1]]
            elif atom[0] == "s":
                v = syms[atom[1]] if syms is not None else AffineExpr(((atom, 1),), 0)
            elif atom[0] == "floordiv":
                v = atom[1].substitute(dims, syms).floordiv(atom[2])
            else:
                v = atom[1].substitute(dims, syms).mod(atom[2])
            out = out + v * c
        return out

    def __str__(self) -> str:
        parts: list[str] = []
        for atom, c in self.terms:
            if atom[0] in ("d", "s"):
                a = f"{atom[0]}{atom[1]}"
            else:
                a = f"({atom[1]} {atom[0]} {atom[2]})"
            if c == 1:
                parts.append(a)
            elif c == -1:
                parts.append(f"-{a}")
            else:
                parts.append(f"{a} * {c}")
        if self.constant or not parts:
            parts.append(str(self.constant))
        text = " + ".join(parts)
        return text.replace("+ -", "- ")

    def __repr__(self) -> str:
        return f"AffineExpr({self})"


ExprLike = "AffineExpr | int"


def as_expr(x: ExprLike) -> AffineExpr:
    """Coerce an int to a constant expression."""
    if isinstance(x, AffineExpr):
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"expected an affine expression or int, got {x!r}")
    return AffineExpr((), x)


def d(i: int) -> AffineExpr:
    """The domain coordinate ``d<i>``."""
    return AffineExpr(((("d", i), 1),), 0)


def s(i: int) -> AffineExpr:
    """The symbol ``s<i>`` (the i-th index operand of the carrying operation)."""
    return AffineExpr(((("s", i), 1),), 0)


def const(c: int) -> AffineExpr:
    """The constant expression ``c``."""
    return AffineExpr((), c)


class IndexSet(Interned):
    """A rectangular index domain ``[0, e0) x ... x [0, e_{r-1})``."""

    __slots__ = ("extents",)
    extents: tuple[Dim, ...]
    """One extent per axis."""

    @classmethod
    def _key(cls, extents: Iterable[Dim | int | str]) -> tuple:
        return (tuple(as_dim(e) for e in extents),)

    def _init(self, key: tuple) -> None:
        self._set("extents", key[0])

    @property
    def rank(self) -> int:
        """Number of axes."""
        return len(self.extents)

    @property
    def is_static(self) -> bool:
        """True when every extent is static."""
        return all(e.is_static for e in self.extents)

    def size(self) -> int:
        """Number of points (static domains only)."""
        n = 1
        for e in self.extents:
            n *= int(e)
        return n

    def __str__(self) -> str:
        return "[" + ", ".join(str(e) for e in self.extents) + "]"

    def __repr__(self) -> str:
        return f"IndexSet({self})"
