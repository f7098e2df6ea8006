"""The target registry: which backend compiles a module for a target name.

A backend is any object with ``name`` and ``compile(module, fn_name) ->
Executable``; an ``Executable`` is called with the kernel's user-level
arguments (arrays and scalars in parameter order, shape symbols excluded; see
``docs/design/tileir.md``) and writes outputs in place. Backends register a
factory here so that importing ``tilec`` never imports a compiler toolchain.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tilec.ir import UserError

__all__ = ["Backend", "Executable", "TargetInfo", "register_target", "get_backend",
           "load_backend", "require",
           "available_targets", "default_target", "TargetUnavailable", "why_unavailable",
           "check_target_name", "target_names"]


class TargetUnavailable(UserError, RuntimeError):
    """The requested target is unknown or cannot run here; the message says why."""

    __module__ = "tilec"


class Executable(Protocol):
    """A compiled kernel: call it with the user-level arguments."""

    source: str
    """The generated source (or IR text for the reference target)."""

    def __call__(self, *args: Any) -> None: ...


class Backend(Protocol):
    """Compiles a TileIR module's function for one target."""

    name: str
    """The target name, e.g. ``cpu``."""

    def compile(self, module: Any, fn_name: str) -> Executable: ...


@dataclass(frozen=True)
class TargetInfo:
    """One registered target."""

    name: str
    """Target name as users write it (``cpu``, ``reference``, ``cuda:sm_90``...)."""
    module: str
    """Module path of the backend (imported lazily)."""
    factory: str
    """Attribute of that module: a callable ``(target_name) -> Backend``."""
    probe: str | None = None
    """Attribute of that module: a callable returning ``None`` if usable here, else why not."""
    summary: str = ""
    """One line for ``tilec targets``."""
    build_probe: str | None = None
    """Attribute of that module: like ``probe``, for *building* kernels only (source, binary,
    resource report) where they cannot run, e.g. CUDA without a GPU driver. None: building
    needs what running needs."""


_REGISTRY: dict[str, TargetInfo] = {}


def register_target(info: TargetInfo) -> None:
    """Add a target (later registrations of the same name replace earlier ones)."""
    _REGISTRY[info.name] = info


def target_names() -> list[str]:
    """Every registered target's name, sorted (no probe runs)."""
    return sorted(_REGISTRY)


def _family(name: str) -> str:
    return name.split(":", 1)[0]


_NOT_BUILT: dict[str, str] = {
    "tirx": "the TVM TIRx bridge's targets are 'tirx:llvm', 'tirx:cuda' and 'tirx:metal'",
}
"""Target families the planner knows that cannot compile kernels yet, and why."""


def check_target_name(name: str) -> None:
    """Raise ``TargetUnavailable`` unless ``name`` names a target (usable here or not).

    ``tc.compile`` calls this, so a misspelt target fails where it is written rather than
    at the first call; whether the target can *run* here is checked when it is built."""
    if not isinstance(name, str):
        raise TargetUnavailable(f"a target is a name such as 'cpu', got {type(name).__name__}")
    if name in _REGISTRY:
        return
    family, _, rest = name.partition(":")
    if family == "simt" and rest:
        from tilec.exec.profiles import profile_names

        if rest in profile_names():
            return
        raise TargetUnavailable(f"unknown simulator profile {rest!r} in {name!r}; known: "
                                f"{', '.join('simt:' + p for p in profile_names())}")
    if family in _NOT_BUILT:
        raise TargetUnavailable(f"target {name!r}: {_NOT_BUILT[family]}")
    raise TargetUnavailable(f"unknown target {name!r}; known targets: "
                            f"{', '.join(target_names())}")


def _lookup(name: str) -> TargetInfo:
    check_target_name(name)
    return _REGISTRY.get(name) or _REGISTRY[_family(name)]


def _load(info: TargetInfo, attr: str) -> Callable[..., Any]:
    return getattr(importlib.import_module(info.module), attr)


def why_unavailable(name: str, run: bool = True) -> str | None:
    """None when ``name`` can run here (when ``run`` is False: can build kernels here), else
    the reason."""
    info = _lookup(name)
    probe = info.probe if run or info.build_probe is None else info.build_probe
    if probe is None:
        return None
    try:
        return _load(info, probe)()
    except ImportError as e:
        return f"backend not importable: {e}"


