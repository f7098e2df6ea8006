"""Issue 16: unsigned integer element types (``tc.uint8``, ``tc.uint16``, ``tc.uint32``).

Unsigned arithmetic wraps modulo ``2**bits``; ``//``, ``%`` and ``tc.cdiv`` are
unsigned divisions (a zero divisor is ``tc.KernelArithmeticError``, as for signed
integers); ``>>`` is a logical shift on unsigned types and an arithmetic one on
signed types; a shift count is read as an unsigned number of the operand's width,
and one of at least the width shifts every bit out (0, or the sign fill); float
to unsigned truncates, saturates (negative values to 0) and maps NaN to 0; unsigned
and signed integers never mix implicitly (docs/guide/dsl.md, "Type rules").

Every case runs on every path (reference, cpu, the three simulators) with outputs
poisoned first, and is compared with a Python-integer oracle written here, so the
reference is checked too. The GPU run is ``tests/device/test_cuda_unsigned.py``.
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
    HostTensor,
    assert_located,
    cubin,
    cuda_source,
    line_of,
    needs_nvrtc,
    one_error,
    poisoned,
    run,
)
from tilec.targets.metal.check import check_msl, checker_unavailable

UNSIGNED = [(tc.uint8, np.uint8), (tc.uint16, np.uint16), (tc.uint32, np.uint32)]
IDS = [d.name for d, _ in UNSIGNED]


def wrap(v: int, npdt: Any) -> int:
    """``v`` as a value of the integer type ``npdt`` (two's complement or modulo)."""
    info = np.iinfo(npdt)
    v %= 1 << info.bits
    return v - (1 << info.bits) if info.min < 0 and v > info.max else v


# ------------------------------------------------------------ elementwise semantics


@tc.kernel
def ops(X, Y, C, Out, B: tc.constexpr = 16):
    """One row per operation on ``x``, ``y`` (never zero) and shift counts ``c``."""
    for _p in tc.parallel(1):
        x = X.tile((0,), (B,)).load()
        y = Y.tile((0,), (B,)).load()
        c = C.tile((0,), (B,)).load()
        Out.tile((0, 0), (1, B)).store((x + y)[None, :])
        Out.tile((1, 0), (1, B)).store((x - y)[None, :])
        Out.tile((2, 0), (1, B)).store((x * y)[None, :])
        Out.tile((3, 0), (1, B)).store((-x)[None, :])
        Out.tile((4, 0), (1, B)).store(tc.abs(x)[None, :])
        Out.tile((5, 0), (1, B)).store((x & y)[None, :])
        Out.tile((6, 0), (1, B)).store((x | y)[None, :])
        Out.tile((7, 0), (1, B)).store((x ^ y)[None, :])
        Out.tile((8, 0), (1, B)).store((~x)[None, :])
        Out.tile((9, 0), (1, B)).store((x << c)[None, :])
        Out.tile((10, 0), (1, B)).store((x >> c)[None, :])
        Out.tile((11, 0), (1, B)).store(tc.maximum(x, y)[None, :])
        Out.tile((12, 0), (1, B)).store(tc.minimum(x, y)[None, :])
        Out.tile((13, 0), (1, B)).store((x // y)[None, :])
        Out.tile((14, 0), (1, B)).store((x % y)[None, :])
        Out.tile((15, 0), (1, B)).store((x % 3 + x // 4)[None, :])
        Out.tile((16, 0), (1, B)).store((x < y).to(x.dtype)[None, :])
        Out.tile((17, 0), (1, B)).store((x >= y).to(x.dtype)[None, :])
        Out.tile((18, 0), (1, B)).store(tc.where(x > y, x, y)[None, :])
        Out.tile((19, 0), (1, B)).store((x - 1)[None, :])
        Out.tile((20, 0), (1, B)).store((x * 3 + 5)[None, :])
        Out.tile((21, 0), (1, B)).store((x >> 1)[None, :])
        Out.tile((22, 0), (1, B)).store((x << 3)[None, :])
        Out.tile((23, 0), (1, B)).store(tc.where(x == 0, 7, x // 2)[None, :])


def _ops_oracle(x: list[int], y: list[int], c: list[int], bits: int) -> np.ndarray:
    m = 1 << bits

    def row(f: Any) -> list[int]:
        return [f(a, b, k) % m for a, b, k in zip(x, y, c)]

    rows = [
        row(lambda a, b, k: a + b), row(lambda a, b, k: a - b), row(lambda a, b, k: a * b),
        row(lambda a, b, k: -a), row(lambda a, b, k: a), row(lambda a, b, k: a & b),
        row(lambda a, b, k: a | b), row(lambda a, b, k: a ^ b), row(lambda a, b, k: ~a),
        row(lambda a, b, k: 0 if k >= bits else a << k),
        row(lambda a, b, k: 0 if k >= bits else a >> k),
        row(lambda a, b, k: max(a, b)), row(lambda a, b, k: min(a, b)),
        row(lambda a, b, k: a // b), row(lambda a, b, k: a % b),
        row(lambda a, b, k: a % 3 + a // 4), row(lambda a, b, k: int(a < b)),
        row(lambda a, b, k: int(a >= b)), row(lambda a, b, k: a if a > b else b),
        row(lambda a, b, k: a - 1), row(lambda a, b, k: a * 3 + 5),
        row(lambda a, b, k: a >> 1), row(lambda a, b, k: a << 3),
        row(lambda a, b, k: 7 if a == 0 else a // 2),
    ]
    return np.array(rows, np.int64)


def _ops_inputs(bits: int) -> tuple[list[int], list[int], list[int]]:
    top, half = (1 << bits) - 1, 1 << (bits - 1)
    x = [0, 1, 2, 3, top, top - 1, half, half - 1, 5, 7, 100, 9, top, half + 1, 0, 77]
    y = [1, top, 2, 3, top, 1, half, 2, 7, 5, 3, 9, top - 1, half + 1, 10, 11]
    c = [0, 1, bits - 1, bits, bits + 1, top, 2, 3, bits // 2, 5, 0, 7, bits - 2, 2 * bits,
         half, 1]
    return x, y, c


@pytest.mark.parametrize("dt,npdt", UNSIGNED, ids=IDS)
@pytest.mark.parametrize("target", PATHS)
def test_elementwise_operations_wrap_and_shift_logically(target: str, dt: Any, npdt: Any
                                                         ) -> None:
    bits = np.iinfo(npdt).bits
    x, y, c = _ops_inputs(bits)
    want = _ops_oracle(x, y, c, bits).astype(npdt)
    out = poisoned(24, 16, dtype=npdt)
    run(target, ops, np.array(x, npdt), np.array(y, npdt), np.array(c, npdt), out)
    np.testing.assert_array_equal(out, want)


# ------------------------------------------------------------ signed shifts


@tc.kernel
def shifts(X, C, Out, B: tc.constexpr = 16):
    """``x << c``, ``x >> c`` (arithmetic) and ``x >> 2`` on signed integers."""
    for _p in tc.parallel(1):
        x = X.tile((0,), (B,)).load()
        c = C.tile((0,), (B,)).load()
        Out.tile((0, 0), (1, B)).store((x << c)[None, :])
        Out.tile((1, 0), (1, B)).store((x >> c)[None, :])
        Out.tile((2, 0), (1, B)).store((x >> 2)[None, :])


SIGNED = [(tc.int8, np.int8), (tc.int16, np.int16), (tc.int32, np.int32),
          (tc.int64, np.int64)]


@pytest.mark.parametrize("dt,npdt", SIGNED, ids=[d.name for d, _ in SIGNED])
@pytest.mark.parametrize("target", PATHS)
def test_signed_shifts_are_arithmetic_and_read_the_count_unsigned(target: str, dt: Any,
                                                                  npdt: Any) -> None:
    info = np.iinfo(npdt)
    bits = info.bits
    x = [0, 1, -1, info.min, info.max, -5, 5, 100, -100, 3, -3, 7, info.min + 1, 2, -2, 64]
    c = [0, 1, 1, bits - 1, bits - 1, bits, bits, bits + 3, -1, -bits, 2, bits - 2, 1, 0,
         info.max, info.min]
    rows = []
    for shl in (True, False):
        r = []
        for a, k in zip(x, c):
            ku = k % (1 << bits)  # the count read as unsigned
            if ku >= bits:
                r.append(0 if shl else (-1 if a < 0 else 0))
            else:
                r.append(wrap(a << ku, npdt) if shl else a >> ku)
        rows.append(r)
    rows.append([a >> 2 for a in x])
    want = np.array(rows, np.int64).astype(npdt)
    out = np.full((3, 16), -7, npdt)
    run(target, shifts, np.array(x, npdt), np.array(c, npdt), out)
    np.testing.assert_array_equal(out, want)


# ------------------------------------------------------------ reductions


@tc.kernel
def reductions(X, Out, R: tc.constexpr = 4, B: tc.constexpr = 16):
    """Per row of ``x``: sum, prod, max, min, argmax, argmin."""
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (R, B)).load()
        Out.tile((0, 0), (1, R)).store(x.sum(1)[None, :])
        Out.tile((1, 0), (1, R)).store(x.prod(1)[None, :])
        Out.tile((2, 0), (1, R)).store(x.max(1)[None, :])
        Out.tile((3, 0), (1, R)).store(x.min(1)[None, :])
        Out.tile((4, 0), (1, R)).store(tc.argmax(x, 1).to(x.dtype)[None, :])
        Out.tile((5, 0), (1, R)).store(tc.argmin(x, 1).to(x.dtype)[None, :])


@pytest.mark.parametrize("dt,npdt", UNSIGNED, ids=IDS)
@pytest.mark.parametrize("target", PATHS)
def test_reductions_wrap_and_order_unsigned(target: str, dt: Any, npdt: Any) -> None:
    top = int(np.iinfo(npdt).max)
    rng = np.random.default_rng(16)
    x = rng.integers(0, top, (4, 16), dtype=np.int64, endpoint=True)
    x[0, :] = top  # the sum and the product wrap
    x[1, 3], x[1, 9] = top, 0  # max above the signed range; first positions win
    x[1, 12], x[1, 14] = top, 0
    x[2, :] = 3
    m = 1 << np.iinfo(npdt).bits
    want = []
    for f in (lambda r: sum(r) % m, lambda r: int(np.prod([int(v) for v in r], dtype=object)) % m,
              max, min, lambda r: int(np.argmax(r)), lambda r: int(np.argmin(r))):
        want.append([f([int(v) for v in row]) for row in x])
    out = poisoned(6, 4, dtype=npdt)
    run(target, reductions, x.astype(npdt), out)
    np.testing.assert_array_equal(out, np.array(want, np.int64).astype(npdt))


@tc.kernel
def loop_reduction_and_scan(X, Out, Cs):
    """The loop form of a reduction with a number seed (it takes the elements' unsigned type)
    and a cumulative sum."""
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (2, 8)).load()
        total = 0
        for e in tc.reduction(x, axis=1):
            total = total + e
        Out.tile((0,), (2,)).store(total)
        Cs.tile((0, 0), (2, 8)).store(tc.cumsum(x, 1))


@pytest.mark.parametrize("target", PATHS)
def test_loop_reductions_and_scans_wrap(target: str) -> None:
    x = (np.arange(16).reshape(2, 8) * 37 + 200).astype(np.uint8)
    out, cs = poisoned(2, dtype=np.uint8), poisoned(2, 8, dtype=np.uint8)
    run(target, loop_reduction_and_scan, x, out, cs)
    np.testing.assert_array_equal(out, x.astype(np.int64).sum(1) % 256)
    np.testing.assert_array_equal(cs, np.cumsum(x.astype(np.int64), 1) % 256)


# ------------------------------------------------------------ conversions


@tc.kernel
def conversions(U, F, S, OutI, OutF, OutH, OutU, OutS, B: tc.constexpr = 16):
    """``u32`` to ``i32``/``f32``/``f16``/``u8``, ``f32`` to ``u32``/``u8``, ``i32`` to
    ``u32``/``u16``, ``u8`` back to ``u32``."""
    for _p in tc.parallel(1):
        u = U.tile((0,), (B,)).load()
        f = F.tile((0,), (B,)).load()
        s = S.tile((0,), (B,)).load()
        OutI.tile((0,), (B,)).store(u.to(tc.int32))
        OutF.tile((0,), (B,)).store(u.to(tc.float32))
        OutH.tile((0,), (B,)).store(u.to(tc.float16))
        OutU.tile((0, 0), (1, B)).store(f.to(tc.uint32)[None, :])
        OutU.tile((1, 0), (1, B)).store(s.to(tc.uint32)[None, :])
        OutU.tile((2, 0), (1, B)).store(u.to(tc.uint8).to(tc.uint32)[None, :])
        OutU.tile((3, 0), (1, B)).store(tc.uint16(s).to(tc.uint32)[None, :])
        OutS.tile((0,), (B,)).store(f.to(tc.uint8))


@pytest.mark.parametrize("target", PATHS)
def test_conversions_wrap_and_saturate(target: str) -> None:
    u = np.array([0, 1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**24 + 1,
                  2**32 - 129, 2**32 - 128, 12345678, 7, 300, 2**31 + 5], np.uint32)
    f = np.array([0.0, -0.0, 0.5, -0.5, -1.0, -3.7, 255.9, 256.0, 4294967040.0, 4294967296.0,
                  1e20, -1e20, np.nan, np.inf, -np.inf, 2147483648.5], np.float32)
    s = np.array([0, 1, -1, -2, 2**31 - 1, -2**31, 65535, 65536, -65536, 300, -300, 7, -7, 128,
                  -128, 12345], np.int32)
    outs = [np.full(16, -7, np.int32), np.full(16, np.nan, np.float32),
            np.full(16, np.nan, np.float16), poisoned(4, 16, dtype=np.uint32),
            poisoned(16, dtype=np.uint8)]
    run(target, conversions, u, f, s, *outs)
    np.testing.assert_array_equal(outs[0], u.view(np.int32))
    np.testing.assert_array_equal(outs[1], np.array([float(v) for v in u], np.float64)
                                  .astype(np.float32))  # one rounding of the exact value
    with np.errstate(over="ignore"):  # beyond 65504: inf
        halves = np.array([float(v) for v in u], np.float64).astype(np.float16)
    np.testing.assert_array_equal(outs[2], halves)
    assert outs[1][8] == np.float32(4294967296.0)

    def sat(v: float, hi: int) -> int:
        return 0 if v != v or v <= -1.0 else hi if v >= hi + 1 else int(v)

    np.testing.assert_array_equal(outs[3][0], [sat(float(v), 2**32 - 1) for v in f])
    np.testing.assert_array_equal(outs[3][1], [int(v) % 2**32 for v in s])
    np.testing.assert_array_equal(outs[3][2], [int(v) % 256 for v in u])
    np.testing.assert_array_equal(outs[3][3], [int(v) % 65536 for v in s])
    np.testing.assert_array_equal(outs[4], [sat(float(v), 255) for v in f])


@tc.kernel
def narrow_floats(U, OutB):
    for _p in tc.parallel(1):
        OutB.tile((0,), (8,)).store(U.tile((0,), (8,)).load().to(tc.bfloat16))


@pytest.mark.parametrize("target", PATHS)
def test_unsigned_to_bfloat16_rounds_once(target: str) -> None:
    u = np.array([0, 1, 257, 2**31 + 2**23, 2**32 - 1, 2**24 + 2**16 + 1, 65535, 2**31 - 1],
                 np.uint32)
    out = np.full(8, np.nan, ml_dtypes.bfloat16)
    run(target, narrow_floats, u, out)
    np.testing.assert_array_equal(out.astype(np.float64), _bf16_once(u))


def _bf16_once(u: np.ndarray) -> np.ndarray:
    """Each integer rounded once to bf16 (to nearest, ties to even) as f64 values."""
    out = []
    for v in (int(x) for x in u):
        if v == 0:
            out.append(0.0)
            continue
        e = v.bit_length() - 8  # bf16 keeps 8 significant bits
        if e <= 0:
            out.append(float(v))
            continue
        q, r = divmod(v, 1 << e)
        half = 1 << (e - 1)
        if r > half or (r == half and q & 1):
            q += 1
        out.append(float(q << e))
    return np.array(out, np.float64)


# ------------------------------------------------------------ scalars and arange


@tc.kernel
def scalar_math(Out, a: tc.uint32, b: tc.uint32, n: tc.uint8):
    """Unsigned scalar arguments: arithmetic on the host (before the nest) and in it."""
    q = a // b
    for _p in tc.parallel(1):
        Out.tile((0,), (1,)).store(tc.full((1,), a + b, tc.uint32))
        Out.tile((1,), (1,)).store(tc.full((1,), a - b, tc.uint32))
        Out.tile((2,), (1,)).store(tc.full((1,), a * b, tc.uint32))
        Out.tile((3,), (1,)).store(tc.full((1,), q, tc.uint32))
        Out.tile((4,), (1,)).store(tc.full((1,), a % b, tc.uint32))
        Out.tile((5,), (1,)).store(tc.full((1,), a >> 4, tc.uint32))
        Out.tile((6,), (1,)).store(tc.full((1,), a << n, tc.uint32))
        Out.tile((7,), (1,)).store(tc.full((1,), tc.uint32(a > b), tc.uint32))
        Out.tile((8,), (1,)).store(tc.full((1,), n + 250, tc.uint32))  # u8: wraps first
        Out.tile((9,), (1,)).store(tc.full((1,), tc.maximum(a, b), tc.uint32))
        Out.tile((10,), (1,)).store(tc.full((1,), tc.cdiv(a, b), tc.uint32))
        Out.tile((11,), (1,)).store(tc.full((1,), tc.cdiv(b, 3), tc.uint32))


@pytest.mark.parametrize("target", PATHS)
def test_scalar_arguments_take_the_whole_unsigned_range(target: str) -> None:
    a, b, n = 4000000000, 3000000001, 9
    out = poisoned(12, dtype=np.uint32)
    run(target, scalar_math, out, np.uint32(a), b, np.uint8(n))
    m = 2**32
    want = [(a + b) % m, (a - b) % m, (a * b) % m, a // b, a % b, a >> 4, (a << n) % m,
            int(a > b), (n + 250) % 256, max(a, b), -(-a // b), -(-b // 3)]
    np.testing.assert_array_equal(out, np.array(want, np.uint32))


@tc.kernel
def ramp(Out, off: tc.uint32, B: tc.constexpr = 8):
    for p in tc.parallel(2):
        Out.tile((p, 0), (1, B)).store(tc.arange(B, dtype=tc.uint32)[None, :] * 3 + off)
        Out.tile((p, B), (1, B)).store(tc.arange(4294967280, 4294967280 + B,
                                                 dtype=tc.uint32)[None, :] + tc.uint32(p))
        s = tc.index(off)  # a runtime start: index arithmetic, then wrapped to u32
        Out.tile((p, 2 * B), (1, B)).store(tc.arange(s, s + B, dtype=tc.uint32)[None, :])


@pytest.mark.parametrize("target", PATHS)
def test_arange_of_unsigned_values(target: str) -> None:
    out = poisoned(2, 24, dtype=np.uint32)
    run(target, ramp, out, np.uint32(4294967295))
    for p in range(2):
        np.testing.assert_array_equal(out[p, :8], (np.arange(8) * 3 + 4294967295) % 2**32)
        np.testing.assert_array_equal(out[p, 8:16], (np.arange(4294967280, 4294967288) + p)
                                      % 2**32)
        np.testing.assert_array_equal(out[p, 16:], (np.arange(8) + 4294967295) % 2**32)


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_dlpack_producers_of_unsigned_arrays(target: str) -> None:
    """An unsigned array passed through ``__dlpack__`` (a torch ``uint8`` tensor on the host
    takes this way) maps to the unsigned type."""
    x, y, c = _ops_inputs(16)
    out = poisoned(24, 16, dtype=np.uint16)
    run(target, ops, *(HostTensor(np.array(v, np.uint16)) for v in (x, y, c)), HostTensor(out))
    np.testing.assert_array_equal(out, _ops_oracle(x, y, c, 16).astype(np.uint16))


@tc.kernel
def shifted_grid(Out, a: tc.uint32, B: tc.constexpr = 4):
    """A grid extent computed before the nest with shifts: the top three bits of ``a`` plus
    its lowest bit (on CUDA the host computes it before the launch)."""
    n = (a >> 29) + ((a << 31) >> 31)
    for p in tc.parallel(n):
        Out.tile((p * B,), (B,)).store(tc.full((B,), p, tc.int32))


@pytest.mark.parametrize("target", PATHS)
def test_shifts_before_the_nest_size_the_grid(target: str) -> None:
    out = poisoned(64, dtype=np.int32)
    run(target, shifted_grid, out, 0xE0000001)
    np.testing.assert_array_equal(out[:32], np.repeat(np.arange(8), 4))
    assert (out[32:] == -7).all()


def test_the_cuda_host_computes_the_shifted_extent() -> None:
    src = cuda_source(shifted_grid, tc.array((None,), np.int32), tc.uint32)
    assert src.grid([0, 0xE0000001, 64]) == (8,)
    assert src.grid([0, 0x20000000, 64]) == (1,)


# ------------------------------------------------------------ division by zero


@tc.kernel
def divide(X, Y, Out, B: tc.constexpr = 8):
    for p in tc.parallel(2):
        q = X.tile((p * B,), (B,)) // Y.tile((p * B,), (B,))
        Out.tile((p * B,), (B,)).store(q)


def test_unsigned_division_by_zero_is_the_same_error_on_every_path() -> None:
    x = np.arange(16, dtype=np.uint32) + 4000000000
    y = np.full(16, 3, np.uint32)
    y[11] = 0
    text = one_error(tc.KernelArithmeticError, divide, x, y, poisoned(16, dtype=np.uint32))
    assert f":{line_of(divide.fn, 'q = X.tile')}:" in text
    assert "integer division by zero in @divide: '//' (floordiv) has a zero divisor" in text


@pytest.mark.parametrize("target", PATHS)
def test_unsigned_division_above_the_signed_range(target: str) -> None:
    x = np.arange(16, dtype=np.uint32) + 4294967280
    y = np.array([1, 2, 3, 4294967295, 2**31, 7, 10, 2**31 + 1] * 2, np.uint32)
    out = poisoned(16, dtype=np.uint32)
    run(target, divide, x, y, out)
    np.testing.assert_array_equal(out, [int(a) // int(b) for a, b in zip(x, y)])


# ------------------------------------------------------------ atomics


@tc.kernel
def accumulate(X, Sum, Big, Small, B: tc.constexpr = 8):
    for p in tc.parallel(4):
        x = X.tile((p * B,), (B,)).load()
        Sum.tile((0,), (B,)).atomic_add(x)
        Big.tile((0,), (B,)).atomic_max(x)
        Small.tile((0,), (B,)).atomic_min(x)


def _atomic_case(npdt: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    top = int(np.iinfo(npdt).max)
    rng = np.random.default_rng(3)
    x = rng.integers(0, top, 32, dtype=np.int64, endpoint=True)
    x[:8] = top  # the sums wrap
    x[9] = 0
    args = [x.astype(npdt), np.full(8, 5, npdt), np.full(8, 5, npdt), np.full(8, 5, npdt)]
    cols = x.reshape(4, 8)
    want = [(cols.sum(0) + 5) % (top + 1), np.maximum(cols.max(0), 5),
            np.minimum(cols.min(0), 5)]
    return args, [w.astype(npdt) for w in want]


@pytest.mark.parametrize("dt,npdt", UNSIGNED, ids=IDS)
@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_atomics_on_unsigned_memory_on_the_host(target: str, dt: Any, npdt: Any) -> None:
    args, want = _atomic_case(npdt)
    run(target, accumulate, *args)
    for got, w in zip(args[1:], want):
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("target", ["sim:cuda:sm_90", "sim:cuda:sm_80"])
def test_cuda_has_32_bit_unsigned_atomics(target: str) -> None:
    args, want = _atomic_case(np.uint32)
    run(target, accumulate, *args)
    for got, w in zip(args[1:], want):
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("npdt", [np.uint8, np.uint16])
@pytest.mark.parametrize("target", ["sim:cuda:sm_90", "sim:cuda:sm_80"])
def test_cuda_refuses_narrow_unsigned_atomics(target: str, npdt: Any) -> None:
    args, _ = _atomic_case(npdt)
    t = np.dtype(npdt).name.replace("uint", "u")
    with pytest.raises(tc.UserError, match=f"has no atomic add on {t} memory \\(its atomics "
                       "update i32, i64, f32, f64, u32\\)"):
        run(target, accumulate, *args)


def test_metal_has_no_atomics_for_unsigned_memory_either() -> None:
    args, _ = _atomic_case(np.uint32)
    with pytest.raises(tc.UserError, match="has no atomic operations \\(atomic add on u32"):
        run("sim:metal:m1", accumulate, *args)


# ------------------------------------------------------------ refused mixes


@tc.kernel
def mix_scalar(Out, a: tc.uint32, b: int):
    for _p in tc.parallel(1):
        Out.tile((0,), (1,)).store(tc.full((1,), a + b, tc.uint32))  # err


@tc.kernel
def mix_tile_scalar(X, Out, b: int):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(X.tile((0,), (4,)).load() * b)  # err


@tc.kernel
def mix_compare(X, Out):
    for p in tc.parallel(1):
        Out.tile((0,), (4,)).store(X.tile((0,), (4,)).load() < p)  # err


@tc.kernel
def mix_where(X, S, Out):
    for _p in tc.parallel(1):
        x = X.tile((0,), (4,)).load()
        Out.tile((0,), (4,)).store(tc.where(x > 1, x, S.tile((0,), (4,)).load()))  # err


@tc.kernel
def negative_number(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(X.tile((0,), (4,)).load() + -1)  # err


@tc.kernel
def negative_count(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(X.tile((0,), (4,)).load() >> -1)  # err


@tc.kernel
def bool_shift(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store((X.tile((0,), (4,)).load() > 1) << 1)  # err


@tc.kernel
def negative_arange(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(-2, 2, dtype=tc.uint32))  # err


U4, I4 = np.zeros(4, np.uint32), np.zeros(4, np.int32)
REFUSED = [
    (mix_scalar, (U4, np.uint32(1), 2), "a + b",
     ["+ mixes unsigned and signed integers (a scalar u32 and a scalar i32)",
      "convert one side, e.g. tc.uint32(...) or tc.int32(...)"]),
    (mix_tile_scalar, (U4, U4, 2), "X.tile((0,), (4,)).load() * b",
     ["* mixes unsigned and signed integers", "tile<4xu32>", "do not mix implicitly"]),
    (mix_compare, (U4, U4), "X.tile((0,), (4,)).load() < p",
     ["< mixes unsigned and signed integers", "index", "tc.index(...)"]),
    (mix_where, (U4, I4, U4), "tc.where(",
     ["where() mixes unsigned and signed integers", "tile<4xi32>"]),
    (negative_number, (U4, U4), "X.tile((0,), (4,)).load() + -1",
     ["-1 does not fit in u32 [0, 4294967295]", "an unsigned type holds no negative number"]),
    (negative_count, (U4, U4), "X.tile((0,), (4,)).load() >> -1",
     ["negative shift count -1"]),
    (bool_shift, (U4, U4), "(X.tile((0,), (4,)).load() > 1) << 1",
     ["<< shifts integers, not booleans"]),
    (negative_arange, (U4,), "tc.uint32",
     ["arange(): the value -2 does not fit in u32"]),
]


@pytest.mark.parametrize("kernel,args,needle,fragments", REFUSED,
                         ids=[k.__name__ for k, *_ in REFUSED])
def test_ambiguous_mixes_are_located_errors(kernel: Any, args: tuple, needle: str,
                                            fragments: list[str]) -> None:
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.interpret(kernel, *args)
    assert_located(info.value, kernel, needle, fragments)


# ------------------------------------------------------------ the IR and the sources


def test_the_ir_prints_and_round_trips() -> None:
    import tilec.ir as ir

    c = tc.compile(ops, *(tc.array((16,), np.uint32),) * 3, tc.array((24, 16), np.uint32),
                   target="reference")
    assert "tile<16xu32>" in c.ir and '"shr"' in c.ir and '"shl"' in c.ir, c.ir
    again = ir.parse(c.ir)
    assert ir.structurally_equal(c.module, again), ir.explain_difference(c.module, again)


_SHIFT_IR = (
    "module {\n"
    '  func @f(%a: u16, %b: u16, %c: i1) -> () {constexprs = [], kernel = true, '
    'param_names = ["a", "b", "c"], shape_bindings = [], shape_symbols = []} {\n'
    '    %0 = arith(%a, %b) {fn = "shr"} : u16\n'
    "    %1 = constant() {value = 65535} : u16\n"
    '    %2 = arith(%0, %1) {fn = "shl"} : u16\n'
    '    %3 = arith(%c, %c) {fn = "shl"} : i1\n'
    "    return()\n"
    "  }\n"
    "}\n")


def test_shift_ir_prints_as_parsed_and_refuses_i1() -> None:
    import tilec.ir as ir

    good = _SHIFT_IR.replace('    %3 = arith(%c, %c) {fn = "shl"} : i1\n', "")
    m = ir.parse(good)
    ir.verify(m)
    assert ir.print_module(m) == good
    with pytest.raises(ir.VerificationError, match="arith shl does not shift i1 values"):
        ir.verify(ir.parse(_SHIFT_IR))
    with pytest.raises(ir.VerificationError, match="65536 does not fit in u16 \\[0, 65535\\]"):
        ir.verify(ir.parse(good.replace("65535", "65536")))


SPECS = {
    ops: tuple(tc.array((16,), np.uint32) for _ in range(3)) + (tc.array((24, 16), np.uint32),),
    shifts: (tc.array((16,), np.int8), tc.array((16,), np.int8), tc.array((3, 16), np.int8)),
    reductions: (tc.array((4, 16), np.uint16), tc.array((6, 4), np.uint16)),
    conversions: (tc.array((16,), np.uint32), tc.array((16,), np.float32),
                  tc.array((16,), np.int32), tc.array((16,), np.int32),
                  tc.array((16,), np.float32), tc.array((16,), np.float16),
                  tc.array((4, 16), np.uint32), tc.array((16,), np.uint8)),
    scalar_math: (tc.array((12,), np.uint32), tc.uint32, tc.uint32, tc.uint8),
}
U8_OPS = tuple(tc.array((16,), np.uint8) for _ in range(3)) + (tc.array((24, 16), np.uint8),)


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_the_kernels_compile_to_cubins(target: str, arch: str, kernel: Any) -> None:
    cubin(cuda_source(kernel, *SPECS[kernel], target=target), arch)


@needs_nvrtc
def test_narrow_unsigned_kernels_compile_to_cubins() -> None:
    cubin(cuda_source(ops, *U8_OPS), "sm_90")
    cubin(cuda_source(accumulate, tc.array((32,), np.uint32), *(tc.array((8,), np.uint32),) * 3),
          "sm_90")


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_metal_source_passes_the_check(kernel: Any) -> None:
    exe = tc.compile(kernel, *SPECS[kernel], target="metal:m1").executable()
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
