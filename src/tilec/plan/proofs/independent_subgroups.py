"""Independent subgroups: which of a group's own barriers only order subgroup-local accesses
(``PlannerOptions.elide_independent_subgroup_barriers``; seed 000, "Independent subgroup
programs: legality is not profitability").

The lowering places a group barrier (``barrier.group``) between two accesses of one memory
root by different threads (``lower/machine_sync.py``). Where every dependence such a
barrier orders stays inside one subgroup (a warp, a SIMD-group), a subgroup barrier
(``barrier.subgroup``) orders it as well; where every dependence stays inside one thread,
program order does and no barrier is needed. ``prove`` decides that per barrier, on the
group's Machine TileIR, and says why:

* only the lowering's own fences are candidates, recognized by their identity (the
  operations the barrier tracker emitted for a conflict), never by their opcode: an
  explicit ``tc.sync``, a protocol's barrier or a named barrier stays;
* ``P`` is every access since the last *retained* group barrier (it accumulates across
  barriers made weaker, so ``write A; (removed); other; (removed); read A`` is checked as
  one pair) and ``S`` every access up to the next barrier of any kind. Both must lie in
  one block and be known: the operations between are views, loads, stores, atomics, pure
  scalar or register operations, register atoms without memory (``shfl.xor``) and ``if``s
  of these (an owner-guarded store counts as made by every thread: an over-approximation).
  Anything else (a loop, a matrix or copy atom, another barrier kind) is a hard boundary;
* loops are hard boundaries both ways: ``P`` may reach its block's start and ``S`` its
  end only in the SIMT region's own block (the group's start and end). In a loop body the
  previous iteration's accesses, or the next one's, are unknown (a loop-carried
  dependence), so a barrier whose ``P`` or ``S`` reaches the body's edge stays;
* each access's footprint is computed exactly: its view chain is evaluated for every
  thread (addresses may depend on the thread index and constants only; a shared buffer's
  address that depends on a runtime value, a loop counter for instance, is not proved);
  memory outside shared memory (the kernel's arrays) is one conservative alias class, so
  a global write on one side and a global access on the other keeps the group barrier;
  an array the group never writes is immutable (launchers refuse a written argument that
  overlaps another, ``targets.interop_checks.check_aliasing``) and its reads order nothing;
* for every element that ``P`` and ``S`` both touch, with a write on either side, every
  pair of threads (one from each side) must be one thread (no barrier), or one subgroup
  (a subgroup barrier); a pair already ordered by a retained subgroup barrier between
  them needs only the subgroup condition. Otherwise the group barrier stays.

A fact, never a profitability judgement: the option (default off, as the seed says; the
seed's fixed-geometry replay measured a slowdown from removing fences) chooses whether the
lowering applies it. It also needs whole subgroups: a thread count that is not a multiple
of the subgroup width proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

import tilec.ir as ir

__all__ = ["BarrierSite", "IndependentSubgroups", "prove", "KEEP", "SUBGROUP", "NONE"]

KEEP, SUBGROUP, NONE = "group", "subgroup", "none"
"""What a barrier site needs: the group barrier, a subgroup barrier, or nothing."""

_LEVEL = MappingProxyType({NONE: 0, SUBGROUP: 1, KEEP: 2})
_BARRIERS = ("barrier.group", "barrier.named", "barrier.cluster", "barrier.subgroup",
             "vote.any")
_MAX_ELEMENTS = 1 << 20
"""The most (thread, element) pairs one access's footprint may enumerate."""


@dataclass
class BarrierSite:
    """One of the lowering's own group barriers and what it needs."""

    op: ir.Operation
    """The ``barrier.group`` the lowering placed."""
    needs: str
    """``KEEP``, ``SUBGROUP`` or ``NONE``."""
    reason: str
    """Why (what kept it, or what the accesses it orders are)."""

    def to_json(self) -> dict[str, Any]:
        """The site's location, decision and reason."""
        return {"at": str(self.op.loc), "needs": self.needs, "reason": self.reason}


@dataclass
class IndependentSubgroups:
    """The proof's fact for one group: per own barrier site, what it needs and why."""

    width: int
    """Threads per subgroup."""
    threads: int
    """Threads of the group."""
    sites: list[BarrierSite] = field(default_factory=list)
    """The lowering's group barriers, in program order within each block."""
    reason: str = ""
    """Why nothing was proved for the whole group (empty when sites were examined)."""

    def count(self, needs: str) -> int:
        """Sites that need ``needs``."""
        return sum(1 for s in self.sites if s.needs == needs)

    def to_json(self) -> dict[str, Any]:
        """Counts, per-site decisions and the group-wide reason, if any."""
        out: dict[str, Any] = {"subgroup_width": self.width,
                               "sites": [s.to_json() for s in self.sites],
                               "group": self.count(KEEP), "subgroup": self.count(SUBGROUP),
                               "none": self.count(NONE)}
        if self.reason:
            out["reason"] = self.reason
        return out


