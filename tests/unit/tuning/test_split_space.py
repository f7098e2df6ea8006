"""What measured selection tries for a K-heavy or skinny product on CUDA: the model's
split of each configuration is a candidate of its own, ranked by the split's price (so
the shortlist holds the small tiles whose splits price lowest), and the refine stage lays
16 and 32 splits over the best configurations where the K loop is long enough (the H100
split sweep ran 128x128x8192 fastest with 16 or 32 splits). Nothing here runs a kernel:
the space is planned, not built."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tilec.frontend.tunables import defaults, shape_bucket
from tilec.lib import matmul
from tilec.plan.split_price import MIN_STEPS_PER_SPLIT
from tilec.runtime import load_backend
from tilec.tuning import enumerate_space, shortlist
from tilec.tuning.search import refine_candidates

BF16 = ml_dtypes.bfloat16


def _space(m: int, n: int, k: int):
    args = (np.zeros((m, k), BF16), np.zeros((k, n), BF16), np.zeros((m, n), np.float32))
    kern = matmul
    _, specs, _ = kern.specialize(args, defaults(kern.tunables, {}), False)

    def module_of(cfg):
        kk, sp, vals = kern.specialize(args, dict(cfg), False)
        return kern.module_for(kk, sp, vals), kern.fn.__name__

    space = enumerate_space(module_of, "cuda", kern.tunables, {}, shape_bucket(specs, args))
    return space, module_of


@pytest.fixture(autouse=True)
def _no_warm(monkeypatch):
    monkeypatch.setenv("TILEC_WARM_START", "0")


def test_a_k_heavy_shortlist_holds_small_tiles_split() -> None:
    space, module_of = _space(128, 128, 8192)
    short, _ = shortlist(space, 8)
    assert all(c.variant.get("split_k", 1) >= 8 for c in short)
    assert all(c.config["BM"] * c.config["BN"] <= 64 * 64 for c in short)
    assert short[0].config == {"BM": 32, "BN": 32, "BK": 64}
    assert short[0].variant == {"threads": 256, "split_k": 16}
    assert short[0].terms == {} and short[0].k_steps == 128
    # unsplit candidates are still there, priced as before, below the splits
    assert any("split_k" not in c.variant for c in space.candidates)
    # the refine stage: 16 and 32 splits of the best configurations, 4 and 8 too
    variants = load_backend("cuda:sm_90").tuning_variants(*module_of(short[0].config))
    more = refine_candidates(short[:3], variants)
    splits = {c.variant["split_k"] for c in more if "split_k" in c.variant}
    assert {4, 8, 16, 32} <= splits
    assert {"threads": 256, "split_k": 32} in [c.variant for c in more]


def test_a_skinny_shortlist_is_split() -> None:
    space, _ = _space(16, 4096, 4096)
    short, _ = shortlist(space, 8)
    assert all(c.variant.get("split_k", 1) >= 4 for c in short)


def test_a_large_grid_has_no_split_candidate() -> None:
    space, _ = _space(4096, 4096, 4096)
    assert not any("split_k" in c.variant for c in space.candidates)


def test_a_split_that_leaves_too_few_steps_is_not_tried() -> None:
    """K = 512 at BK = 64 is 8 steps: 2 splits keep 4 each; 4 and more are not tried."""
    space, module_of = _space(128, 128, 512)
    best = [c for c in space.candidates if c.config["BK"] == 64][:1]
    assert best and best[0].k_steps == 8
    variants = load_backend("cuda:sm_90").tuning_variants(*module_of(best[0].config))
    more = refine_candidates(best, variants)
    assert not any(c.variant.get("split_k", 1) * MIN_STEPS_PER_SPLIT > 8 for c in more)
    assert len(more) == len([v for v in variants if "split_k" not in v])
