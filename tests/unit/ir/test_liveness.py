"""Liveness rules: straight line, CFG, captures across regions, loops and pipeline stages."""

from __future__ import annotations

from tilec.ir import Block, Function, Liveness, Module, Operation, Region, f32, index


def _arith(fn: str, *vals):
    return Operation("arith", list(vals), [vals[0].type], {"fn": fn})


def test_straight_line():
    fn = Function("f", [f32, f32], [f32])
    x, y = fn.args
    a = fn.entry.append(_arith("add", x, y))
    b = fn.entry.append(_arith("neg", a.result))
    c = fn.entry.append(_arith("mul", b.result, x))
    ret = fn.entry.append(Operation("return", [c.result]))
    Module([fn])
    lv = Liveness(fn)
    assert lv.live_after(a) == {a.result, x}
    assert lv.live_after(b) == {b.result, x}
    assert lv.live_after(c) == {c.result}
    assert lv.live_after(ret) == set()
    assert not lv.is_live_after(y, a) and lv.is_live_after(x, b)
    assert lv.live_before(a) == {x, y}
    assert lv.live_in(fn.entry) == set()


def test_dead_result_is_not_live():
    fn = Function("f", [f32])
    a = fn.entry.append(_arith("neg", fn.args[0]))
    fn.entry.append(Operation("return"))
    assert Liveness(fn).live_after(a) == set()


def _loop():
    """f(x, n): s = serial(n, n, n) init(x) { i, acc: t = acc * x; u = t + t; yield u }."""
    fn = Function("f", [f32, index], [f32])
    x, n = fn.args
    body = Block([index, f32])
    i, acc = body.args
    t = body.append(_arith("mul", acc, x))
    u = body.append(_arith("add", t.result, t.result))
    y = body.append(Operation("yield", [u.result]))
    ser = fn.entry.append(Operation("serial", [n, n, n, x], [f32], {}, [Region([body])]))
    ret = fn.entry.append(Operation("return", [ser.result]))
    Module([fn])
    return fn, dict(x=x, n=n, i=i, acc=acc, t=t, u=u, y=y, ser=ser, ret=ret)


def test_captured_value_live_across_whole_region():
    fn, o = _loop()
    lv = Liveness(fn)
    assert lv.captures(o["ser"]) == {o["x"]}
    # x is used by the first body op but stays live to the end of the body (next iteration).
    for op in ("t", "u", "y"):
        assert lv.is_live_after(o["x"], o[op])
    # After the loop x is dead; the result is live until the return.
    assert lv.live_after(o["ser"]) == {o["ser"].result}
    assert lv.live_before(o["ser"]) >= {o["x"], o["n"]}


def test_carried_arguments_live_around_the_loop():
    fn, o = _loop()
    lv = Liveness(fn)
    for op in ("t", "u", "y"):
        assert lv.is_live_after(o["acc"], o[op])
    assert not lv.is_live_after(o["i"], o["t"])  # the induction variable is ordinary
    assert not lv.is_live_after(o["t"].result, o["u"])
    assert lv.is_live_after(o["u"].result, o["u"]) and not lv.is_live_after(o["u"].result, o["y"])
    plain = Liveness(fn, carried_spans_body=False)
    assert not plain.is_live_after(o["acc"], o["t"])
    assert plain.is_live_after(o["x"], o["y"])


def test_nested_capture_propagates_through_levels():
    fn = Function("g", [f32, index])
    x, n = fn.args
    inner_blk = Block([index])
    leaf = inner_blk.append(_arith("neg", x))
    inner_blk.append(Operation("yield"))
    outer_blk = Block([index])
    early = outer_blk.append(_arith("abs", x))
    inner = outer_blk.append(Operation("parallel", [n], [], {"rank": 1}, [Region([inner_blk])]))
    outer_blk.append(Operation("yield"))
    outer = fn.entry.append(Operation("parallel", [n], [], {"rank": 1}, [Region([outer_blk])]))
    after = fn.entry.append(_arith("neg", x))
    Module([fn])
    lv = Liveness(fn)
    assert lv.captures(inner) == {x} and lv.captures(outer) == {x, n}
    assert lv.is_live_after(x, leaf) and lv.is_live_after(x, early)
    assert lv.is_live_after(x, outer) and not lv.is_live_after(x, after)
    assert lv.is_live_after(n, early)  # captured by outer: live across all of it
    assert not lv.is_live_after(outer_blk.args[0], early)


def test_pipeline_stage_values():
    fn = Function("p", [f32, index], [f32])
    x, n = fn.args
    s0 = Block([index, f32])
    a = s0.append(_arith("mul", s0.args[1], x))
    y0 = s0.append(Operation("yield", [a.result]))
    s1 = Block([index, f32])
    b = s1.append(_arith("add", s1.args[1], s1.args[1]))
    c = s1.append(_arith("neg", b.result))
    y1 = s1.append(Operation("yield", [c.result]))
    pipe = fn.entry.append(Operation("pipeline", [n, n, n, x], [f32], {"stages": ("a", "b")},
                                     [Region([s0]), Region([s1])]))
    fn.entry.append(Operation("return", [pipe.result]))
    Module([fn])
    lv = Liveness(fn)
    # The stage-1 argument crosses the stage boundary: live through all of stage 1.
    assert lv.is_live_after(s1.args[1], b) and lv.is_live_after(s1.args[1], y1)
    # The carried state (stage 0's argument) is live in every stage.
    assert lv.is_live_after(s0.args[1], y0) and lv.is_live_after(s0.args[1], c)
    # The value yielded by stage 0 lives up to its yield; x is live in every stage.
    assert lv.is_live_after(a.result, a) and not lv.is_live_after(a.result, y0)
    assert lv.is_live_after(x, c)


def test_multi_block_cfg_with_loop():
    fn = Function("cfg", [f32, f32])
    x, y = fn.args
    head, body, exit_ = Block([f32]), Block(), Block()
    for b in (head, body, exit_):
        fn.body.add_block(b)
    e0 = fn.entry.append(Operation("br", [x], [], successors=[head]))
    h = head.append(_arith("add", head.args[0], y))
    head.append(Operation("br", [], [], successors=[body, exit_]))  # two successors: a test CFG
    k = body.append(_arith("neg", h.result))
    body.append(Operation("br", [k.result], [], successors=[head]))
    z = exit_.append(_arith("neg", h.result))
    exit_.append(Operation("return"))
    Module([fn])
    lv = Liveness(fn)
    assert lv.live_in(head) == {y}  # y is needed on every trip round the loop
    assert lv.live_in(body) == {h.result, y}
    assert lv.live_out(body) == {y}
    assert lv.is_live_after(y, e0) and lv.is_live_after(y, k)
    assert lv.live_after(z) == set()
    assert not lv.is_live_after(x, e0)


def test_detached_ops_have_no_liveness():
    fn, o = _loop()
    lv = Liveness(fn)
    loose = _arith("neg", o["x"])
    assert lv.live_after(loose) == set() and lv.live_before(loose) == set()
    o["ret"].remove_self()
    lv2 = Liveness(fn)
    assert lv2.live_after(o["ser"]) == set()
    assert lv2.live_after(o["ret"]) == set()


def test_module_root_covers_every_function():
    fa, oa = _loop()
    m = fa.parent
    fb = Function("h", [f32])
    nb = fb.entry.append(_arith("neg", fb.args[0]))
    m.add_function(fb)
    lv = Liveness(m)
    assert lv.live_after(nb) == set() and lv.live_after(oa["t"])
