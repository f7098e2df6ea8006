"""The ``cpu`` target: emit C, compile it with the system compiler (cached), call it via ctypes.

``make_backend("cpu").compile(module, fn_name)`` returns a ``CExecutable``;
calling it with the kernel's user arguments (arrays for ``mem`` parameters,
numbers for scalar parameters; shape symbols are derived from the arrays)
validates them (see ``interop.py``), evaluates the host checks
(``kernel_checks``), runs the kernel and raises the kernel's runtime errors
(an integer division by zero as ``KernelArithmeticError``, an out-of-range
``reindex`` without ``fill`` or an access leaving a ``total`` view as
``KernelIndexError``, a failed ``assert`` as ``KernelAssertionError``) with
the location of the operation that failed. A function with
results returns them (one value, or a tuple).
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.exec import get_profile
from tilec.targets.cpu.compiler import CompilerNotFound, compile_cached, toolchain
from tilec.targets.cpu.emitter import ENTRY_SYMBOL, CEmitter, CSource
from tilec.targets.cpu.interop import NP_DTYPES, bind_arguments, shape_bindings
from tilec.targets.cpu.plan import TUNABLE_FACTS, CpuPlan, plan_cpu, with_facts
from tilec.targets.interop_checks import kernel_label
from tilec.targets.kernel_checks import HostChecks, decode_bits

__all__ = ["CBackend", "CExecutable", "KernelError", "make_backend", "probe"]


class KernelError(ir.UserError, RuntimeError):
    """A runtime error the kernel reported (with the failing operation's location)."""


def probe() -> str | None:
    """None when a working C compiler exists here, else the reason."""
    try:
        toolchain()
    except CompilerNotFound as e:
        return str(e)
    return None


def make_backend(target_name: str = "cpu") -> CBackend:
    """The backend for ``cpu`` (and ``cpu:<anything>``, which means the same today)."""
    return CBackend(target_name)


def _vector_bits() -> int:
    """The vector width the C compiler targets (256 without a compiler: nothing is built)."""
    try:
        return toolchain().vector_bits
    except CompilerNotFound:
        return 256


WIDE_FACTS = {"vector_lanes_f32": 16, "vector_lanes_f64": 8, "register_block_vectors": 4}
"""The cpu profile's facts where the C compiler targets AVX-512."""


class CBackend:
    """Compiles TileIR functions to C for this machine."""

    pipeline = ("plan", "emit", "build")
    """The stages the compile driver runs (``tilec.driver``): the plan stage gives the
    planner's report and this target's realization plan (``realization_plan``: programs
    over OpenMP threads, vector lanes, register micro-tiles); the C emitter prints
    Candidate TileIR as that plan says."""

    profile = "cpu"
    """The hardware profile the plan stage plans for."""

    def __init__(self, name: str = "cpu") -> None:
        self.name = name
        """The target name."""

    def tuning_variants(self, module: ir.Module, fn_name: str) -> list[dict[str, int]]:
        """Register micro-tiles (rows x vectors of accumulators) a tuning run tries beside
        the default one, sized to the vector registers of the compiler's target (32 with
        AVX-512, else 16); none for a kernel without a vector ``mma`` (they would change
        nothing)."""
        if not any(t.flavour for t in self.realization_plan(module, fn_name).micro_tiles.values()):
            return []
        wide = _vector_bits() == 512
        tiles = [(6, 2), (8, 3), (12, 2), (4, 4)] if wide else [(4, 3), (3, 4), (8, 1)]
        return [{"register_block_rows": r, "register_block_vectors": v} for r, v in tiles]

    def device_identity(self) -> str:
        """This machine as tuning records name it: the CPU model, its thread count and the
        C compiler's first ``--version`` line."""
        import os

        from .compiler import cpu_model

        try:
            cc = toolchain().identity.splitlines()[0]
        except CompilerNotFound:
            cc = "no C compiler"
        return f"{cpu_model()}; {os.cpu_count()} threads; {cc}"

    def realization_plan(self, module: ir.Module, fn_name: str,
                         facts: Mapping[str, int] | None = None) -> CpuPlan:
        """How ``fn_name`` runs on the CPU (``plan.plan_cpu``): this target's profile, with
        the vector lanes of the C compiler's target (16 f32 lanes where it targets AVX-512)
        and then ``facts`` (``LowerOptions.target_facts``: a tuning variant's micro-tile)."""
        profile = get_profile(self.profile)
        if _vector_bits() == 512:
            profile = with_facts(profile, WIDE_FACTS, "measured", "probed: the C compiler's "
                                 "flags target AVX-512 (it defines __AVX512F__); 6 x 4 "
                                 "vectors of accumulators use 24 of its 32 registers (lib.matmul "
                                 "f32 1024^3 with 256x256x64 tiles on a 2-core Xeon, one "
                                 "run while other work shared the cores: 6 x 4 16.9 ms, "
                                 "6 x 2 24.1 ms)")
        if facts:
            bad = sorted(set(facts) - set(TUNABLE_FACTS))
            if bad:
                raise ir.UserError(f"cpu: the realization plan has no tunable fact "
                                   f"{', '.join(bad)} (it takes {', '.join(TUNABLE_FACTS)})")
            profile = with_facts(profile, facts, "prior", "given for this compilation "
                                 "(LowerOptions.target_facts, e.g. a tuning variant)")
        return plan_cpu(module, fn_name, profile)

    def emit(self, module: ir.Module, fn_name: str, plan: CpuPlan | None = None) -> CSource:
        """The C translation unit for ``fn_name`` (no compilation), realized as ``plan``
        says (None: ``realization_plan``)."""
        return CEmitter(module, fn_name, plan).emit()

    def compile(self, module: ir.Module, fn_name: str) -> CExecutable:
        """Verify, emit, compile (or reuse the cached object) and wrap ``fn_name``."""
        if module.lookup(fn_name) is None:
            known = ", ".join(f"@{f.name}" for f in module)
            raise KeyError(f"no function @{fn_name} in the module (it has {known})")
        ir.verify(module)
        return self.build(module, fn_name, self.emit(module, fn_name))

    def build(self, module: ir.Module, fn_name: str, src: CSource) -> CExecutable:
        """Compile emitted ``src`` with the system compiler (cached) and wrap ``fn_name``."""
        lib = compile_cached(src.text, src.buffer.origin_of_line)
        fn = module.lookup(fn_name)
        assert fn is not None
        return CExecutable(fn, src, lib)


class CExecutable:
    """A compiled kernel; call it with the user-level arguments."""

    def __init__(self, fn: ir.Function, src: CSource, lib: ctypes.CDLL) -> None:
        self.name = fn.name
        """The kernel's name."""
        self.source = src.text
        """The generated C source."""
        self.params = src.params
        """Entry parameters as the launcher sees them."""
        self._src = src
        self._lib = lib
        self._entry = getattr(lib, ENTRY_SYMBOL)
        self._entry.restype = ctypes.c_int32
        self._entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p]
        self._bindings = shape_bindings(fn)
        self._label = kernel_label(fn)
        self._host_checks = HostChecks(fn)
        self._n_values = max([len(c.labels) for c in src.checks.values()]
                             + [2] * bool(src.reads), default=0)

    def __call__(self, *args: Any) -> Any:
        b = bind_arguments(self.name, self.params, args, self._bindings, self._src.dim_slots,
                           self._label)
        if self._host_checks:
            self._host_checks.run([k if a is None else None for a, k in zip(b.arrays, b.keep)]
                                  + [int(b.arrays[p].shape[ax]) for p, ax in self._bindings])
        results = [np.zeros(_shape(t), NP_DTYPES[_elem(t).name]) for t in self._src.results]
        rets = (ctypes.c_void_p * max(len(results), 1))()
        for k, r in enumerate(results):
            rets[k] = r.ctypes.data
        status = (ctypes.c_int32 * 2)()
        values = (ctypes.c_int64 * max(self._n_values, 1))()
        self._entry(b.args, b.dims, rets, status, values)
        if status[0]:
            self._raise(int(status[0]), int(status[1]), values)
        if not results:
            return None
        outs = [r[()] if r.ndim == 0 and not isinstance(t, ir.TileType) else r
                for r, t in zip(results, self._src.results)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _raise(self, code: int, op_id: int, values: Any) -> None:
        check = self._src.checks.get(op_id)
        if code in (2, 3, 4) and check is not None:  # a zero divisor, a total view, a check
            raise check.failure(self.name, [decode_bits(values[k], t)
                                            for k, t in enumerate(check.types)])
        read = self._src.reads.get((op_id, int(values[1]))) if code == 1 else None
        if read is not None:  # a reindex leaving its source: the start, then the axis
            raise read.failure(self.name, [int(values[0])])
        name, loc = self._src.ops.get(op_id, ("?", ir.UNKNOWN))
        if code == 2:  # only a division the emitter did not test: a wrong value range
            raise RuntimeError(ir.format_located(
                f"internal: '{name}' divided by zero although its divisor was proven nonzero",
                loc))
        raise KernelError(f"kernel @{self.name} failed with status {code} in '{name}' at {loc}")

    def __repr__(self) -> str:
        return f"<CExecutable @{self.name}>"


def _shape(t: ir.Type) -> tuple[int, ...]:
    return tuple(int(d) for d in t.shape) if isinstance(t, ir.TileType) else ()


def _elem(t: ir.Type) -> ir.ScalarType:
    return t if isinstance(t, ir.ScalarType) else t.dtype  # type: ignore[attr-defined]
