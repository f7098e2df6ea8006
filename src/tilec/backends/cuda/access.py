"""Per-thread addressed accesses of the SIMT region: views, guards and 16-byte vectors.

In Machine TileIR a thread's ``load``/``store`` moves a small register array
(``tile<L x dt>``, static ``L``) through a view whose map reads the thread's
coordinates as symbols. Every register index is a compile-time constant, so
an access is emitted fully unrolled: for register ``i`` the view coordinates
are constants and the composed map is an affine expression over runtime
symbols only.

A ``MemRef`` is a memory value at emission time: the base pointer, the
base's row-major strides, the composed map from view coordinates to base
coordinates, and one ``Level`` per ``bounded`` view on the way (its map to
the coordinates of the level it was cut from and that level's extents).

**Vectors.** Registers are grouped in chunks of ``w = 16 / sizeof(dt)``
consecutive elements along the last view axis. A chunk becomes one 16-byte
access when, with ``e`` the offset inside the chunk:

* every base coordinate and every level coordinate is provably ``base + k*e``
  (``linear_in``: floor/mod atoms are simplified using what is known about
  the divisibility of the symbols, e.g. ``(4*tid + e) mod 64 = (4*tid mod 64)
  + e`` for ``e < 4``), the last base coordinate with ``k = 1`` and the
  others with ``k = 0`` (contiguous);
* the address is 16-byte aligned: proved statically (the address offset is a
  multiple of ``w`` elements by divisibility, and the base pointer is known
  aligned: shared memory always, a global parameter through a uniform flag
  computed once per kernel), or else checked at run time;
* for bounded views, the whole chunk is valid (first and last element in
  range, enough for coordinates linear in ``e``).

Otherwise the chunk falls back to guarded scalar accesses, so a misaligned or
partial chunk is never wrong, only slower.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import tilec.ir as ir
from tilec.backends.clike import IndentedBuffer, prod

__all__ = ["Level", "MemRef", "affine_c", "divisor", "linear_in", "AccessWriter", "prod"]


@dataclass(frozen=True)
class Level:
    """A validity constraint: ``map(view coords, syms)`` must lie inside ``extents``."""

    map: ir.IndexMap
    """View coordinates -> coordinates of the level the view was cut from."""
    syms: tuple[str, ...]
    """C expressions of the map's symbols."""
    sym_divs: tuple[int, ...]
    """A known divisor of each symbol (0: the symbol is 0)."""
    extents: tuple[str, ...]
    """C expressions of that level's extents."""


@dataclass(frozen=True)
class MemRef:
    """A memory value at emission time: base pointer + composed map + validity levels."""

    ptr: str
    """C expression of the base's first element (a typed pointer)."""
    dtype: ir.ScalarType
    """Element type."""
    space: str
    """``global``, ``shared`` or ``local``."""
    extents: tuple[str, ...]
    """C expressions of this view's own extents."""
    map: ir.IndexMap
    """View coordinates -> base coordinates."""
    syms: tuple[str, ...]
    """C expressions of ``map``'s symbols."""
    sym_divs: tuple[int, ...]
    """A known divisor of each symbol."""
    strides: tuple[str, ...]
    """C expressions of the base's row-major element strides."""
    stride_divs: tuple[int, ...]
    """A known divisor of each stride (the product of its static factors)."""
    levels: tuple[Level, ...]
    """Validity constraints of bounded views (empty: every element is valid)."""
    aligned: str
    """C condition that the base pointer is 16-byte aligned (``true`` for shared memory)."""
    root: ir.Value
    """The base memory value (a function parameter or a ``memory`` result)."""

    def sub(self, m: ir.IndexMap, syms: Sequence[str], sym_divs: Sequence[int],
            extents: Sequence[str], bounded: bool) -> MemRef:
        """The view ``self[m(i, syms)]`` with ``extents``; ``bounded`` adds a validity level."""
        syms, sym_divs = tuple(syms), tuple(sym_divs)
        levels = tuple(Level(c.map.compose(m), c.syms + syms, c.sym_divs + sym_divs, c.extents)
                       for c in self.levels)
        if bounded:
            levels += (Level(m, syms, sym_divs, self.extents),)
        return MemRef(self.ptr, self.dtype, self.space, tuple(extents), self.map.compose(m),
                      self.syms + syms, self.sym_divs + sym_divs, self.strides,
                      self.stride_divs, levels, self.aligned, self.root)


# ----------------------------------------------------------------- affine helpers


def affine_c(e: ir.AffineExpr, syms: Sequence[str], dims: Sequence[str] = ()) -> str:
    """``e`` as a C ``int64_t`` expression (floordiv/mod with floor semantics)."""
    parts: list[str] = []
    for atom, c in e.terms:
        if atom[0] == "d":
            a = dims[atom[1]]
        elif atom[0] == "s":
            a = syms[atom[1]]
        elif atom[0] == "floordiv":
            a = f"tc_fdiv({affine_c(atom[1], syms, dims)}, {atom[2]})"
        else:
            a = f"tc_fmod({affine_c(atom[1], syms, dims)}, {atom[2]})"
        parts.append(a if c == 1 else f"{a} * {c}" if c > 0 else f"{a} * ({c})")
    if e.constant or not parts:
        parts.append(f"({e.constant})" if e.constant < 0 else str(e.constant))
    return parts[0] if len(parts) == 1 else "(" + " + ".join(parts) + ")"


