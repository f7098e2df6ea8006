"""The operation inventory, declared as data (seed 001, "Minimal operations").

Each opcode is one ``OpDef`` (declared with ``opdef.py``'s vocabulary):
operand/result/region/successor counts, the attributes it takes, its effect class,
and a verify hook that checks types and local structure. There are no per-opcode
classes; ``Operation`` is generic.

| family                | opcodes                                                 |
| --------------------- | ------------------------------------------------------- |
| control               | call, return, br, if, yield (functions are ``Function``)|
| structured execution  | parallel, serial, pipeline (ordered stage subregions)   |
| aggregation           | reduce                                                  |
| pure values           | constant, iota, tuple, tuple_get, map, arith, reindex,  |
|                       | mma                                                     |
| addressable effects   | view, memory, load, load_scalar, gather, store, atomic, |
|                       | sync                                                    |
| effects, no memory    | check (a runtime assertion, ordered like sync)          |
| machine form          | atom.call                                               |

``arith`` is the scalar operation that the bodies of ``map``/``reduce``
regions and index computations are written in; ``map`` lifts such a scalar
region over tile dimensions.
"""

from __future__ import annotations

from typing import Any

from .attributes import ArithPolicy, ExecConstraint, ReductionPolicy
from .core import Operation
from .dims import IndexSet
from .layout import IndexMap
from .opdef import AttrDef, OpDef, OpVerifyError, lookup_op, register_op
from .types import MemoryType, ScalarType, TileType, TokenType, TupleType, Type, f32, i1, index

# ``lookup_op`` is re-exported: ``Operation`` resolves its opcode through this module, so
# that the first operation built has the whole inventory registered.
__all__ = ["lookup_op", "ARITH_FNS", "arith_result_type", "ATOMIC_KINDS", "EXCHANGE_KINDS"]


# ------------------------------------------------------------------ predicates


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float))  # bool included: i1 constants


def _is_str(x: Any) -> bool:
    return isinstance(x, str)


def _is_int_tuple(x: Any) -> bool:
    return isinstance(x, tuple) and all(_is_int(e) for e in x)


def _is_str_tuple(x: Any) -> bool:
    return isinstance(x, tuple) and all(_is_str(e) for e in x)


def _fail(msg: str, invariant: str = "op-signature") -> None:
    raise OpVerifyError(msg, invariant)


def _expect(cond: bool, msg: str, invariant: str = "op-signature") -> None:
    if not cond:
        raise OpVerifyError(msg, invariant)


def _is_index(v: Any) -> bool:
    return v.type is index


def _elem(t: Type) -> ScalarType | None:
    if isinstance(t, ScalarType):
        return t
    if isinstance(t, (TileType, MemoryType)):
        return t.dtype
    return None


def _single_block(op: Operation, r: int) -> Any:
    region = op.regions[r]
    _expect(len(region.blocks) == 1,
            f"{op.name} region {r} must have exactly one block, has {len(region.blocks)}")
    return region.entry


def _yield_of(op: Operation, block: Any) -> Operation:
    term = block.operations.last
    _expect(term is not None and term.name == "yield",
            f"{op.name} region must end with 'yield'", "region-state-flow")
    return term


def _check_yield_types(op: Operation, block: Any, types: list[Type], what: str) -> None:
    y = _yield_of(op, block)
    got = [v.type for v in y.operands]
    _expect(got == list(types),
            f"{op.name}: {what} yields ({', '.join(map(str, got))}) but "
            f"({', '.join(map(str, types))}) is required", "region-state-flow")


# ------------------------------------------------------------------- control


def _verify_if(op: Operation) -> None:
    _expect(op.num_operands == 1 and op.operand(0).type is i1,
            "if takes one i1 condition")
    _expect(len(op.regions) == 2, "if has a then region and an else region")
    rtypes = [r.type for r in op.results]
    for i, name in enumerate(("then", "else")):
        b = _single_block(op, i)
        _expect(not b.args, f"if {name} block takes no arguments")
        _check_yield_types(op, b, rtypes, f"the {name} region")


def _verify_return(op: Operation) -> None:
    fn = op.function
    if fn is None:
        return
    got = [v.type for v in op.operands]
    _expect(got == list(fn.result_types),
            f"return of ({', '.join(map(str, got))}) from @{fn.name}, which returns "
            f"({', '.join(map(str, fn.result_types))})", "region-state-flow")


