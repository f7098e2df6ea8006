"""Machine invariant 16 for one ``atom.call``: the atom-catalog checks, one per atom family.

Every ``atom.call`` of a function in Machine form names an atom of the catalog
(``tilec.ir.atoms``) and must match that entry: its operand and result counts,
types and roles, and the attributes each family needs (the mbarrier and tensor
copy atoms, split-K partial accesses, warp-level and warpgroup matrix
instructions, named barriers, votes, shuffles, register reallocation).

These checks read nothing but the operation and the catalog, so they live apart
from ``verifier_forms``, which owns the forms' vocabularies, the claim of a form
and the check tables, and calls ``atom_call_issues`` from its invariant-16 check.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .atoms import CATALOG, MMA_ATOMS, WGMMA_ATOMS, WGMMA_ROWS
from .core import Operation
from .types import MemoryType, TileType, f32, i1, i64, index
from .verifier import _Issue

__all__ = ["atom_call_issues"]


def _pos_int(x: Any) -> bool:
    # the same predicate as ``verifier_forms._pos_int``, which imports this module
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


def _is_barrier(v: Any) -> bool:
    t = v.type
    return isinstance(t, MemoryType) and t.space == "shared" and t.dtype is i64 \
        and tuple(int(e) for e in t.shape) == (1,)


def _check_barrier_atom(cid: str, fixed: int, op: Operation) -> Iterator[_Issue]:
    """The mbarrier atoms and ``tma.load``: a one-element ``i64`` shared view as the
    barrier, index scalars, and for ``tma.load`` a box of the global array's rank whose
    elements fill the shared destination, with one index coordinate per array axis
    (``tma.store`` the same from a shared source to a global array)."""
    if cid in ("tma.load", "tma.store"):
        yield from _check_tensor_copy(cid, op)
        return
    if op.num_operands != fixed or len(op.results) != (0 if cid == "mbarrier.wait" else 1):
        yield _Issue(f"{cid}: expected {fixed} operand(s)", "16", op)
    elif not _is_barrier(op.operand(0)):
        yield _Issue(f"{cid} takes a barrier: a one-element i64 shared view", "16", op)
    elif fixed == 2 and op.operand(1).type is not index:
        what = {"mbarrier.expect_tx": "byte count", "mbarrier.arrive.peer": "cluster rank"}
        yield _Issue(f"{cid} takes an index {what.get(cid, 'parity')}", "16", op)
    elif cid == "mbarrier.init" and not (isinstance(op.attr("count"), int)
                                         and op.attr("count") >= 1):
        yield _Issue("mbarrier.init needs an arrival count >= 1", "16", op)


def _check_tensor_copy(cid: str, op: Operation) -> Iterator[_Issue]:
    """``tma.load`` (shared destination, global array, barrier, coordinates) and
    ``tma.store`` (global array, shared source, coordinates): a box of the array's rank in
    [1, 256] per axis whose elements fill the shared view, of its element type, one index
    coordinate per array axis, the 128-byte swizzle; a load's barrier and multicast."""
    load = cid == "tma.load"
    fixed = 3 if load else 2
    if op.num_operands < fixed or len(op.results) != 1:
        roles = "dst_shared_view, src_array, barrier_view" if load else \
            "dst_array, src_shared_view"
        yield _Issue(f"{cid} takes ({roles}, coords...) -> (token)", "16", op)
        return
    shared, array = (op.operand(0), op.operand(1)) if load else (op.operand(1), op.operand(0))
    coords = op.operands[fixed:]
    box = op.attr("box")
    verb, other = ("writes", "reads") if load else ("reads", "writes")
    if not (isinstance(shared.type, MemoryType) and shared.type.space == "shared"):
        yield _Issue(f"{cid} {verb} a shared-memory view", "16", op)
    elif not (isinstance(array.type, MemoryType) and array.type.space == "global"):
        yield _Issue(f"{cid} {other} a global array", "16", op)
    elif load and not _is_barrier(op.operand(2)):
        yield _Issue("tma.load completes on a barrier: a one-element i64 shared view",
                     "16", op)
    elif len(coords) != array.type.rank or any(c.type is not index for c in coords):
        yield _Issue(f"{cid} takes one index coordinate per array axis "
                     f"({array.type.rank}), got {len(coords)}", "16", op)
    elif not (isinstance(box, tuple) and len(box) == array.type.rank
              and all(isinstance(e, int) and 0 < e <= 256 for e in box)):
        yield _Issue(f"{cid} box must give an extent in [1, 256] per array axis, got "
                     f"{box!r}", "16", op)
    elif math.prod(box) != math.prod(int(e) for e in shared.type.shape) \
            or shared.type.dtype is not array.type.dtype:
        yield _Issue(f"{cid} box {box} of {array.type.dtype} does not match the shared "
                     f"view {shared.type}", "16", op)
    elif op.attr("swizzle") != 128:
        yield _Issue(f"{cid} {verb} the 128-byte swizzle (swizzle = 128)", "16", op)
    elif load and op.attr("multicast") not in (None, 2):
        yield _Issue(f"tma.load multicast must be the cluster size 2, got "
                     f"{op.attr('multicast')!r}", "16", op)
    elif load and op.attr("oob") not in (None, "nan"):
        yield _Issue(f"tma.load oob must be absent (zero) or \"nan\", got "
                     f"{op.attr('oob')!r}", "16", op)
    elif load and op.attr("oob") == "nan" and not array.type.dtype.is_float:
        yield _Issue(f"tma.load oob = \"nan\" needs a float array, not {array.type.dtype}",
                     "16", op)


