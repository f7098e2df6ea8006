"""Embedding lookup and varlen pooling: addresses read from data.

``E[ids[t]]`` for a block of token ids is one ``tc.gather`` (each element reads
the row its id names; an id outside the table reads zeros, never another
array's memory). Each sequence's mean is a loop whose bound is read from
``cu_seqlens`` (``CU[b]``, a scalar read of memory): sequences of any length,
an empty one included, in one launch. Run ``python examples/embedding.py``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase


@tc.kernel
def embed_mean(E, ids, CU, Out, BT: tc.constexpr = 8, D: tc.constexpr = 32):
    """``Out[b] = mean(E[ids[t]] for t in CU[b]:CU[b+1])`` (zeros for an empty sequence)."""
    B = Out.shape[0]
    assert E.shape[1] == D, "the embedding width must be D"
    for b in tc.parallel(B):
        start = CU[b]
        n = CU[b + 1] - start
        acc = tc.zeros((D,))
        for j in tc.serial(tc.cdiv(n, BT)):
            t = ids.tile((start + j * BT,), (BT,), fill=-1)
            t = tc.where(tc.arange(BT) + j * BT < n, t, -1)  # past the sequence: no row
            rows = tc.gather(E, tc.broadcast(t[:, None], (BT, D)), axis=0)
            acc = acc + rows.sum(0)
        Out.tile((b, 0), (1, D)).store((acc / tc.maximum(n, 1).to(tc.float32))[None, :])


def make_inputs(rng: np.random.Generator) -> tuple:
    """A 100 x 32 table, 40 token ids (one out of range) in sequences of 7, 0, 20 and 13."""
    table = rng.standard_normal((100, 32)).astype(np.float32)
    ids = rng.integers(0, 100, 40).astype(np.int32)
    ids[5] = 1000
    cu = np.array([0, 7, 7, 27, 40], np.int32)
    return table, ids, cu, np.zeros((4, 32), np.float32)


def reference(table: np.ndarray, ids: np.ndarray, cu: np.ndarray, out: np.ndarray
              ) -> dict[int, np.ndarray]:
    """The expected value of each output argument, by position."""
    rows = np.where((ids >= 0)[:, None] & (ids < len(table))[:, None],
                    table[np.clip(ids, 0, len(table) - 1)], 0.0)
    means = [rows[a:b].sum(0) / max(b - a, 1) for a, b in zip(cu[:-1], cu[1:])]
    return {3: np.stack(means)}


DEMOS = [DemoCase("examples.embedding", embed_mean, make_inputs, reference)]

if __name__ == "__main__":
    from _common import run_example

    raise SystemExit(0 if run_example(DEMOS[0], show_ir=False) else 1)
