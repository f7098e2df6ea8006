"""Structured regions of capture: ``if``, counted loops, pipelines, parallel nests, reductions.

``RegionCapture`` is the half of ``Capture`` that closes regions with the set
algebra of ``scopes.py`` (see ``capture.py`` for the whole story):

* counted loops (``serial``/``range``/``pipeline``) carry
  ``loop_carried ∪ region_result``, each local as its own block argument;
* ``if`` yields ``region_result``; a local assigned on one path only becomes
  ``Undefined`` and reading it is an error at the use;
* ``parallel`` turns ``ancestor_update`` locals into inits with entry
  snapshots and one located patch per instance;
* ``for e in tc.reduction(x, axis)`` turns ``reduction_state`` locals into the
  states of one ``reduce``.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.support import progress

from . import reductions, tiles
from .builtins import SURFACE as B
from .constants import ConstantRangeError, narrowest_int
from .loop_forms import bind_loop
from .scopes import (
    _target_names,
    ancestor_update,
    loop_carried,
    ordered,
    reduction_state,
    region_result,
)
from .values import (
    Affine,
    Elem,
    MemVal,
    ScalarVal,
    TileVal,
    Undefined,
    ViewTile,
    describe,
    is_number,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["RegionCapture"]


@dataclass
class _Loop:
    """A counted loop being captured (for ``break``/``continue``)."""

    node: ast.For
    kind: str
    flags: tuple[str, str]


@dataclass
class _Slot:
    """A tile declared outside a ``parallel`` nest and updated inside it."""

    name: str
    entry: ir.Value
    depth: int
    update: tuple[ir.Value, list[ir.Value]] | None = None
    where: ast.AST | None = None


@dataclass
class _Par:
    """A parallel nest being captured."""

    slots: dict[str, _Slot]
    depth: int
    level: str | None = None


_LEVELS = ("grid", "group", "subgroup", "lane")
"""Execution levels, outermost first: a nested nest must bind a strictly inner one."""

UNROLL_PROGRESS = 1000
"""A ``tc.static_range`` of at least this many trips shows its unrolling as progress on the
terminal (``tilec.support.progress``): capture time grows with the unrolled body."""


class _Retype(Exception):
    """Internal: a loop must be rebuilt with a weak initial value given a concrete type."""

    def __init__(self, name: str, t: ir.Type) -> None:
        super().__init__(name)
        self.name = name
        self.type = t


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (TileVal, ScalarVal, MemVal)) and isinstance(b, type(a)):
        return a.value is b.value
    if is_number(a) and is_number(b):
        return type(a) is type(b) and a == b
    return False


def _hint(name: str) -> str | None:
    return None if name.startswith("@") else name


def _type_phrase(t: ir.Type) -> str:
    return f"a {t}"


def before_vals(env: dict[str, Any], names: list[str], flags: tuple[str, str]) -> list[Any]:
    """The bindings of ``names`` before a loop (exit flags start False)."""
    return [env.get(n, False) for n in names]


class RegionCapture:
    """Region construction methods mixed into ``Capture`` (they use its state and helpers)."""

    # ------------------------------------------------------------------------ if
    def visit_If(self, node: ast.If) -> None:
        """``if`` on a compile-time value picks a branch; on a scalar it builds an ``if`` op."""
        test = self.visit(node.test)
        if isinstance(test, (ScalarVal,)):
            cond = test
            if cond.dtype is not ir.i1:
                if cond.dtype.is_float:
                    raise self.error(node.test, "if needs a boolean or integer scalar condition,"
                                     f" got {describe(test)}")
                cond = tiles.binary(self, node.test, "ne", cond, 0)
            written = self.sets.written(node.body + node.orelse)
            self._capture_if(node, cond.value, node.body, node.orelse, written,
                             self.sets.live_after(node))
            return
        if isinstance(test, (TileVal, ViewTile, Elem, MemVal)):
            raise self.error(node.test, "if needs a scalar condition; choose between tiles "
                             "elementwise with tc.where(cond, a, b)")
        # A compile-time condition selects a branch; no region is built, so the branch's
        # statements stay at the current nesting (a return or a parallel update is still
        # top level).
        self.visit_body(node.body if test else node.orelse)

    def _flags_in_scope(self) -> set[str]:
        return {f for lp in self.loops for f in lp.flags}

    def _capture_if(self, node: ast.AST, cond: ir.Value, then: Sequence[ast.stmt],
                    orelse: Sequence[ast.stmt], written: list[str], live_after: Any) -> None:
        results = region_result(written, set(live_after) | self._flags_in_scope())
        before = self.env
        envs = []
        blocks = [ir.Block(), ir.Block()]
        for block, stmts in zip(blocks, (then, orelse)):
            self.env = dict(before)
            self.depth += 1
            try:
                with self.at_block(block):
                    self.visit_body(stmts)
            finally:
                self.depth -= 1
            envs.append(self.env)
        self.env = before
        line = getattr(node, "lineno", 0) + self.src.line_offset
        merged: list[tuple[str, Any, Any]] = []
        for name in results:
            a, b = envs[0].get(name, _MISSING), envs[1].get(name, _MISSING)
            if a is b or _same(a, b):
                self.env[name] = a if a is not _MISSING else Undefined("never assigned")
                continue
            bad = [k for k, v in (("then", a), ("else", b))
                   if v is _MISSING or isinstance(v, Undefined)]
            if bad:
                side = "then" if "then" not in bad else "else"
                self.env[name] = Undefined(f"it is assigned only on the {side} path of the if "
                                           f"at line {line}")
                continue
            # a lazy expression (a parameter bound to an unfinished elementwise expression
            # or view, which assigning would have ended) is emitted on its path
            a, b = (self._ended(blk, node, v) for blk, v in zip(blocks, (a, b)))
            merged.append((name, a, b))
        for name in [n for n in written if n not in results]:
            if name in self.env or any(name in e for e in envs):
                self.env[name] = Undefined(f"it was assigned inside the if at line {line} and "
                                           f"is not used after it")
        yields: list[list[ir.Value]] = [[], []]
        types_: list[ir.Type] = []
        wraps: list[Any] = []
        for name, a, b in merged:
            t, wrap = self._unify(node, name, a, b)
            for k, (block, v) in enumerate(zip(blocks, (a, b))):
                with self.at_block(block):
                    yields[k].append(self._as_ssa(node, name, v, t))
            types_.append(t)
            wraps.append(wrap)
        for block, ys in zip(blocks, yields):
            with self.at_block(block):
                self.builder.create("yield", ys)
        op = self.builder.create("if", [cond], types_, {}, [ir.Region([blocks[0]]),
                                                             ir.Region([blocks[1]])],
                                 loc=self.loc(node), result_names=[n for n, _, _ in merged])
        for (name, _, _), r, wrap in zip(merged, op.results, wraps):
            self.env[name] = wrap(r)

    def _ended(self, block: ir.Block, node: ast.AST, v: Any) -> Any:
        """``v`` with its pending lazy work emitted at the end of ``block``."""
        if isinstance(v, (Elem, ViewTile)):
            with self.at_block(block):
                return tiles.materialize(self, node, v)
        return v

    def _unify(self, node: ast.AST, name: str, a: Any, b: Any) -> tuple[ir.Type, Any]:
        """The SSA type both paths' values of ``name`` take, and how to wrap the result."""
        kinds = [v for v in (a, b) if not is_number(v)]
        for v in kinds:
            if not isinstance(v, (TileVal, ScalarVal, MemVal)):
                raise self.error(node, f"{name} holds {describe(v)} on one path; only tiles, "
                                 f"scalars and memory can differ between paths")
        if not kinds:
            t = tiles.promote_scalar(tiles.weak_type(a), tiles.weak_type(b))
            return t, lambda r: ScalarVal(r, Affine.atom(r))
        mems = [v for v in kinds if isinstance(v, MemVal)]
        tiles_ = [v for v in kinds if isinstance(v, TileVal)]
        if mems and tiles_:
            want = tiles_[0].value.type
            if all(ir.TileType(m.type.shape, m.dtype) is want for m in mems):
                return want, TileVal
        types_ = {v.value.type for v in kinds}
        if len(types_) > 1:
            raise self.error(node, f"{name} is {describe(kinds[0])} on one path and "
                             f"{describe(kinds[1])} on the other")
        t = types_.pop()
        v0 = kinds[0]
        if isinstance(v0, TileVal):
            if len(kinds) < 2:
                raise self.error(node, f"{name} is a tile on one path and a number on the "
                                 f"other; use tc.full(shape, value) for the number")
            return t, TileVal
        if isinstance(v0, MemVal):
            if len(kinds) < 2:
                raise self.error(node, f"{name} is memory on one path only")
            fill = v0.fill if all(isinstance(k, MemVal) and k.fill == v0.fill
                                  for k in kinds) else None
            window = all(isinstance(k, MemVal) and k.window for k in kinds)
            return t, lambda r: MemVal(r, fill, window=window)
        return t, lambda r: ScalarVal(r, Affine.atom(r))

    def _number_local(self, node: ast.AST, name: str, v: Any, t: ir.ScalarType) -> ir.Value:
        """A local holding a number, as the ``t`` the region gives it (it must fit)."""
        try:
            return tiles.scalar_value(self, v, t)
        except ConstantRangeError as e:
            wide = narrowest_int(v) if isinstance(v, int) else None
            hint = f"; make it a {wide} (e.g. {name} = tc.{wide}({v}), or declare the int " \
                   f"arguments it meets as tc.{wide})" if wide else ""
            raise self.error(node, f"{name} holds {v!r} here, and this region makes it {t}: "
                             f"{e}{hint}") from None

    def _as_ssa(self, node: ast.AST, name: str, v: Any, t: ir.Type) -> ir.Value:
        if is_number(v):
            if not isinstance(t, ir.ScalarType):
                raise self.error(node, f"{name}: cannot use a number where {t} is needed")
            return self._number_local(node, name, v, t)
        if isinstance(v, MemVal) and isinstance(t, ir.TileType):
            return tiles.load_view(self, node, v).value
        return v.value

    # --------------------------------------------------------------------- loops
    def visit_For(self, node: ast.For) -> None:
        """A ``for`` over ``tc.parallel``/``serial``/``pipeline``/``reduction``/``static_range``
        or ``range``."""
        if node.orelse:
            raise self.error(node, "for ... else is not supported in kernels")
        it = node.iter
        if not isinstance(it, ast.Call):
            raise self.error(it, "a kernel loop iterates over tc.serial(...), tc.parallel(...), "
                             "tc.pipeline(...), tc.reduction(...), tc.static_range(...) or "
                             "range(...)")
        fn = self.visit(it.func)
        if fn is B["static_range"]:
            return self._static_range(node, self._call_site(it, "tc.static_range"))
        if fn is B["reduction"]:
            return self._reduction_loop(node, self._call_site(it, "tc.reduction"))
        if fn is B["parallel"]:
            return self._parallel(node, self._call_site(it, "tc.parallel"))
        if fn is range or fn is B["serial"]:
            site = self._call_site(it, "range" if fn is range else "tc.serial")
            bounds, opts = bind_loop(site)
            lb, ub, step = self._bounds(site, bounds)
            attrs = {}
            if "unroll" in opts:
                unroll = tiles.static_int(self, site.node_of("unroll"), opts["unroll"], "unroll")
                if unroll < 1:
                    raise site.error(f"tc.serial() needs unroll >= 1, got {unroll}", "unroll")
                attrs["unroll"] = unroll
            return self._counted(node, "serial", lb, ub, step, attrs)
        if fn is B["pipeline"]:
            site = self._call_site(it, "tc.pipeline")
            bounds, opts = bind_loop(site)
            lb, ub, step = self._bounds(site, bounds)
            return self._counted(node, "pipeline", lb, ub, step, opts)
        raise self.error(it, f"cannot loop over {describe(fn)} in a kernel; use tc.serial, "
                         f"tc.parallel, tc.pipeline, tc.reduction, tc.static_range or range")

    def _bounds(self, site: tiles.CallSite, bounds: list[tuple[Any, int | str]]
                ) -> tuple[ir.Value, ir.Value, ir.Value]:
        """``lo, hi, step`` as ``index`` values (a constant step must be positive)."""
        step, at = bounds[2]
        if isinstance(step, int) and step <= 0:
            raise site.error(f"{site.name}() needs a positive step, got {step}", at)
        vals = [tiles.as_index(self, site.node_of(where), v, "a loop bound").value
                for v, where in bounds]
        return vals[0], vals[1], vals[2]

    def _loop_target(self, node: ast.For) -> str:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "this loop binds one induction variable")
        return node.target.id

    def _initial(self, node: ast.For, name: str, v: Any, forced: dict[str, ir.Type]
                 ) -> tuple[ir.Value, Any]:
        """The init operand of a carried local and how to wrap its block argument."""
        if name in forced:
            t = forced[name]
            if isinstance(t, ir.TileType) and isinstance(v, MemVal):
                return tiles.load_view(self, node, v).value, TileVal
            if is_number(v):
                return self._number_local(node, name, v, t), lambda a: ScalarVal(a,
                                                                                  Affine.atom(a))
            return tiles.scalar_value(self, v, t) if isinstance(v, ScalarVal) \
                else v.value, lambda a: ScalarVal(a, Affine.atom(a))
        if is_number(v):
            return self._number_local(node, name, v, tiles.weak_type(v)), \
                lambda a: ScalarVal(a, Affine.atom(a))
        v = tiles.materialize(self, node, v)
        if isinstance(v, ScalarVal):
            return v.value, lambda a: ScalarVal(a, Affine.atom(a))
        if isinstance(v, TileVal):
            return v.value, TileVal
        if isinstance(v, MemVal):
            fill, window = v.fill, v.window
            return v.value, lambda a: MemVal(a, fill, window=window)
        raise self.error(node, f"{name} is updated in this loop but holds {describe(v)}, "
                         f"which is a compile-time value; only tiles, scalars and memory "
                         f"can change from one iteration to the next")

    def _counted(self, node: ast.For, kind: str, lb: ir.Value, ub: ir.Value, step: ir.Value,
                 opts: dict[str, Any]) -> None:
        forced: dict[str, ir.Type] = {}
        for _ in range(8):
            try:
                self._counted_once(node, kind, lb, ub, step, opts, forced)
                return
            except _Retype as r:
                forced[r.name] = r.type
        raise self.error(node, "could not settle the types of the loop-carried values")

    def _counted_once(self, node: ast.For, kind: str, lb: ir.Value, ub: ir.Value,
                      step: ir.Value, opts: dict[str, Any], forced: dict[str, ir.Type]) -> None:
        iv_name = self._loop_target(node)
        body = node.body
        flags = self.sets.exit_flags(node)
        written = self.sets.written(body)
        rbd = self.sets.read_before_def(body, defined=[iv_name])
        live = self.sets.live_after(node)
        want = ordered(written, set(loop_carried(rbd, written)) | set(region_result(written,
                                                                                  live)))
        line = node.lineno + self.src.line_offset
        carried: list[str] = []
        for name in want:
            if name == flags[1]:
                continue
            v = self.env.get(name, False if name == flags[0] else _MISSING)
            if v is _MISSING or isinstance(v, Undefined):
                continue
            carried.append(name)
        if flags[0] in written and flags[0] not in carried:
            carried.append(flags[0])
        if kind == "pipeline" and (flags[0] in written or flags[1] in written):
            node_x = next(n for n in ast.walk(node) if isinstance(n, (ast.Break, ast.Continue)))
            raise self.error(node_x, "break/continue are not supported in tc.pipeline loops")
        before = self.env
        inits: list[ir.Value] = []
        wraps: list[Any] = []
        for name in carried:
            v = before.get(name, False)
            init, wrap = self._initial(node, name, v, forced)
            inits.append(init)
            wraps.append(wrap)
        segments = self._segments(node) if kind == "pipeline" else [("", list(body))]
        if kind == "pipeline":
            stages = opts.get("stages")
            if stages is not None and stages != len(segments):
                raise self.error(node.iter, f"tc.pipeline(stages={stages}) but the body has "
                                 f"{len(segments)} stages ({len(segments) - 1} tc.stage() cuts)")
        types_ = [v.type for v in inits]
        first = ir.Block([ir.index] + types_, [iv_name] + [_hint(n) for n in carried])
        body_env = dict(before)
        iv = first.args[0]
        body_env[iv_name] = ScalarVal(iv, Affine.atom(iv))
        for name in written:
            if name not in carried and name != flags[1]:
                body_env[name] = Undefined(
                    f"it is read before it is assigned in the first iteration of the loop at "
                    f"line {line}" if name in rbd else "it is assigned later in the loop")
        for name, arg, wrap in zip(carried, first.args[1:], wraps):
            body_env[name] = wrap(arg)
        if flags[1] in written:
            body_env[flags[1]] = False
        self.env = body_env
        self.loops.append(_Loop(node, kind, flags))
        self.depth += 1
        blocks = [first]
        try:
            if kind == "serial":
                with self.at_block(first):
                    if flags[0] in carried:
                        self._guard_rest(body)
                    else:
                        self.visit_body(body)
            else:
                blocks = self._pipeline_stages(node, segments, first, carried)
            end_env = self.env
        finally:
            self.loops.pop()
            self.depth -= 1
            self.env = before
        ys = []
        with self.at_block(blocks[-1]):
            for name, t, init_v in zip(carried, types_, before_vals(before, carried, flags)):
                v = end_env.get(name, _MISSING)
                if v is _MISSING or isinstance(v, Undefined):
                    raise self.error(node, f"{name} is not assigned on every path through the "
                                     f"loop body")
                v = tiles.materialize(self, node, v)
                if is_number(v):
                    if not isinstance(t, ir.ScalarType):
                        raise self.error(node, f"loop-carried {name} is {t} before the loop and "
                                         f"a number inside it")
                    ys.append(self._number_local(node, name, v, t))
                    continue
                if not isinstance(v, (TileVal, ScalarVal, MemVal)) or v.value.type is not t:
                    got = describe(v)
                    if is_number(init_v) and isinstance(v, ScalarVal) and name not in forced:
                        raise _Retype(name, v.dtype)
                    if isinstance(init_v, MemVal) and isinstance(v, TileVal) \
                            and name not in forced \
                            and v.value.type is ir.TileType(init_v.type.shape, init_v.dtype):
                        raise _Retype(name, v.value.type)
                    raise self.error(node, f"loop-carried {name} is {_type_phrase(t)} before "
                                     f"the loop but {got} at the end of its body")
                ys.append(v.value)
            self.builder.create("yield", ys)
        attrs: dict[str, Any] = {}
        if kind == "serial":
            attrs.update(opts)
        else:
            attrs["stages"] = tuple(name for name, _ in segments)
            if opts.get("window") is not None:
                attrs["window"] = tiles.static_int(self, node.iter, opts["window"], "window")
        op = self.builder.create(kind, [lb, ub, step] + inits, types_, attrs,
                                 [ir.Region([b]) for b in blocks], loc=self.loc(node),
                                 result_names=[_hint(n) for n in carried])
        for name, r, wrap in zip(carried, op.results, wraps):
            if not name.startswith("@"):
                self.env[name] = wrap(r)
        for name in written:
            if name not in carried and not name.startswith("@"):
                self.env[name] = Undefined(
                    f"it is assigned in the loop at line {line} but not before it, and the "
                    f"loop may run zero times" if name not in self.env
                    or isinstance(self.env[name], Undefined)
                    else f"it was assigned in the loop at line {line} and not used after it")
        self.env[iv_name] = Undefined(f"it is the induction variable of the loop at line {line}, "
                                      f"which is not visible after the loop")
        for f in flags:
            self.env.pop(f, None)

    # ---------------------------------------------------------------- pipelines
    def _segments(self, node: ast.For) -> list[tuple[str, list[ast.stmt]]]:
        """Split a pipeline body at its top-level ``tc.stage()`` statements."""
        segs: list[tuple[str, list[ast.stmt]]] = [("", [])]
        for s in node.body:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                    and self._peek(s.value.func) is B["stage"]:
                site = self._call_site(s.value, "tc.stage")
                a = site.bind(["name"], {"name": ""})
                if not isinstance(a["name"], str):
                    raise site.error("a stage name is a string", 0)
                if a["name"] and a["name"] in [n for n, _ in segs]:
                    raise site.error(f"stage name {a['name']!r} is used twice in this pipeline")
                segs.append((a["name"], []))
                continue
            self._check_no_stage(s)
            segs[-1][1].append(s)
        return segs

    def _check_no_stage(self, node: ast.AST) -> None:
        """Reject ``tc.stage()`` under ``node`` unless it cuts a nested pipeline at top level."""
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
                and self._peek(node.iter.func) is B["pipeline"]:
            for s in node.body:
                top_cut = isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                    and self._peek(s.value.func) is B["stage"]
                if not top_cut:
                    self._check_no_stage(s)
            return
        if isinstance(node, ast.Call) and self._peek(node.func) is B["stage"]:
            raise self.error(node, "tc.stage() must be a top-level statement of a tc.pipeline "
                             "loop body (not inside an if, a nested loop or an expression)")
        for child in ast.iter_child_nodes(node):
            self._check_no_stage(child)

    def _pipeline_stages(self, node: ast.For, segments: list[tuple[str, list[ast.stmt]]],
                         first: ir.Block, carried: list[str]) -> list[ir.Block]:
        blocks = [first]
        iv_name = self._loop_target(node)
        block = first
        for k, (_, stmts) in enumerate(segments):
            with self.at_block(block):
                self.visit_body(stmts)
            if k + 1 == len(segments):
                break
            rest = [s for _, ss in segments[k + 1:] for s in ss]
            live = self.sets.live_in(rest, carried)
            passed: list[tuple[str, list[ir.Value], Any]] = []
            for name in sorted(live, key=lambda n: (n not in carried, n)):
                v = self.env.get(name)
                vals, wrap = self._stage_pass(v, block)
                if vals:
                    passed.append((name, vals, wrap))
            flat = [x for _, vals, _ in passed for x in vals]
            with self.at_block(block):
                self.builder.create("yield", flat)
            nxt = ir.Block([ir.index] + [x.type for x in flat],
                           [iv_name] + [x.name_hint for x in flat])
            args = iter(nxt.args[1:])
            for name, vals, wrap in passed:
                self.env[name] = wrap([next(args) for _ in vals], nxt)
            self.env[iv_name] = ScalarVal(nxt.args[0], Affine.atom(nxt.args[0]))
            blocks.append(nxt)
            block = nxt
        return blocks

    def _stage_pass(self, v: Any, block: ir.Block) -> tuple[list[ir.Value], Any]:
        """Values a binding needs carried across a stage cut (those defined in this stage)."""
        def here(x: ir.Value) -> bool:
            return x.parent_block is block

        if isinstance(v, ScalarVal) and here(v.value):
            return [v.value], lambda a, b: ScalarVal(a[0], Affine.atom(a[0]))
        if isinstance(v, TileVal) and here(v.value):
            return [v.value], lambda a, b: TileVal(a[0])
        if isinstance(v, MemVal):
            vals = [v.value] if here(v.value) else []
            cached = self.cached_load(v)
            if cached is not None and here(cached.value):
                vals.append(cached.value)
            if not vals:
                return [], None
            base, fill, window = v.value, v.fill, v.window
            has_view = here(v.value)
            has_tile = cached is not None and here(cached.value)

            def wrap(a: list[ir.Value], b: ir.Block) -> MemVal:
                m = MemVal(a[0] if has_view else base, fill, window=window)
                if has_tile:
                    m.loaded = (TileVal(a[-1]), b, self.ctx.write_epoch)  # type: ignore
                return m

            return vals, wrap
        return [], None

    # ---------------------------------------------------------------- static range
    def _static_range(self, node: ast.For, site: tiles.CallSite) -> None:
        bounds, _ = bind_loop(site)
        for v, where in bounds:
            if isinstance(v, bool) or not isinstance(v, int):
                raise site.error(f"tc.static_range() takes compile-time integers, got "
                                 f"{describe(v)}", where)
        vals = [v for v, _ in bounds]
        if vals[2] == 0:
            raise site.error("tc.static_range() needs a nonzero step", bounds[2][1])
        name = self._loop_target(node)
        for n in ast.walk(node):
            if isinstance(n, (ast.Break, ast.Continue)) and self.sets.loop_of.get(id(n)) is node:
                raise self.error(n, "break/continue are not supported in tc.static_range loops")
        trips = range(*vals)
        where = f"{os.path.basename(self.src.filename)}:{node.lineno + self.src.line_offset}"
        with progress(f"unrolling tc.static_range at {where}", total=len(trips),
                      minimum=UNROLL_PROGRESS) as shown:
            for i in trips:
                self.env[name] = i
                self.visit_body(node.body)
                shown.advance()

    # --------------------------------------------------------------------- parallel
    def _parallel(self, node: ast.For, site: tiles.CallSite) -> None:
        opts = {k: site.kwargs.pop(k) for k in ("threads", "level") if k in site.kwargs}
        if site.kwargs:
            raise site.error(f"tc.parallel() got an unexpected keyword argument "
                             f"{next(iter(site.kwargs))!r}")
        if not site.args:
            raise site.error("tc.parallel() needs at least one extent")
        rank = len(site.args)
        names = _target_names(node.target)
        if len(names) != rank or not isinstance(node.target, (ast.Name, ast.Tuple)):
            raise self.error(node.target, f"tc.parallel() of rank {rank} binds {rank} "
                             f"coordinate names")
        extents = [tiles.as_index(self, site.node_of(k), e, "a parallel extent").value
                   for k, e in enumerate(site.args)]
        attrs: dict[str, Any] = {"rank": rank}
        if opts:
            threads = opts.get("threads")
            if threads is not None:
                threads = tiles.static_int(self, site.node_of("threads"), threads, "threads")
            try:
                attrs["constraint"] = ir.ExecConstraint(threads, opts.get("level", "grid"))
            except ValueError as e:
                raise site.error(str(e)) from None
            level = attrs["constraint"].level
            outer = next((p.level for p in reversed(self.pars) if p.level is not None), None)
            if outer is not None and _LEVELS.index(outer) >= _LEVELS.index(level):
                raise site.error(f"this nest binds level {level!r} inside a {outer!r}-level nest;"
                                 f" a nested tc.parallel must bind a strictly inner level (pass "
                                 f"level=\"{_LEVELS[min(_LEVELS.index(outer) + 1, 3)]}\")")
        body = node.body
        written = self.sets.written(body)
        line = node.lineno + self.src.line_offset
        declared = [n for n in written if n in self.env and n not in names
                    and not isinstance(self.env[n], Undefined)]
        anc = ancestor_update(written, declared)
        before = self.env
        inits: list[ir.Value] = []
        for name in anc:
            v = before[name]
            if isinstance(v, Undefined):
                raise self.error(node, f"{name} is updated inside this parallel nest but is not "
                                 f"definitely assigned before it ({v.reason})")
            v = tiles.as_tileish(self, node, tiles.materialize(self, node, v))
            if not isinstance(v, TileVal):
                raise self.error(node, f"{name} is declared outside this parallel nest and "
                                 f"assigned inside it, but it is {describe(v)}; instances would "
                                 f"race on it. Only tiles can be updated part by part from a "
                                 f"nest (acc[...] = patch); define {name} inside the nest "
                                 f"otherwise")
            inits.append(v.value)
        block = ir.Block([ir.index] * rank + [v.type for v in inits],
                         list(names) + [_hint(n) for n in anc])
        env = dict(before)
        for nm, a in zip(names, block.args[:rank]):
            env[nm] = ScalarVal(a, Affine.atom(a))
        for nm in written:
            if nm not in anc:
                env[nm] = Undefined(f"it is assigned later in the parallel nest at line {line}")
        slots = {}
        for nm, a in zip(anc, block.args[rank:]):
            env[nm] = TileVal(a)
            slots[nm] = _Slot(nm, a, self.depth + 1)
        self.env = env
        self.depth += 1
        self.pars.append(_Par(slots, self.depth, attrs["constraint"].level
                              if "constraint" in attrs else None))
        self.ctx.par_depth += 1
        saved_loops = self.loops
        self.loops = []
        try:
            with self.at_block(block):
                self.visit_body(body)
                ys: list[ir.Value] = []
                counts = []
                for nm in anc:
                    slot = slots[nm]
                    if slot.update is None:
                        raise self.error(node, f"{nm} is assigned in this parallel nest but "
                                         f"never updated at the top level of its body")
                    payload, origin = slot.update
                    ys.append(payload)
                    ys.extend(origin)
                    counts.append(len(origin))
                attrs_y = {"updates": tuple(counts)} if anc else {}
                self.builder.create("yield", ys, [], attrs_y)
        finally:
            self.pars.pop()
            self.ctx.par_depth -= 1
            self.depth -= 1
            self.loops = saved_loops
            self.env = before
        op = self.builder.create("parallel", extents + inits, [v.type for v in inits], attrs,
                                 [ir.Region([block])], loc=self.loc(node),
                                 result_names=[_hint(n) for n in anc])
        for nm, r in zip(anc, op.results):
            self.env[nm] = TileVal(r)
        for nm in written:
            if nm not in anc:
                self.env[nm] = Undefined(f"it is local to the instances of the parallel nest "
                                         f"at line {line}")
        for nm in names:
            self.env[nm] = Undefined(f"it is a coordinate of the parallel nest at line {line}")

    def _reduction_loop(self, node: ast.For, site: tiles.CallSite) -> None:
        a = site.bind(["x", "axis", "policy"], {"axis": None, "policy": None})
        xs = a["x"] if isinstance(a["x"], tuple) else (a["x"],)
        inputs = [tiles.as_tile(self, site.node_of(0), x) for x in xs]
        names = _target_names(node.target)
        if len(names) != len(inputs) or not isinstance(node.target, (ast.Name, ast.Tuple)):
            raise self.error(node.target, f"this reduction loop visits {len(inputs)} element(s) "
                             f"at a time; bind {len(inputs)} name(s)")
        axes = reductions.normalize_axes(self, site, a["axis"], len(inputs[0].shape))
        policy = reductions.resolve_policy(site, a["policy"])
        body = node.body
        for n in ast.walk(node):
            if isinstance(n, (ast.Break, ast.Continue)) and self.sets.loop_of.get(id(n)) is node:
                raise self.error(n, "break/continue are not supported in a reduction loop")
        written = self.sets.written(body)
        declared = [n for n in written if n in self.env and n not in names
                    and not isinstance(self.env[n], Undefined)]
        states = reduction_state(written, declared)
        if not states:
            raise self.error(node, "this reduction loop updates no state declared before it")
        line = node.lineno + self.src.line_offset
        seeds: list[ir.Value] = []
        for nm in states:
            v = tiles.materialize(self, node, self.env[nm])
            if isinstance(v, Undefined):
                raise self.error(node, f"reduction state {nm} is not definitely assigned before "
                                 f"the loop ({v.reason})")
            if is_number(v):
                t = tiles.promote_scalar(tiles.weak_type(v), inputs[0].dtype)
                if inputs[0].dtype.is_unsigned and isinstance(v, int):
                    t = inputs[0].dtype  # an int seed takes an unsigned input's type (no mix)
                try:
                    seeds.append(self.const(tiles.typed_number(v, t), t))
                except ConstantRangeError as e:
                    raise self.error(node, f"reduction state {nm}: {e}, the type of the "
                                     f"reduced elements") from None
            elif isinstance(v, ScalarVal):
                seeds.append(v.value)
            else:
                raise self.error(node, f"reduction state {nm} must be a scalar (the update runs "
                                 f"once per element), got {describe(v)}")
        before = self.env

        def capture(block: ir.Block) -> list[Any]:
            env = dict(before)
            for nm, arg in zip(states, block.args):
                env[nm] = ScalarVal(arg)
            for nm, arg in zip(names, block.args[len(states):]):
                env[nm] = ScalarVal(arg)
            for nm in written:
                if nm not in states:
                    env[nm] = Undefined(f"it is assigned later in the reduction at line {line}")
            self.env = env
            self.depth += 1
            self.pure += 1
            saved_loops = self.loops
            self.loops = []
            try:
                with self.at_block(block):
                    self.visit_body(body)
                    out = []
                    for nm in states:
                        v = tiles.materialize(self, node, self.env.get(nm))
                        if isinstance(v, Undefined):
                            raise self.error(node, f"state {nm} is not assigned on every path "
                                             f"of the update ({v.reason})")
                        out.append(v)
                    return out
            finally:
                self.loops = saved_loops
                self.pure -= 1
                self.depth -= 1
                self.env = before

        res = reductions.reduce_region(self, site, inputs, seeds, axes, policy, capture,
                                  names=[_hint(n) for n in states],
                                  result_names=[_hint(n) for n in states])
        for nm, r in zip(states, res):
            self.env[nm] = r
        for nm in written:
            if nm not in states:
                self.env[nm] = Undefined(f"it is local to the update of the reduction at line "
                                         f"{line}")
        for nm in names:
            self.env[nm] = Undefined(f"it is an element of the reduction at line {line}")
