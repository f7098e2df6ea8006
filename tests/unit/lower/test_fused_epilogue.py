"""A proved scalar epilogue on the direct accumulator output
(``PlannerOptions.fuse_matrix_epilogues``, ``plan/proofs/scalar_epilogue.py``): the cast to a
16-bit output (and a scale, an activation) runs on the accumulator's registers, which are
stored directly, so no shared staging of the output tile is planned. Simulated against the
reference with NaN-poisoned outputs on every matrix realization that has a direct output."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential

import tilec as tc
from epilogue_kernels import residual_act, scaled_relu
from tilec.lib import gemm_bias_act, matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _fused(**kw) -> LowerOptions:
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, fuse_matrix_epilogues=True))


def _unfused(**kw) -> LowerOptions:
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, fuse_matrix_epilogues=False))


def _args(m: int, n: int, k: int, out, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16),
            np.zeros((m, n), out)]


def _shared(fused: bool, tiles: dict[str, int], **kw) -> int:
    args = _args(512, 512, 512, BF16)
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    opts = _fused(**kw) if fused else _unfused(**kw)
    res = lower(compiled.module, "cuda:sm_90", opts)
    (ch,) = res.groups[0].mma.values()
    assert ch.accumulator == ("direct" if fused else "resident")
    return res.resources[0]["shared_bytes"]


def test_the_output_tile_is_no_longer_staged() -> None:
    tiles = {"BM": 128, "BN": 128, "BK": 64}
    # (the tensor stores' buffers off: they would come back with the fused cast)
    off, on = _shared(False, tiles), _shared(True, tiles, tensor_store=False)
    assert off - on >= 128 * 128 * 4  # the f32 staging of the output tile is gone
    # 128x256 tiles with a bf16 output and four ring versions now fit a group
    wide = {"BM": 128, "BN": 256, "BK": 64}
    assert _shared(True, wide, warp_specialized=True, wgmma_stages=4) <= 232448


@needs_simulator
@pytest.mark.parametrize("shape,tiles,target,kw,out", [
    ((200, 136, 160), {"BM": 64, "BN": 64, "BK": 64}, "cuda:sm_90",
     {"warp_specialized": True}, BF16),
    ((256, 384, 200), {"BM": 128, "BN": 128, "BK": 64}, "cuda:sm_90",
     {"warp_specialized": True, "persistent": 2}, BF16),
    ((130, 130, 72), {"BM": 64, "BN": 64, "BK": 64}, "cuda:sm_90", {}, BF16),
    ((100, 70, 50), {"BM": 64, "BN": 64, "BK": 32}, "cuda:sm_80", {}, BF16),
    ((100, 70, 50), {"BM": 64, "BN": 64, "BK": 32}, "cuda:sm_90", {}, np.float16),
], ids=["ws_ragged", "persistent", "wgmma_fallback", "mma_sync", "f16"])
def test_fused_casts_match_the_reference(shape, tiles, target, kw, out) -> None:
    res = differential(matmul, _args(*shape, out, seed=sum(shape)), [2], target, tiles,
                       options=_fused(**kw), rtol=1e-2, atol=1e-2)
    assert [ch.accumulator for ch in res.groups[0].mma.values()] == ["direct"]


@needs_simulator
def test_a_scaled_activation_matches_the_reference() -> None:
    args = [*_args(150, 100, 90, BF16, seed=4), 0.5]
    res = differential(scaled_relu, args, [2], "cuda:sm_90", {}, options=_fused(),
                       rtol=1e-2, atol=1e-2)
    assert [ch.accumulator for ch in res.groups[0].mma.values()] == ["direct"]


@needs_simulator
@pytest.mark.parametrize("shape,tiles,target,act", [
    ((200, 300, 136), {"BM": 128, "BN": 128, "BK": 64}, "cuda:sm_90", "gelu"),
    ((130, 70, 64), {"BM": 128, "BN": 128, "BK": 64}, "cuda:sm_90", "silu"),
    ((100, 90, 40), {"BM": 64, "BN": 64, "BK": 32}, "cuda:sm_80", "relu"),
], ids=["ws_gelu", "ws_ragged_silu", "mma_sync_relu"])
def test_a_bias_row_and_activation_run_on_the_accumulator(shape, tiles, target, act) -> None:
    """``act(acc + bias[None, :])`` with the default plan: the bias is loaded by the
    accumulator's owners (a reindexed load, plan/proofs/scalar_epilogue.py), so no output
    tile goes through shared memory."""
    m, n, k = shape
    r = np.random.default_rng(sum(shape))
    args = [r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16),
            r.standard_normal(n).astype(np.float32), np.zeros((m, n), np.float32)]
    res = differential(gemm_bias_act, args, [3], target, {**tiles, "ACT": act},
                       rtol=1e-3, atol=1e-3)
    assert [ch.accumulator for ch in res.groups[0].mma.values()] == ["direct"]
    bm, bn, bk = tiles["BM"], tiles["BN"], tiles["BK"]
    (loop,) = [op for op in res.scheduled.walk() if op.attr("versions")]
    ring = loop.attr("versions") * (bm * bk + bk * bn) * 2
    assert res.resources[0]["shared_bytes"] - ring < bm * bn * 4  # no f32 output tile


def test_a_bias_row_beside_a_wide_accumulator_fits_only_part_by_part() -> None:
    """128x256x64: 128 accumulators and 128 bias values per lane beside the kernel's other
    registers exceed the register file where the epilogue runs over the whole tile (ptxas
    spilled that kernel): the warp-level realizations are rejected for it. The warpgroup
    realization, whose tensor stores compute the epilogue part by part (lower/
    machine_epilogue.py; 0 spills, tests/unit/lower/test_tensor_store.py), is selected."""
    from tilec.driver import compile_module

    a = np.zeros((512, 512), BF16)
    args = [a, a, np.zeros(512, np.float32), np.zeros((512, 512), np.float32)]
    module = tc.compile(gemm_bias_act, *args, target="reference", BM=128, BN=256, BK=64,
                        ACT="gelu").module
    comp = compile_module(module, "gemm_bias_act", "cuda:sm_90", "plan")
    (group,) = comp.plan.groups
    (chosen,) = group.selected.choices
    assert chosen.candidate.realization.value == "wgmma"
    assert chosen.candidate.accumulator == "direct"
    why = [r.reason for r in group.rejected if "fused epilogue" in r.reason]
    assert why and all("registers per lane beside" in w for w in why), why
    assert any("hold 128 registers per lane beside 168, more than the 255" in w for w in why)


def _lowered(kernel, args, target: str, **tiles):
    compiled = tc.compile(kernel, *args, target="reference", **tiles)
    return lower(compiled.module, target)


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("kernel", ["bias", "residual"])
@pytest.mark.parametrize("out", [np.float32, BF16], ids=["f32", "bf16"])
def test_the_epilogue_loads_are_owned_so_nothing_is_staged(target, kernel, out) -> None:
    """``act(acc + bias[None, :])`` and ``act(acc + R)``, f32 and bf16 outputs: the
    epilogue's map keeps the accumulator's layout and hands it to its loaded operands
    (no repartition of the bias or the residual), and the group's shared memory is the
    plain matrix product's: the operand ring only, no staged output tile."""
    m, n, k = 77, 45, 33
    r = np.random.default_rng(0)
    a, b = r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16)
    c = np.zeros((m, n), out)
    tiles = {"BM": 64, "BN": 64, "BK": 32}
    if kernel == "bias":
        res = _lowered(gemm_bias_act, [a, b, np.zeros(n, np.float32), c], target,
                       ACT="gelu", **tiles)
    else:
        res = _lowered(residual_act, [a, b, np.zeros((m, n), np.float32), c], target,
                       ACT="gelu", **tiles)
    g = res.groups[0]
    assert [ch.accumulator for ch in g.mma.values()] == ["direct"]
    assert not [op.name for op, _ in g.uses if op.name in ("map", "store")], g.uses
    plain = _lowered(matmul, [a, b, c], target, **tiles)
    assert res.resources[0]["shared_bytes"] == plain.resources[0]["shared_bytes"]
