"""MSL of the opaque ``simdgroup_matrix`` atoms (``simdgroup.load`` / ``.mma`` / ``.store``).

A fragment is a ``simdgroup_float8x8`` local; nothing but these three atoms can use one (any
other operation given a fragment is an emission error, as it is a type error in MSL), except
a loop that carries it (``MetalEmitter.mutable_result``: a resident accumulator). The
8x8 view of a load or store must have constant row and column steps in its buffer, one of
them 1: ``simdgroup_load(frag, p, elements_per_row)`` for a row-major block, with
``ulong2(0, 0), true`` (``transpose_matrix``) for a column-major one (a K-major staged B).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

__all__ = ["Fragment", "emit_simdgroup_atom", "staged_block"]


@dataclass(frozen=True)
class Fragment:
    """An opaque ``simdgroup_float8x8`` at emission time."""

    name: str
    """The MSL local."""


def _steps(ref: Any) -> tuple[int, int] | None:
    """Element steps of the view's row and column in the base, when both are constants."""
    zero = [ir.const(0), ir.const(0)]
    out = []
    for unit in ([ir.const(1), ir.const(0)], [ir.const(0), ir.const(1)]):
        step = 0
        for res, stride in zip(ref.map.results, ref.strides):
            diff = res.substitute(unit) - res.substitute(zero)
            if diff.terms or not str(stride).isdigit():
                if diff.terms or diff.constant:
                    return None
                continue
            step += diff.constant * int(stride)
        out.append(step)
    return out[0], out[1]


def staged_block(em: Any, op: ir.Operation, v: ir.Value, what: str, memory: str,
                 bounded: str, rows: str) -> tuple[str, int, int]:
    """(pointer to the first element, row step, column step) of ``v``, a view of unswizzled
    f32 threadgroup memory with constant steps, one of them 1; refused otherwise, the
    message saying ``what`` and why (``memory``: the realization's staging, ``bounded``: a
    bounded view, ``rows``: the rows and columns that lack unit steps)."""
    ref = em.memref(v, op)
    if ref.space != "shared" or ref.dtype is not ir.f32 or ref.swizzle:
        raise em.unsupported(op, f"{what} on {ref.space} {ref.dtype} memory ({memory})")
    if ref.levels:
        raise em.unsupported(op, f"{what} {bounded}")
    steps = _steps(ref)
    if steps is None or 1 not in steps:
        raise em.unsupported(op, f"{what}: {rows} are not a constant stride and unit steps "
                                 "in its buffer")
    row, col = steps
    return f"{ref.ptr} + {ref.at(em.access.address_of_first(ref))}", row, col


def _pointer_and_layout(em: Any, op: ir.Operation) -> tuple[str, str]:
    ptr, row, col = staged_block(
        em, op, op.operand(0), op.attr("catalog_id"),
        "the realization stages its blocks in unswizzled f32 threadgroup memory",
        "of a bounded view (simdgroup_load and simdgroup_store have no bounds)",
        "the block's rows and columns")
    tail = f"(ulong){row}" if col == 1 else f"(ulong){col}, ulong2(0, 0), true"
    return ptr, tail


def _frag(em: Any, v: ir.Value, op: ir.Operation) -> str:
    f = em.get(v, op)
    if not isinstance(f, Fragment):
        raise em.unsupported(op, f"{op.attr('catalog_id')} needs a simdgroup fragment, got "
                                 f"{type(f).__name__}")
    return f.name


def emit_simdgroup_atom(em: Any, op: ir.Operation) -> None:
    """Print one ``simdgroup.*`` atom."""
    cid = op.attr("catalog_id")
    b = em.buf
    if cid == "simdgroup.load":
        ptr, tail = _pointer_and_layout(em, op)
        name = em.name_of(op.result)
        b.line(f"simdgroup_float8x8 {name};")
        b.line(f"simdgroup_load({name}, {ptr}, {tail});")
        em.bind(op.result, Fragment(name))
    elif cid == "simdgroup.mma":
        a, bb, c = (_frag(em, v, op) for v in op.operands)
        name = em.name_of(op.result)
        b.line(f"simdgroup_float8x8 {name};")
        b.line(f"simdgroup_multiply_accumulate({name}, {a}, {bb}, {c});")
        em.bind(op.result, Fragment(name))
    else:
        ptr, tail = _pointer_and_layout(em, op)
        b.line(f"simdgroup_store({_frag(em, op.operand(1), op)}, {ptr}, {tail});")
