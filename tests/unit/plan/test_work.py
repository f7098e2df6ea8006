"""Realization-derived work: mean physical K and elided scalar domains."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tilec.plan as plan


@given(constant=st.integers(-50, 200), coeff=st.integers(-40, 40), extent=st.integers(1, 40),
       cap=st.one_of(st.none(), st.integers(1, 120)), other=st.integers(1, 4))
def test_mean_physical_k_matches_enumeration(constant: int, coeff: int, extent: int,
                                             cap: int | None, other: int) -> None:
    # one varying axis, either traversal direction, plus a non-varying axis
    expr = plan.AffineExtent(constant, (coeff, 0), (extent, other), cap)
    values = expr.values()
    got = plan.mean_physical_k(expr)
    if min(values) <= 0:
        assert got is None
    else:
        assert got == Fraction(sum(values), len(values))


def test_mean_physical_k_seed_case_and_limits() -> None:
    # K tile 16 stepping over a physical K of 45: 16, 16, 13
    assert plan.mean_physical_k(plan.AffineExtent(45, (-16,), (3,), 16)) == 15
    # the reverse traversal gives the same mean
    assert plan.mean_physical_k(plan.AffineExtent(45 - 32, (16,), (3,), 16)) == 15
    assert plan.mean_physical_k(plan.AffineExtent(7)) == 7
    assert plan.mean_physical_k(plan.AffineExtent(20, (), (), 16)) == 16
    # two varying axes are not supported: nominal K is kept by the caller
    assert plan.mean_physical_k(plan.AffineExtent(64, (-1, -2), (3, 3), 16)) is None
    # a non-positive physical extent is not a bounded K view
    assert plan.mean_physical_k(plan.AffineExtent(20, (-16,), (3,), 16)) is None
    with pytest.raises(ValueError):
        plan.AffineExtent(1, (1,), (0,))


def test_workload_mean_k_falls_back_to_nominal() -> None:
    w = plan.MatrixWorkload("m", 32, 64, 16, physical_k=plan.AffineExtent(20, (-16,), (3,), 16))
    assert w.mean_k == 16 and not w.physical_k_proved
    w2 = plan.MatrixWorkload("m", 32, 64, 16, physical_k=plan.AffineExtent(45, (-16,), (3,), 16))
    assert w2.mean_k == 15 and w2.physical_k_proved


def test_elided_elements_by_accumulator_mode() -> None:
    d = plan.ScalarDomains(yield_copy=6144, initializer=2048, sink=2048)
    assert plan.elided_elements(d, "nonresident") == 0
    assert plan.elided_elements(d, "resident") == 6144
    assert plan.elided_elements(d, "direct") == 10240
    with pytest.raises(ValueError):
        plan.elided_elements(d, "magic")


def test_workload_invariants() -> None:
    with pytest.raises(ValueError, match="divide"):
        plan.MatrixWorkload("m", 8, 8, 8, executions=6, recurrence=4)
    with pytest.raises(ValueError, match="direct output needs"):
        plan.MatrixWorkload("m", 8, 8, 8, direct_output=True)
    with pytest.raises(ValueError, match="duplicate"):
        w = plan.MatrixWorkload("m", 8, 8, 8)
        plan.GroupWorkload("g", (w, w))
    w = plan.MatrixWorkload("m", 32, 64, 32, dtype="bf16")
    assert w.staging_bytes() == {"A": 2048, "B": 4096, "C": 8192, "D": 8192}
