"""The model's pick splits K where its grid underfills the device (``CUDABackend.
model_split_k``): the cost basis prices no split, so the backend's rule adds ``split_k`` to
the pick's variant from the priced plan's programs and K steps at the call's extents."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilec.lib import matmul
from tilec.runtime import load_backend

BF16 = ml_dtypes.bfloat16


def test_the_rule() -> None:
    b = load_backend("cuda:sm_90")  # 132 compute units
    assert b.model_split_k(16, 128)[0] == 16     # 256 programs (two waves), 8 steps each
    assert b.model_split_k(4, 1024)[0] == 16     # at most 16 splits
    assert b.model_split_k(16, 24)[0] == 2       # 4 splits would leave 6 steps each
    assert b.model_split_k(128, 64)[0] == 2      # one wave: one doubling
    assert b.model_split_k(133, 4096) is None    # more than one wave: no split
    assert b.model_split_k(16, 15) is None       # too few K steps to split
    assert b.model_split_k(None, 128) is None and b.model_split_k(16, None) is None
    assert not hasattr(load_backend("cpu"), "model_split_k")


def test_a_k_heavy_call_is_split_and_a_large_one_is_not() -> None:
    a = np.zeros((128, 8192), BF16)
    skinny = matmul.compile(a, np.zeros((8192, 128), BF16), np.zeros((128, 128), np.float32),
                            target="cuda")
    sel = skinny.selection
    assert sel.source == "model" and sel.variant.get("split_k", 1) >= 2
    assert "split_k=" in sel.detail and "compute units" in sel.detail
    assert skinny.variant["split_k"] == sel.variant["split_k"]  # the kernel compiled so
    assert "split" in skinny.executable().source
    big = np.zeros((2048, 2048), BF16)
    wide = matmul.compile(big, big, np.zeros((2048, 2048), np.float32), target="cuda")
    assert "split_k" not in wide.selection.variant
