"""AST capture: one ``ast.NodeVisitor`` that turns a kernel into Candidate TileIR.

Python locals are the staged variables: the capture keeps a definition
environment (``self.env``) mapping each local to what it denotes at the
current point, and builds SSA directly. Structured regions (``if``, counted
loops, pipelines, parallel nests, reduction loops) are closed with the set
algebra of ``scopes.py``:

* a counted loop carries ``loop_carried ∪ region_result`` (a result of
  ``serial`` is its final carried value), each as its own block argument, so
  ``old = a`` keeps ``a``'s identity at that point and two locals that share
  an initial value never merge;
* an ``if`` yields ``region_result``; a local assigned on only one path is
  bound to ``Undefined`` and reading it is an error at the use;
* a ``parallel`` nest turns ``ancestor_update`` locals into inits whose body
  argument is the entry snapshot, and each instance yields one patch with its
  origin (``acc[r:r+8, :] = patch`` or ``acc = tc.update(acc, origin, patch)``);
  untouched coordinates keep the init and old snapshots keep their SSA value;
* a ``for e in tc.reduction(x, axis)`` loop turns ``reduction_state`` locals
  into the states of one ``reduce`` whose update region is the loop body.

``break``/``continue`` in ``serial``/``range`` loops are lowered with hidden
``i1`` locals (``scopes.FunctionSets.exit_flags``): ``broken`` is carried,
``continued`` is reset each iteration, and the statements after a statement
that may exit run under ``if not (broken or continued)``. The loop still runs
its full trip count; guarded iterations do nothing.

Every unsupported construct raises ``TileSyntaxError`` at its node.
"""

from __future__ import annotations

import ast
import builtins as _py
import difflib
import linecache
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir

from . import tiles
from .builtins import IMPLS, Builtin, constexpr
from .builtins import SURFACE as B
from .dtypes import DType, dtype_from_numpy, dtype_of_ir
from .errors import SourceInfo, TileSyntaxError
from .scopes import (
    FunctionSets,
    _target_names,
    ancestor_update,
    loop_carried,
    ordered,
    reduction_state,
    region_result,
)
from .values import (
    Affine,
    BoundMethod,
    Elem,
    LocalFunction,
    MemVal,
    ScalarVal,
    TileVal,
    Undefined,
    ViewTile,
    describe,
    is_number,
)

__all__ = ["Capture", "CaptureContext", "CaptureBuilder"]

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
           ast.FloorDiv: "floordiv", ast.Mod: "rem", ast.Pow: "pow", ast.BitAnd: "and",
           ast.BitOr: "or", ast.BitXor: "xor"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_PY_OK = (range, min, max, abs, len, int, float, bool)


@dataclass
class CaptureContext:
    """State shared by a kernel's capture and every ``tc.func`` inlined into it."""

    fn: ir.Function
    """The function being built."""
    symbols: dict[str, ir.Value] = field(default_factory=dict)
    """Symbolic extent name -> its ``index`` parameter."""
    consts: dict[tuple, ir.Value] = field(default_factory=dict)
    """``(block id, type, value)`` -> a constant already emitted in that block."""
    blocks: list[ir.Block] = field(default_factory=list)
    """Blocks enclosing the insertion point, outermost first (constant reuse scope)."""
    write_epoch: int = 0
    """Bumped by every memory write; a cached load is reused only in its epoch."""
    inline_depth: int = 0
    """Nesting of inlined ``tc.func`` calls (recursion guard)."""
    par_depth: int = 0
    """Nesting of ``parallel`` nests around the insertion point."""


_NEEDS_PARALLEL = frozenset({"load", "store", "atomic", "view", "memory", "mma", "reduce",
                             "map", "reindex"})
"""Tile operations that only have a meaning inside a ``parallel`` nest (verifier invariant 4)."""


class CaptureBuilder(ir.Builder):
    """The builder capture uses: rejects tile work outside every ``parallel`` at its source."""

    def __init__(self, ip: ir.InsertionPoint, loc: ir.Location, ctx: CaptureContext) -> None:
        super().__init__(ip, loc)
        self.ctx = ctx
        """The compilation whose parallel depth is checked."""

    def create(self, name: str, *args: Any, **kwargs: Any) -> ir.Operation:
        """Create and insert an operation (tile work must sit inside a parallel nest)."""
        if name in _NEEDS_PARALLEL and self.ctx.par_depth == 0:
            loc = kwargs.get("loc") or self.loc
            line = linecache.getline(loc.filename, loc.line).rstrip("\n") if loc.known else ""
            raise TileSyntaxError("tile work must happen inside a tc.parallel nest (one instance "
                                  "per program); wrap the kernel body in "
                                  "`for p in tc.parallel(...)`", loc.filename, loc.line, loc.col,
                                  loc.end_col, line)
        return super().create(name, *args, **kwargs)


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


class _Return(Exception):
    """Internal: a ``tc.func`` body reached its final ``return``."""


class _Retype(Exception):
    """Internal: a loop must be rebuilt with a weak initial value given a concrete type."""

    def __init__(self, name: str, t: ir.Type) -> None:
        super().__init__(name)
        self.name = name
        self.type = t


