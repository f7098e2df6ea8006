"""Read-only snapshot forwarding (``PlannerOptions.forward_snapshots``; seed 000, "MPP cost
model boundary", "Read-only snapshot forwarding now reaches a fixed point").

A ``load`` is a *snapshot*: it copies the elements of a window at the point it runs, and
the lowering keeps that copy in compiler-owned storage (a matrix operand's shared-memory
staging). A matrix operand may instead be read from the window itself, element by element
where the ``mma`` runs (``lower/machine_matrix``: every lane loads its fragment elements
through the same view, with the load's fill), only when nothing can tell the difference.
``snapshot_forwarding`` proves that for every snapshot of a function, with its reasons:

* **effect**: the window's alias root (``ir.alias_root``) is a function parameter in
  global memory; manual memory (``tc.memory``) is never forwarded (the seed keeps manual
  memory), nor memory reached through an opaque root. No operation of the function has an
  ``unknown`` effect (it may write anything).
* **read-only source (a mutable input)**: no operation of the whole function writes the
  parameter (a store, an atomic); an *intervening* one, between the load and the ``mma``
  that would read, is named as such: it would change what the mma reads.
* **noalias**: writes of the function to other parameters do not reach the source: the
  runtimes refuse a written argument that overlaps any other array argument
  (``targets/interop_checks.check_aliasing``, the CUDA ``runtime``), and manual memory is
  a fresh allocation.
* **bounds**: the operand reads go through the load's own view with its ``fill``, so every
  element read is one the load reads, and one outside the window reads the fill, as the
  load does.
* **dominance**: the consumer is in the load's block or nested in an operation after it
  there, so the view and its coordinates are available where the mma runs (a tile handed
  to a later ``pipeline`` stage is refused: its load's window is another stage's value).
* **non-escape**: every use of the snapshot is an ``mma``'s A or B operand, or a plain
  transpose (``x.T``, a relabeling of the same elements) that is itself forwarded. A
  snapshot that is stored, yielded, returned or computed with needs its copy.

The last two rules make it a fixed point over chains ``load -> relabeled snapshot -> mma``:
a relabeling is read in place only when its source is, and a load only when every
consumer is. Every candidate starts proved when its own effect, bounds and dominance rules
hold, and each round re-checks the whole set, dropping whatever needs a snapshot that was
dropped; the rounds stop when one drops nothing (at most one round per candidate).

This is a fact of the program, never a profitability judgement: whether reading operands
from global memory pays (skinny M, tiny K, where staging does not) is the cost basis's and
the tuner's question, and the option is off by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tilec.ir as ir
from tilec.ir.dataflow import handed_from, plain_transpose

__all__ = ["SnapshotFact", "SnapshotForwarding", "snapshot_forwarding"]


@dataclass(frozen=True)
class SnapshotFact:
    """Whether one snapshot (a loaded tile, or a plain transpose of one) may be read from
    its source view instead of a compiler-owned copy, and why."""

    value: ir.Value
    """The snapshot: a ``load`` result or a plain transpose's result."""
    proved: bool
    """True when every consumer may read it from the source view."""
    reasons: tuple[str, ...]
    """What holds (proved) or the first rule that fails (refused)."""
    load: ir.Operation
    """The ``load`` at the start of the chain."""
    transposed: bool = False
    """The snapshot is the transpose of the loaded tile (an odd number of relabelings)."""

    def to_json(self) -> dict[str, object]:
        """A JSON-serializable description."""
        return {"load": str(self.load.loc), "transposed": self.transposed,
                "proved": self.proved, "reasons": list(self.reasons)}