def divisor(e: ir.AffineExpr, sym_divs: Sequence[int]) -> int:
    """A known divisor of ``e``'s value (0 when ``e`` is identically 0)."""
    g = abs(e.constant)
    for atom, c in e.terms:
        if atom[0] == "s":
            g = math.gcd(g, abs(c) * sym_divs[atom[1]])
        else:
            g = math.gcd(g, abs(c))
    return g


def linear_in(e: ir.AffineExpr, sym_divs: Sequence[int], width: int
              ) -> tuple[ir.AffineExpr, int] | None:
    """``(base, k)`` with ``e = base + k * d0`` for every ``d0`` in ``[0, width)``, or None.

    ``base`` reads symbols only. A floordiv/mod atom whose operand is
    ``Y + r + k*d0`` (``Y`` a multiple of ``h = gcd(divisor(Y), c)``) is
    constant / linear in ``d0`` when ``(r mod h) + k*(width-1) < h``.
    """
    base: list[tuple[tuple, int]] = []
    const = e.constant
    slope = 0
    for atom, c in e.terms:
        if atom[0] == "d":
            if atom[1] != 0:
                return None
            slope += c
        elif atom[0] == "s":
            base.append((atom, c))
        else:
            inner, k = atom[1], atom[2]
            if inner.max_dim() == 0:
                base.append((atom, c))
                continue
            sub = linear_in(inner, sym_divs, width)
            if sub is None:
                return None
            ib, islope = sub
            if islope < 0:
                return None
            y = ir.AffineExpr(ib.terms, 0)
            h = math.gcd(divisor(y, sym_divs), k)
            rp = ib.constant % h
            yp = y + (ib.constant - rp)
            if rp + islope * (width - 1) >= h:
                return None
            if atom[0] == "floordiv":
                q = yp.floordiv(k)
                base.extend(q.terms if c == 1 else (q * c).terms)
                const += q.constant * c
            else:
                m = yp.mod(k)
                base.extend((m * c).terms)
                const += (m.constant + rp) * c
                slope += islope * c
    return ir.AffineExpr(base, const), slope


# ----------------------------------------------------------------- the writer


_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
          "i64": 8, "index": 8}


def elem_bytes(t: ir.ScalarType) -> int:
    """Bytes of one element in memory."""
    return _BYTES[t.name]


def unravel(i: int, shape: Sequence[int]) -> list[int]:
    """Row-major multi-index of flat index ``i``."""
    out = []
    for e in reversed(shape):
        out.append(i % e)
        i //= e
    return out[::-1]


