"""Value semantics of the DSL: how each tile/scalar/memory builtin becomes TileIR.

Everything here builds IR through the ``Capture`` it is given (its builder,
constant cache, error reporting). Elementwise expressions are built as an
``Elem`` tree and emitted as one ``map`` when consumed, so a chain like
``exp(x - m) * s`` is one ``map`` whose region holds the ``arith`` ops; tile
views (transpose, broadcast, reshape, slice) are lazy ``ViewTile`` records
that compose into a single ``reindex``. Type rules:

* scalars promote like numpy (int -> float, narrower -> wider, any int ->
  ``index`` when mixed with ``index``); Python numbers are *weak* and take the
  other operand's type;
* a scalar operand of a tile expression is converted to the tile's type;
* two tiles of different element types are an error (convert with ``.to``);
* ``store`` converts the stored tile to the memory's element type.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .dtypes import DType, dtype_of_ir
from .values import (
    Affine,
    BoundMethod,
    Elem,
    LocalFunction,
    MemVal,
    ScalarVal,
    TileVal,
    ViewTile,
    describe,
    is_number,
)

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["CallSite", "binary", "unary", "materialize", "as_tile", "as_index", "cast_value",
           "attribute", "call_method", "subscript", "promote_scalar", "reduce_region",
           "load_view", "store_view"]

TILEISH = (TileVal, ViewTile, Elem)


class CallSite:
    """A call being captured: its node, evaluated arguments and a small argument binder."""

    def __init__(self, cap: Capture, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                 name: str) -> None:
        self.cap = cap
        """The capture building IR."""
        self.node = node
        """The ``Call`` node (errors point at it)."""
        self.args = args
        """Positional arguments, evaluated."""
        self.kwargs = kwargs
        """Keyword arguments, evaluated."""
        self.name = name
        """How the user spelled the callee, for messages."""

    def node_of(self, i: int | str) -> ast.AST:
        """The AST node of positional argument ``i`` or keyword ``i`` (else the call)."""
        if isinstance(i, int) and i < len(self.node.args):
            return self.node.args[i]
        for kw in self.node.keywords:
            if kw.arg == i:
                return kw.value
        return self.node

    def error(self, msg: str, at: int | str | None = None) -> Exception:
        """A located error at the call or at one of its arguments."""
        return self.cap.error(self.node if at is None else self.node_of(at), msg)

    def bind(self, names: Sequence[str], defaults: dict[str, Any] | None = None
             ) -> dict[str, Any]:
        """Match arguments to ``names`` (``*rest`` collects extra positionals)."""
        defaults = defaults or {}
        out: dict[str, Any] = {}
        pos = list(self.args)
        star = next((n[1:] for n in names if n.startswith("*")), None)
        plain = [n for n in names if not n.startswith("*")]
        for n in plain:
            if pos and not (star is not None and plain.index(n) >= names.index("*" + star)):
                out[n] = pos.pop(0)
        if star is not None:
            out[star] = tuple(pos)
            pos = []
        if pos:
            raise self.error(f"{self.name}() takes at most {len(plain)} positional arguments, "
                             f"got {len(self.args)}")
        for k, v in self.kwargs.items():
            if k not in plain:
                raise self.error(f"{self.name}() got an unexpected keyword argument {k!r}", k)
            if k in out:
                raise self.error(f"{self.name}() got multiple values for argument {k!r}", k)
            out[k] = v
        for n in plain:
            if n not in out:
                if n not in defaults:
                    raise self.error(f"{self.name}() missing required argument {n!r}")
                out[n] = defaults[n]
        return out

    def index_of(self, name: str, names: Sequence[str]) -> int | str:
        """Where argument ``name`` was written (for error locations)."""
        if name in self.kwargs:
            return name
        i = list(names).index(name)
        return i


# ------------------------------------------------------------------------ types


def dtype_of(x: Any) -> ir.ScalarType | None:
    """The element type of a staged value; None for weak Python numbers."""
    if isinstance(x, (ScalarVal, TileVal, ViewTile, Elem, MemVal)):
        return x.dtype
    return None


def weak_type(x: Any) -> ir.ScalarType:
    """The type a Python number takes when nothing else decides: bool->i1, int->i32, float->f32."""
    if isinstance(x, bool):
        return ir.i1
    if isinstance(x, int):
        return ir.i32
    return ir.f32


def promote_scalar(a: ir.ScalarType, b: ir.ScalarType) -> ir.ScalarType:
    """The common type of two scalar types (numpy-like; ``index`` absorbs other integers)."""
    if a is b:
        return a
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a.is_float:
        if a.bits == b.bits:  # f16 and bf16
            return ir.f32
        return a if a.bits > b.bits else b
    if ir.index in (a, b):
        return ir.index
    return a if a.bits >= b.bits else b


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join(str(e) for e in shape) or "scalar"


def broadcast_shapes(cap: Capture, node: ast.AST, shapes: Sequence[tuple[int, ...]]
                     ) -> tuple[int, ...]:
    """Numpy broadcasting of static shapes (error at ``node`` when incompatible)."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, e in enumerate(s):
            j = rank - len(s) + i
            if out[j] == 1:
                out[j] = e
            elif e not in (1, out[j]):
                raise cap.error(node, "tile shapes " + " and ".join(_shape_str(x) for x in shapes)
                                + " do not broadcast together")
    return tuple(out)


# ---------------------------------------------------------------- materializing


def materialize(cap: Capture, node: ast.AST, x: Any) -> Any:
    """Emit pending lazy work: an ``Elem`` tree becomes a ``map``, a ``ViewTile`` a ``reindex``."""
    if isinstance(x, Elem):
        return _emit_map(cap, node, x)
    if isinstance(x, ViewTile):
        return _emit_reindex(cap, x)
    if isinstance(x, tuple):
        return tuple(materialize(cap, node, e) for e in x)
    return x


def as_tile(cap: Capture, node: ast.AST, x: Any, what: str = "a tile") -> TileVal:
    """``x`` as a materialized tile (views of memory are loaded)."""
    if isinstance(x, MemVal):
        return load_view(cap, node, x)
    x = materialize(cap, node, x)
    if not isinstance(x, TileVal):
        raise cap.error(node, f"expected {what}, got {describe(x)}")
    return x


def as_tileish(cap: Capture, node: ast.AST, x: Any) -> Any:
    """``x`` if it is a tile (lazy or not); memory is loaded; anything else is returned as is."""
    if isinstance(x, MemVal):
        return load_view(cap, node, x)
    return x


def _emit_reindex(cap: Capture, v: ViewTile) -> TileVal:
    src_t = v.src.type
    if v.map.is_identity and tuple(int(e) for e in src_t.shape) == v.shape:  # type: ignore
        return TileVal(v.src)
    t = ir.TileType(v.shape, v.dtype)
    return TileVal(cap.builder.value("reindex", [v.src, *v.syms], t, {"map": v.map},
                                     name_hint=v.src.name_hint))


