"""tc.tunable declarations and how a call resolves them (fixed, record, model, default)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import begin, default_options
from tilec.frontend.tunables import (
    apply_variant,
    bucket,
    configurations,
    shape_bucket,
)
from tilec.lib.matmul import matmul


@tc.kernel
def scaled(X, Y, BM: tc.constexpr = tc.tunable(4, 8, 16, default=8), S: tc.constexpr = 2.0):
    M, N = X.shape
    for pm in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((pm * BM, 0), (BM, 8)).store(X.tile((pm * BM, 0), (BM, 8), fill=0.0) * S)


def test_a_tunable_names_its_values_and_default():
    t = tc.tunable(64, 128, 256)
    assert t.values == (64, 128, 256) and t.default == 64
    assert tc.tunable(1, 2, default=2).default == 2
    assert repr(tc.tunable(1, 2, default=2)) == "tc.tunable(1, 2, default=2)"
    assert scaled.tunables == {"BM": tc.tunable(4, 8, 16, default=8)}


@pytest.mark.parametrize("make, message", [
    (lambda: tc.tunable(), "at least one value"),
    (lambda: tc.tunable(1, 1), "repeated"),
    (lambda: tc.tunable(1, 2, default=3), "not one of the values"),
    (lambda: tc.tunable([1]), "must be a number"),
])
def test_bad_tunables_are_refused(make, message):
    with pytest.raises(tc.ArgumentError, match=message):
        make()


def test_a_tunable_on_a_runtime_parameter_is_a_located_error():
    @tc.kernel
    def bad(X, BM=tc.tunable(1, 2)):
        pass

    with pytest.raises(tc.TileSyntaxError, match="tc.tunable\\(\\) is the default of a "
                                                 "tc.constexpr parameter") as e:
        bad.params  # noqa: B018
    assert e.value.lineno is not None and "def bad" in e.value.source_line


def test_configurations_are_the_cross_product_minus_fixed():
    space = matmul.tunables
    assert len(configurations(space)) == 4 * 4 * 2
    held = configurations(space, {"BK": 64, "BM": 128})
    assert len(held) == 4 and all(c["BK"] == 64 and c["BM"] == 128 for c in held)


def test_shape_buckets_round_symbolic_extents_up_to_quarter_octaves():
    assert [bucket(e) for e in (1, 16, 17, 1000, 4096)] == [16, 16, 32, 1024, 4096]
    assert [bucket(e) for e in (3000, 777, 1555, 333, 500, 513, 4097)] == \
        [3072, 896, 1792, 384, 512, 640, 5120]
    assert all(e <= bucket(e) < 1.25 * e + 16 for e in range(1, 20000, 7))
    x = np.zeros((1000, 17), np.float32)
    c = tc.compile(scaled, x, x, target="reference", BM=8)
    assert shape_bucket(c.specs, [x, x]) == ((1024, 32), (1024, 32))
    assert shape_bucket(c.specs, [tc.array((None, 8), tc.float32)] * 2) is None


def test_calls_in_one_bucket_are_priced_at_their_own_extents():
    # 2304^3 and 2560^3 share a bucket (and so a tuning record) but not the model's
    # pricing: each call's resolution is made at its extents
    picks = {}
    for n in (2304, 2560):
        a = np.zeros((n, n), ml_dtypes.bfloat16)
        c = np.zeros((n, n), np.float32)
        matmul.forget_resolutions()
        r = matmul.resolve([a, a, c], "cuda:sm_90")
        assert r.source == "model"
        picks[n] = {s.score for s in r.scores if s.score is not None}
        key = matmul.record_key([a, a, c], {}, shape_bucket(
            matmul.specialize([a, a, c], {"BM": 64, "BN": 64, "BK": 32}, False)[1],
            [a, a, c]), "cuda:sm_90")
        picks[n, "key"] = key
    assert picks[2304] != picks[2560]
    assert picks[2304, "key"] == picks[2560, "key"]


def test_an_empty_call_is_priced_and_compiles():
    # M = 0: no program runs, but the model still ranks the tiles (an empty extent is
    # priced as 1, where a workload of no programs would be rejected)
    a = np.zeros((0, 8), np.float32)
    b = np.zeros((8, 5), np.float32)
    c = np.zeros((0, 5), np.float32)
    matmul.forget_resolutions()
    r = matmul.resolve([a, b, c], "cuda:sm_90")
    assert r.source == "model"
    comp = tc.compile(matmul, a, b, c, target="cuda:sm_90")
    assert comp.selection.values == r.values
    matmul.forget_resolutions()


def test_fixed_default_and_reference_resolutions():
    x = np.zeros((40, 8), np.float32)
    assert tc.compile(scaled, x, x, target="reference", BM=4).selection.source == "fixed"
    r = tc.compile(scaled, x, x, target="reference").selection
    assert r.source == "default" and r.values == {"BM": 8}
    assert "no cost basis" in r.detail
    # Without extents nothing can be ranked: the declared defaults.
    spec = tc.array((None, None), tc.float32)
    r = tc.compile(matmul, spec, spec, spec, target="cuda:sm_90").selection
    assert r.source == "default" and r.values == {"BM": 64, "BN": 64, "BK": 32}


def _plan_score(cfg, shape, dtype):
    a = np.zeros(shape, dtype)
    c = np.zeros((shape[0], shape[1]), np.float32)
    comp_ = tc.compile(matmul, a, a, c, target="cuda:sm_90", **cfg)
    comp = begin(comp_.module, comp_.fn_name, "cuda:sm_90")
    from dataclasses import replace

    fn = comp_.module.lookup(comp_.fn_name)
    shapes = {s: shape[0] for s in fn.shape_symbols}
    comp.options = replace(default_options(comp.backend), shapes=shapes)
    plan = comp.run("plan").plan
    if not plan.groups or any(g.selected is None for g in plan.groups):
        return None
    from tilec.plan.split_price import best_split

    split = best_split(plan)  # a split of K, where one prices lower
    return sum(g.selected.kernel_score for g in plan.groups) if split is None else split.score


@pytest.mark.parametrize("n", [1000, 4096])
def test_the_model_pick_is_the_lowest_scoring_legal_configuration(n):
    a = np.zeros((n, n), ml_dtypes.bfloat16)
    c = np.zeros((n, n), np.float32)
    r = tc.compile(matmul, a, a, c, target="cuda:sm_90").selection
    assert r.source == "model"
    scores = {}
    for cfg in configurations(matmul.tunables):
        s = _plan_score(cfg, (n, n), ml_dtypes.bfloat16)
        if s is not None:
            scores[tuple(cfg.values())] = s
    best = min(scores, key=scores.get)
    assert tuple(r.values.values()) == best
    assert {tuple(s.config.values()): s.score for s in r.scores if s.score is not None} \
        == pytest.approx(scores)
    # Different extents, different picks: the skinny product takes small tiles.
    skinny = tc.compile(matmul, np.zeros((16, n), ml_dtypes.bfloat16), a,
                        np.zeros((16, n), np.float32), target="cuda:sm_90").selection
    assert skinny.values["BM"] < r.values["BM"]


def test_a_fixed_keyword_holds_while_the_rest_is_picked():
    a = np.zeros((4096, 4096), ml_dtypes.bfloat16)
    c = np.zeros((4096, 4096), np.float32)
    r = tc.compile(matmul, a, a, c, target="cuda:sm_90", BK=32).selection
    assert r.source == "model" and r.values["BK"] == 32 and r.fixed == ("BK",)
    assert all(s.config["BK"] == 32 for s in r.scores)


def test_a_threads_variant_changes_the_plan_and_the_kernel():
    spec = tc.array((None, None), tc.bfloat16)
    out = tc.array((None, None), tc.float32)
    sources = {}
    for t in (128, 256):
        c = matmul.compile(spec, spec, out, target="cuda:sm_90", variant={"threads": t},
                           BM=128, BN=128, BK=64)
        comp = c.compilation("emit")
        assert comp.plan.groups[0].selected.threads == t
        sources[t] = comp.source.text
    assert sources[128] != sources[256]
    opts = apply_variant(default_options(begin(c.module, c.fn_name, "cuda:sm_90").backend),
                         {"threads": 128, "wgmma_stages": 4, "max_copy_batch": 8})
    assert opts.planner.threads == 128 and opts.wgmma_stages == 4
    assert opts.planner.max_copy_batch == 8
    with pytest.raises(tc.ArgumentError, match="unknown plan-variant"):
        apply_variant(opts, {"warps": 4})


def test_a_repeated_call_takes_the_signature_cache_and_forgetting_clears_it():
    x32 = np.zeros((40, 8), np.float32)
    first = tc.compile(scaled, x32, x32, target="reference")
    assert tc.compile(scaled, x32, x32, target="reference") is first
    x64 = np.zeros((40, 8), np.float64)
    other = tc.compile(scaled, x64, x64, target="reference")
    assert other is not first and other.specs[0].dtype.name == "f64"
    fixed = tc.compile(scaled, x32, x32, target="reference", BM=16)
    assert fixed.constexprs["BM"] == 16 and fixed.selection.source == "fixed"
    assert tc.compile(scaled, x32, x32, target="reference").selection.source == "default"
    scaled.forget_resolutions()
    assert not scaled._fast and not scaled._resolutions
    assert tc.compile(scaled, x32, x32, target="reference") is first  # still compiled
