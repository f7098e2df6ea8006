"""Shared SSA values: recompute, retain or materialize (``PlannerOptions.shared_ssa``;
seed 001, "Shared SSA preserves a resource-planning choice").

A pure tile value with several consumers (``e = exp(x - m)`` read by ``e.sum(1)`` and by
``e * v``) is one logical value; how a target holds it is a resource decision:

* ``retain``: compute it once and keep it (a GPU keeps it in its threads' registers and
  converts it for each consumer whose layout differs; cpu keeps a local array). This is
  what the compiler did before the choice existed, and the default.
* ``recompute``: compute it again for each consumer (each consumer gets its own copy of
  the producer, placed before the consumer, so the schedule may give each copy the
  consumer's layout, and the retained value's live range ends at its first consumer).
* ``materialize``: store it once to a compiler-owned shared buffer and load it at each
  consumer (a GPU's loads may then take each consumer's layout from shared memory).

``plan_shared_values`` finds the candidates and decides, with the reason; it does not
change the module (``lower/shared_values.py`` realizes the decisions, before the matrix
planner runs). A candidate is a ``map`` (an elementwise expression, the only producer
recomputing never changes: its body is closed and pure) with one tile result read by at
least two operations. Legality, per choice:

* recompute: the body is pure (no effect, no region): every copy computes the same
  values from the same operands, which dominate every consumer (they dominate the
  producer). Each copy is the same operations under the same arithmetic policy (the
  target contracts or rounds each as it would the original);
* materialize: besides purity, a group (``parallel`` nest) encloses the producer and every
  consumer (shared memory belongs to a group), the element type is not ``i1`` and the
  group's materialized values, in program order, fit the target's group memory
  (``shared_bytes_per_group``). That bounds the values, not the group's other buffers: a
  group whose total does not fit is still the lowering's located error ("the group needs
  N bytes ..."), never a silent change. A value that fails falls back to ``retain`` with
  the reason.

``expensive_only`` (the seed's EXPENSIVE_ONLY) recomputes a value whose body has only
cheap arithmetic and retains one with a transcendental function, a power or a division
(``EXPENSIVE_FNS``). These are facts and a mode, not a priced choice: which pays is the
measured-selection question (a plan variant, ``variant={"shared_ssa": "recompute"}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

from .options import SHARED_SSA_MODES

__all__ = ["SharedValue", "plan_shared_values", "EXPENSIVE_FNS", "RETAIN", "RECOMPUTE",
           "MATERIALIZE", "render_shared_values"]

RETAIN, RECOMPUTE, MATERIALIZE = "retain", "recompute", "materialize"
"""The choices for one value."""

EXPENSIVE_FNS = frozenset({"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf",
                           "sigmoid", "sin", "cos", "pow", "div", "rem", "floordiv", "cdiv"})
"""``arith`` functions ``expensive_only`` does not recompute: transcendentals, powers and
divisions (many instructions or a long-latency unit on every target); the rest (adds,
multiplies, compares, selects, casts, min/max, fma) is cheap."""


@dataclass
class SharedValue:
    """One pure multi-consumer value and what the planner chose for it."""

    op: ir.Operation
    """The producing ``map``."""
    consumers: tuple[ir.Operation, ...]
    """The operations that read its result (each once), in program order."""
    choice: str
    """``RETAIN``, ``RECOMPUTE`` or ``MATERIALIZE``."""
    reason: str
    """Why this choice (the mode, or why the mode's choice is not legal here)."""
    fns: tuple[str, ...]
    """The body's ``arith`` functions, for the report."""

    @property
    def name(self) -> str:
        """The value's name in printed IR (its source name when it has one)."""
        return self.op.result.name_hint or "value"

    def to_json(self) -> dict[str, Any]:
        """Name, location, consumer count, choice, reason and body functions."""
        return {"value": self.name, "at": str(self.op.loc), "consumers": len(self.consumers),
                "choice": self.choice, "reason": self.reason, "body": list(self.fns)}


def _consumers(v: ir.Value, order: dict[ir.Operation, int]) -> tuple[ir.Operation, ...]:
    """The operations reading ``v``, each once, in program (walk) order."""
    return tuple(sorted({use.owner for use in v.uses}, key=order.__getitem__))


def _body(op: ir.Operation) -> tuple[tuple[str, ...], str | None]:
    """The body's ``arith`` functions and, if it is not pure, why."""
    fns: list[str] = []
    for r in op.regions:
        for inner in r.walk():
            if inner.regions:
                return tuple(fns), f"its body has a region ('{inner.name}')"
            if inner.opdef.effect != "pure" and not inner.opdef.terminator:
                return tuple(fns), f"its body has an effect ('{inner.name}')"
            if inner.name == "arith":
                fns.append(str(inner.attr("fn")))
    return tuple(fns), None


def _group_of(op: ir.Operation) -> ir.Operation | None:
    """The outermost ``parallel`` enclosing ``op`` (its group), if any."""
    group = None
    block = op.parent
    while block is not None and block.parent_op is not None:
        owner = block.parent_op
        if owner.name == "parallel":
            group = owner
        block = owner.parent
    return group


def _materializable(op: ir.Operation, consumers: tuple[ir.Operation, ...],
                    shared_bytes: int | None, taken: dict[ir.Operation, int]) -> str | None:
    """Why ``op``'s value may not be materialized in shared memory (None: it may, and its
    bytes are added to its group's in ``taken``)."""
    t = op.result.type
    if t.dtype is ir.i1:
        return "an i1 tile has no shared-memory form here"
    group = _group_of(op)
    if group is None:
        return "it is computed outside every group (shared memory belongs to a group)"
    if any(_group_of(c) is not group for c in consumers):
        return "a consumer is outside the producer's group"
    size = t.dtype.bytes
    for e in t.shape:
        size *= int(e)
    before = taken.get(group, 0)
    if shared_bytes is not None and before + size > shared_bytes:
        return f"its {size} bytes, with the {before} of its group's values materialized " \
               f"before it, exceed the target's {shared_bytes} bytes of group memory"
    taken[group] = before + size
    return None


def plan_shared_values(module: ir.Module, mode: str, profile: Any = None
                       ) -> list[SharedValue]:
    """Every pure multi-consumer ``map`` of ``module`` and the choice ``mode`` makes for it
    (``PlannerOptions.shared_ssa``); ``profile`` (a ``TargetProfile``, or None) bounds what
    materializing may take. The module is not changed."""
    if mode not in SHARED_SSA_MODES:
        raise ValueError(f"shared_ssa must be one of {', '.join(SHARED_SSA_MODES)}, got "
                         f"{mode!r}")
    shared_bytes = getattr(profile, "shared_bytes_per_group", None)
    taken: dict[ir.Operation, int] = {}  # per group, the bytes materialized so far
    out: list[SharedValue] = []
    for fn in module:
        order = {op: k for k, op in enumerate(fn.walk())}
        for op in order:
            if op.name != "map" or len(op.results) != 1 \
                    or not isinstance(op.result.type, ir.TileType):
                continue
            consumers = _consumers(op.result, order)
            if len(consumers) < 2:
                continue
            fns, impure = _body(op)
            choice, reason = RETAIN, "shared_ssa is 'retain' (the default): computed once, " \
                                     "kept for every consumer"
            if impure is not None and mode != RETAIN:
                reason = f"not pure: {impure}"
            elif mode == RECOMPUTE:
                choice, reason = RECOMPUTE, "shared_ssa is 'recompute': computed again for " \
                                            "each consumer"
            elif mode == "expensive_only":
                costly = sorted(set(fns) & EXPENSIVE_FNS)
                if costly:
                    reason = f"shared_ssa is 'expensive_only' and its body has " \
                             f"{', '.join(costly)}: computed once"
                else:
                    choice, reason = RECOMPUTE, "shared_ssa is 'expensive_only' and its " \
                                                "body is cheap arithmetic: computed again " \
                                                "for each consumer"
            elif mode == MATERIALIZE:
                why = _materializable(op, consumers, shared_bytes, taken)
                if why is None:
                    choice, reason = MATERIALIZE, "shared_ssa is 'materialize': stored once " \
                                                  "to compiler-owned shared memory, loaded " \
                                                  "by each consumer"
                else:
                    reason = f"not materialized ({why}): computed once"
            out.append(SharedValue(op, consumers, choice, reason, fns))
    return out


def render_shared_values(mode: str, values: list[SharedValue]) -> str:
    """The plan report's lines for the shared values."""
    if not values:
        return f"shared values ({mode}): none with several consumers"
    lines = [f"shared values ({mode}): {len(values)}"]
    for v in values:
        lines.append(f"  {v.name} at {v.op.loc}: {len(v.consumers)} consumers, {v.choice} "
                     f"({v.reason})")
    return "\n".join(lines)
