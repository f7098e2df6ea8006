"""CUDA printers of the register-tile operations: ``map``, ``reindex``, ``iota``, ``reduce``,
``mma``.

Each prints one Machine operation over a thread's own registers (``forms.Regs``),
fully unrolled; ``TILE_PRINTERS`` is the emitter's table for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.targets.clike import Scalar, Splat, prod
from tilec.targets.cuda.access import IndexWriter, unravel
from tilec.targets.cuda.forms import Regs, flat_index, static_shape

if TYPE_CHECKING:
    from tilec.targets.cuda.emitter import CUDAEmitter

__all__ = ["TILE_PRINTERS"]


def print_map(em: CUDAEmitter, op: ir.Operation) -> None:
    """The scalar region once per register, in a ``#pragma unroll`` loop."""
    shape = tuple(int(e) for e in op.attr("shape").extents)
    n = prod(shape)
    block = op.regions[0].entry
    forms = [em.get(v, op) for v in op.operands]
    outs = [em.new_regs(r, op) for r in op.results]
    if _pairwise_cast(em, op, block, forms, outs, n):
        return
    e = "e" if n > 1 else "0"
    if n > 1:
        em.buf.line("#pragma unroll")
    with em.buf.block(f"for (int e = 0; e < {n}; ++e)" if n > 1 else ""):
        for a, f in zip(block.args, forms):
            if isinstance(f, Scalar):
                em.bind(a, f)
                continue
            if isinstance(f, Regs):
                src = em.to_compute(f"{f.name}[{e}]", f.dtype)
            elif isinstance(f, Splat):
                src = f.expr
            else:
                raise em.unsupported(op, f"map operand of type {a.type}")
            var = em.name_of(a)
            em.buf.line(f"const {em.ctype(a.type)} {var} = {src};")
            em.bind(a, Scalar(var, a.type))
        term = em.emit_block(block)
        if term is None:
            raise em.unsupported(op, "map region does not end with yield")
        for out, v in zip(outs, term.operands):
            x = _narrowed(v, block, out.dtype)  # convert once, not round then convert
            src = em.scalar(v, term) if x is None else em.scalar(x, term)
            em.buf.line(f"{out.name}[{e}] = {em.to_reg(src, out.dtype)};")
    for r, out in zip(op.results, outs):
        em.bind(r, out)


def _narrowed(v: ir.Value, block: ir.Block, dtype: ir.ScalarType) -> ir.Value | None:
    """The f32 value that ``v``, yielded into 16-bit float registers of ``dtype``, casts in
    ``block`` (None: ``v`` is no such cast). Rounding it to ``dtype`` and converting the
    result to ``dtype``'s bits gives the bits of converting it once (the second rounding is
    exact), so the register takes ``cvt.rn`` of it directly."""
    d = v.defining_op
    if d is None or d.name != "arith" or d.attr("fn") != "cast" or d.parent is not block \
            or dtype.name not in ("bf16", "f16") or getattr(v.type, "name", None) != dtype.name:
        return None
    x = d.operand(0)
    return x if getattr(x.type, "name", None) == "f32" else None


