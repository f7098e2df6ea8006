"""Execution levels, cohort scopes and ExecStructure prefix cuts."""

from __future__ import annotations

import pytest

import tilec.exec as ex


def test_levels_are_ordered_and_named() -> None:
    assert [lv.name for lv in ex.LEVELS] == ["grid", "group", "subgroup", "lane"]
    assert ex.GRID.encloses(ex.LANE) and not ex.LANE.encloses(ex.GROUP)
    assert ex.level_named("subgroup") is ex.SUBGROUP
    with pytest.raises(ValueError, match="known: grid"):
        ex.level_named("warp")


def test_structure_cuts_keep_level_identities() -> None:
    st = ex.ExecStructure.for_group(12, 8, 32, cohorts=(ex.WARPGROUP,))
    assert st.identity == ("grid", "group", "subgroup", "lane")
    assert st.threads_per_group == 256 and st.subgroups_per_group == 8 and st.programs == 12
    outer, inner = st.cut("group")
    assert outer.identity == ("grid", "group") and inner.identity == ("subgroup", "lane")
    assert inner.entry(ex.SUBGROUP).level is ex.SUBGROUP
    assert outer.cohorts == ()
    assert st.prefix("subgroup").cohorts == (ex.WARPGROUP,)
    assert st.instances_below("grid") == 256


def test_cohorts_must_divide_and_levels_must_be_ordered() -> None:
    # a warpgroup does not fit 6 warps: for_group drops it rather than mislabel
    assert ex.ExecStructure.for_group(1, 6, 32, cohorts=(ex.WARPGROUP,)).cohorts == ()
    with pytest.raises(ValueError, match="does not divide"):
        ex.ExecStructure((ex.LevelExtent(ex.GROUP, 1), ex.LevelExtent(ex.SUBGROUP, 6),
                          ex.LevelExtent(ex.LANE, 32)), (ex.WARPGROUP,))
    with pytest.raises(ValueError, match="ordered"):
        ex.ExecStructure((ex.LevelExtent(ex.LANE, 32), ex.LevelExtent(ex.GRID, 4)))
    with pytest.raises(KeyError):
        ex.ExecStructure((ex.LevelExtent(ex.GRID, 4),)).entry("subgroup")


def test_unknown_extents_propagate() -> None:
    st = ex.ExecStructure.for_group(None, 4, 32)
    assert st.programs is None and st.threads_per_group == 128
    assert "grid=?" in str(st)
