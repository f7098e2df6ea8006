"""The GPU form of the bridge's PrimFunc (``tirx:cuda``, ``tirx:metal``): one launch.

A GPU kernel is one launch, as on tilec's own GPU targets (dsl.md, "Programs"): the code
outside the top-level ``tc.parallel`` nest only computes scalars, views of memory and tile
constants, which TVM keeps on the host (``SplitHostDevice``), and the nest is the kernel.

Thread mapping (one simple mapping, documented rather than planned): the instances of the
top-level ``parallel`` are flattened row-major and each runs whole on one GPU thread,
``THREADS`` threads a block (``blockIdx.x * THREADS + threadIdx.x`` is the instance, the
last block's threads past the count do nothing). The instance's tiles are thread-local
arrays and its operations the same loop nests as on ``tirx:llvm``; nested ``parallel``
nests run in order inside the thread. The planner's distributions (a group's threads
sharing an instance's tiles, shared memory, tensor cores) are not used.

Refused, with the construct and the reason: anything outside the nest but scalar code,
views, constants and host checks (a second nest, a loop, a load or store, a function
result: each would need another launch or host access to device memory); runtime failures
inside or after the nest (a check the launcher cannot evaluate first, a division that may
be zero, a ``reindex`` that may leave its tile, an access through a ``total`` view not
proven in range: the bridge has no device status record); atomics and scatters (the bridge
has no atomic builtin, and plain read-modify-writes race between threads). A memory
allocated inside a program is the thread's own (``local`` scope).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.targets.clike import UnsupportedError
from tilec.targets.kernel_checks import host_check_ops, host_divisions

from .threads import instance_coords, instance_count

if TYPE_CHECKING:
    from .exporter import _Exporter as X

__all__ = ["THREADS", "prepare", "check_host_op", "launch", "no_failures", "refuse_in_device"]

THREADS = 64
"""Threads a block: two warps, so a block's threads share little (each runs an instance)."""

_HOST_OPS = frozenset({"constant", "arith", "view", "tuple", "tuple_get", "check", "iota",
                       "parallel", "sync"})
"""What the code around the nest may hold: scalar code, views and constant tiles (read
through, nothing is stored), host checks and the nest itself."""


def prepare(x: X) -> None:
    """Before the body: the checks and divisions the launcher evaluates (not translated);
    function results are refused (they would be read back from the device)."""
    fn = x.fn
    if fn.result_types:
        raise x.unsupported(None, f"@{fn.name} returns values; on {x.target} a kernel writes "
                                  f"its results into memory arguments")
    before = host_check_ops(fn)["before"] + host_divisions(fn)["before"]
    x.host_ops = {op.id for op in before}
    x.launched = False


def check_host_op(x: X, op: ir.Operation) -> None:
    """``op`` outside the nest: scalar code, views, constants and one nest only."""
    if op.name not in _HOST_OPS or (op.name == "arith" and any(
            isinstance(v.type, ir.TileType) for v in op.operands)):
        raise x.unsupported(op, f"'{op.name}' outside the tc.parallel nest: on {x.target} a "
                                f"kernel is one launch, and the code around its nest only "
                                f"computes scalars, views and constants")
    if op.name == "parallel" and getattr(x, "launched", False):
        raise x.unsupported(op, f"a second top-level tc.parallel nest: on {x.target} a kernel "
                                f"is one launch (write two kernels and call them in order)")
    if op.name == "parallel" and op.results:
        raise x.unsupported(op, f"a top-level tc.parallel whose instances update tiles "
                                f"defined outside it: on {x.target} the joined tile would "
                                f"live on the device after the launch")


def no_failures(x: X) -> UnsupportedError:
    """The refusal of a runtime failure the launcher cannot evaluate before the call."""
    op = x.current
    what = f"'{op.name}'" if op is not None else "an operation"
    return x.unsupported(op, f"{what} may fail at run time (a check, a division by a value "
                             f"that may be zero, a reindex leaving its tile or an access "
                             f"leaving a total view), and {x.target} has no device status "
                             f"record to report it")


def refuse_in_device(x: X, op: ir.Operation, reason: str) -> None:
    """Refuse ``op`` inside the launch with ``reason``."""
    if x.gpu:
        raise x.unsupported(op, f"'{op.name}' inside a GPU program: {reason}")


@contextlib.contextmanager
def launch(x: X, op: ir.Operation, extents: list[Any]) -> Iterator[list[Any]]:
    """The top-level ``parallel``: the instance count on the host and, when it is positive,
    a launch whose threads get their instance's coordinates (row-major, the last fastest):
    distributed (``x.distribute``: one block per instance, the Scheduled group's threads
    sharing it, ``distribute``) or one thread per instance (``THREADS`` a block)."""
    if x.distribute:
        with _launch_blocks(x, op, extents) as coords:
            yield coords
        return
    tx, T = x.tx, x.T
    x.launched = True
    ns, total = instance_count(x, extents)
    total = x.bind(total)
    blocks = x.bind(tx.Cast("int32", tx.floordiv(total + x.i64(THREADS - 1), x.i64(THREADS))))
    with x.when(total > x.i64(0)):
        with T.launch_thread("blockIdx.x", blocks) as bx, \
                T.launch_thread("threadIdx.x", THREADS) as th:
            f = x.bind(tx.Cast("int64", bx) * x.i64(THREADS) + tx.Cast("int64", th))
            with x.when(f < total):
                coords = instance_coords(x, f, ns)
                x.device = True
                try:
                    yield coords
                finally:
                    x.device = False


@contextlib.contextmanager
def _launch_blocks(x: X, op: ir.Operation, extents: list[Any]) -> Iterator[list[Any]]:
    """One block per instance (``blockIdx.x``, at most ``2**31 - 1`` instances), the
    group's ``threads`` (the Scheduled form's) sharing it (``threadIdx.x``)."""
    from .distribute import SCOPE, Distribution, NotDistributable, group_threads

    threads = group_threads(op)
    if threads is None:
        raise NotDistributable("the Scheduled form gives its group no thread count")
    tx, T = x.tx, x.T
    x.launched = True
    ns, total = instance_count(x, extents)
    total = x.bind(total)
    with x.when(total > x.i64(0)):
        with T.launch_thread("blockIdx.x", x.bind(tx.Cast("int32", total))) as bx, \
                T.launch_thread("threadIdx.x", threads) as th:
            coords = instance_coords(x, x.bind(tx.Cast("int64", bx)), ns)
            x.dist = Distribution(threads, x.bind(tx.Cast("int64", th)), SCOPE[x.target])
            x.device = True
            try:
                with x.scope():
                    yield coords
            finally:
                x.device = False
                x.dist = None
                x.out.mapping = f"distributed: one block per instance, {threads} threads a block"
