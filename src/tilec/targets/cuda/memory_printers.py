"""CUDA printers of the accesses: ``load``, ``store`` and ``atomic`` through a view.

The addressing, guards and 16-byte vectorization are ``access.AccessWriter``'s;
these say what moves per element or per vector. ``MEMORY_PRINTERS`` is the emitter's
table for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.targets.clike import Splat
from tilec.targets.cuda.forms import static_shape

if TYPE_CHECKING:
    from tilec.targets.cuda.emitter import CUDAEmitter
    from tilec.targets.cuda.forms import Regs

__all__ = ["MEMORY_PRINTERS", "exchange_operands", "atomic_stmt"]


def vector_type(mt: str, w: int, elem_bytes: int) -> str:
    """The C type of a ``w``-element vector of ``mt`` (``elem_bytes`` each): ``tc_vec16``
    for 16 bytes, else the narrow ``tc_vec`` (4 or 8 bytes)."""
    return f"tc_vec16<{mt}>" if w * elem_bytes == 16 else f"tc_vec<{mt}, {w}>"


def print_load(em: CUDAEmitter, op: ir.Operation) -> None:
    """Registers from a view; invalid elements get ``fill`` (NaN/0 when there is none)."""
    ref = em.memref(op.operand(0), op)
    rt = op.result.type
    shape = static_shape(rt, op, em)
    out = em.new_regs(op.result, op)
    fill = op.attr("fill")
    miss = em.reg_literal(fill, rt.dtype) if fill is not None else em.poison(rt.dtype)
    mt = em.mtype(rt.dtype)
    cq = em.space_qual(ref.space) + ("const " if ref.space == "global" else "")

    def vec(p: str, i0: int, w: int) -> list[str]:
        v = em.fresh("v")
        if out.packed and i0 % 2 == 0 and w % 2 == 0:  # whole words
            vt = vector_type("uint32_t", w // 2, 4)
            return [f"const {vt} {v} = *reinterpret_cast<{cq}{vt} *>({p});"] \
                + [f"{out.name}.w[{i0 // 2 + j}] = {v}.e[{j}];" for j in range(w // 2)]
        vt = vector_type(mt, w, rt.dtype.bytes)
        return [f"const {vt} {v} = *reinterpret_cast<{cq}{vt} *>({p});"] \
            + [f"{out.name}[{i0 + j}] = {v}.e[{j}];" for j in range(w)]

    em.access.access(ref, shape, lambda lv, i: f"{out.name}[{i}] = {lv};",
                       lambda i: f"{out.name}[{i}] = {miss};", vec)
    em.bind(op.result, out)


def print_store(em: CUDAEmitter, op: ir.Operation) -> None:
    """Write the valid elements of a view (16-byte stores where provable)."""
    ref = em.memref(op.operand(0), op)
    tv = op.operand(1)
    shape = static_shape(tv.type, op, em)
    r = em.get(tv, op)
    words = None
    if isinstance(r, Splat):
        val = em.to_reg(r.expr, r.dtype)
        elem = lambda i: val  # noqa: E731
    else:
        src = em.regs(tv, op)
        elem = lambda i: f"{src.name}[{i}]"  # noqa: E731
        words = src.name if src.packed else None
    mt = em.mtype(tv.type.dtype)
    q = em.space_qual(ref.space)

    def vec(p: str, i0: int, w: int) -> list[str]:
        v = em.fresh("v")
        if words is not None and i0 % 2 == 0 and w % 2 == 0:  # whole words
            vt = vector_type("uint32_t", w // 2, 4)
            return ([f"{vt} {v};"]
                    + [f"{v}.e[{j}] = {words}.w[{i0 // 2 + j}];" for j in range(w // 2)]
                    + [f"*reinterpret_cast<{q}{vt} *>({p}) = {v};"])
        vt = vector_type(mt, w, tv.type.dtype.bytes)
        return ([f"{vt} {v};"]
                + [f"{v}.e[{j}] = {elem(i0 + j)};" for j in range(w)]
                + [f"*reinterpret_cast<{q}{vt} *>({p}) = {v};"])

    em.access.access(ref, shape, lambda lv, i: f"{lv} = {elem(i)};", None, vec)


def print_atomic(em: CUDAEmitter, op: ir.Operation) -> None:
    """Per-element atomic read-modify-write of the valid elements."""
    ref = em.memref(op.operand(0), op)
    tv = op.operand(1)
    t = tv.type.dtype
    kind = op.attr("kind")
    src = em.regs(tv, op)
    shape = static_shape(tv.type, op, em)
    if kind in ir.EXCHANGE_KINDS:
        print_exchange(em, op, ref, src, shape)
        return
    if t.name not in (em.profile.atomic_dtypes or ()):
        # the lowering refuses these first, from the same profile fact
        raise em.unsupported(op, f"atomic {kind} on {t} memory")
    em.access.access(ref, shape, lambda lv, i: atomic_stmt(t, kind, lv, f"{src.name}[{i}]"),
                     None, None)


def atomic_stmt(t: ir.ScalarType, kind: str, lv: str, value: str) -> str:
    """The statement combining ``value`` into the element ``lv`` of type ``t`` (one the
    profile's ``atomic_dtypes`` allows): ``atomicAdd``/``atomicMax``/``atomicMin`` on 32-bit
    words as they are, on 64-bit integers through CUDA's ``unsigned long long`` (add, which
    wraps alike) or ``long long`` (max, min) overloads; float max/min through the prelude's
    CAS loops (``tc_atomic_max_f32``...)."""
    if t.is_float and kind != "add":
        return f"tc_atomic_{kind}_{t.name}(&{lv}, {value});"
    fn = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin"}[kind]
    if t.name in ("i64", "index"):
        w = "unsigned long long" if kind == "add" else "long long"
        return f"{fn}(({w} *)&{lv}, ({w}){value});"
    return f"{fn}(&{lv}, {value});"


def exchange_operands(em: CUDAEmitter, op: ir.Operation) -> tuple[Regs, str, Regs | None]:
    """The result's registers (filled where nothing is accessed: the result of an invalid
    element), the fill and the compared registers (``cas``) of an exchange ``op``, after the
    profile check (the lowering refuses other types first, from the same profile fact)."""
    t = op.result.type.dtype
    kind = op.attr("kind")
    if t.name not in (em.profile.exchange_dtypes or ()):
        raise em.unsupported(op, f"atomic {kind} on {t} memory")
    out = em.new_regs(op.result, op)
    fill = op.attr("fill")
    miss = em.reg_literal(fill, t) if fill is not None else em.poison(t)
    cmp = em.regs(op.operand(2), op) if kind == "cas" else None
    return out, miss, cmp


def print_exchange(em: CUDAEmitter, op: ir.Operation, ref: Any, src: Regs,
                   shape: tuple[int, ...]) -> None:
    """``xchg``/``cas`` per valid element on its bit pattern (``tc_atomic_xchg``,
    ``tc_atomic_cas``: ``atomicExch``/``atomicCAS`` on the 32- or 64-bit word)."""
    out, miss, cmp = exchange_operands(em, op)
    mt = em.mtype(op.result.type.dtype)
    if cmp is None:
        stmt = lambda lv, i: (f"{out.name}[{i}] = tc_atomic_xchg<{mt}>(&{lv}, "  # noqa: E731
                              f"{src.name}[{i}]);")
    else:
        stmt = lambda lv, i: (f"{out.name}[{i}] = tc_atomic_cas<{mt}>(&{lv}, "  # noqa: E731
                              f"{cmp.name}[{i}], {src.name}[{i}]);")
    em.access.access(ref, shape, stmt, lambda i: f"{out.name}[{i}] = {miss};", None)
    em.bind(op.result, out)


MEMORY_PRINTERS: dict[str, Callable[[CUDAEmitter, ir.Operation], None]] = {
    "load": print_load, "store": print_store, "atomic": print_atomic,
}
"""Opcode -> its printer."""