def _verify_br(op: Operation) -> None:
    target = op.successors[0]
    got = [v.type for v in op.operands]
    want = [a.type for a in target.args]
    _expect(got == want, f"br passes ({', '.join(map(str, got))}) to a block taking "
            f"({', '.join(map(str, want))})", "region-state-flow")
    _expect(target.parent is op.parent_region, "br targets a block of another region")


def _verify_yield(op: Operation) -> None:
    parent = op.parent_op
    if parent is None:
        _fail("yield outside a structured operation")
    _expect(op.next_op is None, "yield must be the last operation of its block")


register_op(OpDef("call", "control", "call a function of the module by name",
                  operands=(0, None), results=(0, None), effect="unknown",
                  attrs={"callee": AttrDef(_is_str, True, "function symbol")}))
register_op(OpDef("return", "control", "return from the function", operands=(0, None),
                  terminator=True, effect="control", verify=_verify_return))
register_op(OpDef("br", "control", "branch to a successor block, passing its arguments",
                  operands=(0, None), successors=1, terminator=True, effect="control",
                  verify=_verify_br))
register_op(OpDef("if", "control", "structured conditional on an i1 scalar",
                  operands=(1, 1), results=(0, None), regions=(2, 2), effect="control",
                  verify=_verify_if))
register_op(OpDef("yield", "control", "end a structured region, producing its state",
                  operands=(0, None), terminator=True, effect="control", verify=_verify_yield,
                  attrs={"updates": AttrDef(_is_int_tuple, False,
                                            "parallel: origin operand count of each update")}))


# -------------------------------------------------------- structured execution


def _verify_parallel(op: Operation) -> None:
    rank = op.attr("rank")
    _expect(_is_int(rank) and rank >= 1, "parallel needs rank >= 1")
    _expect(op.num_operands >= rank, f"parallel of rank {rank} needs {rank} extents")
    extents = op.operands[:rank]
    inits = op.operands[rank:]
    _expect(all(_is_index(v) for v in extents), "parallel extents must be index values")
    b = _single_block(op, 0)
    want = [index] * rank + [v.type for v in inits]
    _expect([a.type for a in b.args] == want,
            "parallel block takes the coordinates then one entry snapshot per init",
            "region-state-flow")
    _expect([r.type for r in op.results] == [v.type for v in inits],
            "parallel results are the joined inits", "region-state-flow")
    y = _yield_of(op, b)
    if not inits:
        _expect(y.num_operands == 0, "parallel without inits yields nothing",
                "region-state-flow")
        return
    # Ancestor updates: per init, one payload tile then one origin per axis (invariant 8).
    pos = 0
    for k, init in enumerate(inits):
        t = init.type
        _expect(pos < y.num_operands, f"parallel update {k} has no payload", "8")
        payload = y.operand(pos)
        pos += 1
        if isinstance(t, TileType):
            pt = payload.type
            _expect(isinstance(pt, TileType) and pt.dtype is t.dtype and pt.rank == t.rank,
                    f"parallel update {k}: payload {pt} does not patch {t}", "8")
            origins = y.operands[pos:pos + t.rank]
            _expect(len(origins) == t.rank and all(_is_index(v) for v in origins),
                    f"parallel update {k}: {t.rank} index origins required", "8")
            pos += t.rank
        else:
            _expect(payload.type is t, f"parallel update {k}: payload type mismatch", "8")
    _expect(pos == y.num_operands, "parallel yield has extra operands", "8")


def _verify_loop(op: Operation) -> None:
    _expect(op.num_operands >= 3 and all(_is_index(v) for v in op.operands[:3]),
            f"{op.name} takes index lower bound, upper bound and step first")
    carried = [v.type for v in op.operands[3:]]
    _expect([r.type for r in op.results] == carried,
            f"{op.name} results must match the carried inits", "region-state-flow")
    blocks = [_single_block(op, i) for i in range(len(op.regions))]
    _expect([a.type for a in blocks[0].args] == [index] + carried,
            f"{op.name} body takes the induction variable then the carried values",
            "region-state-flow")
    if op.name == "serial":
        _check_yield_types(op, blocks[0], carried, "the body")
        return
    names = op.attr("stages", ())
    _expect(len(names) == len(blocks), "pipeline: one stage name per stage region", "14")
    named = [n for n in names if n]
    _expect(len(set(named)) == len(named), "pipeline stage names must be unique", "14")
    for k in range(1, len(blocks)):
        prev = [v.type for v in _yield_of(op, blocks[k - 1]).operands]
        _expect([a.type for a in blocks[k].args] == [index] + prev,
                f"pipeline stage {k} takes the induction variable then stage {k - 1}'s yield",
                "14")
    _check_yield_types(op, blocks[-1], carried, "the last stage")


