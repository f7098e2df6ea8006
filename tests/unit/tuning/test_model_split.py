"""The model prices a split of K (``plan/split_price.py``): a group's selected plan
re-priced as ``S`` programs per output tile with a ``1/S`` share of the K loop, plus the
partials' traffic (``cuda_mma_v6``'s ``split_partial_byte``), so the model's pick chooses
tiles and split together; a split that does not price lower, a group the split proof
refuses and a basis that prices no split leave the pick unsplit."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.plan as plan
from tilec.exec import get_profile
from tilec.frontend.tunables import ConfigScore, Resolution
from tilec.frontend.warm import resolution_from_json, resolution_to_json
from tilec.lib import matmul
from tilec.plan.cost import basis_named
from tilec.plan.split_price import (
    MIN_STEPS_PER_SPLIT,
    SPLITS,
    best_split,
    split_score,
    split_workload,
)

BF16 = ml_dtypes.bfloat16
SM90 = get_profile("cuda:sm_90")


def _group(m: int, n: int, steps: int, programs: int | None) -> plan.GroupWorkload:
    w = plan.MatrixWorkload("mma#0", m, n, 64, dtype="bf16", executions=steps,
                            recurrence=steps, direct_output=True)
    return plan.GroupWorkload("g", (w,), programs=programs)


def test_the_split_workload() -> None:
    g = _group(64, 64, 130, 16)
    s = split_workload(g, 4)
    (w,) = s.ops
    assert s.programs == 64 and w.recurrence == 33 and w.executions == 33 and w.split_k == 4
    assert split_workload(_group(64, 64, 130, None), 4) is None      # programs unknown
    unknown = dataclasses.replace(g, ops=(dataclasses.replace(g.ops[0], recurrence=None,
                                                              direct_output=False),))
    assert split_workload(unknown, 4) is None                          # no proved recurrence


def _plan(m: int, n: int, steps: int, programs: int, basis: str | None = None,
          threads: int | None = None) -> plan.GroupPlan:
    gp = plan.plan_group(_group(m, n, steps, programs), SM90,
                         plan.PlannerOptions(cost_basis=basis, threads=threads))
    gp.split_legal = True  # a workload alone has no program to prove it on
    return gp


def test_a_split_prices_below_an_underfilled_grid_and_above_a_full_one() -> None:
    # 128x128x8192 at 32x32x64 tiles: 16 programs of 128 K steps
    skinny = _plan(32, 32, 128, 16)
    assert split_score(skinny, 16) < skinny.selected.kernel_score
    # the partials' traffic grows with the split: 16 programs and 16 splits pay it
    basis = basis_named("cuda_mma_v6", SM90)
    (choice,) = skinny.selected.choices
    work = split_workload(skinny.workload, 16).ops[0]
    priced = basis.price(choice.candidate, work, 256)
    assert basis.split_combine(priced, work, 16) == pytest.approx(
        17 * 32 * 32 * 4 * basis.coefficients.split_partial_byte
        / priced.feature("sharing_groups"))
    # 4096^3 at 128x256x64 tiles: 512 programs, four waves: no split pays
    full = _plan(128, 256, 64, 512, threads=256)
    assert all(split_score(full, s) > full.selected.kernel_score for s in SPLITS)


def test_a_split_keeps_the_default_plans_price_apart() -> None:
    """A split K loop keeps the ordinary ring (the split protocol meets every thread after
    the loop), so the split workload is not priced with the producer warpgroup's terms."""
    from tilec.plan.cost.cuda_mma_v2 import ring_plan

    (w,) = _group(128, 128, 64, 32).ops
    assert ring_plan(SM90, 256, w)
    assert not ring_plan(SM90, 256, dataclasses.replace(w, split_k=2))


