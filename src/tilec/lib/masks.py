"""Masks built from bounded views (no coordinate opcode needed).

A bounded ``view`` reads its fill wherever the mapped coordinate leaves the
base. Storing ``inside`` into a small scratch memory and viewing it at a
runtime origin therefore yields ``inside`` at the first ``count`` positions
and ``outside`` after them: the usual "valid prefix" mask of a partial tile.
"""

from __future__ import annotations

import tilec as tc

__all__ = ["prefix_mask"]


@tc.func
def prefix_mask(count, N, inside=1.0, outside=0.0):
    """A rank-1 ``N`` tile: ``inside`` at positions ``< count``, ``outside`` from there on."""
    scratch = tc.memory((N,), tc.float32, space="local")
    scratch.store(tc.full((N,), inside, tc.float32))
    return scratch.tile((N - min(count, N),), (N,), fill=outside).load()
