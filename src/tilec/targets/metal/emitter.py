"""MSL emission of Machine TileIR (docs/design/metal.md; docs/design/lowering.md is the input).

One Machine function becomes one ``kernel void`` function. A Machine TileIR kernel is the
same SIMT program on either GPU, so ``MetalEmitter`` specializes the CUDA emitter's SIMT
machinery (register arrays, the access writer, the tile and memory printers) through its
hooks and replaces what differs:

* parameters: ``device [const] T *p [[buffer(k)]]`` for a memory, ``constant T &x
  [[buffer(k)]]`` for a scalar, a shape symbol or another extent; then ``constant uint
  &tc_aligned`` (the launcher's word of 16-byte-aligned bindings: MSL has no portable
  pointer-to-integer cast), then ``device atomic_uint *tc_check`` when the kernel has
  device checks, then the thread-position attributes;
* the grid ``parallel`` maps onto ``[[threadgroup_position_in_grid]]`` as CUDA's onto
  ``blockIdx``; the lane ``parallel`` onto ``[[thread_index_in_threadgroup]]``;
* threadgroup memory is one ``threadgroup uint4`` array in the kernel's scope, of the
  allocate stage's size; each buffer is a ``threadgroup T *`` at its offset;
* ``barrier.group`` / a group ``sync``: ``threadgroup_barrier``; ``barrier.subgroup``:
  ``simdgroup_barrier`` (threadgroup memory ordered within each SIMD-group); ``shfl.xor``:
  ``simd_shuffle_xor``; ``vote.any``: ``simd_any`` per SIMD-group, one threadgroup word per
  SIMD-group between two barriers;
* a device check claims ``tc_check[0]`` with a compare-and-swap and stores its values as
  (low, high) 32-bit pairs (floats as their f32 bits), then returns.

Rejected with the reason: f64 (MSL has no ``double``), the CUDA-only atoms, swizzled
shared buffers, split-K workspaces. Floats are printed as shortest round-trip decimal
literals, not hex floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import CATALOG, MPP_OPS, SIMDGROUP_OPS
from tilec.targets.clike import (
    CLikeEmitter,
    IndentedBuffer,
    Scalar,
    Splat,
    TokenVal,
    round_float,
)
from tilec.targets.cuda.emitter import CUDAEmitter
from tilec.targets.cuda.forms import static_shape
from tilec.targets.cuda.memory_printers import exchange_operands
from tilec.targets.cuda.source import HostStep, ParamInfo, kernel_name
from tilec.targets.kernel_checks import CheckInfo
from tilec.targets.metal.check_header import MPP_INCLUDES
from tilec.targets.metal.mpp_printers import Destination, emit_mpp_atom
from tilec.targets.metal.prelude import PRELUDE
from tilec.targets.metal.simdgroup_printers import Fragment, emit_simdgroup_atom
from tilec.targets.metal.source import MetalSource

__all__ = ["MetalEmitter", "emit_metal"]

_SPACES = {"global": "device ", "shared": "threadgroup ", "local": "thread ",
           "fragment": "thread "}

METAL_ATOMS = ("barrier.group", "barrier.subgroup", "shfl.xor", "vote.any", *SIMDGROUP_OPS,
               *MPP_OPS)
"""Catalog atoms with a Metal form; the others are CUDA instructions."""


def _print_load(em: MetalEmitter, op: ir.Operation) -> None:
    """Registers from a view; invalid elements get ``fill`` (NaN/0 when there is none). A
    16-byte chunk is read element by element through one aligned vector pointer (a struct
    is not copied between address spaces)."""
    ref = em.memref(op.operand(0), op)
    rt = op.result.type
    shape = static_shape(rt, op, em)
    out = em.new_regs(op.result, op)
    fill = op.attr("fill")
    miss = em.reg_literal(fill, rt.dtype) if fill is not None else em.poison(rt.dtype)
    vt = f"{em.space_qual(ref.space)}const tc_vec16<{em.mtype(rt.dtype)}> *"

    def vec(p: str, i0: int, w: int) -> list[str]:
        q = em.fresh("q")
        return [f"{vt}const {q} = reinterpret_cast<{vt}>({p});"] \
            + [f"{out.name}[{i0 + j}] = {q}->e[{j}];" for j in range(w)]

    em.access.access(ref, shape, lambda lv, i: f"{out.name}[{i}] = {lv};",
                     lambda i: f"{out.name}[{i}] = {miss};", vec)
    em.bind(op.result, out)


def _print_store(em: MetalEmitter, op: ir.Operation) -> None:
    """Write the valid elements of a view (16-byte chunks through one vector pointer)."""
    ref = em.memref(op.operand(0), op)
    tv = op.operand(1)
    shape = static_shape(tv.type, op, em)
    r = em.get(tv, op)
    if isinstance(r, Splat):
        val = em.to_reg(r.expr, r.dtype)
        elem = lambda i: val  # noqa: E731
    else:
        src = em.regs(tv, op)
        elem = lambda i: f"{src.name}[{i}]"  # noqa: E731
    vt = f"{em.space_qual(ref.space)}tc_vec16<{em.mtype(tv.type.dtype)}> *"

    def vec(p: str, i0: int, w: int) -> list[str]:
        q = em.fresh("q")
        return [f"{vt}const {q} = reinterpret_cast<{vt}>({p});"] \
            + [f"{q}->e[{j}] = {elem(i0 + j)};" for j in range(w)]

    em.access.access(ref, shape, lambda lv, i: f"{lv} = {elem(i)};", None, vec)


def _print_atomic(em: MetalEmitter, op: ir.Operation) -> None:
    """``xchg``/``cas`` per valid element on the 32-bit word of its bit pattern, through a
    ``device`` (or ``threadgroup``) ``atomic_uint``: ``atomic_exchange_explicit``, and
    ``atomic_compare_exchange_weak_explicit`` retried while it fails with the word still
    equal to the compared one (MSL has only the weak form, which may fail spuriously).
    The other atomics are refused by the lowering for this profile."""
    kind = op.attr("kind")
    ref = em.memref(op.operand(0), op)
    if kind not in ir.EXCHANGE_KINDS or ref.space not in ("global", "shared"):
        raise em.unsupported(op, f"atomic {kind} on {ref.space} memory")
    out, miss, cmp = exchange_operands(em, op)
    src = em.regs(op.operand(1), op)
    shape = static_shape(op.result.type, op, em)
    mt = em.mtype(op.result.type.dtype)
    word = f"reinterpret_cast<{em.space_qual(ref.space)}atomic_uint *>"
    relaxed = "memory_order_relaxed"
    if cmp is None:
        def stmt(lv: str, i: int) -> str:
            return (f"{out.name}[{i}] = as_type<{mt}>(atomic_exchange_explicit({word}(&{lv}), "
                    f"as_type<uint>({src.name}[{i}]), {relaxed}));")
    else:
        def stmt(lv: str, i: int) -> str:
            want, e = f"as_type<uint>({cmp.name}[{i}])", em.fresh("seen")
            return (f"{{ uint {e} = {want}; while (!atomic_compare_exchange_weak_explicit("
                    f"{word}(&{lv}), &{e}, as_type<uint>({src.name}[{i}]), {relaxed}, "
                    f"{relaxed}) && {e} == {want}) {{}} {out.name}[{i}] = as_type<{mt}>({e}); }}")
    em.access.access(ref, shape, stmt, lambda i: f"{out.name}[{i}] = {miss};", None)
    em.bind(op.result, out)


class MetalEmitter(CUDAEmitter):
    """Emits one Machine TileIR function as an MSL kernel."""

    TARGET = "Metal"

    NO_EMISSION = "no Metal emission for this operation"

    PRINTERS = {**CUDAEmitter.PRINTERS, "load": _print_load, "store": _print_store,
                "atomic": _print_atomic}

    NARROW_VECTORS = False
    """Only 16-byte chunks (its printers read them through ``tc_vec16`` pointers)."""
    LOCAL_ALIGN = "alignas(16) "
    """Local arrays are 16-byte aligned (``_aligned_at`` relies on it)."""
    GROUP_ID = "tc_group"
    LANE_ID = "tc_lane"
    WARP_UNIFORM = None
    INLINE_PTX = False
    ROUNDED = {"fma.f32": "metal::fma", "mul.f32": "tc_mul_rn", "add.f32": "tc_add_rn"}
    """Correctly rounded float operations (the launcher compiles without fast math, so a
    separate multiply and add stay separate)."""

    def __init__(self, module: ir.Module, fn_name: str, target: str = "metal:m1") -> None:
        super().__init__(module, fn_name, target)
        self._buffers = 0
        self.access.runtime_aligned = self._aligned_at
        self.vote_words = 0
        """Threadgroup words ``vote.any`` needs (one per SIMD-group; 0: no vote)."""
        self.uses_mpp = False
        """An ``mpp.matmul2d`` was printed: the kernel includes the tensor and MPP headers."""
        bad = ir.f64_user(self.fn)
        if bad is not None:
            raise self.unsupported(bad, "Metal has no 64-bit floating point (f64); compute "
                                        "in f32 for this target")
        # an f64 parameter no operation reads (the program's use of it died): bound as
        # opaque 8-byte words, so the kernel compiles and the launch contract stays the
        # same; a used one was refused above, at its first use (a fuzzer finding)
        for p in self.fn.args:
            dt = p.type if isinstance(p.type, ir.ScalarType) else getattr(p.type, "dtype", None)
            if dt is ir.f64 and list(p.uses):
                raise self.unsupported(next(iter(p.uses)).owner, "Metal has no 64-bit "
                                       "floating point (f64); compute in f32 for this target")

    def mtype(self, t: ir.ScalarType) -> str:
        """f64 only types an unused parameter here (``__init__``): opaque 8-byte words."""
        return "ulong" if t is ir.f64 else super().mtype(t)

    def ctype(self, t: ir.ScalarType) -> str:
        """As ``mtype``: an unused f64 scalar parameter is passed as 8 opaque bytes."""
        return "ulong" if t is ir.f64 else super().ctype(t)

    # -- hooks of the shared SIMT printers ------------------------------------------------
    def space_qual(self, space: str) -> str:
        """Every MSL pointer names its address space."""
        return _SPACES[space]

    def _buffer(self) -> int:
        k = self._buffers
        self._buffers += 1
        return k

    def mem_param(self, mt: str, ptr: str, written: bool) -> str:
        return f"device {'' if written else 'const '}{mt} *{ptr} [[buffer({self._buffer()})]]"

    def value_param(self, ct: str, var: str) -> str:
        return f"constant {ct} &{var} [[buffer({self._buffer()})]]"

    def aligned_flag(self, ptr: str) -> str:
        return f"((tc_aligned >> {self.param_index[ptr]}) & 1u) != 0u"

    def _aligned_at(self, ref: Any, offset: str) -> str:
        """``ref.ptr + offset`` is 16-byte aligned when the base is (its flag: the launcher's
        word for a parameter; shared buffers and local arrays are placed aligned) and the
        offset is a whole number of 16-byte chunks (MSL cannot read a pointer's bits)."""
        per = 16 // max(1, ref.dtype.bytes)
        cond = f"((({offset}) & {per - 1}) == 0)"
        return cond if ref.aligned == "true" else f"({ref.aligned} && {cond})"

    def literal(self, value: Any, t: ir.ScalarType) -> str:
        """Floats as shortest round-trip decimals (``1.5f``), not hex floats."""
        if t.is_float:
            x = round_float(value, t.name)
            if math.isnan(x):
                return "((float)NAN)"
            if math.isinf(x):
                return "((float)INFINITY)" if x > 0 else "(-(float)INFINITY)"
            text = np.format_float_scientific(np.float32(x), unique=True, trim="0")
            return f"{text}f"
        return super().literal(value, t)

    def cast_expr(self, x: str, src: ir.Type, dst: ir.Type, op: ir.Operation | None) -> str:
        """TileIR's conversions without ``double``: float -> integer converts the float
        itself (``tc_f2i_*`` take ``float``), and integer -> 16-bit float rounds to odd in
        f32 first (``tc_i64_to_f32_odd``; exact below 2**24), so the one rounding to 16 bits
        after it is correct."""
        if isinstance(src, ir.ScalarType) and isinstance(dst, ir.ScalarType) \
                and src is not dst and dst is not ir.i1 and ir.f64 not in (src, dst):
            if src.is_float and not dst.is_float:
                return f"tc_f2i_{'i64' if dst is ir.index else dst.name}({x})"
            if dst.is_float and not src.is_float and dst.name in self.NARROW_ROUND:
                return self.NARROW_ROUND[dst.name].format(
                    f"tc_i64_to_f32_odd((int64_t)({x}))")
        return super().cast_expr(x, src, dst, op)

    # -- grid -------------------------------------------------------------------------
    def _emit_grid(self, op: ir.Operation) -> None:
        for inner in op.regions[0].entry.operations:
            if inner.name == "memory" and int(inner.attr("swizzle", 0) or 0):
                raise self.unsupported(inner, "a swizzled shared buffer (a CUDA tensor-copy "
                                              "layout) has no Metal form")
        super()._emit_grid(op)

    # -- synchronization and checks ------------------------------------------------------
    def emit_sync(self, op: ir.Operation) -> None:
        """``group`` -> ``threadgroup_barrier``, ``subgroup`` -> ``simdgroup_barrier``."""
        scope = op.attr("scope")
        fn = {"group": "threadgroup_barrier", "subgroup": "simdgroup_barrier"}.get(scope)
        if fn is None:
            raise self.unsupported(op, f"sync at scope {scope!r} inside a kernel")
        self.buf.line(f"{fn}(mem_flags::mem_threadgroup);")
        for r in op.results:
            self.bind(r, TokenVal())

    def emit_check(self, op: ir.Operation) -> None:
        """Unless the (group-uniform) condition holds: claim the record, write it, leave."""
        if not self.in_lanes:
            raise self.unsupported(op, "a device check belongs in the lane parallel")
        self.checks.append(CheckInfo.of(op))
        cond = self.scalar(op.operand(0), op)
        b = self.buf
        seen, won = self.fresh("seen"), self.fresh("won")
        with b.block(f"if (!({cond}))"):
            b.line(f"uint {seen} = 0u;")
            b.line(f"bool {won} = false;")
            b.line(f"while (!({won} = atomic_compare_exchange_weak_explicit(&tc_check[0], "
                   f"&{seen}, {len(self.checks)}u, memory_order_relaxed, "
                   f"memory_order_relaxed)) && {seen} == 0u) {{}}")
            with b.block(f"if ({won})"):
                for k, v in enumerate(op.operands[1:]):
                    x = self.scalar(v, op)
                    if v.type.is_float:
                        lo, hi = f"as_type<uint>((float)({x}))", "0u"
                    else:
                        w = self.fresh("w")
                        b.line(f"const uint64_t {w} = (uint64_t)(int64_t)({x});")
                        lo, hi = f"(uint){w}", f"(uint)({w} >> 32)"
                    for j, word in enumerate((lo, hi)):
                        b.line(f"atomic_store_explicit(&tc_check[{2 * k + 1 + j}], {word}, "
                               "memory_order_relaxed);")
            b.line("return;")

    # -- control ----------------------------------------------------------------------
    def emit_if(self, op: ir.Operation) -> None:
        """A plain ``if`` (the CUDA emitter's predicated atoms are PTX)."""
        CLikeEmitter.emit_if(self, op)

    # -- loops carrying simdgroup fragments ------------------------------------------------
    def mutable_result(self, v: ir.Value, op: ir.Operation, init: ir.Value | None = None
                       ) -> object:
        """A loop-carried ``simdgroup_float8x8`` (an accumulator resident in fragments
        across the loop) is a fragment local; anything else is the CUDA emitter's."""
        if init is not None and isinstance(self.get(init, op), Fragment):
            var = self.fresh("frag")
            self.buf.line(f"simdgroup_float8x8 {var} = {self.get(init, op).name};")
            return Fragment(var)
        if init is not None and isinstance(self.get(init, op), Destination):
            # a cooperative destination resident across the loop (mpp_printers)
            var = self.fresh("dest")
            self.buf.line(f"auto {var} = {self.get(init, op).name};")
            return Destination(var)
        return super().mutable_result(v, op, init)

    def assign(self, dsts: Sequence[object], srcs: Sequence[ir.Value], op: ir.Operation
               ) -> None:
        """Yielded fragments are copied into their loop's fragment locals (each from a
        product of this iteration, never from another carried fragment, so no swap can
        arise: checked), then the other values as the CUDA emitter assigns them."""
        opaque = (Fragment, Destination)
        names = {d.name for d in dsts if isinstance(d, opaque)}
        rest_d, rest_s = [], []
        for d, s in zip(dsts, srcs):
            if isinstance(d, opaque):
                f = self.get(s, op)
                if type(f) is not type(d) or (f.name in names and f.name != d.name):
                    raise self.unsupported(op, "a loop-carried simdgroup fragment or "
                                               "cooperative destination must be yielded from "
                                               "a product of the iteration")
                if f.name != d.name:
                    self.buf.line(f"{d.name} = {f.name};")
            else:
                rest_d.append(d)
                rest_s.append(s)
        super().assign(rest_d, rest_s, op)

    # -- atoms --------------------------------------------------------------------------
    def emit_atom_call(self, op: ir.Operation) -> None:
        """``barrier.group``, ``barrier.subgroup``, ``shfl.xor``, ``vote.any``, the opaque
        ``simdgroup.*`` fragments (``simdgroup_printers``) and the MPP ``matmul2d``
        (``mpp_printers``); every other atom is CUDA's."""
        cid = op.attr("catalog_id")
        if cid not in CATALOG:
            raise self.unsupported(op, f"unknown atom {cid!r}")
        if cid not in METAL_ATOMS:
            raise self.unsupported(op, f"atom {cid!r} is a CUDA instruction with no Metal "
                                       f"form (Metal has {', '.join(METAL_ATOMS)})")
        if cid in ("barrier.group", "barrier.subgroup"):
            fn = "threadgroup_barrier" if cid == "barrier.group" else "simdgroup_barrier"
            self.buf.line(f"{fn}(mem_flags::mem_threadgroup);")
            for r in op.results:
                self.bind(r, TokenVal())
        elif cid == "shfl.xor":
            self._shfl_xor(op)
        elif cid in SIMDGROUP_OPS:
            emit_simdgroup_atom(self, op)
        elif cid in MPP_OPS:
            self.uses_mpp = True
            emit_mpp_atom(self, op)
        else:
            self._vote_any(op)

    def _shfl_xor(self, op: ir.Operation) -> None:
        self.warp_atoms = True
        v, mask = op.operand(0), op.operand(1)
        m = f"(ushort)({self.scalar(mask, op)})"
        f = self.get(v, op)
        res = op.results[0]
        if isinstance(f, Scalar):
            var = self.name_of(res)
            ct = self.ctype(f.type)
            self.buf.line(f"const {ct} {var} = ({ct})tc_shfl_xor(({ct})({f.expr}), {m});")
            self.bind(res, Scalar(var, f.type))
            return
        src = self.regs(v, op)
        out = self.new_regs(res, op)
        e = "e" if src.n > 1 else "0"
        line = f"{out.name}[{e}] = tc_shfl_xor({src.name}[{e}], {m});"
        if src.n > 1:
            self.buf.line("#pragma unroll")
            line = f"for (int e = 0; e < {src.n}; ++e) " + line
        self.buf.line(line)
        self.bind(res, out)

    def _vote_any(self, op: ir.Operation) -> None:
        """The group's or of every register of every thread, the same in every thread."""
        terms = [f"{x.name}[{e}]" for x in (self.regs(v, op) for v in op.operands)
                 for e in range(x.n)]
        words = -(-self.threads // 32)
        self.vote_words = words
        b = self.buf
        mine, acc = self.fresh("mine"), self.fresh("any")
        b.line(f"const bool {mine} = simd_any(({' | '.join(terms) or '0'}) != 0);")
        b.line("threadgroup_barrier(mem_flags::mem_threadgroup);  /* the last vote is read */")
        b.line(f"if (tc_simd_lane == 0) tc_vote[tc_simd] = {mine} ? 1u : 0u;")
        b.line("threadgroup_barrier(mem_flags::mem_threadgroup);")
        b.line(f"uint {acc} = 0u;")
        b.line(f"for (int s = 0; s < {words}; ++s) {acc} |= tc_vote[s];")
        var = self.name_of(op.results[0])
        b.line(f"const uint8_t {var} = (uint8_t)({acc} != 0u);")
        self.bind(op.results[0], Scalar(var, ir.i1))

    # -- assembly -----------------------------------------------------------------------
    def _assemble(self, params: list[ParamInfo], head: list[str], steps: list[HostStep],
                  grid_keys: list[int], grid_op: ir.Operation) -> MetalSource:  # type: ignore[override]
        fn = self.fn
        if self.tmaps or self.workspaces:
            raise self.unsupported(grid_op, "tensor maps and split-K workspaces are CUDA's")
        head.append(f"constant uint &tc_aligned [[buffer({self._buffer()})]]")
        if self.checks:
            head.append(f"device atomic_uint *tc_check [[buffer({self._buffer()})]]")
        head.append("uint3 tc_group [[threadgroup_position_in_grid]]")
        head.append("uint tc_lane [[thread_index_in_threadgroup]]")
        if self.vote_words:
            head.append("ushort tc_simd [[simdgroup_index_in_threadgroup]]")
            head.append("ushort tc_simd_lane [[thread_index_in_simdgroup]]")
        out = IndentedBuffer()
        out.line(f"/* tilec Metal backend: @{fn.name} for {self.target} */")
        out.line(PRELUDE)
        if self.uses_mpp:
            for inc in MPP_INCLUDES:
                out.line(f"#include <{inc}>")
        name = kernel_name(fn.name)
        out.line(f"kernel void {name}(")
        for k, h in enumerate(head):
            out.line(f"    {h}{',' if k + 1 < len(head) else ')'}")
        out.line("{")
        shared = self.shared.launch_bytes
        if shared:
            out.line(f"  threadgroup uint4 tc_smem4[{-(-shared // 16)}];  /* {shared} bytes */")
            out.line("  threadgroup uchar *const tc_smem = "
                     "reinterpret_cast<threadgroup uchar *>(tc_smem4);")
        if self.vote_words:
            out.line(f"  threadgroup uint tc_vote[{self.vote_words}];")
        out.splice(self.prologue)
        out.splice(self.buf)
        out.line("}")
        total = -(-shared // 16) * 16 + 4 * self.vote_words
        return MetalSource(out.getvalue(), out, name, params, self.threads,
                           grid_op.attr("rank"), steps, grid_keys, total, list(self.checks),
                           self.ops, fn.name)


def emit_metal(module: ir.Module, fn_name: str, target: str = "metal:m1") -> MetalSource:
    """The MSL kernel for Machine function ``@fn_name``."""
    return MetalEmitter(module, fn_name, target).emit()  # type: ignore[return-value]
