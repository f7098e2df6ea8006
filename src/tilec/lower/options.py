"""Options of the lowering passes and the error they raise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.plan import MatrixCandidate, PlannerOptions

__all__ = ["LowerOptions", "LoweringError", "LoweringBug"]


class LoweringError(ir.UserError):
    """A construct the target's lowering cannot realize (named, with the operation's
    location): the target rejects the program with this reason."""


class LoweringBug(RuntimeError):
    """An inconsistency inside the lowering (a value without its distribution ...): a
    compiler bug, never the user's."""


def _default_planner() -> PlannerOptions:
    # The direct accumulator output stores fragments through bounded per-lane views, so the
    # bounded-store capability the planner asks about is present in this realization.
    return PlannerOptions(bounded_store=True)


@dataclass(frozen=True)
class LowerOptions:
    """What the Scheduled and Machine lowering may choose (frozen; use ``dataclasses.replace``)."""

    planner: PlannerOptions = field(default_factory=_default_planner)
    """Options of the matrix planner (its ``threads`` also fixes non-matrix groups)."""
    threads: int | None = None
    """Threads per group for groups without a matrix plan; None picks from the tile sizes."""
    max_threads: int = 256
    """Largest thread count the heuristic for non-matrix groups picks."""
    force_matrix: Mapping[str, MatrixCandidate] | None = None
    """Realize these planner candidates (by operation label, ``mma#0`` ...) instead of the
    planner's selection; used to run every legal candidate of a matrix family."""
    shapes: Mapping[str, Any] | None = None
    """Shape-symbol values for the planner's folding (see ``tilec.plan.shapes_from_arrays``)."""
    row_reductions: bool = True
    """Realize last-axis reductions lane-locally, by shuffles and across subgroups; False keeps
    the checked serial reference for every reduction."""
    matrix_realizations: bool = True
    """Realize matrix operations with the planner's atoms; False uses the scalar reference."""
    double_buffer: bool = True
    """Also double-buffer the matrix operands of ``serial`` loops (``pipeline`` loops follow
    their ``window``)."""
    stages: int = 2
    """Ring-buffer versions of a double-buffered ``serial`` loop (a ``pipeline`` uses its
    ``window``)."""
    wgmma_stages: int | None = None
    """Ring-buffer versions of a double-buffered ``serial`` loop whose operands feed warpgroup
    instructions (``wgmma``); None (the default): 4 where a producer warpgroup fills the
    ring, 3 otherwise. The H200 sweep of 128x128x64 bf16 tiles ran 2 versions in 0.497
    ms, 3 in 0.391 and 4 in 0.375 with one group per SM (benchmarks/gemm_stages.py); with a
    producer warpgroup 4 versions ran 0.236 ms at 128x256x64 and 4096^3, 3 versions 0.273
    (benchmarks/cuda_ws.py)."""
    wgmma_in_flight: int = 0
    """Warpgroup instruction groups a staged loop leaves in flight at the end of each
    iteration (``wgmma.wait`` with this many pending), so that the next iteration's
    instructions issue before the previous ones retire; the ring is then refilled one
    iteration later. Applied where the schedule proves it legal
    (``schedule_staging._in_flight_blocker``), else noted in the report. Default 0 (wait for every
    iteration's group): with every thread issuing the ring's copies the shorter copy lead
    costs about what the overlap gains; on an H100 (bf16, 128x256x64, 3 versions,
    benchmarks/cuda_ws.py at 47f167f) 1 in flight ran 0.309 ms against 0.302 at 4096^3,
    2.388 against 2.442 at 8192^3 and 0.093 against 0.100 at 4096x4096x1024. (Sweeps
    before that commit measured a full wait ptxas injected into every iteration, not
    this protocol.) A plan variant (``variant={"wgmma_in_flight": 1}``); the producer
    warpgroup's ring (``warp_specialized``) always leaves one group in flight."""
    mbarrier_ring: bool = False
    """Release the ring versions of a staged ``wgmma`` loop through shared-memory barriers
    instead of a group barrier per iteration (docs/design/lowering.md, "mbarrier rings"):
    one ``full`` and one ``empty`` barrier per version; each warpgroup's first thread
    arrives on ``empty`` once its ``wgmma.wait 1`` has retired the previous iteration's
    group, every thread waits for that phase, and thread 0 then refills the version with
    tensor copies.
    One warpgroup instruction group then stays in flight across the back edge with the
    copies still ``W - 1`` iterations ahead. Applied where every staged operand may be
    filled by tensor copies and one group may stay in flight (else noted in the report);
    arrays the in-kernel tensor-map guard rejects run the ordinary ring in the same
    kernel."""
    split_k: int = 1
    """Split the K loop of a matrix group over this many programs per output tile
    (docs/design/split_k.md): the grid gets a leading axis of this extent, program ``s``
    runs its share of the K steps, stores its partial accumulators in a workspace the
    launcher allocates, and the last program of each tile to arrive adds the partials in
    split order (the same bits on every run) and runs the epilogue. It pays where the grid
    has fewer output tiles than the device has compute units (128x128x8192, 16x4096x4096).
    Applied where ``plan.proofs.split_loop`` proves it legal (the matrix
    order policy permits regrouping, zero-initialized f32 accumulators, no writes before
    or inside the loop, a CUDA target), else noted in the report. 1: no split."""
    tma: bool = True
    """Fill the swizzled rings of warpgroup operands with tensor-memory-accelerator copies
    (one thread issues a box per 64-column block, completion on a shared-memory barrier per
    ring version) where the profile has them and the window allows (docs/design/hopper.md);
    a window the in-kernel guard rejects falls back to ``cp.async``. False: ``cp.async``
    from every thread."""
    warp_specialized: bool | None = None
    """Give the copies of an mbarrier ring their own warpgroup (docs/design/
    warp_specialization.md; implies ``mbarrier_ring``, whose barriers the roles share). The
    group gets 128 more threads, a producer warpgroup whose first thread issues every
    version's tensor copies as soon as the consumers release it, while the original threads
    (the consumers) only wait, compute and release; with two consumer warpgroups
    ``setmaxnreg`` moves registers from the producer to them. Applied where the schedule
    proves it legal (``schedule_staging._roles_blocker``), else noted in the report. None (the
    default): where the group has two consumer warpgroups and the call's operand rows are
    16-byte aligned (``schedule_staging._auto_roles_blocker``; the H100 sweep that chose this rule
    is in docs/design/warp_specialization.md, "The default plan"); False: never."""
    persistent: int | None = None
    """Run a warp-specialized group as a persistent grid of at most this many programs
    (0: one program per output tile). Each program walks the output tiles ``t = program,
    program + P, ...`` (``P`` the programs launched) in the grid's traversal order, and both
    roles carry the ring's versions and phases from one tile to the next, so that the
    producer fills the next tile's first versions while the consumers store the last
    tile's output. Applied where the group is warp-specialized and its loop's bounds do not
    depend on the program's coordinates (``schedule_staging._plan_persistent``), else noted in the
    report. None (the default): one program per compute unit of the profile, walking the
    tiles in the grouped traversal (``grouped:8``) unless
    ``PlannerOptions.program_traversal`` names one; not persistent where static shapes give
    fewer than two output tiles per compute unit."""
    cluster: int | None = None
    """Pair the programs of a persistent warp-specialized group into clusters of this many
    (2) groups that share the staged operand whose window does not depend on one grid axis
    (B for two neighbouring row tiles): each group's producer copies half of that operand's
    boxes and multicasts them into both groups' rings, so L2 delivers it once per pair
    (docs/design/warp_specialization.md, "Clusters"). Applied where the group is persistent
    and such an operand exists (``schedule_staging._plan_cluster``), else noted in the report. None
    (the default) and 0 or 1: no cluster."""
    pingpong: bool | None = None
    """Give a persistent warp-specialized group of one consumer warpgroup a second one, each
    walking every other output tile of the program (docs/design/warp_specialization.md,
    "Ping-pong consumers"): the producer fills the ring for both in tile order, the two
    consumers take turns at the K loop (an mbarrier pair orders each one's loop after the
    other's), so one stores its tile's output while the other computes. Applied where the
    group is persistent, not in a cluster, has 128 consumer threads and both consumers'
    shared buffers fit beside the ring (``schedule_staging._plan_pingpong``), else noted in
    the report; where the tensor-map guard fails the first consumer walks every tile with
    the ordinary ring. None (the default) and False: one consumer set per group."""
    warpgroup_turns: bool | None = None
    """Let the two consumer warpgroups of a warp-specialized loop with two warpgroup
    products per iteration (attention's key loop: the scores, then the probabilities times
    the values) take turns at the tensor cores (docs/design/warp_specialization.md,
    "Warpgroup turns"): a warpgroup issues the second product of one iteration and the
    first of the next only after the other warpgroup has issued its own, so that one
    computes its softmax while the other's products run. Applied where the loop keeps no
    group in flight, has exactly two warpgroup products directly in its body, its group two
    consumer warpgroups and no cluster (``schedule_staging._plan_turns``), else noted in the
    report; not in the ordinary-ring fallback of a failed tensor-map guard. None (the
    default) and False: no turns."""
    tensor_store: bool | None = None
    """Store a warp-specialized group's output tile through shared memory with tensor
    stores (docs/design/warp_specialization.md, "Tensor stores"): the consumers write each
    128-byte-wide column chunk of the tile into one of two swizzled buffers, fence, meet,
    and their first thread issues the chunk's ``cp.async.bulk.tensor`` store, which runs
    while they write the next chunk and, in a persistent group, while they compute the next
    tile. Applied where the stored value's register parts each lie in one chunk (the
    accumulator's layout), the window is a plain window of a 16- or 32-bit kernel
    parameter and the buffers fit beside the ring (``schedule_staging._plan_tensor_store``), else
    noted in the report; where the array has no legal tensor map at launch the kernel
    stores from registers. None (the default) and
    True: where it applies; False: never."""
    tensor_store_buffers: int = 2
    """Shared buffers of a tensor-stored tile (2 to 16), chunk ``c`` written into buffer
    ``c mod n``: before the consumers write a chunk, the store that last read its buffer must
    be done, so with ``n`` buffers the first thread's wait at each chunk leaves ``n - 2``
    stores reading (two buffers: every earlier store done before the meeting). More buffers
    cost shared memory the ring could have (each is ``rows x 128`` bytes) and let each
    chunk's store overlap the next ``n - 1`` chunks; where they do not fit beside the ring
    the tile is stored from registers and the report says so. ``schedule_staging``."""
    async_copies: bool = True
    """Stage double-buffered operands with 16-byte asynchronous copies where a guard proves
    the alignment (else, and when False, with ordinary loads and shared stores)."""
    ldmatrix_trans: bool = True
    """Load pairs of 16-bit B fragments (``rn >= 2`` 8-column blocks of a row-major K x N
    staged tile) with one ``ldmatrix.x4.trans`` each; False loads every B fragment element
    by element through the atom's layout."""
    target_facts: Mapping[str, int] | None = None
    """Profile facts the target's own realization plan uses instead of its profile's (cpu:
    ``register_block_rows``, ``register_block_vectors`` ..., see ``targets/cpu/plan.py``);
    a target without such a plan ignores them."""
    verify: bool = True
    """Verify each produced form."""

    def __post_init__(self) -> None:
        if self.wgmma_in_flight not in (0, 1):
            raise ValueError(f"wgmma_in_flight must be 0 or 1, got {self.wgmma_in_flight}")
        if not isinstance(self.split_k, int) or isinstance(self.split_k, bool) \
                or not 1 <= self.split_k <= 64:
            raise ValueError(f"split_k must be an integer from 1 to 64, got {self.split_k!r}")
        if self.persistent is not None and (
                not isinstance(self.persistent, int) or isinstance(self.persistent, bool)
                or not 0 <= self.persistent <= 1 << 20):
            raise ValueError(f"persistent must be an integer from 0 to {1 << 20} (programs), "
                             f"got {self.persistent!r}")
        if self.cluster not in (None, 0, 1, 2):
            raise ValueError(f"cluster must be 0, 1 or 2 (groups per cluster), got "
                             f"{self.cluster!r}")
        n = self.tensor_store_buffers
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 16:
            raise ValueError(f"tensor_store_buffers must be an integer from 2 to 16 (a chunk is "
                             f"written while another's store reads), got {n!r}")
        if self.stages < 2 or (self.wgmma_stages is not None and self.wgmma_stages < 2):
            raise ValueError(f"stages must be at least 2, got {self.stages} and "
                             f"{self.wgmma_stages} (wgmma)")
