"""Apple profile ``metal:m1``: the 8x8 FP32 SIMD-group matrix atom and the MPP family.

MPP (Metal Performance Primitives tensor operations) is catalogued twice: the
independent-subgroup cohort (one SIMD-group per operation, what the matrix
mapping family enumerates) and the whole-group collective (all SIMD-groups of
the threadgroup in one operation), whose internal distribution is opaque and
which the family does not enumerate. Both share the seed's descriptor rule.
"""

from __future__ import annotations

from tilec.exec.profiles.base import DescriptorRule, Fact, FragmentCounts, MatrixAtom, TargetProfile

__all__ = ["MPP_DESCRIPTOR", "metal_atoms", "m1"]

_MSL = "Metal Shading Language specification, simdgroup_matrix (8x8)"
_MPP = "seed 000: macOS 26.5 MPP headers as probed by the seed's native experiment"
_FEATURES = "Apple Metal feature set tables (Apple7 / M1)"

MPP_DESCRIPTOR = DescriptorRule(mn_multiple=8, one_of_mn_multiple=16, static_k_multiple=16,
                                dynamic_k_tails=True)
"""MPP FP32 matmul2d: M, N multiples of 8, one of them of 16; a static K a multiple of 16."""


def metal_atoms() -> tuple[MatrixAtom, ...]:
    """The SIMD-group 8x8 FP32 atom and the two MPP scopes."""
    return (
        MatrixAtom(
            id="simdgroup.8x8.f32", family="simdgroup", shape=(8, 8, 8),
            input_dtypes=("f32",), acc_dtype="f32", precision="exact", scope="subgroup",
            # 64 elements over 32 lanes: 2 scalars per lane for each of A, B and C
            fragments=FragmentCounts(2, 2, 2), realization="register_fragments", source=_MSL),
        MatrixAtom(
            id="mpp.matmul2d.f32.subgroup", family="mpp", shape=(8, 8, 8),
            input_dtypes=("f32",), acc_dtype="f32", precision="exact", scope="subgroup",
            # memory operands: only the output cooperative tensor is explicit state
            fragments=FragmentCounts(0, 0, 2), realization="memory_operands",
            descriptor=MPP_DESCRIPTOR, source=_MPP),
        MatrixAtom(
            id="mpp.matmul2d.f32.group", family="mpp", shape=(8, 8, 8),
            input_dtypes=("f32",), acc_dtype="f32", precision="exact", scope="group",
            fragments=FragmentCounts(0, 0, 2), realization="memory_operands",
            descriptor=MPP_DESCRIPTOR, source=_MPP),
    )


def m1() -> TargetProfile:
    """Apple M1-class GPU (emission only here: no Apple GPU to measure on)."""
    return TargetProfile(
        name="metal:m1", family="metal",
        description="Apple M1-class GPU: simdgroup_matrix 8x8 FP32 and MPP tensor operations",
        level_names=("grid", "threadgroup", "simdgroup", "thread"), subgroup_width=32,
        max_threads_per_group=1024, shared_bytes_per_group=32 * 1024,
        shared_bytes_per_unit=None, registers_per_unit=None, max_registers_per_lane=None,
        default_fragment_budget=64, concurrent_subgroup_prior=512, reference_threads=256,
        atoms=metal_atoms(), default_cost_basis="metal_simdgroup_reference_v1",
        shared_alignment=16, atomic_dtypes=(), exchange_dtypes=("i32", "f32", "u32"), f64=False,
        facts=(
            Fact("subgroup_width", 32, "spec", _FEATURES + ": SIMD-group width 32"),
            Fact("max_threads_per_group", 1024, "spec", _FEATURES + ": threads per threadgroup"),
            Fact("shared_bytes_per_group", 32 * 1024, "spec",
                 _FEATURES + ": 32 KiB threadgroup memory"),
            Fact("default_fragment_budget", 64, "prior",
                 "seed 000: the unchanged 64-scalar compiler-state budget"),
            Fact("concurrent_subgroup_prior", 512, "prior",
                 "seed 000: Q=512, an M1-class replaceable prior, not queried occupancy"),
            Fact("reference_threads", 256, "prior",
                 "seed 000: the reference launch width 256 is not a hardware cap"),
            Fact("f64", False, "spec", "Metal Shading Language: no double type"),
            Fact("atomic_dtypes", (), "prior",
                 "tilec: the Metal emitter prints no add, max or min atomics yet (MSL has "
                 "32-bit atomic_int and atomic_uint, and atomic_float add on device memory; "
                 "M1 has no 64-bit atomics), so the lowering refuses them for this profile"),
            Fact("exchange_dtypes", ("i32", "f32", "u32"), "spec",
                 "Metal Shading Language: atomic_exchange_explicit and "
                 "atomic_compare_exchange_weak_explicit on 32-bit atomic_uint (tilec "
                 "exchanges the bit pattern of a signed or unsigned int or a float); M1 has "
                 "no 64-bit atomics"),
        ),
    )
