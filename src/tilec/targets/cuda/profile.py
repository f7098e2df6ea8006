"""NVIDIA profiles: ``cuda:sm_90`` (Hopper, H200 here) and ``cuda:sm_80`` (Ampere).

Both expose the independent-subgroup ``mma.sync`` family and an exact-FP32 lane
FFMA atom. Hopper's warpgroup ``wgmma`` (sm_90a) is a cohort-collective family
that is not in this catalog yet; the warpgroup cohort scope is declared so the
execution structure can already name it. Atom ids are the Machine-form
catalog ids of ``tilec.ir.atoms`` (``ffma`` is the lane realization there).
"""

from __future__ import annotations

from tilec.exec.levels import WARPGROUP
from tilec.exec.profiles.base import Fact, FragmentCounts, MatrixAtom, TargetProfile

__all__ = ["cuda_atoms", "sm_90", "sm_80"]

_PTX = "PTX ISA, warp-level matrix fragments for mma.sync (m16n8k16 / m16n8k8)"
_GUIDE = "CUDA C++ Programming Guide, compute capability feature and limit tables"


def cuda_atoms() -> tuple[MatrixAtom, ...]:
    """The ``mma.sync`` atoms and the exact-FP32 lane FFMA atom shared by sm_80 and sm_90."""
    return (
        MatrixAtom(
            id="mma.m16n8k16.bf16", family="mma_sync", shape=(16, 8, 16),
            input_dtypes=("bf16",), acc_dtype="f32", precision="exact", scope="subgroup",
            # per lane: A 8 halves in 4 registers, B 4 halves in 2, C/D 4 f32
            fragments=FragmentCounts(4, 2, 4), realization="register_fragments", source=_PTX),
        MatrixAtom(
            id="mma.m16n8k16.f16", family="mma_sync", shape=(16, 8, 16),
            input_dtypes=("f16",), acc_dtype="f32", precision="exact", scope="subgroup",
            fragments=FragmentCounts(4, 2, 4), realization="register_fragments", source=_PTX),
        MatrixAtom(
            id="mma.m16n8k8.tf32", family="mma_sync", shape=(16, 8, 8),
            input_dtypes=("f32",), acc_dtype="f32", precision="tf32", scope="subgroup",
            # per lane: A 4 tf32, B 2 tf32, C/D 4 f32 (one register each)
            fragments=FragmentCounts(4, 2, 4), realization="register_fragments", source=_PTX),
        MatrixAtom(
            id="ffma", family="lane_ffma", shape=(4, 8, 1),
            input_dtypes=("f32",), acc_dtype="f32", precision="exact", scope="subgroup",
            # lane l owns row l // 8, column l % 8: one A value, one B value, one accumulator
            fragments=FragmentCounts(1, 1, 1), realization="register_fragments",
            source="tilec: 32 lanes each issue one IEEE FP32 fma per K step (exact products)"),
    )


_ATOMIC_DTYPES = ("i32", "i64", "index", "f32", "f64", "u32")
"""Memory element types the CUDA emitter prints atomics for."""

_EXCHANGE_DTYPES = ("i32", "i64", "index", "f32", "f64", "u32")
"""Memory element types the CUDA emitter prints ``atomicExch``/``atomicCAS`` for (on the
32- or 64-bit word of the bit pattern)."""


def _common_facts(smem_unit_kb: int, smem_group_kb: int, units: int, unit_source: str
                  ) -> tuple[Fact, ...]:
    return (
        Fact("subgroup_width", 32, "spec", _GUIDE + ": warp size"),
        Fact("max_threads_per_group", 1024, "spec", _GUIDE + ": threads per block"),
        Fact("shared_bytes_per_unit", smem_unit_kb * 1024, "spec",
             _GUIDE + f": {smem_unit_kb} KB shared memory per SM"),
        Fact("shared_bytes_per_group", smem_group_kb * 1024, "spec",
             _GUIDE + f": {smem_group_kb} KB per block with the dynamic shared memory opt-in "
             "(48 KB without it)"),
        Fact("registers_per_unit", 65536, "spec", _GUIDE + ": 64K 32-bit registers per SM"),
        Fact("max_registers_per_lane", 255, "spec", _GUIDE + ": 255 registers per thread"),
        Fact("max_resident_subgroups_per_unit", 64, "spec", _GUIDE + ": 64 resident warps per SM"),
        Fact("compute_units", units, "spec", unit_source),
        Fact("concurrent_subgroup_prior", units * 64, "prior",
             f"{units} SMs x 64 resident warps; an upper bound used as a smooth wave prior, "
             "not measured occupancy"),
        Fact("max_resident_groups_per_unit", 32, "spec", _GUIDE + ": 32 resident blocks per SM"),
        Fact("register_allocation_unit", 8, "spec",
             "CUDA occupancy calculator: registers are allocated per warp in units of 256, "
             "i.e. a lane's count is rounded up to a multiple of 8"),
        Fact("reference_threads", 256, "prior", "the reference launch width (not a cap)"),
        Fact("atomic_dtypes", _ATOMIC_DTYPES, "spec",
             _GUIDE + ": atomicAdd, atomicMax and atomicMin on 32- and 64-bit words, signed "
             "and (32-bit) unsigned (tilec builds float max/min from atomicCAS); 8- and 16-bit "
             "types have none here"),
        Fact("exchange_dtypes", _EXCHANGE_DTYPES, "spec",
             _GUIDE + ": atomicExch and atomicCAS on 32- and 64-bit words (tilec exchanges "
             "the bit pattern of a float or a signed or unsigned integer); 8- and 16-bit "
             "types have none here"),
    )