def atom_call_issues(op: Operation) -> Iterator[_Issue]:
    """Invariant 16 for one ``atom.call``: a catalog atom with the catalog's operand
    layouts, types and roles."""
    cid = op.attr("catalog_id")
    entry = CATALOG.get(cid)
    if entry is None:
        yield _Issue(f"atom.call names {cid!r}, which is not in the atom catalog", "16", op)
        return
    wg = WGMMA_ATOMS.get(cid)
    if wg is not None:
        yield from _check_wgmma(wg, op)
        return
    if cid.startswith(("mbarrier.", "tma.")):
        yield from _check_barrier_atom(cid, len(entry.operands), op)
        return
    if cid.startswith("split."):
        yield from _check_split_atom(cid, len(entry.operands), len(entry.results), op)
        return
    if cid == "vote.any":
        if not op.num_operands or len(op.results) != 1 or op.results[0].type is not i1 \
                or not all(isinstance(v.type, TileType) and v.type.rank == 1
                           and v.type.dtype is i1 for v in op.operands):
            yield _Issue("vote.any takes i1 register arrays (tile<L x i1>) and returns one i1",
                         "16", op)
        return
    if op.num_operands != len(entry.operands) or len(op.results) != len(entry.results):
        yield _Issue(f"{cid} takes ({', '.join(entry.operands)}) -> "
                     f"({', '.join(entry.results)}); got {op.num_operands} operand(s) and "
                     f"{len(op.results)} result(s)", "16", op)
        return
    mma = MMA_ATOMS.get(cid)
    if mma is not None:
        want = {"a_layout": mma.a.map, "b_layout": mma.b.map, "c_layout": mma.c.map}
        for k, m in want.items():
            # absent: the catalog's layout is implied; present: it must be the catalog's
            if op.attr(k) is not None and op.attr(k) is not m:
                yield _Issue(f"{cid}: {k} {op.attr(k)} is not the catalog's {m} (a different "
                             "operand layout needs an explicit repartition)", "16", op)
                return
        types = [(mma.a.regs, mma.in_dtype), (mma.b.regs, mma.in_dtype),
                 (mma.c.regs, mma.acc_dtype)]
        for k, (regs, dt) in enumerate(types):
            t = op.operand(k).type
            if not isinstance(t, TileType) or t.shape != TileType((regs,), dt).shape \
                    or t.dtype is not dt:
                yield _Issue(f"{cid} operand {entry.operands[k]} must be tile<{regs}x{dt}>, "
                             f"got {t}", "16", op)
                return
        if op.result.type is not op.operand(2).type:
            yield _Issue(f"{cid} result must have the accumulator's type", "16", op)
            return
        if op.attr("participants", "subgroup") != "subgroup":
            yield _Issue(f"{cid} is issued by a whole subgroup (participants = "
                         "\"subgroup\")", "6", op)
            return
    if cid == "barrier.subgroup":
        w = op.attr("width")
        if not (isinstance(w, int) and not isinstance(w, bool) and w > 0):
            yield _Issue(f"barrier.subgroup needs a positive subgroup width, got {w!r}", "16",
                         op)
    if cid == "barrier.named":
        bid, n = op.attr("id"), op.attr("threads")
        if not (isinstance(bid, int) and 1 <= bid <= 15):
            yield _Issue(f"barrier.named needs an id in [1, 15] (0 is the group barrier), got "
                         f"{bid!r}", "16", op)
        elif not (isinstance(n, int) and n > 0 and n % 32 == 0):
            yield _Issue(f"barrier.named needs a thread count that is a positive multiple of "
                         f"32, got {n!r}", "16", op)
    if cid == "barrier.turn":
        n = op.attr("threads")
        if op.attr("action") not in ("sync", "arrive"):
            yield _Issue(f"barrier.turn action must be 'sync' or 'arrive', got "
                         f"{op.attr('action')!r}", "16", op)
        elif not (isinstance(n, int) and not isinstance(n, bool) and n > 128 and n % 128 == 0):
            yield _Issue(f"barrier.turn needs a thread count of at least two whole warpgroups, "
                         f"got {n!r}", "16", op)
    if cid == "bulk.wait":
        n = op.attr("pending")
        if not (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 7):
            yield _Issue(f"bulk.wait needs a pending count in [0, 7], got {n!r}", "16", op)
        elif op.attr("read", False) not in (True, False):
            yield _Issue(f"bulk.wait read must be a boolean, got {op.attr('read')!r}", "16",
                         op)
    if cid == "setmaxnreg":
        n = op.attr("count")
        if op.attr("action") not in ("inc", "dec"):
            yield _Issue(f"setmaxnreg action must be 'inc' or 'dec', got {op.attr('action')!r}",
                         "16", op)
        elif not (isinstance(n, int) and 24 <= n <= 256 and n % 8 == 0):
            yield _Issue(f"setmaxnreg count must be a multiple of 8 in [24, 256], got {n!r}",
                         "16", op)
    if cid == "shfl.xor":
        v, m = op.operands
        if op.results[0].type is not v.type:
            yield _Issue("shfl.xor returns the type of its value", "16", op)
        elif m.defining_op is None or m.defining_op.name != "constant":
            yield _Issue("shfl.xor takes a constant lane mask", "16", op)
        elif not 0 < m.defining_op.attr("value") < 32:
            yield _Issue("shfl.xor lane mask must stay inside the 32-lane subgroup", "16", op)


