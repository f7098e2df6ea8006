"""Kernels whose ``mma`` accumulators chain, with inputs and an f32-accumulation check.

Shared by ``regression/test_mma_chains.py`` (every simulated target) and
``device/test_cuda_mma_chains.py`` (the GPU):

* the fuzzer's findings: an mma result (or an ``@`` product) seeding a K loop
  of mmas, once with a strict-order loop;
* chain shapes, each over constexprs ``BM, BN, K0, BK``: ``seeded_loop`` (an
  mma seeds a K loop), ``nested`` (an mma's result is another's C),
  ``feedback`` (elementwise ops on the way into C and back out),
  ``shared_body`` (two mmas in one body on one accumulator), ``two_accs``
  (two recurrences from one seed, joined by a subtraction), ``two_loops``
  (consecutive K loops), ``outer_inner`` (a K loop seeded by an mma inside
  another loop), ``mixed_group`` (a 2 x 2 tile, scalar-realized, beside the
  chain), ``direct_side`` (a direct-output loop beside an mma chain),
  ``in_branch`` (an mma under a branch of a loop, then a K loop) and
  ``row_consumers`` (row reductions and a broadcast of a resident result).
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

import tilec as tc

DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16}
"""Operand dtypes of the chains (the accumulator is f32)."""


# ----------------------------------------------------------- the fuzzer's kernels


@tc.kernel
def fuzz_layout(X0, Y0):
    for p0, p1 in tc.parallel(1, 1):
        acc1 = tc.mma(tc.full((32, 1), 1.0, tc.float32), tc.full((1, 8), 1.0, tc.float32),
                      tc.full((32, 8), 1.0, tc.float32))
        for k2 in tc.serial(2):
            acc1 = tc.mma(X0.tile((p0 * 32, k2), (32, 1), fill=0.0),
                          X0.tile((k2, p1 * 8), (1, 8), fill=0.0), acc1)
        Y0.tile((p0 * 32, p1 * 8), (32, 8)).store(acc1)


@tc.kernel
def fuzz_parts(X0, Y0):
    for p0 in tc.parallel(1):
        acc1 = tc.mma(tc.full((16, 1), 1.0, tc.float32), tc.full((1, 16), 1.0, tc.float32),
                      tc.full((16, 16), 1.0, tc.float32))
        for k2 in tc.serial(2):
            acc1 = tc.mma(X0.tile((p0 * 16, k2), (16, 1), fill=0.0),
                          X0.tile((k2, 0), (1, 16), fill=0.0), acc1)
        Y0.tile((p0 * 16, 0), (16, 16)).store(acc1)


@tc.kernel
def fuzz_gpu_matmul_seed(X1, X2, Y1):
    for p0, p1 in tc.parallel(2, 4):
        acc3 = (X1.tile((p1 * 8, p0 * 32), (8, 32), fill=float("inf")).T
                @ tc.load(X1.tile((p0 * 8, 0), (8, 8), fill=float("inf"))))
        for k4 in tc.serial(2):
            acc3 = tc.mma(X1.tile((0, k4 * 3 - 2), (32, 3), fill=0.0),
                          X2.tile((k4 * 3, p1 * 8 + 6), (3, 8), fill=0.0), acc3)
        Y1.tile((p0 * 32, p1 * 8), (32, 8)).store(acc3)


@tc.kernel
def fuzz_gpu_strict(X0, X1, X2, X3, Y0):
    for p0 in tc.parallel(1):
        b = tc.load(X1.permute(2, 1, 0).tile((0, -9, 0), (4, 16, 1), fill=0.0)).reshape(4, 16)
        acc1 = X0.tile((p0 * 16, 0), (16, 4), fill=float("inf")).load() @ b
        for k2 in tc.serial(2):
            acc1 = tc.mma(X2.tile((p0 * 16, k2 * 4), (16, 4), fill=0.0),
                          X3.tile((k2 * 4, -3), (4, 16), fill=0.0), acc1, order="strict_fold")
        m3 = tc.memory((16, 16), tc.float32, space="local")
        m3.store(acc1)
        Y0.tile((p0 * 16 + 1, 0), (16, 16)).store(m3.tile((0, -9), (16, 16), fill=0.5).load())


def _f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def fuzz_case(name: str) -> tuple[object, list[np.ndarray]]:
    """A fuzzer kernel and its arguments (outputs poisoned with NaN)."""
    rng = np.random.default_rng(len(name))
    if name == "fuzz_layout":
        return fuzz_layout, [_f32(rng, 32, 32), np.full((32, 8), np.nan, np.float32)]
    if name == "fuzz_parts":
        return fuzz_parts, [_f32(rng, 32, 32), np.full((16, 16), np.nan, np.float32)]
    if name == "fuzz_gpu_matmul_seed":
        return fuzz_gpu_matmul_seed, [_f32(rng, 32, 64), _f32(rng, 8, 40),
                                      np.full((64, 40), np.nan, np.float32)]
    return fuzz_gpu_strict, [_f32(rng, 16, 16), _f32(rng, 1, 16, 4), _f32(rng, 16, 8),
                             _f32(rng, 8, 16), np.full((17, 16), np.nan, np.float32)]


FUZZ = ("fuzz_layout", "fuzz_parts", "fuzz_gpu_matmul_seed", "fuzz_gpu_strict")


# ------------------------------------------------------------------ chain shapes
#
# Every kernel reads A (M x KT), B (KT x N) and C (M x N) and writes Y
# (2M + 2 x N); K0 is the K of one mma and BK that of another, so the two take
# different realizations whenever the sizes fall in different classes.


@tc.kernel
def seeded_loop(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                     C.tile((0, 0), (BM, BN)).load())
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)), B.tile((K0 + k * BK, 0), (BK, BN)),
                         acc)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def nested(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
           BK: tc.constexpr):
    for _ in tc.parallel(1):
        inner = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                       C.tile((0, 0), (BM, BN)).load())
        acc = tc.mma(A.tile((0, K0), (BM, BK)), B.tile((K0, 0), (BK, BN)), inner)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def feedback(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
             BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                     C.tile((0, 0), (BM, BN)).load())
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)), B.tile((K0 + k * BK, 0), (BK, BN)),
                         acc * 0.5) + 1.0
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def shared_body(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = C.tile((0, 0), (BM, BN)).load()
        for k in tc.serial(2):
            o = k * (K0 + BK)
            acc = tc.mma(A.tile((0, o), (BM, K0)), B.tile((o, 0), (K0, BN)), acc)
            acc = tc.mma(A.tile((0, o + K0), (BM, BK)), B.tile((o + K0, 0), (BK, BN)), acc)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def two_accs(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
             BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc1 = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                      C.tile((0, 0), (BM, BN)).load())
        acc2 = acc1  # one seed for both recurrences
        for k in tc.serial(2):
            acc1 = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)),
                          B.tile((K0 + k * BK, 0), (BK, BN)), acc1)
            acc2 = tc.mma(A.tile((0, k * K0), (BM, K0)), B.tile((k * K0, 0), (K0, BN)), acc2)
        Y.tile((0, 0), (BM, BN)).store(acc1 - acc2)


@tc.kernel
def two_loops(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
              BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = C.tile((0, 0), (BM, BN)).load()
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, k * K0), (BM, K0)), B.tile((k * K0, 0), (K0, BN)), acc)
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, 2 * K0 + k * BK), (BM, BK)),
                         B.tile((2 * K0 + k * BK, 0), (BK, BN)), acc)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def outer_inner(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = C.tile((0, 0), (BM, BN)).load()
        for i in tc.serial(2):
            acc = tc.mma(A.tile((0, i * K0), (BM, K0)), B.tile((i * K0, 0), (K0, BN)), acc)
            for k in tc.serial(2):
                acc = tc.mma(A.tile((0, k * BK), (BM, BK)), B.tile((k * BK, 0), (BK, BN)), acc)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def mixed_group(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                BK: tc.constexpr):
    for _ in tc.parallel(1):
        small = tc.mma(A.tile((0, 0), (2, K0)), B.tile((0, 0), (K0, 2)),
                       C.tile((0, 0), (2, 2)).load())
        acc = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                     C.tile((0, 0), (BM, BN)).load())
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)), B.tile((K0 + k * BK, 0), (BK, BN)),
                         acc)
            small = tc.mma(A.tile((0, K0 + k * BK), (2, BK)), B.tile((K0 + k * BK, 0), (BK, 2)),
                           small)
        Y.tile((0, 0), (BM, BN)).store(acc)
        Y.tile((BM, 0), (2, 2)).store(small)


@tc.kernel
def direct_side(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                BK: tc.constexpr):
    for _ in tc.parallel(1):
        side = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                      C.tile((0, 0), (BM, BN)).load())
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)), B.tile((K0 + k * BK, 0), (BK, BN)),
                         acc)
        Y.tile((0, 0), (BM, BN)).store(acc)
        Y.tile((BM + 2, 0), (BM, BN)).store(tc.mma(A.tile((0, K0), (BM, BK)),
                                                   B.tile((K0, 0), (BK, BN)), side))


@tc.kernel
def in_branch(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
              BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                     C.tile((0, 0), (BM, BN)).load())
        for k in tc.serial(2):
            if k == 1:
                acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)),
                             B.tile((K0 + k * BK, 0), (BK, BN)), acc)
            else:
                acc = acc * 2.0
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, k * K0), (BM, K0)), B.tile((k * K0, 0), (K0, BN)), acc)
        Y.tile((0, 0), (BM, BN)).store(acc)


@tc.kernel
def row_consumers(A, B, C, Y, BM: tc.constexpr, BN: tc.constexpr, K0: tc.constexpr,
                  BK: tc.constexpr):
    for _ in tc.parallel(1):
        acc = tc.mma(A.tile((0, 0), (BM, K0)), B.tile((0, 0), (K0, BN)),
                     C.tile((0, 0), (BM, BN)).load())
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, K0 + k * BK), (BM, BK)), B.tile((K0 + k * BK, 0), (BK, BN)),
                         acc)
        total = tc.sum(acc, axis=1, keepdims=True)
        Y.tile((0, 0), (BM, BN)).store(acc - tc.broadcast(total, (BM, BN)))
        Y.tile((BM + 2, 0), (BM, 1)).store(tc.max(acc, axis=1, keepdims=True))


CHAINS = {k.__name__: k for k in (seeded_loop, nested, feedback, shared_body, two_accs,
                                  two_loops, outer_inner, mixed_group, direct_side, in_branch,
                                  row_consumers)}

SIZES = (1, 3, 8, 16, 32, 64)
"""Tile sizes the shapes draw from."""
FUZZED = [(32, 8, 1, 1), (16, 16, 1, 16)]
"""(BM, BN, K0, BK) of the fuzzer's two findings."""
ROTATED = [(SIZES[i], SIZES[(i + 2) % 6], SIZES[(i + 4) % 6], SIZES[(i + 1) % 6])
           for i in range(6)] + [(16, 8, 16, 16), (64, 64, 16, 16)]
