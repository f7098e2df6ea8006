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

from . import indexed, tiles, views
from .asserts import AssertCapture
from .builtins import IMPLS, Builtin, constexpr
from .builtins import SURFACE as B
from .constants import ConstantRangeError
from .dtypes import DType, dtype_from_numpy, dtype_of_ir
from .errors import SourceInfo, TileSyntaxError
from .operators import OperatorCapture
from .regions import RegionCapture, _Loop, _Par, _Retype, _Slot
from .scopes import (
    FunctionSets,
)
from .updates import UpdateCapture
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

_PY_OK = (range, min, max, abs, len, int, float, bool)
"""Python builtins a kernel may call (on compile-time values, or min/max/abs on scalars)."""


def _py_ok(v: Any) -> bool:
    return any(v is f for f in _PY_OK)


def _is_math(v: Any) -> bool:
    """A function of the ``math`` module (evaluated on compile-time numbers)."""
    return callable(v) and getattr(v, "__module__", None) == "math"


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


_NEEDS_PARALLEL = frozenset({"load", "store", "atomic", "memory", "mma", "reduce", "map",
                             "reindex", "load_scalar", "gather", "scatter"})
"""Tile operations that only have a meaning inside a ``parallel`` nest (verifier invariant 4).
A ``view`` is one too, but it is address arithmetic: one taken before the nest is moved into
the nests that use it after capture (``nest_sinking.py``)."""

_WORK = {"load": "reading memory (an array or window used as a value)",
         "store": "writing memory", "atomic": "an atomic update of memory",
         "memory": "tc.memory storage", "mma": "a matrix product", "reduce": "a reduction",
         "map": "elementwise tile arithmetic",
         "reindex": "a tile view (a transpose, slice, reshape or broadcast of a tile)",
         "load_scalar": "reading an element of memory (M[i])",
         "gather": "a gather", "scatter": "a scatter"}
"""What each of those operations is, in the words of an error at top level."""


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
            msg = (f"{_WORK[name]} is tile work, which must happen inside a tc.parallel nest "
                   f"(one instance per program); wrap the kernel body in "
                   f"`for p in tc.parallel(...)`")
            raise TileSyntaxError(msg, loc.filename, loc.line, loc.col, loc.end_col, line)
        return super().create(name, *args, **kwargs)


class _Return(Exception):
    """Internal: a ``tc.func`` body reached its final ``return``."""


class Capture(RegionCapture, UpdateCapture, OperatorCapture, AssertCapture, ast.NodeVisitor):
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
        """Counted loops around the current statement (innermost last), for break/continue."""
        self.pars: list[_Par] = []
        """Parallel nests around the current statement, with their ancestor-update slots."""
        self.depth = 0
        """Nesting of IR regions (loop bodies, if branches) around the current statement."""
        self.pure = 0
        """Positive while capturing a reduction update, which may not write memory."""
        self.returned: Any = None
        """The value of a ``tc.func``'s ``return``."""
        self.reported: list[tuple[str, Any]] | None = None
        """While an ``assert``'s condition is captured: each compared value with its source."""

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
        except (ir.LayoutError, ir.IRError, ConstantRangeError) as e:
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
            # ids are only a hint; the operands must be the very same values
            if got is not None and all(x is y for x, y in zip(got.defining_op.operands,
                                                                operands)):
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
        top = self.depth == 0 and not self.loops and not self.pars
        if self.is_kernel:
            if node.value is not None:
                raise self.error(node, "a kernel returns nothing; write outputs with .store()")
            if not top:
                raise self.error(node, "return inside a loop, a parallel nest or a runtime if is "
                                 "not supported; only a compile-time branch may end a kernel")
            raise _Return()
        if not top:
            raise self.error(node, "a tc.func may return only outside loops and runtime ifs "
                             "(compile-time branches are fine)")
        self.returned = tiles.materialize(self, node, self.visit(node.value)) \
            if node.value is not None else None
        raise _Return()

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
            if not _py_ok(v):
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
                or v is constexpr or _py_ok(v) or _is_math(v):
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
            return views.attribute(self, node, base)
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
            return views.call_method(self, self._call_site(node, name), fn)
        if isinstance(fn, DType):
            site = self._call_site(node, name)
            a = site.bind(["x"])
            return tiles.cast_value(self, node, a["x"], fn.ir)
        if isinstance(fn, LocalFunction) or self.is_device_function(fn):
            site = self._call_site(node, name)
            if site.kwargs:
                raise site.error("keyword arguments are not supported when calling a helper")
            return self.call_function(fn, site.args, node)
        if _py_ok(fn):
            return self._py_builtin(fn, self._call_site(node, name))
        if _is_math(fn):
            site = self._call_site(node, name)
            if site.kwargs or not all(is_number(a) for a in site.args):
                raise site.error(f"{name}() is evaluated while compiling and needs compile-time "
                                 f"numbers; use the tc builtin for runtime values")
            try:
                return fn(*site.args)
            except (ValueError, ArithmeticError, TypeError) as e:
                raise site.error(f"{name}(): {e}") from None
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
            items = self._subscript_items(node)
            if indexed.is_element_index(base, items):
                return indexed.scalar_read(self, node, base, items)
            if not all(e.is_static for e in base.type.shape):
                raise self.error(node, "index memory with one integer per axis (M[i, j] reads "
                                 "one element as a scalar), or take a window: "
                                 "A.tile(origin, shape)")
            base = tiles.load_view(self, node, base)
            return views.subscript(self, node, base, items)
        if isinstance(base, (TileVal, ViewTile, Elem)):
            return views.subscript(self, node, base, self._subscript_items(node))
        raise self.error(node, f"{describe(base)} cannot be indexed")


_HINTS = {
    "While": "; use a counted loop (tc.serial/range) with break",
    "ListComp": "; build tiles with tc builtins",
    "With": "",
    "Try": "; kernels cannot catch exceptions",
    "Global": "", "Nonlocal": "",
    "JoinedStr": "; f-strings are not supported",
    "Dict": "", "Set": "",
}
