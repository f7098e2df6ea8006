"""``check`` in the SIMT region: uniform failures raise the kernel's error, divergent ones are
reported, passing ones do nothing; the lowering keeps a check in place and verifies."""

from __future__ import annotations

import numpy as np
import pytest
from simtir import machine, poisoned

import tilec as tc
import tilec.ir as ir
from tilec.lower import lower_to_machine
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

ONE = 'map = #map<(d0)[s0, s1] -> (d0 + s0 * 128 + s1)>'
"""Each program writes its own 128 elements (programs may not write one element)."""


def _kernel(cond: str) -> ir.Module:
    return machine(f"""
        {cond}
        check(%ok, %p, %c2) {{labels = ["p", "two"], message = "p must be two"}}
        %v = view(%out, %p, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        %one = constant() {{value = 1.0}} : tile<1xf32>
        store(%v, %one)
    """, params="%out: mem<384xf32, global>", groups=3)


def test_a_uniform_failure_stops_the_program_at_the_check() -> None:
    m = _kernel('%ok = arith(%p, %c2) {fn = "ne"} : i1')
    out = poisoned(384)
    with pytest.raises(tc.KernelAssertionError) as info:
        simulate_module(m, "k", [out])
    assert "assertion failed in @k: p must be two (p = 2, two = 2)" in str(info.value)
    np.testing.assert_array_equal(out[:256], np.ones(256, np.float32))  # groups 0 and 1 stored
    assert np.isnan(out[256:]).all()  # group 2 stopped at the check


def test_a_check_its_threads_disagree_on_is_divergence() -> None:
    m = _kernel('%ok = arith(%tid, %c64) {fn = "lt"} : i1')
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(384)])
    assert info.value.kind == "divergence" and "thread 0 passes, thread 64 fails" in str(
        info.value)


def test_a_passing_check_does_nothing() -> None:
    out = poisoned(384)
    simulate_module(_kernel('%ok = arith(%p, %c4) {fn = "lt"} : i1'), "k", [out])
    np.testing.assert_array_equal(out, np.ones(384, np.float32))


@tc.kernel
def stepped(X, Out, bad, BM: tc.constexpr = 8):
    M = X.shape[0]
    assert Out.shape[0] * BM >= M
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            assert p * 3 + k != bad, "step reached the bad value"
            Out.tile((p, k), (1, 1)).store(tc.zeros((1, 1)))


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80", "metal:m1"])
def test_lowering_keeps_each_check_in_place_with_its_location(target: str) -> None:
    spec = (tc.array((None,), np.float32), tc.array((None, None), np.float32), tc.int32)
    compiled = tc.compile(stepped, *spec, target="reference")
    machine_module = lower_to_machine(compiled.module, target)
    ir.verify(machine_module, "machine")
    before = {op.attr("message"): op for op in compiled.module.walk() if op.name == "check"}
    after = {op.attr("message"): op for op in machine_module.walk() if op.name == "check"}
    assert set(after) == set(before) == {"Out.shape[0] * BM >= M", "step reached the bad value"}
    for msg, op in after.items():
        assert op.loc == before[msg].loc and op.attr("labels") == before[msg].attr("labels")
    inner = after["step reached the bad value"]
    parents = []
    p = inner.parent_op
    while p is not None:
        parents.append((p.name, p.attr("level")))
        p = p.parent_op
    assert parents == [("serial", None), ("parallel", "lane"), ("parallel", "grid")]
    fn = machine_module.lookup("stepped")
    assert after["Out.shape[0] * BM >= M"].parent is fn.entry


# ------------------------------------------------ vote.any and zero-divisor checks


def _voting(flag: str) -> ir.Module:
    return machine(f"""
        {flag}
        %z = constant() {{value = 0}} : tile<2xi1>
        %flags = map(%z, %f) {{shape = #domain<[2]>}} ({{
        ^bb5(%a: i1, %b: i1):
          %o = arith(%a, %b) {{fn = "or"}} : i1
          yield(%o)
        }}) : tile<2xi1>
        %any = atom.call(%flags, %z) {{catalog_id = "vote.any"}} : i1
        %ok = arith(%any) {{fn = "not"}} : i1
        check(%ok) {{kind = "zerodiv", labels = [], message = "rem"}}
        %v = view(%out, %p, %tid) {{bounds = "total", {ONE}}} : mem<1xf32, global>
        %one = constant() {{value = 1.0}} : tile<1xf32>
        store(%v, %one)
    """, params="%out: mem<384xf32, global>", groups=3)


def test_one_thread_s_flag_stops_its_whole_group_through_the_vote() -> None:
    # thread 5 of group 2 flags: every thread of that group stops, the others store
    m = _voting('%t5 = arith(%tid, %c4) {fn = "gt"} : i1\n'
                '%g2 = arith(%p, %c2) {fn = "eq"} : i1\n'
                '%f = arith(%t5, %g2) {fn = "and"} : i1')
    ir.verify(m, "machine")
    out = poisoned(384)
    with pytest.raises(tc.KernelArithmeticError) as info:
        simulate_module(m, "k", [out])
    assert "integer division by zero in @k: '%' (rem) has a zero divisor" in str(info.value)
    np.testing.assert_array_equal(out[:256], np.ones(256, np.float32))
    assert np.isnan(out[256:]).all()


def test_a_vote_no_thread_flags_passes() -> None:
    out = poisoned(384)
    simulate_module(_voting('%f = arith(%tid, %c0) {fn = "lt"} : i1'), "k", [out])
    np.testing.assert_array_equal(out, np.ones(384, np.float32))


def test_a_vote_some_threads_skip_is_divergence() -> None:
    m = machine("""
        %few = arith(%lane, %c16) {fn = "lt"} : i1
        %z = constant() {value = 0} : tile<1xi1>
        if(%few) ({
          %any = atom.call(%z) {catalog_id = "vote.any"} : i1
          yield()
        }, {
          yield()
        })
    """)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "divergence" and "vote.any is reached by 64" in str(info.value)


def test_the_verifier_wants_i1_register_arrays_in_a_vote() -> None:
    m = machine("""
        %z = constant() {value = 0} : tile<2xi32>
        %any = atom.call(%z) {catalog_id = "vote.any"} : i1
    """)
    with pytest.raises(ir.VerificationError, match="vote.any takes i1 register arrays"):
        ir.verify(m, "machine")
