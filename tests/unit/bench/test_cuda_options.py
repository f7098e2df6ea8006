"""``benchmarks/cuda_options.py``, the planner families against the model's pick: its
``--dry-run`` (no GPU) compiles a family's cases for ``cuda:sm_90`` and says whether the
option changed each CUDA source, and its case table names only plan-variant options with a
value other than their default, so that the script cannot rot unnoticed."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

from tilec.frontend.tunables import VARIANT_FIELDS
from tilec.plan import PlannerOptions

pytestmark = pytest.mark.usefixtures("private_cache")

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "cuda_options.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("cuda_options", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(spec.name, None)


def test_every_family_is_a_planner_option_set_off_its_default(bench) -> None:
    fields = {f.name: f.default for f in dataclasses.fields(PlannerOptions)}
    assert set(bench.FAMILIES) == {
        "forward_snapshots", "bounded_k_views", "bounded_mn_views", "fuse_matrix_epilogues",
        "coalesce_group_barriers", "elide_independent_subgroup_barriers", "max_copy_batch",
        "program_traversal", "plan_ring_versions", "shared_ssa"}
    for case in bench.CASES:
        assert case.option in VARIANT_FIELDS and case.option in fields, case.option
        assert case.value != fields[case.option], f"{case.label}: the default changes nothing"
        assert case.option not in case.base, f"{case.label}: the base sets the option"
    for family in bench.FAMILIES:
        assert 1 <= sum(c.option == family and c.quick for c in bench.CASES), family


def test_dry_run_of_one_family_says_what_changed(bench, capsys) -> None:
    assert bench.main(["--dry-run", "--families", "coalesce_group_barriers"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("changed" in ln and "UNCHANGED" not in ln for ln in lines)
    assert {ln.split()[1] for ln in lines} == {"lib.layernorm", "lib.softmax"}


def test_only_the_option_differs_between_the_arms(bench) -> None:
    (case,) = [c for c in bench.selected_cases("max_copy_batch", quick=True)]
    arms = bench.compile_arms(case, bench.DRY_TARGET)
    assert arms.changed
    assert arms.variant == {**arms.base, "max_copy_batch": 8}


def test_a_family_that_changes_nothing_fails_the_dry_run(bench, capsys) -> None:
    (case,) = bench.selected_cases("coalesce_group_barriers", quick=True)
    idle = dataclasses.replace(case, value=True)  # the default: the same program
    assert bench.dry_run([idle]) == 1
    out = capsys.readouterr().out
    assert "UNCHANGED" in out
    assert "families that changed no kernel's source: coalesce_group_barriers" in out


def test_unknown_families_are_refused(bench) -> None:
    with pytest.raises(SystemExit, match="unknown families no_such_option"):
        bench.selected_cases("coalesce_group_barriers,no_such_option", quick=False)