class Capture(ast.NodeVisitor):
    """Captures one Python function body into the current insertion point."""

    def __init__(self, ctx: CaptureContext, builder: ir.Builder, fn_node: ast.FunctionDef,
                 src: SourceInfo, globals_: dict[str, Any], closure: dict[str, Any],
                 env: dict[str, Any], is_kernel: bool = True) -> None:
        self.ctx = ctx
        """Shared state of this compilation."""
        self.builder = builder
        """Where operations go."""
        self.fn_node = fn_node
        """The function whose body is captured."""
        self.src = src
        """Source positions for diagnostics."""
        self.globals = globals_
        """The function's module globals (read at compile time)."""
        self.closure = closure
        """The function's closure cells, resolved."""
        self.env = env
        """The definition environment: local name -> binding."""
        self.sets = FunctionSets(fn_node)
        """Data-flow facts of the body."""
        self.is_kernel = is_kernel
        """False for an inlined ``tc.func``."""
        self.loops: list[_Loop] = []
        self.pars: list[_Par] = []
        self.depth = 0
        self.pure = 0
        self.returned: Any = None
        self.stage_ok: set[int] = set()

    # ------------------------------------------------------------------ diagnostics
    def error(self, node: ast.AST | None, msg: str) -> TileSyntaxError:
        """A located ``TileSyntaxError`` (to raise)."""
        return TileSyntaxError.at(node, msg, self.src)

    def loc(self, node: ast.AST) -> ir.Location:
        """The IR location of ``node``."""
        line, col, end = self.src.position(node)
        return ir.Location(self.src.filename, line, col, end)

    def visit(self, node: ast.AST) -> Any:
        """Dispatch with located errors: IR construction failures point at ``node``."""
        saved = self.builder.loc
        if hasattr(node, "lineno"):
            self.builder.loc = self.loc(node)
        try:
            return super().visit(node)
        except (TileSyntaxError, _Return, _Retype):
            raise
        except (ir.LayoutError, ir.IRError) as e:
            raise self.error(node, f"{e}") from None
        finally:
            self.builder.loc = saved

    def generic_visit(self, node: ast.AST) -> Any:
        """Anything without a ``visit_X`` is unsupported."""
        what = type(node).__name__
        hint = _HINTS.get(what, "")
        raise self.error(node, f"unsupported Python syntax in a kernel: {what}{hint}")

    # ------------------------------------------------------------------- constants
    def const(self, value: Any, t: ir.Type) -> ir.Value:
        """A scalar constant, reused within the enclosing blocks."""
        key_v = (type(value).__name__, repr(value))
        for b in reversed(self.ctx.blocks):
            got = self.ctx.consts.get((b.id, t, key_v))
            if got is not None:
                return got
        hint = f"c{value}" if isinstance(value, int) and not isinstance(value, bool) \
            and value >= 0 else None
        v = self.builder.value("constant", [], t, {"value": value}, name_hint=hint)
        if self.ctx.blocks:
            self.ctx.consts[(self.ctx.blocks[-1].id, t, key_v)] = v
        return v

    def pure_arith(self, fn: str, operands: list[ir.Value], t: ir.Type,
                   loc: ir.Location | None = None) -> ir.Value:
        """A scalar ``arith``, reusing an identical one from the enclosing blocks (local CSE)."""
        key = ("arith", fn, tuple(id(v) for v in operands), t)
        for b in reversed(self.ctx.blocks):
            got = self.ctx.consts.get((b.id, key))
            if got is not None:
                return got
        v = self.builder.value("arith", operands, t, {"fn": fn}, loc=loc)
        if self.ctx.blocks:
            self.ctx.consts[(self.ctx.blocks[-1].id, key)] = v
        return v

    @contextmanager
    def at_block(self, block: ir.Block) -> Iterator[None]:
        """Emit into ``block`` (at its end) for the duration."""
        self.ctx.blocks.append(block)
        saved = self.builder.ip
        self.builder.ip = ir.InsertionPoint.at_end(block)
        try:
            yield
        finally:
            self.builder.ip = saved
            self.ctx.blocks.pop()

    # ---------------------------------------------------------- loads and writes
    def cached_load(self, m: MemVal) -> TileVal | None:
        """The snapshot of ``m`` loaded earlier in an enclosing block and epoch, if any."""
        if m.loaded is None:
            return None
        tile, block, epoch = m.loaded  # type: ignore[misc]
        if epoch == self.ctx.write_epoch and any(b is block for b in self.ctx.blocks):
            return tile
        return None

    def remember_load(self, m: MemVal, tile: TileVal) -> None:
        """Reuse ``tile`` for later value uses of ``m`` until a write."""
        if self.ctx.blocks:
            m.loaded = (tile, self.ctx.blocks[-1], self.ctx.write_epoch)  # type: ignore

    def note_write(self) -> None:
        """A memory write happened: earlier snapshots are no longer the memory's value."""
        self.ctx.write_epoch += 1

    def memory_shape(self, m: MemVal) -> tuple[Any, ...]:
        """``A.shape``: static extents as ints, symbolic ones as ``index`` scalars."""
        out: list[Any] = []
        for e in m.type.shape:
            if e.is_static:
                out.append(int(e))
            else:
                v = self.ctx.symbols.get(str(e.value))
                if v is None:
                    raise TileSyntaxError(f"extent {e} of {m.type} has no value here")
                out.append(ScalarVal(v, Affine.atom(v)))
        return tuple(out)

    def is_device_function(self, x: Any) -> bool:
        """True for ``@tc.func`` helpers."""
        from .jit import DeviceFunction

        return isinstance(x, DeviceFunction)

    # ------------------------------------------------------------------ entry point
    def capture_body(self) -> Any:
        """Capture the whole function body; returns the value of a final ``return``."""
        self.ctx.blocks.append(self.builder.ip.block)
        try:
            self.visit_body(self.fn_node.body)
        except _Return:
            pass
        finally:
            self.ctx.blocks.pop()
        return self.returned

    # ---------------------------------------------------------------- statements
    def visit_body(self, stmts: Sequence[ast.stmt]) -> None:
        """Capture a statement list, guarding the rest after a statement that may exit a loop."""
        for i, s in enumerate(stmts):
            self.visit(s)
            if self._dead():
                return
            if i + 1 < len(stmts) and self.loops and self._may_exit(s):
                self._guard_rest(stmts[i + 1:])
                return

    def _dead(self) -> bool:
        if not self.loops:
            return False
        brk, cont = self.loops[-1].flags
        return self.env.get(brk) is True or self.env.get(cont) is True

    def _may_exit(self, s: ast.stmt) -> bool:
        loop = self.loops[-1].node

        def walk(n: ast.AST) -> bool:
            if isinstance(n, (ast.Break, ast.Continue)):
                return self.sets.loop_of.get(id(n)) is loop
            if isinstance(n, ast.For):
                return any(walk(c) for c in n.body)
            return any(walk(c) for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))

        return walk(s)

    def _guard_rest(self, rest: Sequence[ast.stmt]) -> None:
        brk, cont = self.loops[-1].flags
        flags = [self.env.get(brk, False), self.env.get(cont, False)]
        if any(f is True for f in flags):
            return
        live = [f for f in flags if f is not False]
        if not live:
            self.visit_body(rest)
            return
        exited = live[0] if len(live) == 1 else tiles.binary(self, rest[0], "or", *live)
        active = tiles.unary(self, rest[0], "not", exited)
        written = self.sets.written(rest)
        after = self.sets.live_after(rest[-1])
        self._capture_if(rest[0], active.value, list(rest), [], written, after)

    def visit_Expr(self, node: ast.Expr) -> None:
        """An expression statement (a call for its effect; docstrings are skipped)."""
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return
        tiles.materialize(self, node, self.visit(node.value))

    def visit_Pass(self, node: ast.Pass) -> None:
        """``pass``."""

    def visit_Assign(self, node: ast.Assign) -> None:
        """``x = e``, ``a, b = e``, ``acc[r0:r1, :] = patch`` (ancestor update)."""
        if isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and self._peek(node.value.func) is B["update"]:
            self._update_call(node, node.targets[0].id, node.value)
            return
        value = self.visit(node.value)
        for t in node.targets:
            self._assign(t, value, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        """``x: tc.float32 = e`` converts ``e``; other annotations are ignored."""
        if node.value is None:
            raise self.error(node, "a declaration without a value defines nothing in a kernel")
        value = self.visit(node.value)
        ann = self._peek(node.annotation)
        if isinstance(ann, DType):
            value = tiles.cast_value(self, node, value, ann.ir)
        self._assign(node.target, value, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """``x += e`` is ``x = x + e``."""
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "augmented assignment needs a plain name target")
        fn = self._binop_fn(node.op, node)
        cur = self.visit(ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target))
        value = self._binop(node, fn, cur, self.visit(node.value))
        self._assign(node.target, value, node)

    def _assign(self, target: ast.AST, value: Any, stmt: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, value, target, stmt)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple):
                raise self.error(target, f"cannot unpack {describe(value)}")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into "
                                 f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self._assign(t, v, stmt)
        elif isinstance(target, ast.Subscript):
            self._slice_update(target, value, stmt)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__} in a kernel")

    def _bind(self, name: str, value: Any, where: ast.AST, stmt: ast.stmt) -> None:
        slot = self._slot(name)
        if slot is not None:
            raise self.error(where, f"{name} is declared outside this parallel nest, so an "
                             f"instance cannot reassign it; update a part of it with "
                             f"{name}[...] = patch or {name} = tc.update({name}, origin, patch)")
        value = tiles.materialize(self, where, value)
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, (TileVal, ScalarVal, MemVal)) and v.value.name_hint is None:
                op = v.value.defining_op
                is_view = op is not None and op.name == "view"
                v.value.name_hint = f"{name}_view" if is_view else name
        self.env[name] = value

    def _slot(self, name: str) -> _Slot | None:
        for par in reversed(self.pars):
            if name in par.slots:
                return par.slots[name]
        return None

    def visit_Return(self, node: ast.Return) -> None:
        """``return`` ends a kernel (no value) or a ``tc.func`` (with its result)."""
        top = self.depth == 0 and not self.loops
        if self.is_kernel:
            if node.value is not None:
                raise self.error(node, "a kernel returns nothing; write outputs with .store()")
            if not (top and node is self.fn_node.body[-1]):
                raise self.error(node, "return is only allowed as the last statement of a kernel")
            return
        if not (top and node is self.fn_node.body[-1]):
            raise self.error(node, "a tc.func may only return at the end of its body")
        self.returned = tiles.materialize(self, node, self.visit(node.value)) \
            if node.value is not None else None
        raise _Return()

    def visit_Assert(self, node: ast.Assert) -> None:
        """``assert`` on compile-time values is checked while compiling."""
        test = self.visit(node.test)
        if not is_number(test) and test is not None:
            raise self.error(node, "assert needs a compile-time condition (constexprs, shapes "
                             "of static arrays); runtime checks are not supported")
        if not test:
            msg = self.visit(node.msg) if node.msg is not None else "assertion failed"
            raise self.error(node, f"static assertion failed: {msg}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        """A nested ``def`` is a compile-time function (a ``tc.reduce`` combine, a helper)."""
        if node.decorator_list:
            raise self.error(node, "nested functions in a kernel cannot be decorated")
        self.env[node.name] = LocalFunction(node, dict(self.env))

    def visit_Break(self, node: ast.Break) -> None:
        """``break`` sets the loop's hidden ``broken`` flag."""
        self._exit(node, 0)

    def visit_Continue(self, node: ast.Continue) -> None:
        """``continue`` sets the loop's hidden ``continued`` flag."""
        self._exit(node, 1)

    def _exit(self, node: ast.stmt, which: int) -> None:
        word = "break" if which == 0 else "continue"
        target = self.sets.loop_of.get(id(node))
        if target is None:
            raise self.error(node, f"{word} outside a loop")
        if not self.loops or target is not self.loops[-1].node:
            raise self.error(node, f"{word} cannot leave a parallel nest or a reduction")
        loop = self.loops[-1]
        if loop.kind != "serial":
            raise self.error(node, f"{word} is only supported in tc.serial/range loops, "
                             f"not in a {loop.kind} loop")
        self.env[loop.flags[which]] = True

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
        if not (is_number(test) or test is None or isinstance(test, (str, tuple))):
            raise self.error(node.test, f"cannot branch on {describe(test)}")
        self.depth += 1
        try:
            self.visit_body(node.body if test else node.orelse)
        finally:
            self.depth -= 1

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
            return t, lambda r: MemVal(r, fill)
        return t, lambda r: ScalarVal(r, Affine.atom(r))

    def _as_ssa(self, node: ast.AST, name: str, v: Any, t: ir.Type) -> ir.Value:
        if is_number(v):
            if not isinstance(t, ir.ScalarType):
                raise self.error(node, f"{name}: cannot use a number where {t} is needed")
            return tiles.scalar_value(self, v, t)
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
            lb, ub, step = self._bounds(site)
            attrs = {}
            if "unroll" in site.kwargs and fn is B["serial"]:
                attrs["unroll"] = tiles.static_int(self, it, site.kwargs.pop("unroll"), "unroll")
            if site.kwargs:
                raise site.error(f"{site.name}() got an unexpected keyword argument "
                                 f"{next(iter(site.kwargs))!r}")
            return self._counted(node, "serial", lb, ub, step, attrs)
        if fn is B["pipeline"]:
            site = self._call_site(it, "tc.pipeline")
            opts = {k: site.kwargs.pop(k) for k in ("stages", "window") if k in site.kwargs}
            if site.kwargs:
                raise site.error(f"tc.pipeline() got an unexpected keyword argument "
                                 f"{next(iter(site.kwargs))!r}")
            lb, ub, step = self._bounds(site)
            return self._counted(node, "pipeline", lb, ub, step, opts)
        raise self.error(it, f"cannot loop over {describe(fn)} in a kernel; use tc.serial, "
                         f"tc.parallel, tc.pipeline, tc.reduction, tc.static_range or range")

    def _bounds(self, site: tiles.CallSite) -> tuple[ir.Value, ir.Value, ir.Value]:
        args = site.args
        if not 1 <= len(args) <= 3:
            raise site.error(f"{site.name}() takes 1 to 3 bounds, got {len(args)}")
        if len(args) == 1:
            lo, hi, step = 0, args[0], 1
        else:
            lo, hi = args[0], args[1]
            step = args[2] if len(args) == 3 else 1
        if isinstance(step, int) and step <= 0:
            raise site.error(f"{site.name}() needs a positive step, got {step}", 2)
        vals = []
        for k, v in enumerate((lo, hi, step)):
            vals.append(tiles.as_index(self, site.node_of(min(k, len(args) - 1)), v,
                                       "a loop bound").value)
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
            return tiles.scalar_value(self, v, t) if is_number(v) or isinstance(v, ScalarVal) \
                else v.value, lambda a: ScalarVal(a, Affine.atom(a))
        if is_number(v):
            t = tiles.weak_type(v)
            return self.const(tiles._typed_number(v, t), t), lambda a: ScalarVal(a,
                                                                                  Affine.atom(a))
        v = tiles.materialize(self, node, v)
        if isinstance(v, ScalarVal):
            return v.value, lambda a: ScalarVal(a, Affine.atom(a))
        if isinstance(v, TileVal):
            return v.value, TileVal
        if isinstance(v, MemVal):
            fill = v.fill
            return v.value, lambda a: MemVal(a, fill)
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
                    ys.append(tiles.scalar_value(self, v, t))
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
            segs[-1][1].append(s)
        return segs

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
            base, fill = v.value, v.fill
            has_view = here(v.value)
            has_tile = cached is not None and here(cached.value)

            def wrap(a: list[ir.Value], b: ir.Block) -> MemVal:
                m = MemVal(a[0] if has_view else base, fill)
                if has_tile:
                    m.loaded = (TileVal(a[-1]), b, self.ctx.write_epoch)  # type: ignore
                return m

            return vals, wrap
        return [], None

    # ---------------------------------------------------------------- static range
    def _static_range(self, node: ast.For, site: tiles.CallSite) -> None:
        vals = [v for v in site.args]
        if site.kwargs or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals) \
                or not 1 <= len(vals) <= 3:
            raise site.error("tc.static_range() takes 1 to 3 compile-time integers")
        name = self._loop_target(node)
        for n in ast.walk(node):
            if isinstance(n, (ast.Break, ast.Continue)) and self.sets.loop_of.get(id(n)) is node:
                raise self.error(n, "break/continue are not supported in tc.static_range loops")
        for i in range(*vals):
            self.env[name] = i
            self.visit_body(node.body)

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
        self.pars.append(_Par(slots, self.depth))
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

    def _update_slot(self, where: ast.AST, name: str) -> _Slot:
        slot = self._slot(name)
        if slot is None:
            raise self.error(where, f"partial assignment to {name}: tiles are values; only a "
                             f"tile declared outside a tc.parallel nest can be updated in parts "
                             f"from inside it")
        if self.pars[-1].slots.get(name) is not slot:
            raise self.error(where, f"{name} belongs to an outer parallel nest; update it at the "
                             f"top level of that nest")
        if self.depth != slot.depth:
            raise self.error(where, f"the update of {name} must be a top-level statement of the "
                             f"parallel nest's body (not inside a loop or an if)")
        if slot.update is not None:
            line = self.src.position(slot.where)[0]  # type: ignore[arg-type]
            raise self.error(where, f"{name} is already updated by this instance at line {line};"
                             f" an instance may update each ancestor tile once")
        return slot

    def _record_update(self, where: ast.AST, slot: _Slot, payload: Any,
                       origin: list[Any], shape: tuple[int, ...] | None) -> None:
        init_t = slot.entry.type
        rank = init_t.rank  # type: ignore[attr-defined]
        if len(origin) != rank:
            raise self.error(where, f"the update of {slot.name} needs {rank} origin coordinates, "
                             f"got {len(origin)}")
        if shape is not None:
            payload = tiles.as_tileish(self, where, payload)
            pshape = tiles.tile_shape(self, where, payload) if isinstance(
                payload, (TileVal, ViewTile, Elem)) else None
            if pshape is not None and pshape != shape:
                if len(pshape) < len(shape) and tuple(e for e in shape if e != 1) == pshape:
                    payload = tiles.reshape(self, where, payload, shape)
                else:
                    payload = tiles.broadcast_to(self, where, payload, shape)
            elif pshape is None:
                payload = tiles.broadcast_to(self, where, payload, shape)
        payload = tiles.cast_value(self, where, payload, init_t.dtype)  # type: ignore
        tile = tiles.as_tile(self, where, payload, "a tile patch")
        if len(tile.shape) != rank:
            raise self.error(where, f"the patch for {slot.name} is {describe(tile)}; a rank-"
                             f"{rank} patch is needed")
        for e, full in zip(tile.shape, init_t.shape):  # type: ignore[attr-defined]
            if e > int(full):
                raise self.error(where, f"the patch {describe(tile)} is larger than "
                                 f"{slot.name} ({init_t})")
        ovals = [tiles.as_index(self, where, o, "an update origin").value for o in origin]
        if tile.value.name_hint is None:
            tile.value.name_hint = f"{slot.name}_patch"
        slot.update = (tile.value, ovals)
        slot.where = where
        line = self.src.position(where)[0]
        self.env[slot.name] = Undefined(
            f"{slot.name} was updated by this parallel instance at line {line}; the updated "
            f"tile exists only after the nest (read the patch instead)")

    def _slice_update(self, target: ast.Subscript, value: Any, stmt: ast.stmt) -> None:
        if not isinstance(target.value, ast.Name):
            raise self.error(target, "slice assignment needs a named tile: acc[...] = patch")
        name = target.value.id
        slot = self._update_slot(target, name)
        items = self._subscript_items(target)
        full = [int(e) for e in slot.entry.type.shape]  # type: ignore[attr-defined]
        if len(items) != len(full):
            raise self.error(target, f"{name} has rank {len(full)}; index every axis "
                             f"(use : for whole axes)")
        origin: list[Any] = []
        shape: list[int] = []
        for it, ext in zip(items, full):
            if isinstance(it, slice):
                start, size, step = tiles._slice_extent(self, target, it, ext)
                if step != 1:
                    raise self.error(target, "updates need unit-step slices")
                origin.append(start)
                shape.append(size)
            elif it is None or it is Ellipsis:
                raise self.error(target, "None and ... are not allowed in an update target")
            else:
                origin.append(it)
                shape.append(1)
        self._record_update(target, slot, value, origin, tuple(shape))

    def _update_call(self, stmt: ast.Assign, name: str, call: ast.Call) -> None:
        site = self._call_site(call, "tc.update")
        a = site.bind(["tile", "origin", "patch"])
        if not (isinstance(call.args[0], ast.Name) and call.args[0].id == name) \
                if call.args else True:
            raise site.error(f"write {name} = tc.update({name}, origin, patch): the updated tile "
                             f"must be assigned back to itself", 0)
        slot = self._update_slot(call, name)
        origin = a["origin"] if isinstance(a["origin"], tuple) else (a["origin"],)
        self._record_update(call, slot, a["patch"], list(origin), None)

    # ------------------------------------------------------------------- reduction
    def _reduction_loop(self, node: ast.For, site: tiles.CallSite) -> None:
        a = site.bind(["x", "axis", "policy"], {"axis": None, "policy": None})
        xs = a["x"] if isinstance(a["x"], tuple) else (a["x"],)
        inputs = [tiles.as_tile(self, site.node_of(0), x) for x in xs]
        names = _target_names(node.target)
        if len(names) != len(inputs) or not isinstance(node.target, (ast.Name, ast.Tuple)):
            raise self.error(node.target, f"this reduction loop visits {len(inputs)} element(s) "
                             f"at a time; bind {len(inputs)} name(s)")
        axes = tiles.normalize_axes(self, site, a["axis"], len(inputs[0].shape))
        policy = tiles.resolve_policy(site, a["policy"])
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
                seeds.append(self.const(tiles._typed_number(v, t), t))
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

        res = tiles.reduce_region(self, site, inputs, seeds, axes, policy, capture,
                                  names=[_hint(n) for n in states])
        for nm, r in zip(states, res):
            self.env[nm] = r
        for nm in written:
            if nm not in states:
                self.env[nm] = Undefined(f"it is local to the update of the reduction at line "
                                         f"{line}")
        for nm in names:
            self.env[nm] = Undefined(f"it is an element of the reduction at line {line}")

    # -------------------------------------------------------------------- expressions
    def visit_Constant(self, node: ast.Constant) -> Any:
        """Numbers, strings, ``None`` and ``...`` are compile-time values."""
        v = node.value
        if isinstance(v, (bool, int, float, str)) or v is None or v is Ellipsis:
            return v
        raise self.error(node, f"unsupported constant {v!r}")

    def visit_Name(self, node: ast.Name) -> Any:
        """A local's current binding, or a global resolved at compile time."""
        name = node.id
        if name in self.env:
            v = self.env[name]
            if isinstance(v, Undefined):
                raise self.error(node, f"{name} is not definitely assigned here: {v.reason}")
            return v
        if name in self.sets.locals:
            raise self.error(node, f"{name} is used before it is assigned")
        return self._global(name, node)

    def _global(self, name: str, node: ast.AST) -> Any:
        if name in self.closure:
            v = self.closure[name]
        elif name in self.globals:
            v = self.globals[name]
        elif hasattr(_py, name):
            v = getattr(_py, name)
            if v not in _PY_OK:
                raise self.error(node, f"the Python builtin {name}() is not supported in kernels")
            return v
        else:
            raise self.error(node, f"name {name!r} is not defined")
        return self._compile_time(v, name, node)

    def _compile_time(self, v: Any, name: str, node: ast.AST) -> Any:
        from .jit import DeviceFunction, Kernel

        if isinstance(v, (bool, int, float, str)) or v is None:
            return v
        if isinstance(v, (Builtin, DType, DeviceFunction, Kernel, types.ModuleType)) \
                or v is constexpr or v in _PY_OK:
            return v
        if isinstance(v, tuple):
            return tuple(self._compile_time(e, name, node) for e in v)
        import numpy as np

        if isinstance(v, np.generic) and v.shape == ():
            return v.item()
        if isinstance(v, type) or isinstance(v, np.dtype):
            t = dtype_from_numpy(v)
            if t is not None:
                return dtype_of_ir(t)
        raise self.error(node, f"the Python object {name!r} ({type(v).__name__}) cannot be used "
                         f"inside a kernel; kernels see numbers, strings, tuples, dtypes, tilec "
                         f"builtins and @tc.func helpers")

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        """``module.name``, ``A.shape``, ``x.T``, ``v.store`` ..."""
        base = self.visit(node.value)
        if isinstance(base, types.ModuleType):
            if not hasattr(base, node.attr):
                close = difflib.get_close_matches(node.attr, [n for n in dir(base)
                                                              if not n.startswith("_")], 1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.error(node, f"{base.__name__} has no attribute {node.attr!r}{hint}")
            return self._compile_time(getattr(base, node.attr), f"{base.__name__}.{node.attr}",
                                      node)
        if isinstance(base, (TileVal, ViewTile, Elem, MemVal, ScalarVal)):
            return tiles.attribute(self, node, base)
        if isinstance(base, DType) and node.attr in ("is_float", "name"):
            return getattr(base, node.attr)
        raise self.error(node, f"{describe(base)} has no attribute {node.attr!r} in a kernel")

    def _peek(self, expr: ast.AST) -> Any:
        """Resolve a name or attribute chain without emitting IR (None when it is not one)."""
        if isinstance(expr, ast.Name):
            if expr.id in self.env or expr.id in self.sets.locals:
                return self.env.get(expr.id)
            try:
                return self._global(expr.id, expr)
            except TileSyntaxError:
                return None
        if isinstance(expr, ast.Attribute):
            base = self._peek(expr.value)
            if isinstance(base, types.ModuleType):
                return getattr(base, expr.attr, None)
        return None

    def _call_site(self, node: ast.Call, name: str) -> tiles.CallSite:
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.visit(a.value)
                if not isinstance(v, tuple):
                    raise self.error(a, f"cannot unpack {describe(v)} with *")
                args.extend(v)
            else:
                args.append(self.visit(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(kw, "**kwargs is not supported in kernels")
            kwargs[kw.arg] = self.visit(kw.value)
        return tiles.CallSite(self, node, args, kwargs, name)

    def visit_Call(self, node: ast.Call) -> Any:
        """Builtins, DSL methods, casts, ``tc.func`` helpers and a few Python builtins."""
        fn = self.visit(node.func)
        name = ast.unparse(node.func)
        if isinstance(fn, Builtin):
            if fn.name in ("parallel", "serial", "pipeline", "reduction", "static_range"):
                raise self.error(node, f"{name}(...) is only valid as the iterable of a for loop")
            if fn.name == "stage":
                raise self.error(node, f"{name}() must be a top-level statement of a tc.pipeline "
                                 f"loop body (not inside an if, a nested loop or an expression)")
            if fn.name == "update":
                raise self.error(node, f"{name}() must be used as acc = {name}(acc, origin, "
                                 f"patch) at the top level of a tc.parallel body")
            site = self._call_site(node, name)
            if fn.name == "static_assert":
                return self._static_assert(site)
            return IMPLS[fn.name](self, site)
        if isinstance(fn, BoundMethod):
            return tiles.call_method(self, self._call_site(node, name), fn)
        if isinstance(fn, DType):
            site = self._call_site(node, name)
            a = site.bind(["x"])
            return tiles.cast_value(self, node, a["x"], fn.ir)
        if isinstance(fn, LocalFunction) or self.is_device_function(fn):
            site = self._call_site(node, name)
            if site.kwargs:
                raise site.error("keyword arguments are not supported when calling a helper")
            return self.call_function(fn, site.args, node)
        if fn in _PY_OK:
            return self._py_builtin(fn, self._call_site(node, name))
        from .jit import Kernel

        if isinstance(fn, Kernel):
            raise self.error(node, f"cannot call the kernel {name} from a kernel; make the shared "
                             f"code a @tc.func")
        raise self.error(node, f"{name} ({describe(fn)}) cannot be called inside a kernel")

    def _static_assert(self, site: tiles.CallSite) -> None:
        a = site.bind(["cond", "msg"], {"msg": "static assertion failed"})
        if not is_number(a["cond"]):
            raise site.error("tc.static_assert() needs a compile-time condition", 0)
        if not a["cond"]:
            raise site.error(f"static assertion failed: {a['msg']}")

    def _py_builtin(self, fn: Any, site: tiles.CallSite) -> Any:
        args = site.args
        if fn is range:
            raise site.error("range(...) is only valid as the iterable of a for loop")
        if site.kwargs:
            raise site.error(f"{site.name}() takes no keyword arguments in a kernel")
        if fn in (min, max):
            if len(args) < 2:
                raise site.error(f"{site.name}() in a kernel takes two or more values")
            out = args[0]
            for v in args[1:]:
                out = tiles.binary(self, site.node, "min" if fn is min else "max", out, v)
            return out
        if fn is abs and len(args) == 1:
            return tiles.unary(self, site.node, "abs", args[0])
        if fn is len and len(args) == 1 and isinstance(args[0], tuple):
            return len(args[0])
        if fn in (int, float, bool) and len(args) == 1 and (is_number(args[0])
                                                            or isinstance(args[0], str)):
            try:
                return fn(args[0])
            except ValueError as e:
                raise site.error(str(e)) from None
        raise site.error(f"{site.name}() is only supported on compile-time values here")

    def call_function(self, fn: Any, args: list[Any], node: ast.AST) -> Any:
        """Inline a ``lambda``, a nested ``def`` or a ``@tc.func`` at the insertion point."""
        if self.ctx.inline_depth > 32:
            raise self.error(node, "helper calls nest too deeply (recursion is not supported)")
        if isinstance(fn, LocalFunction):
            params = fn.params
            if len(args) != len(params):
                raise self.error(node, f"the helper takes {len(params)} arguments, got "
                                 f"{len(args)}")
            env = dict(fn.env)
            env.update(zip(params, args))
            if isinstance(fn.node, ast.Lambda):
                saved = self.env
                self.env = env
                try:
                    return tiles.materialize(self, node, self.visit(fn.node.body))
                finally:
                    self.env = saved
            sub = Capture(self.ctx, self.builder, fn.node, self.src, self.globals, self.closure,
                          env, is_kernel=False)
        else:
            sub = fn.sub_capture(self.ctx, self.builder, args, node, self)
        self.ctx.inline_depth += 1
        try:
            self.ctx.blocks.append(self.builder.ip.block)
            try:
                sub.visit_body(sub.fn_node.body)
            except _Return:
                pass
            finally:
                self.ctx.blocks.pop()
        finally:
            self.ctx.inline_depth -= 1
        return sub.returned

    def call_in_block(self, fn: Any, args: list[Any], block: ir.Block, node: ast.AST) -> Any:
        """Call a helper with the insertion point at the end of ``block`` (a combine region)."""
        self.pure += 1
        try:
            with self.at_block(block):
                return self.call_function(fn, args, node)
        finally:
            self.pure -= 1

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        """A lambda is a compile-time function (for ``tc.reduce(..., combine=...)``)."""
        return LocalFunction(node, dict(self.env))

    def visit_Tuple(self, node: ast.Tuple) -> Any:
        """A tuple of values (shapes, origins, multiple results)."""
        out: list[Any] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                v = self.visit(e.value)
                if not isinstance(v, tuple):
                    raise self.error(e, f"cannot unpack {describe(v)} with *")
                out.extend(v)
            else:
                out.append(self.visit(e))
        return tuple(out)

    def visit_List(self, node: ast.List) -> Any:
        """A list literal is a tuple in a kernel."""
        return self.visit_Tuple(ast.Tuple(node.elts, ast.Load()))

    def _binop_fn(self, op: ast.operator, node: ast.AST) -> str:
        if isinstance(op, ast.MatMult):
            return "matmul"
        fn = _BINOPS.get(type(op))
        if fn is None:
            raise self.error(node, f"the operator {type(op).__name__} is not supported in kernels")
        return fn

    def _binop(self, node: ast.AST, fn: str, a: Any, b: Any) -> Any:
        if fn == "matmul":
            site = tiles.CallSite(self, node, [a, b], {}, "@")  # type: ignore[arg-type]
            return tiles.dot(self, site, a, b)
        if isinstance(a, tuple) or isinstance(b, tuple):
            if fn == "add" and isinstance(a, tuple) and isinstance(b, tuple):
                return a + b
            if fn == "mul" and isinstance(a, tuple) and isinstance(b, int):
                return a * b
            raise self.error(node, f"unsupported operation on tuples: {fn}")
        if isinstance(a, str) or isinstance(b, str):
            if fn == "add" and isinstance(a, str) and isinstance(b, str):
                return a + b
            raise self.error(node, "strings only support + in kernels")
        if fn == "pow" and isinstance(b, int) and not isinstance(b, bool) and not is_number(a) \
                and b in (2, 3):
            out = a
            for _ in range(b - 1):
                out = tiles.binary(self, node, "mul", out, a)
            return out
        return tiles.binary(self, node, fn, a, b)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        """``a + b``, ``a @ b`` (a ``dot``), ``a ** 2`` ..."""
        fn = self._binop_fn(node.op, node)
        return self._binop(node, fn, self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        """``-x``, ``+x``, ``not c``, ``~c``."""
        v = self.visit(node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            return tiles.unary(self, node, "neg", v)
        if isinstance(node.op, ast.Not):
            if is_number(v) or v is None or isinstance(v, (str, tuple)):
                return not v
            if tiles.dtype_of(v) is not ir.i1:
                raise self.error(node, f"not needs a boolean, got {describe(v)}")
            return tiles.unary(self, node, "not", v)
        return tiles.unary(self, node, "not", v)

    def visit_Compare(self, node: ast.Compare) -> Any:
        """Comparisons give ``i1``; chains are joined with ``and``."""
        out: Any = None
        left = self.visit(node.left)
        for op, rnode in zip(node.ops, node.comparators):
            right = self.visit(rnode)
            if isinstance(op, (ast.Is, ast.IsNot)) and (left is None or right is None):
                r = (left is right) == isinstance(op, ast.Is)
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, tuple):
                r = (left in right) == isinstance(op, ast.In)
            else:
                fn = _CMPOPS.get(type(op))
                if fn is None:
                    raise self.error(node, f"the comparison {type(op).__name__} is not "
                                     f"supported in kernels")
                r = tiles.binary(self, node, fn, left, right)
            out = r if out is None else tiles.binary(self, node, "and", out, r)
            left = right
        return out

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        """``and``/``or``: Python semantics on compile-time values, ``arith and/or`` on ``i1``.

        With runtime operands both sides are evaluated (no short circuit).
        """
        vals = []
        for e in node.values:
            v = self.visit(e)
            if is_number(v) or v is None:
                if isinstance(node.op, ast.And) and not v:
                    return v if not vals else False
                if isinstance(node.op, ast.Or) and v:
                    return v if not vals else True
                continue
            if tiles.dtype_of(v) is not ir.i1:
                raise self.error(e, f"and/or need boolean operands, got {describe(v)}")
            vals.append(v)
        if not vals:
            return isinstance(node.op, ast.And)
        out = vals[0]
        for v in vals[1:]:
            out = tiles.binary(self, node, "and" if isinstance(node.op, ast.And) else "or",
                               out, v)
        return out

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        """``a if c else b``: a compile-time choice, or a ``select`` of both sides."""
        test = self.visit(node.test)
        if is_number(test) or test is None or isinstance(test, (str, tuple)):
            return self.visit(node.body if test else node.orelse)
        return tiles.elementwise(self, node, "select",
                                 [test, self.visit(node.body), self.visit(node.orelse)])

    def _subscript_items(self, node: ast.Subscript) -> list[Any]:
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        out: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Slice):
                out.append(slice(*(self.visit(p) if p is not None else None
                                   for p in (e.lower, e.upper, e.step))))
            else:
                out.append(self.visit(e))
        return out

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        """``t[i]`` on a tuple; ``x[a:b, None]`` on a tile (a ``reindex``)."""
        base = self.visit(node.value)
        if isinstance(base, tuple):
            idx = self.visit(node.slice) if not isinstance(node.slice, ast.Slice) else \
                self._subscript_items(node)[0]
            if isinstance(idx, (int, slice)) and not isinstance(idx, bool):
                try:
                    return base[idx]
                except IndexError:
                    raise self.error(node, f"index {idx} is out of range for a tuple of "
                                     f"{len(base)}") from None
            raise self.error(node, "tuples are indexed with compile-time integers")
        if isinstance(base, MemVal):
            raise self.error(node, "index memory through a window: A.tile(origin, shape)")
        if isinstance(base, (TileVal, ViewTile, Elem)):
            return tiles.subscript(self, node, base, self._subscript_items(node))
        raise self.error(node, f"{describe(base)} cannot be indexed")


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


_HINTS = {
    "While": "; use a counted loop (tc.serial/range) with break",
    "ListComp": "; build tiles with tc builtins",
    "With": "",
    "Try": "; kernels cannot catch exceptions",
    "Global": "", "Nonlocal": "",
    "JoinedStr": "; f-strings are not supported",
    "Dict": "", "Set": "",
}
