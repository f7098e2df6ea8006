"""Runtime: target registry, compile caches, array interop, launch."""

from .targets import (
    Backend,
    Executable,
    TargetInfo,
    TargetUnavailable,
    available_targets,
    check_target_name,
    default_target,
    get_backend,
    load_backend,
    register_target,
    require,
    target_names,
    why_unavailable,
)

__all__ = ["Backend", "Executable", "TargetInfo", "TargetUnavailable", "available_targets",
           "check_target_name", "default_target", "get_backend", "load_backend", "register_target",
           "require", "target_names", "why_unavailable"]
