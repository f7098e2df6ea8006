"""Bounded K views as a realization (``PlannerOptions.bounded_k_views``,
``lower/machine_bounded_k.py``): the K steps past the proved physical K are skipped, the
synchronous copies stage only the chunks those steps read, and a skipped ``+0 * +0``
suffix still turns a ``-0.0`` accumulator into ``+0.0`` as the reference computes it.
Differential against the reference interpreter (outputs poisoned first) on cpu and in
the three simulators, on ragged K (K = 100 with BK = 32)."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential, poisoned, reference

import tilec as tc
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")
TILES = {"BM": 32, "BN": 32, "BK": 32}
BF16 = ml_dtypes.bfloat16


@tc.kernel
def matmul_from(A, B, C, INIT: tc.constexpr = -0.0, BM: tc.constexpr = 32,
                BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """``C = INIT + A @ B`` (a literal initial accumulator: ``-0.0`` keeps signed zeros)."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.full((BM, BN), INIT, tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def _options(on: bool, **kw) -> LowerOptions:
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, bounded_k_views=on))


def _args(m: int, n: int, k: int, dt, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            np.zeros((m, n), np.float32)]


def _lowered(kernel, args, target, on, **kw):
    module = tc.compile(kernel, *args, target="reference", static_shapes=True,
                        **TILES).module
    return lower(module, target, _options(on, **kw))


def _mma(res):
    return next(op for op in res.scheduled.walk() if op.name == "mma")


def _tail_guards(res) -> int:
    return sum(1 for op in next(iter(res.machine)).walk()
               if op.name == "if" and op.attr("guard") == "bounded K view: a physical column")


# --------------------------------------------------------------- what the option changes


@pytest.mark.parametrize("target", ["metal:m1", "cuda:sm_80", "cuda:sm_90"])
def test_the_option_changes_the_program(target) -> None:
    args = _args(40, 32, 100, np.float32)
    off = _lowered(matmul, args, target, False, async_copies=False)
    on = _lowered(matmul, args, target, True, async_copies=False)
    assert _mma(off).attr("physical_k") is None and _tail_guards(off) == 0
    assert _mma(on).attr("physical_k") is True
    # A and B: every chunk of the prologue's issue and of the loop's issue is guarded
    assert _tail_guards(on) > 0
    assert str(on.machine) != str(off.machine)
    assert any("bounded K views realized" in n for g in on.groups for n in g.notes)


def test_an_unproved_physical_k_keeps_the_program() -> None:
    # K = 96 is a whole number of BK = 32 tiles, but the proof still holds (actual K is
    # 32 on every step); a shape-generic module has no constant trip count: not proved
    args = _args(40, 32, 100, np.float32)
    module = tc.compile(matmul, *args, target="reference", **TILES).module
    res = lower(module, "metal:m1", _options(True))
    assert _mma(res).attr("physical_k") is None and _tail_guards(res) == 0


def test_the_warpgroup_realization_says_why_not() -> None:
    args = _args(128, 128, 100, BF16)
    module = tc.compile(matmul, *args, target="reference", static_shapes=True,
                        BM=128, BN=128, BK=64).module
    res = lower(module, "cuda:sm_90", _options(True))
    mma = _mma(res)
    if mma.attr("realization", "").startswith("wgmma"):
        assert mma.attr("physical_k") is None
        assert any("not realized by the wgmma" in n for g in res.groups for n in g.notes)


# ----------------------------------------------------------------------- differential


CASES = [
    ("metal:m1", np.float32, {}),
    ("metal:m1", np.float32, {"double_buffer": False}),
    ("cuda:sm_80", np.float32, {"async_copies": False}),
    ("cuda:sm_80", BF16, {"async_copies": False}),
    ("cuda:sm_80", BF16, {}),
    ("cuda:sm_90", np.float32, {"async_copies": False}),
    ("cuda:sm_90", BF16, {"async_copies": False}),
]


