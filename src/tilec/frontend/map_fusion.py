"""A ``map`` whose only use is another ``map`` of the same block, merged into it.

Capture fuses one Python expression into one ``map`` (``tiles.Elem``), but it materializes
the expression where a name is bound or a helper returns, so the elementwise work of one
tile can come out as a chain::

    y = act(acc + bias[None, :])        # a helper's result: map(acc, bias_r)
    C.tile(...).store(y)                # the store's cast to bf16: map(y)

``fuse_map_chains`` merges each such pair into one ``map`` whose body is the first map's
body followed by the second's, the first map's yielded scalar standing for the second
map's block argument. It is an identity of the semantics: both maps are elementwise over
the same domain, the body operations keep their scalar types (the intermediate tile held
exactly the yielded scalars), and the first map's result had no other reader, so no work
is duplicated. It is what the scalar-epilogue proof (``plan.proofs.scalar_epilogue``) and
every target then see: one closed scalar expression between an accumulator and its store.

A pair is merged only when:

* the producer is a one-result ``map`` whose result has exactly one use, an operand of the
  consumer ``map``;
* both are in the same block (moving work into a loop or branch body would change how
  often it runs), with equal domains (``shape``);
* the producer's body is straight-line scalar code: every operation other than its
  ``yield`` has no regions.
"""

from __future__ import annotations

import tilec.ir as ir

__all__ = ["fuse_map_chains"]


def fuse_map_chains(fn: ir.Function) -> int:
    """Merge every single-use ``map`` into the ``map`` that reads it (module docstring);
    returns how many were merged. A chain of several merges into its last map."""
    rw = ir.IRRewriter()
    merged = 0
    for op in list(fn.walk()):  # pre-order: a producer before its consumer
        if op.name != "map" or not op.is_attached:
            continue
        consumer = _consumer(op)
        if consumer is not None:
            _merge(rw, op, consumer)
            merged += 1
    return merged


def _consumer(m: ir.Operation) -> ir.Operation | None:
    """The ``map`` that ``m`` can merge into, or None."""
    if len(m.results) != 1 or m.result.num_uses != 1 or len(m.regions) != 1:
        return None
    use = next(iter(m.result.uses))
    c = use.owner
    if c.name != "map" or c.parent is not m.parent or len(c.regions) != 1:
        return None
    if c.attr("shape") != m.attr("shape"):
        return None
    if len(m.regions[0].blocks) != 1 or len(c.regions[0].blocks) != 1:
        return None
    if any(o.regions for o in m.regions[0].entry.operations):
        return None
    return c


def _merge(rw: ir.IRRewriter, m: ir.Operation, c: ir.Operation) -> None:
    """Merge producer ``m`` into consumer ``c``: ``m``'s operands take the place of its
    result among ``c``'s operands (each value once), ``m``'s body runs first."""
    k = next(u.index for u in m.result.uses)
    src = m.regions[0].entry
    dst = c.regions[0].entry
    old = list(c.operands)
    orig = list(dst.args)  # c's arguments before any is inserted
    arg_of = {id(v): a for j, (v, a) in enumerate(zip(old, orig)) if j != k}
    fresh: list[ir.Value] = []
    for v in m.operands:  # each value c does not read yet gets an argument at slot k on
        if id(v) not in arg_of:
            t = v.type.dtype if isinstance(v.type, ir.TileType) else v.type
            arg_of[id(v)] = dst.insert_argument(k + len(fresh), t, v.name_hint)
            fresh.append(v)
    y = src.terminator
    assert y is not None and y.num_operands == 1, "a map's body yields its one result"
    yielded = y.operand(0)
    first = dst.operations.first
    assert first is not None, "a map's body ends in its yield"
    rw.inline_block_before(src, first, [arg_of[id(v)] for v in m.operands])
    rw.erase(y)
    rw.replace_all_uses_with(orig[k], yielded)
    rw.erase_argument(dst, orig[k].index)
    rw.set_operands(c, old[:k] + fresh + old[k + 1:])
    rw.erase(m)