class AccessWriter:
    """Emits unrolled, guarded, vectorized per-thread accesses through a ``MemRef``."""

    def __init__(self, buf: IndentedBuffer, fresh: Callable[[str], str]) -> None:
        self.buf = buf
        """Output."""
        self.fresh = fresh
        """Fresh C identifiers."""
        self.vector_chunks = 0
        """Statistics: chunks emitted with a 16-byte path."""
        self.scalar_elems = 0
        """Statistics: elements emitted with scalar accesses only."""

    # -- analysis ------------------------------------------------------------------
    @staticmethod
    def _dims(shape: Sequence[int], i: int, chunk: bool) -> list[ir.AffineExpr]:
        idx = unravel(i, shape)
        out = [ir.AffineExpr((), v) for v in idx]
        if chunk:
            out[-1] = ir.d(0) + idx[-1]
        return out

    def _chunk_plan(self, ref: MemRef, shape: Sequence[int], i0: int, w: int
                    ) -> tuple[list[tuple[ir.AffineExpr, int]],
                               list[list[tuple[ir.AffineExpr, int]]], bool] | None:
        """Linear forms of the base and level coordinates over one chunk, and static alignment."""
        dims = self._dims(shape, i0, True)
        coords = []
        for r in ref.map.results:
            lin = linear_in(r.substitute(dims), ref.sym_divs, w)
            if lin is None:
                return None
            coords.append(lin)
        if any(k != 0 for _, k in coords[:-1]) or coords[-1][1] != 1:
            return None
        levels = []
        for lv in ref.levels:
            forms = []
            for r in lv.map.results:
                lin = linear_in(r.substitute(dims), lv.sym_divs, w)
                if lin is None:
                    return None
                forms.append(lin)
            levels.append(forms)
        ok = divisor(coords[-1][0], ref.sym_divs) % w == 0
        for (b, _), sd in zip(coords[:-1], ref.stride_divs[:-1]):
            ok = ok and (divisor(b, ref.sym_divs) * sd) % w == 0
        return coords, levels, ok

    def _address(self, ref: MemRef, coords: Sequence[ir.AffineExpr]) -> str:
        terms = []
        for c, st in zip(coords, ref.strides):
            cs = affine_c(c, ref.syms)
            if cs == "0":
                continue
            terms.append(cs if st == "1" else f"{cs} * {st}")
        return " + ".join(terms) or "0"

    def _valid(self, ref: MemRef, dims: Sequence[ir.AffineExpr]) -> str:
        conds = []
        for lv in ref.levels:
            for r, ext in zip(lv.map.results, lv.extents):
                c = r.substitute(dims)
                if c.is_constant:
                    if c.constant < 0:
                        return "false"
                    if ext.isdigit():
                        if c.constant >= int(ext):
                            return "false"
                        continue
                    conds.append(f"{c.constant} < {ext}")
                    continue
                cs = affine_c(c, lv.syms)
                v = self.fresh("c")
                self.buf.line(f"const int64_t {v} = {cs};")
                conds.append(f"{v} >= 0 && {v} < {ext}")
        return " && ".join(conds) or "true"

    # -- emission ------------------------------------------------------------------
    def access(self, ref: MemRef, shape: Sequence[int], on_elem: Callable[[str, int], str],
               on_invalid: Callable[[int], str] | None,
               on_vector: Callable[[str, int, int], list[str]] | None) -> None:
        """Emit an access of every element of a static ``shape`` view.

        ``on_elem(lvalue, i)``: the statement for valid element ``i``;
        ``on_invalid(i)``: the statement for an invalid one (None: nothing);
        ``on_vector(pointer, i0, w)``: the statements of a 16-byte access at
        ``pointer`` covering elements ``i0 .. i0+w-1`` (None: scalar only).
        """
        n = prod(shape)
        w = 16 // elem_bytes(ref.dtype)
        b = self.buf
        i = 0
        while i < n:
            plan = None
            if (on_vector is not None and shape and w > 1 and shape[-1] % w == 0
                    and i % w == 0 and i + w <= n):
                plan = self._chunk_plan(ref, shape, i, w)
            if plan is None:
                with b.block(""):
                    self._scalar(ref, shape, i, on_elem, on_invalid)
                self.scalar_elems += 1
                i += 1
                continue
            coords, levels, static_ok = plan
            assert on_vector is not None
            self.vector_chunks += 1
            with b.block(""):
                a = self.fresh("a")
                b.line(f"const int64_t {a} = {self._address(ref, [c for c, _ in coords])};")
                conds: list[str] = []
                elem_conds: list[tuple[str, int, str]] = []
                for lv, forms in zip(ref.levels, levels):
                    for (base, k), ext in zip(forms, lv.extents):
                        v = self.fresh("c")
                        b.line(f"const int64_t {v} = {affine_c(base, lv.syms)};")
                        lo, hi = (v, f"{v} + {k * (w - 1)}") if k >= 0 else \
                            (f"{v} + ({k * (w - 1)})", v)
                        conds.append(f"{lo} >= 0 && {hi} < {ext}" if k else
                                     f"{v} >= 0 && {v} < {ext}")
                        elem_conds.append((v, k, ext))
                ptr = f"{ref.ptr} + {a}"
                if static_ok:
                    if ref.aligned != "true":
                        conds.append(ref.aligned)
                else:
                    conds.append(f"tc_aligned16({ptr})")
                vec = on_vector(ptr, i, w)
                if not conds:
                    b.lines_of(vec)
                else:
                    with b.block(f"if ({' && '.join(conds)})"):
                        b.lines_of(vec)
                    with b.block("else"):
                        for e in range(w):
                            cs = [f"{v} + {k * e} >= 0 && {v} + {k * e} < {ext}" if k else
                                  f"{v} >= 0 && {v} < {ext}" for v, k, ext in elem_conds]
                            stmt = on_elem(f"{ref.ptr}[{a} + {e}]", i + e)
                            if not cs:
                                b.line(stmt)
                                continue
                            miss = on_invalid(i + e) if on_invalid is not None else ""
                            b.line(f"if ({' && '.join(cs)}) {stmt}"
                                   + (f" else {miss}" if miss else ""))
            i += w

    def _scalar(self, ref: MemRef, shape: Sequence[int], i: int,
                on_elem: Callable[[str, int], str], on_invalid: Callable[[int], str] | None
                ) -> None:
        dims = self._dims(shape, i, False)
        valid = self._valid(ref, dims)
        coords = [r.substitute(dims) for r in ref.map.results]
        stmt = on_elem(f"{ref.ptr}[{self._address(ref, coords)}]", i)
        miss = on_invalid(i) if on_invalid is not None else ""
        if valid == "true":
            self.buf.line(stmt)
        elif valid == "false":
            if miss:
                self.buf.line(miss)
        else:
            self.buf.line(f"if ({valid}) {stmt}" + (f" else {miss}" if miss else ""))

    def address_of_first(self, ref: MemRef) -> str:
        """The C expression of the element offset of view element 0 (no guard)."""
        dims = [ir.AffineExpr((), 0)] * ref.map.n_dims
        return self._address(ref, [r.substitute(dims) for r in ref.map.results])
