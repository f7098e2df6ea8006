"""The refit: NNLS, weights recovered from synthetic timings, leave-one-out regret, and the
score terms of a real plan summing to its score."""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import begin, default_options
from tilec.lib.matmul import matmul
from tilec.tuning import SampleSet, fit, nnls, plan_terms, refit, sample_sets_from_files


def test_nnls_solves_non_negative_least_squares():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.standard_normal((30, 6))
        b = rng.standard_normal(30)
        x = nnls(a, b)
        assert (x >= 0).all()
        # KKT: the gradient is zero on the free variables and pushes the others against 0
        g = a.T @ (a @ x - b)
        assert np.allclose(g[x > 0], 0, atol=1e-8) and (g[x == 0] >= -1e-8).all()
    a = np.eye(3)
    assert np.allclose(nnls(a, np.array([1.0, -2.0, 3.0])), [1, 0, 3])


def _synthetic(true, n_sets=6, per=12, seed=1):
    rng = np.random.default_rng(seed)
    names = list(true)
    sets = []
    for s in range(n_sets):
        terms = [dict(zip(names, rng.uniform(0.1, 2.0, len(names)))) for _ in range(per)]
        times = [sum(true[k] * t[k] for k in names) for t in terms]
        sets.append(SampleSet(f"shape{s}", [f"c{i}" for i in range(per)], terms, times))
    return sets


def test_the_fit_recovers_the_weights_and_removes_the_regret():
    true = {"math": 2.0, "fragment_loads": 0.5, "warp_steps": 0.0, "staging": 3.0}
    sets = _synthetic(true)
    w = fit(sets)
    assert w == pytest.approx(true, abs=1e-6)
    report = refit(sets)
    assert report.summary("after") == pytest.approx((0.0, 0.0), abs=1e-9)
    assert report.summary("before")[1] > 0  # unit weights pick wrongly somewhere
    assert "mean / max regret" in report.render()


def test_sample_sets_come_from_records_and_benchmark_files(tmp_path):
    cands = [{"label": f"c{i}", "terms": {"math": float(i + 1)}, "search_ms": float(i + 1)}
             for i in range(3)]
    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps({"schema": 1, "key": {"kernel": "matmul", "shapes": "s",
                                                    "target": "cuda"},
                               "selected": {"config": {}}, "candidates": cands}))
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"kernel": "k", "shape": [1, 2], "dtype": "bf16",
                                  "samples": cands}, {"kernel": "no samples"}]))
    sets = sample_sets_from_files([rec, bench])
    assert [len(s.times) for s in sets] == [3, 3]
    assert sets[0].labels == ["c0", "c1", "c2"]


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (777, 1555, 333)])
def test_the_terms_of_a_plan_sum_to_its_score(shape):
    m, n, k = shape
    a = np.zeros((m, k), ml_dtypes.bfloat16)
    b = np.zeros((k, n), ml_dtypes.bfloat16)
    c = np.zeros((m, n), np.float32)
    for cfg in ({"BM": 128, "BN": 256, "BK": 64}, {"BM": 32, "BN": 64, "BK": 32}):
        comp_ = tc.compile(matmul, a, b, c, target="cuda:sm_90", **cfg)
        comp = begin(comp_.module, comp_.fn_name, "cuda:sm_90")
        from dataclasses import replace

        from tilec.plan import shapes_from_arrays

        shapes = shapes_from_arrays(comp_.module.lookup(comp_.fn_name), [a, b, c])
        comp.options = replace(default_options(comp.backend), shapes=shapes)
        plan = comp.run("plan").plan
        terms = plan_terms(plan)
        assert set(terms) >= {"math", "warp_steps", "staging"}
        assert sum(terms.values()) == pytest.approx(
            sum(g.selected.kernel_score for g in plan.groups), rel=1e-9)


def test_weights_are_reported_relative_to_the_basis_and_an_unused_term_keeps_its_price():
    sets = _synthetic({"math": 2.0, "staging": 2.0})  # the basis right up to one factor
    report = refit(sets)
    assert report.unit == pytest.approx(2.0)
    assert report.to_json()["relative_weights"] == pytest.approx({"math": 1.0, "staging": 1.0})
    assert "math                1.000" in report.render()
    # a term no set has (a held-out set alone may have it) is priced at the shared unit
    w = fit(sets, ["math", "staging", "tail"])
    assert w["tail"] == pytest.approx(2.0) and w["math"] == pytest.approx(2.0)