@dataclass
class SnapshotForwarding:
    """The facts of one function: every snapshot that feeds a matrix operand."""

    facts: dict[ir.Value, SnapshotFact] = field(default_factory=dict)
    """Per snapshot value, in program order."""
    rounds: int = 0
    """Rounds the fixed point took (the last drops nothing)."""

    def operand(self, mma: ir.Operation, k: int) -> SnapshotFact | None:
        """The fact of ``mma``'s operand ``k`` (0: A, 1: B); None when it is no snapshot."""
        return self.facts.get(mma.operand(k))

    def proved(self, mma: ir.Operation, k: int) -> bool:
        """Whether operand ``k`` of ``mma`` may be read from its source view."""
        f = self.operand(mma, k)
        return f is not None and f.proved

    def why_not(self, mma: ir.Operation, k: int) -> str:
        """Why operand ``k`` is not forwarded ('' when it is)."""
        f = self.operand(mma, k)
        if f is None and handed_from(mma.operand(k)) is not None:
            return ("it is handed from an earlier pipeline stage (the load's window is not "
                    "available where the mma runs)")
        if f is None:
            return "it is not a loaded tile (nor a plain transpose of one)"
        return "" if f.proved else f.reasons[0]


def snapshot_forwarding(fn: ir.Function) -> SnapshotForwarding:
    """Every snapshot of ``fn`` that reaches an ``mma`` operand, proved or refused."""
    ops = list(fn.walk())
    effects = ir.MemoryEffects(fn)
    chains: dict[ir.Value, tuple[ir.Operation, bool]] = {}  # snapshot -> (load, transposed)
    for op in ops:
        if op.name == "load" and isinstance(op.result.type, ir.TileType) \
                and op.result.type.rank == 2:
            chains[op.result] = (op, False)
        elif plain_transpose(op) and op.operand(0) in chains:
            ld, t = chains[op.operand(0)]
            chains[op.result] = (ld, not t)
    if not chains:
        return SnapshotForwarding()
    unknown = next((op for op in ops if op.opdef.effect == "unknown"), None)
    local: dict[ir.Value, str] = {}  # '' when the load's own rules hold, else why not
    why_load: dict[ir.Operation, str] = {}
    for v, (ld, _) in chains.items():
        if ld not in why_load:
            why_load[ld] = _source_rules(ld, ops, effects, unknown)
        local[v] = why_load[ld] or _consumer_rules(v, ld)
    alive = {v for v, why in local.items() if not why}
    dropped: dict[ir.Value, str] = {}
    rounds = 0
    while True:
        rounds += 1
        drop: dict[ir.Value, str] = {}
        for v in alive:
            src = v.defining_op
            if src is not None and src.name == "reindex" and src.operand(0) not in alive:
                drop[v] = (f"its source at {src.operand(0).defining_op.loc} is not forwarded "  # type: ignore[union-attr]
                           f"({local.get(src.operand(0)) or dropped.get(src.operand(0), '')})")
                continue
            why = _escape(v, alive)
            if why:
                drop[v] = why
        if not drop:
            break
        alive -= drop.keys()
        dropped.update(drop)
    out = SnapshotForwarding(rounds=rounds)
    for v, (ld, t) in chains.items():
        if not _reaches_mma(v, chains):
            continue
        if v in alive:
            out.facts[v] = SnapshotFact(v, True, _proved_reasons(ld, t), ld, t)
        else:
            out.facts[v] = SnapshotFact(v, False, (local[v] or dropped[v],), ld, t)
    return out


def _reaches_mma(v: ir.Value, chains: dict[ir.Value, tuple[ir.Operation, bool]]) -> bool:
    """Whether ``v`` is an mma operand, directly or through relabelings."""
    for u in v.uses:
        if u.owner.name == "mma" and u.index < 2:
            return True
        if u.owner.results and u.owner.results[0] in chains \
                and _reaches_mma(u.owner.results[0], chains):
            return True
    return False


def _source_rules(ld: ir.Operation, ops: list[ir.Operation], effects: ir.MemoryEffects,
                  unknown: ir.Operation | None) -> str:
    """Why the window load ``ld`` reads may not be read again later ('' when they may):
    the effect and read-only rules, with an intervening writer named first."""
    view = ld.operand(0)
    root = ir.alias_root(view)
    if isinstance(root, ir.OpResult) and root.owner.name == "memory":
        return (f"the load at {ld.loc} reads manual memory (tc.memory at {root.owner.loc}), "
                "which is never forwarded")
    if not _is_parameter(root):
        return (f"the load at {ld.loc} reads memory reached through an opaque value, not a "
                "kernel parameter")
    if not isinstance(root.type, ir.MemoryType) or root.type.space != "global":
        return f"the load at {ld.loc} reads {root.type}, not global memory"
    if unknown is not None:
        return (f"the '{unknown.name}' at {unknown.loc} has an unknown effect (it may write "
                "the source)")
    name = root.name_hint or "the parameter"
    for op in ops:
        if op.regions:
            continue  # nested effects are their own operations' records
        for rec in effects.effects(op):
            if rec.kind != "write" or rec.root is not root:
                continue
            between = _between(ld, op)
            if between:
                return (f"an intervening store to {name} at {op.loc} (between the load at "
                        f"{ld.loc} and the mma at {between}) may change the snapshot")
            return (f"{name} is written by the kernel at {op.loc} (a mutable input: the load "
                    f"at {ld.loc} is a snapshot of memory that changes)")
    return ""


