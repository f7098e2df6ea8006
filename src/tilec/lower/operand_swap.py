"""Transposed TF32 products: ``C = A @ B`` accumulated as ``C.T = B.T @ A.T``.

A TF32 warpgroup instruction (``wgmma.m64k8.tf32``) has no transpose bit: it reads B from
shared memory K-major only, and A from registers (``ir.atoms.WgmmaAtom``). The B of a
matrix product written ``A @ B`` over row-major arrays is N-major, so the planner rejects
the instruction for it (``plan.matrix.wgmma_rule``) and the product runs on the warp-wide
``mma.m16n8k8.tf32``, about a third as fast on Hopper. The transposed product has what the
instruction needs: its B is ``A.T``, whose staged tile holds A's rows of K elements
(K-major), and its A is ``B.T``, read into registers from B's staged tile (a transposed A
stays staged for f32 under tf32: ``ir.dataflow.transposed_a_staged``). So on a profile
with warpgroup instructions, before planning, this pass rewrites each such product of a
closed recurrence::

    acc = init                                  acc_t = init.T (a constant: its transpose)
    for k ...:                                  for k ...:
        acc = tc.mma(a, b, acc)        ->           acc_t = tc.mma(b.T, a.T, acc_t)
    use(acc)                                    use(acc_t.T)

Every element is the same sum of the same products (``(B.T A.T)[j, i] = sum_k A[i, k]
B[k, j]``), each operand rounded to TF32 as before; the summation order of a TF32 product
is ``unordered_tree`` unless the program asks for ``strict_fold``, which no matrix atom
realizes anyway. The final transpose is a relabeling of the accumulator's registers or one
exchange through shared memory after the loop.

Applies where: the profile has warpgroup instructions and ``PlannerOptions.warpgroup_mma``
and ``tf32_operand_swap`` are on; the ``mma``'s operands are 2-D f32 tiles under
``precision = "tf32"`` and its B is not already a transpose (``x.T``: K-major as it is);
its accumulator is the closed recurrence of a ``serial`` loop (``closed_recurrence``).
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir
from tilec.ir.dataflow import closed_recurrence, plain_transpose

from .cloning import clone_module

__all__ = ["swap_tf32_products", "swappable"]

_T = ir.IndexMap(2, [ir.d(1), ir.d(0)])
"""The transpose of a 2-D tile."""


def swappable(op: ir.Operation) -> str | None:
    """Why the ``mma`` ``op`` is not rewritten as its transposed product (None: it is)."""
    a, b, c = op.operands[:3]
    policy = op.attr("policy")
    if policy is None or policy.precision != "tf32":
        return "not a TF32 product"
    if any(not isinstance(v.type, ir.TileType) or v.type.rank != 2 or v.type.dtype is not ir.f32
           for v in (a, b, c)):
        return "not a product of 2-D f32 tiles"
    d = b.defining_op
    if d is not None and plain_transpose(d):
        return "its B is already K-major (x.T)"
    rec = closed_recurrence(op, 2)
    if rec is None or rec[0].name != "serial":
        return "its accumulator is not the closed recurrence of a serial loop"
    return None


def swap_tf32_products(module: ir.Module, profile: Any, options: Any
                       ) -> tuple[ir.Module, list[str]]:
    """``module`` with every swappable TF32 product rewritten (a copy; ``module`` itself when
    none is), and one note per rewritten product. ``profile``: a ``TargetProfile`` or a
    target name (None: unknown, nothing is rewritten)."""
    if isinstance(profile, str):
        from tilec.exec import get_profile

        try:
            profile = get_profile(profile)
        except ValueError:  # scheduling names the unknown target
            return module, []
    if not (getattr(profile, "warpgroup_mma", False) and options.warpgroup_mma
            and options.tf32_operand_swap):
        return module, []
    if not any(op.name == "mma" and swappable(op) is None
               for fn in module.functions for op in fn.walk()):
        return module, []
    new, _ = clone_module(module)
    notes = []
    for fn in new.functions:
        for op in [o for o in fn.walk() if o.name == "mma" and swappable(o) is None]:
            notes.append(f"mma at {op.loc}: computed as its transpose B.T @ A.T (a TF32 "
                         "warpgroup instruction reads a K-major B only)")
            _swap(op)
    ir.verify(new, "candidate")
    return new, notes


def _transposed(b: ir.Builder, v: ir.Value, loc: ir.Location) -> ir.Value:
    """``v.T``: a splat constant's transposed shape, else a plain transpose."""
    rows, cols = v.type.shape
    t = ir.TileType((cols, rows), v.type.dtype)
    d = v.defining_op
    if d is not None and d.name == "constant" and d.num_operands == 0:
        return b.create("constant", [], [t], dict(d.attributes), loc=loc).result
    return b.create("reindex", [v], [t], {"map": _T}, loc=loc).result


def _swap(op: ir.Operation) -> None:
    loop, pos = closed_recurrence(op, 2)  # type: ignore[misc]
    a, b, acc = op.operands[:3]
    init_at = loop.num_operands - len(loop.results) + pos
    before = ir.Builder(ir.InsertionPoint.before_op(loop))
    init = loop.operand(init_at)
    loop.set_operand(init_at, _transposed(before, init, op.loc))
    if init.num_uses == 0 and init.defining_op is not None:
        init.defining_op.erase()  # the constant it replaced
    m, n = acc.type.shape
    t = ir.TileType((n, m), ir.f32)
    acc.type = t  # the carried block argument
    inner = ir.Builder(ir.InsertionPoint.before_op(op))
    new = inner.create("mma", [_transposed(inner, b, op.loc), _transposed(inner, a, op.loc),
                               acc, *op.operands[3:]], [t], dict(op.attributes), loc=op.loc)
    for u in list(op.result.uses):  # the yield (another type: no replace_all_uses_with)
        u.owner.set_operand(u.index, new.result)
    op.erase()
    res = loop.results[pos]
    res.type = t
    out = _transposed(ir.Builder(ir.InsertionPoint.after_op(loop)), res, loop.loc)
    for u in [u for u in res.uses if u.owner is not out.defining_op]:
        u.owner.set_operand(u.index, out)
    _store_transposed(out)


def _store_transposed(out: ir.Value) -> None:
    """Where the product's only use is ``store(view, acc_t.T)``, store ``acc_t`` through the
    transposed view instead: each thread writes its accumulator registers where they belong
    (8 consecutive elements of 4 rows per warp instruction), with no exchange of the whole
    tile through shared memory (which at 256 x 256 would not fit beside the rings)."""
    uses = list(out.uses)
    if len(uses) != 1 or uses[0].owner.name != "store" or uses[0].index != 1:
        return
    st = uses[0].owner
    view = st.operand(0).defining_op
    if view is None or view.name != "view" or view.result.type.rank != 2:
        return
    flipped = view.attr("map").compose(_T)
    rows, cols = view.result.type.shape
    mt = ir.MemoryType((cols, rows), view.result.type.dtype, view.result.type.space)
    b = ir.Builder(ir.InsertionPoint.before_op(st))
    tview = b.create("view", list(view.operands), [mt], {**view.attributes, "map": flipped},
                     loc=view.loc).result
    b.create("store", [tview, out.defining_op.operand(0), *st.operands[2:]], [],
             dict(st.attributes), loc=st.loc)
    st.erase()
    out.defining_op.erase()
    if view.result.num_uses == 0:
        view.erase()
