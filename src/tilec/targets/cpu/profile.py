"""The ``cpu`` profile: OpenMP programs and vector lanes, no subgroup matrix atoms.

A CPU group is one OpenMP worker running one program; there is no group-shared
memory level and no cooperative subgroup, so the matrix mapping family does not
apply and matrix operations use the checked scalar reference.
"""

from __future__ import annotations

from tilec.exec.profiles.base import Fact, TargetProfile

__all__ = ["cpu"]


def cpu() -> TargetProfile:
    """The portable C/OpenMP target."""
    return TargetProfile(
        name="cpu", family="cpu",
        description="CPU: C + OpenMP across programs, vector lanes within one",
        level_names=("omp iteration", "worker", "-", "vector lane"), subgroup_width=1,
        max_threads_per_group=1, shared_bytes_per_group=None, shared_bytes_per_unit=None,
        registers_per_unit=None, max_registers_per_lane=None, default_fragment_budget=0,
        concurrent_subgroup_prior=16, reference_threads=1, atoms=(), default_cost_basis=None,
        facts=(
            Fact("max_threads_per_group", 1, "spec", "tilec: one OpenMP worker runs a program"),
            Fact("concurrent_subgroup_prior", 16, "prior",
                 "a typical worker count; the real count is the OpenMP runtime's"),
            Fact("vector_lanes_f32", 8, "prior", "AVX2-class 256-bit vectors; not queried"),
        ),
    )
