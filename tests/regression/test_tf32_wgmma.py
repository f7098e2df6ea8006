"""TF32 products on the warpgroup instruction (``wgmma.m64k8.tf32``).

The instruction has no transpose bit: B is read K-major from shared memory, A from
registers. ``lib.matmul``'s B is N-major, so the product is computed transposed
(``lower/operand_swap.py``: ``C.T = B.T @ A.T``); A's registers are loaded from its staged
tile (read transposed) and rounded as the instruction issues, and the staged K-major tile
is rounded in shared memory first, since the hardware reads a shared operand by
truncation. The simulator models both (register A rounded, shared operands truncated),
so every result here must be bit-identical to the reference interpreter's, which rounds
each operand to nearest."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
import tilec.lower.machine_matrix as machine_matrix
from tilec.lib.matmul import linear, matmul
from tilec.lower.operand_swap import swappable

TILES = {"BM": 128, "BN": 128, "BK": 32, "PRECISION": "tf32"}


@tc.kernel
def swapped_by_hand(A, B, C, BM: tc.constexpr = 128, BN: tc.constexpr = 64):
    """The transposed product written out: ``acc.T = B.T @ A.T`` (a BN x BM accumulator)."""
    for pm, pn in tc.parallel(tc.cdiv(C.shape[0], BM), tc.cdiv(C.shape[1], BN)):
        acc = tc.zeros((BN, BM), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], 32)):
            acc = tc.mma(B.tile((k * 32, pn * BN), (32, BN), fill=0.0).T,
                         A.tile((pm * BM, k * 32), (BM, 32), fill=0.0).T, acc,
                         precision="tf32")
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc.T)


def _inputs(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    return a, b, np.full((m, n), np.nan, np.float32)


def _same_as_reference(kernel, args, variant=None, **constexprs) -> None:
    *ins, out = args
    ref = out.copy()
    tc.interpret(kernel, *ins, ref, **constexprs)
    got = out.copy()
    kw = {"variant": variant} if variant else {}
    tc.simulate(kernel, *ins, got, target="cuda:sm_90", **kw, **constexprs)
    np.testing.assert_array_equal(got, ref)


def _plan(kernel, args, **constexprs) -> str:
    """The selected realization of the kernel's one ``mma`` on sm_90."""
    text = str(tc.compile(kernel, *args, target="cuda:sm_90", **constexprs).after("plan"))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("selected:"))
    return lines[at + 1]


@pytest.mark.parametrize("variant", [None, {"warp_specialized": False},
                                     {"warp_specialized": False, "mbarrier_ring": False},
                                     {"warp_specialized": False, "mbarrier_ring": False,
                                      "tma": False}])
def test_matmul_tf32_on_wgmma(variant):
    args = _inputs(256, 256, 96)
    assert "wgmma 8x1/1x16" in _plan(matmul, args, **TILES)
    text = str(tc.compile(matmul, *args, target="cuda:sm_90", **TILES).after("plan"))
    assert "rewrite: mma at" in text and "computed as its transpose B.T @ A.T" in text
    _same_as_reference(matmul, args, variant, **TILES)


@pytest.mark.parametrize("shape,tiles", [((200, 136, 70), TILES),
                                         ((256, 128, 64), {**TILES, "BM": 256}),
                                         ((128, 256, 64), {**TILES, "BN": 256})])
def test_ragged_and_rectangular_tiles(shape, tiles):
    """Partial edge tiles (zero-filled operands, clipped stores) and BM != BN, where the
    transposed accumulator is not square."""
    args = _inputs(*shape, seed=1)
    assert ": wgmma " in _plan(matmul, args, **tiles)
    _same_as_reference(matmul, args, **tiles)


def test_linear_needs_no_swap():
    """``A @ W.T``: B is K-major as written, so the product stays as it is and its A comes
    from registers loaded from A's staged tile."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((128, 64)).astype(np.float32)
    w = rng.standard_normal((128, 64)).astype(np.float32)
    args = (a, w, np.full((128, 128), np.nan, np.float32))
    comp = tc.compile(linear, *args, target="reference", **TILES)
    (mma,) = [op for fn in comp.module.functions for op in fn.walk() if op.name == "mma"]
    assert swappable(mma) == "its B is already K-major (x.T)"
    assert ": wgmma " in _plan(linear, args, **TILES)
    _same_as_reference(linear, args, **TILES)


def test_transposed_product_by_hand():
    _same_as_reference(swapped_by_hand, _inputs(256, 128, 64, seed=3))


def test_option_off_keeps_the_warp_atom():
    """``tf32_operand_swap=False``: the N-major B stays, so the TF32 warpgroup instruction is
    rejected with its reason and the warp-wide atom runs (the same bits)."""
    args = _inputs(256, 256, 64)
    text = str(tc.compile(matmul, *args, target="cuda:sm_90", **TILES,
                          variant={"tf32_operand_swap": False}).after("plan"))
    assert "reads B K-major only" in text
    assert ": rectangle " in _plan(matmul, args, **TILES, variant={"tf32_operand_swap": False})
    _same_as_reference(matmul, args, {"tf32_operand_swap": False}, **TILES)


def test_unrounded_shared_operand_is_caught(monkeypatch):
    """Without the rounding of the staged K-major tile the hardware would truncate it: the
    simulator models that, so the result differs from the reference."""
    monkeypatch.setattr(machine_matrix, "_round_tf32_in_place", lambda g, b: None)
    fresh = tc.kernel(matmul.fn)  # its own compile cache: built with the patch
    with pytest.raises((AssertionError, tc.SimulationError)):
        _same_as_reference(fresh, _inputs(128, 128, 64), {"warp_specialized": False}, **TILES)
