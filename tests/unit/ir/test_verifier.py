"""The verifier: valid IR passes every form; each check rejects its broken IR, underlined.

Negative tests build the broken IR directly; for use-list and list-link
corruption they poke the private link fields, which is exactly what the
verifier exists to catch.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tilec.ir import (
    OPS,
    STRICT_FOLD,
    UNORDERED_TREE,
    ArithPolicy,
    Block,
    Builder,
    ExecConstraint,
    Function,
    IndexMap,
    IndexSet,
    InsertionPoint,
    MemoryType,
    Module,
    Operation,
    Printer,
    ReductionPolicy,
    Region,
    TileType,
    Type,
    Value,
    VerificationError,
    d,
    f16,
    f32,
    i32,
    index,
    s,
    verify,
)
from tilec.ir.verifier import CANDIDATE_INVARIANTS, FORM_CHECKS, FORMS, LATER_FORM_INVARIANTS

X = MemoryType((64, 64), f32)
OUT = MemoryType((64,), f32)
ROWS = TileType((16, 64), f32)


class KB:
    """A tiny kernel builder for tests: one function, a builder, region helpers."""

    def __init__(self, args: Sequence[Type] = (X, OUT, index), results: Sequence[Type] = (),
                 name: str = "k", module: Module | None = None) -> None:
        self.fn = Function(name, list(args), list(results))
        self.module = module if module is not None else Module()
        self.module.add_function(self.fn)
        self.b = Builder(InsertionPoint.at_end(self.fn.entry))

    @property
    def args(self) -> list:
        """The function parameters."""
        return self.fn.args

    def op(self, name: str, operands: Sequence[Value] = (), results: Sequence[Type] = (),
           attrs: dict[str, Any] | None = None, regions: Sequence[Region] = (),
           successors: Sequence[Block] = ()) -> Operation:
        """Create and insert one operation."""
        return self.b.create(name, list(operands), list(results), attrs, list(regions),
                             list(successors))

    def val(self, name: str, operands: Sequence[Value], rtype: Type, **attrs: Any) -> Value:
        """Create a one-result operation and return its result."""
        return self.op(name, operands, [rtype], attrs).result

    def const(self, v: float | int = 0.0, t: Type = f32) -> Value:
        """A constant."""
        return self.val("constant", [], t, value=v)

    def region(self, arg_types: Sequence[Type], build: Callable[..., Any]) -> Region:
        """A one-block region built by ``build(*args)``, ending in a yield of what it returns."""
        blk = Block(list(arg_types))
        with self.b.at(InsertionPoint.at_end(blk)):
            outs = build(*blk.args)
            self.op("yield", list(outs or ()))
        return Region([blk])

    def parallel(self, extents: Sequence[Value], build: Callable[..., Any],
                 **attrs: Any) -> Operation:
        """A parallel nest with no inits."""
        return self.op("parallel", list(extents), [], {"rank": len(extents), **attrs},
                       [self.region([index] * len(extents), build)])

    def reduce(self, tile: Value, seeds: Sequence[Value], update: Callable[..., Any],
               axes: tuple[int, ...] = (1,), **attrs: Any) -> Operation:
        """A reduce of one tile with the given seeds and update body."""
        shape = tile.type.shape
        kept = tuple(e for i, e in enumerate(shape) if i not in axes)
        attrs = {"n_inputs": 1, "axes": axes, "policy": UNORDERED_TREE, **attrs}
        region = self.region([v.type for v in seeds] + [tile.type.dtype], update)
        return self.op("reduce", [tile, *seeds], [TileType(kept, v.type) for v in seeds],
                       attrs, [region])

    def rows(self, i: Value) -> Value:
        """Load 16 rows of the first parameter starting at row ``i``."""
        xv = self.val("view", [self.args[0], i], MemoryType((16, 64), f32),
                      map=IndexMap(2, [s(0) + d(0), d(1)], 1))
        return self.val("load", [xv], ROWS)


def arith(kb: KB, fn: str, *vals: Value, rtype: Type | None = None) -> Value:
    """One arith operation."""
    return kb.val("arith", list(vals), rtype or vals[0].type, fn=fn)


def full_kernel() -> KB:
    """A valid candidate kernel using every opcode except atom.call."""
    helper = Function("helper", [f32], [f32])
    module = Module([helper])
    Builder(InsertionPoint.at_end(helper.entry)).create("return", [helper.args[0]])
    kb = KB(args=(X, OUT, MemoryType((64, 64), f32), index), module=module)
    x, out, _, n = kb.args

    def body(i: Value) -> None:
        xt = kb.rows(i)
        zero = kb.const()
        red = kb.reduce(xt, [zero], lambda st, e: [arith(kb, "add", st, e)]).result
        ex = kb.op("map", [red], [TileType((16,), f32)], {"shape": IndexSet([16])},
                   [kb.region([f32], lambda v: [arith(kb, "exp", v)])]).result
        ov = kb.val("view", [out, i], MemoryType((16,), f32), map=IndexMap(1, [s(0) + d(0)], 1))
        kb.op("store", [ov, ex])
        xtt = kb.val("reindex", [xt], TileType((64, 16), f32), map=IndexMap.transpose([1, 0]))
        acc = kb.const(0.0, TileType((16, 16), f32))
        prod = kb.val("mma", [xt, xtt, acc], TileType((16, 16), f32), policy=ArithPolicy())
        lo, hi, one = kb.const(0, index), kb.const(4, index), kb.const(1, index)
        kb.op("serial", [lo, hi, one, zero], [f32], {},
              [kb.region([index, f32], lambda k, c: [arith(kb, "add", c, c)])])
        stages = [kb.region([index, f32], lambda k, c: [arith(kb, "neg", c)]),
                  kb.region([index, f32], lambda k, c: [arith(kb, "abs", c)])]
        kb.op("pipeline", [lo, hi, one, zero], [f32], {"stages": ("fetch", ""), "window": 2},
              stages)
        c1 = kb.val("arith", [i, n], _i1(), fn="lt")
        kb.op("if", [c1], [f32], {},
              [kb.region([], lambda: [zero]), kb.region([], lambda: [kb.const(1.0)])])
        tup = kb.val("tuple", [zero, red], _tuple(f32, red.type))
        kb.val("tuple_get", [tup], f32, index=0)
        sm = kb.val("memory", [], MemoryType((16, 16), f32, "shared"))
        kb.op("atomic", [sm, prod], attrs={"kind": "add"})
        kb.op("sync", attrs={"scope": "group"})
        kb.val("call", [zero], f32, callee="helper")

    kb.parallel([n], body)
    kb.op("return")
    return kb


def _i1() -> Type:
    from tilec.ir import i1

    return i1


def _tuple(*ts: Type) -> Type:
    from tilec.ir import TupleType

    return TupleType(ts)


# ---------------------------------------------------------------------- assertions


def _printed_line(op: Operation) -> str:
    p = Printer()
    p.function(op.function)
    return p.lines[p.op_lines[op.id]].rstrip()


def assert_underlined(err: VerificationError, text: str) -> None:
    """``err.context`` shows ``text`` with a caret line starting under its first character."""
    lines = err.context.splitlines()
    for k, line in enumerate(lines[:-1]):
        if line.rstrip().endswith(text.strip()):
            col = len(line.rstrip()) - len(text.strip())
            caret = lines[k + 1]
            assert caret[col:col + len(text.strip())] == "^" * len(text.strip()), err.context
            assert set(caret[:col]) <= {" ", "|"}, err.context
            return
    raise AssertionError(f"{text!r} is not underlined in:\n{err.context}")


def fails(ir: Module | Function, invariant: str, *words: str, op: Operation | None = None,
          form: str = "candidate") -> VerificationError:
    """Verify ``ir``; check the invariant, the message words and the underline of ``op``."""
    with pytest.raises(VerificationError) as info:
        verify(ir, form)
    err = info.value
    assert err.invariant == invariant, str(err)
    for w in words:
        assert w in err.reason, err.reason
    assert f"invariant {invariant}" in str(err)
    if op is not None:
        assert err.op is op, (err.op, op)
        assert_underlined(err, _printed_line(op))
    assert err.__suppress_context__ or err.__context__ is None
    return err


def simple(build: Callable[[KB, Value], Any]) -> tuple[KB, Any]:
    """A kernel with one parallel nest whose body ``build(kb, i)`` fills; returns its result."""
    kb = KB()
    got: list[Any] = []
    kb.parallel([kb.args[2]], lambda i: got.append(build(kb, i)))
    kb.op("return")
    return kb, got[0]


# -------------------------------------------------------------------------- positive


@pytest.mark.parametrize("form", FORMS)
def test_full_kernel_verifies_in_every_form(form: str) -> None:
    kb = full_kernel()
    assert verify(kb.module, form) == []
    assert verify(kb.fn, form) == []
    assert verify(kb.module, form, collect=True) == []


def test_tables_cover_every_form_and_document_invariants() -> None:
    assert set(FORM_CHECKS) == set(FORMS)
    ids = {c.invariant for c in FORM_CHECKS["candidate"]}
    assert ids <= set(CANDIDATE_INVARIANTS)
    for must in ("1", "4", "9", "10", "14", "18", "use-list", "dominance", "terminator"):
        assert must in CANDIDATE_INVARIANTS
    assert set(LATER_FORM_INVARIANTS) == {"2", "3", "5", "6", "7", "8", "11", "12", "13", "15",
                                          "16", "17"}
    assert all(c.run.__doc__ for c in FORM_CHECKS["candidate"])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown form"):
        verify(KB().module, "final")
    with pytest.raises(TypeError):
        verify(Block(), "candidate")  # type: ignore[arg-type]


def _load_samples() -> Any:
    path = Path(__file__).resolve().parents[2] / "ir_samples.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("_verifier_ir_samples", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SAMPLES = _load_samples()
_SAMPLE_NAMES = sorted(getattr(_SAMPLES, "ALL_SAMPLES", {}))


@pytest.mark.skipif(not _SAMPLE_NAMES, reason="tests/ir_samples.py has no ALL_SAMPLES yet")
@pytest.mark.parametrize("name", _SAMPLE_NAMES)
def test_sample_modules_verify(name: str) -> None:
    m = _SAMPLES.ALL_SAMPLES[name]()
    has_atoms = any(op.name == "atom.call" for op in m.walk())
    assert verify(m, "machine") == []
    if has_atoms:
        with pytest.raises(VerificationError, match="not legal in candidate form"):
            verify(m)
    else:
        assert verify(m) == []
        assert verify(m, "scheduled") == []


# ------------------------------------------------------------------- structural


def _two_ops() -> tuple[KB, Operation, Operation]:
    kb = KB(args=(f32,), results=())
    a = kb.op("arith", [kb.args[0], kb.args[0]], [f32], {"fn": "add"})
    b = kb.op("arith", [a.result, a.result], [f32], {"fn": "mul"})
    kb.op("return")
    return kb, a, b


def test_ordering_broken_prev_link() -> None:
    kb, a, b = _two_ops()
    b._prev = None  # poke: b no longer points back at a
    err = fails(kb.module, "ordering", "previous")
    assert err.op is b and "^" in err.context


def test_ordering_cycle_terminates() -> None:
    kb, a, b = _two_ops()
    ret = kb.fn.entry.operations.last
    ret._next = a  # poke: the list loops
    fails(kb.module, "ordering", "loops back")


def test_ordering_wrong_length() -> None:
    kb, a, b = _two_ops()
    kb.fn.entry.operations._len += 1
    fails(kb.module, "ordering", "length")


def test_parent_pointer_mismatch() -> None:
    kb, a, b = _two_ops()
    text = _printed_line(b)
    b._parent = Block()  # poke
    err = fails(kb.module, "parent", "parent")
    assert err.op is b
    assert_underlined(err, text)


def test_region_owner_mismatch() -> None:
    kb, _ = simple(lambda kb, i: None)
    par = kb.fn.entry.operations.first
    par.regions[0].owner = None
    fails(kb.module, "parent", "owner", op=par)


def test_unique_ids() -> None:
    kb, a, b = _two_ops()
    b.id = a.id
    fails(kb.module, "unique-id", "already used", op=b)


def test_definition_from_detached_op() -> None:
    kb = KB(args=(f32,))
    lost = Operation("arith", [kb.args[0]], [f32], {"fn": "neg"})  # never inserted
    user = kb.op("arith", [lost.result, kb.args[0]], [f32], {"fn": "add"})
    kb.op("return")
    fails(kb.module, "definition", "operand 0", "not in the IR", op=user)


def test_definition_from_another_function() -> None:
    kb = KB(args=(f32,))
    other = KB(args=(f32,), name="other", module=kb.module)
    other.op("return")
    user = kb.op("arith", [other.args[0], kb.args[0]], [f32], {"fn": "add"})
    kb.op("return")
    fails(kb.module, "definition", "@other", op=user)


def test_definition_result_index() -> None:
    kb, a, b = _two_ops()
    a.results[0].index = 3
    fails(kb.module, "definition", "owner/index", op=a)


def test_use_linked_into_wrong_list() -> None:
    kb, a, b = _two_ops()
    use = b.operand_uses[1]
    use._unlink()
    use._value, real = kb.args[0], use._value
    use._link()  # physically in x's list ...
    use._value = real  # ... while the slot logically names a's result
    err = fails(kb.module, "use-list", "operand 1", "linked into the use list", op=b)
    assert "%0" in err.reason or "%" in err.reason


def test_use_not_linked() -> None:
    kb, a, b = _two_ops()
    b.operand_uses[0]._unlink()
    fails(kb.module, "use-list", "not linked", op=b)


def test_use_neighbours_inconsistent() -> None:
    kb, a, b = _two_ops()
    a.result._first_use._next = None  # poke: the head no longer reaches the second use of a
    fails(kb.module, "use-list", "neighbours", op=b)


def test_use_list_link_to_a_non_use() -> None:
    kb, a, b = _two_ops()
    a.result._first_use._next = kb.args[0]  # poke: the chain runs into a value, not a Use
    fails(kb.module, "use-list", "neighbours", op=b)


def test_use_list_count_mismatch() -> None:
    kb, a, b = _two_ops()
    a.result._num_uses += 1
    fails(kb.module, "use-list", "counts 3 uses", op=a)


def test_use_list_holds_foreign_use() -> None:
    kb, a, b = _two_ops()
    stray = Operation("arith", [a.result], [f32], {"fn": "neg"})  # detached
    stray.operand_uses[0]._link()  # poke: a detached user left linked
    fails(kb.module, "use-list", "not in the IR", op=a)


def test_use_slot_record_mismatch() -> None:
    kb, a, b = _two_ops()
    b.operand_uses[1].index = 0
    fails(kb.module, "use-list", "slot 0", op=b)


def test_attached_flag() -> None:
    kb, a, b = _two_ops()
    b._attached = False
    fails(kb.module, "use-list", "marked detached", op=b)


def test_collect_stops_after_structural_failures() -> None:
    kb, a, b = _two_ops()
    b.attributes["color"] = "red"  # an 18 error that must not be reported ...
    b.operand_uses[0]._unlink()  # ... once the spine itself is broken
    errs = verify(kb.module, collect=True)
    assert [e.invariant for e in errs] == ["use-list"]


# ------------------------------------------------------------- family, form, hooks


def test_atom_call_only_in_machine_form() -> None:
    kb, atom = simple(lambda kb, i: kb.op("atom.call", [i], [], {"catalog_id": "x.nop",
                                                                  "lanes": 32}))
    fails(kb.module, "18", "machine", "candidate form", op=atom)
    fails(kb.module, "18", "scheduled form", op=atom, form="scheduled")
    assert verify(kb.module, "machine") == []


def test_unknown_attribute_rejected() -> None:
    kb, z = simple(lambda kb, i: kb.op("constant", [], [f32], {"value": 1.0, "color": "red"}))
    fails(kb.module, "18", "unknown attribute", "color", op=z)


def test_unregistered_opdef() -> None:
    kb, z = simple(lambda kb, i: kb.op("constant", [], [f32], {"value": 1.0}))
    z.opdef = dataclasses.replace(z.opdef, name="constant")  # a copy the registry never saw
    fails(kb.module, "18", "not a registered operation", op=z)


def test_signature_count() -> None:
    kb, z = simple(lambda kb, i: kb.op("constant", [], [f32, f32], {"value": 1.0}))
    fails(kb.module, "op-signature", "results", op=z)


def test_hook_type_error() -> None:
    def build(kb: KB, i: Value) -> Operation:
        xt = kb.rows(i)
        acc = kb.const(0.0, TileType((16, 16), f32))
        return kb.op("mma", [xt, xt, acc], [TileType((16, 16), f32)], {"policy": ArithPolicy()})

    kb, mma = simple(build)
    fails(kb.module, "op-signature", "K extents differ", op=mma)


def test_hook_region_state_flow() -> None:
    def build(kb: KB, i: Value) -> Operation:
        c = kb.val("arith", [i, i], _i1(), fn="eq")
        return kb.op("if", [c], [f32], {},
                     [kb.region([], lambda: [kb.const(1, i32)]),
                      kb.region([], lambda: [kb.const(1.0)])])

    kb, iff = simple(build)
    fails(kb.module, "region-state-flow", "then region", op=iff)


def _exchange(kind: str, n_operands: int, results: Sequence[Type], **attrs: Any
              ) -> tuple[KB, Operation]:
    def build(kb: KB, i: Value) -> Operation:
        sm = kb.val("memory", [], MemoryType((16,), f32, "shared"))
        v = kb.const(1.0, TileType((16,), f32))
        return kb.op("atomic", [sm, v, v][:n_operands], list(results), {"kind": kind, **attrs})

    return simple(build)


def test_exchange_verifies() -> None:
    kb, _ = _exchange("cas", 3, [TileType((16,), f32)], fill=0.0)
    verify(kb.module, "candidate")


@pytest.mark.parametrize("kind,n,results,attrs,words", [
    ("xchg", 2, [], {}, "atomic xchg yields the old tile tile<16xf32>"),
    ("cas", 3, [TileType((16,), i32)], {}, "atomic cas yields the old tile"),
    ("cas", 2, [TileType((16,), f32)], {}, "atomic cas takes 3 operands, got 2"),
    ("xchg", 3, [TileType((16,), f32)], {}, "atomic xchg takes 2 operands, got 3"),
    ("add", 2, [TileType((16,), f32)], {}, "atomic add yields nothing and has no fill"),
    ("add", 2, [], {"fill": 0.0}, "atomic add yields nothing and has no fill"),
    ("xchg", 2, [TileType((16,), f32)], {"fill": "x"}, "fill"),
], ids=["xchg-no-result", "cas-result-type", "cas-no-compare", "xchg-compare", "add-result",
        "add-fill", "bad-fill"])
def test_exchange_checks(kind: str, n: int, results: list[Type], attrs: dict[str, Any],
                         words: str) -> None:
    kb, op = _exchange(kind, n, results, **attrs)
    fails(kb.module, "op-signature", words, op=op)


def test_check_hook_needs_an_i1_condition() -> None:
    kb, chk = simple(lambda kb, i: kb.op("check", [i], [], {"message": "m", "labels": ()}))
    fails(kb.module, "op-signature", "i1 condition", op=chk)


def test_check_hook_needs_one_label_per_value() -> None:
    def build(kb: KB, i: Value) -> Operation:
        c = kb.val("arith", [i, i], _i1(), fn="eq")
        return kb.op("check", [c, i], [], {"message": "m", "labels": ("i", "j")})

    kb, chk = simple(build)
    fails(kb.module, "op-signature", "1 reported values but 2 labels", op=chk)


def test_check_hook_reports_scalars_only() -> None:
    def build(kb: KB, i: Value) -> Operation:
        c = kb.val("arith", [i, i], _i1(), fn="eq")
        return kb.op("check", [c, kb.rows(i)], [], {"message": "m", "labels": ("rows",)})

    kb, chk = simple(build)
    fails(kb.module, "op-signature", "scalar values only", op=chk)


def test_hook_crash_becomes_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(op: Operation) -> None:
        raise ZeroDivisionError("hook bug")

    broken = dataclasses.replace(OPS["sync"], verify=boom)
    monkeypatch.setitem(OPS, "sync", broken)
    kb, sync = simple(lambda kb, i: kb.op("sync", attrs={"scope": "group"}))
    sync.opdef = broken
    err = fails(kb.module, "op-signature", "internal error while verifying sync",
                "ZeroDivisionError", op=sync)
    assert err.__traceback__ is not None and err.__cause__ is None


def test_collect_reports_every_independent_error() -> None:
    def build(kb: KB, i: Value) -> None:
        kb.op("constant", [], [f32], {"value": 1.0, "color": "red"})
        kb.op("constant", [], [f32], {"value": "x"})

    kb, _ = simple(build)
    errs = verify(kb.module, collect=True)
    assert [e.invariant for e in errs] == ["18", "op-signature"]


# ------------------------------------------------------------------- terminators


def test_function_block_without_return() -> None:
    kb = KB(args=(f32,))
    last = kb.op("arith", [kb.args[0]], [f32], {"fn": "neg"})
    fails(kb.module, "terminator", "must end in return or br", op=last)


def test_empty_function_underlines_header() -> None:
    kb = KB(args=(f32,))
    err = fails(kb.module, "terminator", "empty")
    assert_underlined(err, "func @k(%0: f32) -> () {")


def test_function_without_blocks() -> None:
    kb = KB(args=())
    kb.fn.entry.remove_self()
    err = fails(kb.module, "terminator", "no entry block")
    assert_underlined(err, "func @k")  # the printer cannot print it; a lone header line


def test_terminator_in_the_middle() -> None:
    kb = KB(args=(f32,))
    ret = kb.op("return")
    kb.op("return")
    fails(kb.module, "terminator", "not its last operation", op=ret)


def test_return_inside_a_region() -> None:
    kb = KB()
    kb.op("parallel", [kb.args[2]], [], {"rank": 1},
          [Region([Block([index])])])
    par = kb.fn.entry.operations.first
    ret = par.regions[0].entry.append(Operation("return"))
    kb.op("return")
    fails(kb.module, "terminator", "must end in yield", op=ret)


def test_branch_to_entry() -> None:
    kb = KB(args=(f32,))
    br = kb.op("br", successors=[kb.fn.entry])
    fails(kb.module, "terminator", "entry block", op=br)


# ------------------------------------------------------------------------ dominance


def test_use_before_definition() -> None:
    kb = KB(args=(f32,))
    a = kb.op("arith", [kb.args[0]], [f32], {"fn": "neg"})
    b = kb.op("arith", [kb.args[0]], [f32], {"fn": "abs"})
    kb.op("return")
    a.set_operand(0, b.result)
    fails(kb.module, "dominance", "before its definition", op=a)


def test_value_from_sibling_region() -> None:
    kept: dict[str, Any] = {}

    def then(kb: KB) -> list[Value]:
        kept["v"] = kb.const(2.0)
        return [kept["v"]]

    def build(kb: KB, i: Value) -> Operation:
        c = kb.val("arith", [i, i], _i1(), fn="eq")
        iff = kb.op("if", [c], [f32], {}, [kb.region([], lambda: then(kb)),
                                           kb.region([], lambda: [kb.const(1.0)])])
        return iff

    kb, iff = simple(build)
    else_yield = iff.regions[1].entry.operations.last
    else_yield.set_operand(0, kept["v"])
    fails(kb.module, "dominance", "region 0 of 'if'", "sibling", op=else_yield)


def test_result_used_inside_its_own_region() -> None:
    kb, par = simple(lambda kb, i: None)
    kb2 = KB(args=(f32, index))
    lo = kb2.const(0, index)
    loop = kb2.op("serial", [lo, lo, lo, kb2.args[0]], [f32], {},
                  [kb2.region([index, f32], lambda k, c: [c])])
    kb2.op("return")
    inner_yield = loop.regions[0].entry.operations.last
    inner_yield.set_operand(0, loop.result)
    fails(kb2.module, "dominance", "enclosing 'serial'", op=inner_yield)


def test_cfg_dominance_across_blocks() -> None:
    kb = KB(args=(f32,))
    b1, b2 = Block(), Block()
    kb.fn.body.add_block(b1)
    kb.fn.body.add_block(b2)
    kb.op("br", successors=[b1])
    late = b2.append(Operation("arith", [kb.args[0]], [f32], {"fn": "neg"}))
    user = b1.append(Operation("arith", [late.result], [f32], {"fn": "abs"}))
    b1.append(Operation("br", successors=[b2]))
    b2.append(Operation("return"))
    fails(kb.module, "dominance", "does not dominate", op=user)


# ----------------------------------------------------------------- calls, signatures


def test_call_to_missing_function() -> None:
    kb, call = simple(lambda kb, i: kb.op("call", [], [], {"callee": "nowhere"}))
    fails(kb.module, "symbol", "@nowhere", op=call)


def test_call_from_a_function_outside_any_module() -> None:
    fn = Function("lonely", [f32])
    call = fn.entry.append(Operation("call", [fn.args[0]], [], {"callee": "lonely"}))
    fn.entry.append(Operation("return"))
    fails(fn, "symbol", "not in one", op=call)


def test_call_type_mismatch() -> None:
    kb, call = simple(lambda kb, i: kb.op("call", [i], [], {"callee": "k"}))
    fails(kb.module, "types", "takes", op=call)


def test_shape_symbols_must_be_index_parameters() -> None:
    kb = KB(args=(f32,))
    kb.fn.attributes["shape_symbols"] = ("M",)
    kb.op("return")
    err = fails(kb.module, "types", "index extents")
    assert_underlined(err, 'func @k(%0: f32) -> () {shape_symbols = ["M"]} {')


# ------------------------------------------------------------------- invariant 1


def test_reindex_image_leaves_source_without_fill() -> None:
    def build(kb: KB, i: Value) -> Operation:
        xt = kb.rows(i)
        return kb.op("reindex", [xt], [ROWS], {"map": IndexMap(2, [d(0) + 1, d(1)])})

    kb, rx = simple(build)
    fails(kb.module, "1", "axis 0 at 16", "no fill", op=rx)
    rx.attributes["fill"] = 0.0
    assert verify(kb.module) == []


def test_total_view_image_checked_exactly() -> None:
    def build(kb: KB, i: Value) -> Operation:
        sm = kb.val("memory", [], MemoryType((8, 8), f32, "shared"))
        # d0 - 2 * (d0 floordiv 2) stays in [0, 1] though interval bounds say [-2, 3].
        m = IndexMap(2, [d(0) - d(0).floordiv(2) * 2, d(1) + 5])
        return kb.op("view", [sm], [MemoryType((4, 4), f32, "shared")],
                     {"map": m, "bounds": "total"})

    kb, view = simple(build)
    fails(kb.module, "1", "axis 1 at 8", "bounds='total'", op=view)
    view.attributes["bounds"] = "bounded"
    assert verify(kb.module) == []
    view.attributes["bounds"] = "total"
    view.attributes["map"] = IndexMap(2, [d(0) - d(0).floordiv(2) * 2, d(1) + 4])
    assert verify(kb.module) == []


def test_view_rank_mismatch_is_invariant_1() -> None:
    def build(kb: KB, i: Value) -> Operation:
        return kb.op("view", [kb.args[0], i], [MemoryType((16,), f32)],
                     {"map": IndexMap(1, [s(0) + d(0)], 1)})

    kb, view = simple(build)
    fails(kb.module, "1", "rank-2 base", op=view)


def test_view_of_view_chain_composes() -> None:
    def build(kb: KB, i: Value) -> Operation:
        v1 = kb.val("view", [kb.args[0], i], MemoryType((16, 64), f32),
                    map=IndexMap(2, [s(0) + d(0), d(1)], 1))
        return kb.op("view", [v1], [MemoryType((64, 16), f32)],
                     {"map": IndexMap.transpose([1, 0]), "bounds": "total"})

    kb, _ = simple(build)
    assert verify(kb.module) == []


# ------------------------------------------------------------------- invariant 4


def test_tile_op_outside_parallel() -> None:
    kb = KB()
    sm = kb.op("memory", [], [MemoryType((4,), f32, "shared")])
    kb.op("return")
    fails(kb.module, "4", "outside every parallel", op=sm)


def test_nested_parallel_levels_must_be_inner() -> None:
    kb = KB()
    got: list[Operation] = []
    kb.parallel([kb.args[2]], lambda i: got.append(
        kb.parallel([i], lambda j: None, level="grid")), level="group")
    kb.op("return")
    fails(kb.module, "4", "grid-level parallel is nested in a group-level", op=got[0])


def test_parallel_level_and_constraint_agree() -> None:
    kb = KB()
    par = kb.parallel([kb.args[2]], lambda i: None, level="grid",
                      constraint=ExecConstraint(128, "group"))
    kb.op("return")
    fails(kb.module, "4", "constraint asks for 'group'", op=par)


# ------------------------------------------------------------------- invariant 9


def _reduce_kernel(update: Callable[..., Any], seeds: int = 1, **attrs: Any
                   ) -> tuple[KB, Operation]:
    def build(kb: KB, i: Value) -> Operation:
        xt = kb.rows(i)
        zs = [kb.const(0.0) for _ in range(seeds)]
        return kb.reduce(xt, zs, lambda *a: update(kb, *a), **attrs)

    return simple(build)


def test_tree_reduce_needs_recognized_merge() -> None:
    kb, red = _reduce_kernel(lambda kb, st, e: [arith(kb, "add", arith(kb, "mul", st, st), e)])
    fails(kb.module, "9", "not a recognized merge", 'policy="strict_fold"', op=red)
    red.attributes["policy"] = STRICT_FOLD
    assert verify(kb.module) == []


def test_recognized_merges_with_casts_lifts_and_products() -> None:
    def update(kb: KB, s0: Value, s1: Value, e: Value) -> list[Value]:
        wide = kb.val("arith", [e], f16, fn="cast")
        back = kb.val("arith", [wide], f32, fn="cast")
        return [arith(kb, "max", back, s0), arith(kb, "add", s1, arith(kb, "mul", e, e))]

    kb, red = _reduce_kernel(update, seeds=2, combiner=("max", "add"))
    assert verify(kb.module) == []


def test_coupled_states_are_not_a_tree_merge() -> None:
    def update(kb: KB, best: Value, count: Value, e: Value) -> list[Value]:
        return [arith(kb, "max", best, e), arith(kb, "add", count, best)]

    kb, red = _reduce_kernel(update, seeds=2)
    fails(kb.module, "9", "state 1", op=red)


def test_combiner_must_match_the_update() -> None:
    kb, red = _reduce_kernel(lambda kb, st, e: [arith(kb, "add", e, st)], combiner=("max",))
    fails(kb.module, "9", "combiner says 'max'", "'add'", op=red)
    red.attributes["combiner"] = ("custom",)
    fails(kb.module, "9", "'custom' admits no tree", op=red)
    red.attributes["policy"] = ReductionPolicy("strict_fold", True)
    assert verify(kb.module) == []


def test_one_merge_law_analysis_reads_the_record_first() -> None:
    """``ir.merge_laws``: what every reader of a reduce asks (capture writes the record)."""
    import tilec.ir as ir

    def casts(kb: KB, s0: Value, s1: Value, e: Value) -> list[Value]:
        back = kb.val("arith", [kb.val("arith", [e], f16, fn="cast")], f32, fn="cast")
        return [arith(kb, "max", back, s0), arith(kb, "add", s1, arith(kb, "mul", e, e))]

    _, red = _reduce_kernel(casts, seeds=2)
    assert ir.merge_laws(red) == ("max", "add")
    assert ir.recognize_merges(red.regions[0].entry, 2) == ("max", "add")
    _, coupled = _reduce_kernel(lambda kb, best, count, e: [
        arith(kb, "max", best, e), arith(kb, "add", count, best)], seeds=2)
    assert ir.recognize_merges(coupled.regions[0].entry, 2) == ("max", None)
    assert ir.merge_laws(coupled) is None
    _, square = _reduce_kernel(lambda kb, st, e: [arith(kb, "add", arith(kb, "mul", st, st), e)])
    assert ir.merge_laws(square) is None
    _, plain = _reduce_kernel(lambda kb, st, e: [arith(kb, "add", e, st)], combiner=("custom",))
    assert ir.merge_laws(plain) is None  # the record wins over the recognizer
    plain.attributes["combiner"] = ("add",)
    assert ir.merge_laws(plain) == ("add",)


def test_reduce_update_must_be_pure() -> None:
    got: list[Operation] = []

    def update(kb: KB, st: Value, e: Value) -> list[Value]:
        got.append(kb.op("sync", attrs={"scope": "group"}))
        return [arith(kb, "add", st, e)]

    kb, red = _reduce_kernel(update)
    fails(kb.module, "9", "must be pure", op=got[0])


def test_reduce_axes_checked_by_hook() -> None:
    kb, red = _reduce_kernel(lambda kb, st, e: [arith(kb, "add", st, e)])
    red.attributes["axes"] = (2,)
    fails(kb.module, "9", "axes", op=red)


def test_comparators_are_vacuous() -> None:
    names = [c.name for c in FORM_CHECKS["candidate"] if c.invariant == "10"]
    assert names == ["comparators"]
    assert "vacuous" in CANDIDATE_INVARIANTS["10"]
    assert not any(d.family not in ("control", "structured", "aggregation", "pure", "effect",
                                    "machine") for d in OPS.values())


# ------------------------------------------------------------------ invariant 14


def _pipeline(stages: tuple[str, ...], n_regions: int = 2, **attrs: Any
              ) -> tuple[KB, Operation]:
    def build(kb: KB, i: Value) -> Operation:
        lo, z = kb.const(0, index), kb.const(0.0)
        regions = [kb.region([index, f32], lambda k, c: [arith(kb, "neg", c)])
                   for _ in range(n_regions)]
        return kb.op("pipeline", [lo, lo, lo, z], [f32], {"stages": stages, **attrs}, regions)

    return simple(build)


def test_pipeline_stage_with_two_blocks() -> None:
    kb, pipe = _pipeline(("a", "b"))
    extra = Block([index, f32])
    extra.append(Operation("yield", [extra.args[1]]))
    pipe.regions[1].add_block(extra)
    fails(kb.module, "14", "stage 1 has 2 blocks", op=pipe)


def test_pipeline_stage_names_unique() -> None:
    kb, pipe = _pipeline(("a", "a"))
    fails(kb.module, "14", "not unique", op=pipe)


def test_pipeline_stage_count_and_window() -> None:
    kb, pipe = _pipeline(("a",))
    fails(kb.module, "14", "names 1 stage", op=pipe)
    kb, pipe = _pipeline(("a", ""), window=0)
    fails(kb.module, "14", "window 0", op=pipe)
    kb, pipe = _pipeline(("a", "b c"))
    fails(kb.module, "14", "not an identifier", op=pipe)
