"""Kernels whose group barriers order subgroup-local, thread-local or cross-subgroup
accesses of one explicit shared buffer, shared by the independent-subgroup proof's tests
(``plan/proofs/independent_subgroups.py``), its simulated differential tests and its GPU
test. Each writes a ``B x B`` tile of ``X`` to ``tc.memory`` and reads it back: as written
(each thread reads its own elements), transposed (a thread reads what others wrote: within
one subgroup when the group is one subgroup, ``threads=32``, across subgroups otherwise),
as column sums (a reduction across the rows of every subgroup), or in a loop that reads the
previous iteration's transposed write (a loop-carried dependence)."""

from __future__ import annotations

import numpy as np

import tilec as tc


@tc.kernel
def read_own(X, Out, B: tc.constexpr = 32):
    """``Out = 2 X + 1`` through a shared buffer read in the layout it was written in."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        x = X.tile((p * B, 0), (B, B), fill=0.0)
        buf = tc.memory((B, B), tc.float32)
        buf.tile((0, 0), (B, B)).store(x * 2.0)
        Out.tile((p * B, 0), (B, B)).store(buf.tile((0, 0), (B, B)).load() + 1.0)


@tc.kernel
def read_transposed(X, Out, B: tc.constexpr = 16):
    """Each ``B x B`` block of ``Out`` is the transpose of ``X``'s, read back from shared
    memory (``y.T`` of the loaded tile: threads read elements other threads wrote)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        x = X.tile((p * B, 0), (B, B), fill=0.0)
        buf = tc.memory((B, B), tc.float32)
        buf.tile((0, 0), (B, B)).store(x)
        y = buf.tile((0, 0), (B, B)).load()
        Out.tile((p * B, 0), (B, B)).store(y.T)


@tc.kernel
def column_sums(X, Out, B: tc.constexpr = 32):
    """``Out[p] = X[p * B:(p + 1) * B].sum(0)`` after a round trip through shared memory."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        buf = tc.memory((B, B), tc.float32)
        buf.tile((0, 0), (B, B)).store(X.tile((p * B, 0), (B, B), fill=0.0))
        Out.tile((p, 0), (1, B)).store(buf.tile((0, 0), (B, B)).load().sum(0)[None, :])


@tc.kernel
def carried(X, Out, B: tc.constexpr = 16, N: tc.constexpr = 3):
    """``N`` rounds of ``buf = buf.T + 1`` on a shared buffer: each iteration reads what the
    previous one wrote (other threads' elements)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        buf = tc.memory((B, B), tc.float32)
        buf.tile((0, 0), (B, B)).store(X.tile((p * B, 0), (B, B), fill=0.0))
        for _ in tc.serial(N):
            y = buf.tile((0, 0), (B, B)).load()
            buf.tile((0, 0), (B, B)).store(y.T + 1.0)
        Out.tile((p * B, 0), (B, B)).store(buf.tile((0, 0), (B, B)).load())


def inputs(kernel: object, rows: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``X`` and an output of the right shape for ``kernel`` (default tile sizes)."""
    b = {read_own: 32, read_transposed: 16, column_sums: 32, carried: 16}[kernel]
    x = np.random.default_rng(seed).standard_normal((rows, b)).astype(np.float32)
    out = np.zeros((rows // b, b) if kernel is column_sums else (rows, b), np.float32)
    return x, out
