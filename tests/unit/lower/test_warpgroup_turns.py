"""Warpgroup turns (``LowerOptions.warpgroup_turns``, ``lower/machine_turns.py``): the two
consumer warpgroups of attention's key loop issue ``P_{j-1} V_{j-1}`` and ``S_j`` as one
turn, alternating through two named barriers; the simulator replays each warpgroup's
named-barrier events at the end of the group (``simt_turns``), so a protocol that would
hang on the GPU, or leave a phase open, is reported."""

from __future__ import annotations

import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import attention_args as _args
from tilec.driver import compile_module
from tilec.lib.attention import flash_attention
from tilec.lib.matmul import matmul
from tilec.lower.options import LowerOptions
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

TURNS = {"warpgroup_turns": True}




def _lowered(bm: int, options: LowerOptions | None, d: int = 64):
    comp = tc.compile(flash_attention, *_args(2, 256, 256, d), target="reference", BM=bm,
                      BN=64, HEAD_DIM=d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        return compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate", options)


def _turn_ops(module) -> list:
    return [op for fn in module for op in fn.walk() if op.name == "atom.call"
            and op.attr("catalog_id") == "barrier.turn"]


def test_the_key_loop_takes_turns_where_asked() -> None:
    low = _lowered(128, LowerOptions(warpgroup_turns=True))
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "warpgroup turns: the 2 consumer warpgroups issue their products in turn" in notes
    ops = _turn_ops(low.module)
    # before the loop: warpgroup 1 lets 0 go first, each takes its turn; in the body: pass
    # after the scores, take before P V; after the loop: warpgroup 0 passes the last turn.
    # Only the tensor-map copy of the consumers has them (the ordinary ring's meets would
    # deadlock against a warpgroup a turn behind).
    assert [op.attr("action") for op in ops] == ["arrive", "sync", "arrive", "sync", "arrive"]
    assert {op.attr("threads") for op in ops} == {256}
    assert not _turn_ops(_lowered(128, None).module)  # off by default


@pytest.mark.parametrize("bm,options,why", [
    (64, LowerOptions(warpgroup_turns=True, warp_specialized=True),
     "serial at .*: no warpgroup turns: the tile takes 1 consumer warpgroup\\(s\\)"),
    (64, LowerOptions(warpgroup_turns=True),  # the default plan has no producer here
     "no warpgroup turns: only the consumers of a warp-specialized loop take turns"),
    (128, LowerOptions(warpgroup_turns=True, warp_specialized=False),
     "no warpgroup turns: only the consumers of a warp-specialized loop take turns"),
])
def test_where_turns_do_not_apply_the_report_says_why(bm: int, options: LowerOptions,
                                                       why: str) -> None:
    low = _lowered(bm, options)
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert re.search(why, notes), notes
    assert not _turn_ops(low.module)


def test_a_gemm_keeps_its_group_in_flight_and_takes_no_turns() -> None:
    a = np.zeros((512, 256), ml_dtypes.bfloat16)
    b = np.zeros((256, 512), ml_dtypes.bfloat16)
    c = np.zeros((512, 512), np.float32)
    comp = tc.compile(matmul, a, b, c, target="reference", BM=128, BN=128, BK=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate",
                             LowerOptions(warpgroup_turns=True))
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "no warpgroup turns: a wgmma group stays in flight across iterations" in notes
    assert not _turn_ops(low.module)


def test_cuda_prints_named_barriers_with_a_warp_uniform_id() -> None:
    from tilec.targets.cuda.backend import CUDABackend

    low = _lowered(128, LowerOptions(warpgroup_turns=True))
    text = CUDABackend("cuda:sm_90").emit(low.module, "flash_attention").text
    assert text.count('asm volatile("bar.sync %0, 256;"') == 2
    assert text.count('asm volatile("bar.arrive %0, 256;"') == 3


@pytest.mark.parametrize("causal,persistent", [(False, 2), (True, 0), (True, 3)])
def test_simulated_like_the_interpreter(causal: bool, persistent: int) -> None:
    """Ragged queries and keys; persistent programs walk several tiles (each tile's turns
    start afresh); causal tiles have different trip counts."""
    want = _args(3, 130, 100, 64, seed=5)
    bind = dict(BM=128, BN=64, HEAD_DIM=64, CAUSAL=causal)
    tc.interpret(flash_attention, *want, **bind)
    got = _args(3, 130, 100, 64, seed=5)
    comp = flash_attention.compile(*got, target="simt:cuda:sm_90",
                                   variant={"persistent": persistent, **TURNS}, **bind)
    assert _turn_ops(comp.executable().module)
    simulate_module(comp.executable().module, comp.fn_name, got)
    g, w = got[3].astype(np.float32), want[3].astype(np.float32)
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, w, atol=2e-3)


