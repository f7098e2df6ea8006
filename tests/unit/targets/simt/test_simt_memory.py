"""Shared memory: the race detector, atomics, and the cp.async model."""

from __future__ import annotations

import numpy as np
import pytest
from simtir import machine, poisoned

from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

SHARED = "%sh = memory() : mem<128xf32, shared>"
ONE = 'map = #map<(d0)[s0] -> (d0 + s0)>'

WRITE_OWN = f"""
    %f = arith(%tid, %c1) {{fn = "cast"}} : f32
    %val = map(%f) {{shape = #domain<[1]>}} ({{
    ^bb3(%a: f32):
      yield(%a)
    }}) : tile<1xf32>
    %mine = view(%sh, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, shared>
    store(%mine, %val)
"""
"""Every thread writes its id into ``%sh[tid]``."""

READ_MIRROR = f"""
    %c127 = constant() {{value = 127}} : index
    %other = arith(%c127, %tid) {{fn = "sub"}} : index
    %theirs = view(%sh, %other) {{bounds = "total", {ONE}}} : mem<1xf32, shared>
    %got = load(%theirs) : tile<1xf32>
    %dst = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
    store(%dst, %got)
"""
"""Every thread reads ``%sh[127 - tid]`` (another thread's element) into ``%out[tid]``."""

BARRIER = 'atom.call() {catalog_id = "barrier.group"}'


def simulate(body: str, *arrays: np.ndarray, params: str = "%out: mem<128xf32, global>",
             **kw: object) -> None:
    simulate_module(machine(body, params, shared=SHARED, **kw), "k", list(arrays))


def race(body: str, params: str = "%out: mem<128xf32, global>") -> SimulationError:
    m = machine(body, params, shared=SHARED)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "race"
    return info.value


def test_exchange_with_a_barrier_is_correct() -> None:
    out = poisoned(128)
    simulate(WRITE_OWN + BARRIER + READ_MIRROR, out)
    np.testing.assert_array_equal(out, np.arange(127, -1, -1))


def test_exchange_without_a_barrier_is_a_race_naming_both_operations() -> None:
    e = race(WRITE_OWN + READ_MIRROR)
    store, load = e.ops
    assert (store.name, load.name) == ("store", "load")
    text = str(e)
    assert str(store.loc) in text and str(load.loc) in text
    assert "'store(%mine, %val)'" in text and "'%got = load(%theirs) : tile<1xf32>'" in text
    assert "%sh element (127,): write by thread 127" in text and "read by thread 0" in text
    assert "caret" not in text


def test_a_thread_rereading_its_own_write_is_not_a_race() -> None:
    out = poisoned(128)
    simulate(WRITE_OWN + f"""
        %again = load(%mine) : tile<1xf32>
        store(%mine, %again)
        %dst = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        store(%dst, %again)
    """, out)
    np.testing.assert_array_equal(out, np.arange(128))


def test_two_threads_storing_one_element_race_within_one_operation() -> None:
    e = race("""
        %x = constant() {value = 1.0} : tile<1xf32>
        %cell = view(%sh, %c0) {bounds = "total",
            map = #map<(d0)[s0] -> (d0 + s0)>} : mem<1xf32, shared>
        store(%cell, %x)
    """)
    assert len(e.ops) == 1 and e.ops[0].name == "store"
    assert "write by thread 0" in str(e) and "write by thread 127" in str(e)


def test_read_then_write_by_another_thread_is_a_race() -> None:
    e = race(WRITE_OWN + BARRIER + READ_MIRROR + WRITE_OWN.replace("%f ", "%f2 ")
             .replace("(%f)", "(%f2)").replace("%val", "%val2").replace("%mine", "%mine2")
             .replace("^bb3", "^bb4"))
    load, store = e.ops
    assert (load.name, store.name) == ("load", "store")
    assert "read by thread" in str(e) and "after the barrier at" in str(e)


def test_shared_atomics_do_not_race_with_each_other_but_need_a_barrier_to_read() -> None:
    add_one = f"""
        %zero = constant() {{value = 0.0}} : tile<1xf32>
        %cell = view(%sh, %c0) {{bounds = "total", {ONE}}} : mem<1xf32, shared>
        %first = arith(%tid, %c0) {{fn = "eq"}} : i1
        if(%first) ({{
          store(%cell, %zero)
          yield()
        }}, {{
          yield()
        }})
        {BARRIER}
        %one = constant() {{value = 1.0}} : tile<1xf32>
        atomic(%cell, %one) {{kind = "add"}}
    """
    read = f"""
        %sum = load(%cell) : tile<1xf32>
        %dst = view(%out, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        store(%dst, %sum)
    """
    out = poisoned(128)
    simulate(add_one + BARRIER + read, out)
    np.testing.assert_array_equal(out, 128.0)
    e = race(add_one + read)
    assert [op.name for op in e.ops] == ["atomic", "load"]


