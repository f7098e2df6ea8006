"""TF32 products on the warpgroup instruction (``wgmma.m64k8.tf32``).

The instruction has no transpose bit: B is read K-major from shared memory, A from
registers. ``lib.matmul``'s B is N-major, so the product is computed transposed
(``lower/operand_swap.py``: ``C.T = B.T @ A.T``): its register operand is B (loaded from B's
staged tile, rounded to nearest as the instruction issues) and its shared operand is A,
which the hardware reads truncated to TF32 (the ``tf32`` policy allows either reduction:
docs/design/tileir.md). The simulator models both, and sums in K order as the reference
does, so its result is bit-identical to the reference's on the same inputs with A
truncated beforehand (then rounding it again changes nothing), and within the TF32 bound
of the reference's on the inputs as they are."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import linear, matmul
from tilec.lower.operand_swap import swappable
from tilec.targets import numerics as nx

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


def _simulated(kernel, args, variant=None, **constexprs) -> np.ndarray:
    *ins, out = args
    got = out.copy()
    kw = {"variant": variant} if variant else {}
    tc.simulate(kernel, *ins, got, target="cuda:sm_90", **kw, **constexprs)
    return got


def _reference(kernel, args, shared: int | None, **constexprs) -> np.ndarray:
    """The reference's result with input ``shared`` (the operand read from shared memory)
    truncated first (None: the inputs as they are)."""
    *ins, out = args
    ins = [nx.tf32_truncate(x) if i == shared else x for i, x in enumerate(ins)]
    ref = out.copy()
    tc.interpret(kernel, *ins, ref, **constexprs)
    return ref


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
    np.testing.assert_array_equal(_simulated(matmul, args, variant, **TILES),
                                  _reference(matmul, args, 0, **TILES))


@pytest.mark.parametrize("shape,tiles", [((200, 136, 70), TILES),
                                         ((256, 128, 64), {**TILES, "BM": 256}),
                                         ((128, 256, 64), {**TILES, "BN": 256})])
def test_ragged_and_rectangular_tiles(shape, tiles):
    """Partial edge tiles (zero-filled operands, clipped stores) and BM != BN, where the
    transposed accumulator is not square."""
    args = _inputs(*shape, seed=1)
    assert ": wgmma " in _plan(matmul, args, **tiles)
    np.testing.assert_array_equal(_simulated(matmul, args, **tiles),
                                  _reference(matmul, args, 0, **tiles))


def test_linear_needs_no_swap():
    """``A @ W.T``: B is K-major as written, so the product stays as it is: A comes from
    registers (rounded) and the weight is the truncated shared operand."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((128, 64)).astype(np.float32)
    w = rng.standard_normal((128, 64)).astype(np.float32)
    args = (a, w, np.full((128, 128), np.nan, np.float32))
    comp = tc.compile(linear, *args, target="reference", **TILES)
    (mma,) = [op for fn in comp.module.functions for op in fn.walk() if op.name == "mma"]
    assert swappable(mma) == "its B is already K-major (x.T)"
    assert ": wgmma " in _plan(linear, args, **TILES)
    np.testing.assert_array_equal(_simulated(linear, args, **TILES),
                                  _reference(linear, args, 1, **TILES))


def test_transposed_product_by_hand():
    args = _inputs(256, 128, 64, seed=3)
    np.testing.assert_array_equal(_simulated(swapped_by_hand, args),
                                  _reference(swapped_by_hand, args, 0))


def test_truncation_is_within_the_tf32_bound():
    """On the inputs as they are, the result differs from the reference's (the hardware
    truncates A) by less than one TF32 unit of each product, summed."""
    args = _inputs(128, 128, 256, seed=4)
    got = _simulated(matmul, args, **TILES)
    ref = _reference(matmul, args, None, **TILES)
    a, b = (x.astype(np.float64) for x in args[:2])
    bound = (np.abs(a) @ np.abs(b)) * (2.0**-10 + 2.0 * 258 * 2.0**-24)
    assert not np.array_equal(got, ref)  # A was truncated, not rounded
    assert (np.abs(got.astype(np.float64) - ref) <= bound).all()


def test_option_off_keeps_the_warp_atom():
    """``tf32_operand_swap=False``: the N-major B stays, so the TF32 warpgroup instruction is
    rejected with its reason and the warp-wide atom runs, which rounds both operands to
    nearest: the reference's bits exactly."""
    args = _inputs(256, 256, 64)
    off = {"tf32_operand_swap": False}
    text = str(tc.compile(matmul, *args, target="cuda:sm_90", **TILES,
                          variant=off).after("plan"))
    assert "reads B K-major only" in text and "rewrite:" not in text
    assert ": rectangle " in _plan(matmul, args, **TILES, variant=off)
    np.testing.assert_array_equal(_simulated(matmul, args, off, **TILES),
                                  _reference(matmul, args, None, **TILES))