register_op(OpDef("parallel", "structured",
                  "independent instances over a rectangular domain; optional ancestor updates",
                  operands=(1, None), results=(0, None), regions=(1, 1), effect="control",
                  verify=_verify_parallel,
                  attrs={"rank": AttrDef(_is_int, True, "number of coordinates"),
                         "constraint": AttrDef(lambda x: isinstance(x, ExecConstraint), False,
                                               "explicit execution request"),
                         "level": AttrDef(_is_str, False, "bound execution level"),
                         "threads": AttrDef(_is_int, False,
                                            "threads per group (Machine grid level)")}))
register_op(OpDef("serial", "structured", "the counted loop; carries values in order",
                  operands=(3, None), results=(0, None), regions=(1, 1), effect="control",
                  verify=_verify_loop,
                  attrs={"unroll": AttrDef(_is_int, False, "unroll factor hint")}))
register_op(OpDef("pipeline", "structured",
                  "a counted loop cut into ordered stage subregions for software pipelining",
                  operands=(3, None), results=(0, None), regions=(1, None), effect="control",
                  verify=_verify_loop,
                  attrs={"stages": AttrDef(_is_str_tuple, True, "stage names ('' if unnamed)"),
                         "window": AttrDef(_is_int, False, "in-flight iterations (buffers)")}))


# ------------------------------------------------------------------ aggregation


def _verify_reduce(op: Operation) -> None:
    n_in = op.attr("n_inputs")
    _expect(_is_int(n_in) and n_in >= 1, "reduce needs n_inputs >= 1")
    inputs = op.operands[:n_in]
    inits = op.operands[n_in:]
    _expect(len(inits) >= 1, "reduce needs at least one state seed", "9")
    _expect(all(isinstance(v.type, TileType) for v in inputs), "reduce inputs are tiles")
    shape = inputs[0].type.shape
    _expect(all(v.type.shape == shape for v in inputs), "reduce inputs must share a shape")
    axes = op.attr("axes")
    _expect(_is_int_tuple(axes) and len(axes) >= 1 and len(set(axes)) == len(axes)
            and all(0 <= a < len(shape) for a in axes),
            f"reduce axes {axes} must be distinct axes of a rank-{len(shape)} tile", "9")
    _expect(isinstance(op.attr("policy"), ReductionPolicy), "reduce needs a resolved policy",
            "9")
    _expect(all(isinstance(v.type, ScalarType) for v in inits), "reduce seeds are scalars", "9")
    b = _single_block(op, 0)
    states = [v.type for v in inits]
    elems = [v.type.dtype for v in inputs]
    _expect([a.type for a in b.args] == states + elems,
            "reduce update takes the states then one element per input", "9")
    _check_yield_types(op, b, states, "the update")
    out_shape = tuple(e for i, e in enumerate(shape) if i not in axes)
    _expect([r.type for r in op.results] == [TileType(out_shape, t) for t in states],
            "reduce results are one tile per state over the kept axes", "9")


register_op(OpDef("reduce", "aggregation",
                  "fold tile elements along axes with an update region and an order policy",
                  operands=(2, None), results=(1, None), regions=(1, 1), verify=_verify_reduce,
                  attrs={"n_inputs": AttrDef(_is_int, True, "number of input tiles"),
                         "axes": AttrDef(_is_int_tuple, True, "reduced axes"),
                         "policy": AttrDef(lambda x: isinstance(x, ReductionPolicy), True,
                                           "resolved order policy"),
                         "combiner": AttrDef(_is_str_tuple, False,
                                             "recognized merge per state")}))


# ------------------------------------------------------------------ pure values

ARITH_FNS: dict[str, int] = {
    # binary
    "add": 2, "sub": 2, "mul": 2, "div": 2, "rem": 2, "floordiv": 2, "cdiv": 2, "pow": 2,
    "max": 2, "min": 2, "and": 2, "or": 2, "xor": 2, "shl": 2, "shr": 2,
    "eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2,
    # unary
    "neg": 1, "abs": 1, "not": 1, "exp": 1, "exp2": 1, "log": 1, "log2": 1, "sqrt": 1,
    "rsqrt": 1, "tanh": 1, "erf": 1, "sigmoid": 1, "sin": 1, "cos": 1, "floor": 1, "ceil": 1,
    "cast": 1, "round_tf32": 1,
    # ternary
    "select": 3, "fma": 3,
}
"""Scalar functions ``arith`` computes, with their arity."""

