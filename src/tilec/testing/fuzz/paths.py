"""Running a program on one path, and what the run ended as.

Paths: ``reference`` (target ``reference``), ``cpu``, ``simt:<profile>`` (``tc.simulate``
for ``cuda:sm_90``, ``cuda:sm_80``, ``metal:m1``), ``metal`` (the ``metal:m1`` target: its
MSL is emitted and built, which off macOS is the libclang check, then the simulator runs the
Machine TileIR the emitter printed; where a Metal device is, the kernel runs on it) and
``cuda`` (the GPU: arrays are torch CUDA tensors, bf16 through its bits) and ``tirx:llvm``
(the TIRx bridge through TVM's LLVM, where TVM imports; named with ``--paths``, not a
default). A path may carry a
plan variant after ``+``: ``simt:cuda:sm_90+grouped:3`` runs the grids with that program
traversal (``ir.traversal``), ``+mbarrier`` releases staged wgmma rings through mbarriers
(``mbarrier_ring``), ``+ws`` gives them a producer warpgroup of their own
(``warp_specialized``; ``+plain`` keeps the ordinary ring where the default plan would
give one), ``+inflight`` leaves one wgmma group in flight across the back edge
of the ordinary ring (``wgmma_in_flight``), ``+splitk:3`` splits the K loops of matrix
groups over 3 programs per output tile (``split_k``), ``+persistent:2`` runs
warp-specialized groups as 2 programs walking the output tiles (``persistent``),
``+epilogue`` fuses proved scalar epilogues into the accumulator's registers
(``fuse_matrix_epilogues``, the default; ``+trip`` does not), ``+fences`` keeps the
reference group barrier sequence (no ``coalesce_group_barriers``), ``+copybatch:4``
copies synchronous staged operands 4 chunks at a time, loads then stores
(``max_copy_batch``), ``+boundedk`` skips the K steps past a proved physical K and stages
only their chunks (``bounded_k_views``), ``+boundedmn`` skips the accumulator rectangles
outside proved bounded M/N views (``bounded_mn_views``), ``+forward`` lets the planner
choose forwarded matrix operands (``forward_snapshots``: each lane loads its fragments from
global memory where the snapshot forwarding proof holds), ``+rings`` lets the planner choose
each warpgroup ring's versions with its candidate, which the lowering places
(``plan_ring_versions``), ``+subgroups`` weakens the group
barriers the independent-subgroup proof allows (``elide_independent_subgroup_barriers``),
``+ssa:recompute`` realizes pure multi-consumer values so (``shared_ssa``: also
``materialize``, ``expensive_only``), ``+threads:32`` fixes the threads per group (one
subgroup: every exchange subgroup-local), ``+grouped:3+mbarrier`` the first two
(``split_path``).
Only the public API is used. A path's exception is a *rejection* when it is
one of the user-facing error types and its message names the kernel's file;
anything else is *internal*.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec as tc

__all__ = ["CPU_PATHS", "ALL_PATHS", "Outcome", "execute", "classify", "gpu_available",
           "PathTimeout", "to_device", "to_host", "reason_key", "split_path", "path_error",
           "is_gpu"]

CPU_PATHS = ("reference", "cpu", "simt:cuda:sm_90", "simt:cuda:sm_80", "simt:metal:m1")
"""The paths that run without a GPU."""
ALL_PATHS = (*CPU_PATHS, "metal", "cuda", "tirx:llvm")
"""Every path."""

REJECTIONS = ("TileSyntaxError", "LoweringError", "UnsupportedError", "TargetUnavailable")
"""Exception classes (by name: the fuzzer imports no compiler internals) a path may reject
a program with; the message must name the reason and the kernel's source location."""


VARIANT_FLAGS = {"mbarrier": ("mbarrier_ring", True), "ws": ("warp_specialized", True),
                 "plain": ("warp_specialized", False),
                 "inflight": ("wgmma_in_flight", 1),
                 "epilogue": ("fuse_matrix_epilogues", True),
                 "trip": ("fuse_matrix_epilogues", False),
                 "fences": ("coalesce_group_barriers", False),
                 "subgroups": ("elide_independent_subgroup_barriers", True),
                 "cluster": ("cluster", 2),
                 "pingpong": ("pingpong", True),
                 "turns": ("warpgroup_turns", True),
                 "regstore": ("tensor_store", False),
                 "storebuf3": ("tensor_store_buffers", 3),
                 "simdgroup": ("simdgroup_matrix", "only"),
                 "boundedk": ("bounded_k_views", True),
                 "boundedmn": ("bounded_mn_views", True),
                 "forward": ("forward_snapshots", True),
                 "rings": ("plan_ring_versions", True),
                 "mpp": ("metal_mpp", "only"),
                 "families": ("metal_mpp", "auto")}