"""Every size in each of the four places once (a cyclic design) and two atom-sized shapes
(mma.sync and lane rectangles beside each other)."""


@dataclasses.dataclass
class Case:
    """One chain kernel's inputs, its poisoned output and the reference answer."""

    args: list[np.ndarray]
    """A, B, C and the output Y (NaN)."""
    want: np.ndarray
    """The reference interpreter's Y."""
    bound: float
    """The f32-accumulation bound on any element's difference."""
    consts: dict[str, int]
    """The constexprs."""


def chain_case(kernel: object, dt: str, shape: tuple[int, int, int, int], seed: int = 0) -> Case:
    bm, bn, k0, bk = shape
    rng = np.random.default_rng(seed + bm * 7 + bn * 5 + k0 * 3 + bk)
    kt = 2 * (k0 + bk)
    a = rng.standard_normal((max(bm, 2), kt)).astype(DTYPES[dt])
    b = rng.standard_normal((kt, max(bn, 2))).astype(DTYPES[dt])
    c = rng.standard_normal((max(bm, 2), max(bn, 2))).astype(np.float32)
    y = np.full((2 * bm + 2, max(bn, 2)), np.nan, np.float32)
    consts = {"BM": bm, "BN": bn, "K0": k0, "BK": bk}
    want = y.copy()
    tc.interpret(kernel, a, b, c, want, **consts)
    # Every output sums at most 2 KT products (exact in f32 for bf16), two seeds and
    # constants, scaled by at most 2, in some order: two orders differ by at most
    # 2 * 2 KT * 2^-24 of the largest magnitude sum (a row sum adds BN of them).
    mag = float((np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max())
    scale = 2 * mag + 2 * float(np.abs(c).max()) + 4
    if kernel is row_consumers:
        scale *= bn + 1
    bound = 4 * kt * 2.0 ** -23 * scale
    return Case([a, b, c, y], want, bound, consts)


def wrong(case: Case) -> str | None:
    """What is wrong with the case's output (None: nothing)."""
    got, want = case.args[-1], case.want
    if (np.isnan(got) != np.isnan(want)).any():
        return f"{int((np.isnan(got) != np.isnan(want)).sum())} element(s) NaN in only one"
    err = np.abs(np.nan_to_num(got) - np.nan_to_num(want))
    if (err > case.bound).any():
        return f"{int((err > case.bound).sum())} element(s) off, by up to {float(err.max())}"
    return None