def _leaf_operand(cap: Capture, x: Any, shape: tuple[int, ...]) -> ir.Value:
    """The map operand for a leaf: a scalar as is, a tile broadcast to ``shape``."""
    if isinstance(x, ScalarVal):
        return x.value
    if isinstance(x, TileVal) and x.shape == shape:
        return x.value
    v = x if isinstance(x, ViewTile) else ViewTile(x.value, ir.IndexMap.identity(len(x.shape)),
                                                   (), x.shape)
    if v.shape != shape:
        v = compose_view(v, ir.IndexMap.broadcast(v.shape, shape), (), shape)
    return _emit_reindex(cap, v).value


def _emit_map(cap: Capture, node: ast.AST, root: Elem) -> TileVal:
    shape = root.shape
    if root.fn == "leaf" and isinstance(root.args[0], (TileVal, ViewTile)):
        return TileVal(_leaf_operand(cap, root.args[0], shape))
    operands: list[ir.Value] = []
    slot: dict[int, int] = {}  # id(Elem leaf) -> operand index
    for leaf in _leaves(root):
        v = _leaf_operand(cap, leaf.args[0], shape)
        if id(v) not in [id(o) for o in operands]:
            operands.append(v)
        slot[id(leaf)] = [id(o) for o in operands].index(id(v))
    if not operands:  # a constant expression of a tile shape: splat it
        val = _fold_const(root)
        return TileVal(cap.builder.value("constant", [], ir.TileType(shape, root.dtype),
                                         {"value": val}))
    elem_types = [o.type if isinstance(o.type, ir.ScalarType) else o.type.dtype  # type: ignore
                  for o in operands]
    block = ir.Block(elem_types, [_arg_hint(o) for o in operands])
    memo: dict[int, ir.Value] = {}
    inner = ir.Builder(ir.InsertionPoint.at_end(block), cap.builder.loc)

    def emit(e: Elem) -> ir.Value:
        got = memo.get(id(e))
        if got is not None:
            return got
        if e.fn == "leaf":
            v = block.args[slot[id(e)]]
        elif e.fn == "const":
            v = inner.value("constant", [], e.dtype, {"value": _typed_number(e.args[0], e.dtype)})
        else:
            vals = [emit(a) for a in e.args]
            v = inner.value("arith", vals, e.dtype, {"fn": e.fn})
        memo[id(e)] = v
        return v

    out = emit(root)
    inner.create("yield", [out])
    op = cap.builder.create("map", operands, [ir.TileType(shape, root.dtype)],
                            {"shape": ir.IndexSet(shape)}, [ir.Region([block])])
    return TileVal(op.result)


def _arg_hint(v: ir.Value) -> str | None:
    return v.name_hint


def _leaves(root: Elem) -> list[Elem]:
    """Leaf nodes in left-to-right order, each once."""
    out: list[Elem] = []
    seen: set[int] = set()

    def walk(e: Elem) -> None:
        if id(e) in seen:
            return
        seen.add(id(e))
        if e.fn == "leaf":
            out.append(e)
        elif e.fn != "const":
            for a in e.args:
                walk(a)

    walk(root)
    return out


def _fold_const(e: Elem) -> Any:
    if e.fn == "const":
        return _typed_number(e.args[0], e.dtype)
    raise AssertionError("non-constant expression without operands")


def _typed_number(v: Any, t: ir.ScalarType) -> Any:
    if t is ir.i1:
        return bool(v)
    if t.is_float:
        return float(v)
    return int(v)


# ------------------------------------------------------------------- elementwise


def _to_elem(cap: Capture, node: ast.AST, x: Any) -> Elem:
    """Wrap an operand as an expression node (numbers stay weak, memory is loaded)."""
    if isinstance(x, Elem):
        return x
    if isinstance(x, MemVal):
        x = load_view(cap, node, x)
    if isinstance(x, (TileVal, ViewTile)):
        return Elem("leaf", (x,), x.dtype, x.shape)
    if isinstance(x, ScalarVal):
        return Elem("leaf", (x,), x.dtype, ())
    if is_number(x):
        return Elem("const", (x,), weak_type(x), ())
    raise cap.error(node, f"expected a tile or a scalar, got {describe(x)}")


def _convert(e: Elem, t: ir.ScalarType) -> Elem:
    if e.dtype is t:
        return e
    if e.fn == "const":
        return Elem("const", e.args, t, e.shape)
    return Elem("cast", (e,), t, e.shape)


_FLOAT_ONLY = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "sin",
               "cos", "floor", "ceil", "div", "pow", "fma"}
_INT_ONLY = {"floordiv", "cdiv", "and", "or", "xor", "not"}
_CMP = {"eq", "ne", "lt", "le", "gt", "ge"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "rem": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "lt": "<", "le": "<=", "gt": ">",
           "ge": ">=", "eq": "==", "ne": "!="}


def _check_fn_type(cap: Capture, node: ast.AST, fn: str, t: ir.ScalarType) -> None:
    name = _SYMBOL.get(fn, fn)
    if fn in _FLOAT_ONLY and not t.is_float:
        hint = " (use // for integer division)" if fn == "div" else \
            " (convert first, e.g. x.to(tc.float32))"
        raise cap.error(node, f"{name} needs floating-point operands, got {t}{hint}")
    if fn in _INT_ONLY and t.is_float:
        raise cap.error(node, f"{name} needs integer operands, got {t}")


def _operand_types(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any]) -> ir.ScalarType:
    """The common operand type of an elementwise function over mixed operands."""
    tiles = [v for v in vals if isinstance(v, (*TILEISH, MemVal))]
    scalars = [v for v in vals if isinstance(v, ScalarVal)]
    numbers = [v for v in vals if is_number(v)]
    if tiles:
        dts = {dtype_of(t) for t in tiles}
        if len(dts) > 1:
            names = " and ".join(sorted(str(d) for d in dts))
            raise cap.error(node, f"{_SYMBOL.get(fn, fn)} mixes tiles of element types {names}; "
                            f"convert one with .to(...) first")
        t = dts.pop()
    elif scalars:
        t = scalars[0].dtype
        for s in scalars[1:]:
            t = promote_scalar(t, s.dtype)
    else:
        t = weak_type(numbers[0])
        for n in numbers[1:]:
            t = promote_scalar(t, weak_type(n))
    if any(isinstance(n, float) for n in numbers) and not t.is_float and (tiles or scalars):
        if tiles:
            raise cap.error(node, f"cannot combine a float constant with an integer tile "
                            f"({t}); convert the tile with .to(tc.float32) first")
        t = promote_scalar(t, ir.f32)
    return t