def test_global_atomics_accumulate_repeated_addresses() -> None:
    out = np.zeros(4, np.float32)
    m = machine("""
        %slot = arith(%tid, %c4) {fn = "rem"} : index
        %v = view(%out, %slot) {bounds = "total",
            map = #map<(d0)[s0] -> (d0 + s0)>} : mem<1xf32, global>
        %one = constant() {value = 1.0} : tile<1xf32>
        atomic(%v, %one) {kind = "add"}
    """, "%out: mem<4xf32, global>")
    simulate_module(m, "k", [out])
    np.testing.assert_array_equal(out, 32.0)


def test_out_of_range_shared_load_is_reported() -> None:
    m = machine(f"""
        %t1 = arith(%tid, %c1) {{fn = "add"}} : index
        %v = view(%sh, %t1) {{bounds = "total", {ONE}}} : mem<1xf32, shared>
        %x = load(%v) : tile<1xf32>
    """, shared=SHARED)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "out_of_range" and "shared memory %sh" in str(info.value)


def test_fresh_shared_memory_per_group_reads_as_nan() -> None:
    out = np.zeros(256, np.float32)
    # group p writes %out[128p + tid] (programs write disjoint elements)
    slot = """
        %c128 = constant() {value = 128} : index
        %base = arith(%p, %c128) {fn = "mul"} : index
        %slot = arith(%base, %tid) {fn = "add"} : index
    """
    simulate(slot + READ_MIRROR.replace("view(%out, %tid)", "view(%out, %slot)"), out,
             params="%out: mem<256xf32, global>", groups=2)
    assert np.isnan(out).all()  # nobody wrote %sh: poison, not a previous group's data


# ------------------------------------------------------------------ cp.async

def copy(k: str = "", offset: int = 0) -> str:
    """Threads 0..31 copy ``x[4t : 4t+4]`` to ``%sh[offset + 4t]`` (zero past ``n``).

    Value names end in ``k``.
    """
    return f"""
    %t4{k} = arith(%tid, %c4) {{fn = "mul"}} : index
    %off{k} = constant() {{value = {offset}}} : index
    %d4{k} = arith(%t4{k}, %off{k}) {{fn = "add"}} : index
    %left{k} = arith(%n, %t4{k}) {{fn = "sub"}} : index
    %bytes0{k} = arith(%left{k}, %c4) {{fn = "mul"}} : index
    %bytes1{k} = arith(%bytes0{k}, %c16) {{fn = "min"}} : index
    %bytes{k} = arith(%bytes1{k}, %c0) {{fn = "max"}} : index
    %gsrc{k} = view(%x, %t4{k}) {{bounds = "bounded", {ONE}}} : mem<4xf32, global>
    %sdst{k} = view(%sh, %d4{k}) {{bounds = "total", {ONE}}} : mem<4xf32, shared>
    %few{k} = arith(%tid, %c32) {{fn = "lt"}} : i1
    if(%few{k}) ({{
      %tok{k} = atom.call(%sdst{k}, %gsrc{k}, %bytes{k}) {{catalog_id = "cp.async.16"}} : token
      %grp{k} = atom.call() {{catalog_id = "cp.async.commit"}} : token
      yield()
    }}, {{
      yield()
    }})
"""


COPY = copy()

WAIT = 'atom.call() {catalog_id = "cp.async.wait", pending = 0}'
PARAMS = "%x: mem<nxf32, global>, %out: mem<128xf32, global>"


def run_copy(body: str, n: int = 126, shared: str = SHARED) -> np.ndarray:
    x = np.arange(1, n + 1, dtype=np.float32)
    out = poisoned(128)
    m = machine(body, PARAMS, shared=shared, symbols=("n",), bindings=((0, 0),))
    simulate_module(m, "k", [x, out])
    return out


def test_cp_async_copy_wait_barrier_then_read() -> None:
    out = run_copy(COPY + WAIT + BARRIER + READ_MIRROR)
    want = np.zeros(128, np.float32)
    want[:126] = np.arange(1, 127)
    np.testing.assert_array_equal(out, want[::-1])  # zero-filled past valid_bytes


