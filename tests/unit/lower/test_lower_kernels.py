"""Every library and example kernel lowers for each target and matches the reference.

Differential: the Candidate module on the reference interpreter versus its
Machine TileIR on the SIMT simulator, on fresh random inputs (several seeds)
with NaN-poisoned outputs; ragged shapes throughout (the demo inputs are not
multiples of the tiles, and the cases below add more). Skipped, with the
reason printed, when the simulator is not importable.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import (
    CASES,
    SIMULATOR_MISSING,
    TARGETS,
    differential,
    outputs_of,
)

import tilec as tc
import tilec.lib as lib
from tilec.lower import LowerOptions

pytestmark = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                reason=SIMULATOR_MISSING or "")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_library_and_examples(case, target):
    args = list(case.make_inputs(np.random.default_rng(7)))
    differential(case.kernel, args, outputs_of(case, args), target, case.constexprs)


RAGGED = [
    ("softmax", lib.softmax, lambda r: [r.standard_normal((13, 77)).astype(np.float32),
                                        np.zeros((13, 77), np.float32)], [1], {"BN": 128}),
    ("layernorm", lib.layernorm,
     lambda r: [r.standard_normal((9, 61)).astype(np.float32),
                r.standard_normal(61).astype(np.float32), r.standard_normal(61).astype(np.float32),
                np.zeros((9, 61), np.float32), 1e-5], [3], {"BN": 64}),
    ("row_max", lib.row_max, lambda r: [r.standard_normal((5, 33)).astype(np.float32),
                                        np.zeros(5, np.float32)], [1], {}),
    ("transpose", lib.transpose, lambda r: [r.standard_normal((33, 17)).astype(np.float32),
                                            np.zeros((17, 33), np.float32)], [1], {}),
    ("matmul_f32", lib.matmul, lambda r: [r.standard_normal((37, 23)).astype(np.float32),
                                          r.standard_normal((23, 29)).astype(np.float32),
                                          np.zeros((37, 29), np.float32)], [2],
     {"BM": 32, "BN": 32, "BK": 16}),
    ("attention", lib.flash_attention,
     lambda r: [r.standard_normal((1, 19, 32)).astype(np.float32),
                r.standard_normal((1, 21, 32)).astype(np.float32),
                r.standard_normal((1, 21, 32)).astype(np.float32),
                np.zeros((1, 19, 32), np.float32), np.float32(0.2)], [3], {}),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,kernel,make,outs,cx", RAGGED, ids=[r[0] for r in RAGGED])
def test_ragged_shapes(name, kernel, make, outs, cx, target):
    for seed in (1, 2):
        differential(kernel, make(np.random.default_rng(seed)), outs, target, cx)


MATMUL_DTYPES = [
    ("bf16", ml_dtypes.bfloat16, "exact", "cuda:sm_90", "mma.m16n8k16.bf16"),
    ("f16", np.float16, "exact", "cuda:sm_80", "mma.m16n8k16.f16"),
    ("tf32", np.float32, "tf32", "cuda:sm_90", "mma.m16n8k8.tf32"),
    ("f32", np.float32, "exact", "cuda:sm_80", "ffma"),
    ("f32_metal", np.float32, "exact", "metal:m1", "ffma"),
]


@pytest.mark.parametrize("name,dt,precision,target,realization", MATMUL_DTYPES,
                         ids=[m[0] for m in MATMUL_DTYPES])
def test_matmul_realizations(name, dt, precision, target, realization):
    r = np.random.default_rng(3)
    args = [r.standard_normal((45, 50)).astype(dt), r.standard_normal((50, 39)).astype(dt),
            np.zeros((45, 39), np.float32)]
    res = differential(lib.matmul, args, [2], target,
                       {"BM": 32, "BN": 32, "BK": 32, "PRECISION": precision}, rtol=2e-4)
    (choice,) = res.groups[0].mma.values()
    assert choice.realization == realization


def test_strict_fold_reduction_is_bit_exact():
    r = np.random.default_rng(4)
    args = [(r.standard_normal((19, 75)) * 1e3).astype(np.float32), np.zeros(19, np.float32)]
    for target in TARGETS:
        differential(lib.row_mean_strict, args, [1], target, exact=True)


def test_serial_reference_paths_agree():
    """The checked scalar reference for every reduction and matrix op (options off)."""
    opts = LowerOptions(row_reductions=False, matrix_realizations=False)
    for case in CASES:
        if case.name not in ("lib.softmax", "lib.gemm_bias_gelu", "lib.flash_attention",
                             "lib.row_sum"):
            continue
        args = list(case.make_inputs(np.random.default_rng(5)))
        res = differential(case.kernel, args, outputs_of(case, args), "cuda:sm_90",
                           case.constexprs, options=opts)
        g = res.groups[0]
        assert all(c.realization == "reference" for c in g.mma.values())
        assert all(s == "serial" for s, _, _ in g.reduce.values())


STAGING = [
    ("bf16_async", ml_dtypes.bfloat16, "cuda:sm_90", {}),
    ("f32_async", np.float32, "cuda:sm_80", {}),
    ("f32_metal", np.float32, "metal:m1", {}),
    ("bf16_sync", ml_dtypes.bfloat16, "cuda:sm_90", {"async_copies": False}),
    ("f32_no_double_buffer", np.float32, "cuda:sm_90", {"double_buffer": False}),
]


@pytest.mark.parametrize("name,dt,target,opts", STAGING, ids=[s[0] for s in STAGING])
def test_double_buffered_staging(name, dt, target, opts):
    """Rows and K a multiple of 16 bytes (the cp.async guard holds), M and the last K tile
    ragged; serial and pipeline (window 2 and 3) loops."""
    r = np.random.default_rng(8)
    args = [r.standard_normal((45, 48)).astype(dt), r.standard_normal((48, 40)).astype(dt),
            np.zeros((45, 40), np.float32)]
    options = LowerOptions(**opts)
    res = differential(lib.matmul, args, [2], target, {"BM": 32, "BN": 32, "BK": 32},
                       options=options, rtol=1e-3)
    text = str(res.machine)
    double = opts.get("double_buffer", True)
    assert ("versions = 2" in text) == double
    assert ("cp.async.16" in text) == (double and target.startswith("cuda")
                                       and opts.get("async_copies", True))
    for window in (2, 3):
        res = differential(lib.pipelined_matmul, args, [2], target,
                           {"BM": 32, "BN": 32, "BK": 16, "WINDOW": window}, options=options,
                           rtol=1e-3)
        assert f"versions = {window}" in str(res.machine)


@tc.kernel
def _nested_updates(X, Y):
    """An ancestor tile patched by a nested parallel (two halves), then a scalar-free join."""
    for p in tc.parallel(tc.cdiv(X.shape[0], 16)):
        acc = tc.full((16,), -1.0)
        for q in tc.parallel(3, level="group"):
            acc[q * 4:(q + 1) * 4] = X.tile((p * 16 + q * 4,), (4,), fill=0.0).load() * 2.0
        Y.tile((p * 16,), (16,)).store(acc)


@pytest.mark.parametrize("target", TARGETS)
def test_nested_parallel_ancestor_updates(target):
    r = np.random.default_rng(9)
    args = [r.standard_normal(37).astype(np.float32), np.zeros(37, np.float32)]
    differential(_nested_updates, args, [1], target)


TILES = [(1, 32), (3, 16), (4, 128), (8, 64), (1, 1024), (2, 512), (16, 8)]


@pytest.mark.parametrize("bm,bn", TILES, ids=[f"{m}x{n}" for m, n in TILES])
def test_row_programs_over_tile_shapes(bm, bn):
    """Softmax, layer norm and row max with one tile per row block: lane-local, shuffle and
    cross-subgroup strategies (a 1024-wide row needs several subgroups), masked teams."""
    r = np.random.default_rng(bm * 1000 + bn)
    m, n = 2 * bm + 1, bn - (bn // 5)
    x = (r.standard_normal((m, n)) * 3).astype(np.float32)
    strategies = set()
    for kernel, args, outs, cx in (
            (lib.softmax, [x, np.zeros_like(x)], [1], {"BM": bm, "BN": bn}),
            (lib.layernorm, [x, r.standard_normal(n).astype(np.float32),
                             r.standard_normal(n).astype(np.float32), np.zeros_like(x), 1e-5],
             [3], {"BM": bm, "BN": bn})):
        for target in ("cuda:sm_90", "metal:m1"):
            res = differential(kernel, args, outs, target, cx)
            strategies |= {s for s, _, _ in res.groups[0].reduce.values()}
    if bn >= 1024:
        assert "shared" in strategies


def _trans_gemm(target, trans=True):
    """A ragged bf16 GEMM whose subgroups own 4 B column blocks (two trans pairs per K step)."""
    from tilec.plan import PlannerOptions

    r = np.random.default_rng(12)
    args = [r.standard_normal((45, 48)).astype(ml_dtypes.bfloat16),
            r.standard_normal((48, 70)).astype(ml_dtypes.bfloat16), np.zeros((45, 70), np.float32)]
    opts = LowerOptions(ldmatrix_trans=trans,
                        planner=PlannerOptions(bounded_store=True, threads=64))
    return differential(lib.matmul, args, [2], target, {"BM": 32, "BN": 64, "BK": 32},
                        options=opts, rtol=1e-3)


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
def test_b_fragments_by_ldmatrix_trans(target):
    """Pairs of B fragments by one ``ldmatrix.x4.trans`` each; element loads without it."""
    assert "ldmatrix.x4.trans" in str(_trans_gemm(target).machine)
    assert "ldmatrix.x4.trans" not in str(_trans_gemm(target, trans=False).machine)


@pytest.mark.parametrize("permutation", ["untransposed", "k_halves_swapped"])
def test_permuted_trans_layout_is_a_mismatch(monkeypatch, permutation):
    """The simulator's ``ldmatrix.x4.trans`` is checked by the ragged GEMM: a wrong lane
    layout for it (delivered untransposed, or the two K halves of each fragment swapped)
    gives a wrong product, which the differential comparison reports."""
    from tilec.targets.reference import simt_atoms as sa

    orig = sa._ldmatrix_sources
    swap = [2, 3, 0, 1, 6, 7, 4, 5]  # registers of matrices 0 <-> 1 and 2 <-> 3

    def wrong(trans: bool):
        if not trans or permutation == "untransposed":
            return orig(False)
        src_lane, src_col = orig(True)
        return src_lane[:, swap], src_col[:, swap]

    monkeypatch.setattr(sa, "_ldmatrix_sources", wrong)
    with pytest.raises(AssertionError, match="elements differ"):
        _trans_gemm("cuda:sm_90")