"""Path suffix words that set a plan-variant choice (``fences`` keeps the reference
group barrier sequence: no coalescing; ``subgroups`` weakens the group barriers the
independent-subgroup proof allows to subgroup barriers, or removes them; ``plain`` keeps
the ordinary ring where the default plan gives a producer warpgroup; ``trip`` sends the
accumulator through shared memory where the default plan fuses its epilogue; ``cluster``
pairs a persistent group's programs into clusters of two that multicast their shared
operand; ``pingpong`` gives a persistent group of one consumer warpgroup a second that
takes alternate tiles; ``turns`` lets two consumer warpgroups take turns at a loop's two
warpgroup products per iteration; ``regstore`` stores a warp-specialized group's output from
registers instead of through tensor stores; ``storebuf3`` sends it through three chunk
buffers instead of two (a chunk count that three does not divide makes each tile's stores
start with a wait);
``simdgroup`` realizes metal:m1 f32 products with the opaque ``simdgroup_matrix``
fragments wherever legal; ``forward`` lets the planner read proved read-only matrix
operands from global memory, unstaged, where its basis prefers it (with ``mpp`` or
``families``: MPP operations reading device tensors); ``rings`` lets the planner choose
each warpgroup ring's versions (2 to 4) before it selects the group's plan; ``mpp`` with MPP
``matmul2d`` wherever its descriptor rules hold, the SIMD-group family elsewhere;
``families`` lets the cross-family basis choose among MPP, SIMD-group and scalar per
group)."""


def split_path(path: str) -> tuple[str, dict[str, Any] | None]:
    """A path's base and its plan variant (None without a ``+`` suffix): choices each after a
    ``+``, each ``grouped:G`` (a program traversal), ``splitk:S`` (``split_k``; a word
    that is not a number stays a string, for ``path_error`` to name), ``persistent:P``
    (``persistent``, the same), ``copybatch:B`` (``max_copy_batch``, the same),
    ``ssa:MODE`` (``shared_ssa``: retain, recompute, materialize or expensive_only),
    ``threads:T`` (``threads``: exact threads per group) or a word of
    ``VARIANT_FLAGS`` (``mbarrier``: ``mbarrier_ring``; ``ws``: ``warp_specialized``;
    ``epilogue``: ``fuse_matrix_epilogues``; ``fences``: no ``coalesce_group_barriers``;
    ``inflight``: ``wgmma_in_flight`` 1)."""
    base, plus, suffix = path.partition("+")
    if not plus:
        return base, None
    variant: dict[str, Any] = {}
    for part in suffix.split("+"):
        if part in VARIANT_FLAGS:
            field, value = VARIANT_FLAGS[part]
            variant[field] = value
        elif part.startswith("splitk:"):
            n = part[len("splitk:"):]
            variant["split_k"] = int(n) if n.isdigit() else n
        elif part.startswith("persistent:"):
            n = part[len("persistent:"):]
            variant["persistent"] = int(n) if n.isdigit() else n
        elif part.startswith("copybatch:"):
            n = part[len("copybatch:"):]
            variant["max_copy_batch"] = int(n) if n.isdigit() else n
        elif part.startswith("ssa:"):
            variant["shared_ssa"] = part[len("ssa:"):]
        elif part.startswith("threads:"):
            n = part[len("threads:"):]
            variant["threads"] = int(n) if n.isdigit() else n
        else:
            variant["program_traversal"] = part
    return base, variant


def is_gpu(path: str) -> bool:
    """Whether ``path`` runs on the GPU (``cuda``, with or without a variant): a campaign runs
    it in its own process, which holds the device, after a worker compiled it."""
    return split_path(path)[0] == "cuda"