class _Unknown(Exception):
    """An access whose footprint cannot be computed (the message says why)."""


class _Footprint:
    """The threads that touch each element of one root, as (lowest, highest) thread."""

    def __init__(self, size: int) -> None:
        self.lo = np.full(size, np.iinfo(np.int64).max, np.int64)
        self.hi = np.full(size, -1, np.int64)

    def add(self, flat: np.ndarray, threads: np.ndarray) -> None:
        np.minimum.at(self.lo, flat, threads)
        np.maximum.at(self.hi, flat, threads)

    def merge(self, other: _Footprint) -> None:
        np.minimum(self.lo, other.lo, out=self.lo)
        np.maximum(self.hi, other.hi, out=self.hi)

    def copy(self) -> _Footprint:
        f = _Footprint(0)
        f.lo, f.hi = self.lo.copy(), self.hi.copy()
        return f


def _needs(a: _Footprint, b: _Footprint, width: int) -> str | None:
    """What orders every pair (thread of ``a``, thread of ``b``) on a shared element (None:
    they share no element)."""
    both = (a.hi >= 0) & (b.hi >= 0)
    if not both.any():
        return None
    lo = np.minimum(a.lo, b.lo)[both]
    hi = np.maximum(a.hi, b.hi)[both]
    if (lo == hi).all():
        return NONE
    if (lo // width == hi // width).all():
        return SUBGROUP
    return KEEP


class _Side:
    """The accesses of one side of a cut: per shared root, read and write footprints, and
    whether any global (or other non-shared) memory was read or written."""

    def __init__(self) -> None:
        self.reads: dict[ir.Value, _Footprint] = {}
        self.writes: dict[ir.Value, _Footprint] = {}
        self.global_reads = False
        self.global_writes = False

    def empty(self) -> bool:
        return not (self.reads or self.writes or self.global_reads or self.global_writes)

    def merge(self, other: _Side) -> None:
        for mine, theirs in ((self.reads, other.reads), (self.writes, other.writes)):
            for r, f in theirs.items():
                if r in mine:
                    mine[r].merge(f)
                else:
                    mine[r] = f.copy()
        self.global_reads |= other.global_reads
        self.global_writes |= other.global_writes


def _conflict(p: _Side, s: _Side, width: int) -> tuple[str, str]:
    """What orders ``p`` before ``s``, and why."""
    if (p.global_writes and (s.global_reads or s.global_writes)) or \
            (p.global_reads and s.global_writes):
        return KEEP, "a kernel array is written on one side and accessed on the other " \
                     "(all kernel arrays are one alias class)"
    need, why, shared = NONE, "", False
    for a, b in ((p.writes, s.reads), (p.writes, s.writes), (p.reads, s.writes)):
        for root, fa in a.items():
            fb = b.get(root)
            n = None if fb is None else _needs(fa, fb, width)
            if n is None:
                continue
            shared = True
            if _LEVEL[n] > _LEVEL[need]:
                name = root.name_hint or "a shared buffer"
                need = n
                why = f"threads of different subgroups share elements of {name}" \
                    if n == KEEP else f"the threads that share an element of {name} are in " \
                                      "one subgroup"
            if need == KEEP:
                return need, why
    if not shared:
        return NONE, "no shared element is accessed on both sides with a write"
    if need == NONE:
        return NONE, "each element accessed on both sides (with a write) is one thread's"
    return need, why


class _Evaluator:
    """Per-thread values of index scalars: the thread index and constants, through
    ``arith``; anything else is unknown."""

    _FNS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide,
            "rem": np.remainder, "min": np.minimum, "max": np.maximum}

    def __init__(self, tid: ir.Value, threads: int) -> None:
        self.tid = tid
        self.t = np.arange(threads, dtype=np.int64)
        self.memo: dict[ir.Value, Any] = {tid: self.t}

    def value(self, v: ir.Value) -> Any:
        got = self.memo.get(v)
        if got is not None:
            return got
        d = v.defining_op
        if d is None:
            raise _Unknown(f"{v.name_hint or 'a block argument'} is a runtime value")
        if d.name == "constant" and isinstance(d.attr("value"), int):
            x: Any = np.int64(d.attr("value"))
        elif d.name == "arith" and d.attr("fn") in self._FNS and d.num_operands == 2:
            a, b = (self.value(o) for o in d.operands)
            x = self._FNS[d.attr("fn")](a, b)
        else:
            raise _Unknown(f"an address depends on '{d.name}' at {d.loc}, a runtime value")
        self.memo[v] = x
        return x


