"""Tensor copies start their boxes on 16-byte boundaries (``ir.atoms.TMA_ALIGN``).

A ``tma.load`` whose innermost coordinate is not a multiple of 16 bytes is an illegal
instruction on the GPU (a fuzzed program found it: a window at column ``k * 64 - 63``).
The schedule keeps a staged load whose column origin is not proved aligned out of the
mbarrier ring (which issues tensor copies unguarded); elsewhere a tensor copy or store
is guarded at run time and falls back to ``cp.async`` or plain stores. The SIMT simulator
rejects a misaligned tensor copy, so a lowering that issues one fails here before it
reaches a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from tilec.targets.reference.errors import SimulationError


@tc.kernel
def constant_origins(A, B, C, CA: tc.constexpr = -63, CB: tc.constexpr = 5):
    """Column origins ``k * 64 + CA`` (A) and ``CB`` (B): misaligned by default (a fuzzed
    program's ``k * 64 - 63``)."""
    for p in tc.parallel(2):
        acc = tc.zeros((128, 64), tc.float32)
        for k in tc.serial(2):
            acc = tc.mma(A.tile((p * 128, k * 64 + CA), (128, 64), fill=0.0),
                         B.tile((k * 64, CB), (64, 64), fill=0.0), acc)
        C.tile((p * 128, 0), (128, 64)).store(acc)


@tc.kernel
def runtime_origin(A, B, C, off, LOAD: tc.constexpr = 1):
    """The output at column ``off`` (a run-time value), and A's window too when ``LOAD``."""
    for p in tc.parallel(2):
        acc = tc.zeros((128, 64), tc.float32)
        for k in tc.serial(2):
            acc = tc.mma(A.tile((p * 128, k * 64 + off * LOAD), (128, 64), fill=0.0),
                         B.tile((k * 64, 0), (64, 64), fill=0.0), acc)
        C.tile((p * 128, off), (128, 64)).store(acc)


ALIGNED = {"CA": 8, "CB": 16}


def _inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((256, 200)).astype(np.float16)
    B = rng.standard_normal((128, 80)).astype(np.float16)
    return A, B, np.full((256, 80), np.nan, np.float32)


def _check(kernel, *scalars, target: str = "cuda:sm_90", variant: dict | None = None,
           **constexprs) -> None:
    A, B, C = _inputs()
    ref = C.copy()
    tc.interpret(kernel, A, B, ref, *scalars, **constexprs)
    kw = {"variant": variant} if variant else {}
    tc.simulate(kernel, A, B, C, *scalars, target=target, **kw, **constexprs)
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-4, equal_nan=True)


def _notes(kernel, *scalars, variant: dict | None = None, **constexprs) -> list[str]:
    A, B, C = _inputs()
    kw = {"variant": variant} if variant else {}
    c = tc.compile(kernel, A, B, C, *scalars, target="cuda:sm_90", **kw, **constexprs)
    return [n for g in c.compilation("schedule").groups for n in g.notes]


def test_misaligned_ring_is_refused_with_its_reason():
    notes = _notes(constant_origins)
    assert any("16-byte boundary" in n and "column origin is not provably aligned" in n
               for n in notes), notes
    assert not any("released through mbarriers" in n for n in notes), notes


@pytest.mark.parametrize("variant", [None, {"warp_specialized": True}])
def test_misaligned_windows_simulate_exactly(variant):
    _check(constant_origins, variant=variant)


@pytest.mark.parametrize("off", [8, 3, 0])
def test_runtime_column_origin_is_guarded(off):
    # off = 8 is aligned (tensor copies and stores may run), 3 is not (the run-time guard
    # falls back); the simulator faults any misaligned tensor copy that slips through
    _check(runtime_origin, off)
    _check(runtime_origin, off, variant={"warp_specialized": True})


def test_runtime_offset_refuses_the_ring():
    # a runtime offset cannot be proved aligned: the ring is refused, the copies guarded
    notes = _notes(runtime_origin, 8)
    assert any("16-byte boundary" in n for n in notes), notes


@pytest.mark.parametrize("off", [4, 1])
def test_tensor_store_column_is_guarded(off):
    # f32 tensor stores need a multiple of 4 columns: 1 falls back to plain stores
    notes = _notes(runtime_origin, off, LOAD=0)
    assert any("tensor stores" in n for n in notes), notes
    _check(runtime_origin, off, LOAD=0)


def test_proved_origins_keep_the_ring():
    notes = _notes(constant_origins, **ALIGNED)
    assert any("released through mbarriers" in n for n in notes), notes
    assert not any("16-byte boundary" in n for n in notes), notes
    _check(constant_origins, **ALIGNED)


def test_simulator_faults_an_unproved_tensor_copy(monkeypatch):
    """Claim every column origin aligned: the ring then issues the misaligned boxes, and
    the simulator reports the fault the GPU would raise."""
    import tilec.lower.machine_pipeline as mp
    import tilec.lower.schedule_staging as ss
    from tilec.frontend.jit import _as_kernel

    k = _as_kernel(constant_origins)
    monkeypatch.setattr(k, "_compiled", {})  # compile afresh, keep the result nowhere
    monkeypatch.setattr(k, "_fast", {})
    monkeypatch.setenv("TILEC_WARM_START", "0")
    monkeypatch.setattr(ss, "column_origin_aligned", lambda *a: True)
    monkeypatch.setattr(mp, "column_origin_aligned", lambda *a: True)
    with pytest.raises(SimulationError, match="not a multiple of 16 bytes"):
        _check(constant_origins)