def path_error(path: str) -> str | None:
    """Why ``path`` is not one the fuzzer runs, or None."""
    base, variant = split_path(path)
    if base == "metal":
        from tilec.targets.metal.check import checker_unavailable

        why = checker_unavailable()
        if why is not None and _metal_unavailable() is not None:
            return f"the metal path checks every emitted source: {why}"
    if base == "tirx:llvm":
        from tilec.runtime import why_unavailable

        why = why_unavailable(base)
        if why is not None:
            return f"the tirx:llvm path needs TVM: {why}"
    if base not in ALL_PATHS:
        words = ", ".join(f"'+{w}'" for w in (*VARIANT_FLAGS, "grouped:G", "splitk:S",
                                                "persistent:P", "copybatch:B", "ssa:MODE",
                                                "threads:T"))
        return f"unknown path {path!r}; known: {', '.join(ALL_PATHS)} (a path may add " \
            f"{words} or several: '+grouped:G+mbarrier')"
    if variant is not None:
        from tilec.ir.traversal import parse_traversal
        from tilec.plan import SHARED_SSA_MODES

        k = variant.get("split_k")
        if k is not None and not (isinstance(k, int) and 1 <= k <= 64):
            return f"split_k must be an integer from 1 to 64, got {k!r} in {path!r}"
        p = variant.get("persistent")
        if p is not None and not (isinstance(p, int) and 1 <= p <= 1 << 20):
            return f"persistent must be an integer from 1 to {1 << 20}, got {p!r} in {path!r}"
        b = variant.get("max_copy_batch")
        if b is not None and not (isinstance(b, int) and 1 <= b <= 16):
            return f"copybatch must be an integer from 1 to 16, got {b!r} in {path!r}"
        m = variant.get("shared_ssa")
        if m is not None and m not in SHARED_SSA_MODES:
            return f"ssa must be one of {', '.join(SHARED_SSA_MODES)}, got {m!r} in {path!r}"
        t = variant.get("threads")
        if t is not None and not (isinstance(t, int) and 1 <= t <= 1024):
            return f"threads must be an integer from 1 to 1024, got {t!r} in {path!r}"
        if "program_traversal" in variant:
            why = parse_traversal(variant["program_traversal"])
            if isinstance(why, str):
                return why
    return None


class PathTimeout(Exception):
    """A path ran past its time limit."""


@dataclass
class Outcome:
    """How one program ended on one path."""

    kind: str
    """``ran`` (outputs to compare), ``ok``, ``mismatch``, ``rejected``, ``internal``,
    ``timeout``."""
    reason: str = ""
    """Rejections and internal errors: a short key (numbers and paths removed) to count by."""
    detail: str = ""
    """The full message or the first differing elements."""
    seconds: float = 0.0
    """Wall time of the run."""
    warned: tuple[str, ...] = ()
    """Warnings tilec gave while the path ran, as reason keys (a C compiler crash that a
    retry recovered from): counted, never a failure, never silent."""


def reason_key(msg: str) -> str:
    """A message reduced to what identifies its kind: the first line without the location
    prefix, numbers replaced by N, at most 100 characters."""
    line = msg.strip().splitlines()[0] if msg.strip() else ""
    line = re.sub(r"^\S*:\d+:\d+: error: ", "", line)
    line = re.sub(r"'[^']*' at \S+", "'...'", line)
    line = re.sub(r"/\S+\.py(:\d+)*", "<file>", line)
    line = re.sub(r"%\w+", "%v", line)
    line = re.sub(r"\d+", "N", line)
    return line[:100]


def classify(e: BaseException, kernel_file: str) -> Outcome:
    """A rejection (a user-facing error naming the kernel's location) or an internal error."""
    name = type(e).__name__
    msg = str(e)
    if name in REJECTIONS and not msg.lstrip().startswith("internal"):
        if kernel_file and kernel_file not in msg and name != "TargetUnavailable":
            return Outcome("internal", f"{name} without a source location: {reason_key(msg)}",
                           f"{name}: {msg}")
        return Outcome("rejected", f"{name}: {reason_key(msg)}", msg)
    if name == "SimulationError":
        kind = getattr(e, "kind", "?")
        return Outcome("internal", f"SimulationError[{kind}]: {reason_key(msg)}", msg)
    return Outcome("internal", f"{name}: {reason_key(msg)}", f"{name}: {msg}")