def _check_split_atom(cid: str, operands: int, results: int, op: Operation
                      ) -> Iterator[_Issue]:
    """A split-K atom: its operand and result counts, integer ``splits >= 2`` (and for the
    partial accesses ``threads``, ``regs`` and an ``offset`` inside them), index coordinates
    and f32 register arrays."""
    if op.num_operands != operands or len(op.results) != results:
        yield _Issue(f"{cid} takes {operands} operand(s) and gives {results} result(s)", "16",
                     op)
        return
    if not (_pos_int(op.attr("splits")) and op.attr("splits") >= 2):
        yield _Issue(f"{cid} needs splits >= 2, got {op.attr('splits')!r}", "16", op)
        return
    coords = op.operands[:2] if cid == "split.store" else op.operands[:1]
    if any(v.type is not index for v in coords):
        yield _Issue(f"{cid} takes index coordinates (split, tile)", "16", op)
        return
    if cid == "split.arrive":
        if op.results[0].type is not i1:
            yield _Issue("split.arrive returns one i1", "16", op)
        return
    part = op.operand(2).type if cid == "split.store" else op.results[0].type
    regs, off, threads = op.attr("regs"), op.attr("offset"), op.attr("threads")
    if not (isinstance(part, TileType) and part.rank == 1 and part.dtype is f32):
        yield _Issue(f"{cid}: partials are f32 register arrays (tile<P x f32>), got {part}",
                     "16", op)
    elif not (_pos_int(regs) and _pos_int(threads) and isinstance(off, int)
              and 0 <= off and off + int(part.shape[0]) <= regs):
        yield _Issue(f"{cid}: registers {off!r} .. +{part.shape[0]} must lie inside the "
                     f"{regs!r} registers of each of {threads!r} threads", "16", op)