def elementwise(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any],
                out_type: ir.ScalarType | None = None) -> Any:
    """Apply ``arith fn`` elementwise: folds numbers, emits scalar ``arith`` or builds ``Elem``."""
    vals = [as_tileish(cap, node, v) for v in vals]
    for v in vals:
        if not (is_number(v) or isinstance(v, (ScalarVal, *TILEISH))):
            raise cap.error(node, f"{_SYMBOL.get(fn, fn)} cannot take {describe(v)}")
    if fn == "select":
        cond, a, b = vals
        t = _operand_types(cap, node, "select", [a, b])
        ct = dtype_of(cond) if not is_number(cond) else ir.i1
        if ct is not ir.i1:
            raise cap.error(node, f"where() needs a boolean condition, got {ct}")
        typed = [cond, a, b]
        arg_types = [ir.i1, t, t]
        res_t = t
    else:
        t = _operand_types(cap, node, fn, vals)
        if fn not in _CMP and fn != "cast":
            _check_fn_type(cap, node, fn, t)
        typed = list(vals)
        arg_types = [t] * len(vals)
        res_t = ir.i1 if fn in _CMP else (out_type or t)
    if all(is_number(v) for v in typed):
        return _fold(cap, node, fn, typed)
    if not any(isinstance(v, TILEISH) for v in typed):
        return _scalar_arith(cap, node, fn, typed, arg_types, res_t)
    elems = [_convert(_to_elem(cap, node, v), at) for v, at in zip(typed, arg_types)]
    shape = broadcast_shapes(cap, node, [e.shape for e in elems])
    return Elem(fn, tuple(elems), res_t, shape)


_PY_BIN: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "rem": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "eq": operator.eq,
    "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge, "max": max, "min": min, "cdiv": lambda a, b: -(-a // b),
}
_PY_UN: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg, "abs": abs, "not": lambda a: (not a) if isinstance(a, bool) else ~a,
    "exp": math.exp, "exp2": lambda a: 2.0 ** a, "log": math.log, "log2": math.log2,
    "sqrt": math.sqrt, "rsqrt": lambda a: 1.0 / math.sqrt(a), "tanh": math.tanh,
    "erf": math.erf, "sigmoid": lambda a: 1.0 / (1.0 + math.exp(-a)), "sin": math.sin,
    "cos": math.cos, "floor": math.floor, "ceil": math.ceil,
}


def _fold(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any]) -> Any:
    try:
        if fn == "select":
            return vals[1] if vals[0] else vals[2]
        if fn == "fma":
            return vals[0] * vals[1] + vals[2]
        if len(vals) == 2:
            return _PY_BIN[fn](vals[0], vals[1])
        return _PY_UN[fn](vals[0])
    except (ArithmeticError, ValueError) as e:
        raise cap.error(node, f"constant expression fails: {e}") from None


def _affine_of(x: Any) -> Affine | None:
    if isinstance(x, ScalarVal):
        return x.affine
    if isinstance(x, int) and not isinstance(x, bool):
        return Affine((), x)
    return None


def _scalar_arith(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any],
                  arg_types: Sequence[ir.ScalarType], res_t: ir.ScalarType) -> ScalarVal:
    ops = [scalar_value(cap, v, t) for v, t in zip(vals, arg_types)]
    v = cap.pure_arith(fn, ops, res_t, cap.loc(node))
    aff = None
    if res_t is ir.index and fn in ("add", "sub", "mul"):
        a, b = (_affine_of(x) for x in vals)
        if a is not None and b is not None:
            if fn == "add":
                aff = a.add(b)
            elif fn == "sub":
                aff = a.add(b, -1)
            elif a.is_const:
                aff = b.scale(a.const)
            elif b.is_const:
                aff = a.scale(b.const)
    return ScalarVal(v, aff if aff is not None else Affine.atom(v))


def scalar_value(cap: Capture, x: Any, t: ir.ScalarType) -> ir.Value:
    """``x`` (a number or a scalar) as an SSA value of type ``t`` (casting when needed)."""
    if is_number(x):
        return cap.const(_typed_number(x, t), t)
    v = x.value
    if v.type is t:
        return v
    return cap.pure_arith("cast", [v], t)


def binary(cap: Capture, node: ast.AST, fn: str, a: Any, b: Any) -> Any:
    """A binary operator (``+``, ``<`` ...) on any mix of numbers, scalars and tiles."""
    return elementwise(cap, node, fn, [a, b])


def unary(cap: Capture, node: ast.AST, fn: str, a: Any) -> Any:
    """A unary function (``-x``, ``exp(x)`` ...)."""
    return elementwise(cap, node, fn, [a])


def cast_value(cap: Capture, node: ast.AST, x: Any, t: ir.ScalarType) -> Any:
    """Convert ``x`` elementwise to ``t``."""
    x = as_tileish(cap, node, x)
    if is_number(x):
        return ScalarVal(cap.const(_typed_number(x, t), t))
    if isinstance(x, ScalarVal):
        if x.dtype is t:
            return x
        return ScalarVal(cap.builder.value("arith", [x.value], t, {"fn": "cast"},
                                           loc=cap.loc(node)))
    if isinstance(x, TILEISH):
        if x.dtype is t:
            return x
        return _convert(_to_elem(cap, node, x), t)
    raise cap.error(node, f"cannot convert {describe(x)} to {t}")


def as_index(cap: Capture, node: ast.AST, x: Any, what: str = "an index") -> ScalarVal:
    """``x`` as an ``index`` scalar (integers are converted; floats are an error)."""
    x = materialize(cap, node, x)
    if isinstance(x, bool) or (is_number(x) and not isinstance(x, int)):
        raise cap.error(node, f"{what} must be an integer, got {describe(x)}")
    if isinstance(x, int):
        return ScalarVal(cap.const(x, ir.index), Affine((), x))
    if isinstance(x, ScalarVal):
        if x.dtype is ir.index:
            return x
        if x.dtype.is_float or x.dtype is ir.i1:
            raise cap.error(node, f"{what} must be an integer, got {describe(x)}")
        v = cap.builder.value("arith", [x.value], ir.index, {"fn": "cast"})
        return ScalarVal(v, Affine.atom(v))
    raise cap.error(node, f"{what} must be an integer scalar, got {describe(x)}")