_CMP = ("eq", "ne", "lt", "le", "gt", "ge")
_FLOAT_ONLY = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf", "sigmoid",
               "sin", "cos", "floor", "ceil", "div", "pow")
_INT_ONLY = ("floordiv", "cdiv", "rem", "and", "or", "xor", "not", "shl", "shr")
_SHIFTS = ("shl", "shr")
"""Shifts: ``shr`` is arithmetic on signed types and logical on unsigned ones; the count (of
the operand's type) is read as an unsigned number, and a count of at least the type's width
shifts every bit out (0, or the sign fill for a signed ``shr``)."""


def arith_result_type(fn: str, operand_types: list[ScalarType]) -> ScalarType:
    """The result type of ``arith fn`` on scalars of these types (``cast`` excluded)."""
    if fn in _CMP:
        return i1
    if fn == "select":
        return operand_types[1]
    return operand_types[0]


def _verify_arith(op: Operation) -> None:
    fn = op.attr("fn")
    _expect(fn in ARITH_FNS, f"arith: unknown function {fn!r}")
    _expect(op.num_operands == ARITH_FNS[fn],
            f"arith {fn} takes {ARITH_FNS[fn]} operands, got {op.num_operands}")
    types = [v.type for v in op.operands]
    _expect(all(isinstance(t, ScalarType) for t in types),
            f"arith {fn} works on scalars; lift it over tiles with 'map'")
    _expect(len(op.results) == 1, "arith has one result")
    rt = op.results[0].type
    if fn == "cast":
        _expect(isinstance(rt, ScalarType), "cast produces a scalar")
        return
    if fn == "select":
        _expect(types[0] is i1 and types[1] is types[2] and rt is types[1],
                "select takes (i1, T, T) -> T")
        return
    _expect(all(t is types[0] for t in types), f"arith {fn}: operand types differ "
            f"({', '.join(map(str, types))})")
    if fn in ("rem",) and types[0].is_float:
        return
    _expect(fn != "round_tf32" or types[0] is f32,
            f"arith round_tf32 rounds f32 values, got {types[0]}")
    _expect(not (fn in _FLOAT_ONLY and not types[0].is_float),
            f"arith {fn} needs float operands, got {types[0]}")
    _expect(not (fn in _INT_ONLY and types[0].is_float),
            f"arith {fn} needs integer operands, got {types[0]}")
    _expect(not (fn in _SHIFTS and types[0] is i1), f"arith {fn} does not shift i1 values")
    _expect(rt is arith_result_type(fn, types), f"arith {fn} result type {rt} is wrong")


def _expect_value_of(v: Any, e: ScalarType | None, what: str) -> None:
    """An integer-typed number must be an integer within the type's range."""
    if e is None or not e.is_int:
        return
    if isinstance(v, float):
        _fail(f"{what} {v!r} is not an integer of type {e}")
    lo, hi = e.int_bounds
    _expect(lo <= int(v) <= hi, f"{what} {v!r} does not fit in {e} [{lo}, {hi}]")


def _verify_constant(op: Operation) -> None:
    v = op.attr("value")
    _expect(_is_num(v), f"constant value must be a number, got {v!r}")
    t = op.result.type
    _expect(isinstance(t, (ScalarType, TileType)), "constant is a scalar or a splat tile")
    _expect_value_of(v, _elem(t), "constant")


def _verify_tuple(op: Operation) -> None:
    t = op.result.type
    _expect(isinstance(t, TupleType) and list(t.elements) == [v.type for v in op.operands],
            "tuple result type must list the operand types")


def _verify_tuple_get(op: Operation) -> None:
    t = op.operand(0).type
    i = op.attr("index")
    _expect(isinstance(t, TupleType) and _is_int(i) and 0 <= i < len(t.elements),
            "tuple_get needs a tuple operand and an index in range")
    _expect(op.result.type is t.elements[i], "tuple_get result type is the element type")


def _verify_map(op: Operation) -> None:
    dom = op.attr("shape")
    _expect(isinstance(dom, IndexSet), "map needs its iteration shape")
    shape = dom.extents
    b = _single_block(op, 0)
    for k, v in enumerate(op.operands):
        t = v.type
        if isinstance(t, TileType):
            _expect(t.shape == shape, f"map operand {k} has shape "
                    f"{'x'.join(map(str, t.shape))}, map shape is {'x'.join(map(str, shape))}")
        else:
            _expect(isinstance(t, ScalarType), f"map operand {k} must be a tile or a scalar")
    _expect([a.type for a in b.args] == [_elem(v.type) for v in op.operands],
            "map block takes one scalar per operand", "region-state-flow")
    y = _yield_of(op, b)
    _expect(all(isinstance(v.type, ScalarType) for v in y.operands), "map yields scalars")
    _expect([r.type for r in op.results] == [TileType(shape, v.type) for v in y.operands],
            "map results are tiles of the yielded scalars", "region-state-flow")


