"""Deep copies of TileIR: whole modules (so lowering never mutates its input) and regions.

``clone_module`` copies every function, block, operation and attribute; the
copy is structurally equal to the original and shares no mutable object with
it (attributes are interned or plain values). ``clone_ops_into`` copies a
block's operations at a builder's insertion point with a value mapping, which
the machine lowering uses to carry scalar ``map``/``reduce`` regions over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import tilec.ir as ir

__all__ = ["clone_module", "clone_function", "clone_op", "clone_region", "clone_ops_into"]

ValueMap = dict[ir.Value, ir.Value]
"""Original value -> its copy."""


def clone_module(module: ir.Module) -> tuple[ir.Module, dict[int, ir.Operation]]:
    """A deep copy of ``module`` and the map from original operation ids to the copies."""
    out = ir.Module()
    out.attributes.update(module.attributes)
    ops: dict[int, ir.Operation] = {}
    for fn in module:
        out.add_function(clone_function(fn, ops))
    return out, ops


def clone_function(fn: ir.Function, ops: dict[int, ir.Operation] | None = None) -> ir.Function:
    """A deep copy of one function (``ops`` collects original id -> copy)."""
    new = ir.Function(fn.name, [a.type for a in fn.args], fn.result_types,
                      [a.name_hint for a in fn.args], dict(fn.attributes), fn.loc)
    vmap: ValueMap = dict(zip(fn.args, new.args))
    blocks = list(fn.body.blocks)
    bmap: dict[ir.Block, ir.Block] = {blocks[0]: new.entry}
    for b in blocks[1:]:
        nb = ir.Block([a.type for a in b.args], [a.name_hint for a in b.args])
        vmap.update(zip(b.args, nb.args))
        bmap[b] = nb
        new.body.add_block(nb)
    for b in blocks:
        for op in b.operations:
            bmap[b].append(clone_op(op, vmap, bmap, ops))
    return new


def clone_region(region: ir.Region, vmap: ValueMap,
                 bmap: dict[ir.Block, ir.Block] | None = None,
                 ops: dict[int, ir.Operation] | None = None) -> ir.Region:
    """A copy of ``region``; values defined outside it are looked up in ``vmap``."""
    bmap = {} if bmap is None else bmap
    new = ir.Region()
    blocks = list(region.blocks)
    for b in blocks:
        nb = ir.Block([a.type for a in b.args], [a.name_hint for a in b.args])
        vmap.update(zip(b.args, nb.args))
        bmap[b] = nb
        new.blocks.append(nb)
    for b in blocks:
        for op in b.operations:
            bmap[b].operations.append(clone_op(op, vmap, bmap, ops))
    return new


def clone_op(op: ir.Operation, vmap: ValueMap, bmap: dict[ir.Block, ir.Block] | None = None,
             ops: dict[int, ir.Operation] | None = None) -> ir.Operation:
    """A detached copy of ``op`` (nested regions included); its results join ``vmap``."""
    bmap = {} if bmap is None else bmap
    operands = [vmap.get(v, v) for v in op.operands]
    regions = [clone_region(r, vmap, bmap, ops) for r in op.regions]
    new = ir.Operation(op.name, operands, [r.type for r in op.results], dict(op.attributes),
                       regions, [bmap.get(s, s) for s in op.successors], op.loc,
                       [r.name_hint for r in op.results])
    vmap.update(zip(op.results, new.results))
    if ops is not None:
        ops[op.id] = new
    return new


def clone_ops_into(builder: ir.Builder, ops: Iterable[ir.Operation],
                   lookup: Callable[[ir.Value], ir.Value], vmap: ValueMap | None = None,
                   skip_terminator: bool = True) -> ValueMap:
    """Copy ``ops`` at the builder's insertion point; values not in ``vmap`` go through
    ``lookup`` (which may materialize them). Returns the value map (terminator not copied)."""
    vmap = {} if vmap is None else vmap
    for op in ops:
        if skip_terminator and op.opdef.terminator:
            continue
        for r in op.regions:
            for inner in r.walk():
                for v in inner.operands:
                    if v not in vmap and not _defined_inside(v, op):
                        vmap[v] = lookup(v)
        for v in op.operands:
            if v not in vmap:
                vmap[v] = lookup(v)
        builder.insert(clone_op(op, vmap))
    return vmap


def _defined_inside(v: ir.Value, op: ir.Operation) -> bool:
    """True when ``v`` is defined within one of ``op``'s regions."""
    block = v.owner if isinstance(v, ir.BlockArgument) else v.owner.parent  # type: ignore
    while block is not None:
        owner = block.parent_op
        if owner is op:
            return True
        if owner is None:
            return False
        block = owner.parent
    return False
