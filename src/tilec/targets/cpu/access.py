"""Addressed accesses: views as composed index maps, and the copy loops of load/store/reindex.

A ``ViewRef`` is what a ``mem`` value is at emission time: a base pointer,
the base's row-major strides, the composed ``IndexMap`` from view
coordinates to base coordinates (with the C expressions of its symbols) and
the list of validity constraints contributed by every ``bounded`` view in
the chain (each one a map from view coordinates to the coordinates of the
level it was cut from, and that level's extents).

Copy loops come in two shapes:

* the **box** form, when every map result is *separable* (``c * d_j +
  offset`` with at most one view coordinate and no floordiv/mod over view
  coordinates): the valid elements form a box ``[lo_j, hi_j)`` computed once,
  the address is affine in the loop indices, and the innermost loop is a
  plain strided (usually contiguous) copy that the C compiler vectorizes. The
  fill of the invalid elements is skipped when the box is the whole tile;
* the **guarded** form otherwise: every element evaluates its coordinates
  (with floor semantics) and its validity.

An access that leaves a ``total`` level is an error (``TC_ERR_VIEW``) found
before the access reads or writes anything: from the box in the box form,
by a first pass over the elements in the guarded form. The function then
leaves as after a failed check (the emitter's ``leave``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import tilec.ir as ir
from tilec.targets.clike import IndentedBuffer, prod

__all__ = ["Level", "ViewRef", "affine_c", "separable", "CopyLoops", "prod"]


@dataclass(frozen=True)
class Level:
    """A validity constraint: ``map(view coords)`` must lie inside ``extents``."""

    map: ir.IndexMap
    """View coordinates -> coordinates of the level the view was cut from."""
    syms: tuple[str, ...]
    """C expressions of the map's symbols."""
    extents: tuple[str, ...]
    """C expressions of that level's extents."""
    total: bool = False
    """True for a ``total`` view: leaving the level is an error, not an invalid element."""
    op_id: int = 0
    """The ``view`` operation that added the level (named by the error)."""


@dataclass(frozen=True)
class ViewRef:
    """A memory value at emission time: base pointer + composed map + validity levels."""

    ptr: str
    """C expression of the base's first element (typed pointer)."""
    dtype: ir.ScalarType
    """Element type."""
    extents: tuple[str, ...]
    """C expressions of this view's own extents."""
    map: ir.IndexMap
    """View coordinates -> base coordinates."""
    syms: tuple[str, ...]
    """C expressions of ``map``'s symbols."""
    strides: tuple[str, ...]
    """C expressions of the base's row-major element strides."""
    checks: tuple[Level, ...]
    """Validity constraints (empty: every element is valid)."""
    root: ir.Value
    """The base memory value (a function parameter or a ``memory`` result)."""

    def sub(self, m: ir.IndexMap, syms: Sequence[str], extents: Sequence[str],
            bounded: bool, op_id: int = 0) -> ViewRef:
        """The view ``self[m(i, syms)]`` with ``extents``, checked against this view's extents.

        ``bounded``: elements outside are invalid (filled / dropped); otherwise
        (``total``) reaching outside is a runtime error.
        """
        syms = tuple(syms)
        checks = tuple(Level(c.map.compose(m), c.syms + syms, c.extents, c.total, c.op_id)
                       for c in self.checks)
        checks += (Level(m, syms, self.extents, not bounded, op_id),)
        return ViewRef(self.ptr, self.dtype, tuple(extents), self.map.compose(m),
                       self.syms + syms, self.strides, checks, self.root)


def affine_c(e: ir.AffineExpr, dims: Sequence[str], syms: Sequence[str]) -> str:
    """``e`` as a C ``int64_t`` expression (floordiv/mod with floor semantics).

    Dimensions and symbols are ``int64_t`` values, so every term is; a constant alone is
    written as an ``int64_t`` literal, else ``4 * 1073741824`` (a constant origin times a
    static stride) would be computed in ``int`` and wrap.
    """
    if not e.terms:
        return f"INT64_C({e.constant})" if e.constant >= 0 else \
            f"(-INT64_C({-(e.constant + 1)}) - 1)"
    parts: list[str] = []
    for atom, c in e.terms:
        if atom[0] == "d":
            a = dims[atom[1]]
        elif atom[0] == "s":
            a = f"({syms[atom[1]]})"
        elif atom[0] == "floordiv":
            a = f"tc_fdiv({affine_c(atom[1], dims, syms)}, {atom[2]})"
        else:
            a = f"tc_fmod({affine_c(atom[1], dims, syms)}, {atom[2]})"
        parts.append(a if c == 1 else f"{a} * {c}" if c > 0 else f"{a} * ({c})")
    if e.constant or not parts:
        parts.append(f"({e.constant})" if e.constant < 0 else str(e.constant))
    return "(" + " + ".join(parts) + ")"