def _verify_reindex(op: Operation) -> None:
    m = op.attr("map")
    _expect(isinstance(m, IndexMap), "reindex needs an index map")
    src = op.operand(0).type
    _expect(isinstance(src, TileType), "reindex reads a tile")
    syms = op.operands[1:]
    _expect(all(_is_index(v) for v in syms), "reindex symbols are index values")
    rt = op.result.type
    _expect(isinstance(rt, TileType) and rt.dtype is src.dtype, "reindex keeps the dtype")
    if op.attr("fill") is not None:
        _expect_value_of(op.attr("fill"), rt.dtype, "reindex fill")
    _expect(m.n_dims == rt.rank and m.rank == src.rank and m.n_symbols == len(syms),
            f"reindex map {m} does not map a rank-{rt.rank} result onto a rank-{src.rank} "
            f"source with {len(syms)} symbols", "1")


def _verify_iota(op: Operation) -> None:
    m = op.attr("map")
    _expect(isinstance(m, IndexMap), "iota needs an index map")
    syms = op.operands
    _expect(all(_is_index(v) for v in syms), "iota symbols are index values")
    rt = op.result.type
    _expect(isinstance(rt, TileType) and rt.dtype is not i1,
            "iota produces a tile of an integer or float type")
    _expect(m.n_dims == rt.rank and m.rank == 1 and m.n_symbols == len(syms),
            f"iota map {m} does not map a rank-{rt.rank} tile with {len(syms)} symbols to one "
            f"value", "1")


def _verify_mma(op: Operation) -> None:
    a, b, c = (v.type for v in op.operands)
    _expect(all(isinstance(t, TileType) and t.rank == 2 for t in (a, b, c)),
            "mma takes rank-2 tiles a (MxK), b (KxN), c (MxN)")
    _expect(a.shape[1] == b.shape[0], f"mma: a is {a} and b is {b}; their K extents differ")
    _expect(a.shape[0] == c.shape[0] and b.shape[1] == c.shape[1],
            f"mma: accumulator {c} does not match a {a} times b {b}")
    _expect(a.dtype is b.dtype, f"mma: a and b element types differ ({a.dtype}, {b.dtype})")
    _expect(op.result.type is c, "mma result type is the accumulator type")
    _expect(isinstance(op.attr("policy"), ArithPolicy), "mma needs an arithmetic policy", "9")


register_op(OpDef("constant", "pure", "a scalar or a splat tile", results=(1, 1),
                  verify=_verify_constant, attrs={"value": AttrDef(_is_num, True, "the value")}))
register_op(OpDef("tuple", "pure", "pack values into an aggregate", operands=(0, None),
                  results=(1, 1), verify=_verify_tuple))
register_op(OpDef("tuple_get", "pure", "project one element of an aggregate", operands=(1, 1),
                  results=(1, 1), verify=_verify_tuple_get,
                  attrs={"index": AttrDef(_is_int, True, "element position")}))
register_op(OpDef("arith", "pure", "one scalar function", operands=(1, 3), results=(1, 1),
                  verify=_verify_arith,
                  attrs={"fn": AttrDef(_is_str, True, "the function (see ARITH_FNS)")}))
register_op(OpDef("map", "pure", "a scalar region lifted over the dimensions of a tile shape",
                  operands=(1, None), results=(1, None), regions=(1, 1), verify=_verify_map,
                  attrs={"shape": AttrDef(lambda x: isinstance(x, IndexSet), True,
                                          "iteration shape")}))
register_op(OpDef("reindex", "pure",
                  "read a tile through an index map (transpose, broadcast, reshape, slice)",
                  operands=(1, None), results=(1, 1), verify=_verify_reindex,
                  operand_names=("source",),
                  attrs={"map": AttrDef(lambda x: isinstance(x, IndexMap), True,
                                        "result coordinate -> source coordinate"),
                         "fill": AttrDef(_is_num, False, "value where the map leaves the source")}))
register_op(OpDef("iota", "pure", "a tile of coordinates: each element is an index map of "
                  "its own coordinates", operands=(0, None), results=(1, 1), verify=_verify_iota,
                  attrs={"map": AttrDef(lambda x: isinstance(x, IndexMap), True,
                                        "element coordinate -> its value (one result)")}))
