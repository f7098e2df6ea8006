"""Core value semantics of the DSL: types, fused elementwise expressions, conversions.

Everything here builds IR through the ``Capture`` it is given (its builder,
constant cache, error reporting). Elementwise expressions are built as an
``Elem`` tree and emitted as one ``map`` when consumed, so a chain like
``exp(x - m) * s`` is one ``map`` whose region holds the ``arith`` ops; tile
views (transpose, broadcast, reshape, slice; see ``views.py``) are lazy
``ViewTile`` records that compose into a single ``reindex``. Type rules:

* scalars promote like numpy (int -> float, narrower -> wider, any int ->
  ``index`` when mixed with ``index``); Python numbers are *weak* and take the
  other operand's type;
* a scalar operand of a tile expression is converted to the tile's type;
* two tiles of different element types are an error (convert with ``.to``);
* unsigned and signed integers never meet implicitly (scalars or tiles, ``index``
  included): C would convert to unsigned, numpy widens to a signed or float type, and
  either silently changes what a comparison or a division means, so the mix is a located
  error asking for an explicit conversion; a Python number meeting an unsigned type must
  fit it (numpy's rule), and unsigned types of different widths widen;
* ``store`` converts the stored tile to the memory's element type;
* an integer scalar that becomes an ``index`` (an index position, an operand mixed with an
  ``index``, or ``tc.index(x)``) is recomputed in ``index`` from the sources of its
  arithmetic (``widen_index``), so ``off * 65536`` with an ``i32`` ``off`` never wraps on
  its way to a coordinate.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .constants import ConstantRangeError, int_range, narrowest_int, typed_number
from .dtypes import DTYPES, DType, dtype_from_numpy
from .values import Affine, Elem, MemVal, ScalarVal, TileVal, ViewTile, describe, is_number

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["CallSite", "TILEISH", "binary", "unary", "elementwise", "materialize", "as_tile",
           "as_tileish", "as_index", "widen_index", "cast_value", "scalar_value",
           "promote_scalar", "weak_type", "typed_number", "static_int", "static_shape",
           "static_shape_allow_zero", "dtype_arg", "reindex", "compose_view", "tile_shape",
           "load_view", "dtype_of", "broadcast_shapes"]


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
        args = getattr(self.node, "args", [])
        if isinstance(i, int) and i < len(args):
            return args[i]
        for kw in getattr(self.node, "keywords", []):
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
    d = v.src.defining_op
    if d is not None and d.name == "iota" and not v.syms:
        # a static view of a coordinate tile (tc.arange(n)[:, None]) is one: no reindex
        return TileVal(cap.builder.value("iota", list(d.operands), t,
                                         {"map": d.attr("map").compose(v.map)}, loc=d.loc))
    return TileVal(cap.builder.value("reindex", [v.src, *v.syms], t, {"map": v.map},
                                     loc=v.loc))


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
    consts: dict[tuple, ir.Value] = {}
    inner = ir.Builder(ir.InsertionPoint.at_end(block), cap.builder.loc)

    def emit(e: Elem) -> ir.Value:
        got = memo.get(id(e))
        if got is not None:
            return got
        if e.fn == "leaf":
            v = block.args[slot[id(e)]]
        elif e.fn == "const":
            key = ("const", e.dtype, repr(typed_number(e.args[0], e.dtype)))
            v = consts.get(key)
            if v is None:
                v = inner.value("constant", [], e.dtype,
                                {"value": typed_number(e.args[0], e.dtype)})
                consts[key] = v
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
        return typed_number(e.args[0], e.dtype)
    raise AssertionError("non-constant expression without operands")


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


_INT_ONLY = {"floordiv", "cdiv", "and", "or", "xor", "not", "shl", "shr"}


_CMP = {"eq", "ne", "lt", "le", "gt", "ge"}


_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "rem": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>", "lt": "<",
           "le": "<=", "gt": ">",
           "ge": ">=", "eq": "==", "ne": "!="}


def _check_fn_type(cap: Capture, node: ast.AST, fn: str, t: ir.ScalarType) -> None:
    name = _SYMBOL.get(fn, fn)
    if fn in _FLOAT_ONLY and not t.is_float:
        hint = {"div": " (use // for integer division)",
                "pow": " (an integer ** takes the constant exponent 2 or 3; convert first "
                       "for others, e.g. x.to(tc.float32))"}.get(
            fn, " (convert first, e.g. x.to(tc.float32))")
        raise cap.error(node, f"{name} needs floating-point operands, got {t}{hint}")
    if fn in _INT_ONLY and t.is_float:
        raise cap.error(node, f"{name} needs integer operands, got {t}")
    if fn in ("shl", "shr") and t is ir.i1:
        raise cap.error(node, f"{name} shifts integers, not booleans (convert first, e.g. "
                        f"x.to(tc.uint8))")


def _signed_int(t: ir.ScalarType) -> bool:
    """A signed integer type (``index`` included; ``i1`` is neither signed nor unsigned)."""
    return t.is_int and not t.is_unsigned and t is not ir.i1


def _check_signedness(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any]) -> None:
    """Unsigned and signed integer operands do not mix implicitly (module docstring)."""
    typed = [(v, dtype_of(v)) for v in vals if dtype_of(v) is not None]
    uns = [(v, t) for v, t in typed if t.is_unsigned]
    sig = [(v, t) for v, t in typed if _signed_int(t)]
    if uns and sig:
        (u, ut), (s, st) = uns[0], sig[0]
        name = {"select": "where()", "cast": "conversion"}.get(fn, _SYMBOL.get(fn, fn))
        raise cap.error(node, f"{name} mixes unsigned and signed integers ({describe(u)} and "
                        f"{describe(s)}), which do not mix implicitly: convert one side, e.g. "
                        f"tc.{_dsl_name(ut)}(...) or tc.{_dsl_name(st)}(...)")


def _dsl_name(t: ir.ScalarType) -> str:
    return DTYPES[t].name


def _operand_types(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any]) -> ir.ScalarType:
    """The common operand type of an elementwise function over mixed operands."""
    tiles = [v for v in vals if isinstance(v, (*TILEISH, MemVal))]
    scalars = [v for v in vals if isinstance(v, ScalarVal)]
    numbers = [v for v in vals if is_number(v)]
    _check_signedness(cap, node, fn, vals)
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


def _check_weak_numbers(cap: Capture, node: ast.AST, vals: Sequence[Any],
                        types: Sequence[ir.ScalarType]) -> None:
    """A Python number must fit the type it takes from the other operands (numpy's rule:
    ``np.int32(1) + 2**32`` raises); the error says how to give that operand a wider type."""
    for v, t in zip(vals, types):
        others = [o for o, ot in zip(vals, types) if ot is t and not is_number(o)]
        if not is_number(v) or not others:
            continue
        try:
            typed_number(v, t)
        except ConstantRangeError as e:
            raise cap.error(node, f"{e}, the type of the other operand ({describe(others[0])})"
                            f"{_widening_hint(cap, v, others)}") from None


def _widening_hint(cap: Capture, v: Any, others: Sequence[Any]) -> str:
    """How to make room for ``v``: declare the kernel arguments involved wider, or convert."""
    unsigned = any(dtype_of(o) is not None and dtype_of(o).is_unsigned for o in others)
    if unsigned and isinstance(v, int) and v < 0:
        return " (an unsigned type holds no negative number: write the wrapped value, or " \
               "subtract instead of adding a negative number)"
    wide = narrowest_int(v, unsigned) if isinstance(v, int) else None
    if wide is None:
        return ("; no integer type holds it (" + ("uint32" if unsigned else "int64")
                + " is the widest)") if isinstance(v, int) else ""
    names: list[str] = []

    def sources(x: Any) -> None:  # the kernel arguments an integer expression is made of
        if not isinstance(x, ScalarVal):
            return
        a = x.value
        if isinstance(a, ir.BlockArgument) and a.owner is cap.ctx.fn.entry and a.name_hint:
            if a.name_hint not in names:
                names.append(a.name_hint)
        elif x.recipe is not None:
            for o in x.recipe[2]:
                sources(o)

    for o in others:
        sources(o)
    if names:
        decl = ", ".join(f"`{n}: tc.{wide}`" for n in names)
        return f"; declare the argument{'s' if len(names) > 1 else ''} {decl} in the " \
               f"kernel's signature, or convert first with tc.{wide}({names[0]})"
    return f"; convert the other operand first, e.g. with tc.{wide}(...) or .to(tc.{wide})"


def elementwise(cap: Capture, node: ast.AST, fn: str, vals: Sequence[Any],
                out_type: ir.ScalarType | None = None) -> Any:
    """Apply ``arith fn`` elementwise: folds numbers, emits scalar ``arith`` or builds ``Elem``."""
    vals = [as_tileish(cap, node, v) for v in vals]
    for v in vals:
        if not (is_number(v) or isinstance(v, (ScalarVal, *TILEISH))):
            raise cap.error(node, f"{_SYMBOL.get(fn, fn)} cannot take {describe(v)}")
    if all(is_number(v) for v in vals):
        # compile-time numbers compute as Python does (2 ** 2 == 4, 7 / 2 == 3.5): the type
        # rules below are those of runtime values, which numbers only join as weak operands
        return _fold(cap, node, fn, vals)
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
        if fn in ("shl", "shr") and is_number(vals[1]) and vals[1] < 0:
            raise cap.error(node, f"negative shift count {vals[1]} (a runtime count is read as "
                            f"unsigned, so a negative one shifts every bit out)")
        typed = list(vals)
        arg_types = [t] * len(vals)
        res_t = ir.i1 if fn in _CMP else (out_type or t)
    _check_weak_numbers(cap, node, typed, arg_types)
    # an integer operand meeting an index is widened at its sources, not after its own wrap
    typed = [widen_index(cap, v) if at is ir.index and isinstance(v, ScalarVal) else v
             for v, at in zip(typed, arg_types)]
    if not any(isinstance(v, TILEISH) for v in typed):
        return _scalar_arith(cap, node, fn, typed, arg_types, res_t)
    elems = [_convert(_to_elem(cap, node, v), at) for v, at in zip(typed, arg_types)]
    shape = broadcast_shapes(cap, node, [e.shape for e in elems])
    return Elem(fn, tuple(elems), res_t, shape)


_PY_BIN: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "rem": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "shl": operator.lshift,
    "shr": operator.rshift, "eq": operator.eq,
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
    """``fn`` on compile-time numbers, computed by Python."""
    try:
        if fn == "select":
            return vals[1] if vals[0] else vals[2]
        if fn == "fma":
            return vals[0] * vals[1] + vals[2]
        if len(vals) == 2:
            out = _PY_BIN[fn](vals[0], vals[1])
        else:
            out = _PY_UN[fn](vals[0])
    except (ArithmeticError, ValueError) as e:
        raise cap.error(node, f"constant expression fails: {e}") from None
    if isinstance(out, complex):  # (-8) ** (1 / 3) in Python
        raise cap.error(node, f"constant expression fails: its value {out} is complex")
    return out


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
    recipe = (fn, node, tuple(vals)) if _is_narrow_int(res_t) else None
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
    return ScalarVal(v, aff if aff is not None else Affine.atom(v), recipe)


def _is_narrow_int(t: ir.ScalarType) -> bool:
    """An integer type other than ``index`` and ``i1`` (``i8`` .. ``i64``)."""
    return t.kind == "int" and t is not ir.i1


def widen_index(cap: Capture, x: Any) -> Any:
    """An integer scalar as ``index``, recomputed from its sources so that nothing wraps first
    (anything else is returned as it is).

    The arithmetic capture recorded (``ScalarVal.recipe``) is replayed with ``index``
    operands down to the values it cannot see through (arguments, loop-carried values, ``if``
    results, explicit casts), which are cast where they are read: ``off * 65536`` becomes
    ``cast(off) * 65536`` in 64 bits. The narrow computation stays for its other uses (or is
    erased as dead). Replayed operations reuse identical ones (``Capture.pure_arith``).
    """
    memo: dict[int, ScalarVal] = {}

    def go(v: Any) -> Any:
        if not isinstance(v, ScalarVal) or not _is_narrow_int(v.dtype):
            return v
        got = memo.get(id(v))
        if got is None:
            if v.recipe is None:
                c = cap.pure_arith("cast", [v.value], ir.index)
                got = ScalarVal(c, Affine.atom(c))
            else:
                fn, node, operands = v.recipe
                got = elementwise(cap, node, fn, [go(a) for a in operands])
            memo[id(v)] = got
        return got

    return go(x)


def scalar_value(cap: Capture, x: Any, t: ir.ScalarType) -> ir.Value:
    """``x`` (a number or a scalar) as an SSA value of type ``t`` (casting when needed)."""
    if is_number(x):
        return cap.const(typed_number(x, t), t)
    v = x.value
    if v.type is t:
        return v
    if t is ir.index and _is_narrow_int(v.type):  # type: ignore[arg-type]
        return widen_index(cap, x).value
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
        return ScalarVal(cap.const(typed_number(_cast_number(cap, node, x, t), t), t))
    if isinstance(x, ScalarVal):
        if x.dtype is t:
            return x
        if t is ir.index and _is_narrow_int(x.dtype):
            return widen_index(cap, x)
        if t is ir.index and x.dtype.is_unsigned:
            return as_index(cap, node, x)  # an affine atom, as a widened signed value is
        return ScalarVal(cap.builder.value("arith", [x.value], t, {"fn": "cast"},
                                           loc=cap.loc(node)))
    if isinstance(x, TILEISH):
        if x.dtype is t:
            return x
        return _convert(_to_elem(cap, node, x), t)
    raise cap.error(node, f"cannot convert {describe(x)} to {t}")


def _cast_number(cap: Capture, node: ast.AST, x: Any, t: ir.ScalarType) -> Any:
    """A Python number converted to ``t`` by TileIR's ``cast`` rule for floats (truncate,
    saturate, NaN to 0; anything to ``i1`` is ``x != 0``); an integer must fit ``t``."""
    if t.is_float or isinstance(x, bool):
        return x
    if t is ir.i1:
        return x != 0
    if isinstance(x, float):
        lo, hi = int_range(t)
        return 0 if math.isnan(x) else hi if x >= hi + 1 else lo if x <= lo else math.trunc(x)
    try:
        return typed_number(x, t)
    except ConstantRangeError as e:
        raise cap.error(node, f"{e}; a Python int must fit the type it is converted to "
                        f"(write the wrapped value if that is what you mean)") from None


def as_index(cap: Capture, node: ast.AST, x: Any, what: str = "an index") -> ScalarVal:
    """``x`` as an ``index`` scalar (integers are converted; floats are an error)."""
    x = materialize(cap, node, x)
    if isinstance(x, bool) or (is_number(x) and not isinstance(x, int)):
        raise cap.error(node, f"{what} must be an integer, got {describe(x)}")
    if isinstance(x, int):
        try:
            return ScalarVal(cap.const(typed_number(x, ir.index), ir.index), Affine((), x))
        except ConstantRangeError as e:
            raise cap.error(node, f"{what} {e} (coordinates are 64-bit)") from None
    if isinstance(x, ScalarVal):
        if x.dtype is ir.index:
            return x
        if x.dtype.is_float or x.dtype is ir.i1:
            raise cap.error(node, f"{what} must be an integer, got {describe(x)}")
        if x.dtype.is_unsigned:  # its (wrapped) value, zero-extended: nothing to recompute
            c = cap.pure_arith("cast", [x.value], ir.index)
            return ScalarVal(c, Affine.atom(c))
        return widen_index(cap, x)
    hint = ""
    if isinstance(x, TILEISH):
        hint = ("; a value held in memory is read as a scalar by indexing the array with one "
                "integer per axis (L[b]), not by loading a tile")
    raise cap.error(node, f"{what} must be an integer scalar, got {describe(x)}{hint}")


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


def static_shape_allow_zero(cap: Capture, node: ast.AST, x: Any) -> tuple[int, ...]:
    """A tuple of compile-time ints (zero allowed: permutations, axes)."""
    if isinstance(x, int):
        x = (x,)
    if not isinstance(x, tuple):
        raise cap.error(node, f"expected a tuple of constexpr integers, got {describe(x)}")
    return tuple(static_int(cap, node, e, "an axis") for e in x)


def dtype_arg(cap: Capture, node: ast.AST, x: Any) -> ir.ScalarType:
    """A dtype argument (``tc.float32``, a numpy dtype) as a TileIR scalar type."""
    if isinstance(x, DType):
        return x.ir
    t = dtype_from_numpy(x) if x is not None and not is_number(x) else None
    if t is None:
        raise cap.error(node, f"expected a dtype such as tc.float32, got {describe(x)}")
    return t


def compose_view(v: ViewTile, m: ir.IndexMap, syms: tuple[ir.Value, ...],
                 shape: tuple[int, ...], loc: ir.Location | None = None) -> ViewTile:
    """``v`` read through ``m``: ``result[i] = v[m(i)]``, one composed map (located at ``loc``,
    where ``m`` was written, when ``m`` has a runtime start, else where ``v`` was)."""
    return ViewTile(v.src, v.map.compose(m), v.syms + syms, shape, loc if syms else v.loc)


def _whole_permutation(v: ViewTile) -> bool:
    """True when ``v`` is an axis permutation of its whole source (identity included): a map
    into ``v`` is then in range exactly when the composed map is in range of the source."""
    src = v.src.type.shape  # type: ignore[attr-defined]
    seen: set[int] = set()
    if v.map.n_symbols or v.map.rank != v.map.n_dims or len(v.shape) != v.map.n_dims:
        return False
    for r, ext in zip(v.map.results, src):
        if len(r.terms) != 1 or r.constant or r.terms[0][1] != 1 or r.terms[0][0][0] != "d":
            return False
        k = r.terms[0][0][1]
        if k in seen or v.shape[k] != int(ext):
            return False
        seen.add(k)
    return True


def reindex(cap: Capture, node: ast.AST, x: Any, m: ir.IndexMap, syms: tuple[ir.Value, ...],
            shape: tuple[int, ...]) -> ViewTile:
    """A lazy ``reindex`` of a tile (composed with an earlier lazy one).

    A map with runtime symbols (a slice or index with a runtime start) must read inside
    the tile it is applied to. Composed with anything but a permutation of a whole tile
    (a static slice, a reshape, a broadcast, another runtime slice), that bound would be
    lost (a reshape's ``mod`` even wraps the coordinate around), so the earlier view is
    emitted first and the new one reads it.
    """
    x = as_tileish(cap, node, x)
    if isinstance(x, Elem):
        x = materialize(cap, node, x)
    loc = cap.loc(node) if syms else None
    if isinstance(x, ViewTile):
        if not syms or _whole_permutation(x):
            return compose_view(x, m, syms, shape, loc)
        x = _emit_reindex(cap, x)
    if isinstance(x, TileVal):
        return ViewTile(x.value, m, syms, shape, loc)
    raise cap.error(node, f"expected a tile, got {describe(x)}")


def tile_shape(cap: Capture, node: ast.AST, x: Any) -> tuple[int, ...]:
    """Static shape of a tile-like value."""
    x = as_tileish(cap, node, x)
    if isinstance(x, TILEISH):
        return x.shape
    raise cap.error(node, f"expected a tile, got {describe(x)}")


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
    attrs = {} if fill is None else {"fill": typed_number(fill, t.dtype)}
    hint = m.value.name_hint.removesuffix("_view") if m.value.name_hint else None
    v = cap.builder.value("load", [m.value], ir.TileType(t.shape, t.dtype), attrs,
                          loc=cap.loc(node), name_hint=hint)
    out = TileVal(v)
    if fill is m.fill:
        cap.remember_load(m, out)
    return out
