"""The comparison rules: NaN and infinity positions, bits where exact, bounds elsewhere."""

from __future__ import annotations

import numpy as np

from tilec.testing.fuzz.compare import compare_arrays

Z = np.zeros(3)


def test_nan_positions_must_match() -> None:
    want = np.array([1.0, np.nan, 3.0], np.float32)
    assert compare_arrays(want.copy(), want, Z).ok
    got = np.array([1.0, 2.0, 3.0], np.float32)
    assert compare_arrays(got, want, Z).bad == 1
    assert compare_arrays(got, want, np.array([0, 1e9, 0])).bad == 1  # even when bounded


def test_a_nan_payload_is_not_compared() -> None:
    want = np.array([np.nan], np.float32)
    got = np.array([0x7FC00001], np.uint32).view(np.float32)
    assert compare_arrays(got, want, np.zeros(1)).ok


def test_exact_elements_compare_bits_signed_zero_included() -> None:
    want = np.array([0.0, 1.0, -2.0], np.float32)
    got = np.array([-0.0, 1.0, -2.0], np.float32)
    v = compare_arrays(got, want, Z)
    assert v.bad == 1 and "bit-exact" in v.detail
    assert compare_arrays(np.nextafter(want, np.float32(9)), want, Z).bad == 3


def test_bounded_elements_use_the_bound_times_the_factor() -> None:
    want = np.array([1.0, 2.0, 3.0], np.float32)
    got = want + np.float32(1e-3)
    e = np.array([1e-3, 1e-3, 1e-3]) * 0.6
    assert compare_arrays(got, want, e, 1.0).bad == 3
    assert compare_arrays(got, want, e, 2.0).ok


def test_infinities_must_match_in_position_and_sign() -> None:
    want = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert compare_arrays(want.copy(), want, np.array([1.0, 1.0, 1.0])).ok
    got = np.array([-np.inf, -np.inf, np.inf], np.float32)
    assert compare_arrays(got, want, np.array([1.0, 1.0, 1.0])).bad == 2


def test_unknown_elements_are_skipped_and_counted() -> None:
    want = np.array([1.0, 2.0, 3.0], np.float32)
    got = np.array([9.0, np.nan, 3.0], np.float32)
    v = compare_arrays(got, want, np.array([np.inf, np.inf, 0.0]))
    assert v.ok and v.unknown == 2 and v.exact == 1


def test_integers_are_exact() -> None:
    want = np.array([1, -7, 3], np.int32)
    assert compare_arrays(want.copy(), want, Z).ok
    assert compare_arrays(np.array([1, -7, 4], np.int32), want, Z).bad == 1


def test_verdict_names_the_broken_rules() -> None:
    want = np.array([1.0, np.nan, np.inf, 2.0], np.float32)
    got = np.array([1.5, 0.0, np.inf, 2.0], np.float32)
    v = compare_arrays(got, want, np.array([0.0, 0.0, 0.0, 0.0]))
    assert v.kinds == ("nan", "bits")
    v = compare_arrays(np.array([2.5], np.float32), np.array([2.0], np.float32), np.array([0.1]))
    assert v.kinds == ("bound",)