def _root(v: ir.Value) -> tuple[ir.Value, list[ir.Operation]]:
    chain = []
    while True:
        d = v.defining_op
        if d is None or d.name != "view":
            return v, chain
        chain.append(d)
        v = d.operand(0)


def _space(root: ir.Value) -> str:
    t = root.type
    return getattr(t, "space", "global") if isinstance(t, ir.MemoryType) else "global"


def _footprint(view: ir.Value, ev: _Evaluator) -> tuple[ir.Value, np.ndarray, np.ndarray]:
    """The root of ``view`` and, for every thread, the flat root elements it touches."""
    root, chain = _root(view)
    shape = tuple(int(e) for e in view.type.shape)
    n = int(np.prod(shape)) if shape else 1
    if n * ev.t.size > _MAX_ELEMENTS:
        raise _Unknown(f"an access of {n} elements per thread is too large to enumerate")
    grids = np.indices(shape, dtype=np.int64).reshape(len(shape), -1) if shape else \
        np.zeros((0, 1), np.int64)
    coords: list[Any] = [g[None, :] for g in grids]
    for v in chain:
        m = v.attr("map")
        syms = [x.reshape(-1, 1) if np.ndim(x) else x
                for x in (ev.value(s) for s in v.operands[1:])]
        coords = list(m.apply(coords, syms))
    rshape = tuple(int(e) for e in root.type.shape)
    if not all(isinstance(e, int) for e in rshape):
        raise _Unknown("a buffer of runtime extent")
    flat = np.zeros((ev.t.size, n), np.int64)
    for c, e in zip(coords, rshape):
        c = np.broadcast_to(np.asarray(c, np.int64), (ev.t.size, n))
        flat = flat * e + np.clip(c, 0, e - 1)  # outside elements are not accessed: clipping
        # only adds accessors (conservative)
    threads = np.broadcast_to(ev.t[:, None], flat.shape)
    return root, flat.reshape(-1), threads.reshape(-1)


def _accesses(op: ir.Operation) -> Iterable[tuple[ir.Value, bool]]:
    """(memory operand, writes) of an access operation."""
    if op.name == "load":
        yield op.operand(0), False
    elif op.name in ("store", "atomic"):
        yield op.operand(0), True


def _is_boundary(op: ir.Operation) -> str | None:
    """Why ``op`` ends the accesses the proof can see (None: it is transparent)."""
    if op.name in ("view", "load", "store", "atomic", "yield"):
        return None
    if op.name == "if":
        for r in op.regions:
            for inner in r.entry.operations:
                why = _is_boundary(inner)
                if why is not None:
                    return why
                if inner.name == "atom.call" and inner.attr("catalog_id") in _BARRIERS:
                    return f"a barrier inside the 'if' at {op.loc}"
        return None
    if op.name == "atom.call":
        if op.attr("catalog_id") == "shfl.xor":
            return None
        return f"'{op.attr('catalog_id')}' at {op.loc} (its accesses are not analyzed)"
    if all(x.opdef.effect == "pure" or x.opdef.terminator for x in op.walk()):
        return None  # register arithmetic, a map's or a reduction's scalar body included
    return f"'{op.name}' at {op.loc} (an effect)"


def _side_of(ops: list[ir.Operation], ev: _Evaluator, sizes: dict[ir.Value, int],
             immutable: set[ir.Value]) -> _Side:
    side = _Side()
    for op in ops:
        for x in op.walk():  # an ``if``'s accesses as if every thread made them
            for mem, writes in _accesses(x):
                root, _ = _root(mem)
                space = _space(root)
                if space == "local" or root in immutable:
                    continue
                if space != "shared":
                    if writes:
                        side.global_writes = True
                    else:
                        side.global_reads = True
                    continue
                root, flat, threads = _footprint(mem, ev)
                book = side.writes if writes else side.reads
                if root not in book:
                    book[root] = _Footprint(sizes.setdefault(
                        root, int(np.prod([int(e) for e in root.type.shape]))))
                book[root].add(flat, threads)
    return side


