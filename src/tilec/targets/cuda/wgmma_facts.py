"""What the warpgroup printer needs decided before it prints: descriptor reuse and
accumulator lifetimes, as an analysis over Machine TileIR.

A ``wgmma`` reads its two operands from 128-byte swizzled shared memory through
64-bit matrix descriptors whose start field counts 16-byte units. Successive K
steps of one operand differ only by a constant element offset, so a descriptor
can be derived from an earlier one by adding that offset to its start field
instead of being rebuilt (three integer instructions fewer per operand and step).
The analysis decides, in program order (the order the printer prints in):

* **descriptor reuse**: operand ``k`` of a ``wgmma`` derives from the most recent
  earlier ``wgmma`` operand ``k'`` since the last ``wgmma.fence`` that reads the
  same shared buffer with the same strides (``lbo``, ``sbo``) and the same
  variable part of its first element's offset (the composed view map at the origin,
  its symbols identified by value; constants by their value), when the constant
  parts differ by a whole number of 16-byte units (``DescriptorFrom.step``). A
  fence ends the reuse: descriptors live between fences only, and a fence is where
  the lowering starts a new group of warpgroup instructions;
* **accumulators updated in place**: accumulator operand ``k`` is defined in the
  ``wgmma``'s own block and this is its only use, so the instruction may update its
  registers rather than a copy (a value from outside a loop must survive the
  iterations and is copied).

The printer still checks what the catalog leaves to the target (swizzle, stride
ranges, fragment sizes) and names the C variables; it no longer decides either.

Cost: one walk of the function, O(operations x view depth).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tilec.ir as ir
from tilec.ir.atoms import WGMMA_ATOMS

__all__ = ["DescriptorFrom", "WgmmaFacts", "analyze_wgmma"]


@dataclass(frozen=True)
class DescriptorFrom:
    """Operand ``operand`` of ``op`` (an earlier ``wgmma``), whose descriptor this one's is
    plus ``step`` 16-byte units."""

    op: ir.Operation
    """The earlier warpgroup instruction."""
    operand: int
    """Its operand (0: A, 1: B)."""
    step: int
    """The start-field difference, in 16-byte units (may be negative)."""


@dataclass
class WgmmaFacts:
    """The decisions for one function's warpgroup instructions."""

    derived: dict[tuple[int, int], DescriptorFrom] = field(default_factory=dict)
    """``(id(wgmma), operand)`` -> the descriptor it derives from (absent: built afresh)."""
    in_place: set[tuple[int, int]] = field(default_factory=set)
    """``(id(wgmma), accumulator index)`` of the accumulators updated in place."""

    def descriptor_from(self, op: ir.Operation, k: int) -> DescriptorFrom | None:
        """Where operand ``k`` of ``op``'s descriptor comes from (None: built afresh)."""
        return self.derived.get((id(op), k))

    def updates_in_place(self, op: ir.Operation, k: int) -> bool:
        """True when ``op`` may update accumulator ``k``'s registers in place."""
        return (id(op), k) in self.in_place


def _symbol_key(v: ir.Value) -> tuple[str, object]:
    d = v.defining_op
    if d is not None and d.name == "constant":
        return ("c", d.attr("value"))
    return ("v", id(v))


def _first_element(v: ir.Value, numbering: dict[tuple[str, object], int]
                   ) -> tuple[ir.Value, tuple[str, ...], int] | None:
    """The root memory of view chain ``v``, the variable part of its first element's offset
    (one text per base coordinate, each symbol numbered by ``numbering``: one number per
    value, or per constant) and the constant part (elements). None when the root's shape
    is not static (the printer then builds every descriptor)."""
    maps: list[ir.IndexMap] = []
    syms: list[list[ir.Value]] = []
    root = v
    while isinstance(root, ir.OpResult) and root.owner.name == "view":
        maps.append(root.owner.attr("map"))
        syms.append(list(root.owner.operands[1:]))
        root = root.owner.operand(0)
    shape = getattr(root.type, "shape", None)
    if shape is None or not all(d.is_static for d in shape):
        return None
    if not maps:
        return root, ("0",) * len(shape), 0
    m, values = maps[-1], list(syms[-1])  # outermost view first: base coordinates
    for inner, inner_syms in zip(reversed(maps[:-1]), reversed(syms[:-1])):
        m = m.compose(inner)
        values += inner_syms
    index = [numbering.setdefault(_symbol_key(x), len(numbering)) for x in values]
    zero = [ir.AffineExpr((), 0)] * m.n_dims
    canon = [ir.AffineExpr(((("s", i), 1),), 0) for i in index]
    firsts = [r.substitute(zero, canon) for r in m.results]
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * int(shape[axis + 1])
    const = sum(e.constant * st for e, st in zip(firsts, strides))
    var = tuple(str(ir.AffineExpr(e.terms, 0)) for e in firsts)
    return root, var, const


def analyze_wgmma(fn: ir.Function) -> WgmmaFacts:
    """The descriptor reuse and in-place accumulators of ``fn``'s warpgroup instructions."""
    facts = WgmmaFacts()
    live: dict[tuple[object, ...], tuple[ir.Operation, int, int]] = {}
    numbering: dict[tuple[str, object], int] = {}
    for op in fn.walk():
        if op.name != "atom.call":
            continue
        cid = op.attr("catalog_id")
        if cid == "wgmma.fence":
            live.clear()
            continue
        atom = WGMMA_ATOMS.get(cid)
        if atom is None:
            continue
        strides = ((16, op.attr("a_sbo")), (op.attr("b_lbo"), op.attr("b_sbo")))
        for k, (lbo, sbo) in enumerate(strides):
            if k == 0 and op.attr("a_regs"):
                continue  # A in registers: no descriptor
            first = _first_element(op.operand(k), numbering)
            if first is None:
                continue
            root, var, const = first
            key = (id(root), var, lbo, sbo)
            base = live.get(key)
            if base is not None and ((const - base[2]) * atom.in_dtype.bytes) % 16 == 0:
                step = (const - base[2]) * atom.in_dtype.bytes // 16
                facts.derived[(id(op), k)] = DescriptorFrom(base[0], base[1], step)
            else:
                live[key] = (op, k, const)
        for k, cv in enumerate(op.operands[2:2 + len(op.results)]):
            d = cv.defining_op
            if d is not None and d.parent is op.parent and cv.num_uses == 1:
                facts.in_place.add((id(op), k))
    return facts