def _check_wgmma(atom: object, op: Operation) -> Iterator[_Issue]:
    """A warpgroup matrix instruction: two shared views (64 x 16 and 16 x n), n/8 C fragments
    in and out, all of the catalog's types."""
    cid = op.attr("catalog_id")
    n = op.attr("n")
    if not _pos_int(n) or n % 8 or n > 256:
        yield _Issue(f"{cid} needs an n attribute, a multiple of 8 up to 256; got {n!r}", "16",
                     op)
        return
    frags = n // 8
    if op.attr("b_major") not in (None, "n", "k"):
        yield _Issue(f"{cid}: b_major is 'n' (N-major B, the transpose bit set) or 'k' "
                     f"(K-major B); got {op.attr('b_major')!r}", "16", op)
        return
    if (op.attr("b_major") or "n") not in atom.b_majors:  # type: ignore[attr-defined]
        yield _Issue(f"{cid} reads a K-major B only (b_major = 'k': 32-bit operands have no "
                     "transpose bit)", "16", op)
        return
    a_regs = bool(op.attr("a_regs"))
    if op.num_operands != 2 + frags + a_regs or len(op.results) != frags:
        yield _Issue(f"{cid} with n = {n} takes two shared views and {frags} accumulator "
                     f"fragments (with a_regs, A's second register half after them) and "
                     f"returns {frags}; got {op.num_operands} operand(s) and "
                     f"{len(op.results)} result(s)", "16", op)
        return
    if a_regs:
        half = TileType((atom.a_half,), atom.in_dtype)  # type: ignore[attr-defined]
        for k in (0, op.num_operands - 1):
            t = op.operand(k).type
            if not isinstance(t, TileType) or t.shape != half.shape or t.dtype is not half.dtype:
                yield _Issue(f"{cid} with a_regs takes A as two {half} halves (the first "
                             f"operand and the last), got {t}", "16", op)
                return
    kk = atom.k  # type: ignore[attr-defined]
    for k, shape in ((0, (WGMMA_ROWS, kk)), (1, (kk, n))):
        if k == 0 and a_regs:
            continue
        t = op.operand(k).type
        if not isinstance(t, MemoryType) or t.space != "shared" \
                or tuple(int(e) for e in t.shape) != shape \
                or t.dtype is not atom.in_dtype:  # type: ignore[attr-defined]
            yield _Issue(f"{cid} operand {k} must be a shared {shape[0]}x{shape[1]} view of "
                         f"{atom.in_dtype}, got {t}", "16", op)  # type: ignore[attr-defined]
            return
    want = TileType((4,), atom.acc_dtype)  # type: ignore[attr-defined]
    for k in range(frags):
        t = op.operand(2 + k).type
        if not isinstance(t, TileType) or t.shape != want.shape or t.dtype is not want.dtype \
                or op.results[k].type is not t:
            yield _Issue(f"{cid} accumulator fragment {k} must be {want} in and out, got {t}",
                         "16", op)
            return