_BUDGET_SM90 = Fact(
    "default_fragment_budget", 192, "measured",
    "H200 plan sweep of lib.matmul 4096^3 (benchmarks/gemm_plans.py, 2026-11-30): 64x64 bf16 "
    "warp tiles (160 fragment scalars per lane) built with 210 registers and no spills and "
    "were the fastest plan (0.638 ms); 192 leaves about 60 registers for addresses")
_BUDGET_SM80 = Fact(
    "default_fragment_budget", 192, "prior",
    "the sm_90 measured budget; sm_80 has the same 255-register lane cap and 64K register file")


def sm_90() -> TargetProfile:
    """Hopper (sm_90); the device-specific numbers are the H200's."""
    return TargetProfile(
        name="cuda:sm_90", family="cuda",
        description="NVIDIA Hopper sm_90 (H200 numbers), wgmma (sm_90a) + mma.sync + exact "
                    "FP32 FFMA",
        level_names=("grid", "CTA", "warp", "thread"), subgroup_width=32,
        max_threads_per_group=1024, shared_bytes_per_group=227 * 1024,
        shared_bytes_per_unit=228 * 1024, registers_per_unit=65536, max_registers_per_lane=255,
        default_fragment_budget=192, concurrent_subgroup_prior=132 * 64, reference_threads=256,
        atoms=cuda_atoms(), default_cost_basis="cuda_mma_v6", cohorts=(WARPGROUP,),
        compute_units=132, max_resident_subgroups_per_unit=64, max_resident_groups_per_unit=32,
        register_allocation_unit=8, warpgroup_mma=True, atomic_dtypes=_ATOMIC_DTYPES,
        exchange_dtypes=_EXCHANGE_DTYPES,
        shared_alignment=128, arch="sm_90", async_copies=True, tensor_copies=True,
        facts=_common_facts(228, 227, 132, "H200 spec: 132 SMs") + (_BUDGET_SM90,)
        + (Fact("warpgroup", 4, "spec", "PTX ISA: a warpgroup is 4 contiguous warps (wgmma)"),),
    )


def sm_80() -> TargetProfile:
    """Ampere (sm_80); the device-specific numbers are the A100's, a prior for other parts."""
    return TargetProfile(
        name="cuda:sm_80", family="cuda",
        description="NVIDIA Ampere sm_80 (A100 numbers), mma.sync + exact FP32 FFMA",
        level_names=("grid", "CTA", "warp", "thread"), subgroup_width=32,
        max_threads_per_group=1024, shared_bytes_per_group=163 * 1024,
        shared_bytes_per_unit=164 * 1024, registers_per_unit=65536, max_registers_per_lane=255,
        default_fragment_budget=192, concurrent_subgroup_prior=108 * 64, reference_threads=256,
        atoms=cuda_atoms(), default_cost_basis="cuda_mma_v6", compute_units=108,
        max_resident_subgroups_per_unit=64, max_resident_groups_per_unit=32,
        register_allocation_unit=8, atomic_dtypes=_ATOMIC_DTYPES,
        exchange_dtypes=_EXCHANGE_DTYPES, shared_alignment=128,
        arch="sm_80", async_copies=True,
        facts=_common_facts(164, 163, 108, "A100 spec: 108 SMs (a prior for other sm_80 parts)")
        + (_BUDGET_SM80,),
    )
