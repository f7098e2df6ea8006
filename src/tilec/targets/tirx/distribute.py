"""The planner's distributions as thread bindings on the GPU routes (``tirx:cuda``, ``tirx:metal``).

The distributed GPU form runs one block per instance of the top-level ``parallel``
(``blockIdx.x`` is the instance, flattened row-major) and lets the block's ``threads``
threads share the instance's work:

* **What is read from the plan.** Before export the Candidate module is scheduled for the
  route's profile (``cuda:sm_90`` for ``tirx:cuda``, ``metal:m1`` for ``tirx:metal``) with
  the default lowering options, exactly as tilec's own GPU targets schedule it
  (``tilec.lower.lower_to_scheduled``: the shared-SSA rewrite, the matrix planner, the
  schedule). The Scheduled form keeps every operation and adds the group's thread count
  (the ``parallel``'s ``threads``) and a distribution per tile value (``DistLayout``:
  thread ``t``'s register ``i`` holds element ``map(t, i)``): matrix accumulators in the
  planner's fragment layout, row reductions in their row layouts, the rest ``blocked``.
* **Element loops.** Each tile operation's element loop runs, in thread ``t``, over the
  elements its result's layout gives ``t`` (``for i in range(local): map(t, i)``; a
  ``masked`` layout's registers outside the tile skip). A ``store``/``store``-like operation follows
  its stored operand's layout (the consumer's ``use_layouts`` where it repartitions).
  Where the Scheduled form gives no usable layout (no ``layout``, another shape or thread
  count, a rank-0 tile, a slot or a join copy) and for a ``replicated`` layout (a
  broadcast source: written by its owners only, ``owner_predicate``, the threads' writes
  are not injective in ``threadIdx.x``, and TVM's ``ThreadSync`` then asks for a barrier
  inside the owners' condition, which it cannot place), the documented fallback is the
  elements strided over the threads: flat element ``t + k * threads``, row-major.
* **Storage and barriers.** Every stored tile of an instance lives in static ``shared``
  memory (``__shared__``; ``threadgroup`` on Metal), one buffer per tile, indexed by tile
  coordinates, so any thread may read any element. The barrier is conservative: ``__syncthreads()``
  (``T.tvm_storage_sync("shared")``) after every operation that writes a tile or device
  memory, and after every write of a carried, joined or branch slot, so a consumer never
  reads an element before its writer finished and a slot is never rewritten while
  another thread still reads the old value; and at the end of every loop iteration (a
  scalar read of a tile element, which no barrier follows, must finish before the next
  iteration rewrites the tile). Scalars are computed by every thread (the
  same value in each), so control flow around the barriers is uniform.
* **Reductions, products.** ``reduce`` gives each kept coordinate to one thread, which
  folds its contributions in row-major order of the reduced axes: the order
  ``strict_fold`` demands and a grouping ``unordered_tree`` allows (the ``tirx:llvm``
  result, bit for bit). ``mma`` gives each output element to one thread (the planner's
  accumulator layout), which runs the reference's strict ``k`` loop.

The one-thread-per-instance mapping (``gpu.THREADS`` instances a block) stays: for a whole
kernel when scheduling it fails (the reason is recorded), when its shared tiles exceed the
route's shared memory (counted without reuse), and on request (``one_thread_per_instance``).
``Export.mapping`` says which mapping a kernel got and why.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.ir import dist_layout as L

from .values import affine, inside

if TYPE_CHECKING:
    from .exporter import _Exporter as X

__all__ = ["PROFILES", "SHARED_LIMIT", "Distribution", "NotDistributable", "schedule",
           "one_thread_per_instance", "distributing", "keep_alive", "layout_of_result",
           "layout_of_operand"]

PROFILES = {"tirx:cuda": "cuda:sm_90", "tirx:metal": "metal:m1"}
"""The profile each GPU route is scheduled for (the thread counts and layouts it reads)."""

SHARED_LIMIT = {"tirx:cuda": 48 * 1024, "tirx:metal": 32 * 1024}
"""Static shared memory a block may use (bytes): CUDA's static ``__shared__`` limit and
Apple GPUs' threadgroup memory. The exporter counts every shared tile without reuse; over
the limit the kernel keeps one thread per instance."""

SCOPE = {"tirx:cuda": "shared", "tirx:metal": "shared"}
"""The storage scope of a block's tiles: static ``shared`` (TVM's ``ThreadSync`` treats
every ``shared.dyn`` buffer as one, and then asks for barriers inside the element loops'
thread-dependent conditions, which it cannot place)."""

_ENABLED: ContextVar[bool] = ContextVar("tirx_distribute", default=True)


class NotDistributable(Exception):
    """The kernel keeps the one-thread-per-instance mapping (the message says why)."""


@contextlib.contextmanager
def one_thread_per_instance() -> Iterator[None]:
    """Within the block, GPU routes export the one-thread-per-instance form.

    It applies to the exports made inside it, such as ``TirxBackend(target).compile``
    calls. ``tc.compile``'s cache does not key on it: a kernel compiled before, or whose
    executable is built outside the block, keeps the mapping it got. Both mappings compute
    the same results; ``Export.mapping`` (and a saved artifact's record) says which one a
    kernel has."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)


def distributing() -> bool:
    """Whether GPU routes export the distributed form here (``one_thread_per_instance``)."""
    return _ENABLED.get()


def schedule(module: ir.Module, target: str) -> ir.Module:
    """The Scheduled form of Candidate ``module`` for ``target``'s profile; raises
    ``NotDistributable`` with the reason when it cannot be scheduled."""
    from tilec.ir.diagnostics import PerformanceWarning
    from tilec.lower import LowerOptions, lower_to_scheduled

    try:
        with warnings.catch_warnings():  # the profile's performance advice is not this route's
            warnings.simplefilter("ignore", PerformanceWarning)
            return lower_to_scheduled(module, PROFILES[target], LowerOptions())
    except Exception as e:  # noqa: BLE001 - any scheduling failure keeps the simple mapping
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise NotDistributable(f"the {PROFILES[target]} schedule failed: {first}") from None


@dataclass
class Distribution:
    """The block of threads sharing an instance (set while the launch is exported)."""

    threads: int
    """Threads a block: the Scheduled group's ``threads``."""
    tid: Any
    """``threadIdx.x`` as an ``int64`` expression."""
    scope: str
    """The storage scope of the block's tiles."""
    shared_bytes: int = 0
    """Bytes of every shared tile allocated so far (no reuse counted)."""
    depth: int = 0
    """Open element loops (no barrier, no shared allocation inside one)."""
    scopes: list[list[Any]] = field(default_factory=lambda: [[]])
    """The shared buffers allocated in each open statement scope (``keep_alive``)."""


def group_threads(op: ir.Operation) -> int | None:
    """The Scheduled thread count of top-level ``parallel`` ``op`` (None: not scheduled)."""
    t = op.attr("threads")
    return t if isinstance(t, int) and t > 0 else None


def layout_of_result(op: ir.Operation, k: int = 0) -> L.DistLayout | None:
    """The distribution the Scheduled form gave result ``k`` of ``op`` (None: none)."""
    attr = op.attr("layout")
    lay = attr[k] if isinstance(attr, tuple) and k < len(attr) else attr
    return lay if isinstance(lay, L.DistLayout) else None


def layout_of_operand(op: ir.Operation, k: int) -> L.DistLayout | None:
    """The distribution ``op`` consumes operand ``k`` in: its ``use_layouts`` entry, else
    the producer's (None: none)."""
    uses = op.attr("use_layouts")
    if isinstance(uses, tuple) and k < len(uses) and isinstance(uses[k], L.DistLayout):
        return uses[k]
    v = op.operand(k)
    if isinstance(v, ir.OpResult):
        return layout_of_result(v.owner, v.index)
    try:
        from tilec.lower.scheduled_layouts import block_arg_layout

        lay = block_arg_layout(v)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - no layout recorded: the strided fallback
        return None
    return lay if isinstance(lay, L.DistLayout) else None


def usable(layout: L.DistLayout | None, shape: Sequence[int], threads: int) -> bool:
    """Whether ``layout`` distributes a tile of ``shape`` over ``threads`` threads."""
    return (layout is not None and tuple(layout.shape) == tuple(shape)
            and layout.threads == threads and len(shape) > 0 and not layout.replicated)


def barrier(x: X) -> None:
    """``__syncthreads()`` (no-op outside a distributed launch, or inside an element loop)."""
    d = x.dist
    if d is None or not x.device or d.depth:
        return
    x.T.evaluate(x.T.tvm_storage_sync("shared"))


@contextlib.contextmanager
def elements(x: X, shape: Sequence[int], layout: L.DistLayout | None = None
             ) -> Iterator[list[Any]]:
    """The coordinates of the elements of a ``shape`` tile this thread handles: ``layout``'s
    (when usable) or the strided fallback; the whole tile outside a distributed launch."""
    d = x.dist
    if d is None or not x.device:
        with x.loops(shape) as idx:
            yield idx
        return
    d.depth += 1
    try:
        if usable(layout, shape, d.threads):
            with _by_layout(x, d, layout, shape) as idx:  # type: ignore[arg-type]
                yield idx
        else:
            with _strided(x, d, shape) as idx:
                yield idx
    finally:
        d.depth -= 1


@contextlib.contextmanager
def _by_layout(x: X, d: Distribution, layout: L.DistLayout, shape: Sequence[int]
               ) -> Iterator[list[Any]]:
    T = x.T
    with T.serial(x.i64(0), x.i64(layout.local)) as i:
        coords = [x.bind(affine(e, [d.tid, i], [])) for e in layout.map.results]
        cond = inside(coords, [x.i64(n) for n in shape]) if layout.masked else None
        if cond is None:
            yield coords
        else:
            with x.when(cond):
                yield coords


@contextlib.contextmanager
def _strided(x: X, d: Distribution, shape: Sequence[int]) -> Iterator[list[Any]]:
    n = math.prod(int(s) for s in shape)
    steps = -(-n // d.threads)
    with x.T.serial(x.i64(0), x.i64(steps)) as k:
        flat = x.bind(d.tid + k * x.i64(d.threads))
        with x.when(flat < x.i64(n)):
            coords: list[Any] = []
            rest = flat
            for e in reversed([int(s) for s in shape][1:]):
                coords.append(x.bind(x.tx.floormod(rest, x.i64(e))))
                rest = x.bind(x.tx.floordiv(rest, x.i64(e)))
            if shape:
                coords.append(rest)
            yield coords[::-1]


@contextlib.contextmanager
def keep_alive(x: X) -> Iterator[None]:
    """A statement scope (the launch, a loop body, a branch) whose shared tiles stay live
    to its end: a read of each closes it. TVM's ``StorageRewrite`` otherwise reuses a dead
    tile's memory for a later one, in place inside an element loop (a reduction's result
    over its input, which other threads still read), and ``ThreadSync`` then asks for a
    barrier inside a thread-dependent condition. The reads are pure and TVM's
    ``RemoveNoOp`` drops them after the rewrite."""
    d = x.dist
    if d is None or not x.device or d.depth:
        yield
        return
    d.scopes.append([])
    try:
        yield
    finally:
        for buf in d.scopes.pop():
            x.T.evaluate(buf[tuple(x.i64(0) for _ in buf.shape)])


def count_shared(x: X, buf: Any, shape: Sequence[int], dtype: str) -> None:
    """Account shared tile ``buf`` of ``shape`` and TVM dtype ``dtype`` (kept alive to its
    scope's end); over the route's limit the kernel keeps one thread per instance."""
    d = x.dist
    assert d is not None
    d.scopes[-1].append(buf)
    bits = int("".join(ch for ch in dtype if ch.isdigit()) or 8)
    d.shared_bytes += max(1, math.prod(int(s) for s in shape)) * max(1, bits // 8)
    limit = SHARED_LIMIT[x.target]
    if d.shared_bytes > limit:
        raise NotDistributable(f"its tiles need more than {limit} bytes of shared memory a "
                               f"block (counted without reuse)")
