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
consecutive elements along the last view axis; where the register array's last
extent is not a multiple of that or such a chunk is not contiguous, and the
writer allows narrow vectors (``narrow``), of the widest power of two that
divides it, is contiguous and makes a vector of at least 4 bytes (a matrix
fragment's pairs of f32: 8-byte accesses). A chunk becomes one vector access
when, with ``e`` the offset inside the chunk:

* every base coordinate and every level coordinate is provably ``base + k*e``
  (``linear_in``: floor/mod atoms are simplified using what is known about
  the divisibility of the symbols, e.g. ``(4*tid + e) mod 64 = (4*tid mod 64)
  + e`` for ``e < 4``), the last base coordinate with ``k = 1`` and the
  others with ``k = 0`` (contiguous);
* the address is aligned to the vector's bytes: proved statically (the address
  offset is a multiple of ``w`` elements by divisibility, and the base pointer
  is known 16-byte aligned: shared memory always, a global parameter through a
  uniform flag computed once per kernel), or else checked at run time;
* for bounded views, the whole chunk is valid (first and last element in
  range, enough for coordinates linear in ``e``).

Otherwise the chunk falls back to guarded scalar accesses, so a misaligned or
partial chunk is never wrong, only slower.

**Narrow arithmetic.** Every symbol carries a value range
(``tilec.ir.ranges``). ``IndexWriter`` turns an affine expression into C
whose every operation is exact: a node whose range fits in 32 bits is
computed in whatever type its operands have (``int`` for narrowed values),
one that may not is forced to ``int64_t``; floor division and modulo by a
power of two are an arithmetic shift and a mask (exact floor semantics in
two's complement, whatever the sign), by another constant an unsigned
division when the operand is non-negative, and ``tc_fdiv``/``tc_fmod``
otherwise. Guards that the ranges decide are left out, and a comparison of
a 32-bit value with a size parameter reads a 32-bit saturated copy of the
size (``narrow_extent``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.ir.ranges import (
    I32,
    I64,
    Range,
    affine_range,
    floordiv_range,
    is_pow2,
    mod_range,
)
from tilec.targets.clike import IndentedBuffer, prod

__all__ = ["Level", "MemRef", "affine_c", "divisor", "linear_in", "AccessWriter", "prod",
           "IndexWriter", "SIZE"]

SIZE = Range(0, I64.hi)
"""The range of a user size (an extent or a stride of a global array)."""


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
    sym_ranges: tuple[Range, ...] = ()
    """The range of each symbol (missing: any ``int64_t``)."""


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
    sym_ranges: tuple[Range, ...] = ()
    """The range of each symbol of ``map`` (missing: any ``int64_t``)."""
    swizzle: int = 0
    """128 for a 128-byte swizzled shared buffer: an element offset ``x`` is stored at
    ``tc_swz128(x)`` (the 16-byte chunks of each 128-byte row permuted)."""

    def at(self, offset: str) -> str:
        """The physical element offset of logical offset ``offset`` (a C expression)."""
        if not self.swizzle:
            return offset
        return f"tc_swz128<{elem_bytes(self.dtype)}>({offset})"

    def sub(self, m: ir.IndexMap, syms: Sequence[str], sym_divs: Sequence[int],
            extents: Sequence[str], bounded: bool, sym_ranges: Sequence[Range] = ()
            ) -> MemRef:
        """The view ``self[m(i, syms)]`` with ``extents``; ``bounded`` adds a validity level."""
        syms, sym_divs = tuple(syms), tuple(sym_divs)
        rs = _pad(sym_ranges, len(syms))
        levels = tuple(Level(c.map.compose(m), c.syms + syms, c.sym_divs + sym_divs, c.extents,
                             _pad(c.sym_ranges, len(c.syms)) + rs)
                       for c in self.levels)
        if bounded:
            levels += (Level(m, syms, sym_divs, self.extents, rs),)
        return MemRef(self.ptr, self.dtype, self.space, tuple(extents), self.map.compose(m),
                      self.syms + syms, self.sym_divs + sym_divs, self.strides,
                      self.stride_divs, levels, self.aligned, self.root,
                      _pad(self.sym_ranges, len(self.syms)) + rs, self.swizzle)


def _pad(ranges: Sequence[Range], n: int) -> tuple[Range, ...]:
    """``ranges`` extended to ``n`` entries with the full ``int64_t`` range."""
    return tuple(ranges[:n]) + (I64,) * (n - len(ranges))


# ----------------------------------------------------------------- affine helpers


def affine_c(e: ir.AffineExpr, syms: Sequence[str], dims: Sequence[str] = (),
             sym_ranges: Sequence[Range] = (), dim_ranges: Sequence[Range] = ()) -> str:
    """``e`` as an exact C expression (floor semantics; narrow where the ranges allow).

    A symbol or dimension without a range may be any ``int64_t``.
    """
    return IndexWriter(_pad(sym_ranges, len(syms)), _pad(dim_ranges, len(dims))).expr(
        e, syms, dims)[0]


def _lit(v: int) -> str:
    return f"({v})" if v < 0 else str(v)


def _paren(t: str) -> str:
    """``t`` safe as the operand of a cast or a multiplication."""
    if t.isidentifier() or t.lstrip("-").isdigit():
        return t if not t.startswith("-") else f"({t})"
    if t.startswith("(") and _closes_at_end(t):
        return t
    return f"({t})"


def _closes_at_end(t: str) -> bool:
    depth = 0
    for i, ch in enumerate(t):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(t) - 1:
            return False
    return depth == 0


def ctype_of(r: Range) -> str:
    """The C type of an index local with range ``r``: ``int`` when it fits, else ``int64_t``."""
    return "int" if r.within(I32) else "int64_t"


def plus(v: str, r: Range, k: int) -> str:
    """``v + k`` exactly, for ``v`` of range ``r`` (widened when the sum may leave 32 bits)."""
    if k == 0:
        return v
    widen = r.within(I32) and not (r + Range.point(k)).within(I32)
    return f"{'(int64_t)' if widen else ''}{v} + {k}" if k > 0 else \
        f"{'(int64_t)' if widen else ''}{v} - {-k}"


def sum_c(parts: Sequence[tuple[str, Range]], constant: int = 0) -> tuple[str, Range]:
    """The sum of terms ``(text, range)`` and a constant, 64-bit from the first term on
    when a term or a partial sum may leave 32 bits."""
    items = [(t, r) for t, r in parts if not (r.is_point and r.lo == 0)]
    if constant:
        items.append((_lit(constant), Range.point(constant)))
    if not items:
        return "0", Range.point(0)
    total = Range.point(0)
    wide = False
    for _, r in items:
        total = total + r
        wide = wide or not (r.within(I32) and total.within(I32))
    texts = [t for t, _ in items]
    if wide and items[0][1].within(I32) and len(items) > 1:
        texts[0] = f"(int64_t){_paren(texts[0])}"
    if len(texts) == 1:
        return texts[0], total
    return "(" + " + ".join(texts) + ")", total


def scale_c(t: str, r: Range, c: int | str, cr: Range | None = None) -> tuple[str, Range]:
    """``t * c`` exactly, for ``t`` of range ``r`` and ``c`` a constant or a C expression of
    range ``cr``; 64-bit when the product may leave 32 bits."""
    if isinstance(c, int):
        cr, cs = Range.point(c), _lit(c)
    else:
        assert cr is not None
        cs = c
    if cs == "1":
        return t, r
    pr = r * cr
    if pr.within(I32):
        return f"{_paren(t)} * {cs}", pr
    return f"(int64_t){_paren(t)} * {cs}", pr


class IndexWriter:
    """C text of quasi-affine index expressions, exact under 32-bit arithmetic where the
    ranges of the symbols prove it (the module docstring has the rules)."""

    def __init__(self, sym_ranges: Sequence[Range], dim_ranges: Sequence[Range] = ()) -> None:
        self.sym_ranges = tuple(sym_ranges)
        """The range of each symbol."""
        self.dim_ranges = tuple(dim_ranges)
        """The range of each dimension."""

    def expr(self, e: ir.AffineExpr, syms: Sequence[str], dims: Sequence[str] = ()
             ) -> tuple[str, Range]:
        """``(text, range)`` of ``e``."""
        parts: list[tuple[str, Range]] = []
        const = e.constant
        for atom, c in e.terms:
            at, ar = self.atom(atom, syms, dims)
            if ar.is_point:
                const += ar.lo * c
                continue
            parts.append(scale_c(at, ar, c))
        return sum_c(parts, const)

    def atom(self, atom: tuple, syms: Sequence[str], dims: Sequence[str]) -> tuple[str, Range]:
        """``(text, range)`` of one atom."""
        if atom[0] == "d":
            return dims[atom[1]], self.dim_ranges[atom[1]]
        if atom[0] == "s":
            return syms[atom[1]], self.sym_ranges[atom[1]]
        it, ir_ = self.expr(atom[1], syms, dims)
        return div_c(atom[0], it, ir_, atom[2])


def div_c(kind: str, t: str, r: Range, k: int) -> tuple[str, Range]:
    """``floordiv``/``mod`` (``kind``) of ``t`` (range ``r``) by a positive constant ``k``.

    A power of two is a shift or a mask: floor semantics for either sign (an
    arithmetic shift and two's complement). Otherwise a non-negative operand
    is divided unsigned (no sign fix-up), and anything else calls the
    64-bit floor helpers.
    """
    out = floordiv_range(r, k) if kind == "floordiv" else mod_range(r, k)
    if out.is_point:
        return _lit(out.lo), out
    if kind == "mod" and r.lo // k == r.hi // k:  # one period: t minus a constant
        q = (r.lo // k) * k
        return (t if q == 0 else f"({plus(t, r, -q)})"), out
    if is_pow2(k):
        op = f">> {k.bit_length() - 1}" if kind == "floordiv" else f"& {k - 1}"
        return f"({t} {op})", out
    c_op = "/" if kind == "floordiv" else "%"
    if r.nonneg:
        if r.within(I32):
            return f"(int)((unsigned){_paren(t)} {c_op} {k}u)", out
        return f"(int64_t)((uint64_t){_paren(t)} {c_op} {k}u)", out
    return f"tc_{'fdiv' if kind == 'floordiv' else 'fmod'}({t}, {k})", out


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
          "i64": 8, "u8": 1, "u16": 2, "u32": 4, "index": 8}


def _linear_forms(m: ir.IndexMap, dims: Sequence[ir.AffineExpr], sym_divs: Sequence[int],
                  width: int) -> list[tuple[ir.AffineExpr, int]] | None:
    """``linear_in`` of every result of ``m`` at ``dims``; None when one is not linear."""
    out = []
    for r in m.results:
        lin = linear_in(r.substitute(dims), sym_divs, width)
        if lin is None:
            return None
        out.append(lin)
    return out


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

    def __init__(self, buf: IndentedBuffer, fresh: Callable[[str], str],
                 narrow_extent: Callable[[str], str | None] | None = None) -> None:
        self.buf = buf
        """Output."""
        self.fresh = fresh
        """Fresh C identifiers."""
        self.narrow_extent = narrow_extent
        """A size parameter's name -> a 32-bit copy saturated at ``INT32_MAX`` (None: none)."""
        self.vector_chunks = 0
        """Statistics: chunks emitted with a 16-byte path."""
        self.scalar_elems = 0
        """Statistics: elements emitted with scalar accesses only."""
        self.narrow = False
        """Chunks narrower than 16 bytes (4 or 8) where a register array's last extent is
        not a multiple of a 16-byte vector (the callbacks then get ``w`` elements of
        fewer bytes)."""
        self.runtime_aligned: Callable[[MemRef, str], str] | None = None
        """``(ref, element offset) ->`` the C condition that ``ref.ptr + offset`` is 16-byte
        aligned, where alignment is not provable statically (None: ``tc_aligned16`` of the
        address, for targets that can inspect a pointer's bits)."""

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
        coords = _linear_forms(ref.map, dims, ref.sym_divs, w)
        if coords is None or any(k != 0 for _, k in coords[:-1]) or coords[-1][1] != 1:
            return None
        levels = []
        for lv in ref.levels:
            forms = _linear_forms(lv.map, dims, lv.sym_divs, w)
            if forms is None:
                return None
            levels.append(forms)
        ok = divisor(coords[-1][0], ref.sym_divs) % w == 0
        for (b, _), sd in zip(coords[:-1], ref.stride_divs[:-1]):
            ok = ok and (divisor(b, ref.sym_divs) * sd) % w == 0
        return coords, levels, ok

    def _address_parts(self, ref: MemRef, coords: Sequence[ir.AffineExpr]
                       ) -> tuple[list[tuple[str, Range]], int]:
        """The terms ``(text, range)`` and the constant of the element offset of base
        coordinates ``coords``. A coordinate's constant is multiplied out on its own
        (``x*s + 32*s``, not ``(x + 32)*s``), so accesses that differ by constant offsets,
        like the chunks of one thread, share the product ``x*s``."""
        iw = IndexWriter(_pad(ref.sym_ranges, len(ref.syms)))
        terms = []
        const = 0
        for c, st in zip(coords, ref.strides):
            k = c.constant
            cs, cr = iw.expr(ir.AffineExpr(c.terms, 0) if k else c, ref.syms)
            if cs != "0":
                terms.append(scale_c(cs, cr, int(st)) if st.isdigit() else
                             scale_c(cs, cr, st, SIZE))
            if k and st.isdigit():
                const += k * int(st)
            elif k:  # a symbolic stride is an int64_t size parameter
                terms.append((st if k == 1 else f"{st} * {_lit(k)}", Range.point(k) * SIZE))
        return terms, const

    def _address(self, ref: MemRef, coords: Sequence[ir.AffineExpr]) -> tuple[str, Range]:
        """The element offset of base coordinates ``coords``, and its range."""
        terms, const = self._address_parts(ref, coords)
        text, r = sum_c(terms, const)
        return (text[1:-1] if text.startswith("(") and _closes_at_end(text) and
                len(terms) > 1 else text), r

    def bound_conds(self, v: str, r: Range, k_lo: int, k_hi: int, ext: str,
                    ext_nonneg: bool = True) -> list[str] | None:
        """``v + k_lo >= 0 && v + k_hi < ext`` for ``v`` of range ``r``, leaving out what the
        range decides (None: the conjunction is false for every value). ``ext`` is an
        extent (never negative) unless ``ext_nonneg`` is False."""
        lo, hi = r + Range.point(k_lo), r + Range.point(k_hi)
        conds = []
        if lo.hi < 0:
            return None
        if lo.lo < 0:
            conds.append(f"{plus(v, r, k_lo)} >= 0")
        if ext.isdigit():
            n = int(ext)
            if hi.lo >= n:
                return None
            if hi.hi >= n:
                conds.append(f"{plus(v, r, k_hi)} < {ext}")
        elif hi.hi >= 0 or not ext_nonneg:
            e = ext
            if self.narrow_extent is not None and ext_nonneg and \
                    hi.within(Range(I32.lo, I32.hi - 1)):
                e = self.narrow_extent(ext) or ext
            conds.append(f"{plus(v, r, k_hi)} < {e}")
        return conds

    @staticmethod
    def _split(e: ir.AffineExpr, iw: IndexWriter, syms: Sequence[str], k_lo: int, k_hi: int
               ) -> tuple[tuple[str, Range], str] | None:
        """``e = wide + narrow`` with ``wide`` the terms that may leave 32 bits (non-negative)
        and ``narrow + k`` inside ``[INT32_MIN, INT32_MAX - 1]`` for ``k`` in ``[k_lo, k_hi]``:
        ``((narrow text, range), wide text)``, or None when ``e`` does not split so.

        Then ``e + k < ext`` is ``narrow + k < tc_sat32(ext - wide)`` (``ext - wide`` cannot
        overflow: both are non-negative), one 32-bit comparison per element instead of a
        64-bit one, and the limit is shared by the elements of a chunk.
        """
        wide, narrow = [], []
        for atom, c in e.terms:
            r = affine_range(ir.AffineExpr(((atom, c),), 0), iw.sym_ranges)
            (narrow if r.within(I32) else wide).append((atom, c))
        if not wide:
            return None
        w = ir.AffineExpr(wide, 0)
        n = ir.AffineExpr(narrow, e.constant)
        nr = affine_range(n, iw.sym_ranges)
        if not affine_range(w, iw.sym_ranges).nonneg or \
                not Range(nr.lo + k_lo, nr.hi + k_hi).within(Range(I32.lo, I32.hi - 1)):
            return None
        return iw.expr(n, syms), iw.expr(w, syms)[0]

    def _valid(self, ref: MemRef, dims: Sequence[ir.AffineExpr]) -> str:
        conds = []
        for lv in ref.levels:
            iw = IndexWriter(_pad(lv.sym_ranges, len(lv.syms)))
            for r, ext in zip(lv.map.results, lv.extents):
                c = r.substitute(dims)
                cs, cr = iw.expr(c, lv.syms)
                if cr.is_point:
                    cs = _lit(cr.lo)
                    got = self.bound_conds(cs, cr, 0, 0, ext)
                else:
                    got = self.bound_conds("x", cr, 0, 0, ext)
                    if got:
                        v = self.fresh("c")
                        self.buf.line(f"const {ctype_of(cr)} {v} = {cs};")
                        got = self.bound_conds(v, cr, 0, 0, ext)
                if got is None:
                    return "false"
                conds.extend(got)
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
        widths = self.chunk_widths(ref.dtype, shape) if on_vector is not None else []
        b = self.buf
        i = 0
        while i < n:
            plan, w = None, 1
            for w in widths:
                if i % w == 0 and i + w <= n:
                    plan = self._chunk_plan(ref, shape, i, w)
                    if plan is not None:
                        break
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
                at, ar = self._address(ref, [c for c, _ in coords])
                b.line(f"const {ctype_of(ar)} {a} = {at};")
                conds: list[str] = []
                elem_conds: list[tuple[str, Range, int, str, bool]] = []
                never = False
                for lv, forms in zip(ref.levels, levels):
                    iw = IndexWriter(_pad(lv.sym_ranges, len(lv.syms)))
                    for (base, k), ext in zip(forms, lv.extents):
                        cs, cr = iw.expr(base, lv.syms)
                        span = k * (w - 1)
                        whole = self.bound_conds("x", cr, min(0, span), max(0, span), ext)
                        never = never or whole is None
                        if whole == [] or all(self.bound_conds("x", cr, k * e, k * e, ext)
                                              is None for e in range(w)):
                            # always valid, or never: no variable is read
                            elem_conds.append((_lit(cr.lo), cr, k, ext, True))
                            continue
                        # x + narrow < ext with x wide and non-negative: narrow < sat(ext - x)
                        split = self._split(base, iw, lv.syms, min(0, span), max(0, span))
                        lim_nonneg = split is None
                        if split is not None:
                            (cs, cr), wide = split
                            lim = self.fresh("lim")
                            b.line(f"const int {lim} = tc_sat32({ext} - {_paren(wide)});")
                            ext = lim
                        v = self.fresh("c")
                        b.line(f"const {ctype_of(cr)} {v} = {cs};")
                        conds.extend(self.bound_conds(v, cr, min(0, span), max(0, span), ext,
                                                      lim_nonneg) or [])
                        elem_conds.append((v, cr, k, ext, lim_nonneg))
                ptr = f"{ref.ptr} + {ref.at(a)}"
                if static_ok:
                    if ref.aligned != "true":
                        conds.append(ref.aligned)
                elif self.runtime_aligned is not None:
                    conds.append(self.runtime_aligned(ref, ref.at(a)))
                elif w * elem_bytes(ref.dtype) == 16:
                    conds.append(f"tc_aligned16({ptr})")
                else:
                    conds.append(f"tc_aligned<{w * elem_bytes(ref.dtype)}>({ptr})")
                vec = on_vector(ptr, i, w)
                if not conds and not never:
                    b.lines_of(vec)
                else:
                    if not never:
                        with b.block(f"if ({' && '.join(conds)})"):
                            b.lines_of(vec)
                    with b.block("else" if not never else ""):
                        for e in range(w):
                            self._element(ref, a, ar, e, i + e, elem_conds, on_elem, on_invalid)
            i += w

    def chunk_widths(self, dtype: ir.ScalarType, shape: Sequence[int]) -> list[int]:
        """The elements per vector chunk to try, widest first, for a ``shape`` register
        array of ``dtype``: a 16-byte vector's, and with ``narrow`` the powers of two below
        it down to 4 bytes (at least 2 elements); only those dividing the last extent."""
        eb = elem_bytes(dtype)
        w = 16 // eb
        out = []
        while w > 1 and w * eb >= 4 and shape:
            if shape[-1] % w == 0:
                out.append(w)
            if not self.narrow:
                break
            w //= 2
        return out

    def _element(self, ref: MemRef, a: str, ar: Range, e: int, i: int,
                 elem_conds: Sequence[tuple[str, Range, int, str, bool]],
                 on_elem: Callable[[str, int], str], on_invalid: Callable[[int], str] | None
                 ) -> None:
        """Element ``e`` of a chunk at offset ``a``, guarded by its own coordinates."""
        conds: list[str] | None = []
        for v, cr, k, ext, nonneg in elem_conds:
            got = self.bound_conds(v, cr, k * e, k * e, ext, nonneg)
            conds = None if got is None or conds is None else conds + got
        stmt = on_elem(f"{ref.ptr}[{ref.at(plus(a, ar, e))}]", i)
        miss = on_invalid(i) if on_invalid is not None else ""
        if conds is None:
            if miss:
                self.buf.line(miss)
        elif not conds:
            self.buf.line(stmt)
        else:
            self.buf.line(f"if ({' && '.join(conds)}) {stmt}" + (f" else {miss}" if miss else ""))

    def _scalar(self, ref: MemRef, shape: Sequence[int], i: int,
                on_elem: Callable[[str, int], str], on_invalid: Callable[[int], str] | None
                ) -> None:
        dims = self._dims(shape, i, False)
        valid = self._valid(ref, dims)
        coords = [r.substitute(dims) for r in ref.map.results]
        stmt = on_elem(f"{ref.ptr}[{ref.at(self._address(ref, coords)[0])}]", i)
        miss = on_invalid(i) if on_invalid is not None else ""
        if valid == "true":
            self.buf.line(stmt)
        elif valid == "false":
            if miss:
                self.buf.line(miss)
        else:
            self.buf.line(f"if ({valid}) {stmt}" + (f" else {miss}" if miss else ""))

    def address_of_first(self, ref: MemRef) -> str:
        """The C expression of the (physical) element offset of view element 0 (no guard).

        In a swizzled buffer the constant's whole swizzle blocks are added after the swizzle
        (which permutes inside a block only), so copies that differ by such blocks share the
        swizzled part."""
        coords = self._first_coords(ref)
        if not ref.swizzle:
            return self._address(ref, coords)[0]
        terms, const = self._address_parts(ref, coords)
        block = SWIZZLE_ALIGN // elem_bytes(ref.dtype)
        inner = sum_c(terms, const % block)[0]
        outer = const - const % block
        return f"{ref.at(inner)} + {outer}" if outer else ref.at(inner)

    def first_parts(self, ref: MemRef) -> tuple[str, int]:
        """The element offset of view element 0 before any swizzle (a matrix descriptor's
        start: the hardware applies the swizzle itself), as (C expression of the
        non-constant part, constant)."""
        terms, const = self._address_parts(ref, self._first_coords(ref))
        return sum_c(terms)[0], const

    @staticmethod
    def _first_coords(ref: MemRef) -> list[ir.AffineExpr]:
        dims = [ir.AffineExpr((), 0)] * ref.map.n_dims
        return [r.substitute(dims) for r in ref.map.results]