register_op(OpDef("mma", "pure", "c + a @ b on tiles under an arithmetic policy",
                  operands=(3, 3), results=(1, 1), verify=_verify_mma,
                  operand_names=("a", "b", "acc"),
                  attrs={"policy": AttrDef(lambda x: isinstance(x, ArithPolicy), True,
                                           "product precision and summation order")}))


# ------------------------------------------------------------ addressable effects


def _verify_memory(op: Operation) -> None:
    t = op.result.type
    _expect(isinstance(t, MemoryType), "memory produces a memory type")
    _expect(all(e.is_static for e in t.shape), "manual memory needs static extents", "11")


def _verify_view(op: Operation) -> None:
    base = op.operand(0).type
    _expect(isinstance(base, MemoryType), "view takes a memory base")
    syms = op.operands[1:]
    _expect(all(_is_index(v) for v in syms), "view origins are index values")
    m = op.attr("map")
    rt = op.result.type
    _expect(isinstance(rt, MemoryType) and rt.dtype is base.dtype and rt.space == base.space,
            "view keeps the base's dtype and space")
    _expect(m.n_dims == rt.rank and m.rank == base.rank and m.n_symbols == len(syms),
            f"view map {m} does not map a rank-{rt.rank} view onto a rank-{base.rank} base "
            f"with {len(syms)} symbols", "1")


def _verify_load(op: Operation) -> None:
    src = op.operand(0).type
    _expect(isinstance(src, MemoryType), "load reads a memory view")
    _expect(op.result.type is TileType(src.shape, src.dtype), "load yields the view's tile")
    if op.attr("fill") is not None:
        _expect_value_of(op.attr("fill"), src.dtype, "load fill")


def _verify_load_scalar(op: Operation) -> None:
    src = op.operand(0).type
    _expect(isinstance(src, MemoryType) and src.rank == 0,
            f"load_scalar reads a rank-0 memory view (one element), got {src}")
    _expect(op.result.type is src.dtype, f"load_scalar of {src} yields a {src.dtype} scalar")
    _expect(op.attr("fill") is not None, "load_scalar needs the value of an invalid element")
    _expect_value_of(op.attr("fill"), src.dtype, "load_scalar fill")


def _verify_indexed(op: Operation, n_fixed: int) -> tuple[MemoryType, TileType]:
    """The checks ``gather`` and ``scatter`` share: the memory (operand 0), the tile of
    integer indices (operand 1), the axis they index and, in Machine form, the map of
    registers to tile coordinates (over the ``n_fixed`` leading operands' symbols)."""
    mem, idx = (v.type for v in op.operands[:2])
    _expect(isinstance(mem, MemoryType), f"{op.name} accesses memory")
    _expect(isinstance(idx, TileType) and idx.dtype.is_int and idx.dtype is not i1,
            f"{op.name} indices are a tile of integers, got {idx}")
    _expect(idx.rank == mem.rank or op.attr("map") is not None,
            f"{op.name} of rank-{mem.rank} memory takes rank-{mem.rank} indices, got {idx}")
    axis = op.attr("axis")
    _expect(_is_int(axis) and 0 <= axis < mem.rank,
            f"{op.name} axis {axis!r} is not an axis of {mem}")
    m = op.attr("map")
    if m is not None:  # Machine form: register i of the thread's part -> tile coordinates
        _expect(isinstance(m, IndexMap) and m.n_dims == 1 and idx.rank == 1
                and m.rank == mem.rank and m.n_symbols == op.num_operands - n_fixed,
                f"machine {op.name} map {m} must send a register to {mem.rank} coordinates")
        _expect(_is_int_tuple(op.attr("shape")) and len(op.attr("shape")) == mem.rank,
                f"machine {op.name} needs the tile shape its map's coordinates lie in")
    else:
        _expect(op.num_operands == n_fixed,
                f"{op.name} takes {n_fixed} operands (memory, indices"
                f"{', values' if n_fixed == 3 else ''})")
    return mem, idx


def _verify_gather(op: Operation) -> None:
    src, idx = _verify_indexed(op, 2)
    _expect(op.result.type is TileType(idx.shape, src.dtype),
            "gather yields a tile of the indices' shape and the memory's dtype")
    _expect(op.attr("fill") is not None, "gather needs the value of an invalid element")
    _expect_value_of(op.attr("fill"), src.dtype, "gather fill")


