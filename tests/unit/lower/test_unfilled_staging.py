"""A matrix product over windows without a fill takes the same copy engines as one with
``fill=0.0``: the outside elements of an unfilled float window are unspecified, which
every target reads as NaN, so tensor copies fill NaN (``tma.load`` with ``oob = "nan"``,
the tensor map's NaN fill) and ``cp.async`` copies only whole chunks inside the array
(an edge window is copied element by element). Simulated against the reference
interpreter with NaN-poisoned outputs: a ragged K gives NaN everywhere in both, where a
zero fill would give numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential, poisoned
from unfilled_cases import unfilled_matmul

import tilec as tc
from tilec.lower import LowerOptions, lower

TILES = {"BM": 128, "BN": 128, "BK": 64}
PLAIN = LowerOptions(warp_specialized=False)


def _machine(args: list[np.ndarray], target: str = "cuda:sm_90",
             options: LowerOptions | None = PLAIN) -> str:
    module = tc.compile(unfilled_matmul, *args, target="reference", **TILES).module
    res = lower(module, target, options)
    assert res.machine is not None
    return str(res.machine)


def test_unfilled_windows_are_copied_by_tensor_copies_with_a_nan_fill() -> None:
    text = _machine(bf16_matmul_args(256, 256, 256))
    loads = text.count('catalog_id = "tma.load"')
    assert loads > 0 and text.count('oob = "nan"') == loads
    assert text.count('catalog_id = "cp.async.16"') > 0  # interior windows of the fallback


def test_the_cuda_source_asks_for_a_nan_filled_tensor_map() -> None:
    from tilec.targets.cuda.emitter import emit_cuda
    from tilec.targets.cuda.source import param_from_json, param_json

    module = tc.compile(unfilled_matmul, *bf16_matmul_args(256, 256, 256), target="reference",
                        **TILES).module
    machine = lower(module, "cuda:sm_90", PLAIN).machine
    src = emit_cuda(machine, "unfilled_matmul")
    maps = [p for p in src.params if p.kind == "tmap"]
    assert maps and all(p.oob_nan for p in maps)
    assert all(param_from_json(param_json(p)) == p for p in maps)  # cached records keep it


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("target,options", [
    ("cuda:sm_90", PLAIN),
    ("cuda:sm_90", LowerOptions(warp_specialized=False, mbarrier_ring=True)),
    ("cuda:sm_90", None),  # the default: warp-specialized where the schedule chooses it
    ("cuda:sm_80", None),
], ids=["tma", "mbarrier_ring", "default", "sm80_cp_async"])
@pytest.mark.parametrize("shape", [
    (200, 136, 192),  # ragged M and N: the boxes cross the edges, K is whole
    (130, 130, 128),  # N = 130 fails the tensor-map guard: B falls back to cp.async
], ids=["ragged_mn", "b_fallback"])
def test_unfilled_products_match_the_reference(shape, target, options) -> None:
    m, n, k = shape
    differential(unfilled_matmul, bf16_matmul_args(m, n, k, seed=m + n + k), [2], target,
                 TILES, options=options, rtol=2e-3, atol=2e-3)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
def test_a_ragged_k_reads_nan_like_the_reference(target) -> None:
    """K = 136 leaves 56 columns of the last K block outside A: the reference reads them
    as NaN, so every output is NaN; zero-filled copies would give the product of the
    valid part."""
    from tilec.targets.reference.simt import simulate_module

    args = bf16_matmul_args(128, 128, 136, seed=3)
    compiled = tc.compile(unfilled_matmul, *args, target="reference", **TILES)
    want = poisoned(args, [2])
    tc.interpret(unfilled_matmul, *want, **TILES)
    assert np.isnan(want[2]).all()
    got = poisoned(args, [2])
    got[2][:] = 0.0  # a run that wrote numbers instead of NaN must fail
    res = lower(compiled.module, target, PLAIN if target == "cuda:sm_90" else None)
    simulate_module(res.machine, compiled.fn_name, got)
    assert np.isnan(got[2]).all()
