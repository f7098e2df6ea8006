"""Memory effects from the op inventory, aggregation over regions, alias roots."""

from __future__ import annotations

from tilec.ir import (
    OPS,
    AnalysisManager,
    Block,
    Function,
    IndexMap,
    MemoryEffects,
    MemoryType,
    Module,
    Operation,
    Region,
    TileType,
    f32,
    index,
    token,
)
from tilec.ir.effects import EFFECT_KINDS, alias_root

G = MemoryType((8, 8), f32)
T = TileType((8, 8), f32)
S = MemoryType((8, 8), f32, "shared")


def _view(base, i, j):
    return Operation("view", [base, i, j], [base.type], {"map": IndexMap.tile_at_symbols(2)})


def _kernel():
    """k(a, b, n): v = view a; t = load v; parallel(n) { s = memory; store s, t; w = load s;
    store b, w }; sync; call."""
    fn = Function("k", [G, G, index])
    a, b, n = fn.args
    v = fn.entry.append(_view(a, n, n))
    vv = fn.entry.append(_view(v.result, n, n))
    ld = fn.entry.append(Operation("load", [vv.result], [T]))
    blk = Block([index])
    mem = blk.append(Operation("memory", [], [S]))
    st_local = blk.append(Operation("store", [mem.result, ld.result]))
    ld_local = blk.append(Operation("load", [mem.result], [T]))
    st_out = blk.append(Operation("store", [b, ld_local.result]))
    blk.append(Operation("yield"))
    par = fn.entry.append(Operation("parallel", [n], [], {"rank": 1}, [Region([blk])]))
    sync = fn.entry.append(Operation("sync", [], [token], {"scope": "group"}))
    call = fn.entry.append(Operation("call", [a], [], {"callee": "other"}))
    at = fn.entry.append(Operation("atomic", [b, ld.result], [], {"kind": "add"}))
    ret = fn.entry.append(Operation("return"))
    m = Module([fn])
    return m, fn, dict(a=a, b=b, n=n, v=v, vv=vv, ld=ld, mem=mem, st_local=st_local,
                       ld_local=ld_local, st_out=st_out, par=par, sync=sync, call=call, at=at,
                       ret=ret)


def test_every_effect_class_is_handled():
    assert {d.effect for d in OPS.values()} <= {"pure", "read", "write", "read_write", "alloc",
                                                "sync", "unknown", "control"}
    assert EFFECT_KINDS == ("read", "write", "alloc", "sync", "unknown")


def test_records_follow_view_chains_to_the_root():
    m, fn, o = _kernel()
    fx = MemoryEffects(m)
    assert alias_root(o["vv"].result) is o["a"]
    (rec,) = fx.effects(o["ld"])
    assert (rec.kind, rec.value, rec.root, rec.op) == ("read", o["vv"].result, o["a"], o["ld"])
    assert fx.is_pure(o["v"]) and fx.effects(o["ret"]) == ()
    assert [r.kind for r in fx.effects(o["mem"])] == ["alloc"]
    assert [r.kind for r in fx.effects(o["at"])] == ["read", "write"]
    assert [(r.kind, r.value) for r in fx.effects(o["sync"])] == [("sync", None)]
    assert [(r.kind, r.value) for r in fx.effects(o["call"])] == [("unknown", None)]
    assert fx.reads(o["call"]) == [None] and fx.writes(o["call"]) == [None]


def test_parallel_aggregates_body_without_private_memory():
    m, fn, o = _kernel()
    fx = MemoryEffects(m)
    recs = fx.effects(o["par"])
    assert [(r.kind, r.root, r.op) for r in recs] == [("write", o["b"], o["st_out"])]
    assert fx.writes(o["par"]) == [o["b"]] and fx.reads(o["par"]) == []
    assert not fx.is_pure(o["par"])
    # Inside the body the private memory is visible as usual.
    assert [r.kind for r in fx.effects(o["st_local"])] == ["write"]


def test_may_alias_by_root():
    m, fn, o = _kernel()
    fx = MemoryEffects(m)
    a, b, mem = o["a"], o["b"], o["mem"].result
    assert fx.may_alias(o["vv"].result, a)  # same root
    assert fx.may_alias(a, b)  # parameters may be the same buffer
    assert not MemoryEffects(m, distinct_arguments=True).may_alias(a, b)
    assert not fx.may_alias(mem, a) and not fx.may_alias(o["v"].result, mem)
    assert fx.may_alias(mem, mem)
    assert not fx.may_alias(o["ld"].result, a)  # a tile is a value, not storage
    assert fx.may_alias(None, a)
    opaque = Block([G]).args[0]
    assert fx.may_alias(opaque, mem) and fx.may_alias(opaque, a)


def test_conflicts():
    m, fn, o = _kernel()
    fx = MemoryEffects(m)
    assert fx.conflicts(o["ld"], o["par"])  # par writes b; ld reads a; a may be b
    strict = MemoryEffects(m, distinct_arguments=True)
    assert not strict.conflicts(o["ld"], o["par"])
    assert fx.conflicts(o["ld"], o["sync"]) and fx.conflicts(o["call"], o["ld"])
    assert not fx.conflicts(o["ld"], o["ld"])  # two reads commute
    assert not fx.conflicts(o["v"], o["par"])  # a pure op conflicts with nothing


def test_function_root_and_manager():
    m, fn, o = _kernel()
    am = AnalysisManager(fn)
    fx = am.get(MemoryEffects)
    assert fx.effects(o["ld"]) and fx.name == "memory-effects"
    loose = Operation("load", [o["a"]], [T])
    assert fx.effects(loose) == ()


def test_operation_root():
    m, fn, o = _kernel()
    fx = MemoryEffects(o["par"])
    assert fx.writes(o["par"]) == [o["b"]] and fx.effects(o["st_local"])
