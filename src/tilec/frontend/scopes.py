"""Definition environments and the capture set algebra (seed 001, "Capture algorithm").

Capture keeps one *definition environment* per structured region: a map from
each Python local to what it denotes at the current point (see
``values.py``). When a region closes, capture compares the incoming and
outgoing environments using sets computed here from the function's AST by
control-flow data-flow analysis, never by textual scans:

* ``written(stmts)``: locals assigned on some path inside the region;
* ``read_before_def(stmts, defined)``: locals read at a point that is not
  dominated by an in-region definition on every reaching path (a forward
  must-analysis: definite assignment; ``break``/``continue``/``return`` make the
  rest of their block unreachable, so they do not weaken it);
* ``live_after(stmt)``: locals whose current value may still be read after
  ``stmt`` (a backward may-analysis over the structured statements, with
  ``break`` and ``continue`` edges and loop back edges iterated to a fixed
  point).

The four sets of the seed are then plain set algebra over those, kept in
the order of first assignment so block arguments are numbered stably::

    loop_carried    = read_before_def_inside ∩ written_inside
    region_result   = written_inside ∩ live_after
    ancestor_update = written_inside ∩ declared_in_ancestor_scope
    reduction_state = written_inside ∩ declared_outside_region

``break``/``continue`` inside a counted loop are modelled as writes of two
hidden locals per loop (``exit_flags``) that capture carries like any other
state; their names cannot collide with Python identifiers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

__all__ = ["FunctionSets", "loop_carried", "region_result", "ancestor_update",
           "reduction_state", "ordered"]


def ordered(names: Iterable[str], keep: set[str] | frozenset[str]) -> list[str]:
    """``names`` (in order, without duplicates) restricted to ``keep``."""
    out: list[str] = []
    for n in names:
        if n in keep and n not in out:
            out.append(n)
    return out


def loop_carried(read_before_def: Iterable[str], written: Sequence[str]) -> list[str]:
    """``read_before_definition_inside ∩ written_inside``, in order of first write."""
    return ordered(written, set(read_before_def))


def region_result(written: Sequence[str], live_after: Iterable[str]) -> list[str]:
    """``written_inside ∩ live_after``, in order of first write."""
    return ordered(written, set(live_after))


def ancestor_update(written: Sequence[str], declared_in_ancestor: Iterable[str]) -> list[str]:
    """``written_inside ∩ declared_in_ancestor_scope``, in order of first write."""
    return ordered(written, set(declared_in_ancestor))


def reduction_state(written: Sequence[str], declared_outside: Iterable[str]) -> list[str]:
    """``written_inside ∩ declared_outside_region``, in order of first write."""
    return ordered(written, set(declared_outside))


# ------------------------------------------------------------------ AST helpers


def _target_names(t: ast.AST) -> list[str]:
    """Names a target binds completely (``x``, ``x, y``); subscripts bind nothing whole."""
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _target_names(e)]
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    return []


def _partial_names(t: ast.AST) -> list[str]:
    """Names a target updates in part (``acc[0:8, :] = ...`` updates ``acc``)."""
    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
        return [t.value.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _partial_names(e)]
    return []


def _reads(node: ast.AST | None) -> list[str]:
    """Names loaded anywhere in an expression (free names of nested lambdas included)."""
    if node is None:
        return []
    out: list[str] = []
    bound: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Lambda):
            bound.update(a.arg for a in sub.args.args)
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in bound:
            out.append(sub.id)
    return out


def _target_reads(t: ast.AST) -> list[str]:
    """Names an assignment target reads (the indices and base of a subscript)."""
    if isinstance(t, ast.Subscript):
        return _reads(t.value) + _reads(t.slice)
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _target_reads(e)]
    return []


def _def_reads(node: ast.FunctionDef) -> list[str]:
    params = {a.arg for a in node.args.args}
    return [n for s in node.body for n in _reads_stmt_all(s) if n not in params]


def _reads_stmt_all(s: ast.stmt) -> list[str]:
    return [n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


_TOP = None  # "unreachable": the identity of the definite-assignment meet


class FunctionSets:
    """The data-flow facts of one kernel (or ``tc.func``) body, computed once."""

    def __init__(self, fn: ast.FunctionDef) -> None:
        self.fn = fn
        """The analysed function."""
        self.params = [a.arg for a in fn.args.args]
        """Parameter names."""
        self.loop_of: dict[int, ast.For] = {}
        """``id(Break/Continue node)`` -> the loop it leaves."""
        self.breaks: set[int] = set()
        """Ids of loops with a ``break`` of their own."""
        self.continues: set[int] = set()
        """Ids of loops with a ``continue`` of their own."""
        self.locals: set[str] = set(self.params)
        """Every name the function binds (parameters, assignment and loop targets, defs)."""
        self.live_after_: dict[int, frozenset[str]] = {}
        """``id(stmt)`` -> locals live after it."""
        self.head_live: dict[int, frozenset[str]] = {}
        """``id(loop)`` -> locals live at the loop head (entry of each iteration's test)."""
        self._loop_stack: list[tuple[ast.For, set[str]]] = []
        self._collect(fn.body, None)
        self._live_in(fn.body, set())

    # -- structure ---------------------------------------------------------------------
    def _collect(self, stmts: Sequence[ast.stmt], loop: ast.For | None) -> None:
        for s in stmts:
            for t in getattr(s, "targets", []) + [getattr(s, "target", None)]:
                if t is not None:
                    self.locals.update(_target_names(t))
            if isinstance(s, ast.FunctionDef):
                self.locals.add(s.name)
                continue
            if isinstance(s, (ast.Break, ast.Continue)) and loop is not None:
                self.loop_of[id(s)] = loop
                (self.breaks if isinstance(s, ast.Break) else self.continues).add(id(loop))
            if isinstance(s, ast.For):
                self._collect(s.body, s)
                self._collect(s.orelse, loop)
            elif isinstance(s, (ast.If, ast.While, ast.With)):
                self._collect(s.body, loop if not isinstance(s, ast.While) else None)
                self._collect(getattr(s, "orelse", []), loop)

    @staticmethod
    def exit_flags(loop: ast.For) -> tuple[str, str]:
        """Hidden locals ``(broken, continued)`` lowering ``break``/``continue`` of ``loop``."""
        tag = f"{loop.lineno}_{loop.col_offset}"
        return (f"@break{tag}", f"@continue{tag}")

    def has_exits(self, loop: ast.For) -> bool:
        """True when ``loop``'s own body contains ``break`` or ``continue``."""
        return id(loop) in self.breaks or id(loop) in self.continues

    # -- written --------------------------------------------------------------------------
    def written(self, stmts: Sequence[ast.stmt]) -> list[str]:
        """Locals assigned (wholly or in part) on some path in ``stmts``, first write first.

        Includes the exit flags of loops that enclose ``stmts`` when a
        ``break``/``continue`` inside leaves them.
        """
        out: list[str] = []
        self._written(stmts, set(), out)
        return out

    def _written(self, stmts: Sequence[ast.stmt], inner: set[int], out: list[str]) -> None:
        def add(names: Iterable[str]) -> None:
            for n in names:
                if n not in out:
                    out.append(n)

        for s in stmts:
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in targets:
                    add(_target_names(t))
                    add(_partial_names(t))
            elif isinstance(s, ast.For):
                add(_target_names(s.target))
                self._written(s.body, inner | {id(s)}, out)
                self._written(s.orelse, inner, out)
            elif isinstance(s, ast.If):
                self._written(s.body, inner, out)
                self._written(s.orelse, inner, out)
            elif isinstance(s, ast.FunctionDef):
                add([s.name])
            elif isinstance(s, (ast.Break, ast.Continue)):
                loop = self.loop_of.get(id(s))
                if loop is not None and id(loop) not in inner:
                    brk, cont = self.exit_flags(loop)
                    add([brk if isinstance(s, ast.Break) else cont])

    # -- definite assignment -----------------------------------------------------------------
    def read_before_def(self, stmts: Sequence[ast.stmt], defined: Iterable[str] = ()
                        ) -> dict[str, ast.AST]:
        """Locals read where no in-region definition reaches on every path -> first such read.

        ``defined`` are names bound at region entry by the region itself (a
        loop's target).
        """
        out: dict[str, ast.AST] = {}
        self._rbd(stmts, set(defined), out)
        return out

    def _note(self, node: ast.AST | None, d: set[str], out: dict[str, ast.AST],
              skip: Iterable[str] = ()) -> None:
        if node is None:
            return
        skip = set(skip)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) \
                    and sub.id not in d and sub.id not in skip and sub.id in self.locals:
                out.setdefault(sub.id, sub)

    def _rbd(self, stmts: Sequence[ast.stmt], d: set[str] | None, out: dict[str, ast.AST]
             ) -> set[str] | None:
        for s in stmts:
            if d is _TOP:
                return _TOP
            d = self._rbd_stmt(s, d, out)
        return d

    def _rbd_stmt(self, s: ast.stmt, d: set[str], out: dict[str, ast.AST]) -> set[str] | None:
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            self._note(s.value, d, out)
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                if isinstance(t, ast.Subscript):
                    self._note(t, d, out)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    for e in t.elts:
                        if isinstance(e, ast.Subscript):
                            self._note(e, d, out)
            for t in targets:
                d = d | set(_target_names(t))
            return d
        if isinstance(s, ast.AugAssign):
            self._note(s.value, d, out)
            self._note(s.target, d, out)
            if isinstance(s.target, ast.Name) and s.target.id not in d \
                    and s.target.id in self.locals:
                out.setdefault(s.target.id, s.target)
            return d | set(_target_names(s.target))
        if isinstance(s, ast.If):
            self._note(s.test, d, out)
            a = self._rbd(s.body, set(d), out)
            b = self._rbd(s.orelse, set(d), out)
            if a is _TOP:
                return b
            if b is _TOP:
                return a
            return a & b
        if isinstance(s, ast.For):
            self._note(s.iter, d, out)
            self._rbd(s.body, d | set(_target_names(s.target)), out)
            return d
        if isinstance(s, (ast.Break, ast.Continue)):
            return _TOP
        if isinstance(s, ast.Return):
            self._note(s.value, d, out)
            return _TOP
        if isinstance(s, ast.FunctionDef):
            params = [a.arg for a in s.args.args]
            for sub in s.body:
                self._note(sub, d, out, skip=params)
            return d | {s.name}
        self._note(s, d, out)
        return d

    # -- liveness -------------------------------------------------------------------------
    def live_after(self, stmt: ast.stmt) -> frozenset[str]:
        """Locals whose value may be read after ``stmt`` (before being reassigned)."""
        return self.live_after_.get(id(stmt), frozenset())

    def live_in(self, stmts: Sequence[ast.stmt], live_out: Iterable[str]) -> set[str]:
        """Locals live at the start of ``stmts`` given those live at its end (no recording)."""
        saved = dict(self.live_after_), dict(self.head_live)
        try:
            return self._live_in(stmts, set(live_out))
        finally:
            self.live_after_, self.head_live = saved

    def _live_in(self, stmts: Sequence[ast.stmt], live_out: set[str]) -> set[str]:
        live = set(live_out)
        for s in reversed(stmts):
            self.live_after_[id(s)] = frozenset(live)
            live = self._live_stmt(s, live)
        return live

    def _live_stmt(self, s: ast.stmt, out: set[str]) -> set[str]:
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            kills = {n for t in targets for n in _target_names(t)}
            reads = _reads(s.value) + [n for t in targets for n in _target_reads(t)]
            return (out - kills) | set(reads)
        if isinstance(s, ast.AugAssign):
            return out | set(_target_names(s.target)) | set(_reads(s.value)) \
                | set(_target_reads(s.target))
        if isinstance(s, ast.If):
            return set(_reads(s.test)) | self._live_in(s.body, out) | self._live_in(s.orelse, out)
        if isinstance(s, ast.For):
            targets = set(_target_names(s.target))
            head = set(out)
            self._loop_stack.append((s, head))
            try:
                while True:
                    self._loop_stack[-1] = (s, head)
                    body_in = self._live_in(s.body, head)
                    new = out | (body_in - targets)
                    if new == head:
                        break
                    head = new
            finally:
                self._loop_stack.pop()
            self.head_live[id(s)] = frozenset(head)
            return set(_reads(s.iter)) | head
        if isinstance(s, ast.Break):
            loop = self.loop_of.get(id(s))
            return set(self.live_after_.get(id(loop), frozenset())) if loop is not None else set()
        if isinstance(s, ast.Continue):
            for loop, head in reversed(self._loop_stack):
                if loop is self.loop_of.get(id(s)):
                    return set(head)
            return set()
        if isinstance(s, ast.Return):
            return set(_reads(s.value))
        if isinstance(s, ast.FunctionDef):
            return (out - {s.name}) | set(_def_reads(s))
        return out | set(_reads_stmt_all(s))
