"""The ``cuda`` target: ``make_backend``, ``probe`` and ``CUDAExecutable``.

Names: ``cuda`` (the device's architecture, profile ``cuda:sm_90`` for
compute capability 9.x and above, ``cuda:sm_80`` for 8.x), ``cuda:sm_90``,
``cuda:sm_80``. The compile driver (``tilec.driver``) plans and lowers a
kernel for ``profile`` and calls ``emit`` (Machine TileIR to CUDA C++) and
``build`` (NVRTC, for the device's architecture, or for the profile's when no
device is present: compile-only, as in CI); ``compile`` does both for a
Machine module. The executable has ``source`` (the CUDA
C++), ``resources`` (ptxas' registers / shared memory / spills), ``cubin``,
and is called with the user arguments (tileir.md's convention: user
parameters; shape symbols come from the arrays through ``shape_bindings``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

import tilec.ir as ir
from tilec.targets.cuda.compiler import (
    Cubin,
    Resources,
    arch_for,
    compile_cubin,
    nvrtc_available,
)
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.cuda.runtime import (
    Launcher,
    argument_key,
    bind_arguments,
    check_aligned16,
    shape_bindings,
)
from tilec.targets.cuda.source import CUDASource
from tilec.targets.interop_checks import kernel_label
from tilec.targets.kernel_checks import HostChecks

__all__ = ["CUDABackend", "CUDAExecutable", "make_backend", "probe",
           "probe_sm_80", "probe_sm_90", "device_capability", "TARGET_SM"]

TARGET_SM = {"cuda:sm_90": 90, "cuda:sm_80": 80}
"""Compute capability (x10) each named profile needs."""


@functools.cache
def _device_facts(ordinal: int = 0) -> tuple[tuple[int, int] | None, str | None]:
    """``((major, minor), None)`` for device ``ordinal``, or ``(None, reason)``."""
    try:
        import cuda.core  # noqa: F401
        from cuda.bindings import driver
    except ImportError as e:
        return None, f"cuda-core is not installed ({e}); pip install 'tilec[cuda]'"
    try:
        (err,) = driver.cuInit(0)
        if int(err) != 0:
            return None, f"the CUDA driver does not initialize: {err}"
        err, n = driver.cuDeviceGetCount()
        if int(err) != 0 or n <= ordinal:
            return None, f"no CUDA device {ordinal} (the driver sees {n if int(err) == 0 else 0})"
        attr = driver.CUdevice_attribute
        err1, major = driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ordinal)
        err2, minor = driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ordinal)
        if int(err1) != 0 or int(err2) != 0:
            return None, f"cannot read device {ordinal}'s compute capability: {err1} {err2}"
        return (int(major), int(minor)), None
    except Exception as e:  # no driver library, driver too old ...
        return None, f"no usable CUDA driver: {type(e).__name__}: {e}"


def device_capability(ordinal: int = 0) -> tuple[int, int] | None:
    """The compute capability of device ``ordinal`` (None without a device)."""
    return _device_facts(ordinal)[0]


def probe() -> str | None:
    """None when a CUDA device, cuda-core and NVRTC exist here; else the reason."""
    cc, why = _device_facts(0)
    if cc is None:
        return why
    if cc < (8, 0):
        return f"the device has compute capability {cc[0]}.{cc[1]}; tilec needs 8.0 or newer"
    return nvrtc_available()


def _probe_for(sm: int) -> str | None:
    why = probe()
    if why is not None:
        return why
    cc = device_capability(0)
    assert cc is not None
    if cc[0] * 10 + cc[1] < sm:
        return f"the device is sm_{cc[0]}{cc[1]}; this target needs sm_{sm} or newer"
    return None


def probe_sm_90() -> str | None:
    """``probe`` for ``cuda:sm_90``."""
    return _probe_for(90)


def probe_sm_80() -> str | None:
    """``probe`` for ``cuda:sm_80``."""
    return _probe_for(80)


def make_backend(target_name: str = "cuda") -> CUDABackend:
    """The backend for ``cuda``, ``cuda:sm_90`` or ``cuda:sm_80``."""
    return CUDABackend(target_name)


class CUDABackend:
    """Compiles Machine TileIR functions to cubins for one CUDA profile."""

    pipeline = ("plan", "schedule", "machine", "allocate", "emit", "build")
    """The stages the compile driver runs for this target (``tilec.driver``)."""

    def __init__(self, name: str = "cuda") -> None:
        if name != "cuda" and name not in TARGET_SM:
            raise ValueError(f"unknown CUDA target {name!r}; known: cuda, "
                             f"{', '.join(TARGET_SM)}")
        self.name = name
        """The target name."""
        cc = device_capability(0)
        self.device_cc = cc
        """The device's compute capability (None: compile-only)."""
        if name == "cuda":
            sm = 90 if cc is None or cc >= (9, 0) else 80
            self.profile = f"cuda:sm_{sm}"
            """The hardware profile the lowering plans for."""
        else:
            self.profile = name
        sm = TARGET_SM[self.profile]
        self.runnable = cc is not None and cc[0] * 10 + cc[1] >= sm
        """True when the kernels built here can run here (a device of the profile's
        architecture or newer); otherwise they are built for the profile only."""
        self.arch = arch_for(cc) if self.runnable else f"sm_{sm}"  # type: ignore[arg-type]
        """The architecture cubins are built for (the device's, else the profile's)."""

    def device_identity(self) -> str:
        """The GPU as tuning records name it: its name, architecture and driver version
        (``no device`` when there is none here)."""
        if self.device_cc is None:
            return "no device"
        from cuda.bindings import driver

        err, raw = driver.cuDeviceGetName(256, 0)
        name = raw.split(b"\0", 1)[0].decode() if int(err) == 0 else "unknown GPU"
        err, version = driver.cuDriverGetVersion()
        drv = f"{version // 1000}.{version % 1000 // 10}" if int(err) == 0 else "unknown"
        major, minor = self.device_cc
        return f"{name}; sm_{major}{minor}; driver {drv}"

    def planner_overrides(self) -> dict[str, Any]:
        """Planner options this device changes (the driver applies them): warpgroup
        instructions (``wgmma``) only where the cubin is built for sm_90 (``sm_90a``); other
        architectures do not have them."""
        return {} if self.arch == "sm_90" else {"warpgroup_mma": False}

    def emit(self, machine: ir.Module, fn_name: str) -> CUDASource:
        """The CUDA kernel for ``fn_name`` of a Machine TileIR module (no compilation)."""
        _require_machine(machine, fn_name, self.name)
        return emit_cuda(machine, fn_name, self.profile)

    def compile(self, machine: ir.Module, fn_name: str, arch: str | None = None
                ) -> CUDAExecutable:
        """Emit and build a Machine TileIR module (Candidate modules go through
        ``tilec.driver.compile_module``, which plans and lowers them first)."""
        return self.build(machine, fn_name, self.emit(machine, fn_name), arch)

    def build(self, machine: ir.Module, fn_name: str, src: CUDASource,
              arch: str | None = None) -> CUDAExecutable:
        """Compile emitted ``src`` (or reuse the cached cubin); ``arch`` overrides the
        architecture."""
        arch = arch or self.arch
        if src.min_sm > int(re.match(r"sm_(\d+)", arch).group(1)):  # type: ignore[union-attr]
            raise ValueError(f"@{fn_name} needs sm_{src.min_sm}; cannot build it for {arch}")
        if src.arch_suffix and not arch.endswith(src.arch_suffix):
            arch += src.arch_suffix  # e.g. sm_90 -> sm_90a for wgmma
        cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes,
                            src.buffer.origin_of_line)
        fn = machine.lookup(fn_name)
        assert fn is not None
        return CUDAExecutable(fn, src, cub, self.runnable)