def _verify_scatter(op: Operation) -> None:
    dst, idx = _verify_indexed(op, 3)
    val = op.operand(2).type
    _expect(isinstance(val, TileType) and val.dtype is dst.dtype and val.shape == idx.shape,
            f"scatter of {val} with indices {idx} into {dst}: shape or dtype mismatch")


def _verify_store(op: Operation) -> None:
    dst, val = op.operand(0).type, op.operand(1).type
    _expect(isinstance(dst, MemoryType), f"{op.name} writes a memory view")
    _expect(isinstance(val, TileType) and val.dtype is dst.dtype and val.shape == dst.shape,
            f"{op.name} of {val} into {dst}: shape or dtype mismatch")


ATOMIC_KINDS = ("add", "max", "min", "xchg", "cas")
"""What an ``atomic`` does per element: combine into memory (add, max, min; no result), or
exchange (xchg: store the value; cas: store it where memory's bits equal ``compare``'s),
yielding the tile of the old values."""

EXCHANGE_KINDS = ("xchg", "cas")
"""The ``atomic`` kinds that yield the old values."""


def _verify_atomic(op: Operation) -> None:
    kind = op.attr("kind")
    dst, val = op.operand(0).type, op.operand(1).type
    _verify_store(op)
    want = 3 if kind == "cas" else 2
    _expect(op.num_operands == want, f"atomic {kind} takes {want} operands, got "
            f"{op.num_operands}")
    if kind == "cas":
        _expect(op.operand(2).type is val, f"atomic cas compares with {op.operand(2).type}, "
                f"not the value's {val}")
    if kind in EXCHANGE_KINDS:
        _expect(len(op.results) == 1 and op.result.type is TileType(dst.shape, dst.dtype),
                f"atomic {kind} yields the old tile {TileType(dst.shape, dst.dtype)}")
        if op.attr("fill") is not None:
            _expect_value_of(op.attr("fill"), dst.dtype, "atomic fill")
    else:
        _expect(not op.results and op.attr("fill") is None,
                f"atomic {kind} yields nothing and has no fill")


def _verify_sync(op: Operation) -> None:
    _expect(all(isinstance(v.type, TokenType) for v in op.operands), "sync waits on tokens")


_BOUNDS = AttrDef(lambda x: x in ("bounded", "total"), False,
                  "bounded: out-of-range reads fill, writes drop; total: all in range")
register_op(OpDef("memory", "effect", "explicit addressable storage", results=(1, 1),
                  effect="alloc", verify=_verify_memory))
register_op(OpDef("view", "effect", "a window of memory through an index map",
                  operands=(1, None), results=(1, 1), verify=_verify_view,
                  operand_names=("base",),
                  attrs={"map": AttrDef(lambda x: isinstance(x, IndexMap), True,
                                        "view coordinate -> base coordinate"),
                         "bounds": _BOUNDS}))
register_op(OpDef("load", "effect", "snapshot a view into a tile", operands=(1, 1),
                  results=(1, 1), effect="read", verify=_verify_load,
                  operand_names=("memory",),
                  attrs={"fill": AttrDef(_is_num, False, "value for out-of-range elements")}))
register_op(OpDef("load_scalar", "effect", "read the one element of a rank-0 view as a scalar "
                  "(uniform across a GPU group)", operands=(1, 1), results=(1, 1),
                  effect="read", verify=_verify_load_scalar, operand_names=("memory",),
                  attrs={"fill": AttrDef(_is_num, True, "the value when the element is invalid "
                                         "(outside its array or window)")}))
register_op(OpDef("gather", "effect", "a load whose index along one axis is a value: "
                  "result[i] = memory[i with i[axis] = indices[i]]", operands=(2, None),
                  results=(1, 1), effect="read", verify=_verify_gather,
                  operand_names=("memory", "indices"),
                  attrs={"axis": AttrDef(_is_int, True, "the axis the indices address"),
                         "fill": AttrDef(_is_num, True, "the value of an element whose "
                                         "coordinates leave the memory"),
                         "map": AttrDef(lambda x: isinstance(x, IndexMap), False,
                                        "Machine form: register -> tile coordinates (reads "
                                        "the operands after the indices as symbols)"),
                         "shape": AttrDef(_is_int_tuple, False,
                                          "Machine form: the tile's extents (coordinates "
                                          "outside are masked registers, not read)")}))