def _simulate_with(monkeypatch, name: str, replacement) -> None:
    import tilec.lower.machine_turns as mt

    monkeypatch.setattr(mt.WarpgroupTurns, name, replacement)
    got = _args(2, 130, 100, 64, seed=6)
    comp = flash_attention.compile(*got, target="simt:cuda:sm_90", variant=TURNS, BM=128,
                                   BN=64, HEAD_DIM=64)
    simulate_module(comp.executable().module, comp.fn_name, got)


def test_a_turn_never_passed_is_a_hang(monkeypatch) -> None:
    """Without warpgroup 0's arrival after the loop, warpgroup 1 waits for the turn of its
    last product forever, and warpgroup 0 at the consumers' next meeting."""
    def end(self) -> None:
        self.g.turns = None

    with pytest.raises(SimulationError, match="hang: warpgroup turns never complete: "
                                              "warpgroup 0 waits on named barrier 1"):
        _simulate_with(monkeypatch, "end", end)


def test_a_turn_passed_twice_is_reported(monkeypatch) -> None:
    """A second arrival of warpgroup 0 after the loop: either it completes warpgroup 1's
    last turn before warpgroup 1 reaches it (which then waits for a phase no one completes)
    or it is left open at the end; both schedules exist on the GPU, both are errors."""
    import tilec.lower.machine_turns as mt

    orig = mt.WarpgroupTurns.end

    def end(self) -> None:
        orig(self)
        g = self.g
        g.guarded(g.arith("eq", self._wg, g.index(0)),
                  lambda: self._turn("arrive", g.index(mt.TURN_BARRIER + 1)))

    with pytest.raises(SimulationError, match="hang: (warpgroup turns never complete|named "
                                              "barrier 5 ends the group with 128 of 256)"):
        _simulate_with(monkeypatch, "end", end)


def test_the_replay_reports_an_open_phase_and_a_count_mismatch() -> None:
    """``TurnLedger`` on hand-made logs: an arrival no warpgroup syncs on is left open; one
    id reached for two thread counts is refused."""
    from tilec.targets.reference.simt_turns import TurnLedger, _Event

    op = ir_op()
    led = TurnLedger()
    led.logs = {0: [_Event("arrive", 4, 256, op)], 1: []}
    with pytest.raises(SimulationError, match="named barrier 4 ends the group with 128 of 256 "
                                              "threads arrived"):
        led.finish()
    led.logs = {0: [_Event("sync", 4, 256, op), _Event("arrive", 5, 256, op)],
                1: [_Event("arrive", 4, 256, op), _Event("sync", 5, 256, op)]}
    led.finish()  # balanced: both phases complete
    led.logs = {0: [_Event("sync", 4, 256, op)], 1: [_Event("arrive", 4, 384, op)]}
    with pytest.raises(SimulationError, match="reached for 384 threads here and for 256"):
        led.finish()


def ir_op():
    """Any operation (the replay names it in its errors)."""
    import tilec.ir as ir

    b = ir.Builder(ir.InsertionPoint.at_end(ir.Block()))
    return b.create("constant", [], [ir.index], {"value": 0})
