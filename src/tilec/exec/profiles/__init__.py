"""Target profiles by name. Each family's profile lives in its target package
(``tilec.targets.<family>.profile``); this only names them and builds one when asked.

The planner and lowering receive a ``TargetProfile`` and read facts from it;
they never import a target package. The builders are named by module path and
imported on first use, as the runtime's registry names backends.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType

import tilec.ir as ir

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

__all__ = ["ATOM_FAMILIES", "ATOM_REALIZATIONS", "FACT_KINDS", "DescriptorRule", "Fact",
           "FragmentCounts", "MatrixAtom", "TargetProfile", "get_profile",
           "profile_names", "PROFILE_ALIASES", "resolve_profile_name", "UnknownProfile"]

_BUILDERS: MappingProxyType[str, tuple[str, str]] = MappingProxyType({
    "cuda:sm_90": ("tilec.targets.cuda.profile", "sm_90"),
    "cuda:sm_80": ("tilec.targets.cuda.profile", "sm_80"),
    "metal:m1": ("tilec.targets.metal.profile", "m1"),
    "cpu": ("tilec.targets.cpu.profile", "cpu"),
})
"""Profile name -> (module, builder): a callable returning a fresh frozen ``TargetProfile``."""


PROFILE_ALIASES: MappingProxyType[str, str] = MappingProxyType({
    "cuda": "cuda:sm_90",       # the runtime's ``cuda`` target runs on the H200 here
    "metal": "metal:m1",
    "reference": "cpu",         # the interpreter has no execution hierarchy to plan for
})
"""Runtime target names without an architecture, and the profile each plans with."""


class UnknownProfile(ir.UserError, ValueError):
    """No hardware profile has this name (the message lists the known ones)."""


def resolve_profile_name(target: str) -> str:
    """The profile name for a runtime target name (itself when it already is one); the
    simulator's ``simt:<profile>`` plans with ``<profile>``, plain ``simt`` with
    ``cuda:sm_90`` (its default)."""
    if target == "simt":
        return "cuda:sm_90"
    if target.startswith("simt:"):
        target = target[len("simt:"):]
    return PROFILE_ALIASES.get(target, target)


def profile_names() -> tuple[str, ...]:
    """Every profile name, in a fixed order."""
    return tuple(_BUILDERS)


def get_profile(name: str) -> TargetProfile:
    """The profile called ``name`` or its alias (a fresh frozen object; ValueError if unknown)."""
    try:
        module, builder = _BUILDERS[resolve_profile_name(name)]
    except KeyError:
        raise UnknownProfile(f"unknown target profile {name!r}; known: {', '.join(_BUILDERS)} "
                         f"(aliases: {', '.join(PROFILE_ALIASES)})") from None
    return getattr(importlib.import_module(module), builder)()
