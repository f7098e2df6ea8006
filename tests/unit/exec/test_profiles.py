"""Target profiles: facts with provenance, atom catalogs and descriptor rules."""

from __future__ import annotations

import pytest

import tilec.exec as ex


@pytest.mark.parametrize("name", ["cuda:sm_90", "cuda:sm_80", "metal:m1", "cpu"])
def test_every_profile_number_has_a_fact(name: str) -> None:
    p = ex.get_profile(name)
    assert p.name == name
    for f in p.facts:
        assert f.kind in ex.FACT_KINDS and f.source
        if hasattr(p, f.name):
            assert getattr(p, f.name) == f.value, f.name
    # deterministic and frozen
    assert ex.get_profile(name) == p
    with pytest.raises(AttributeError):
        p.subgroup_width = 7  # type: ignore[misc]


def test_nvidia_facts() -> None:
    h = ex.get_profile("cuda:sm_90")
    a = ex.get_profile("cuda:sm_80")
    assert h.subgroup_width == 32 and h.max_threads_per_group == 1024
    assert h.shared_bytes_per_group == 227 * 1024 and h.shared_bytes_per_unit == 228 * 1024
    assert a.shared_bytes_per_group == 163 * 1024 and a.shared_bytes_per_unit == 164 * 1024
    assert h.registers_per_unit == 65536 and h.max_registers_per_lane == 255
    assert h.fact("compute_units").value == 132 and "H200 spec" in h.fact("compute_units").source
    assert h.fact("concurrent_subgroup_prior").kind == "prior"
    bf = h.atom("mma.m16n8k16.bf16")
    assert bf.shape == (16, 8, 16) and bf.fragments.rectangle(1, 1) == 4 + 2 + 4
    tf = h.atom("mma.m16n8k8.tf32")
    assert tf.shape == (16, 8, 8) and (tf.fragments.a, tf.fragments.b, tf.fragments.c) == (4, 2, 4)
    assert not tf.accepts("f32", "exact") and tf.accepts("f32", "tf32")
    ffma = h.atom("ffma")
    assert ffma.accepts("f32", "exact") and ffma.accepts("f32", "tf32")
    assert h.cohorts == (ex.WARPGROUP,)


def test_metal_facts_and_mpp_descriptor() -> None:
    p = ex.get_profile("metal:m1")
    assert p.subgroup_width == 32 and p.max_threads_per_group == 1024
    assert p.shared_bytes_per_group == 32 * 1024 and p.concurrent_subgroup_prior == 512
    sg = p.atom("simdgroup.8x8.f32")
    assert sg.fragments.rectangle(4, 2) == 2 * (4 * 2 + 4 + 2)
    rule = p.atom("mpp.matmul2d.f32.subgroup").descriptor
    assert rule.check(8, 16, 16) is None and rule.check(16, 8, 32) is None
    assert "multiple of 16" in rule.check(8, 8, 16)
    assert "multiples of 8" in rule.check(12, 16, 16)
    assert "static K" in rule.check(16, 16, 8)
    assert rule.check(16, 16, 8, k_is_static=False) is None
    assert p.atom("mpp.matmul2d.f32.subgroup").minimum_fragment_scalars == 4
    assert sg.minimum_fragment_scalars == 6


def test_structure_from_profile_requires_whole_subgroups() -> None:
    p = ex.get_profile("metal:m1")
    assert p.structure(128, 3).subgroups_per_group == 4
    with pytest.raises(ValueError, match="whole number"):
        p.structure(100)
    with pytest.raises(ValueError, match="known: cuda:sm_90"):
        ex.get_profile("cuda:sm_75")


def test_fact_validation() -> None:
    with pytest.raises(ValueError, match="kind"):
        ex.Fact("x", 1, "guess", "here")
    with pytest.raises(ValueError, match="source"):
        ex.Fact("x", 1, "prior", "")


def test_runtime_target_aliases() -> None:
    assert ex.get_profile("cuda").name == "cuda:sm_90"
    assert ex.get_profile("reference").name == "cpu"
    assert ex.resolve_profile_name("metal:m1") == "metal:m1"


def test_cuda_occupancy_limits_and_fragment_budget() -> None:
    for name in ("cuda:sm_90", "cuda:sm_80"):
        p = ex.get_profile(name)
        assert p.default_cost_basis == "cuda_mma_v6"
        assert p.max_resident_subgroups_per_unit == 64 and p.max_resident_groups_per_unit == 32
        assert p.register_allocation_unit == 8
        for field in ("max_resident_subgroups_per_unit", "max_resident_groups_per_unit",
                      "register_allocation_unit"):
            assert p.fact(field).kind == "spec"
        # 64x64 bf16 warp tiles: 128 accumulator + 16 A + 16 B scalars per lane fit the budget
        bf = p.atom("mma.m16n8k16.bf16")
        assert p.default_fragment_budget == 192 >= bf.fragments.rectangle(4, 8) == 160
    assert ex.get_profile("cuda:sm_90").fact("default_fragment_budget").kind == "measured"
    assert ex.get_profile("cuda:sm_80").fact("default_fragment_budget").kind == "prior"
