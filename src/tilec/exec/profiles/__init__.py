"""Target profiles by name. Each family lives in its own module; this only names them."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from .base import (
    ATOM_FAMILIES,
    ATOM_REALIZATIONS,
    FACT_KINDS,
    DescriptorRule,
    Fact,
    FragmentCounts,
    MatrixAtom,
    TargetProfile,
)
from .cpu import cpu
from .cuda import sm_80, sm_90
from .metal import MPP_DESCRIPTOR, m1

__all__ = ["ATOM_FAMILIES", "ATOM_REALIZATIONS", "FACT_KINDS", "DescriptorRule", "Fact",
           "FragmentCounts", "MatrixAtom", "TargetProfile", "MPP_DESCRIPTOR", "get_profile",
           "profile_names"]

_BUILDERS: MappingProxyType[str, Callable[[], TargetProfile]] = MappingProxyType({
    "cuda:sm_90": sm_90,
    "cuda:sm_80": sm_80,
    "metal:m1": m1,
    "cpu": cpu,
})


def profile_names() -> tuple[str, ...]:
    """Every profile name, in a fixed order."""
    return tuple(_BUILDERS)


def get_profile(name: str) -> TargetProfile:
    """The profile called ``name`` (a fresh frozen object; ``ValueError`` for unknown names)."""
    try:
        return _BUILDERS[name]()
    except KeyError:
        raise ValueError(f"unknown target profile {name!r}; known: "
                         f"{', '.join(_BUILDERS)}") from None
