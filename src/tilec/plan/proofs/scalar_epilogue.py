"""Scalar epilogues on the direct accumulator output (``PlannerOptions.fuse_matrix_epilogues``).

A matrix group whose accumulator leaves its loop into a global store may skip the shared
staging of the output (the *direct* accumulator output: each thread stores the elements its
registers own). ``epilogue_of`` extends that to an accumulator that passes through a closed
elementwise expression before the store, ``store(window, map(acc, s...))``, which is the
common GEMM epilogue: a cast to the output's type, a scale, an activation. The fact it
proves is *same-element ownership*: element ``(i, j)`` of the stored tile is a function of
element ``(i, j)`` of the accumulator and of uniform scalars only, so the thread that owns
accumulator element ``(i, j)`` can compute and store it with no exchange. It holds when:

* the accumulator value has exactly one use, the ``map``'s first operand, and the map has
  one result with exactly one use, a ``store`` (the caller checks that it is global);
* every other operand of the map is a scalar (uniform over the tile), a *reindexed
  load*: a ``reindex`` (element ``(i, j)`` reads element ``map(i, j)`` of its source, as
  ``bias[None, :]`` reads ``bias[j]``) of a ``load`` whose only use it is, itself the
  map's operand only, or an *owned load*: a ``load`` whose only use is the map, such as a
  residual ``R.tile((pm * BM, pn * BN), (BM, BN))`` added to the accumulator. The schedule
  gives an owned load the accumulator's layout, and a reindexed one's reindex that layout
  and its load the image of the layout under the index map (``L.image``), so the thread
  that owns ``(i, j)`` loads the source elements it reads, with no exchange (replicated
  where several threads read one, as every row's owners read ``bias[j]``). The congruence
  of an owned load's layout with the accumulator's is the proof's: a load's index map from
  tile coordinates to its window's is the identity, and the map's tile operands all have
  the output tile's shape (the verifier's rule), so element ``(i, j)`` of the load is read
  where element ``(i, j)`` of the accumulator is held. A tile computed otherwise (the
  result of other tile operations: a reduction, a map with another reader, an ``mma``)
  has a layout of its own, which the epilogue would have to exchange, so it is refused;
* the map's body is closed: every operand of its operations is one of its block arguments
  or a result of an earlier operation of the body (no free variable), and every operation
  is pure and has no regions (no load, no neighbour read, no side effect).

The counterexamples are the rules' negations: an extra consumer of the accumulator or of
the map, a neighbour read (the accumulator reindexed, as ``acc.T``), a computed tile
operand, a free variable, an effect. This is a fact of the program, never a
profitability judgement: whether the fused output pays is the solver's and the tuner's
question (the option is off by default, as the seed says).
"""

from __future__ import annotations

from dataclasses import dataclass

import tilec.ir as ir

__all__ = ["ScalarEpilogue", "epilogue_of", "reindexed_load"]


@dataclass(frozen=True)
class ScalarEpilogue:
    """A proved scalar epilogue between an accumulator and its store."""

    map: ir.Operation
    """The ``map`` applied to each accumulator element."""
    store: ir.Operation
    """The ``store`` of the map's result."""
    ops: tuple[str, ...]
    """The body's operations (``arith cast``, ``arith mul`` ...), for the report."""

    @property
    def tile_operands(self) -> int:
        """The map's tile operands besides the accumulator (reindexed and owned loads, such
        as a bias row or a residual), each held in the accumulator's layout while the
        epilogue runs."""
        return sum(isinstance(o.type, ir.TileType) for o in self.map.operands[1:])


def epilogue_of(v: ir.Value) -> tuple[ScalarEpilogue | None, str]:
    """The scalar epilogue that accumulator result ``v`` passes through to its store, or
    ``(None, why not)``."""
    if v.num_uses != 1:
        return None, f"the accumulator result has {v.num_uses} uses, not one"
    use = next(iter(v.uses))
    m = use.owner
    if m.name != "map":
        return None, "the accumulator result does not pass through a map"
    if use.index != 0 or any(o is v for o in m.operands[1:]):
        return None, "the accumulator is not the map's only tile operand"
    for k, o in enumerate(m.operands[1:], start=1):
        if isinstance(o.type, ir.TileType):
            why = reindexed_load(o)
            if why is not None:
                return None, (f"operand {k} of the map at {m.loc} is a tile that is not a "
                              f"reindexed or owned load ({why}): a computed tile needs a "
                              "layout congruent to the accumulator's, not proved")
    if len(m.results) != 1:
        return None, f"the map at {m.loc} has {len(m.results)} results"
    body = m.regions[0].entry
    defined = set(body.args)
    names = []
    for op in body.operations:
        for o in op.operands:
            if o not in defined:
                return None, (f"the '{op.name}' at {op.loc} in the map reads a value defined "
                              "outside it (a free variable)")
        if op.opdef.terminator:
            continue
        if op.regions or op.opdef.effect != "pure":
            return None, f"the '{op.name}' at {op.loc} in the map is not a pure scalar op"
        defined.update(op.results)
        names.append(f"{op.name} {op.attr('fn')}" if op.attr("fn") else op.name)
    r = m.results[0]
    if r.num_uses != 1:
        return None, f"the map's result has {r.num_uses} uses, not one store"
    st = next(iter(r.uses))
    if st.owner.name != "store" or st.index != 1:
        return None, "the map's result is not stored"
    return ScalarEpilogue(m, st.owner, tuple(names)), ""


def reindexed_load(v: ir.Value) -> str | None:
    """Why tile ``v`` is not a load the accumulator's owners can read for themselves, or
    None: an owned load, ``v = load(window)`` used once (by the map), whose index map is the
    identity of the map's tile, or a reindexed load, ``v = reindex(load(window))`` with one
    source and no symbols, ``v`` used once (by the map) and the load used once (by the
    reindex)."""
    r = v.defining_op
    if r is not None and r.name == "load":
        if v.num_uses != 1:
            return f"the load at {r.loc} has {v.num_uses} uses"
        return None
    if r is None or r.name != "reindex":
        return f"it is {'a block argument' if r is None else 'a ' + repr(r.name)}"
    if r.num_operands != 1:
        return f"the reindex at {r.loc} has index symbols"
    if v.num_uses != 1:
        return f"the reindex at {r.loc} has {v.num_uses} uses"
    src = r.operand(0)
    ld = src.defining_op
    if ld is None or ld.name != "load":
        return f"the reindex at {r.loc} does not read a loaded tile"
    if src.num_uses != 1:
        return f"the load at {ld.loc} has {src.num_uses} uses"
    return None
