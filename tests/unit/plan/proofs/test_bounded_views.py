"""The bounded M/N views fact (``plan/proofs/bounded_views.py``) as plain data: actual
extents per program and their composition with subgroup rectangles. The proof on kernels,
with its counterexamples, is tested with its realization in
``tests/unit/lower/test_bounded_mn.py``."""

from __future__ import annotations

from tilec.plan.proofs import BoundedAxis, BoundedViews, subgroup_extents


def _axis(extent, tile=32, origin=0, coeffs=((0, 32),), grid=(2, 3), stored=None
          ) -> BoundedAxis:
    return BoundedAxis("M", tile, extent, origin, coeffs,
                       extent if stored is None else stored, grid)


def test_actual_extents_per_program() -> None:
    ax = _axis(40)
    assert ax.actuals() == [32, 8]
    assert ax.actual((1, 2)) == 8
    assert "stored = clamp(40 - 32*p0, 0, 32)" in ax.describe()
    assert "edge extents [8]" in ax.describe()
    assert _axis(64).actuals() == [32, 32] and "no edge" in _axis(64).describe()
    # an origin past the array: an empty program
    assert _axis(40, origin=40, coeffs=()).actuals() == [0]


def test_the_stored_extent_is_the_stores() -> None:
    ax = _axis(40, stored=48)
    assert ax.actuals() == [32, 8] and ax.storeds() == [32, 16]
    # program 1 stores 16 rows: its first subgroup of 16 is full, its second empty
    assert subgroup_extents(ax, 16, 2) == (1, 0)


def test_symbolic_extents_have_no_values() -> None:
    ax = _axis("M")
    assert ax.actual((0, 0)) is None and ax.actuals() is None
    assert subgroup_extents(ax, 16, 2) is None


def test_subgroup_rectangles_compose_with_the_program_origin() -> None:
    # programs of 32 rows: 32 and 8 valid; two subgroups of 16 rows each: program 1's
    # second subgroup is empty and its first partial
    assert subgroup_extents(_axis(40), 16, 2) == (1, 1)
    # four subgroups of 8: program 1 has one full and three empty
    assert subgroup_extents(_axis(40), 8, 4) == (3, 0)
    assert subgroup_extents(_axis(64), 16, 2) == (0, 0)


def test_the_fact_names_its_axes() -> None:
    f = BoundedViews(_axis(40), None, ("N: the store is not bounded",))
    assert f.proved and f.axes == "m"
    assert "N: the store is not bounded" in f.describe()
    assert not BoundedViews(None, None).proved
    assert f.to_json()["m"]["actuals"] == [32, 8]