def _between(ld: ir.Operation, writer: ir.Operation) -> str:
    """The location of an mma consuming ``ld`` (through relabelings) that ``writer`` runs
    between: after the load and before (or around) the mma in the load's block, or ''."""
    blk = ld.parent
    w = _in_block(writer, blk)
    if w is None:
        return ""
    for mma in _consumers(ld.result):
        m = _in_block(mma, blk)
        if m is None:
            continue
        o = ld.next_op
        while o is not None and o is not m:
            if o is w:
                return str(mma.loc)
            o = o.next_op
        if w is m:  # the writer is nested with the mma: a loop around both, say
            return str(mma.loc)
    return ""


def _consumers(v: ir.Value) -> list[ir.Operation]:
    """The mmas reading ``v`` through relabelings."""
    out: list[ir.Operation] = []
    for u in v.uses:
        if u.owner.name == "mma":
            out.append(u.owner)
        elif plain_transpose(u.owner):
            out += _consumers(u.owner.result)
    return out


def _in_block(op: ir.Operation, blk: ir.Block | None) -> ir.Operation | None:
    """The operation of ``blk`` that is ``op`` or holds it, or None."""
    o: ir.Operation | None = op
    while o is not None and o.parent is not blk:
        o = o.parent_op
    return o


def _consumer_rules(v: ir.Value, ld: ir.Operation) -> str:
    """Dominance of each mma reading ``v`` directly ('' when it holds)."""
    blk = ld.parent
    for u in v.uses:
        if u.owner.name != "mma":
            continue
        at = _in_block(u.owner, blk)
        if at is None:
            return (f"the mma at {u.owner.loc} is not in the block of the load at {ld.loc} "
                    "(the window is not available where it runs)")
    return ""


def _escape(v: ir.Value, alive: set[ir.Value]) -> str:
    """Why snapshot ``v`` needs its copy: a use other than an mma's A or B operand or a
    forwarded relabeling ('' when it has none)."""
    if not v.num_uses:
        return "the snapshot has no consumer"
    for u in v.uses:
        op = u.owner
        if op.name == "mma" and u.index < 2:
            continue
        if plain_transpose(op) and op.result in alive:
            continue
        what = "the accumulator" if op.name == "mma" else f"'{op.name}'"
        return (f"the snapshot escapes: it is used by {what} at {op.loc} (a stored, yielded "
                "or computed tile needs its copy)")
    return ""


def _is_parameter(root: ir.Value) -> bool:
    """Whether ``root`` is a parameter of its function (an entry argument of the body)."""
    if not isinstance(root, ir.BlockArgument):
        return False
    region = root.owner.parent
    return region is not None and isinstance(region.owner, ir.Function) \
        and root.owner is region.entry


def _proved_reasons(ld: ir.Operation, transposed: bool) -> tuple[str, ...]:
    """The rules that hold, for the report."""
    root = ir.alias_root(ld.operand(0))
    name = root.name_hint or "the parameter"
    fill = ld.attr("fill")
    return (
        f"effect: {name} is a global kernel parameter the function never writes",
        "noalias: the function's other writes go to other parameters, which the runtime "
        "refuses to overlap a written argument, or to its own allocations",
        "bounds: the operand reads go through the load's view"
        + (f" with its fill {fill}" if fill is not None else ""),
        "dominance: every consumer runs in the load's block after it",
        "nonescape: every use is an mma operand" + (" through a transpose" if transposed else ""),
    )
