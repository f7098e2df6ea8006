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
results returns them (one value, or a tuple). The executable and its binding cache live in
``runtime.py``; this module imports the emitter, the realization plan and the compiler's
build path only when it compiles, so a process that only loads cached kernels
(``load_launch``) never imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.targets.cpu.compiler import CompilerNotFound, toolchain
from tilec.targets.cpu.runtime import CExecutable, CLaunch, KernelError

if TYPE_CHECKING:  # the emitter and the planner load when a kernel is compiled, not called
    from tilec.targets.cpu.plan import CpuPlan
    from tilec.targets.cpu.source import CSource

__all__ = ["CBackend", "CExecutable", "KernelError", "make_backend", "probe"]


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
        from tilec.exec import get_profile
        from tilec.targets.cpu.plan import TUNABLE_FACTS, plan_cpu, with_facts

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
        from tilec.targets.cpu.emitter import CEmitter

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
        from tilec.targets.cpu.compiler import cache_key, compile_cached

        tc = toolchain()
        lib = compile_cached(src.text, src.buffer.origin_of_line, tc)
        fn = module.lookup(fn_name)
        assert fn is not None
        return CExecutable(CLaunch.of(fn, src, cache_key(src.text, tc)), lib, src.text)

    # -- warm start (tilec.driver: content-keyed launch records) --------------------------
    def compile_identity(self) -> str:
        """What a kernel built here depends on besides its source: the C compiler (path,
        version, flags), the CPU where the flags say ``-march=native``, the vector width the
        realization plan reads, and the ABI."""
        from tilec.targets.cpu.compiler import toolchain_identity

        return "cpu:" + toolchain_identity(toolchain())

    def launch_record(self, exe: Any) -> dict[str, Any] | None:
        """What ``load_launch`` needs to call ``exe`` again in another process (JSON), or None
        when it has no such form."""
        if not isinstance(exe, CExecutable):
            return None
        return exe.launch.to_json()

    def load_launch(self, record: dict[str, Any]) -> CExecutable | None:
        """The executable a ``launch_record`` describes, from the cached shared object; None
        when the record is of another format or the object is gone (compile again)."""
        from tilec.targets.cpu.compiler import load_cached

        launch = CLaunch.from_json(record)
        if launch is None:
            return None
        lib = load_cached(launch.key)
        return None if lib is None else CExecutable(launch, lib)