def separable(e: ir.AffineExpr) -> tuple[int | None, int, ir.AffineExpr] | None:
    """``(j, c, rest)`` when ``e = c * d_j + rest`` with ``rest`` free of view coordinates.

    ``j`` is None when ``e`` reads no view coordinate. None when ``e`` is not of
    that form (two coordinates, or a coordinate under floordiv/mod).
    """
    j: int | None = None
    coef = 0
    rest: list[tuple[tuple, int]] = []
    for atom, c in e.terms:
        if atom[0] == "d":
            if j is not None:
                return None
            j, coef = atom[1], c
        elif atom[0] in ("floordiv", "mod") and atom[1].max_dim() > 0:
            return None
        else:
            rest.append((atom, c))
    return j, coef, ir.AffineExpr(rest, e.constant)


class CopyLoops:
    """Writes the loop nests of element-wise accesses through a ``ViewRef``."""

    def __init__(self, buf: IndentedBuffer, fresh: Callable[[str], str],
                 leave: Callable[[], None]) -> None:
        self.buf = buf
        """Output."""
        self.fresh = fresh
        """Fresh C identifiers."""
        self.leave = leave
        """Writes the exit after a failure (out of the function, or to the end of the
        outermost instance)."""

    # -- analysis -------------------------------------------------------------------
    @staticmethod
    def box_form(view: ViewRef) -> bool:
        """True when every check and the address map are separable (the box form applies)."""
        maps = [view.map] + [c.map for c in view.checks]
        return all(separable(r) is not None for m in maps for r in m.results)

    def _bounds(self, levels: Sequence[Level], shape: Sequence[int], idx: Sequence[str]
                ) -> tuple[list[str], list[str], str]:
        """Emit lo/hi per axis and the whole-tile condition; returns (lo, hi, ok) C names."""
        b = self.buf
        rank = len(shape)
        lo = [self.fresh("lo") for _ in range(rank)]
        hi = [self.fresh("hi") for _ in range(rank)]
        ok = self.fresh("ok")
        for j in range(rank):
            b.line(f"int64_t {lo[j]} = 0, {hi[j]} = {shape[j]};")
        b.line(f"int {ok} = 1;")
        for chk in levels:
            for r, ext in zip(chk.map.results, chk.extents):
                j, c, rest = separable(r)  # type: ignore[misc]
                off = affine_c(rest, idx, chk.syms)
                if j is None:
                    b.line(f"{ok} = {ok} && {off} >= 0 && {off} < ({ext});")
                elif c == 1:
                    b.line(f"{lo[j]} = tc_max_i({lo[j]}, -{off}); "
                           f"{hi[j]} = tc_min_i({hi[j]}, ({ext}) - {off});")
                elif c > 0:
                    b.line(f"{lo[j]} = tc_max_i({lo[j]}, tc_cdiv_pos(-{off}, {c})); "
                           f"{hi[j]} = tc_min_i({hi[j]}, tc_fdiv(({ext}) - 1 - {off}, {c}) + 1);")
                else:
                    a = -c
                    b.line(f"{hi[j]} = tc_min_i({hi[j]}, tc_fdiv({off}, {a}) + 1); "
                           f"{lo[j]} = tc_max_i({lo[j]}, tc_cdiv_pos({off} - ({ext}) + 1, {a}));")
        return lo, hi, ok

    def _address(self, view: ViewRef, idx: Sequence[str]) -> str:
        """Hoist the affine address ``base + sum_j idx_j * step_j`` (box form)."""
        base_terms: list[str] = []
        steps: dict[int, list[str]] = {}
        for r, st in zip(view.map.results, view.strides):
            j, c, rest = separable(r)  # type: ignore[misc]
            off = affine_c(rest, idx, view.syms)
            base_terms.append(f"{off} * ({st})")
            if j is not None:  # in 64 bits: a static stride times a coefficient may leave int
                steps.setdefault(j, []).append(f"INT64_C({c}) * ({st})" if c != 1 else
                                               f"(int64_t)({st})")
        base = self.fresh("at")
        self.buf.line(f"const int64_t {base} = {' + '.join(base_terms) or '0'};")
        expr = [base]
        for j in sorted(steps):
            sname = self.fresh("st")
            self.buf.line(f"const int64_t {sname} = {' + '.join(steps[j])};")
            expr.append(f"{idx[j]} * {sname}")
        return " + ".join(expr)

    def _nest(self, lo: Sequence[str], hi: Sequence[str], idx: Sequence[str]) -> int:
        for j in range(len(idx)):
            self.buf.line(f"for (int64_t {idx[j]} = {lo[j]}; {idx[j]} < {hi[j]}; ++{idx[j]})")
        return len(idx)

    @staticmethod
    def flat(idx: Sequence[str], shape: Sequence[int]) -> str:
        """Row-major flat index of a static-shape tile."""
        if not idx:
            return "0"
        terms = []
        stride = 1
        for j in reversed(range(len(shape))):
            terms.append(idx[j] if stride == 1 else f"{idx[j]} * {stride}")
            stride *= int(shape[j])
        return " + ".join(reversed(terms))

    # -- the three access kinds ---------------------------------------------------------
    def _total_guard(self, view: ViewRef, shape: Sequence[int], idx: Sequence[str]
                     ) -> str | None:
        """Box form: a C flag that is 1 when some element leaves a ``total`` level (an error).

        A ``total`` level checks only the elements that reach it: those valid in
        every ``bounded`` level of the views cut from it later (a window of
        ``X.T`` that crosses an edge of ``X.T`` never reads through ``X.T``
        there). So for each total level, the box of those later bounded levels
        must lie inside it, or be empty. The newest level that fails is reported, as
        the reference does.
        """
        flags: list[str] = []
        for k, chk in reversed(list(enumerate(view.checks))):
            if not chk.total:
                continue
            later = [c for c in view.checks[k + 1:] if not c.total]
            lo, hi, ok = self._bounds(later, shape, idx)
            lo_k, hi_k, ok_k = self._bounds([*later, chk], shape, idx)
            reached = " && ".join([ok] + [f"{lo[j]} < {hi[j]}" for j in range(len(shape))])
            inside = " && ".join([ok_k] + [f"{lo_k[j]} == {lo[j]} && {hi_k[j]} == {hi[j]}"
                                           for j in range(len(shape))])
            bad = self.fresh("bad")
            self.buf.line(f"const int {bad} = ({reached}) && !({inside});")
            with self.buf.block(f"if (__builtin_expect({bad}, 0))"):
                self.buf.line(f"tc_fail(tc_st, TC_ERR_VIEW, {chk.op_id});")
                self.leave()
            flags.append(bad)
        if not flags:
            return None
        if len(flags) == 1:
            return flags[0]
        bad = self.fresh("bad")
        self.buf.line(f"const int {bad} = {' || '.join(flags)};")
        return bad

    def read(self, view: ViewRef, shape: Sequence[int], dst: str, convert: str,
             fill: str | None, on_invalid: str | None = None) -> None:
        """``dst[i] = convert(view[i])`` for valid ``i``; ``fill`` elsewhere.

        ``on_invalid``, when given, is a C statement run when some element is
        invalid. An element outside a ``total`` level is a view error, found
        before anything is read.
        """
        b = self.buf
        rank = len(shape)
        n = prod(shape)
        idx = [self.fresh("i") for _ in range(rank)]
        bounded = [c for c in view.checks if not c.total]
        with b.block(""):
            if self.box_form(view):
                bad = self._total_guard(view, shape, idx)
                if bounded:
                    lo, hi, ok = self._bounds(bounded, shape, idx)
                    full = " && ".join([ok] + [f"{lo[j]} == 0 && {hi[j]} == {shape[j]}"
                                               for j in range(rank)])
                else:
                    lo, hi, ok, full = ["0"] * rank, [str(x) for x in shape], "1", "1"
                if bad is not None:
                    full = f"!{bad} && {full}"
                    ok = f"!{bad} && {ok}"
                if full != "1":
                    with b.block(f"if (!({full}))"):
                        if fill is not None:
                            b.line(f"for (int64_t e = 0; e < {n}; ++e) {dst}[e] = {fill};")
                        if on_invalid is not None and n > 0:
                            b.line(on_invalid)
                with b.block(f"if ({ok})"):
                    addr = self._address(view, idx)
                    self._nest(lo, hi, idx)
                    b.line(f"  {dst}[{self.flat(idx, shape)}] = "
                           f"{convert.format(view.ptr + '[' + addr + ']')};")
                return
            self._scan_totals(view, shape)
            self._nest(["0"] * rank, [str(x) for x in shape], idx)
            with b.block(""):
                valid = self._valid(view, idx)
                at = self._general_addr(view, idx)
                f = self.flat(idx, shape)
                b.line(f"if ({valid}) {dst}[{f}] = {convert.format(view.ptr + '[' + at + ']')};")
                if fill is not None or on_invalid is not None:
                    with b.block("else"):
                        if fill is not None:
                            b.line(f"{dst}[{f}] = {fill};")
                        if on_invalid is not None:
                            b.line(on_invalid)

    def write(self, view: ViewRef, shape: Sequence[int], stmt: Callable[[str, str], str]) -> None:
        """Run ``stmt(mem_lvalue, tile_index)`` for every valid element of the view.

        An element outside a ``total`` level is a view error, found before anything
        is written.
        """
        b = self.buf
        rank = len(shape)
        idx = [self.fresh("i") for _ in range(rank)]
        bounded = [c for c in view.checks if not c.total]
        with b.block(""):
            if self.box_form(view):
                bad = self._total_guard(view, shape, idx)
                if bounded:
                    lo, hi, ok = self._bounds(bounded, shape, idx)
                else:
                    lo, hi, ok = ["0"] * rank, [str(x) for x in shape], "1"
                if bad is not None:
                    ok = f"!{bad} && {ok}"
                with b.block(f"if ({ok})"):
                    addr = self._address(view, idx)
                    self._nest(lo, hi, idx)
                    b.line("  " + stmt(f"{view.ptr}[{addr}]", self.flat(idx, shape)))
                return
            self._scan_totals(view, shape)
            self._nest(["0"] * rank, [str(x) for x in shape], idx)
            with b.block(""):
                valid = self._valid(view, idx)
                at = self._general_addr(view, idx)
                b.line(f"if ({valid}) " + stmt(f"{view.ptr}[{at}]", self.flat(idx, shape)))

    def _scan_totals(self, view: ViewRef, shape: Sequence[int]) -> None:
        """Guarded form: a first pass over the elements that fails (and leaves) when one of
        them leaves a ``total`` level, reporting the newest such level."""
        totals = [k for k, c in enumerate(view.checks) if c.total]
        if not totals:
            return
        b = self.buf
        flags = {k: self.fresh("bad") for k in totals}
        idx = [self.fresh("i") for _ in shape]
        with b.block(""):
            b.line("int " + ", ".join(f"{flags[k]} = 0" for k in totals) + ";")
            self._nest(["0"] * len(shape), [str(x) for x in shape], idx)
            with b.block(""):
                self._valid(view, idx, flags)
            for k in reversed(totals):
                with b.block(f"if ({flags[k]})"):
                    b.line(f"tc_fail(tc_st, TC_ERR_VIEW, {view.checks[k].op_id});")
                    self.leave()

    def _valid(self, view: ViewRef, idx: Sequence[str], flags: dict[int, str] | None = None
               ) -> str:
        """Per-element validity; with ``flags`` (level index -> C flag), leaving a ``total``
        level sets its flag.

        Levels are tested newest first, and a ``total`` level is an error only for
        an element valid in every newer level (one that the access reaches it with).
        """
        conds: list[str] = []
        for k, chk in reversed(list(enumerate(view.checks))):
            inside = []
            for r, ext in zip(chk.map.results, chk.extents):
                c = self.fresh("c")
                self.buf.line(f"const int64_t {c} = {affine_c(r, idx, chk.syms)};")
                inside.append(f"{c} >= 0 && {c} < ({ext})")
            cond = " && ".join(inside) or "1"
            if chk.total and flags is not None:
                flag = self.fresh("in")
                reached = " && ".join(f"({c})" for c in conds) or "1"
                self.buf.line(f"const int {flag} = {cond};")
                self.buf.line(f"if (({reached}) && !{flag}) {flags[k]} = 1;")
                cond = flag
            conds.append(cond)
        return " && ".join(f"({c})" for c in conds) or "1"

    @staticmethod
    def _general_addr(view: ViewRef, idx: Sequence[str]) -> str:
        terms = [f"{affine_c(r, idx, view.syms)} * ({st})"
                 for r, st in zip(view.map.results, view.strides)]
        return " + ".join(terms) or "0"
