"""The ``metal:m1`` backend: plan, schedule, lower and allocate for the profile, emit MSL, build.

Emitting works anywhere (``tc.compile(k, ..., target="metal:m1").source``). Building
compiles the source into a compute pipeline where a Metal device is (``launcher``); where
none is, it runs the libclang check instead (``check``: a bad source fails the build
here, at the line and TileIR operation that produced it) and the executable cannot be
called: calling it raises ``TargetUnavailable`` with the reason (``probe``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets.interop_checks import call_param_facts, check_call_aliasing
from tilec.targets.metal.launcher import probe as _launch_probe
from tilec.targets.metal.source import MetalSource

__all__ = ["MetalBackend", "MetalExecutable", "make_backend", "probe", "build_probe"]

_TARGETS = ("metal", "metal:m1")


def probe() -> str | None:
    """None when metal:m1 kernels can run here (a Metal device through PyObjC), else why."""
    return _launch_probe()


def build_probe() -> str | None:
    """Building (emitting, and checking where libclang is) works anywhere."""
    return None


def make_backend(target_name: str = "metal:m1") -> MetalBackend:
    """The backend for ``metal`` or ``metal:m1``."""
    return MetalBackend(target_name)


class MetalExecutable:
    """A built Metal kernel: its source, how it was verified, and (on macOS) its pipeline."""

    def __init__(self, src: MetalSource, fn: ir.Function, verified: str,
                 launcher: Any = None) -> None:
        from tilec.targets.interop_checks import kernel_label, shape_bindings
        from tilec.targets.kernel_checks import HostChecks

        self.metal = src
        """The emitted kernel and its launch contract."""
        self.source = src.text
        """The MSL source."""
        self.verified = verified
        """How the source was verified when it was built: ``compiled by Metal``,
        ``checked with libclang`` or ``not checked (...)``."""
        self.runnable = launcher is not None
        """True when this machine can run it."""
        self._launcher = launcher
        self._fn = fn
        self._alias_facts = call_param_facts(fn)
        self._bindings = shape_bindings(fn)
        self._label = kernel_label(fn)
        self._host_checks = HostChecks(fn)

    def __repr__(self) -> str:
        return (f"MetalExecutable({self.metal.kernel}, {self.metal.threads} threads, "
                f"{self.metal.shared_bytes} threadgroup bytes, {self.verified})")

    def __call__(self, *args: Any) -> None:
        if self._launcher is None:  # Compiled.run raises TargetUnavailable before this
            raise RuntimeError(f"{self._label}: metal:m1 kernels cannot run here: {probe()}")
        arrays = [np.asarray(a) if hasattr(a, "shape") else a for a in args]
        # each array is copied into its own buffer, so two written ones would be copied
        # back over each other: refused, as every launcher refuses them
        check_call_aliasing(self._fn, arrays, self._alias_facts)
        entry = list(arrays) + [int(arrays[p].shape[a]) for p, a in self._bindings]
        self._host_checks.run(entry, "before")
        src = self.metal
        extents = src.grid([0 if hasattr(v, "shape") else v for v in entry])
        if all(e > 0 for e in extents):
            grid = src.launch_grid(extents)
            if grid[0] >= 2**31 or grid[1] > 65535 or grid[2] > 65535:
                raise ValueError(f"{self._label}: a grid of {grid} threadgroups exceeds what "
                                 "the kernel's index arithmetic assumes (x < 2**31, y and z "
                                 "<= 65535)")
            values = []
            for p in src.params:
                if p.kind in ("mem", "scalar"):  # the user's parameters come first, in order
                    values.append(arrays[len(values)])
                elif p.kind == "symbol":
                    k = self._symbol_index(p.name)
                    values.append(entry[len(arrays) + k])
                else:  # dim: another runtime extent of an array
                    i, axis = p.source
                    values.append(int(arrays[i].shape[axis]))
            record = self._launcher.launch(src.params, values, grid)
            if record is not None and record[0]:
                from tilec.targets.metal.launcher import decode_record

                info = src.checks[record[0] - 1]
                raise info.failure(self._label, decode_record(record, info.types))
        self._host_checks.run(entry, "after")

    def _symbol_index(self, name: str) -> int:
        names = [p.name for p in self.metal.params if p.kind == "symbol"]
        return names.index(name)


class MetalBackend:
    """Emits Machine TileIR functions as MSL for the metal:m1 profile."""

    pipeline = ("plan", "schedule", "machine", "allocate", "emit", "build")
    """The stages the compile driver runs for this target (``tilec.driver``)."""

    def __init__(self, name: str = "metal:m1") -> None:
        if name not in _TARGETS:
            raise ValueError(f"unknown Metal target {name!r}; known: {', '.join(_TARGETS)}")
        self.name = name
        """The target name."""
        self.profile = "metal:m1"
        """The hardware profile the lowering plans for."""

    def emit(self, machine: ir.Module, fn_name: str) -> MetalSource:
        """The MSL kernel for ``fn_name`` of a Machine TileIR module."""
        from tilec.targets.metal.emitter import emit_metal

        fn = machine.lookup(fn_name)
        if fn is None:
            raise KeyError(f"module has no function @{fn_name}")
        form = fn.attributes.get("form")
        if form != "machine":
            raise ValueError(f"the {self.name} backend prints Machine TileIR; @{fn_name} is "
                             f"{form or 'candidate'} (lower it with tilec.driver."
                             f"compile_module(module, {fn_name!r}, {self.name!r}))")
        return emit_metal(machine, fn_name, self.profile)

    def build(self, machine: ir.Module, fn_name: str, src: MetalSource) -> MetalExecutable:
        """A compute pipeline where Metal runs; elsewhere the libclang check of ``src``."""
        from tilec.targets.metal.check import check_msl, checker_unavailable

        fn = machine.lookup(fn_name)
        assert fn is not None
        if probe() is None:
            from tilec.targets.metal.launcher import MetalLauncher

            return MetalExecutable(src, fn, "compiled by Metal", MetalLauncher(src))
        why = checker_unavailable()
        if why is not None:
            return MetalExecutable(src, fn, f"not checked ({why})")
        check_msl(src.text, src.buffer.origin_of_line, src.kernel)
        return MetalExecutable(src, fn, "checked with libclang")

    def compile(self, machine: ir.Module, fn_name: str) -> MetalExecutable:
        """Emit and build a Machine TileIR module."""
        return self.build(machine, fn_name, self.emit(machine, fn_name))