def require(name: str, run: bool = True) -> None:
    """Raise ``TargetUnavailable`` with the reason unless ``name`` can run here (when ``run``
    is False: unless it can build kernels here)."""
    reason = why_unavailable(name, run)
    if reason is not None:
        what = "is unavailable" if run else "cannot build kernels"
        raise TargetUnavailable(f"target {name!r} {what} here: {reason}")


def load_backend(name: str) -> Backend:
    """The backend object for ``name`` without asking whether it can run or build here (its
    pipeline, profile and emitter work anywhere; see ``require``)."""
    info = _lookup(name)
    return _load(info, info.factory)(name)


def get_backend(name: str, run: bool = True) -> Backend:
    """The backend for ``name``; raises ``TargetUnavailable`` with the reason when it can't run
    here (when ``run`` is False: when it cannot even build kernels here)."""
    require(name, run)
    return load_backend(name)


def available_targets() -> list[tuple[TargetInfo, str | None]]:
    """Every registered target with ``None`` (usable) or the reason it is not."""
    out = []
    for name in sorted(_REGISTRY):
        info = _REGISTRY[name]
        try:
            reason = why_unavailable(name)
        except Exception as e:  # a probe must never break the listing
            reason = f"probe failed: {e}"
        out.append((info, reason))
    return out


def default_target() -> str:
    """``TILEC_TARGET`` if set, else the first usable of ``cuda``, ``cpu``, ``reference``."""
    env = os.environ.get("TILEC_TARGET")
    if env:
        return env
    for name in ("cuda", "cpu"):
        if name in _REGISTRY and why_unavailable(name) is None:
            return name
    return "reference"


register_target(TargetInfo("reference", "tilec.targets.reference.backend", "make_backend",
                           None, "numpy interpreter of Candidate TileIR (the oracle)"))
register_target(TargetInfo("cpu", "tilec.targets.cpu.backend", "make_backend", "probe",
                           "C compiled by the system compiler, OpenMP across programs"))
register_target(TargetInfo("simt", "tilec.targets.reference.simt", "make_backend", None,
                           "SIMT simulator of Machine TileIR (numpy, lanes in lock-step)"))
register_target(TargetInfo("cuda", "tilec.targets.cuda.backend", "make_backend", "probe",
                           "CUDA C++ through NVRTC (cuda-core), for the device's architecture",
                           build_probe="nvrtc_available"))
register_target(TargetInfo("cuda:sm_90", "tilec.targets.cuda.backend", "make_backend",
                           "probe_sm_90", "CUDA, Hopper profile (mma.sync, exact FP32 FFMA)",
                           build_probe="nvrtc_available"))
register_target(TargetInfo("cuda:sm_80", "tilec.targets.cuda.backend", "make_backend",
                           "probe_sm_80", "CUDA, Ampere profile (runs on newer GPUs too)",
                           build_probe="nvrtc_available"))
register_target(TargetInfo("tirx:llvm", "tilec.targets.tirx.backend", "make_backend", "probe",
                           "TileIR -> Apache TVM tvm.tirx -> TVM's LLVM on the CPU (optional "
                           "extra: pip install 'tilec[tvm]')"))
register_target(TargetInfo("tirx:cuda", "tilec.targets.tirx.backend", "make_backend",
                           "probe_cuda", "TileIR -> Apache TVM tvm.tirx -> TVM's CUDA source, "
                           "run by tilec's CUDA runtime (a block per instance, or an instance "
                           "per GPU thread as the fallback; NVRTC builds it without a GPU)",
                           build_probe="build_cuda_probe"))
register_target(TargetInfo("tirx:metal", "tilec.targets.tirx.backend", "make_backend",
                           "probe_metal", "TileIR -> Apache TVM tvm.tirx -> TVM's Metal "
                           "source (source only, checked like the metal target's)",
                           build_probe="build_metal_probe"))
for _name in ("metal", "metal:m1"):
    register_target(TargetInfo(_name, "tilec.targets.metal.backend", "make_backend", "probe",
                               "Metal Shading Language for Apple M1-class GPUs (runs on macOS "
                               "with PyObjC; emitted and type-checked anywhere)",
                               build_probe="build_probe"))
