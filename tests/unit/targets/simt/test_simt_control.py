"""Lock-step execution: masks of `if`, uniform loops, divergent barriers, inactive threads."""

from __future__ import annotations

import numpy as np
import pytest
from simtir import find, machine, poisoned

from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

ONE = 'map = #map<(d0)[s0] -> (d0 + s0)>'
"""A one-element view at the thread's offset."""


def test_nested_if_masks_merge_per_thread() -> None:
    m = machine(f"""
        %c40 = constant() {{value = 40}} : index
        %low = arith(%tid, %c40) {{fn = "lt"}} : i1
        %odd = arith(%tid, %c2) {{fn = "rem"}} : index
        %is_odd = arith(%odd, %c1) {{fn = "eq"}} : i1
        %r = if(%low) ({{
          %inner = if(%is_odd) ({{
            %a = constant() {{value = 1.0}} : tile<1xf32>
            yield(%a)
          }}, {{
            %b = constant() {{value = 2.0}} : tile<1xf32>
            yield(%b)
          }}) : tile<1xf32>
          yield(%inner)
        }}, {{
          %c = constant() {{value = 3.0}} : tile<1xf32>
          yield(%c)
        }}) : tile<1xf32>
        %v = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        store(%v, %r)
    """)
    out = poisoned(128)
    simulate_module(m, "k", [out])
    t = np.arange(128)
    np.testing.assert_array_equal(out, np.where(t < 40, np.where(t % 2, 1.0, 2.0), 3.0))


def test_inactive_threads_make_no_accesses() -> None:
    body = f"""
        %ok = arith(%tid, %c64) {{fn = "lt"}} : i1
        %one = constant() {{value = 1.0}} : tile<1xf32>
        if(%ok) ({{
          %v = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
          store(%v, %one)
          yield()
        }}, {{
          yield()
        }})
    """
    out = poisoned(64)
    simulate_module(machine(body, "%out: mem<64xf32, global>"), "k", [out])
    np.testing.assert_array_equal(out, 1.0)
    # without the guard thread 64 stores out of range: reported, not clipped
    unguarded = f"""
        %one = constant() {{value = 1.0}} : tile<1xf32>
        %v = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        store(%v, %one)
    """
    out = poisoned(64)
    with pytest.raises(SimulationError) as info:
        simulate_module(machine(unguarded, "%out: mem<64xf32, global>"), "k", [out])
    assert info.value.kind == "out_of_range"
    assert "thread 64" in str(info.value) and "(64,)" in str(info.value)
    assert [op.name for op in info.value.ops] == ["store", "view"]


def test_bounded_global_views_drop_out_of_range_elements() -> None:
    m = machine("""
        %v = view(%out, %tid) {bounds = "bounded",
            map = #map<(d0)[s0] -> (d0 + s0 * 2)>} : mem<2xf32, global>
        %one = constant() {value = 1.0} : tile<2xf32>
        store(%v, %one)
        %w = view(%out, %tid) {bounds = "bounded",
            map = #map<(d0)[s0] -> (d0 + s0 * 2)>} : mem<2xf32, global>
        %back = load(%w) {fill = 5.0} : tile<2xf32>
    """, "%out: mem<101xf32, global>")
    out = poisoned(101)
    simulate_module(m, "k", [out])
    np.testing.assert_array_equal(out, 1.0)


def test_out_of_range_global_load_names_the_load_and_the_view() -> None:
    m = machine("""
        %t1 = arith(%tid, %c1) {fn = "add"} : index
        %v = view(%out, %t1) {bounds = "total",
            map = #map<(d0)[s0] -> (d0 + s0)>} : mem<1xf32, global>
        %x = load(%v) : tile<1xf32>
    """)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    e = info.value
    assert e.kind == "out_of_range"
    load, view = e.ops
    assert load is find(m, "load")[0] and view is find(m, "view")[0]
    assert str(load.loc) in str(e) and str(view.loc) in str(e)
    assert "thread 127" in str(e) and "%out" in str(e)


def test_divergent_barrier_is_reported_with_the_branch() -> None:
    m = machine("""
        %few = arith(%lane, %c16) {fn = "lt"} : i1
        if(%few) ({
          atom.call() {catalog_id = "barrier.group"}
          yield()
        }, {
          yield()
        })
    """)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    e = info.value
    assert e.kind == "divergence"
    barrier, branch = e.ops
    assert barrier.attr("catalog_id") == "barrier.group" and branch.name == "if"
    assert "64 of the group's 128 threads" in str(e)


def test_barrier_under_a_uniform_condition_is_fine() -> None:
    m = machine("""
        %all = arith(%tid, %c64) {fn = "ge"} : i1
        %yes = arith(%p, %c0) {fn = "eq"} : i1
        if(%yes) ({
          atom.call() {catalog_id = "barrier.group"}
          yield()
        }, {
          yield()
        })
    """)
    simulate_module(m, "k", [poisoned(128)])


def test_divergent_loop_bounds_are_reported() -> None:
    m = machine("""
        %acc0 = constant() {value = 0.0} : tile<1xf32>
        %r = serial(%c0, %lane, %c1, %acc0) ({
        ^bb9(%i: index, %acc: tile<1xf32>):
          yield(%acc)
        }) : tile<1xf32>
    """)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "divergence"
    assert info.value.ops[0].name == "serial"
    assert "upper bound" in str(info.value)


