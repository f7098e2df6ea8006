"""Attention with 128 x 128 tiles at head dimension 128 plans warpgroup instructions for both
products. The planner counted each product's accumulator as its own shared tile and the
probabilities (the second product's A, taken from the scores' registers) as a staged
operand: 333888 bytes at best against 232448, so the scalar reference ran it. It now counts
the group's scratch pool once (its largest use), no staging for a register A operand whose
source product is a warpgroup candidate too (``MatrixWorkload.a_from``), and the swizzled
base's alignment once; the lowering places 230656 bytes (the query tile, two versions of
the key and value rings, the f32 scratch of the exit's ``acc / den``)."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.ir.allocation import shared_layout
from tilec.lib.attention import flash_attention
from tilec.lib.matmul import matmul
from tilec.plan.extract import accumulator_source
from tilec.targets.reference.simt import simulate_module

CAPACITY = 232448
"""Shared bytes an sm_90 group may have."""


def _args(bh: int, s: int, sk: int, d: int = 128, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((bh, n, d)).astype(ml_dtypes.bfloat16)
               for n in (s, sk, sk))
    return [q, k, v, np.full((bh, s, d), np.nan, ml_dtypes.bfloat16),
            np.float32(1 / np.sqrt(d))]


def _lower(kern, args: list, **bind):
    comp = tc.compile(kern, *args, target="reference", **bind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    return comp, low


def _placed(low) -> int:
    """The launch's dynamic shared memory of the lowered kernel's one group."""
    (grid,) = [op for fn in low.module for op in fn.walk()
               if op.name == "parallel" and op.attr("level") == "grid"]
    return shared_layout(grid, 128).launch_bytes


@pytest.mark.parametrize("causal", [False, True])
def test_both_products_plan_warpgroup_instructions(causal: bool) -> None:
    _, low = _lower(flash_attention, _args(4, 4096, 4096), BM=128, BN=128, HEAD_DIM=128,
                    CAUSAL=causal)
    (gp,) = low.plan.groups
    sel = gp.selected
    assert sel is not None, gp.diagnostics
    assert [p.candidate.realization for p in sel.choices] == ["wgmma", "wgmma"]
    # the probabilities' source is the first product
    assert [w.a_from for w in gp.workload.ops] == [None, "mma#0"]
    placed = _placed(low)
    # the planner's figure bounds what the lowering places, within the barriers' pair it
    # counts for each product of the one loop
    assert placed <= sel.shared_bytes <= placed + 256 and sel.shared_bytes <= CAPACITY
    assert low.resources[0]["shared_bytes"] == placed == 230656
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "scalar reference" not in notes
    assert "warp-specialized by default" in notes


def test_the_register_a_source_is_followed_through_maps_and_branches() -> None:
    comp = tc.compile(flash_attention, *_args(1, 256, 256), target="reference", BM=128,
                      BN=128, HEAD_DIM=128)
    mmas = [op for fn in comp.module for op in fn.walk() if op.name == "mma"]
    assert [accumulator_source(m, mmas) for m in mmas] == [None, 0]


def test_gemm_and_128x64_attention_keep_their_plans() -> None:
    """Same realizations as before; the shared memory placed does not grow (128 x 256 x 64:
    231424 bytes before, the swizzled buffers now placed first with no padding) but by the
    ring versions it buys: the query tile, copied once into one buffer, is no longer counted
    in every version (``schedule_staging.copied_once``), so 128 x 64 attention at D = 128
    gets 3 versions instead of 2 (165120 bytes before) and 128 x 128 at D = 64 4 instead
    of 3 (149504)."""
    a = np.zeros((1024, 1024), ml_dtypes.bfloat16)
    cases = [
        (matmul, [a, a, np.zeros((1024, 1024), np.float32)], dict(BM=128, BN=256, BK=64),
         ["wgmma 8x1/1x32 direct @ 256"], 231424),
        (matmul, [a, a, np.zeros((1024, 1024), np.float32)], dict(BM=128, BN=128, BK=64),
         ["wgmma 8x1/1x16 direct @ 256"], 165888),
        (flash_attention, _args(4, 4096, 4096), dict(BM=128, BN=64, HEAD_DIM=128),
         ["wgmma 8x1/1x8 nonresident @ 256", "wgmma 8x1/1x16 nonresident @ 256"], 197888),
        (flash_attention, _args(4, 4096, 4096, 64), dict(BM=128, BN=128, HEAD_DIM=64),
         ["wgmma 8x1/1x16 nonresident @ 256", "wgmma 8x1/1x8 nonresident @ 256"], 181504),
    ]
    for kern, args, bind, labels, before in cases:
        _, low = _lower(kern, args, **bind)
        (gp,) = low.plan.groups
        assert [p.candidate.label for p in gp.selected.choices] == labels, bind
        assert _placed(low) <= before, bind
        if kern is flash_attention:  # the keys' and values' rings
            versions = [op.attr("versions") for fn in low.module for op in fn.walk()
                        if op.name == "memory" and op.attr("versions")]
            assert versions == [3, 3] if bind["HEAD_DIM"] == 128 else [4, 4], bind


@pytest.mark.parametrize("causal", [False, True])
def test_simulated_like_the_interpreter(causal: bool) -> None:
    """One batch-head of 200 queries and 180 keys (ragged in both), outputs poisoned."""
    bind = dict(BM=128, BN=128, HEAD_DIM=128, CAUSAL=causal)
    want = _args(1, 200, 180, seed=4)
    tc.interpret(flash_attention, *want, **bind)
    got = _args(1, 200, 180, seed=4)
    comp = flash_attention.compile(*got, target="simt:cuda:sm_90", **bind)
    module = comp.executable().module
    assert any(op.name == "atom.call" and str(op.attr("catalog_id")).startswith("wgmma.m64")
               for fn in module for op in fn.walk())  # the matrix path, not the reference
    simulate_module(comp.executable().module, comp.fn_name, got)
    g, w = got[3].astype(np.float32), want[3].astype(np.float32)
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, w, atol=2e-3)


@pytest.mark.parametrize("causal", [False, True])
def test_ptxas_fits_it_without_spills(tmp_path, causal: bool) -> None:
    """Scores, probabilities and the output accumulator in the consumers' registers within
    the launch bound's 168 (checked with nvcc's ptxas where it is on PATH)."""
    from tilec.targets.cuda.backend import CUDABackend

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    comp, low = _lower(flash_attention, _args(4, 256, 256), BM=128, BN=128, HEAD_DIM=128,
                       CAUSAL=causal)
    src = CUDABackend("cuda:sm_90").emit(low.module, comp.fn_name)
    cu = tmp_path / "k.cu"
    cu.write_text(src.text)
    p = subprocess.run(["nvcc", "-arch=sm_90a", "-cubin", "-Xptxas", "-v", "-o",
                        str(tmp_path / "k.cubin"), str(cu)], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "0 bytes spill stores" in p.stderr and "C7508" not in p.stderr, p.stderr[-1500:]
