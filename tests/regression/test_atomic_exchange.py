"""Issue 16: ``w.atomic_xchg(x)`` and ``w.atomic_cas(cmp, x)``, which return the old tile.

Both are the ``atomic`` operation with a result (kinds ``xchg`` and ``cas``,
tileir.md). The reference applies them element by element; ``cpu`` prints the
generic ``__atomic_exchange`` / ``__atomic_compare_exchange`` builtins; the GPU
lowering gives the value, the compared value and the result one distribution and
issues one per-thread ``atomic`` per register part, which the simulators run and
the CUDA (``atomicExch``/``atomicCAS`` on the word of the bit pattern) and Metal
(``atomic_uint``) emitters print. ``cas`` compares bit patterns. Elements of the
window outside memory are not touched and return the window's fill (zero
without one).

Instances of a ``tc.parallel`` run in any order, so the checks of several
instances meeting on one element look only at what every order gives: each
element's final value and the multiset of returned old values, one winner per
slot of a claim, one chain of a lock-free push. The GPU run is
``tests/device/test_cuda_atomic_exchange.py``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    PATHS,
    SIMULATED,
    assert_located,
    cubin,
    cuda_source,
    needs_nvrtc,
    poisoned,
    run,
)
from tilec.lower import LoweringError
from tilec.targets.metal.check import check_msl, checker_unavailable

P = 6
"""Instances that meet on the same elements."""


# ---------------------------------------------------------------- several instances


@tc.kernel
def claim(Slots, Old, S: tc.constexpr = 8):
    """Every instance tries to claim every slot (free: -1) with its own number."""
    for p in tc.parallel(Old.shape[0]):
        Old.tile((p, 0), (1, S)).store(Slots.tile((0,), (S,)).atomic_cas(-1, p)[None, :])


@pytest.mark.parametrize("target", PATHS)
def test_claim_has_one_winner_per_slot(target: str) -> None:
    slots = np.full(8, -1, np.int32)
    slots[5] = 77  # taken before the launch: nobody wins it
    old = poisoned(P, 8, dtype=np.int32)
    run(target, claim, slots, old)
    for s in range(8):
        if s == 5:
            assert slots[s] == 77 and (old[:, s] == 77).all()
            continue
        winners = np.flatnonzero(old[:, s] == -1)
        assert winners.tolist() == [slots[s]], (s, old[:, s], slots[s])
        # every loser saw the winner's claim
        assert (np.delete(old[:, s], winners) == slots[s]).all()


@tc.kernel
def swap_in(X, Old, S: tc.constexpr = 8):
    """Every instance exchanges ``100 * (p + 1) + s`` into element ``s``."""
    for p in tc.parallel(Old.shape[0]):
        v = (tc.arange(S) + 100 * (p + 1)).to(X.dtype)
        Old.tile((p, 0), (1, S)).store(X.tile((0,), (S,)).atomic_xchg(v)[None, :])


@pytest.mark.parametrize("npdt", [np.int32, np.float32, np.int64, np.float64, np.uint32],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", PATHS)
def test_exchange_keeps_every_value_once(target: str, npdt: Any) -> None:
    x = (np.arange(8) * 3 - 5).astype(npdt)  # u32: 2**32 - 5 and - 2 among them
    init = x.copy()
    old = poisoned(P, 8, dtype=npdt)
    if target == "sim:metal:m1" and np.dtype(npdt).itemsize == 8:
        with pytest.raises(tc.UserError, match="metal:m1 has no"):
            run(target, swap_in, x, old)
        return
    run(target, swap_in, x, old)
    for s in range(8):
        put = [100 * (p + 1) + s for p in range(P)]
        assert sorted([*old[:, s].tolist(), x[s]]) == sorted([init[s], *put]), s


@tc.kernel
def push(Head, Next):
    """A lock-free list push without a loop: instance ``p`` exchanges itself into the head
    and links to what it displaced."""
    for p in tc.parallel(Next.shape[0]):
        Next.tile((p,), (1,)).store(Head.tile((0,), (1,)).atomic_xchg(p))


@pytest.mark.parametrize("target", PATHS)
def test_push_links_one_chain(target: str) -> None:
    head = np.full(1, -1, np.int32)
    nxt = poisoned(P, dtype=np.int32)
    run(target, push, head, nxt)
    seen, at = [], int(head[0])
    while at != -1 and len(seen) <= P:
        seen.append(at)
        at = int(nxt[at])
    assert sorted(seen) == list(range(P)), (head, nxt)


# ---------------------------------------------------------------- one instance


@tc.kernel
def edge(X, Old, Old2, off, B: tc.constexpr = 8):
    """One instance, a window running past the end of X: a fill of -3 (the cas) and none
    (the xchg, whose out-of-range elements return zero)."""
    for _ in tc.parallel(1):
        w = X.tile((off,), (B,), fill=-3)
        Old.tile((0,), (B,)).store(w.atomic_cas(tc.arange(B).to(X.dtype) + off, -1))
        Old2.tile((0,), (B,)).store(tc.atomic_xchg(X.tile((off,), (B,)), 9))


@pytest.mark.parametrize("npdt", [np.int32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", PATHS)
def test_window_past_the_end(target: str, npdt: Any) -> None:
    if target == "sim:metal:m1" and npdt is np.float64:
        pytest.skip("metal:m1 has no f64 (test_metal_refuses_64_bit_exchanges)")
    x = np.array([0, 1, 7, 3, 4, 5, 6, 7, 8, 5], npdt)
    old, old2 = poisoned(8, dtype=npdt), poisoned(8, dtype=npdt)
    run(target, edge, x, old, old2, 4)
    # cas: X[4..9] = [4, 5, 6, 7, 8, 5] against 4..9: all but the last match
    np.testing.assert_array_equal(old, np.array([4, 5, 6, 7, 8, 5, -3, -3], npdt))
    np.testing.assert_array_equal(old2, np.array([-1, -1, -1, -1, -1, 5, 0, 0], npdt))
    np.testing.assert_array_equal(x, np.array([0, 1, 7, 3, 9, 9, 9, 9, 9, 9], npdt))


@tc.kernel
def broadcast(X, Cmp, Old, R: tc.constexpr = 4, B: tc.constexpr = 8):
    """A (1, B) compared tile and a scalar value broadcast over an (R, B) window; the value
    is converted to X's type as a store converts it."""
    for _ in tc.parallel(1):
        Old.tile((0, 0), (R, B)).store(X.tile((0, 0), (R, B)).atomic_cas(Cmp.tile((0, 0), (1, B)),
                                                                         5.0))