def static_int(cap: Capture, node: ast.AST, x: Any, what: str) -> int:
    """``x`` as a compile-time ``int`` (tile extents, axes)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise cap.error(node, f"{what} must be a compile-time integer (a constexpr), "
                        f"got {describe(x)}")
    return x


def static_shape(cap: Capture, node: ast.AST, x: Any, what: str = "a tile shape"
                 ) -> tuple[int, ...]:
    """A tuple of compile-time non-negative ints."""
    if isinstance(x, int) and not isinstance(x, bool):
        x = (x,)
    if not isinstance(x, tuple):
        raise cap.error(node, f"{what} must be a tuple of constexpr integers, got {describe(x)}")
    out = tuple(static_int(cap, node, e, what) for e in x)
    if any(e <= 0 for e in out):
        raise cap.error(node, f"{what} must have positive extents, got {out}")
    return out


def _dtype_arg(cap: Capture, node: ast.AST, x: Any) -> ir.ScalarType:
    if isinstance(x, DType):
        return x.ir
    from .dtypes import dtype_from_numpy

    t = dtype_from_numpy(x) if x is not None and not is_number(x) else None
    if t is None:
        raise cap.error(node, f"expected a dtype such as tc.float32, got {describe(x)}")
    return t


# ------------------------------------------------------------------------ views


def compose_view(v: ViewTile, m: ir.IndexMap, syms: tuple[ir.Value, ...],
                 shape: tuple[int, ...]) -> ViewTile:
    """``v`` read through ``m``: ``result[i] = v[m(i)]``, one composed map."""
    return ViewTile(v.src, v.map.compose(m), v.syms + syms, shape)


def reindex(cap: Capture, node: ast.AST, x: Any, m: ir.IndexMap, syms: tuple[ir.Value, ...],
            shape: tuple[int, ...]) -> ViewTile:
    """A lazy ``reindex`` of a tile (composed with an earlier lazy one)."""
    x = as_tileish(cap, node, x)
    if isinstance(x, Elem):
        x = materialize(cap, node, x)
    if isinstance(x, ViewTile):
        return compose_view(x, m, syms, shape)
    if isinstance(x, TileVal):
        return ViewTile(x.value, m, syms, shape)
    raise cap.error(node, f"expected a tile, got {describe(x)}")


def tile_shape(cap: Capture, node: ast.AST, x: Any) -> tuple[int, ...]:
    """Static shape of a tile-like value."""
    x = as_tileish(cap, node, x)
    if isinstance(x, TILEISH):
        return x.shape
    raise cap.error(node, f"expected a tile, got {describe(x)}")


def permute(cap: Capture, node: ast.AST, x: Any, perm: Sequence[int]) -> Any:
    """Axes permutation: result axis ``k`` is source axis ``perm[k]`` (numpy ``transpose``)."""
    if isinstance(x, MemVal):
        return _permute_memory(cap, node, x, perm)
    shape = tile_shape(cap, node, x)
    if sorted(perm) != list(range(len(shape))):
        raise cap.error(node, f"{list(perm)} is not a permutation of the {len(shape)} axes")
    new = tuple(shape[p] for p in perm)
    return reindex(cap, node, x, ir.IndexMap.transpose(perm), (), new)


def _permute_memory(cap: Capture, node: ast.AST, m: MemVal, perm: Sequence[int]) -> MemVal:
    t = m.type
    if sorted(perm) != list(range(t.rank)):
        raise cap.error(node, f"{list(perm)} is not a permutation of the {t.rank} axes")
    shape = [t.shape[p] for p in perm]
    vt = ir.MemoryType(shape, t.dtype, t.space)
    v = cap.builder.value("view", [m.value], vt, {"map": ir.IndexMap.transpose(perm),
                                                   "bounds": "total"},
                          loc=cap.loc(node), name_hint=m.value.name_hint)
    return MemVal(v, m.fill)


def reshape(cap: Capture, node: ast.AST, x: Any, shape: tuple[int, ...]) -> Any:
    """Row-major reshape of a tile."""
    old = tile_shape(cap, node, x)
    if math.prod(old) != math.prod(shape):
        raise cap.error(node, f"cannot reshape a {_shape_str(old)} tile to {_shape_str(shape)} "
                        f"(element counts differ)")
    return reindex(cap, node, x, ir.IndexMap.reshape(old, shape), (), shape)


def broadcast_to(cap: Capture, node: ast.AST, x: Any, shape: tuple[int, ...]) -> Any:
    """Numpy broadcasting of a tile (or scalar) to ``shape``."""
    x = as_tileish(cap, node, x)
    if is_number(x) or isinstance(x, ScalarVal):
        return Elem("leaf", (x,), dtype_of(x) or weak_type(x), shape) \
            if isinstance(x, ScalarVal) else Elem("const", (x,), weak_type(x), shape)
    old = tile_shape(cap, node, x)
    try:
        m = ir.IndexMap.broadcast(old, shape)
    except ir.LayoutError as e:
        raise cap.error(node, f"cannot broadcast a {_shape_str(old)} tile to "
                        f"{_shape_str(shape)}: {e}") from None
    return reindex(cap, node, x, m, (), shape)


def expand_dims(cap: Capture, node: ast.AST, x: Any, axes: Sequence[int]) -> Any:
    """Insert unit axes at positions ``axes`` of the result."""
    shape = tile_shape(cap, node, x)
    rank = len(shape) + len(axes)
    axes = sorted(a % rank for a in axes)
    results: list[ir.AffineExpr] = []
    new: list[int] = []
    src = 0
    for k in range(rank):
        if k in axes:
            new.append(1)
        else:
            new.append(shape[src])
            results.append(ir.d(k))
            src += 1
    return reindex(cap, node, x, ir.IndexMap(rank, results), (), tuple(new))


def subscript(cap: Capture, node: ast.Subscript, x: Any, items: list[Any]) -> Any:
    """``x[...]`` on a tile: integers drop an axis, slices keep one, ``None`` adds one."""
    shape = tile_shape(cap, node, x)
    results: list[ir.AffineExpr] = []
    syms: list[ir.Value] = []
    new: list[int] = []
    axis = 0
    n_real = sum(1 for it in items if not (it is None or it is Ellipsis))
    if n_real > len(shape):
        raise cap.error(node, f"too many indices ({n_real}) for a rank-{len(shape)} tile")
    for it in items:
        if it is Ellipsis:
            for _ in range(len(shape) - n_real):
                results.append(ir.d(len(new)))
                new.append(shape[axis])
                axis += 1
            continue
        if it is None:
            new.append(1)
            continue
        ext = shape[axis]
        if isinstance(it, slice):
            start, size, step = _slice_extent(cap, node, it, ext)
            if isinstance(start, int):
                results.append(ir.d(len(new)) * step + start)
            else:
                results.append(ir.d(len(new)) * step + ir.s(len(syms)))
                syms.append(start.value)
            new.append(size)
        else:
            if isinstance(it, int) and not isinstance(it, bool):
                if not -ext <= it < ext:
                    raise cap.error(node, f"index {it} is out of range for an axis of {ext}")
                results.append(ir.const(it % ext))
            else:
                iv = as_index(cap, node, it, "a tile index")
                results.append(ir.s(len(syms)))
                syms.append(iv.value)
        axis += 1
    while axis < len(shape):
        results.append(ir.d(len(new)))
        new.append(shape[axis])
        axis += 1
    m = ir.IndexMap(len(new), results, len(syms))
    return reindex(cap, node, x, m, tuple(syms), tuple(new))


def _slice_extent(cap: Capture, node: ast.AST, sl: slice, ext: int
                  ) -> tuple[int | ScalarVal, int, int]:
    """``(start, size, step)`` of a tile slice; the size must be known at compile time."""
    step = 1 if sl.step is None else static_int(cap, node, sl.step, "a slice step")
    if step <= 0:
        raise cap.error(node, "tile slices need a positive step")
    start = 0 if sl.start is None else sl.start
    stop = ext if sl.stop is None else sl.stop
    if isinstance(start, int) and isinstance(stop, int):
        lo, hi, _ = slice(start, stop).indices(ext)
        return lo, max(0, -(-(hi - lo) // step)), step
    a, b = _affine_of(as_scalarish(start)), _affine_of(as_scalarish(stop))
    if a is None or b is None or not b.add(a, -1).is_const:
        raise cap.error(node, "a tile slice with a runtime start needs a compile-time size: "
                        "write x[i * 8:(i + 1) * 8] or x[i:i + 8]")
    size = b.add(a, -1).const
    if size <= 0:
        raise cap.error(node, f"tile slice has size {size}")
    start_v = as_index(cap, node, start, "a slice start")
    return start_v, -(-size // step), step


def as_scalarish(x: Any) -> Any:
    """Numbers and scalars pass; anything else becomes None."""
    return x if isinstance(x, (int, ScalarVal)) else None


# ----------------------------------------------------------------------- memory


def view(cap: Capture, node: ast.AST, m: MemVal, origin: Any, shape: Any, fill: Any
         ) -> MemVal:
    """``m.tile(origin, shape, fill=)``: a bounded window of memory."""
    t = m.type
    if not isinstance(origin, tuple):
        origin = (origin,)
    shape_t = static_shape(cap, node, shape, "the shape of a tile view")
    if len(origin) != t.rank or len(shape_t) != t.rank:
        raise cap.error(node, f"a view of rank-{t.rank} memory needs {t.rank} origin "
                        f"coordinates and {t.rank} extents, got {len(origin)} and {len(shape_t)}")
    if fill is not None and not is_number(fill):
        raise cap.error(node, f"fill must be a compile-time number, got {describe(fill)}")
    exprs: list[ir.AffineExpr] = []
    syms: list[ir.Value] = []
    for o in origin:
        if isinstance(o, int) and not isinstance(o, bool):
            exprs.append(ir.const(o))
        else:
            iv = as_index(cap, node, o, "a view origin")
            exprs.append(ir.s(len(syms)))
            syms.append(iv.value)
    vm = ir.IndexMap.offset(exprs, n_symbols=len(syms))
    vt = ir.MemoryType(shape_t, t.dtype, t.space)
    v = cap.builder.value("view", [m.value, *syms], vt, {"map": vm, "bounds": "bounded"},
                          loc=cap.loc(node))
    return MemVal(v, fill)


def load_view(cap: Capture, node: ast.AST, m: MemVal, fill: Any = None) -> TileVal:
    """Snapshot memory into a tile; the first load of a binding is reused until a write."""
    t = m.type
    if not all(e.is_static for e in t.shape):
        raise cap.error(node, f"cannot load {t} as a tile: its extents are not static; "
                        f"take a window first with .tile(origin, shape)")
    if fill is None:
        fill = m.fill
        cached = cap.cached_load(m)
        if cached is not None:
            return cached
    attrs = {} if fill is None else {"fill": _typed_number(fill, t.dtype)}
    hint = m.value.name_hint.removesuffix("_view") if m.value.name_hint else None
    v = cap.builder.value("load", [m.value], ir.TileType(t.shape, t.dtype), attrs,
                          loc=cap.loc(node), name_hint=hint)
    out = TileVal(v)
    if fill is m.fill:
        cap.remember_load(m, out)
    return out


def store_view(cap: Capture, node: ast.AST, m: MemVal, x: Any, op: str = "store",
               kind: str | None = None) -> None:
    """Write a tile (converted and broadcast to the view) through ``m``."""
    t = m.type
    if cap.pure:
        raise cap.error(node, "a reduction update cannot write memory")
    if not all(e.is_static for e in t.shape):
        raise cap.error(node, f"cannot {op} into {t}: its extents are not static; take a "
                        f"window first with .tile(origin, shape)")
    shape = tuple(int(e) for e in t.shape)
    x = as_tileish(cap, node, x)
    if not (is_number(x) or isinstance(x, (ScalarVal, *TILEISH))):
        raise cap.error(node, f"cannot {op} {describe(x)} into memory")
    if isinstance(x, TILEISH) and x.shape != shape:
        try:
            x = broadcast_to(cap, node, x, shape)
        except Exception:
            raise cap.error(node, f"{op} of a {_shape_str(x.shape)} tile into a "
                            f"{_shape_str(shape)} view: shapes differ") from None
    elif not isinstance(x, TILEISH):
        x = broadcast_to(cap, node, x, shape)
    x = cast_value(cap, node, x, t.dtype)
    tile = as_tile(cap, node, x)
    attrs = {} if kind is None else {"kind": kind}
    cap.builder.create(op, [m.value, tile.value], [], attrs, loc=cap.loc(node))
    cap.note_write()


def memory(cap: Capture, site: CallSite) -> MemVal:
    """``tc.memory(shape, dtype, space='shared')``: manual addressable storage."""
    a = site.bind(["shape", "dtype", "space"], {"dtype": None, "space": "shared"})
    shape = static_shape(cap, site.node_of(0), a["shape"], "a memory shape")
    dt = ir.f32 if a["dtype"] is None else _dtype_arg(cap, site.node, a["dtype"])
    if a["space"] not in ir.MEMORY_SPACES:
        raise site.error(f"unknown memory space {a['space']!r}; use one of "
                         f"{', '.join(ir.MEMORY_SPACES)}", "space")
    v = cap.builder.value("memory", [], ir.MemoryType(shape, dt, a["space"]), {},
                          loc=cap.loc(site.node))
    return MemVal(v)


# ------------------------------------------------------------- attributes/methods

_TILE_METHODS = {"to", "reshape", "permute", "broadcast_to", "sum", "max", "min", "astype"}
_MEM_METHODS = {"tile", "load", "store", "atomic_add", "atomic_max", "atomic_min", "permute"}


def attribute(cap: Capture, node: ast.Attribute, x: Any) -> Any:
    """``x.name`` for staged values: shapes, dtypes, ``.T`` and bound methods."""
    name = node.attr
    if isinstance(x, MemVal):
        if name == "shape":
            return cap.memory_shape(x)
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "ndim":
            return x.type.rank
        if name == "T":
            return _permute_memory(cap, node, x, list(range(x.type.rank))[::-1])
        if name in _MEM_METHODS or name in _TILE_METHODS:
            return BoundMethod(x, name)
    elif isinstance(x, TILEISH):
        if name == "shape":
            return x.shape
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "ndim":
            return len(x.shape)
        if name == "T":
            return permute(cap, node, x, list(range(len(x.shape)))[::-1])
        if name in _TILE_METHODS:
            return BoundMethod(x, name)
    elif isinstance(x, ScalarVal):
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "to":
            return BoundMethod(x, name)
    raise cap.error(node, f"{describe(x)} has no attribute {name!r} in a kernel")


def call_method(cap: Capture, site: CallSite, bm: BoundMethod) -> Any:
    """Call a DSL method bound by ``attribute``."""
    x, name = bm.receiver, bm.name
    if name in ("to", "astype"):
        a = site.bind(["dtype"])
        return cast_value(cap, site.node, x, _dtype_arg(cap, site.node_of(0), a["dtype"]))
    if name == "tile":
        a = site.bind(["origin", "shape", "fill"], {"fill": None})
        return view(cap, site.node, x, a["origin"], a["shape"], a["fill"])
    if name == "load":
        a = site.bind(["fill"], {"fill": None})
        return load_view(cap, site.node, x, a["fill"])
    if name == "store":
        a = site.bind(["value"])
        store_view(cap, site.node, x, a["value"])
        return None
    if name.startswith("atomic_"):
        a = site.bind(["value"])
        store_view(cap, site.node, x, a["value"], "atomic", name[len("atomic_"):])
        return None
    if name == "reshape":
        shape = site.args[0] if len(site.args) == 1 else tuple(site.args)
        return reshape(cap, site.node, x, static_shape(cap, site.node, shape))
    if name == "permute":
        perm = site.args[0] if len(site.args) == 1 else tuple(site.args)
        perm = static_shape_allow_zero(cap, site.node, perm)
        return permute(cap, site.node, x, perm)
    if name == "broadcast_to":
        a = site.bind(["shape"])
        return broadcast_to(cap, site.node, x, static_shape(cap, site.node, a["shape"]))
    if name in ("sum", "max", "min"):
        return _reduction_builtin(cap, CallSite(cap, site.node, [x, *site.args], site.kwargs,
                                                f"{name}"), name)
    raise site.error(f"unknown method {name!r}")


def static_shape_allow_zero(cap: Capture, node: ast.AST, x: Any) -> tuple[int, ...]:
    """A tuple of compile-time ints (zero allowed: permutations, axes)."""
    if isinstance(x, int):
        x = (x,)
    if not isinstance(x, tuple):
        raise cap.error(node, f"expected a tuple of constexpr integers, got {describe(x)}")
    return tuple(static_int(cap, node, e, "an axis") for e in x)


# -------------------------------------------------------------------- builtins


def _unary_builtin(fn: str) -> Callable[[Capture, CallSite], Any]:
    def impl(cap: Capture, site: CallSite) -> Any:
        a = site.bind(["x"])
        return unary(cap, site.node, fn, a["x"])

    return impl


for _fn in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "sin",
            "cos", "abs", "floor", "ceil"):
    implements(_fn)(_unary_builtin(_fn))


@implements("maximum", "minimum")
def _minmax(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b"])
    return binary(cap, site.node, "max" if site.name.endswith("maximum") else "min",
                  a["a"], a["b"])


@implements("where")
def _where(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["cond", "a", "b"])
    return elementwise(cap, site.node, "select", [a["cond"], a["a"], a["b"]])


@implements("fma")
def _fma(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "c"])
    return elementwise(cap, site.node, "fma", [a["a"], a["b"], a["c"]])


@implements("cdiv")
def _cdiv(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b"])
    x, y = a["a"], a["b"]
    for k, v in (("a", x), ("b", y)):
        if isinstance(v, float) or (isinstance(v, ScalarVal) and v.dtype.is_float) \
                or isinstance(v, TILEISH):
            raise site.error(f"cdiv() needs integer scalars, got {describe(v)}", k)
    if isinstance(y, int) and y <= 0:
        raise site.error(f"cdiv() needs a positive divisor, got {y}", "b")
    return binary(cap, site.node, "cdiv", x, y)


@implements("cast")
def _cast(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "dtype"])
    return cast_value(cap, site.node, a["x"], _dtype_arg(cap, site.node_of(1), a["dtype"]))


@implements("zeros", "ones")
def _zeros(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["shape", "dtype"], {"dtype": None})
    shape = static_shape(cap, site.node_of(0), a["shape"])
    dt = ir.f32 if a["dtype"] is None else _dtype_arg(cap, site.node_of(1), a["dtype"])
    value = 0 if site.name.endswith("zeros") else 1
    return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                     {"value": _typed_number(value, dt)}, loc=cap.loc(site.node)))


@implements("full")
def _full(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["shape", "value", "dtype"], {"dtype": None})
    shape = static_shape(cap, site.node_of(0), a["shape"])
    v = a["value"]
    if is_number(v):
        dt = weak_type(v) if a["dtype"] is None else _dtype_arg(cap, site.node_of(2), a["dtype"])
        return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                         {"value": _typed_number(v, dt)}, loc=cap.loc(site.node)))
    if not isinstance(v, ScalarVal):
        raise site.error(f"full() fills with a number or a scalar, got {describe(v)}", 1)
    if a["dtype"] is not None:
        v = cast_value(cap, site.node, v, _dtype_arg(cap, site.node_of(2), a["dtype"]))
    return Elem("leaf", (v,), v.dtype, shape)


@implements("zeros_like", "full_like")
def _like(cap: Capture, site: CallSite) -> Any:
    if site.name.endswith("zeros_like"):
        a = site.bind(["x"])
        value: Any = 0
    else:
        a = site.bind(["x", "value"])
        value = a["value"]
    x = as_tileish(cap, site.node, a["x"])
    shape, dt = tile_shape(cap, site.node, x), x.dtype
    if is_number(value):
        return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                         {"value": _typed_number(value, dt)}))
    return broadcast_to(cap, site.node, cast_value(cap, site.node, value, dt), shape)


@implements("memory")
def _memory(cap: Capture, site: CallSite) -> Any:
    return memory(cap, site)


@implements("broadcast", "broadcast_to")
def _broadcast(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "shape"])
    return broadcast_to(cap, site.node, a["x"], static_shape(cap, site.node_of(1), a["shape"]))


@implements("reshape")
def _reshape(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "shape"])
    return reshape(cap, site.node, a["x"], static_shape(cap, site.node_of(1), a["shape"]))


@implements("trans")
def _trans(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x"])
    x = a["x"]
    rank = x.type.rank if isinstance(x, MemVal) else len(tile_shape(cap, site.node, x))
    return permute(cap, site.node, x, list(range(rank))[::-1])


@implements("permute")
def _permute(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "perm"])
    return permute(cap, site.node, a["x"], static_shape_allow_zero(cap, site.node, a["perm"]))


@implements("expand_dims")
def _expand_dims(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "axis"])
    return expand_dims(cap, site.node, a["x"], static_shape_allow_zero(cap, site.node, a["axis"]))


@implements("load")
def _load(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["view", "fill"], {"fill": None})
    if not isinstance(a["view"], MemVal):
        raise site.error(f"load() reads memory, got {describe(a['view'])}", 0)
    return load_view(cap, site.node, a["view"], a["fill"])


@implements("store", "atomic_add", "atomic_max", "atomic_min")
def _store(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["view", "value"])
    if not isinstance(a["view"], MemVal):
        raise site.error(f"{site.name}() writes memory, got {describe(a['view'])}", 0)
    if site.name.endswith("store"):
        store_view(cap, site.node, a["view"], a["value"])
    else:
        store_view(cap, site.node, a["view"], a["value"], "atomic", site.name.split("_")[-1])
    return None


# ------------------------------------------------------------------------ matrix


_ACC_FOR = {ir.f16: ir.f32, ir.bf16: ir.f32, ir.f32: ir.f32, ir.f64: ir.f64, ir.i8: ir.i32}


def _policy_order(cap: Capture, site: CallSite, order: Any, what: str = "order") -> str:
    if order is None:
        return "unordered_tree"
    if order not in ir.POLICY_KINDS:
        raise site.error(f"{what} must be one of {', '.join(map(repr, ir.POLICY_KINDS))}, "
                         f"got {order!r}", what)
    return order


def mma(cap: Capture, site: CallSite, a: Any, b: Any, c: Any, precision: Any, order: Any
        ) -> TileVal:
    """``c + a @ b`` with shape and dtype checks at the call."""
    ta = as_tile(cap, site.node_of(0), a, "a rank-2 tile")
    tb = as_tile(cap, site.node_of(1), b, "a rank-2 tile")
    tcv = as_tile(cap, site.node_of(2), c, "a rank-2 accumulator tile")
    for k, t in enumerate((ta, tb, tcv)):
        if len(t.shape) != 2:
            raise site.error(f"mma() takes rank-2 tiles, argument {k + 1} is "
                             f"{describe(t)}", k)
    (m, k1), (k2, n), (cm, cn) = ta.shape, tb.shape, tcv.shape
    if k1 != k2:
        raise site.error(f"mma(): a is {m}x{k1} and b is {k2}x{n}; their K extents "
                         f"({k1} and {k2}) differ")
    if (cm, cn) != (m, n):
        raise site.error(f"mma(): the accumulator is {cm}x{cn} but a @ b is {m}x{n}", 2)
    if ta.dtype is not tb.dtype:
        raise site.error(f"mma(): a and b have different element types ({ta.dtype} and "
                         f"{tb.dtype}); convert one with .to(...)")
    want = _ACC_FOR.get(ta.dtype)
    if want is None:
        raise site.error(f"mma() does not support {ta.dtype} operands")
    if tcv.dtype is not want:
        raise site.error(f"mma() of {ta.dtype} operands needs a {want} accumulator, got "
                         f"{tcv.dtype}", 2)
    if precision not in ir.PRECISIONS:
        raise site.error(f"precision must be one of {', '.join(map(repr, ir.PRECISIONS))}, "
                         f"got {precision!r}", "precision")
    if precision != "exact" and ta.dtype is not ir.f32:
        raise site.error(f"precision={precision!r} applies to f32 operands, not {ta.dtype}",
                         "precision")
    pol = ir.ArithPolicy(precision, _policy_order(cap, site, order))
    v = cap.builder.value("mma", [ta.value, tb.value, tcv.value], tcv.value.type,
                          {"policy": pol}, loc=cap.loc(site.node), name_hint=tcv.value.name_hint)
    return TileVal(v)


@implements("mma")
def _mma(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "c", "precision", "order"], {"precision": "exact", "order": None})
    return mma(cap, site, a["a"], a["b"], a["c"], a["precision"], a["order"])


def dot(cap: Capture, site: CallSite, a: Any, b: Any, precision: Any = "exact",
        acc_dtype: Any = None) -> TileVal:
    """``a @ b`` from a zero accumulator of the natural accumulation type."""
    ta = as_tile(cap, site.node_of(0), a, "a rank-2 tile")
    tb = as_tile(cap, site.node_of(1), b, "a rank-2 tile")
    if len(ta.shape) != 2 or len(tb.shape) != 2:
        raise site.error("dot() takes rank-2 tiles")
    acc_t = _ACC_FOR.get(ta.dtype, ta.dtype) if acc_dtype is None \
        else _dtype_arg(cap, site.node, acc_dtype)
    acc = TileVal(cap.builder.value("constant", [], ir.TileType((ta.shape[0], tb.shape[1]),
                                                                acc_t),
                                    {"value": _typed_number(0, acc_t)}))
    return mma(cap, site, ta, tb, acc, precision, None)


@implements("dot")
def _dot(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "precision", "acc_dtype"], {"precision": "exact",
                                                          "acc_dtype": None})
    return dot(cap, site, a["a"], a["b"], a["precision"], a["acc_dtype"])


# -------------------------------------------------------------------- reductions


def resolve_policy(site: CallSite, policy: Any) -> ir.ReductionPolicy:
    """Omitted -> ``unordered_tree`` (implicit); a named policy is kept and marked explicit."""
    if policy is None:
        return ir.ReductionPolicy("unordered_tree", False)
    if policy not in ir.POLICY_KINDS:
        raise site.error(f"policy must be one of {', '.join(map(repr, ir.POLICY_KINDS))}, "
                         f"got {policy!r}", "policy")
    return ir.ReductionPolicy(policy, True)


def normalize_axes(cap: Capture, site: CallSite, axis: Any, rank: int) -> tuple[int, ...]:
    """Reduced axes as sorted non-negative ints (None: all axes)."""
    if axis is None:
        return tuple(range(rank))
    axes = static_shape_allow_zero(cap, site.node, axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise site.error(f"axis {a} is out of range for a rank-{rank} tile", "axis")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise site.error(f"axis {axes} repeats an axis", "axis")
    return tuple(sorted(out))


def _strip_casts(v: ir.Value) -> ir.Value:
    while True:
        d = v.defining_op
        if d is None or d.name != "arith" or d.attr("fn") != "cast":
            return v
        v = d.operand(0)


def _depends_on(v: ir.Value, block: ir.Block, states: Sequence[ir.Value]) -> bool:
    """True when ``v`` reads a state, or is computed in ``block`` by a non-pure operation."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if any(x is s for s in states):
            return True
        d = x.defining_op
        if d is None or d.parent is not block:
            continue
        if d.opdef.effect != "pure" or d.regions:
            return True
        stack.extend(d.operands)
    return False


