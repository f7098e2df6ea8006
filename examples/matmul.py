"""Matrix multiplication, the kernel to start from.

Each program (one instance of ``tc.parallel``) owns a ``BM x BN`` tile of
``C``: it starts from a zero accumulator, walks K in ``BK`` steps loading a
tile of ``A`` and of ``B`` (out-of-range elements read as 0), multiplies and
accumulates with ``tc.mma``, and stores the tile (out-of-range elements are
not written). Run ``python examples/matmul.py``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase


@tc.kernel
def matmul(A, B, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64, BK: tc.constexpr = 32):
    """``C = A @ B``."""
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"  # checked before the launch
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


CONSTEXPRS = {"BM": 32, "BN": 32, "BK": 16}


def make_inputs(rng: np.random.Generator) -> tuple:
    """``A`` (100 x 70), ``B`` (70 x 90) and the output ``C``."""
    a = rng.standard_normal((100, 70)).astype(np.float32)
    b = rng.standard_normal((70, 90)).astype(np.float32)
    return a, b, np.zeros((100, 90), np.float32)


def reference(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict[int, np.ndarray]:
    """The expected value of each output argument, by position."""
    return {2: a.astype(np.float64) @ b}


DEMOS = [DemoCase("examples.matmul", matmul, make_inputs, reference, CONSTEXPRS)]

if __name__ == "__main__":
    from _common import run_example

    raise SystemExit(0 if run_example(DEMOS[0]) else 1)
