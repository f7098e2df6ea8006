"""The planner pads the rows the lowering stages (``MatrixWorkload.b_major``,
``staged_rows``): a K-major B (``W.T`` of a staged ``N x K`` load) is ``N`` padded rows of
``K``, not ``K`` rows of ``N``. A plan the planner selects is one the lowering places, and
a tile whose padded rows do not fit is the planner's rejection, not a lowering error."""

from __future__ import annotations

import importlib
import warnings

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.exec import get_profile
from tilec.lower import LowerOptions
from tilec.plan import extract_groups
from tilec.plan.matrix import Realization, ring_extra
from tilec.plan.work import MatrixWorkload

mm = importlib.import_module("tilec.lib.matmul")
attention = importlib.import_module("tilec.lib.attention")


@tc.kernel
def _at_b(A, B, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64, BK: tc.constexpr = 32):
    """``C = A.T @ B`` with ``A: K x M`` (an M-major A)."""
    K, M = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((k * BK, pm * BM), (BK, BM), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a.T, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def _at_bt(A, W, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64, BK: tc.constexpr = 32):
    """``C = A.T @ W.T`` with ``A: K x M`` and ``W: N x K`` (both operands transposed)."""
    K, M = A.shape
    N = W.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((k * BK, pm * BM), (BK, BM), fill=0.0)
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            acc = tc.mma(a.T, w.T, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def _bt_stored(A, W, C, D, BM: tc.constexpr = 32, BN: tc.constexpr = 64,
               BK: tc.constexpr = 32):
    """``W.T`` read as B and also stored: the transpose is made in registers, so B is
    staged as its own ``K x N`` tile."""
    M, K = A.shape
    N = W.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            wt = w.T
            D.tile((k * BK, pn * BN), (BK, BN)).store(wt)
            acc = tc.mma(a, wt, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


KERNELS = {"linear": (mm.linear, "mk", "nk"), "matmul": (mm.matmul, "mk", "kn"),
           "_at_b": (_at_b, "km", "kn"), "_at_bt": (_at_bt, "km", "nk")}
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16}
M, N, K = 256, 1152, 256


def _compile(name: str, dtype: str, tiles: tuple[int, int, int], target: str):
    fn, sa, sb = KERNELS[name]
    dims = {"m": M, "n": N, "k": K}
    a = np.ones([dims[c] for c in sa], DTYPES[dtype])
    b = np.ones([dims[c] for c in sb], DTYPES[dtype])
    c = np.zeros((M, N), np.float32)
    bm, bn, bk = tiles
    module = tc.compile(fn, a, b, c, target="reference", BM=bm, BN=bn, BK=bk).module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        return compile_module(module, name, target, "allocate", LowerOptions())


def _placed(comp) -> int:
    (grid,) = [op for f in comp.module for op in f.walk()
               if op.name == "parallel" and op.attr("level") == "grid"]
    return grid.attr("shared_bytes")


def test_a_k_major_b_pads_its_n_rows() -> None:
    """16x576x32 f32 (the linear layer's ``W`` tile is 576 rows of 32): two versions of
    576 padded rows, not 32."""
    kn = MatrixWorkload("mma#0", 16, 576, 32)
    nk = MatrixWorkload("mma#0", 16, 576, 32, b_major="k")
    assert kn.staged_rows() == {"A": (16, 32), "B": (32, 576)}
    assert nk.staged_rows() == {"A": (16, 32), "B": (576, 32)}
    ring = (16 * 32 + 32 * 576) * 4
    assert ring_extra(kn, Realization.RECTANGLE) == ring + 2 * 16 * (16 + 32)
    assert ring_extra(nk, Realization.RECTANGLE) == ring + 2 * 16 * (16 + 576)
    # a warpgroup buffer is swizzled, not padded: its layout changes nothing
    assert ring_extra(nk, Realization.WGMMA) == ring_extra(kn, Realization.WGMMA)
    with pytest.raises(ValueError, match="b_major"):
        MatrixWorkload("mma#0", 16, 16, 16, b_major="m")


def _workloads(comp) -> dict[str, MatrixWorkload]:
    return {w.op: w for g in comp.plan.groups for w in g.workload.ops}


@pytest.mark.parametrize("name,major", [("linear", "k"), ("matmul", "n"), ("_at_b", "n"),
                                        ("_at_bt", "k")])
def test_the_extractor_reads_the_staged_layout(name: str, major: str) -> None:
    ws = _workloads(_compile(name, "f32", (32, 64, 32), "cuda:sm_80"))
    assert ws["mma#0"].b_major == major


def test_a_transpose_with_another_use_is_staged_as_b_reads_it() -> None:
    a = np.ones((64, 64), np.float32)
    w = np.ones((64, 64), np.float32)
    module = tc.compile(_bt_stored, a, w, a.copy(), a.copy(), target="reference").module
    comp = compile_module(module, "_bt_stored", "cuda:sm_80", "plan", LowerOptions())
    assert _workloads(comp)["mma#0"].b_major == "n"


def test_attentions_keys_are_k_major() -> None:
    q = np.zeros((2, 256, 64), ml_dtypes.bfloat16)
    module = tc.compile(attention.flash_attention, q, q.copy(), q.copy(), q.copy(),
                        np.float32(0.1), target="reference", BM=64, BN=64,
                        HEAD_DIM=64).module
    (group,) = extract_groups(module)
    ws = {w.op: w for w in group.workload.ops}
    assert (ws["mma#0"].b_major, ws["mma#1"].b_major) == ("k", "n")


def test_the_linear_tile_that_cannot_fit_is_the_planners_rejection() -> None:
    """lib.linear f32 16x576x32 on cuda:sm_80: the padded ``W`` rows need 170496 bytes,
    over the 166912 a group has. The planner used to count 153088 and select a plan the
    lowering then refused ("the group needs 170496 bytes")."""
    comp = _compile("linear", "f32", (16, 576, 32), "cuda:sm_80")
    (group,) = comp.plan.groups
    assert group.selected is None
    assert "exceeds the group-memory capacity" in " ".join(group.diagnostics)
    # on cuda:sm_90 (227 KB) it fits, and the plan counts exactly what is placed
    comp = _compile("linear", "f32", (16, 576, 32), "cuda:sm_90")
    (group,) = comp.plan.groups
    assert group.selected is not None
    assert group.selected.shared_bytes == _placed(comp) == 170496


TILES = [(16, 576, 32), (32, 512, 32), (64, 256, 64), (128, 128, 64), (16, 256, 64),
         (64, 512, 16), (256, 128, 64)]


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_selected_plan_is_placed_within_its_count(name: str, dtype: str,
                                                    target: str) -> None:
    """Every tile compiles through the allocate stage (no lowering or capacity error after
    the plan said it fits). A padded-row realization is placed within what the planner
    counted; a warpgroup one may take more ring versions than the two the planner counts
    (``plan_staging`` keeps what fits), never more than the group has."""
    limit = get_profile(target).shared_bytes_per_group
    for tiles in TILES:
        comp = _compile(name, dtype, tiles, target)
        (group,) = comp.plan.groups
        placed = _placed(comp)
        assert placed <= limit, tiles
        if group.selected is None:
            continue
        real = group.selected.choices[0].candidate.realization
        if real != "wgmma":
            assert group.selected.shared_bytes >= placed, (tiles, real)
