"""``mma`` on the CPU: register-blocked micro-kernels over static-shape tiles.

For ``f32`` accumulators with ``f32``/``bf16``/``f16`` operands (narrow
operands are held as exact f32 values) and for ``f64``, the product
``out = c + a @ b`` is cut into ``MR x (NV * lanes)`` blocks of the output
(``MR``, ``NV``: the realization plan's ``rows`` and ``vectors``, ``plan.py``).
One block's accumulators live in vector registers (GCC/Clang vector
extensions: 6 x 2 vectors of 8 floats = 12 AVX registers), the k loop runs
outside the row/column loops and the columns of ``b`` are read contiguously,
so each k step costs ``NV`` vector loads, ``MR`` broadcasts and ``MR * NV``
multiply-adds.

* ``strict_fold`` blocks compute ``acc = acc + a[i,k] * b[k,j]`` with a
  separate multiply and add (the translation unit is compiled with
  ``-ffp-contract=off``), in k order for every ``(i, j)``: bit-identical to
  the reference.
* ``unordered_tree`` blocks use fused multiply-add (x86 FMA intrinsics when
  the compiler targets FMA; otherwise the same code as strict).

Column remainders narrower than one vector and every other dtype
combination (integers, f64 accumulators of f32 products, narrow
accumulators) use a plain ``i, k, j`` loop with the reference's rounding steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.targets.clike import IndentedBuffer
from tilec.targets.cpu.values import Tile, static_shape

if TYPE_CHECKING:
    from tilec.targets.cpu.emitter import CEmitter

__all__ = ["MicroKernels", "print_mma"]


MK_SUPPORT = r"""
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#define TC_VFMA_f32(a, b, c) ((tc_v8f)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define TC_VFMA_f64(a, b, c) ((tc_v4d)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#else
#define TC_VFMA_f32(a, b, c) ((a) * (b) + (c))
#define TC_VFMA_f64(a, b, c) ((a) * (b) + (c))
#endif
TC_INLINE tc_v8f tc_load_f32(const float *p) { tc_v8f v; memcpy(&v, p, sizeof v); return v; }
TC_INLINE tc_v4d tc_load_f64(const double *p) { tc_v4d v; memcpy(&v, p, sizeof v); return v; }
TC_INLINE void tc_store_f32(float *p, tc_v8f v) { memcpy(p, &v, sizeof v); }
TC_INLINE void tc_store_f64(double *p, tc_v4d v) { memcpy(p, &v, sizeof v); }
"""
"""Support macros for the micro-kernels (emitted once, before the first kernel)."""

MK_SUPPORT_512 = r"""
typedef float tc_v16f __attribute__((vector_size(64)));
typedef double tc_v8d __attribute__((vector_size(64)));
#if defined(__AVX512F__)
#include <immintrin.h>
#define TC_VFMA_f32x16(a, b, c) ((tc_v16f)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#define TC_VFMA_f64x8(a, b, c) ((tc_v8d)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#else
#define TC_VFMA_f32x16(a, b, c) ((a) * (b) + (c))
#define TC_VFMA_f64x8(a, b, c) ((a) * (b) + (c))
#endif
TC_INLINE tc_v16f tc_load_f32x16(const float *p) { tc_v16f v; memcpy(&v, p, sizeof v); return v; }
TC_INLINE tc_v8d tc_load_f64x8(const double *p) { tc_v8d v; memcpy(&v, p, sizeof v); return v; }
TC_INLINE void tc_store_f32x16(float *p, tc_v16f v) { memcpy(p, &v, sizeof v); }
TC_INLINE void tc_store_f64x8(double *p, tc_v8d v) { memcpy(p, &v, sizeof v); }
"""
"""Support of the 512-bit micro-kernels (emitted once, before the first of them): the
vector types are GCC/Clang vector extensions, so a compiler without AVX-512 still builds
them (as pairs of narrower operations)."""


@dataclass(frozen=True)
class _Vec:
    """One vector flavour."""

    ctype: str
    vtype: str
    lanes: int
    suffix: str


_VECS = {("f32", 8): _Vec("float", "tc_v8f", 8, "f32"),
         ("f64", 4): _Vec("double", "tc_v4d", 4, "f64"),
         ("f32", 16): _Vec("float", "tc_v16f", 16, "f32x16"),
         ("f64", 8): _Vec("double", "tc_v8d", 8, "f64x8")}
"""The vector flavours: (element type, lanes) -> C types and helper suffix."""

LANES = {"f32": (8, 16), "f64": (4, 8)}
"""The lane counts the micro-kernels exist for, per flavour (256- and 512-bit vectors)."""


class MicroKernels:
    """Generates (once each) the micro-kernel helpers a translation unit needs."""

    def __init__(self) -> None:
        self.defs = IndentedBuffer()
        """Helper definitions, placed before the kernel function."""
        self._have: set[tuple] = set()
        self._wide = False  # MK_SUPPORT_512 emitted

    @staticmethod
    def vector_flavour(a: ir.ScalarType, c: ir.ScalarType, precision: str) -> str | None:
        """``"f32"``/``"f64"`` when the vector micro-kernels apply, else None."""
        if c is ir.f32 and a.name in ("f32", "bf16", "f16"):
            return "f32"
        if c is ir.f64 and a is ir.f64:
            return "f64"
        return None

    def kernel(self, flavour: str, mr: int, nv: int, fused: bool, lanes: int,
               rows_a: bool = False) -> str:
        """The name of the ``mr x nv``-vector block kernel (defining it on first use).

        Its ``a`` is a row panel (``a[k * mr + i]``), or with ``rows_a`` the block's rows
        of A as they are (``a[i * lda + k]``, ``lda`` an argument: no packing)."""
        v = _VECS[(flavour, lanes)]
        name = f"tc_mk_{v.suffix}_{'fma' if fused else 'strict'}_{mr}x{nv}{'_ra' if rows_a else ''}"
        key = (flavour, lanes, mr, nv, fused, rows_a)
        if key in self._have:
            return name
        if not self._have:
            self.defs.line(MK_SUPPORT)
        if lanes == LANES[flavour][1] and not self._wide:
            self.defs.line(MK_SUPPORT_512)
            self._wide = True
        self._have.add(key)
        b = self.defs
        t, vt, w = v.ctype, v.vtype, v.lanes
        # Fully unrolled with one named variable per accumulator vector: compilers keep
        # named locals in registers far more reliably than small arrays. Not inlined, so
        # the allocation is not disturbed by the (large) kernel function around the call.
        lda = ", int64_t lda" if rows_a else ""
        b.line(f"static __attribute__((noinline, unused)) void {name}(int64_t K, "
               f"const {t} *restrict a{lda}, const {t} *restrict b, int64_t ldb, "
               f"const {t} *cin, int64_t ldci, {t} *cout, int64_t ldco)")
        acc = [[f"c{i}_{j}" for j in range(nv)] for i in range(mr)]
        with b.block(""):
            for i in range(mr):
                for j in range(nv):
                    b.line(f"{vt} {acc[i][j]} = tc_load_{v.suffix}(cin + {i} * ldci + {j * w});")
            with b.block("for (int64_t k = 0; k < K; ++k)"):
                for j in range(nv):
                    b.line(f"const {vt} b{j} = tc_load_{v.suffix}(b + k * ldb + {j * w});")
                for i in range(mr):
                    at = f"a[{i} * lda + k]" if rows_a else f"a[k * {mr} + {i}]"
                    b.line(f"const {t} s{i} = {at};")
                    b.line(f"const {vt} a{i} = {{{', '.join([f's{i}'] * w)}}};")
                    for j in range(nv):
                        c = acc[i][j]
                        if fused:
                            b.line(f"{c} = TC_VFMA_{v.suffix}(a{i}, b{j}, {c});")
                        else:
                            b.line(f"{c} = {c} + a{i} * b{j};")
            for i in range(mr):
                for j in range(nv):
                    b.line(f"tc_store_{v.suffix}(cout + {i} * ldco + {j * w}, {acc[i][j]});")
        b.line("")
        return name

    def emit_vector(self, out: IndentedBuffer, flavour: str, fused: bool, a: str, b: str,
                    c: str, o: str, m: int, n: int, k: int,
                    declare: Callable[[int], str], rows: int, vectors: int,
                    lanes: int, rows_a: bool = False) -> None:
        """``o = c + a @ b`` (static ``m x k`` times ``k x n``) with the vector kernels, in
        ``rows x vectors`` blocks of vectors (the realization plan's register micro-tile).

        ``b``'s full column blocks are packed panel by panel (``k x NV*lanes``
        contiguous): a block's k loop streams the panel, which stays in L1 while the row
        blocks (the inner loop, as in BLIS) run over it. ``a`` is read as it is, a
        block's ``mr`` rows each streamed along k (``rows_a``: its elements already have
        the accumulator's type), else first packed into row panels (per k, a block's rows
        side by side), converting its elements. Packing A in the kernel's order cost a
        scalar transpose of the whole tile per call for no reuse the rows lack: the rows
        are ``mr`` sequential streams a broadcast reads from L1 either way.
        ``declare(n)`` declares a scratch array of ``n`` elements and returns its name.
        """
        MR, NV = rows, vectors  # noqa: N806
        v = _VECS[(flavour, lanes)]
        w = v.lanes
        nr = NV * w
        full_rows = m - m % MR
        wide = n - n % nr
        one = wide + w if n - wide >= w else wide
        row_groups = []
        if full_rows:
            row_groups.append((MR, f"for (int64_t i0 = 0; i0 < {full_rows}; i0 += {MR})"))
        if m % MR:
            row_groups.append((m % MR, f"for (int64_t i0 = {full_rows}; i0 < {m}; i0 += {MR})"))
        if rows_a:
            ap, pa = a, f", {k}"  # block rows at a + i0 * k, stride k
        elif wide or one > wide:
            # A in row panels: for each k, the block's mr values side by side
            ap, pa = declare(m * k), ""
            for mr, header in row_groups:
                out.line(f"{header} for (int64_t kk = 0; kk < {k}; ++kk) "
                         f"for (int ii = 0; ii < {mr}; ++ii) "
                         f"{ap}[i0 * {k} + kk * {mr} + ii] = {a}[(i0 + ii) * {k} + kk];")
        if wide:
            bp = declare(k * wide)
            out.line(f"for (int64_t j0 = 0; j0 < {wide}; j0 += {nr}) "
                     f"for (int64_t kk = 0; kk < {k}; ++kk) for (int jj = 0; jj < {nr}; ++jj) "
                     f"{bp}[j0 * {k} + kk * {nr} + jj] = {b}[kk * {n} + j0 + jj];")
            with out.block(f"for (int64_t j0 = 0; j0 < {wide}; j0 += {nr})"):
                for mr, header in row_groups:
                    kn = self.kernel(flavour, mr, NV, fused, lanes, rows_a)
                    out.line(f"{header} {kn}({k}, {ap} + i0 * {k}{pa}, {bp} + j0 * {k}, {nr}, "
                             f"{c} + i0 * {n} + j0, {n}, {o} + i0 * {n} + j0, {n});")
        for mr, header in row_groups:
            if one > wide:
                kn = self.kernel(flavour, mr, 1, fused, lanes, rows_a)
                out.line(f"{header} {kn}({k}, {ap} + i0 * {k}{pa}, {b} + {wide}, {n}, "
                         f"{c} + i0 * {n} + {wide}, {n}, {o} + i0 * {n} + {wide}, {n});")
            if n > one:
                # the last columns, narrower than a vector: a separate multiply and add
                # (a legal order under either policy)
                step = f"acc = acc + {a}[(i0 + ii) * {k} + kk] * {b}[kk * {n} + j];"
                with out.block(header):
                    out.line(f"for (int ii = 0; ii < {mr}; ++ii) for (int64_t j = {one}; "
                             f"j < {n}; ++j) {{ {v.ctype} acc = {c}[(i0 + ii) * {n} + j]; "
                             f"for (int64_t kk = 0; kk < {k}; ++kk) {step} "
                             f"{o}[(i0 + ii) * {n} + j] = acc; }}")


def print_mma(em: CEmitter, op: ir.Operation) -> None:
    """``c + a @ b`` with register-blocked micro-kernels (see ``mma.py``)."""
    av, bv, cv = op.operands
    policy: ir.ArithPolicy = op.attr("policy")
    at, ct = av.type.dtype, cv.type.dtype
    m, k = static_shape(av.type, op, em)
    n = static_shape(bv.type, op, em)[1]
    a = em.materialize(av, op)
    bt = em.materialize(bv, op)
    if policy.precision == "tf32" and at is ir.f32:
        a, bt = (_rounded_tf32(em, x) for x in (a, bt))
    if em.can_take(cv, op):
        out = em.take(cv, op)
        c = out
    else:
        c = em.materialize(cv, op)
        out = em.new_tile(op.result)
    if at.is_float != ct.is_float:
        raise em.unsupported(op, f"mma of {at} operands into a {ct} accumulator")
    tile = em.plan.micro_tiles[ir.op_number(op)]  # the realization plan (plan.py)
    if tile.flavour is not None:
        if (tile.flavour, tile.lanes) not in _VECS:
            have = " or ".join(map(str, LANES[tile.flavour]))
            raise em.unsupported(op, f"the plan asks for {tile.lanes}-lane {tile.flavour} "
                                     f"vectors; the C printer's have {have}")
        if k == 0:
            em.copy_tile(out, cv, op)
        else:
            em.mk.emit_vector(em.buf, tile.flavour, tile.fused, a.name, bt.name, c.name,
                              out.name, m, n, k,
                              lambda size: em.declare_tile((size,), ct, "bpack"),
                              tile.rows, tile.vectors, tile.lanes,
                              rows_a=a.dtype == ct)
    else:
        _mma_generic(em, a, bt, c, out, m, n, k)
    em.bind(op.result, Tile(out.name, out.shape, out.dtype, True))


def _rounded_tf32(em: CEmitter, x: Tile) -> Tile:
    name = em.declare_tile(x.shape, x.dtype, "tf32")
    em.buf.line(f"for (int64_t e = 0; e < {x.size}; ++e) "
                  f"{name}[e] = tc_round_tf32({x.name}[e]);")
    return Tile(name, x.shape, x.dtype, True)


def _mma_generic(em: CEmitter, a: Tile, b: Tile, c: Tile, out: Tile, m: int, n: int, k: int
                 ) -> None:
    """The reference's loop: product in the operand precision, accumulate, round per step."""
    at, ct = a.dtype, c.dtype
    cc = em.ctype(ct)
    if not at.is_float:
        step = f"({cc})(acc[j] + ({cc}){a.name}[i * {k} + kk] * ({cc}){b.name}[kk * {n} + j])"
        wt = cc
        finish = "acc[j]"
    else:
        pt = "double" if at is ir.f64 else "float"
        wt = "double" if (pt == "double" or ct is ir.f64) else "float"
        prod_ = f"({wt})(({pt}){a.name}[i * {k} + kk] * ({pt}){b.name}[kk * {n} + j])"
        narrow = ct.name in ("f16", "bf16") or (ct is ir.f32 and wt == "double")
        s = f"acc[j] + {prod_}"
        if not narrow:
            step = s
        elif ct is ir.f32:
            step = f"(double)(float)({s})"
        else:
            step = f"({wt}){em.NARROW_ROUND[ct.name].format(f'(float)({s})')}"
        finish = f"({cc})acc[j]"
    b_ = em.buf
    with b_.block(f"for (int64_t i = 0; i < {m}; ++i)"):
        b_.line(f"{wt} acc[{max(n, 1)}];")
        b_.line(f"for (int64_t j = 0; j < {n}; ++j) acc[j] = ({wt}){c.name}[i * {n} + j];")
        b_.line(f"for (int64_t kk = 0; kk < {k}; ++kk) for (int64_t j = 0; j < {n}; ++j) "
                f"acc[j] = {step};")
        b_.line(f"for (int64_t j = 0; j < {n}; ++j) {out.name}[i * {n} + j] = {finish};")