def test_loop_bounds_need_only_agree_among_active_threads() -> None:
    m = machine(f"""
        %first = arith(%warp, %c0) {{fn = "eq"}} : i1
        if(%first) ({{
          %n = arith(%warp, %c4) {{fn = "add"}} : index
          %acc0 = constant() {{value = 0.0}} : tile<1xf32>
          %r = serial(%c0, %n, %c1, %acc0) ({{
          ^bb9(%i: index, %acc: tile<1xf32>):
            %one = constant() {{value = 1.0}} : tile<1xf32>
            %s = map(%acc, %one) {{shape = #domain<[1]>}} ({{
            ^bb10(%x: f32, %y: f32):
              %z = arith(%x, %y) {{fn = "add"}} : f32
              yield(%z)
            }}) : tile<1xf32>
            yield(%s)
          }}) : tile<1xf32>
          %v = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
          store(%v, %r)
          yield()
        }}, {{
          yield()
        }})
    """)
    out = poisoned(128)
    simulate_module(m, "k", [out])
    np.testing.assert_array_equal(out[:32], 4.0)
    assert np.isnan(out[32:]).all()


def test_lane_local_reductions_and_reindex() -> None:
    m = machine("""
        %v = view(%x, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> (s0, d0)>} : mem<8xf32, global>
        %t = load(%v) : tile<8xf32>
        %z = constant() {value = 0.0} : f32
        %strict = reduce(%t, %z) {axes = [0], n_inputs = 1, policy = #policy<strict_fold>} ({
        ^bb5(%s: f32, %e: f32):
          %n = arith(%s, %e) {fn = "add"} : f32
          yield(%n)
        }) : tile<f32>
        %tree = reduce(%t, %z) {axes = [0], combiner = ["max"], n_inputs = 1,
            policy = #policy<unordered_tree>} ({
        ^bb6(%s2: f32, %e2: f32):
          %n2 = arith(%s2, %e2) {fn = "max"} : f32
          yield(%n2)
        }) : tile<f32>
        %b = reindex(%strict) {map = #map<(d0) -> ()>} : tile<2xf32>
        %c = reindex(%tree) {map = #map<(d0) -> ()>} : tile<1xf32>
        %pair = view(%out, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> (s0, d0)>} : mem<2xf32, global>
        store(%pair, %b)
        %last = view(%out, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> (s0, d0 + 2)>} : mem<1xf32, global>
        store(%last, %c)
    """, "%x: mem<128x8xf32, global>, %out: mem<128x3xf32, global>")
    x = np.random.default_rng(0).integers(-8, 8, (128, 8)).astype(np.float32)
    out = poisoned(128, 3)
    simulate_module(m, "k", [x, out])
    np.testing.assert_array_equal(out[:, 0], x.sum(1))
    np.testing.assert_array_equal(out[:, 1], x.sum(1))
    np.testing.assert_array_equal(out[:, 2], x.max(1))


def test_local_memory_is_private_per_thread() -> None:
    m = machine(f"""
        %scratch = memory() : mem<4xf32, local>
        %x = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        %f = arith(%tid, %c1) {{fn = "cast"}} : f32
        %t = map(%f) {{shape = #domain<[4]>}} ({{
        ^bb3(%a: f32):
          yield(%a)
        }}) : tile<4xf32>
        store(%scratch, %t)
        %slot = view(%scratch, %c2) {{bounds = "total", {ONE}}} : mem<1xf32, local>
        %back = load(%slot) : tile<1xf32>
        store(%x, %back)
    """)
    out = poisoned(128)
    simulate_module(m, "k", [out])
    np.testing.assert_array_equal(out, np.arange(128))


def test_max_groups_stops_early() -> None:
    from machine_samples import MACHINE_SAMPLES, SAMPLE_CASES

    case = SAMPLE_CASES["add"]
    a, b, c = case.make_inputs(np.random.default_rng(0), n=2048)
    simulate_module(MACHINE_SAMPLES["add"](), "add", [a, b, c], max_groups=1)
    np.testing.assert_array_equal(c[:512], a[:512] + b[:512])
    assert np.isnan(c[512:]).all()


def test_pipeline_stages_run_in_order_and_per_thread_mma() -> None:
    m = machine("""
        %f = arith(%tid, %c1) {fn = "cast"} : f32
        %a = map(%f) {shape = #domain<[2, 2]>} ({
        ^bb3(%x: f32):
          yield(%x)
        }) : tile<2x2xf32>
        %eye = constant() {value = 1.0} : tile<2x2xf32>
        %zero = constant() {value = 0.0} : tile<2x2xf32>
        %r = pipeline(%c0, %c2, %c1, %zero) {stages = ["mul", "acc"]} ({
        ^bb4(%i: index, %acc: tile<2x2xf32>):
          %prod = mma(%a, %eye, %acc) {policy = #arith<exact, strict_fold>} : tile<2x2xf32>
          yield(%prod)
        }, {
        ^bb5(%j: index, %q: tile<2x2xf32>):
          yield(%q)
        }) : tile<2x2xf32>
        %v = view(%out, %tid) {bounds = "total",
            map = #map<(d0, d1)[s0] -> (s0, d0, d1)>} : mem<2x2xf32, global>
        store(%v, %r)
    """, "%out: mem<128x2x2xf32, global>")
    out = np.full((128, 2, 2), np.nan, np.float32)
    simulate_module(m, "k", [out])
    # each step adds a @ ones = 2 * tid everywhere; two steps
    np.testing.assert_array_equal(out, np.broadcast_to((4.0 * np.arange(128))[:, None, None],
                                                       (128, 2, 2)))
