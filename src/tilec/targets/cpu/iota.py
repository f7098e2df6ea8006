"""The cpu printer of ``iota``: a loop nest over the tile writing its index map's value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.targets.cpu.access import CopyLoops, affine_c
from tilec.targets.cpu.values import static_shape

if TYPE_CHECKING:
    from tilec.targets.cpu.emitter import CEmitter

__all__ = ["print_iota"]


def print_iota(em: CEmitter, op: ir.Operation) -> None:
    """``t[i] = map(i, syms)`` for every coordinate ``i``, converted to the element type."""
    (value,) = op.attr("map").results
    shape = static_shape(op.result.type, op, em)
    syms = [em.scalar(v, op) for v in op.operands]
    dst = em.new_tile(op.result)
    idx = [em.fresh("i") for _ in shape]
    for i, n in zip(idx, shape):
        em.buf.line(f"for (int64_t {i} = 0; {i} < {n}; ++{i})")
    with em.buf.block(""):
        em.buf.line(f"{dst.name}[{CopyLoops.flat(idx, shape)}] = "
                    f"({em.ctype(dst.dtype)}){affine_c(value, idx, syms)};")
    em.bind(op.result, dst)