def test_reading_a_copy_destination_before_the_wait_is_a_race() -> None:
    with pytest.raises(SimulationError) as info:
        run_copy(COPY + BARRIER + READ_MIRROR)
    e = info.value
    assert e.kind == "race"
    copy, load = e.ops
    assert copy.attr("catalog_id") == "cp.async.16" and load.name == "load"
    assert "in flight" in str(e)


def test_the_copy_lands_at_the_wait_and_still_needs_a_barrier() -> None:
    with pytest.raises(SimulationError) as info:
        run_copy(COPY + WAIT + READ_MIRROR)
    e = info.value
    assert e.kind == "race"
    copy, load = e.ops
    assert copy.attr("catalog_id") == "cp.async.16" and load.name == "load"
    assert "write by thread" in str(e)


def test_two_copies_in_flight_to_one_element_race() -> None:
    with pytest.raises(SimulationError) as info:
        run_copy(copy("a") + copy("b") + WAIT + BARRIER + READ_MIRROR)
    e = info.value
    assert e.kind == "race" and "in flight" in str(e)
    assert [op.attr("catalog_id") for op in e.ops] == ["cp.async.16", "cp.async.16"]


def test_wait_with_pending_groups_leaves_the_newest_in_flight() -> None:
    big = "%sh = memory() : mem<256xf32, shared>"
    one_left = 'atom.call() {catalog_id = "cp.async.wait", pending = 1}'
    two_groups = copy("a") + copy("b", offset=128) + one_left + BARRIER
    out = run_copy(two_groups + READ_MIRROR, shared=big)  # the older group landed
    np.testing.assert_array_equal(out[2:], np.arange(126, 0, -1))
    read_newer = READ_MIRROR.replace("%c127 = constant() {value = 127}",
                                     "%c127 = constant() {value = 255}")
    with pytest.raises(SimulationError) as info:
        run_copy(two_groups + read_newer, shared=big)
    assert info.value.kind == "race" and "in flight" in str(info.value)


def test_cp_async_source_must_be_valid() -> None:
    # claim all 16 bytes even past the end of x: the source elements are not there
    bad = COPY.replace('%bytes = arith(%bytes1, %c0) {fn = "max"} : index',
                       '%bytes = arith(%c16, %c0) {fn = "max"} : index')
    assert bad != COPY
    with pytest.raises(SimulationError) as info:
        run_copy(bad + WAIT + BARRIER + READ_MIRROR)
    assert info.value.kind == "out_of_range"
    assert info.value.ops[0].attr("catalog_id") == "cp.async.16"


# ------------------------------------------------------------------ cp.async and arrivals

_EMP = f'%emp = view(%bars, %c0) {{bounds = "total", {ONE}}} : mem<1xi64, shared>\n'
_EMP_SHARED = "%sh = memory() : mem<128xf32, shared>\n%bars = memory() : mem<2xi64, shared>"
_EMP_INIT = """
%z = arith(%tid, %c0) {fn = "eq"} : i1
if(%z) ({
  %ie = atom.call(%emp) {catalog_id = "mbarrier.init", count = 128} : token
  yield()
}, {
  yield()
})
""" + BARRIER + "\n"
_ARRIVE_WAIT = """
%at = atom.call(%emp) {catalog_id = "mbarrier.arrive"} : token
%pe = constant() {value = 0} : index
atom.call(%emp, %pe) {catalog_id = "mbarrier.wait"}
"""


def _run_copy(body: str) -> None:
    x = np.arange(1, 127, dtype=np.float32)
    m = machine(_EMP + _EMP_INIT + body, PARAMS, shared=_EMP_SHARED, symbols=("n",),
                bindings=((0, 0),))
    simulate_module(m, "k", [x, poisoned(128)])


def test_a_copy_issued_after_every_reader_arrived_is_ordered() -> None:
    _run_copy(READ_MIRROR + _ARRIVE_WAIT + COPY + WAIT + BARRIER)


def test_a_copy_issued_before_the_release_races_even_if_it_lands_after() -> None:
    # on the GPU the copy may land as soon as it is issued, before the readers arrive
    with pytest.raises(SimulationError) as info:
        _run_copy(READ_MIRROR + COPY + _ARRIVE_WAIT + WAIT + BARRIER)
    assert info.value.kind == "race" and "cp.async" in str(info.value)