def _pairwise_cast(em: CUDAEmitter, op: ir.Operation, block: ir.Block, forms: list,
                   outs: list, n: int) -> bool:
    """A map that only casts f32 registers to a 16-bit float array: one
    ``cvt.rn.bf16x2.f32`` (``f16x2``) per pair, element ``2j`` into the low half of the word
    (of a packed array; else split into the two elements by one ``mov.b32 {lo, hi}``: a
    shift and a mask leave the compiler a shift and a byte permute per pair where a later
    two-element store puts the same word back together); the same rounding per element as
    the one-element ``cvt.rn`` (``tc_f32_to_bf16``). True when done."""
    ops = list(block.operations)
    if len(outs) != 1 or n % 2 or len(ops) != 2 or not (outs[0].packed or em.INLINE_PTX) \
            or ops[0].name != "arith" or ops[0].attr("fn") != "cast" or ops[1].name != "yield" \
            or ops[1].operand(0) is not ops[0].result:
        return False
    x = ops[0].operand(0)
    k = next((i for i, a in enumerate(block.args) if a is x), None)
    kind = {"bf16": "bf16x2", "f16": "f16x2"}.get(outs[0].dtype.name)
    if k is None or kind is None or not isinstance(forms[k], Regs) or forms[k].dtype is not ir.f32:
        return False
    src, out = forms[k].name, outs[0].name
    for j in range(n // 2):
        cvt = (f'asm("cvt.rn.{kind}.f32 %0, %1, %2;" : "=r"({{}}) '
               f': "f"({src}[{2 * j + 1}]), "f"({src}[{2 * j}]));')
        if outs[0].packed:
            em.buf.line(cvt.format(f"{out}.w[{j}]"))
            continue
        w = em.fresh("pair")  # an array of bit patterns: the word's halves
        with em.buf.block(""):
            em.buf.line(f"uint32_t {w};")
            em.buf.line(cvt.format(w))
            em.buf.line(f'asm("mov.b32 {{%0, %1}}, %2;" : "=h"({out}[{2 * j}]), '
                        f'"=h"({out}[{2 * j + 1}]) : "r"({w}));')
    em.bind(op.results[0], outs[0])
    return True


def print_reindex(em: CUDAEmitter, op: ir.Operation) -> None:
    """A static map copies registers (unrolled); a symbolic one indexes at run time."""
    m: ir.IndexMap = op.attr("map")
    rt = op.result.type
    shape = static_shape(rt, op, em)
    src_form = em.get(op.operand(0), op)
    src_shape = static_shape(op.operand(0).type, op, em)
    fill = op.attr("fill")
    if isinstance(src_form, Splat) and not m.n_symbols and _in_range(m, shape, src_shape):
        em.bind(op.result, Splat(src_form.expr, shape, src_form.dtype))
        return
    src = em.regs(op.operand(0), op)
    out = em.new_regs(op.result, op)
    miss = em.reg_literal(fill, rt.dtype) if fill is not None else em.poison(rt.dtype)
    if not m.n_symbols:
        srcs: list[int | None] = []
        for i in range(prod(shape)):
            c = m.apply(unravel(i, shape))
            ok = all(0 <= x < e for x, e in zip(c, src_shape))
            srcs.append(flat_index(c, src_shape) if ok else None)
        words = _word_moves(srcs, prod(src_shape)) if src.packed and out.packed else {}
        for i, j in enumerate(srcs):
            if i in words:
                em.buf.line(f"{out.name}.w[{i // 2}] = {src.name}.w[{words[i]}];")
            elif i - 1 in words:
                continue
            else:
                em.buf.line(f"{out.name}[{i}] = {src.name}[{j}];" if j is not None else
                              f"{out.name}[{i}] = {miss};")
    else:
        syms = [em.int_text(v, op) for v in op.operands[1:]]
        iw = IndexWriter([em.range_of(v) for v in op.operands[1:]])
        for i in range(prod(shape)):
            dims = [ir.AffineExpr((), x) for x in unravel(i, shape)]
            conds: list[str] | None = []
            flat = []
            for k, r in enumerate(m.results):
                c, cr = iw.expr(r.substitute(dims), syms)
                got = em.access.bound_conds(c, cr, 0, 0, str(src_shape[k]))
                conds = None if got is None or conds is None else conds + got
                flat.append(f"{c} * {prod(src_shape[k + 1:])}")
            ok = "false" if conds is None else " && ".join(conds) or "true"
            em.buf.line(f"{out.name}[{i}] = ({ok}) ? {src.name}[{' + '.join(flat) or 0}] "
                          f": {miss};")
    em.bind(op.result, out)


def print_iota(em: CUDAEmitter, op: ir.Operation) -> None:
    """Each register is its map of (register, symbols: the thread id among them), converted."""
    m: ir.IndexMap = op.attr("map")
    rt = op.result.type
    shape = static_shape(rt, op, em)
    syms = [em.int_text(v, op) for v in op.operands]
    iw = IndexWriter([em.range_of(v) for v in op.operands])
    out = em.new_regs(op.result, op)
    for i in range(prod(shape)):
        dims = [ir.AffineExpr((), x) for x in unravel(i, shape)]
        c, _ = iw.expr(m.results[0].substitute(dims), syms)
        value = em.cast_expr(f"(int64_t)({c})", ir.index, rt.dtype, op)
        em.buf.line(f"{out.name}[{i}] = {em.to_reg(value, rt.dtype)};")
    em.bind(op.result, out)


def print_reduce(em: CUDAEmitter, op: ir.Operation) -> None:
    """Fold a thread's own registers: a pairwise tree for a recognized merge, else in order."""
    n_in = op.attr("n_inputs")
    axes = tuple(sorted(op.attr("axes")))
    inputs = [em.regs(v, op) for v in op.operands[:n_in]]
    seeds = [em.scalar(v, op) for v in op.operands[n_in:]]
    shape = inputs[0].shape
    kept = [j for j in range(len(shape)) if j not in axes]
    keep_shape = [shape[j] for j in kept]
    red_shape = [shape[j] for j in axes]
    outs = [em.new_regs(r, op) for r in op.results]
    block = op.regions[0].entry
    merge = _direct_merge(op)
    # merge(identity, x) is x bit for bit (NaN, signed zeros included): no merge with the seed
    seed_is_identity = merge is not None and ir.is_merge_identity(op.operand(n_in), merge)
    for o in range(prod(keep_shape)):
        ko = unravel(o, keep_shape)
        flats = []
        for q in range(prod(red_shape)):
            idx = [0] * len(shape)
            for j, v in zip(kept, ko):
                idx[j] = v
            for j, v in zip(axes, unravel(q, red_shape)):
                idx[j] = v
            flats.append(flat_index(idx, shape))
        if merge is not None and flats:
            t = outs[0].dtype
            parts = [em.to_compute(f"{inputs[0].name}[{f}]", t) for f in flats]
            while len(parts) > 1:
                nxt = []
                for k in range(0, len(parts) - 1, 2):
                    var = em.fresh("p")
                    em.buf.line(f"const {em.ctype(t)} {var} = "
                                  f"{em.merge_expr(merge, parts[k], parts[k + 1], t)};")
                    nxt.append(var)
                if len(parts) % 2:
                    nxt.append(parts[-1])
                parts = nxt
            total = parts[0] if seed_is_identity \
                else em.merge_expr(merge, seeds[0], parts[0], t)
            em.buf.line(f"{outs[0].name}[{o}] = {em.to_reg(total, t)};")
            continue
        states = []
        for out, seed in zip(outs, seeds):
            s = em.fresh("s")
            em.buf.line(f"{em.ctype(out.dtype)} {s} = {seed};")
            states.append(s)
        for f in flats:
            with em.buf.block(""):
                em.fold_update(block, states, [em.to_compute(f"{x.name}[{f}]", x.dtype)
                                                 for x in inputs], op)
        for out, s in zip(outs, states):
            em.buf.line(f"{out.name}[{o}] = {em.to_reg(s, out.dtype)};")
    for r, out in zip(op.results, outs):
        em.bind(r, out)


def print_mma(em: CUDAEmitter, op: ir.Operation) -> None:
    """A lane-level register micro-tile ``c + a @ b``: exact FP32 FFMA, or strict order."""
    av, bv, cv = op.operands
    policy: ir.ArithPolicy = op.attr("policy")
    m, k = static_shape(av.type, op, em)
    n = static_shape(bv.type, op, em)[1]
    a, b_, c = (em.regs(v, op) for v in (av, bv, cv))
    out = em.new_regs(op.result, op)
    at, ct = a.dtype, c.dtype
    if at.is_float != ct.is_float:
        raise em.unsupported(op, f"mma of {at} operands into a {ct} accumulator")
    cc = em.ctype(ct)
    buf = em.buf
    tf32 = policy.precision == "tf32" and at is ir.f32

    def operand(x: Regs, idx: str) -> str:
        v = em.to_compute(f"{x.name}[{idx}]", x.dtype)
        return f"tc_round_tf32({v})" if tf32 else f"({cc}){v}" if ct is ir.f64 else v

    fused = policy.order == "unordered_tree"
    if not ct.is_float:
        step = f"acc = ({cc})(acc + ({cc})({operand(a, 'i * K + kk')}) * " \
               f"({cc})({operand(b_, 'kk * N + j')}));"
    else:
        w = "f64" if ct is ir.f64 else "f32"
        x, y = operand(a, "i * K + kk"), operand(b_, "kk * N + j")
        if fused:
            core = f"{em.ROUNDED['fma.' + w]}({x}, {y}, acc)"
        else:
            mul, add = em.ROUNDED["mul." + w], em.ROUNDED["add." + w]
            core = f"{add}(acc, {mul}({x}, {y}))"
        rnd = em.NARROW_ROUND.get(ct.name)
        step = f"acc = {rnd.format(core) if rnd else core};"
    buf.line(f"/* mma {m}x{n}x{k} {policy}: one thread's register micro-tile */")
    with buf.block(""):
        buf.line(f"constexpr int K = {k}, N = {n};")
        buf.line("#pragma unroll")
        with buf.block(f"for (int i = 0; i < {m}; ++i)"):
            buf.line("#pragma unroll")
            with buf.block("for (int j = 0; j < N; ++j)"):
                buf.line(f"{cc} acc = {em.to_compute(c.name + '[i * N + j]', ct)};")
                buf.line("#pragma unroll")
                buf.line(f"for (int kk = 0; kk < K; ++kk) {step}")
                buf.line(f"{out.name}[i * N + j] = {em.to_reg('acc', ct)};")
    em.bind(op.result, out)


def _word_moves(srcs: Sequence[int | None], n_src: int) -> dict[int, int]:
    """Even output elements ``i`` whose pair ``(i, i + 1)`` is source pair ``(2w, 2w + 1)``,
    mapped to ``w``: a packed reindex copies those as whole words."""
    out = {}
    for i in range(0, len(srcs) - 1, 2):
        j, k = srcs[i], srcs[i + 1]
        if j is not None and k == j + 1 and j % 2 == 0 and k < n_src:
            out[i] = j // 2
    return out


def _in_range(m: ir.IndexMap, shape: Sequence[int], src: Sequence[int]) -> bool:
    for i in range(prod(shape)):
        c = m.apply(unravel(i, shape))
        if not all(0 <= x < e for x, e in zip(c, src)):
            return False
    return True


def _direct_merge(op: ir.Operation) -> str | None:
    """The merge of a single-state ``unordered_tree`` reduce whose update is ``merge(s, x)``.

    Only then is a pairwise tree of the plain elements a permitted regrouping
    (each contribution is ``merge(identity, x) = x``).
    """
    if op.attr("policy").kind != "unordered_tree" or len(op.results) != 1 \
            or op.attr("n_inputs") != 1:
        return None
    block = op.regions[0].entry
    ops = list(block.operations)
    if len(ops) != 2 or ops[0].name != "arith" or ops[1].name != "yield":
        return None
    fn = ops[0].attr("fn")
    if fn not in ("add", "mul", "max", "min"):
        return None
    if ir.merge_laws(op) != (fn,):
        return None
    st, x = block.args
    if set(map(id, ops[0].operands)) != {id(st), id(x)} or ops[1].operand(0) is not ops[0].result:
        return None
    return fn


TILE_PRINTERS: dict[str, Callable[[CUDAEmitter, ir.Operation], None]] = {
    "map": print_map, "reindex": print_reindex, "reduce": print_reduce, "mma": print_mma,
    "iota": print_iota,
}
"""Opcode -> its printer."""