def _require_machine(module: ir.Module, fn_name: str, target: str) -> None:
    fn = module.lookup(fn_name)
    if fn is None:
        raise KeyError(f"module has no function @{fn_name}")
    form = fn.attributes.get("form")
    if form != "machine":
        raise ValueError(f"the {target} backend prints Machine TileIR; @{fn_name} is "
                         f"{form or 'candidate'} (lower it with "
                         f"tilec.driver.compile_module(module, {fn_name!r}, {target!r}))")


class CUDAExecutable:
    """A compiled kernel; call it with the user-level arguments (device arrays, scalars)."""

    def __init__(self, fn: ir.Function, src: CUDASource, cubin: Cubin, runnable: bool) -> None:
        self.name = fn.name
        """The kernel function's name."""
        self.source = src.text
        """The generated CUDA C++."""
        self.kernel = src
        """The emitted kernel (parameters, launch geometry, line origins)."""
        self.cubin = cubin
        """The compiled image."""
        self.resources: Resources = cubin.resources
        """Registers, shared memory and spills reported by ptxas."""
        self._bindings = shape_bindings(fn)
        self._label = kernel_label(fn)
        self._host_checks = HostChecks(fn)
        self._n_entry = len(fn.args)
        self.runnable = runnable
        """False when built where it cannot run (no device, or an older one): inspect only."""
        self._launchers: dict[int, Launcher] = {}
        self._last_key: tuple[Any, ...] | None = None
        self._last_bound: Any = None

    def __call__(self, *args: Any, stream: Any = None, sync: bool | None = None) -> None:
        """Validate ``args``, launch on the arguments' stream, check the launch."""
        if not self.runnable:
            raise RuntimeError(f"@{self.name} was compiled for {self.cubin.arch} without a CUDA "
                               "device here; it can be inspected (source, resources), not run")
        key = argument_key(args)
        if key is not None and key == self._last_key:
            bound = self._last_bound  # its values; the arrays themselves are ``args``
        else:
            bound = bind_arguments(self.kernel.kernel, self.kernel.params, args, self._bindings,
                                   self._label)
            check_aligned16(self.kernel, bound)
            self._host_checks.run(bound.values[:self._n_entry], "before")
            # Keep the checked values, not the arrays (no reference to the caller's tensors);
            # equal keys give equal values, so the host checks passed for the cached ones too.
            self._last_key, self._last_bound = key, replace(bound, objects=[])
        dev = max(bound.device, 0)
        launcher = self._launchers.get(dev)
        if launcher is None:
            launcher = Launcher(self.kernel, self.cubin.data, dev)
            self._launchers[dev] = launcher
            if not self.resources.reported:  # the compiler's log said nothing: ask the driver
                r = self.resources
                self.resources = replace(
                    r, registers=launcher.attribute("NUM_REGS"),
                    stack_frame=launcher.attribute("LOCAL_SIZE_BYTES"),
                    static_shared=launcher.attribute("SHARED_SIZE_BYTES"), origin="driver")
        failed = launcher.launch(bound, stream, sync, args)
        if failed is not None:
            raise failed[0].failure(self.name, failed[1])
        self._host_checks.run(bound.values[:self._n_entry], "after")

    def __repr__(self) -> str:
        return f"<CUDAExecutable @{self.name} {self.cubin.arch}: {self.resources}>"
