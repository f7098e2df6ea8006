"""The distributions a Scheduled module records, read back from its attributes.

``schedule.py`` writes every decision as attributes (``layout`` on results,
``use_layouts`` on operands consumed in another distribution, a loop's or pipeline
stage's layouts for its block arguments); ``layout_of``, ``block_arg_layout`` and
``use_layout`` read them back for the Machine lowering and the TIRx bridge. They are
separate from ``schedule.py`` because its readers need only the attribute format, not
the scheduling pass.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir import dist_layout as L

from .options import LoweringBug

__all__ = ["layout_of", "block_arg_layout", "use_layout"]


def layout_of(v: ir.Value) -> L.DistLayout:
    """The distribution a Scheduled value was given (results and block arguments)."""
    if isinstance(v, ir.OpResult):
        attr = v.owner.attr("layout")
        lay = attr[v.index] if isinstance(attr, tuple) else attr
    else:
        lay = block_arg_layout(v)  # type: ignore[arg-type]
    if not isinstance(lay, L.DistLayout):
        raise LoweringBug(f"value {v!r} has no distribution in the Scheduled form")
    return lay


def block_arg_layout(a: ir.BlockArgument) -> L.DistLayout | None:
    """A block argument's layout: a loop's carried result, a pipeline stage's record."""
    owner = a.owner.parent_op
    if owner is None:
        return None
    if owner.name == "serial":
        lay = owner.attr("layout")
        return (lay[a.index - 1] if isinstance(lay, tuple) else lay) if a.index else None
    if owner.name == "pipeline":
        stage = next(i for i, r in enumerate(owner.regions) if r is a.owner.parent)
        return owner.attr("stage_layouts")[stage][a.index]
    if owner.name == "parallel" and owner.attr("exec") == "group":
        rank = owner.attr("rank")
        if a.index < rank:
            return None
        k = a.index
        return use_layout(owner, k) or layout_of(owner.operand(k))
    return None


def use_layout(op: ir.Operation, k: int) -> L.DistLayout | None:
    """The layout ``op`` consumes operand ``k`` in, when it differs from the producer's."""
    uses = op.attr("use_layouts")
    return uses[k] if uses is not None else None