def test_what_prices_no_split() -> None:
    skinny = _plan(32, 32, 128, 16)
    assert split_score(dataclasses.replace(skinny, split_legal=False), 4) is None
    assert split_score(_plan(32, 32, 128, 16, basis="cuda_mma_v5"), 4) is None
    # at most MIN_STEPS_PER_SPLIT steps per split: 24 steps allow 2 and 4 splits, not 8
    short = _plan(32, 32, 24, 16)
    got = best_split(plan.ModulePlan(short.target, [short]))
    assert got is not None and got.splits * MIN_STEPS_PER_SPLIT <= 24
    assert best_split(plan.ModulePlan(short.target, [short, short])) is None


def test_a_k_heavy_call_is_split_and_a_large_one_is_not() -> None:
    a = np.zeros((128, 8192), BF16)
    skinny = matmul.compile(a, np.zeros((8192, 128), BF16), np.zeros((128, 128), np.float32),
                            target="cuda")
    sel = skinny.selection
    assert sel.source == "model" and sel.variant.get("split_k", 1) >= 2
    assert "split_k=" in sel.detail and "priced" in sel.detail
    best = next(s for s in sel.scores if dict(s.config) == dict(sel.values))
    assert best.split_k == sel.variant["split_k"]
    assert skinny.variant["split_k"] == sel.variant["split_k"]  # the kernel compiled so
    assert "split" in skinny.executable().source
    big = np.zeros((2048, 2048), BF16)
    wide = matmul.compile(big, big, np.zeros((2048, 2048), np.float32), target="cuda")
    assert "split_k" not in wide.selection.variant


def test_the_split_proof_decides_whether_a_split_is_priced() -> None:
    """A store before the K loop would run once per split: the plan says so and no split
    is priced."""

    @tc.kernel
    def marked(A, B, C, F):
        M, K = A.shape
        N = B.shape[1]
        for pm, pn in tc.parallel(tc.cdiv(M, 32), tc.cdiv(N, 32)):
            F.tile((pm, pn), (1, 1)).store(tc.zeros((1, 1), tc.float32))
            acc = tc.zeros((32, 32), tc.float32)
            for k in tc.serial(tc.cdiv(K, 64)):
                a = A.tile((pm * 32, k * 64), (32, 64), fill=0.0)
                b = B.tile((k * 64, pn * 32), (64, 32), fill=0.0)
                acc = tc.mma(a, b, acc)
            C.tile((pm * 32, pn * 32), (32, 32)).store(acc)

    args = (np.zeros((128, 8192), BF16), np.zeros((8192, 128), BF16),
            np.zeros((128, 128), np.float32), np.zeros((4, 4), np.float32))
    k = marked.compile(*args, target="cuda", static_shapes=True)
    (g,) = k.plan.groups
    assert not g.split_legal and "once per split" in g.split_note
    assert best_split(k.plan) is None
    assert matmul.compile(*args[:3], target="cuda", static_shapes=True).plan.groups[0] \
        .split_legal


def test_the_priced_split_survives_a_warm_start() -> None:
    res = Resolution({"BM": 32}, "model", "d", (),
                     (ConfigScore({"BM": 32}, 1.0, "", 256, 16, 128, 16),), {"split_k": 16})
    back = resolution_from_json(resolution_to_json(res))
    assert back.scores[0].split_k == 16 and back.scores[0].programs == 16


@pytest.mark.parametrize("shape,dtype", [((16, 256, 2048), BF16), ((40, 96, 1000), np.float32)])
def test_a_priced_split_runs_right_in_the_simulator(shape, dtype, monkeypatch) -> None:
    """The kernel a call with no tile arguments compiles when the model picks a split (bf16
    and exact f32, a ragged K and edges), run in the SIMT simulator with the output
    poisoned with NaN, against numpy."""
    monkeypatch.setenv("TILEC_WARM_START", "0")
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, np.float32)
    sel = tc.compile(matmul, a, b, c, target="simt:cuda:sm_90").selection
    assert sel.source == "model" and sel.variant.get("split_k", 1) >= 2
    tc.simulate(matmul, a, b, c)
    want = a.astype(np.float32) @ b.astype(np.float32)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


