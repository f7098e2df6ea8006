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
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.ir.atoms import WGMMA_ROWS
from tilec.targets.cuda.runtime import CUDAExecutable

if TYPE_CHECKING:  # the emitter and NVRTC load when a kernel is compiled, not called
    from tilec.targets.cuda.source import CUDASource

__all__ = ["CUDABackend", "CUDAExecutable", "make_backend", "probe", "nvrtc_available",
           "probe_sm_80", "probe_sm_90", "device_capability", "TARGET_SM"]

TARGET_SM = {"cuda:sm_90": 90, "cuda:sm_80": 80}
"""Compute capability (x10) each named profile needs."""


@functools.cache
def _device_facts(ordinal: int = 0) -> tuple[tuple[int, int] | None, str | None]:
    """``((major, minor), None)`` for device ``ordinal``, or ``(None, reason)``."""
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()
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


def nvrtc_available() -> str | None:
    """None when NVRTC works here (kernels can be built, not necessarily run), else the
    reason (``compiler.nvrtc_available``; the registry's build probe)."""
    from tilec.targets.cuda import compiler

    return compiler.nvrtc_available()


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


def _one_warpgroup_rows(grids: list[ir.Operation]) -> bool:
    """Whether some ``mma`` of ``grids`` has a 64-row accumulator: one warpgroup instruction's
    rows, the tile a ping-pong consumer computes alone."""
    return any(o.name == "mma" and isinstance(o.result.type, ir.TileType)
               and len(o.result.type.shape) >= 2
               and o.result.type.shape[-2].value == WGMMA_ROWS
               for op in grids for o in op.walk(include_self=False))


def _has_epilogue_map(grids: list[ir.Operation]) -> bool:
    """Whether a loop result carried through an ``mma`` of ``grids`` is read by a ``map``
    (an epilogue ``fuse_matrix_epilogues`` may fuse)."""
    for g in grids:
        for op in g.walk(include_self=False):
            if op.name in ("serial", "pipeline") and any(
                    o.name == "mma" for o in op.walk(include_self=False)):
                if any(u.owner.name == "map" for r in op.results for u in r.uses):
                    return True
    return False


WS_VERSIONS = (4, 6)
"""Ring versions the tuning variants try with a producer warpgroup (``tuning_variants``)."""