@needs_simulator
@pytest.mark.parametrize("target,dt,kw", CASES, ids=lambda v: str(getattr(v, "__name__", v)))
@pytest.mark.parametrize("shape", [(40, 32, 100), (33, 47, 29), (64, 64, 64), (40, 32, 70)])
def test_ragged_k_matches_the_reference(target, dt, kw, shape) -> None:
    args = _args(*shape, dt, seed=sum(shape))
    try:
        opts = _options(True, **kw)
    except TypeError:
        pytest.skip(f"no lowering option {kw}")
    res = differential(matmul, args, [2], target, TILES, options=opts, rtol=1e-2, atol=1e-2,
                       static_shapes=True)
    assert _mma(res).attr("physical_k") is True


def _special(m: int, n: int, k: int) -> list[np.ndarray]:
    """Small integers (exact products and sums) with -0.0, infinities and NaN at the last
    physical K column and row, and negative B columns that keep -0.0 accumulators."""
    r = np.random.default_rng(k)
    a = r.integers(-2, 3, (m, k)).astype(np.float32)
    b = r.integers(-2, 3, (k, n)).astype(np.float32)
    a[:4, :] = 0.0  # rows whose products are signed zeros
    b[:, :3] = -np.abs(b[:, :3]) - 1.0  # 0 * negative = -0.0: C stays -0.0 before the tail
    a[5, k - 1] = np.inf  # 0 * inf = NaN at the edge; inf * x elsewhere
    b[k - 1, 4] = 0.0
    a[6, k - 1] = np.nan
    a[7, :] = -0.0
    b[k - 1, 5] = -np.inf
    return [a, b, np.zeros((m, n), np.float32)]


@needs_simulator
@pytest.mark.parametrize("target", ["metal:m1", "cuda:sm_80", "cuda:sm_90"])
@pytest.mark.parametrize("k", [100, 96, 29])
def test_signed_zero_nan_and_inf_at_the_edge(target, k) -> None:
    args = _special(40, 32, k)
    res = differential(matmul_from, args, [2], target, {}, options=_options(True,
                       async_copies=False), exact=True, static_shapes=True)
    assert _mma(res).attr("physical_k") is True
    want = poisoned(args, [2])
    comp = tc.compile(matmul_from, *args, target="reference", static_shapes=True)
    reference(comp.module, comp.fn_name, want)
    got = poisoned(args, [2])
    from tilec.targets.reference.simt import simulate_module

    simulate_module(res.machine, comp.fn_name, got)
    assert np.array_equal(np.signbit(want[2]), np.signbit(got[2])), "a signed zero differs"
    # rows of +0 A against negative B: -0.0 through the physical K; a padded tail's +0 * +0
    # makes it +0.0 (the realization skips that tail and must restore this)
    corner = want[2][:4, :3]
    assert (corner == 0).all() and np.signbit(corner).all() == (k % 32 == 0)
    assert np.isnan(want[2]).any() and np.isinf(want[2]).any()


def test_cpu_matches_the_reference() -> None:
    # cpu lowers no group to Machine IR: the option leaves its C as it is
    args = _special(40, 32, 100)
    want = poisoned(args, [2])
    comp = tc.compile(matmul_from, *args, target="reference", static_shapes=True)
    reference(comp.module, comp.fn_name, want)
    got = poisoned(args, [2])
    tc.compile(matmul_from, *got, target="cpu")(*got)
    assert np.array_equal(want[2], got[2], equal_nan=True)
    assert np.array_equal(np.signbit(want[2]), np.signbit(got[2]))


def test_the_fuzz_path_and_the_variant() -> None:
    from tilec.frontend.tunables import apply_variant
    from tilec.testing.fuzz.paths import path_error, split_path

    assert split_path("simt:metal:m1+boundedk") == ("simt:metal:m1", {"bounded_k_views": True})
    assert path_error("simt:cuda:sm_80+boundedk") is None
    assert apply_variant(LowerOptions(), {"bounded_k_views": True}).planner.bounded_k_views
