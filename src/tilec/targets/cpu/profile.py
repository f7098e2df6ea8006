"""The ``cpu`` profile: OpenMP programs and vector lanes, no subgroup matrix atoms.

A CPU group is one OpenMP worker running one program; there is no group-shared
memory level and no cooperative subgroup, so the matrix mapping family does not
apply: the target's own realization plan (``plan.py``) maps programs onto
OpenMP threads and matrix products onto register micro-tiles of vector lanes,
with the numbers below.
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
            Fact("vector_lanes_f64", 4, "prior", "AVX2-class 256-bit vectors; not queried"),
            Fact("register_block_rows", 6, "prior",
                 "6 x 2 vectors of accumulators = 12 of the 16 AVX registers, leaving room "
                 "for the two B vectors and a broadcast A value (the BLIS-style micro-tile)"),
            Fact("register_block_vectors", 2, "prior", "see register_block_rows"),
            Fact("reduction_lanes_32", 16, "prior",
                 "two 256-bit vectors of 32-bit partials: enough independent adds to hide "
                 "the add latency"),
            Fact("reduction_lanes_64", 8, "prior", "two 256-bit vectors of 64-bit partials"),
            Fact("parallel_work", 1 << 18, "prior",
                 "estimated element operations (about 0.1 ms) below which waking the OpenMP "
                 "workers costs more than it saves on an idle machine"),
            Fact("omp_chunks_per_thread", 8, "prior",
                 "dynamic chunks per thread: programs differ in cost (ragged edge tiles) and "
                 "the machine may be shared, so a static split waits for the slowest"),
            Fact("stack_budget", 256 * 1024, "prior",
                 "bytes of tile arrays a call keeps on the stack (OpenMP worker stacks can be "
                 "small); above it they are thread-local"),
        ),
    )