def recognize_combiner(block: ir.Block, n_states: int) -> tuple[str, ...] | None:
    """The merge law of each state when every update is ``op(state, lift(elements))``.

    The recognized family is a product of independent states: state ``k``'s
    next value must be one ``add``/``mul``/``max``/``min`` of ``state_k`` (up to
    conversions) and a value computed from the elements and loop invariants
    only (a *lift*, e.g. the element itself or ``e * e``). Anything else has no
    recognized merge and can only be folded in order.
    """
    y = block.terminator
    if y is None or y.name != "yield":
        return None
    states = block.args[:n_states]
    out: list[str] = []
    for k in range(n_states):
        d = _strip_casts(y.operand(k)).defining_op
        law = None
        if d is not None and d.name == "arith" and d.parent is block \
                and d.attr("fn") in ("add", "mul", "max", "min"):
            a, b = (_strip_casts(x) for x in d.operands)
            for mine, other in ((a, b), (b, a)):
                if mine is states[k] and not _depends_on(other, block, states):
                    law = d.attr("fn")
        if law is None:
            return None
        out.append(law)
    return tuple(out)


def reduce_region(cap: Capture, site: CallSite, inputs: list[TileVal], seeds: list[ir.Value],
                  axes: tuple[int, ...], policy: ir.ReductionPolicy,
                  body: Callable[[ir.Block], list[Any]], names: Sequence[str | None] = ()
                  ) -> list[TileVal]:
    """Build one ``reduce``: ``body(block)`` emits the update and returns the next states."""
    shape = inputs[0].shape
    for t in inputs[1:]:
        if t.shape != shape:
            raise site.error(f"reduction inputs must share a shape: {_shape_str(shape)} vs "
                             f"{_shape_str(t.shape)}")
    st = [s.type for s in seeds]
    block = ir.Block(st + [t.dtype for t in inputs],
                     list(names) + [t.value.name_hint for t in inputs]
                     if names else None)
    nexts = body(block)
    if len(nexts) != len(seeds):
        raise site.error(f"the update produces {len(nexts)} values for {len(seeds)} states")
    ys: list[ir.Value] = []
    inner = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
    for k, (v, t) in enumerate(zip(nexts, st)):
        if is_number(v):
            ys.append(_const_in(inner, v, t))
            continue
        if not isinstance(v, ScalarVal):
            raise site.error(f"the update of state {k} must be a scalar, got {describe(v)}")
        if v.dtype is not t:
            raise site.error(f"the update of state {k} changes its type from {t} to {v.dtype}")
        ys.append(v.value)
    inner.create("yield", ys)
    comb = recognize_combiner(block, len(seeds))
    if comb is None and policy.allows_tree:
        how = "the default policy unordered_tree" if not policy.explicit \
            else "policy='unordered_tree'"
        raise site.error(f"this reduction's update is not a recognized merge (one add, mul, max "
                         f"or min of each state with a value computed from the elements), so it "
                         f"cannot be regrouped "
                         f"under {how}; pass policy=\"strict_fold\" to evaluate it in order")
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    attrs: dict[str, Any] = {"n_inputs": len(inputs), "axes": axes, "policy": policy,
                             "combiner": comb if comb is not None else ("custom",) * len(seeds)}
    op = cap.builder.create("reduce", [t.value for t in inputs] + list(seeds),
                            [ir.TileType(kept, t) for t in st], attrs, [ir.Region([block])],
                            loc=cap.loc(site.node), result_names=list(names) or None)
    return [TileVal(r) for r in op.results]


