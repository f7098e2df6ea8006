"""Row softmax with one tile per block of rows.

Columns past the end load as ``-inf``, so ``exp`` turns them into zeros and
the row sum needs no mask. ``tc.max``/``tc.sum`` are reductions with the
default ``unordered_tree`` policy; ``x - m[:, None]`` broadcasts a column.
Run ``python examples/softmax.py``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase


@tc.kernel
def softmax(X, Y, BM: tc.constexpr = 4, BN: tc.constexpr = 128):
    """``Y = softmax(X, axis=1)`` for rows of at most ``BN`` elements."""
    M, N = X.shape
    assert N <= BN, "one tile holds a whole row: pass BN >= N"  # checked before the launch
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=float("-inf"))
        m = tc.max(x, axis=1)
        e = tc.exp(x - m[:, None])
        s = tc.sum(e, axis=1)
        Y.tile((pm * BM, 0), (BM, BN)).store(e / s[:, None])


def make_inputs(rng: np.random.Generator) -> tuple:
    """``X`` (30 x 100) and the output ``Y``."""
    x = rng.standard_normal((30, 100)).astype(np.float32)
    return x, np.zeros_like(x)


def reference(x: np.ndarray, y: np.ndarray) -> dict[int, np.ndarray]:
    """The expected value of each output argument, by position."""
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return {1: e / e.sum(axis=1, keepdims=True)}


DEMOS = [DemoCase("examples.softmax", softmax, make_inputs, reference)]

if __name__ == "__main__":
    from _common import run_example

    raise SystemExit(0 if run_example(DEMOS[0]) else 1)
