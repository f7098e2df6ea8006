"""Program traversal (``ir.traversal``): the grouped numbering of a grid's programs, its
verifier rule, the lowering option, the simulator and the CUDA printer.

Every simulated case poisons its outputs with NaN first, so a numbering that skipped a
program (not a bijection) would leave NaN behind and fail the comparison.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential

import tilec as tc
import tilec.ir as ir
from tilec.ir.traversal import check_traversal, parse_traversal, traversal_point
from tilec.lib import batched_matmul, matmul
from tilec.lower import LowerOptions, lower
from tilec.plan import PlannerOptions

BF16 = ml_dtypes.bfloat16


def test_grouped_numbering_is_a_bijection_for_every_small_grid() -> None:
    for rows, cols, g in itertools.product(range(1, 9), range(1, 7), range(1, 10)):
        pts = [traversal_point(("grouped", g), p, (rows, cols)) for p in range(rows * cols)]
        assert sorted(pts) == list(itertools.product(range(rows), range(cols))), (rows, cols, g)
    # with a leading (batch) axis, that axis stays outermost
    pts = [traversal_point(("grouped", 2), p, (3, 5, 4)) for p in range(60)]
    assert sorted(pts) == list(itertools.product(range(3), range(5), range(4)))
    assert [p[0] for p in pts] == sorted(p[0] for p in pts)


def test_grouped_numbering_walks_rows_within_a_group() -> None:
    pts = [traversal_point(("grouped", 2), p, (3, 3)) for p in range(9)]
    assert pts == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert [traversal_point(None, p, (2, 3)) for p in range(6)] == \
        [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]


@pytest.mark.parametrize("spec,match", [
    ("grouped:0", "positive integer"), ("grouped:x", "not an integer"),
    ("snake:4", "unknown family"), (7, "is not 'grouped:G'"), ("grouped", "positive")])
def test_bad_spellings_are_named(spec, match) -> None:
    why = parse_traversal(spec)
    assert isinstance(why, str) and match in why
    with pytest.raises(ValueError, match=match):
        PlannerOptions(program_traversal=spec)


def test_the_verifier_checks_the_rank() -> None:
    assert check_traversal(("grouped", 4), 1, [16]) is not None
    assert check_traversal(("grouped", 4), 2, [5, None]) is None
    assert check_traversal(("grouped", 4), 2, [5, 7]) is None


def _bf16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(BF16)


def _machine(opts: LowerOptions, *args, **tiles):
    module = tc.compile(matmul, *args, target="reference", **tiles).module
    return lower(module, "cuda:sm_90", opts)


def test_the_option_marks_grids_and_the_verifier_rejects_a_bad_mark() -> None:
    args = [_bf16((256, 128), 1), _bf16((128, 256), 2), np.zeros((256, 256), np.float32)]
    tiles = {"BM": 64, "BN": 64, "BK": 32}
    res = _machine(LowerOptions(planner=PlannerOptions(program_traversal="grouped:4")),
                   *args, **tiles)
    text = str(res.machine)
    assert 'traversal = ["grouped", 4]' in text
    assert "traversal" not in str(_machine(LowerOptions(), *args, **tiles).machine)
    grid = next(op for fn in res.machine for op in fn.walk()
                if op.name == "parallel" and op.attr("level") == "grid")
    grid.attributes["traversal"] = ("grouped", 0)
    with pytest.raises(ir.VerificationError, match="traversal"):
        ir.verify(res.machine)


def test_a_rank_one_grid_keeps_row_major_and_says_so() -> None:
    @tc.kernel
    def scale(X, Y):
        for p in tc.parallel(tc.cdiv(X.shape[0], 64)):
            Y.tile((p * 64,), (64,)).store(X.tile((p * 64,), (64,), fill=0.0).load() * 2.0)

    x = np.ones(256, np.float32)
    module = tc.compile(scale, x, x.copy(), target="reference").module
    res = lower(module, "cuda:sm_90",
                LowerOptions(planner=PlannerOptions(program_traversal="grouped:4")))
    assert "traversal" not in str(res.machine)
    assert any("rank 1" in str(g.get("traversal", "")) for g in res.resources)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("target,shape,g", [
    ("cuda:sm_90", (200, 136, 160), 3),   # wgmma + tensor copies, a partial last group
    ("cuda:sm_90", (320, 64, 64), 8),     # G above the rows: one group
    ("cuda:sm_80", (192, 200, 96), 2),    # mma.sync
])
def test_grouped_grids_match_the_reference(target, shape, g) -> None:
    m, n, k = shape
    args = [_bf16((m, k), m), _bf16((k, n), n), np.zeros((m, n), np.float32)]
    opts = LowerOptions(planner=PlannerOptions(program_traversal=f"grouped:{g}"))
    res = differential(matmul, args, [2], target, {"BM": 64, "BN": 64, "BK": 32},
                       options=opts, rtol=2e-3, atol=2e-3)
    assert "traversal" in str(res.machine)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_a_batched_grid_keeps_its_batch_axis_outermost() -> None:
    b, m, n, k = 3, 136, 72, 64
    args = [_bf16((b, m, k), 7), _bf16((b, k, n), 8), np.zeros((b, m, n), np.float32)]
    opts = LowerOptions(planner=PlannerOptions(program_traversal="grouped:2"))
    res = differential(batched_matmul, args, [2], "cuda:sm_90", {"BM": 64, "BN": 64, "BK": 32},
                       options=opts, rtol=2e-3, atol=2e-3)
    assert "traversal" in str(res.machine)


def test_cuda_numbers_blocks_by_the_traversal() -> None:
    from tilec.driver import compile_module
    from tilec.targets.cuda.emitter import emit_cuda

    args = [np.ones((256, 128), BF16), np.ones((128, 256), BF16), np.zeros((256, 256), np.float32)]
    module = tc.compile(matmul, *args, target="reference", BM=128, BN=128, BK=64).module
    opts = LowerOptions(planner=PlannerOptions(program_traversal="grouped:8"),
                        warp_specialized=False)  # a grid of one program per tile
    src = emit_cuda(compile_module(module, "matmul", "cuda:sm_90", "allocate", opts).module,
                    "matmul", "cuda:sm_90").text
    assert "(int64_t)blockIdx.y * " in src and "/ (8 * " in src and "% (8 * " in src
    plain = emit_cuda(compile_module(module, "matmul", "cuda:sm_90", "allocate",
                                     LowerOptions(warp_specialized=False)).module, "matmul",
                      "cuda:sm_90").text
    assert "/ (8 * " not in plain


def test_the_traversal_is_a_plan_variant() -> None:
    args = [np.ones((128, 64), BF16), np.ones((64, 128), BF16), np.zeros((128, 128), np.float32)]
    a = tc.compile(matmul, *args, target="cuda:sm_90", BM=64, BN=64, BK=32,
                   variant={"program_traversal": "grouped:2"})
    b = tc.compile(matmul, *args, target="cuda:sm_90", BM=64, BN=64, BK=32)
    assert a.source != b.source and "/ (2 * " in a.source


def test_tuning_tries_the_grouped_traversal_on_cuda_matrix_grids() -> None:
    """Measured selection (``tc.tune``'s refine stage) gets the traversal from the CUDA
    backend for matrix kernels, and nothing for a rank-1 grid."""
    from tilec.runtime import load_backend

    @tc.kernel
    def double(X, Y):
        for p in tc.parallel(tc.cdiv(X.shape[0], 64)):
            Y.tile((p * 64,), (64,)).store(X.tile((p * 64,), (64,), fill=0.0).load() * 2.0)

    backend = load_backend("cuda:sm_90")
    a = np.ones((256, 256), BF16)
    mm = tc.compile(matmul, a, a, np.zeros((256, 256), np.float32), target="reference",
                    BM=64, BN=64, BK=32).module
    assert backend.tuning_variants(mm, "matmul") == [
        {"program_traversal": "grouped:8"}, {"warp_specialized": False},
        {"program_traversal": "grouped:8", "warp_specialized": False},
        {"warp_specialized": False, "mbarrier_ring": True},
        {"program_traversal": "grouped:8", "warp_specialized": False, "mbarrier_ring": True},
        {"warp_specialized": True, "wgmma_stages": 4, "persistent": 0},
        {"program_traversal": "grouped:8", "warp_specialized": True, "wgmma_stages": 4,
         "persistent": 0},
        {"warp_specialized": True, "wgmma_stages": 6, "persistent": 0},
        {"program_traversal": "grouped:8", "warp_specialized": True, "wgmma_stages": 6,
         "persistent": 0},
        {"warp_specialized": True, "wgmma_stages": 4, "persistent": 132}, {"cluster": 2},
        {"tensor_store": False}, {"pingpong": True}, {"split_k": 4}, {"split_k": 8},
        {"split_k": 16}, {"split_k": 32}]
    # a bf16 output leaves the accumulator through a cast, which the default plan fuses:
    # the first variants are tried with the accumulator's trip through shared memory too
    bf = tc.compile(matmul, a, a, np.zeros((256, 256), BF16), target="reference",
                    BM=64, BN=64, BK=32).module
    got = backend.tuning_variants(bf, "matmul")
    trip = [v for v in got if v.get("fuse_matrix_epilogues") is False]
    assert {"fuse_matrix_epilogues": False} in trip and len(trip) == 6
    assert {"warp_specialized": True, "wgmma_stages": 4, "persistent": 0,
            "fuse_matrix_epilogues": False} in trip
    assert load_backend("cuda:sm_80").tuning_variants(bf, "matmul") == [
        {"program_traversal": "grouped:8"}, {"fuse_matrix_epilogues": False},
        {"program_traversal": "grouped:8", "fuse_matrix_epilogues": False},
        {"split_k": 4}, {"split_k": 8}, {"split_k": 16}, {"split_k": 32}]
    assert load_backend("cuda:sm_80").tuning_variants(mm, "matmul") == [
        {"program_traversal": "grouped:8"}, {"split_k": 4}, {"split_k": 8}, {"split_k": 16},
        {"split_k": 32}]
    x = np.ones(256, np.float32)
    one = tc.compile(double, x, x.copy(), target="reference").module
    assert backend.tuning_variants(one, "double") == []


def test_the_plan_report_names_the_requested_traversal() -> None:
    args = [np.ones((128, 64), BF16), np.ones((64, 128), BF16), np.zeros((128, 128), np.float32)]
    a = tc.compile(matmul, *args, target="cuda:sm_90", BM=64, BN=64, BK=32,
                   variant={"program_traversal": "grouped:4"})
    assert "program traversal: grouped:4" in a.plan.render()
    b = tc.compile(matmul, *args, target="cuda:sm_90", BM=64, BN=64, BK=32)
    assert "program traversal" not in b.plan.render()


@tc.kernel
def _add4(X, Y):
    for a, b, i, j in tc.parallel(X.shape[0], X.shape[1], tc.cdiv(X.shape[2], 8),
                                  tc.cdiv(X.shape[3], 8)):
        t = X.tile((a, b, i * 8, j * 8), (1, 1, 8, 8), fill=0.0).load()
        Y.tile((a, b, i * 8, j * 8), (1, 1, 8, 8)).store(t + 1.0)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_a_rank_four_grid_groups_its_last_two_axes() -> None:
    """A grid of rank 4 (linearized onto blockIdx.x on CUDA) numbers its last two axes in
    groups and its leading ones row-major: simulated against x + 1, and the CUDA source
    builds."""
    x = np.random.default_rng(3).random((2, 3, 20, 17)).astype(np.float32)
    y = np.full_like(x, np.nan)
    variant = {"program_traversal": "grouped:2"}
    tc.compile(_add4, x, y, target="simt:cuda:sm_90", variant=variant)(x, y)
    assert np.array_equal(y, x + 1)
    src = tc.compile(_add4, x, y, target="cuda:sm_90", variant=variant).source
    assert "(int64_t)blockIdx.x;" in src and "/ (2 * " in src
