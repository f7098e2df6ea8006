"""Cost bases: one versioned module each, selected by name so features are never mislabeled.

| basis                          | target family | atom families        |
| ------------------------------ | ------------- | -------------------- |
| ``metal_simdgroup_reference_v1`` | metal       | simdgroup (8x8 FP32) |
| ``metal_mpp_memory_v3``          | metal       | mpp                  |
| ``metal_cross_family_v1``        | metal       | simdgroup, mpp, scalar |
| ``cuda_mma_v1``                  | cuda        | mma_sync, lane_ffma  |
| ``cuda_mma_v2``                  | cuda        | mma_sync, lane_ffma  |
| ``cuda_mma_v3``                  | cuda        | mma_sync, lane_ffma  |
| ``cuda_mma_v4``                  | cuda        | mma_sync, lane_ffma  |
| ``cuda_mma_v5``                  | cuda        | mma_sync, lane_ffma  |
| ``cuda_mma_v6``                  | cuda        | mma_sync, lane_ffma  |

Every coefficient record carries its provenance. ``cuda_mma_v6`` (the CUDA
default), ``v5``, ``v4``, ``v3`` and ``v2`` tag each coefficient as a ``Fact``; the
others are priors throughout. ``v3`` is ``v2``'s formulas with four more coefficients set
(waves, underfill, warpgroup registers and operands: ``cuda_mma_v3.py``), ``v4`` is
``v3`` with two more (a lane-FFMA latency target and an exposed wait per K step:
``cuda_mma_v4.py``), ``v5`` is ``v4`` with two more (operand rows that are not 16-byte
aligned) and v3's underfill target and tail price refitted (``cuda_mma_v5.py``), ``v6``
is ``v5`` with prices for the default Hopper plan, the groups a grid puts on a unit and a
split of K (``cuda_mma_v6.py``).

``cuda_mma_v1`` to ``v5`` stay selectable by name for comparisons and reports.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import Any

from tilec.exec import TargetProfile
from tilec.plan.cost.base import CostBasis, GroupTerms, Priced, coefficients_json
from tilec.plan.options import PlannerOptions

__all__ = ["CostBasis", "GroupTerms", "Priced", "coefficients_json", "CudaCoefficients",
           "CudaMmaV1Basis", "CudaV2Coefficients", "CudaMmaV2Basis", "MppCoefficients",
           "MppMemoryV3Basis", "CrossFamilyBasis", "ReferenceCoefficients",
           "SimdgroupReferenceBasis",
           "BASIS_TARGET_FAMILY", "basis_named", "select_basis"]

_LAZY = MappingProxyType({
    **dict.fromkeys(("SM80_PRIORS", "SM90_PRIORS", "CudaCoefficients", "CudaMmaV1Basis"),
                    "cuda_mma_v1"),
    **dict.fromkeys(("SM80_V2", "SM90_V2", "CudaMmaV2Basis", "CudaV2Coefficients"),
                    "cuda_mma_v2"),
    **dict.fromkeys(("SM80_V3", "SM90_V3"), "cuda_mma_v3"),
    **dict.fromkeys(("SM80_V4", "SM90_V4"), "cuda_mma_v4"),
    **dict.fromkeys(("SM80_V5", "SM90_V5"), "cuda_mma_v5"),
    **dict.fromkeys(("SM80_V6", "SM90_V6"), "cuda_mma_v6"),
    **dict.fromkeys(("MppCoefficients", "MppMemoryV3Basis"), "mpp_memory_v3"),
    "CrossFamilyBasis": "cross_family",
    **dict.fromkeys(("ReferenceCoefficients", "SimdgroupReferenceBasis"),
                    "simdgroup_reference"),
})
"""Names of this package that live in a basis module, imported on first use: a process
that plans for a target without a matrix basis (``cpu``), or plans nothing (a warm start),
never loads the bases' coefficient tables. A name assigned here (``cost.SM90_V6 = ...``,
as ``benchmarks/model_regret.py`` does) is what ``basis_named`` reads from then on."""


def __getattr__(name: str) -> Any:
    """A basis module's name, imported on first use and kept in this namespace."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals().setdefault(name, value)
    return globals()[name]


def _get(name: str) -> Any:
    """``name`` of this namespace (a patched value first), importing its module if needed."""
    got = globals().get(name)
    return got if got is not None else __getattr__(name)


BASIS_TARGET_FAMILY = MappingProxyType({
    "metal_simdgroup_reference_v1": "metal",
    "metal_mpp_memory_v3": "metal",
    "metal_cross_family_v1": "metal",
    "cuda_mma_v1": "cuda",
    "cuda_mma_v2": "cuda",
    "cuda_mma_v3": "cuda",
    "cuda_mma_v4": "cuda",
    "cuda_mma_v5": "cuda",
    "cuda_mma_v6": "cuda",
})
"""The target family each basis is written for."""


def basis_named(name: str, profile: TargetProfile) -> CostBasis:
    """The basis ``name`` with ``profile``'s default coefficients (``ValueError`` if foreign)."""
    family = BASIS_TARGET_FAMILY.get(name)
    if family is None:
        raise ValueError(f"unknown cost basis {name!r}; known: {', '.join(BASIS_TARGET_FAMILY)}")
    if family != profile.family:
        raise ValueError(f"cost basis {name} is written for {family} targets, not "
                         f"{profile.name}; its features would be mislabeled")
    if name == "metal_simdgroup_reference_v1":
        return _get("SimdgroupReferenceBasis")(profile)
    if name == "metal_mpp_memory_v3":
        return _get("MppMemoryV3Basis")(profile)
    if name == "metal_cross_family_v1":
        return _get("CrossFamilyBasis")(profile)
    sm80 = profile.arch == "sm_80"  # the sm_90 numbers serve every other architecture
    if name == "cuda_mma_v2":
        return _get("CudaMmaV2Basis")(profile, _get("SM80_V2" if sm80 else "SM90_V2"))
    if name in ("cuda_mma_v3", "cuda_mma_v4", "cuda_mma_v5", "cuda_mma_v6"):
        v = name[-1]
        return _get("CudaMmaV2Basis")(profile, _get(f"SM80_V{v}" if sm80 else f"SM90_V{v}"),
                                      name=name)
    return _get("CudaMmaV1Basis")(profile, _get("SM80_PRIORS" if sm80 else "SM90_PRIORS"))


def select_basis(profile: TargetProfile, options: PlannerOptions) -> CostBasis | None:
    """The basis for a target and options; None when the target has no matrix basis (CPU)."""
    if options.cost_basis is not None:
        return basis_named(options.cost_basis, profile)
    if profile.family == "metal" and options.metal_mpp == "only":
        return basis_named("metal_mpp_memory_v3", profile)
    if profile.family == "metal" and options.metal_mpp == "auto":
        return basis_named("metal_cross_family_v1", profile)
    if profile.default_cost_basis is None:
        return None
    return basis_named(profile.default_cost_basis, profile)
