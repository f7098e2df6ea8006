"""The SIMT simulator's opaque ``simdgroup_matrix`` fragments (``simdgroup.load`` / ``.mma`` /
``.store``, docs/design/metal.md).

Apple documents no assignment of the 64 elements of a ``simdgroup_float8x8`` to the lanes of
a SIMD-group, so no program may depend on one. The simulator makes that observable: each
launch draws a random permutation ``p`` of the 64 block elements, and register ``i`` of lane
``l`` of a fragment holds element ``p[2l + i]`` of its block (row-major). A program that
reads a fragment's registers through any fixed layout (the lane-FMA one, say) gets wrong
values in the simulator instead of silently matching. ``TILEC_SIMDGROUP_LAYOUT_SEED`` fixes
the permutation (to replay a failure); the permutation is never the identity, which is the
lane-FMA layout ``(l // 4, 2 * (l % 4) + i)``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx

from .errors import SimulationError
from .simt_atoms import WARP, AtomContext, _warps, atom_impl
from .simt_memory import LaneView, gather, scatter

__all__ = ["block_permutation", "SEED_VARIABLE"]

SEED_VARIABLE = "TILEC_SIMDGROUP_LAYOUT_SEED"
"""Environment variable that fixes the per-launch fragment permutation (an integer)."""

_N = 64


def block_permutation(ctx: AtomContext) -> np.ndarray:
    """This launch's element permutation (drawn on first use, then kept by the launch)."""
    host = getattr(ctx, "host", ctx)
    perm = getattr(host, "_simdgroup_permutation", None)
    if perm is None:
        seed = os.environ.get(SEED_VARIABLE)
        rng = np.random.default_rng(int(seed) if seed else None)
        perm = rng.permutation(_N)
        while np.array_equal(perm, np.arange(_N)):
            perm = rng.permutation(_N)
        host._simdgroup_permutation = perm
    return perm


def _block(ctx: AtomContext, op: ir.Operation, view: Any, active: np.ndarray,
           warps: np.ndarray) -> None:
    """Checks that ``view`` is an 8x8 view naming one block per SIMD-group."""
    cid = op.attr("catalog_id")
    if not isinstance(view, LaneView) or view.shape != (8, 8):
        shape = view.shape if isinstance(view, LaneView) else type(view).__name__
        raise SimulationError(f"{cid} takes an 8x8 view, got {shape}", "unsupported", [op])
    coords, mask = view.locate(active, op)
    for w in warps:
        lanes = slice(w * WARP, (w + 1) * WARP)
        for c in coords:
            c = np.asarray(np.broadcast_to(c, mask.shape))[lanes]
            if not (c == c[0]).all():
                raise SimulationError(f"{cid}: the lanes of SIMD-group {w} name different "
                                      "blocks (the view must be uniform across the SIMD-group)",
                                      "unsupported", [op])
        if not mask[lanes].all():
            raise SimulationError(f"{cid}: the block of SIMD-group {w} lies partly outside its "
                                  "view (simdgroup_load/store have no bounds)", "out_of_range",
                                  [op])


def _frag(op: ir.Operation, role: str, x: Any, lanes: int) -> np.ndarray:
    x = np.asarray(x)
    if x.shape != (lanes, 2) or x.dtype != np.float32:
        raise SimulationError(f"{op.attr('catalog_id')}: operand {role} must be an f32 "
                              f"fragment (2 registers per lane), got {x.dtype} {x.shape[1:]}",
                              "unsupported", [op])
    return x


def _assemble(perm: np.ndarray, regs: np.ndarray) -> np.ndarray:
    """One SIMD-group's 8x8 block from its lanes' registers ``(32, 2)``."""
    flat = np.empty(_N, regs.dtype)
    flat[perm] = regs.reshape(-1)
    return flat.reshape(8, 8)


def _spread(perm: np.ndarray, block: np.ndarray) -> np.ndarray:
    """An 8x8 block as its lanes' registers ``(32, 2)``."""
    return block.reshape(-1)[perm].reshape(WARP, 2)


@atom_impl("simdgroup.load")
def _load(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
          ) -> Sequence[Any]:
    view = args[0]
    warps = _warps(ctx, op, active)
    _block(ctx, op, view, active, warps)
    if view.storage.array.dtype != np.float32:
        raise SimulationError(f"simdgroup.load reads f32 blocks; the buffer holds "
                              f"{view.storage.array.dtype}", "unsupported", [op])
    blocks = gather(view, active, op, np.float32(0), np.dtype(np.float32), ctx.copies)
    perm = block_permutation(ctx)
    out = np.zeros((ctx.lanes, 2), np.float32)
    for w in warps:
        out[w * WARP:(w + 1) * WARP] = _spread(perm, blocks[w * WARP])
    return [out]


@atom_impl("simdgroup.mma")
def _mma(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
         ) -> Sequence[Any]:
    a, b, c = (_frag(op, role, x, ctx.lanes) for role, x in zip("abc", args))
    perm = block_permutation(ctx)
    out = c.copy()
    for w in _warps(ctx, op, active):
        lanes = slice(w * WARP, (w + 1) * WARP)
        d = nx.matmul(_assemble(perm, a[lanes]), _assemble(perm, b[lanes]),
                      _assemble(perm, c[lanes]), "exact")
        out[lanes] = _spread(perm, np.asarray(d, np.float32))
    return [out]


@atom_impl("simdgroup.store")
def _store(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
           ) -> Sequence[Any]:
    view = args[0]
    frag = _frag(op, "fragment", args[1], ctx.lanes)
    warps = _warps(ctx, op, active)
    _block(ctx, op, view, active, warps)
    perm = block_permutation(ctx)
    # the SIMD-group writes each element once: its first lane carries the block
    writer = np.zeros(ctx.lanes, bool)
    values = np.zeros((ctx.lanes, 8, 8), np.float32)
    for w in warps:
        writer[w * WARP] = True
        values[w * WARP] = _assemble(perm, frag[w * WARP:(w + 1) * WARP])
    scatter(view, writer, op, values, ctx.copies)
    return []