@contextmanager
def _time_limit(seconds: float | None) -> Any:
    if not seconds or not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise PathTimeout(f"ran past {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def execute(path: str, kernel: Any, args: list[Any], kernel_file: str,
            timeout: float | None = 120.0) -> Outcome:
    """Run ``kernel`` on ``path`` with ``args`` (numpy arrays written in place)."""
    import time
    import warnings

    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with _time_limit(timeout):
                base, variant = split_path(path)
                run = _RUNNERS[_family(base)]
                if variant is None:
                    run(base, kernel, args)
                else:
                    run(base, kernel, args, variant)
        except PathTimeout as e:
            out = Outcome("timeout", "timeout", str(e))
        except Exception as e:  # every other failure is classified, never hidden
            out = classify(e, kernel_file)
        else:
            out = Outcome("ran")
    out.seconds = time.perf_counter() - t0
    out.warned = tuple(reason_key(str(w.message)) for w in seen
                       if str(w.message).startswith("tilec:"))
    return out


def _family(path: str) -> str:
    return "simt" if path.startswith("simt:") else path


def _run_target(path: str, kernel: Any, args: list[Any], variant: Any = None) -> None:
    tc.compile(kernel, *args, target=path, variant=variant)(*args)


def _run_simt(path: str, kernel: Any, args: list[Any], variant: Any = None) -> None:
    if variant is not None:  # the same pipeline as tc.simulate, with the variant
        _run_target(path, kernel, args, variant)
        return
    tc.simulate(kernel, *args, target=path.split(":", 1)[1])


def _run_cuda(path: str, kernel: Any, args: list[Any], variant: Any = None) -> None:
    import torch

    dev = [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in args]
    tc.compile(kernel, *dev, target="cuda", variant=variant)(*dev)
    torch.cuda.synchronize()
    for i, (a, d) in enumerate(zip(args, dev)):
        if isinstance(a, np.ndarray):
            args[i][...] = to_host(torch, d)


def _run_metal(path: str, kernel: Any, args: list[Any], variant: Any = None) -> None:
    """Emit and build for metal:m1; run on the device where there is one, else simulate the
    very Machine TileIR that was emitted (the simt:metal:m1 pipeline's, checked equal)."""
    c = tc.compile(kernel, *args, target="metal:m1", variant=variant)
    exe = c.executable()  # emits; building checks the source with libclang off macOS
    if exe.runnable:
        c(*args)
        return
    if exe.verified != "checked with libclang":
        raise RuntimeError(f"the emitted MSL was not checked: {exe.verified}")
    s = tc.compile(kernel, *args, target="simt:metal:m1", variant=variant)
    if s.after("allocate") != c.after("allocate"):
        raise AssertionError("the simulator's Machine TileIR differs from the one emitted "
                             "as MSL")
    s(*args)


def _metal_unavailable() -> str | None:
    """None when metal:m1 kernels run on a device here (the metal path then launches)."""
    for info, why in tc.available_targets():
        if info.name == "metal:m1":
            return why
    return "no metal:m1 target is registered"


_RUNNERS: dict[str, Callable[[str, Any, list[Any]], None]] = {
    "reference": _run_target, "cpu": _run_target, "tirx:llvm": _run_target, "simt": _run_simt,
    "metal": _run_metal,
    "cuda": _run_cuda}


def to_device(torch: Any, a: np.ndarray) -> Any:
    """A CUDA tensor with ``a``'s contents (bf16 through its bits)."""
    import ml_dtypes

    a = np.ascontiguousarray(a)
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16).cuda()
    return torch.from_numpy(a.copy()).cuda()


def to_host(torch: Any, t: Any) -> np.ndarray:
    """A numpy copy of a CUDA tensor (bf16 as ``ml_dtypes.bfloat16``)."""
    import ml_dtypes

    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).cpu().numpy().view(ml_dtypes.bfloat16)
    return t.cpu().numpy()


def gpu_available() -> str | None:
    """None when the ``cuda`` path can run here (a device and torch), else why not."""
    for info, why in tc.available_targets():
        if info.name == "cuda":
            if why is not None:
                return why
            break
    else:
        return "no cuda target is registered"
    try:
        import torch
    except ImportError:
        return "torch is not installed (the GPU path allocates CUDA tensors with torch)"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None