def prove(lane_block: ir.Block, fences: Iterable[ir.Operation], threads: int,
          width: int) -> IndependentSubgroups:
    """What each of the lowering's own group barriers ``fences`` in the SIMT region
    ``lane_block`` (whose argument is the thread index) needs; see the module docstring."""
    fact = IndependentSubgroups(width, threads)
    fences = set(fences)
    if not fences:
        fact.reason = "the lowering placed no group barrier of its own"
        return fact
    if width < 2 or threads % width:
        fact.reason = f"{threads} threads are not whole subgroups of {width}"
        fact.sites = [BarrierSite(f, KEEP, fact.reason) for f in _ordered(lane_block, fences)]
        return fact
    ev = _Evaluator(lane_block.args[0], threads)
    written = {_root(m)[0] for op in lane_block.walk() for m, w in _accesses(op) if w}
    immutable = {_root(m)[0] for op in lane_block.walk() for m, _ in _accesses(op)
                 if _space(_root(m)[0]) not in ("shared", "local")} - written
    blocks: list[ir.Block] = []
    for f in _ordered(lane_block, fences):
        if f.parent not in blocks:
            blocks.append(f.parent)
    for b in blocks:
        fact.sites.extend(_prove_block(b, b is lane_block, fences, ev, width, immutable))
    return fact


def _whole_group(op: ir.Operation) -> bool:
    """Whether barrier ``op`` orders every thread of the group (a named barrier orders one
    role's threads, a subgroup barrier each subgroup's)."""
    if op.name == "sync":
        return op.attr("scope") == "group"
    return op.attr("catalog_id") in ("barrier.group", "barrier.cluster", "vote.any")


def _ordered(lane_block: ir.Block, fences: set[ir.Operation]) -> list[ir.Operation]:
    return [op for op in lane_block.walk() if op in fences]


def _prove_block(block: ir.Block, outermost: bool, fences: set[ir.Operation], ev: _Evaluator,
                 width: int, immutable: set[ir.Value]) -> list[BarrierSite]:
    ops = list(block.operations)
    sites: list[BarrierSite] = []
    sizes: dict[ir.Value, int] = {}
    # segments between barriers (of any kind); a barrier's P runs back to the last retained
    # group barrier, its S forward to the next barrier
    cuts = [k for k, op in enumerate(ops)
            if op.name == "atom.call" and op.attr("catalog_id") in _BARRIERS
            or op.name == "sync"]
    older = _Side()     # accesses before the last retained subgroup barrier (since the last
    recent = _Side()    # retained group barrier), and after it
    open_why: str | None = None if outermost else \
        "its accesses before it reach the start of a loop body (the previous iteration's " \
        "are not known)"
    start = 0
    for ci, k in enumerate(cuts):
        seg = ops[start:k]
        bad = next((w for w in map(_is_boundary, seg) if w is not None), None)
        if bad is not None:
            open_why = f"the accesses before it cross {bad}"
            older, recent = _Side(), _Side()
        else:
            try:
                recent.merge(_side_of(seg, ev, sizes, immutable))
            except _Unknown as e:
                open_why = f"an access before it is not known: {e}"
        op = ops[k]
        start = k + 1
        if op not in fences:
            if _whole_group(op):  # an explicit or protocol group barrier orders everything
                older, recent, open_why = _Side(), _Side(), None
            else:  # it orders some threads only: what comes before is not known
                older, recent = _Side(), _Side()
                open_why = f"the accesses before it cross a barrier of some threads " \
                           f"('{op.attr('catalog_id') or op.name}' at {op.loc})"
            continue
        end = cuts[ci + 1] if ci + 1 < len(cuts) else len(ops)
        after = ops[k + 1:end]
        needs, why = KEEP, ""
        if open_why is not None:
            why = open_why
        elif end == len(ops) and not outermost:
            why = "its accesses after it reach the end of a loop body (the next iteration's " \
                  "are not known)"
        else:
            bad = next((w for w in map(_is_boundary, after) if w is not None), None)
            if bad is not None:
                why = f"the accesses after it cross {bad}"
            else:
                try:
                    s = _side_of(after, ev, sizes, immutable)
                    n_old, why_old = _conflict(older, s, width)
                    n_new, why_new = _conflict(recent, s, width)
                    if n_old == SUBGROUP:  # a retained subgroup barrier between orders
                        n_old = NONE       # those pairs within subgroups already
                        why_old = "a subgroup barrier before it orders the earlier " \
                                  f"accesses ({why_old})"
                    quiet = why_new.startswith("no shared")
                    needs, why = (n_old, why_old) if _LEVEL[n_old] > _LEVEL[n_new] or \
                        (n_old == n_new and quiet) else (n_new, why_new)
                except _Unknown as e:
                    why = f"an access after it is not known: {e}"
        sites.append(BarrierSite(op, needs, why))
        if needs == KEEP:
            older, recent, open_why = _Side(), _Side(), None
        elif needs == SUBGROUP:
            older.merge(recent)
            recent = _Side()
    return sites