SPLIT_VARIANTS = (4, 8, 16, 32)
"""Splits of K the tuning variants try (``tuning_variants``): 16 and 32 are where the H100
split sweep ran 128x128x8192 fastest (0.0134 ms with 32 splits of 64x32x64 tiles at 512
threads; 16 at 64x64x64); the model prices up to 16 (``plan.split_price.SPLITS``)."""


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
        self.arch = f"sm_{cc[0]}{cc[1]}" if self.runnable else f"sm_{sm}"  # type: ignore[index]
        """The architecture cubins are built for (the device's, else the profile's)."""

    def device_identity(self) -> str:
        """The GPU as tuning records name it: its name, architecture and driver version
        (``no device`` when there is none here)."""
        if self.device_cc is None:
            return "no device"
        from tilec.targets.cuda.cudriver import driver as cuda_driver

        driver = cuda_driver()
        from tilec.targets.cuda.compiler import driver_version

        err, raw = driver.cuDeviceGetName(256, 0)
        name = raw.split(b"\0", 1)[0].decode() if int(err) == 0 else "unknown GPU"
        version = driver_version()
        drv = "unknown" if version is None else f"{version // 1000}.{version % 1000 // 10}"
        major, minor = self.device_cc
        return f"{name}; sm_{major}{minor}; driver {drv}"

    def tuning_variants(self, module: ir.Module, fn_name: str) -> list[dict[str, Any]]:
        """Plan variants a tuning run tries beside the planner's own, for a kernel with a
        matrix product: the grouped program traversal (``ir.traversal``, 8 row blocks at a
        time) where its grid has two axes or more (its L2 reuse is what the numbering
        changes). On sm_90, where the default plan gives a group of two consumer
        warpgroups a producer warpgroup and a persistent grid (``LowerOptions.
        warp_specialized`` and ``persistent``, docs/design/warp_specialization.md), the
        ordinary ring without them (``warp_specialized: False``, which also keeps one program
        per tile), alone and with the traversal; the mbarrier ring (``mbarrier_ring``)
        likewise; the producer warpgroup with each of ``WS_VERSIONS`` ring versions and one
        program per tile (``persistent: 0``), alone and with the traversal; and the
        persistent producer warpgroup in row-major order; the default plan in clusters of two
        groups that multicast their shared operand (``cluster: 2``), with its output stored
        from registers (``tensor_store: False``) and, where an accumulator has 64 rows (one
        warpgroup's), with a second consumer warpgroup taking alternate tiles (``pingpong``).
        Where an accumulator
        leaves through an elementwise map (a cast to a 16-bit output, an activation), which
        the default plan fuses into the accumulator's registers where the planner proves it may
        (``fuse_matrix_epilogues``), the first variants again without the fusion (the
        accumulator's trip through shared memory). Then split-K over 4, 8, 16 and 32
        programs per output tile (``split_k``): it changes grids with a splittable K loop
        (``plan/proofs/split_k.py``); the split sweeps (benchmarks/cuda_split_k.py) ran
        16x4096x4096 fastest with 4 splits (H100 and H200), 128x128x8192 with 16 (H200;
        H100 at 64x64x64 tiles) or 32 (H100 at 64x32x64 and 32x64x64 tiles), and every
        large grid slower split. ``tune`` tries a split only where each split keeps
        ``split_price.MIN_STEPS_PER_SPLIT`` K steps. None for other kernels (they would
        change nothing). No copy batch
        (``max_copy_batch``): on CUDA the synchronous staged copies it orders are the
        fallback of ``cp.async`` and tensor copies (rows not 16-byte aligned, a nonzero
        fill, a window that is not a plain one), one operand per guarded branch, where the
        default already loads the operand's whole share before storing it: a batch can only
        keep that order or cut it."""
        fn = module.lookup(fn_name)
        if fn is None:
            return []
        grids = [op for op in fn.walk() if op.name == "parallel"
                 and any(o.name == "mma" for o in op.walk(include_self=False))]
        if not grids:
            return []
        out: list[dict[str, Any]] = []
        if any(int(op.attr("rank") or 1) >= 2 for op in grids):
            out.append({"program_traversal": "grouped:8"})
        if self.arch == "sm_90":
            base = [{}, *out]
            out += [{**v, "warp_specialized": False} for v in base]
            out += [{**v, "warp_specialized": False, "mbarrier_ring": True} for v in base]
            out += [{**v, "warp_specialized": True, "wgmma_stages": w, "persistent": 0}
                    for w in WS_VERSIONS for v in base]
            from tilec.exec import get_profile

            units = get_profile(self.profile).compute_units or 1
            out.append({"warp_specialized": True, "wgmma_stages": WS_VERSIONS[0],
                        "persistent": units})
            # the default plan's persistent grid in clusters of two (LowerOptions.cluster):
            # neighbouring row tiles share B through multicast copies
            out.append({"cluster": 2})
            # the default plan's output stored from registers instead of through shared
            # buffers and tensor stores (LowerOptions.tensor_store)
            out.append({"tensor_store": False})
            # a 64-row tile is one consumer warpgroup's: the default plan's persistent group
            # with a second consumer taking alternate tiles (LowerOptions.pingpong)
            if _one_warpgroup_rows(grids):
                out.append({"pingpong": True})
        if _has_epilogue_map(grids):
            out += [{**v, "fuse_matrix_epilogues": False} for v in [{}, *out]
                    if "mbarrier_ring" not in v and v.get("wgmma_stages") != WS_VERSIONS[-1]
                    and v.get("persistent", 0) == 0 and "cluster" not in v
                    and "tensor_store" not in v and "pingpong" not in v]
        out += [{"split_k": s} for s in SPLIT_VARIANTS]
        return out

    def planner_overrides(self) -> dict[str, Any]:
        """Planner options this device changes (the driver applies them): warpgroup
        instructions (``wgmma``) only where the cubin is built for sm_90 (``sm_90a``); other
        architectures do not have them."""
        return {} if self.arch == "sm_90" else {"warpgroup_mma": False}

    def emit(self, machine: ir.Module, fn_name: str) -> CUDASource:
        """The CUDA kernel for ``fn_name`` of a Machine TileIR module (no compilation)."""
        from tilec.targets.cuda.emitter import emit_cuda

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
        from tilec.targets.cuda.compiler import compile_cubin
        from tilec.targets.interop_checks import kernel_label, shape_bindings
        from tilec.targets.kernel_checks import HostChecks

        arch = arch or self.arch
        if src.min_sm > int(re.match(r"sm_(\d+)", arch).group(1)):  # type: ignore[union-attr]
            raise ValueError(f"@{fn_name} needs sm_{src.min_sm}; cannot build it for {arch}")
        if src.arch_suffix and not arch.endswith(src.arch_suffix):
            arch += src.arch_suffix  # e.g. sm_90 -> sm_90a for wgmma
        cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes,
                            src.buffer.origin_of_line if src.buffer is not None else None)
        fn = machine.lookup(fn_name)
        assert fn is not None
        return CUDAExecutable(src, cub, self.runnable, shape_bindings(fn), kernel_label(fn),
                              HostChecks(fn), src.text)

    # -- warm start (tilec.driver: content-keyed launch records) --------------------------
    def compile_identity(self) -> str:
        """What a kernel built here depends on besides its source and its plan's profile:
        the profile, the architecture cubins are built for, and what names a cubin (ABI,
        options, NVRTC's and the driver's versions)."""
        from tilec.targets.cuda.compiler import build_identity

        return f"cuda:{self.profile}:{self.arch}:runnable={self.runnable}:" \
            + build_identity(self.arch)

    def launch_record(self, exe: Any) -> dict[str, Any] | None:
        """What ``load_launch`` needs to call ``exe`` again in another process (JSON)."""
        return exe.launch_record() if isinstance(exe, CUDAExecutable) else None

    def load_launch(self, record: dict[str, Any]) -> CUDAExecutable | None:
        """The executable a ``launch_record`` describes, from the cached cubin; None when the
        record is of another format or the cubin is gone (compile again)."""
        return CUDAExecutable.from_launch_record(record, self.runnable)


def _require_machine(module: ir.Module, fn_name: str, target: str) -> None:
    fn = module.lookup(fn_name)
    if fn is None:
        raise KeyError(f"module has no function @{fn_name}")
    form = fn.attributes.get("form")
    if form != "machine":
        raise ValueError(f"the {target} backend prints Machine TileIR; @{fn_name} is "
                         f"{form or 'candidate'} (lower it with "
                         f"tilec.driver.compile_module(module, {fn_name!r}, {target!r}))")