def _const_in(b: ir.Builder, v: Any, t: ir.ScalarType) -> ir.Value:
    return b.value("constant", [], t, {"value": _typed_number(v, t)})


_SEEDS = {"sum": 0, "prod": 1, "max": -math.inf, "min": math.inf}
_LAW = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


def _seed_for(kind: str, t: ir.ScalarType) -> Any:
    s = _SEEDS[kind]
    if t.is_float or kind in ("sum", "prod"):
        return s
    if t is ir.i1:
        return kind == "min"
    bits = 63 if t is ir.index else t.bits - 1
    return -(2 ** bits) if kind == "max" else 2 ** bits - 1


def _reduction_builtin(cap: Capture, site: CallSite, kind: str) -> Any:
    a = site.bind(["x", "axis", "dtype", "keepdims", "policy"],
                  {"axis": None, "dtype": None, "keepdims": False, "policy": None})
    x = as_tile(cap, site.node_of(0), a["x"], "a tile")
    axes = normalize_axes(cap, site, a["axis"], len(x.shape))
    policy = resolve_policy(site, a["policy"])
    st = x.dtype if a["dtype"] is None else _dtype_arg(cap, site.node, a["dtype"])
    law = _LAW[kind]
    if law in ("max", "min") and st is not x.dtype:
        raise site.error(f"{kind}() keeps the input type; dtype= applies to sum and prod")
    seed = cap.const(_typed_number(_seed_for(kind, st), st), st)

    def body(block: ir.Block) -> list[Any]:
        b = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
        s, e = block.args
        if e.type is not st:
            e = b.value("arith", [e], st, {"fn": "cast"})
        return [ScalarVal(b.value("arith", [s, e], st, {"fn": law}))]

    (res,) = reduce_region(cap, site, [x], [seed], axes, policy, body)
    if a["keepdims"]:
        return expand_dims(cap, site.node, res, list(axes))
    return res