register_op(OpDef("scatter", "effect", "an indexed store (or atomic): memory[i with i[axis] = "
                  "indices[i]] = value[i]", operands=(3, None), effect="read_write",
                  verify=_verify_scatter, operand_names=("memory", "indices", "value"),
                  attrs={"axis": AttrDef(_is_int, True, "the axis the indices address"),
                         "kind": AttrDef(lambda x: x in ("add", "max", "min"), False,
                                         "absent: a store; else the atomic combiner"),
                         "map": AttrDef(lambda x: isinstance(x, IndexMap), False,
                                        "Machine form: register -> tile coordinates (reads "
                                        "the operands after the value as symbols)"),
                         "shape": AttrDef(_is_int_tuple, False,
                                          "Machine form: the tile's extents")}))
register_op(OpDef("store", "effect", "write a tile through a view", operands=(2, 2),
                  effect="write", verify=_verify_store, operand_names=("memory", "value")))
register_op(OpDef("atomic", "effect", "read-modify-write a tile through a view",
                  operands=(2, 3), results=(0, 1), effect="read_write", verify=_verify_atomic,
                  operand_names=("memory", "value", "compare"),
                  attrs={"kind": AttrDef(lambda x: x in ATOMIC_KINDS, True,
                                         "add, max, min (no result); xchg, cas (the old "
                                         "tile)"),
                         "fill": AttrDef(_is_num, False, "the result's value for "
                                         "out-of-range elements (xchg, cas)")}))
register_op(OpDef("sync", "effect", "abstract synchronization at a scope",
                  operands=(0, None), results=(0, 1), effect="sync", verify=_verify_sync,
                  attrs={"scope": AttrDef(_is_str, True, "grid, group, subgroup")}))


# --------------------------------------------------------------- runtime checks


def _verify_check(op: Operation) -> None:
    _expect(op.operand(0).type is i1, f"check takes an i1 condition, got {op.operand(0).type}")
    _expect(all(isinstance(v.type, ScalarType) for v in op.operands[1:]),
            "check reports scalar values only")
    labels = op.attr("labels")
    _expect(len(labels) == op.num_operands - 1,
            f"check has {op.num_operands - 1} reported values but {len(labels)} labels")


CHECK_KINDS = ("assert", "zerodiv", "index", "step")
"""What a failed ``check`` reports: an assertion, a zero divisor, an out-of-range read or a
loop step that is not positive (lowering guards a division, a tile slice or a loop with one
where the failure must stop a whole group, lowering.md)."""


# A failed check stops the program: later effects must not move before it, so it is
# ordered like a synchronization (it touches no memory itself).
register_op(OpDef("check", "effect",
                  "a runtime assertion: the program stops with an error unless the i1 holds",
                  operands=(1, None), effect="sync", verify=_verify_check,
                  operand_names=("condition",),
                  attrs={"message": AttrDef(_is_str, True,
                                            "what failed: the assert's message or its source"),
                         "labels": AttrDef(_is_str_tuple, True,
                                           "the source text of each reported value (the "
                                           "operands after the condition)"),
                         "kind": AttrDef(lambda x: x in CHECK_KINDS, False,
                                         "assert (the default): a failed assertion; zerodiv: "
                                         "the guard of an integer division, whose function "
                                         "is the message; index: the guard of a tile slice "
                                         "or index, whose reported value is its start; step: "
                                         "the guard of a loop's step (the one value), whose "
                                         "opcode is the message")}))


# ---------------------------------------------------------------- machine form

register_op(OpDef("atom.call", "machine", "one target catalog instruction",
                  operands=(0, None), results=(0, None), effect="unknown", open_attrs=True,
                  attrs={"catalog_id": AttrDef(_is_str, True, "atom catalog entry")}))


def check_signature(op: Operation) -> None:
    """Counts and attribute presence/kinds, common to every opcode."""
    d = op.opdef

    def _count(what: str, n: int, bounds: tuple[int, int | None]) -> None:
        lo, hi = bounds
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else f"{lo}..{'' if hi is None else hi}"
            _fail(f"{op.name} takes {want} {what}, got {n}")

    _count("operands", op.num_operands, d.operands)
    _count("results", len(op.results), d.results)
    _count("regions", len(op.regions), d.regions)
    _expect(len(op.successors) == d.successors,
            f"{op.name} takes {d.successors} successors, got {len(op.successors)}")
    for name, a in d.attrs.items():
        if name not in op.attributes:
            _expect(not a.required, f"{op.name} needs attribute '{name}' ({a.doc})")
        else:
            _expect(a.check(op.attributes[name]),
                    f"{op.name} attribute '{name}' has a bad value {op.attributes[name]!r}")
    if not d.open_attrs:
        extra = sorted(set(op.attributes) - set(d.attrs))
        _expect(not extra, f"{op.name} does not take attribute(s) {', '.join(extra)}")
