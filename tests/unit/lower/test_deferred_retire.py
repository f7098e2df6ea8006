"""A warpgroup product whose result only its loop's yield reads (the next iteration's
scores of a software-pipelined attention) is not waited for where it is issued: it stays
in flight across the rest of the iteration and is retired before the yield
(``machine_matrix._carried_only``, ``machine_control._staged_loop``). The simulator reports
any read of its accumulators before that wait, and a group never retired."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tilec as tc
from paths import attention_args as _args
from tilec.lib.attention import flash_attention, reference_attention
from tilec.targets.reference.simt import simulate_module

PIPELINED = dict(BM=128, BN=64, HEAD_DIM=64, PIPELINE=True)
"""``lib.flash_attention`` with each key block's scores one iteration ahead of its softmax:
iteration ``n`` computes the scores of block ``n`` and the softmax and second product of
block ``n - 1``."""


def _retires(module) -> list[str]:
    """The commit and wait atoms of the key loop (the first copy: the consumers' tensor-copy
    one), in order."""
    loops = [op for fn in module for op in fn.walk() if op.name == "serial"
             and any(o.name == "atom.call" and o.attr("catalog_id") == "wgmma.commit"
                     for o in op.walk())]
    body = min(loops, key=lambda op: sum(1 for _ in op.walk()))  # the innermost: the key loop
    return [f"{o.attr('catalog_id')}{'' if o.attr('pending') is None else o.attr('pending')}"
            for o in body.walk() if o.name == "atom.call"
            and o.attr("catalog_id") in ("wgmma.commit", "wgmma.wait")]


def test_the_next_scores_stay_in_flight_to_the_end_of_the_iteration() -> None:
    args = _args(2, 256, 256, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        comp = flash_attention.compile(*args, target="simt:cuda:sm_90", **PIPELINED)
    seq = _retires(comp.executable().module)
    # the scores' group, then (under n > 0) the second product's group and its wait, then
    # the wait before the yield that retires the scores on every path
    assert seq == ["wgmma.commit", "wgmma.commit", "wgmma.wait0", "wgmma.wait0"], seq


def test_a_product_read_in_its_iteration_is_waited_for_where_it_is_issued() -> None:
    args = _args(2, 256, 256, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        comp = flash_attention.compile(*args, target="simt:cuda:sm_90", BM=128, BN=64,
                                       HEAD_DIM=64)
    assert _retires(comp.executable().module) == ["wgmma.commit", "wgmma.wait0"] * 2


@pytest.mark.parametrize("persistent", [0, 2])
def test_simulated_like_the_reference(persistent: int) -> None:
    """Ragged queries and keys; the simulator reports a read of the scores' registers
    before their wait, and a group never retired."""
    args = _args(3, 130, 200, 64, seed=3)
    want = reference_attention(*(a.astype(np.float32) for a in args[:3]), float(args[4]))
    comp = flash_attention.compile(*args, target="simt:cuda:sm_90",
                                   variant={"persistent": persistent}, **PIPELINED)
    simulate_module(comp.executable().module, comp.fn_name, args)
    got = args[3].astype(np.float32)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, atol=2e-2)


@pytest.mark.parametrize("causal,lse", [(False, False), (True, False), (True, True)])
def test_library_pipeline_form_is_simulated_like_the_reference(causal: bool, lse: bool) -> None:
    """``flash_attention(PIPELINE=True)`` and its LSE kernel: ragged queries and keys, the
    causal mask of the block one iteration behind."""
    from tilec.lib.attention import flash_attention_lse

    args = _args(2, 130, 130 if causal else 200, 64, seed=7)
    q, k, v = (a.astype(np.float32) for a in args[:3])
    want = reference_attention(q, k, v, float(args[4]), causal)
    bind = dict(BM=128, BN=64, HEAD_DIM=64, CAUSAL=causal, PIPELINE=True)
    if lse:
        lse_out = np.full(args[0].shape[:2], np.nan, np.float32)
        full = [*args[:4], lse_out, args[4]]
        comp = flash_attention_lse.compile(*full, target="simt:cuda:sm_90", **bind)
        simulate_module(comp.executable().module, comp.fn_name, full)
        s = np.einsum("bqd,bkd->bqk", q.astype(np.float64), k) * float(args[4])
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
        top = s.max(axis=2)
        want_lse = top + np.log(np.exp(s - top[..., None]).sum(axis=2))
        np.testing.assert_allclose(lse_out, want_lse, atol=1e-3)
    else:
        comp = flash_attention.compile(*args, target="simt:cuda:sm_90", **bind)
        simulate_module(comp.executable().module, comp.fn_name, args)
    assert "wgmma.commit" in _retires(comp.executable().module)[1]  # two groups before a wait
    got = args[3].astype(np.float32)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, atol=2e-2)


def test_the_planner_sees_the_carried_scores_as_the_register_a_source() -> None:
    """The probabilities of the pipelined form come from the scores of the previous
    iteration (a carried value): the planner follows it to the product that computes them
    (``extract._carried_source``), so the second product's A is priced in registers, not
    in shared memory, and 128 x 128 tiles at head dimension 128 plan on warpgroup
    instructions (without it: 263,680 bytes at best, over the group's 232,448)."""
    from tilec.driver import compile_module

    args = _args(2, 256, 256, 128)
    comp = tc.compile(flash_attention, *args, target="reference", BM=128, BN=128,
                      HEAD_DIM=128, PIPELINE=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "matrix planner found no plan" not in notes
    assert "a producer warpgroup issues the copies for 2 consumer warpgroup(s)" in notes


def test_the_carried_scores_are_reduced_where_their_product_left_them() -> None:
    """The pipelined softmax's row maximum and sum read the scores the previous iteration
    carried: the schedule follows the carried value to its product
    (``schedule._accumulator_layout``), so they are reduced in the accumulator's registers
    (``in_place``), not repartitioned through shared memory first (which also spilled
    712 bytes at 128 x 128, D = 128)."""
    from tilec.driver import compile_module

    args = _args(2, 256, 256, 128)
    for bn in (64, 128):
        comp = tc.compile(flash_attention, *args, target="reference", BM=128, BN=bn,
                          HEAD_DIM=128, PIPELINE=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tc.PerformanceWarning)
            sch = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "schedule").module
        strategies = {op.attr("strategy") for fn in sch for op in fn.walk()
                      if op.name == "reduce"}
        assert strategies == {"in_place"}, strategies