for _k in ("sum", "max", "min", "prod"):
    implements(_k)(lambda cap, site, _k=_k: _reduction_builtin(cap, site, _k))


@implements("reduce")
def _reduce(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "axis", "init", "combine", "policy"], {"policy": None})
    xs = a["x"] if isinstance(a["x"], tuple) else (a["x"],)
    inputs = [as_tile(cap, site.node_of(0), x) for x in xs]
    rank = len(inputs[0].shape)
    axes = normalize_axes(cap, site, a["axis"], rank)
    policy = resolve_policy(site, a["policy"])
    inits = a["init"] if isinstance(a["init"], tuple) else (a["init"],)
    seeds = []
    for k, s in enumerate(inits):
        if is_number(s):
            t = inputs[min(k, len(inputs) - 1)].dtype
            seeds.append(cap.const(_typed_number(s, t), t))
        elif isinstance(s, ScalarVal):
            seeds.append(s.value)
        else:
            raise site.error(f"reduce() seeds are scalars, got {describe(s)}", "init")
    comb = a["combine"]
    if not isinstance(comb, LocalFunction) and not cap.is_device_function(comb):
        raise site.error("reduce() needs combine= to be a lambda or a def written in the kernel "
                         "(or a @tc.func)", "combine")

    def body(block: ir.Block) -> list[Any]:
        args = [ScalarVal(v) for v in block.args]
        out = cap.call_in_block(comb, args, block, site.node)
        return list(out) if isinstance(out, tuple) else [out]

    res = reduce_region(cap, site, inputs, seeds, axes, policy, body)
    return res[0] if len(res) == 1 else tuple(res)