@pytest.mark.parametrize("npdt", [np.int32, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", PATHS)
def test_broadcast_compare_and_value(target: str, npdt: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, (4, 8)).astype(npdt)
    cmp = rng.integers(0, 3, (1, 8)).astype(npdt)
    want_x = np.where(x == cmp, npdt(5), x)
    want_old = x.copy()
    old = poisoned(4, 8, dtype=npdt)
    run(target, broadcast, x, cmp, old)
    np.testing.assert_array_equal(old, want_old)
    np.testing.assert_array_equal(x, want_x)


@tc.kernel
def bits(X, Cmp, Old, B: tc.constexpr = 4, V: tc.constexpr = 1.5):
    """``X.atomic_cas(Cmp, V)`` on one window."""
    for _ in tc.parallel(1):
        Old.tile((0,), (B,)).store(X.tile((0,), (B,)).atomic_cas(Cmp.tile((0,), (B,)), V))


@pytest.mark.parametrize("target", PATHS)
def test_float_compare_is_bitwise(target: str) -> None:
    """-0.0 does not match 0.0, and a NaN matches the same NaN (CUDA's atomicCAS on the bit
    pattern, which every target does)."""
    nan = np.array(0x7FC00123, np.uint32).view(np.float32)
    x = np.array([-0.0, 0.0, nan, 2.0], np.float32)
    cmp = np.array([0.0, -0.0, nan, 2.0], np.float32)
    old = poisoned(4, dtype=np.float32)
    run(target, bits, x, cmp, old)
    np.testing.assert_array_equal(x.view(np.uint32), np.array(
        [np.float32(-0.0).view(np.uint32), 0, np.float32(1.5).view(np.uint32),
         np.float32(1.5).view(np.uint32)], np.uint32))
    assert old.view(np.uint32)[2] == 0x7FC00123
    assert np.signbit(old[0]) and not np.signbit(old[1])


@tc.kernel
def halve_if(X, Cmp, Old, B: tc.constexpr = 4):
    """``X.atomic_cas(Cmp, X >> 1)``: on u32 a logical shift, compared on all 32 bits."""
    for _ in tc.parallel(1):
        w = X.tile((0,), (B,))
        Old.tile((0,), (B,)).store(w.atomic_cas(Cmp.tile((0,), (B,)), w >> 1))


@pytest.mark.parametrize("target", PATHS)
def test_unsigned_compare_and_swap(target: str) -> None:
    """u32 exchanges as i32 does, on CUDA's ``unsigned int`` word and Metal's atomic_uint:
    values above 2**31 compare, swap and return unchanged."""
    x = np.array([0xFFFFFFFF, 0x80000000, 7, 0x80000001], np.uint32)
    cmp = np.array([0xFFFFFFFF, 0, 7, 0x80000001], np.uint32)
    init = x.copy()
    old = poisoned(4, dtype=np.uint32)
    run(target, halve_if, x, cmp, old)
    np.testing.assert_array_equal(old, init)
    np.testing.assert_array_equal(x, [0x7FFFFFFF, 0x80000000, 3, 0x40000000])


@tc.kernel
def cas_at(X, L, Old, B: tc.constexpr = 4):
    """Instance ``b`` compare-and-swaps the window of X at ``L[b]``, an origin read from
    memory (past either end: those elements untouched, reading the fill)."""
    for b in tc.parallel(L.shape[0]):
        o = L[b]
        w = X.tile((o,), (B,), fill=-7)
        Old.tile((b, 0), (1, B)).store(w.atomic_cas(tc.arange(B) + tc.int32(o), 100 + b)[None, :])


@pytest.mark.parametrize("ldt", [np.int32, np.uint32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", PATHS)
def test_window_origin_read_from_memory(target: str, ldt: Any) -> None:
    """The windows' parts inside X are disjoint, so every order gives one result."""
    neg = -2 if ldt is np.int32 else 2 ** 32 - 2  # u32: far past the end, not before 0
    origins = [8, 12, neg, 1_000_000, 3]
    x = np.arange(14, dtype=np.int32)
    x[4], x[9] = 40, 90  # those two do not match their index
    init = x.copy()
    old = poisoned(5, 4, dtype=np.int32)
    run(target, cas_at, x, np.array(origins, ldt), old)
    want_x, want_old = init.copy(), np.full((5, 4), -7, np.int32)
    for b, o in enumerate(np.array(origins, ldt).astype(np.int64).tolist()):
        for i in range(4):
            if 0 <= o + i < 14:
                want_old[b, i] = init[o + i]
                if init[o + i] == o + i:
                    want_x[o + i] = 100 + b
    np.testing.assert_array_equal(old, want_old)
    np.testing.assert_array_equal(x, want_x)


@tc.kernel
def unused(X):
    """The old tile is dropped: the exchange still happens."""
    for _ in tc.parallel(1):
        X.tile((0,), (4,)).atomic_xchg(5)
        tc.atomic_cas(X.tile((4,), (4,)), 0, 6)


@pytest.mark.parametrize("target", PATHS)
def test_an_unused_result_is_still_an_exchange(target: str) -> None:
    x = np.array([1, 2, 3, 4, 0, 1, 0, 1], np.int32)
    run(target, unused, x)
    np.testing.assert_array_equal(x, [5, 5, 5, 5, 6, 1, 6, 1])


@tc.kernel
def reread(X, Out):
    """A window read before and after an exchange through it reads again (the exchange is a
    write)."""
    for _ in tc.parallel(1):
        w = X.tile((0,), (4,))
        before = w + 0
        old = w.atomic_xchg(w * 2)
        Out.tile((0,), (4,)).store(before - old + w)


@pytest.mark.parametrize("target", PATHS)
def test_window_is_read_again_after_the_exchange(target: str) -> None:
    x = np.array([1, 2, 3, 4], np.int32)
    out = poisoned(4, dtype=np.int32)
    run(target, reread, x, out)
    np.testing.assert_array_equal(out, [2, 4, 6, 8])


@tc.kernel
def scratch(X, Old, Out, B: tc.constexpr = 16):
    """Exchanges on shared scratch memory: fill it, cas, xchg, read it back."""
    for p in tc.parallel(X.shape[0] // B):
        m = tc.memory((B,), X.dtype)
        m.store(X.tile((p * B,), (B,)))
        first = m.atomic_cas(tc.arange(B).to(X.dtype), -1)
        Old.tile((p * B,), (B,)).store(m.tile((0,), (B,)).atomic_xchg(first * 2) + first)
        Out.tile((p * B,), (B,)).store(m.load())


@pytest.mark.parametrize("npdt", [np.int32, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", PATHS)
def test_shared_scratch(target: str, npdt: Any) -> None:
    x = (np.arange(32) % 5 + np.arange(32) // 16 * 3).astype(npdt)
    c = (np.arange(32) % 16).astype(npdt)
    after_cas = np.where(x == c, npdt(-1), x)
    old, out = poisoned(32, dtype=npdt), poisoned(32, dtype=npdt)
    run(target, scratch, x.copy(), old, out)
    np.testing.assert_array_equal(old, after_cas + x)
    np.testing.assert_array_equal(out, x * 2)


@tc.kernel
def unit_axes(X, Old, B: tc.constexpr = 8):
    """A (B,) value into a (1, B) window of a 2-D array, as a store would take it: the old
    tile is (B,) too."""
    for p in tc.parallel(X.shape[0]):
        old = X.tile((p, 0), (1, B)).atomic_xchg(tc.arange(B) + p)
        Old.tile((p * B,), (B,)).store(old)


@pytest.mark.parametrize("target", PATHS)
def test_unit_axes_as_a_store(target: str) -> None:
    x = np.arange(24, dtype=np.int32).reshape(3, 8)
    old = poisoned(24, dtype=np.int32)
    run(target, unit_axes, x, old)
    np.testing.assert_array_equal(old, np.arange(24))
    np.testing.assert_array_equal(x, np.arange(8)[None, :] + np.arange(3)[:, None])


@tc.kernel
def row_sums(A, S, Old, R: tc.constexpr = 4, C: tc.constexpr = 32):
    """The value (a row reduction, which a GPU reduction's teams hold replicated) and the
    compared value (computed from it) move to one layout that holds each element once: each
    element is exchanged once."""
    for p in tc.parallel(A.shape[0] // R):
        sums = A.tile((p * R, 0), (R, C)).sum(axis=1)
        old = S.tile((p * R,), (R,)).atomic_cas(sums * 0 + 1, sums)
        Old.tile((p * R,), (R,)).store(old)


@pytest.mark.parametrize("target", PATHS)
def test_value_from_a_reduction(target: str) -> None:
    a = np.arange(8 * 32, dtype=np.int32).reshape(8, 32) % 7
    s = np.array([1, 0, 1, 1, 0, 0, 1, 5], np.int32)
    init = s.copy()
    old = poisoned(8, dtype=np.int32)
    run(target, row_sums, a, s, old)
    np.testing.assert_array_equal(old, init)
    np.testing.assert_array_equal(s, np.where(init == 1, a.sum(axis=1), init))


@tc.kernel
def in_a_group_nest(X, Old):
    """Each of four group-level instances exchanges its own quarter of the block."""
    for p in tc.parallel(2):
        for i in tc.parallel(4, level="group"):
            o = X.tile((p * 16 + i * 4,), (4,)).atomic_xchg(tc.arange(4) + i)
            Old.tile((p * 16 + i * 4,), (4,)).store(o * 10)


@pytest.mark.parametrize("target", PATHS)
def test_in_a_group_nest(target: str) -> None:
    x = np.arange(32, dtype=np.int32) % 3
    old = poisoned(32, dtype=np.int32)
    run(target, in_a_group_nest, x, old)
    np.testing.assert_array_equal(old, np.arange(32) % 3 * 10)
    np.testing.assert_array_equal(x, np.concatenate([np.arange(4) + i for i in range(4)] * 2))


@tc.kernel
def in_a_loop(X, Old):
    """Step ``j`` of a serial loop advances each element from ``j`` to ``j + 1``."""
    for p in tc.parallel(2):
        for j in tc.serial(3):
            o = X.tile((p * 4,), (4,)).atomic_cas(j, j + 1)
            Old.tile((j, p * 4), (1, 4)).store(o[None, :])


@pytest.mark.parametrize("target", PATHS)
def test_in_a_loop(target: str) -> None:
    x = np.array([0, 0, 0, 1, 0, 0, 2, 0], np.int32)
    old = poisoned(3, 8, dtype=np.int32)
    run(target, in_a_loop, x, old)
    np.testing.assert_array_equal(x, [3] * 8)  # an element ahead waits for the steps
    np.testing.assert_array_equal(old, [[0, 0, 0, 1, 0, 0, 2, 0], [1, 1, 1, 1, 1, 1, 2, 1],
                                        [2] * 8])


# ---------------------------------------------------------------- races


@tc.kernel
def store_meets_exchange(X):
    """Instance 0 stores plainly where every instance exchanges."""
    for p in tc.parallel(2):
        X.tile((0,), (4,)).atomic_xchg(p)
        if p == 0:
            X.tile((0,), (4,)).store(7)


@pytest.mark.parametrize("target", SIMULATED)
def test_a_store_racing_an_exchange_is_reported(target: str) -> None:
    with pytest.raises(tc.SimulationError, match="only atomics may meet"):
        tc.simulate(store_meets_exchange, np.zeros(4, np.int32),
                    target=target.removeprefix("sim:"))


# ---------------------------------------------------------------- refusals


@tc.kernel
def swap_small(X, Old, S: tc.constexpr = 8):
    """Every instance exchanges ``p + s`` into element ``s``."""
    for p in tc.parallel(Old.shape[0]):
        Old.tile((p, 0), (1, S)).store(X.tile((0,), (S,)).atomic_xchg(tc.arange(S) + p)[None, :])


NARROW = [np.int8, np.int16, np.uint8, np.uint16, np.float16, ml_dtypes.bfloat16]


def _name(dt: Any) -> str:
    return {ml_dtypes.bfloat16: "bf16"}.get(dt, np.dtype(dt).name.replace("float", "f")
                                           .replace("uint", "u").replace("int", "i"))


@pytest.mark.parametrize("npdt", NARROW, ids=_name)
@pytest.mark.parametrize("target", PATHS)
def test_rejected_types(target: str, npdt: Any) -> None:
    """The reference exchanges any type; cpu every type but f16/bf16 (as its other atomics);
    CUDA 32- and 64-bit words; Metal 32-bit ones; each refusal names the type."""
    x = np.zeros(8, npdt)
    old = poisoned(P, 8, dtype=npdt)
    if target == "reference" or (target == "cpu" and np.dtype(npdt).kind in "iu"):
        run(target, swap_small, x, old)
        for s in range(8):
            put = [p + s for p in range(P)]
            assert sorted([*old[:, s].tolist(), x[s]]) == sorted([0, *put]), s
        return
    if target == "cpu":
        with pytest.raises(tc.UserError, match=f"atomic xchg on {_name(npdt)} memory"):
            run(target, swap_small, x, old)
        return
    kinds = "i32, f32, u32" if "metal" in target else "i32, i64, f32, f64, u32"
    with pytest.raises(LoweringError) as e:
        run(target, swap_small, x, old)
    prof = target.removeprefix("sim:")
    assert f"{prof} has no atomic xchg on {_name(npdt)} memory (its exchanges {kinds})" \
        in str(e.value), str(e.value)


@pytest.mark.parametrize("npdt", [np.int64, np.float64], ids=_name)
def test_metal_refuses_64_bit_exchanges(npdt: Any) -> None:
    x, old = np.zeros(8, npdt), poisoned(P, 8, dtype=npdt)
    with pytest.raises(tc.UserError, match="metal:m1 has no"):
        run("sim:metal:m1", swap_in, x, old)


# ---------------------------------------------------------------- emitted code

SPECS: dict[Any, tuple[Any, ...]] = {
    claim: (np.zeros(8, np.int32), np.zeros((P, 8), np.int32)),
    edge: (np.zeros(10, np.float32), np.zeros(8, np.float32), np.zeros(8, np.float32), 4),
    bits: (np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32)),
    swap_small: (np.zeros(8, np.int32), np.zeros((P, 8), np.int32)),
    scratch: (np.zeros(32, np.float32), np.zeros(32, np.float32), np.zeros(32, np.float32)),
    halve_if: (np.zeros(4, np.uint32), np.zeros(4, np.uint32), np.zeros(4, np.uint32)),
    cas_at: (np.zeros(14, np.int32), np.zeros(5, np.uint32), np.zeros((5, 4), np.int32)),
}


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("npdt", [np.int32, np.int64, np.float32, np.float64, np.uint32],
                         ids=lambda d: np.dtype(d).name)
def test_cuda_source_compiles(target: str, arch: str, npdt: Any) -> None:
    src = cuda_source(swap_in, np.zeros(8, npdt), np.zeros((P, 8), npdt), target=target)
    assert "tc_atomic_xchg<" in src.text
    cubin(src, arch)
    src = cuda_source(bits, *(np.zeros(4, npdt),) * 3, target=target, V=1)
    assert "tc_atomic_cas<" in src.text
    cubin(src, arch)
    if npdt is np.uint32:  # scratch's -1 is not a u32; the shift and cas of halve_if
        cubin(cuda_source(halve_if, *(np.zeros(4, npdt),) * 3, target=target), arch)
        return
    if npdt is np.int32:  # a window origin read from memory
        cubin(cuda_source(cas_at, *SPECS[cas_at], target=target), arch)
    cubin(cuda_source(scratch, *(np.zeros(32, npdt),) * 3, target=target), arch)


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_metal_source_passes_the_check(kernel: Any) -> None:
    exe = tc.compile(kernel, *SPECS[kernel], target="metal:m1").executable()
    assert "atomic_" in exe.source
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)


# ---------------------------------------------------------------- frontend errors


@tc.kernel
def cas_one_argument(X):
    for _ in tc.parallel(1):
        X.tile((0,), (4,)).atomic_cas(1)  # err


@tc.kernel
def cas_on_a_tile(X):
    for _ in tc.parallel(1):
        t = X.tile((0,), (4,)) + 1
        tc.atomic_cas(t, 0, 1)  # err


@tc.kernel
def xchg_too_many(X):
    for _ in tc.parallel(1):
        tc.atomic_xchg(X.tile((0,), (4,)), 1, 2)  # err


@tc.kernel
def xchg_wrong_shape(X):
    for _ in tc.parallel(1):
        X.tile((0,), (4,)).atomic_xchg(tc.zeros((3,), tc.int32))  # err


@tc.kernel
def xchg_method_of_a_tile(X):
    for _ in tc.parallel(1):
        t = X.tile((0,), (4,)) * 2
        t.atomic_xchg(1)  # err


@tc.kernel
def cas_with_none(X):
    for _ in tc.parallel(1):
        X.tile((0,), (4,)).atomic_cas(None, 1)  # err


@tc.kernel
def exchange_at_top_level(X):
    X.tile((0,), (4,)).atomic_xchg(1)  # err


@pytest.mark.parametrize("kernel,needle,fragments", [
    (cas_one_argument, "X", ["value"]),
    (cas_on_a_tile, "t", ["atomic_cas() updates memory, got a tile"]),
    (xchg_too_many, "tc", ["atomic_xchg"]),
    (xchg_wrong_shape, "X", ["atomic_xchg of a 3 tile into a 4 view: shapes differ"]),
    (exchange_at_top_level, "X", ["atomic update"]),
    (cas_with_none, "X", ["cannot atomic_cas None into memory"]),
    (xchg_method_of_a_tile, "t.atomic", ["has no attribute 'atomic_xchg'"]),
], ids=lambda x: getattr(x, "__name__", None))
def test_frontend_errors_are_located(kernel: Any, needle: str, fragments: list[str]) -> None:
    with pytest.raises(tc.TileSyntaxError) as e:
        tc.interpret(kernel, np.zeros(4, np.int32))
    assert_located(e.value, kernel, needle, fragments)