def _pick(m: int, n: int, k: int):
    a = np.zeros((m, k), BF16)
    return matmul.compile(a, np.zeros((k, n), BF16), np.zeros((m, n), np.float32),
                          target="cuda").selection


def test_a_split_is_priced_at_every_thread_count(monkeypatch) -> None:
    """The thread count that prices the unsplit grid lowest (384 for 32x32x64 tiles at
    128x128x8192) is not the one whose split prices lowest (256, 16 splits): the pick
    takes tiles, threads and split together and compiles at the split's thread count."""
    monkeypatch.setenv("TILEC_WARM_START", "0")
    a = np.zeros((128, 8192), BF16)
    args = (a, np.zeros((8192, 128), BF16), np.zeros((128, 128), np.float32))
    k = matmul.compile(*args, target="cuda", BM=32, BN=32, BK=64, static_shapes=True)
    (g,) = k.plan.groups
    got = best_split(k.plan)
    assert got is not None and got.threads != g.selected.threads
    at_selected = [split_score(g, s) for s in SPLITS]
    assert got.score < min(s for s in at_selected if s is not None)
    assert got.score == split_score(g, got.splits, threads=got.threads)
    assert split_score(g, 4, threads=1) is None  # no combination at that thread count
    sel = _pick(128, 128, 8192)
    assert sel.values == {"BM": 32, "BN": 32, "BK": 64}
    assert sel.variant == {"threads": 256, "split_k": 16}


def _recorded(shape: tuple[int, int, int]) -> list[tuple[str, int, float]]:
    """(tile, split, ms) of every H100 timing of lib.matmul bf16 at ``shape`` with the
    default plan (no wgmma_stages fixed) in the split sweeps (and the model picks they
    name, ``--user``) and the model-pick runs."""
    import glob
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "benchmarks" / "results"
    out = []
    for f in sorted(glob.glob(str(root / "cuda_split_k-*H100*.json"))
                    + glob.glob(str(root / "cuda_model_pick-*H100*.json"))):
        for r in json.loads(Path(f).read_text()):
            if tuple(r["shape"]) != shape or r.get("tilec_ms") is None \
                    or r.get("wgmma_stages") is not None:
                continue
            if "split_k" in r:  # the split sweep: tile BMxBNxBK[@threads]
                out.append((r["tile"].split("@")[0], int(r["split_k"]), r["tilec_ms"]))
                continue
            m = re.match(r"BM=(\d+) BN=(\d+) BK=(\d+) threads=\d+(?: split_k=(\d+))?",
                         r.get("pick") or r.get("note", ""))  # a model pick names it
            if m:
                out.append((f"{m[1]}x{m[2]}x{m[3]}", int(m[4] or 1), r["tilec_ms"]))
    return out


@pytest.mark.parametrize("shape", [(128, 128, 8192), (16, 4096, 4096)])
def test_the_pick_is_a_split_the_records_ran_among_the_fastest(shape, monkeypatch) -> None:
    """The model's pick (tiles and split) was timed on the H100 (benchmarks/results:
    cuda_split_k and cuda_model_pick records, default plan) within 10% of the fastest
    timing of any configuration of that shape."""
    monkeypatch.setenv("TILEC_WARM_START", "0")
    sel = _pick(*shape)
    rows = _recorded(shape)
    assert len(rows) > 10
    tile = "{BM}x{BN}x{BK}".format(**sel.values)
    split = sel.variant.get("split_k", 1)
    mine = [ms for t, s, ms in rows if (t, s) == (tile, split)]
    fastest = min(ms for _, _, ms in rows)
    assert split >= 4 and mine, f"{tile} split {split} was not timed"
    assert min(mine) <= 1.10 * fastest, (tile, split, min(mine), fastest)


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (4096, 4096, 1024)])
def test_a_full_grid_stays_unsplit(shape, monkeypatch) -> None:
    monkeypatch.setenv("TILEC_WARM_START", "0")
    assert "split_k" not in _pick(*shape).variant