# ------------------------------------------------------------------------ einsum


@implements("einsum")
def _einsum(cap: Capture, site: CallSite) -> Any:
    """``einsum(spec, *tiles)``: broadcast every operand into the joint index space, multiply
    elementwise, and ``sum`` the contracted indices (no dedicated opcode)."""
    a = site.bind(["spec", "*operands", "policy"], {"policy": None})
    spec, ops = a["spec"], a["operands"]
    if not isinstance(spec, str) or "->" not in spec:
        raise site.error("einsum() needs an explicit spec such as 'ij,jk->ik'", 0)
    lhs, out = spec.replace(" ", "").split("->")
    ins = lhs.split(",")
    if len(ins) != len(ops):
        raise site.error(f"einsum spec {spec!r} names {len(ins)} operands, got {len(ops)}")
    extent: dict[str, int] = {}
    tiles = []
    for k, (sub, x) in enumerate(zip(ins, ops)):
        t = as_tileish(cap, site.node_of(k + 1), x)
        shape = tile_shape(cap, site.node_of(k + 1), t)
        if len(sub) != len(shape):
            raise site.error(f"einsum operand {k} is rank {len(shape)} but {sub!r} names "
                             f"{len(sub)} indices", k + 1)
        for ch, e in zip(sub, shape):
            if extent.setdefault(ch, e) != e:
                raise site.error(f"einsum index {ch!r} has extents {extent[ch]} and {e}", k + 1)
        tiles.append(t)
    if any(ch not in extent for ch in out):
        raise site.error(f"einsum output {out!r} names an index no operand has")
    joint = list(out) + [ch for ch in extent if ch not in out]
    jshape = tuple(extent[ch] for ch in joint)
    prod: Any = None
    for sub, t in zip(ins, tiles):
        m = ir.IndexMap(len(joint), [ir.d(joint.index(ch)) for ch in sub])
        v = reindex(cap, site.node, t, m, (), jshape)
        prod = v if prod is None else binary(cap, site.node, "mul", prod, v)
    if len(joint) == len(out):
        return prod
    x = as_tile(cap, site.node, prod)
    axes = tuple(range(len(out), len(joint)))
    policy = resolve_policy(site, a["policy"])
    st = x.dtype
    seed = cap.const(_typed_number(0, st), st)

    def body(block: ir.Block) -> list[Any]:
        b = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
        return [ScalarVal(b.value("arith", list(block.args), st, {"fn": "add"}))]

    (res,) = reduce_region(cap, site, [x], [seed], axes, policy, body)
    return res
