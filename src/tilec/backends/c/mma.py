"""``mma`` on the CPU: register-blocked micro-kernels over static-shape tiles.

For ``f32`` accumulators with ``f32``/``bf16``/``f16`` operands (narrow
operands are held as exact f32 values) and for ``f64``, the product
``out = c + a @ b`` is cut into ``MR x (NV * lanes)`` blocks of the output.
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

from dataclasses import dataclass

import tilec.ir as ir
from tilec.backends.clike import IndentedBuffer

__all__ = ["MicroKernels", "MR"]

MR = 6
"""Rows of one register block."""
NV = 2
"""Vectors per row of one register block."""

MK_SUPPORT = r"""
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#define TC_VFMA_f32(a, b, c) ((tc_v8f)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define TC_VFMA_f64(a, b, c) ((tc_v4d)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#else
#define TC_VFMA_f32(a, b, c) ((a) * (b) + (c))
#define TC_VFMA_f64(a, b, c) ((a) * (b) + (c))
#endif
"""
"""Support macros for the micro-kernels (emitted once, before the first kernel)."""


@dataclass(frozen=True)
class _Vec:
    """One vector flavour."""

    ctype: str
    vtype: str
    lanes: int
    suffix: str


_VECS = {"f32": _Vec("float", "tc_v8f", 8, "f32"), "f64": _Vec("double", "tc_v4d", 4, "f64")}


class MicroKernels:
    """Generates (once each) the micro-kernel helpers a translation unit needs."""

    def __init__(self) -> None:
        self.defs = IndentedBuffer()
        """Helper definitions, placed before the kernel function."""
        self._have: set[tuple] = set()

    @staticmethod
    def vector_flavour(a: ir.ScalarType, c: ir.ScalarType, precision: str) -> str | None:
        """``"f32"``/``"f64"`` when the vector micro-kernels apply, else None."""
        if c is ir.f32 and a.name in ("f32", "bf16", "f16"):
            return "f32"
        if c is ir.f64 and a is ir.f64:
            return "f64"
        return None

    def kernel(self, flavour: str, mr: int, nv: int, fused: bool) -> str:
        """The name of the ``mr x nv``-vector block kernel (defining it on first use)."""
        name = f"tc_mk_{flavour}_{'fma' if fused else 'strict'}_{mr}x{nv}"
        key = (flavour, mr, nv, fused)
        if key in self._have:
            return name
        if not self._have:
            self.defs.line(MK_SUPPORT)
        self._have.add(key)
        v = _VECS[flavour]
        b = self.defs
        t, vt, w = v.ctype, v.vtype, v.lanes
        b.line(f"TC_INLINE void {name}(int64_t K, const {t} *restrict a, int64_t lda, "
               f"const {t} *restrict b, int64_t ldb, const {t} *cin, int64_t ldci, "
               f"{t} *cout, int64_t ldco)")
        with b.block(""):
            b.line(f"{vt} acc[{mr}][{nv}];")
            b.line(f"for (int ii = 0; ii < {mr}; ++ii) for (int jj = 0; jj < {nv}; ++jj) "
                   f"memcpy(&acc[ii][jj], cin + ii * ldci + jj * {w}, sizeof({vt}));")
            with b.block("for (int64_t k = 0; k < K; ++k)"):
                b.line(f"{vt} bv[{nv}];")
                b.line(f"for (int jj = 0; jj < {nv}; ++jj) "
                       f"memcpy(&bv[jj], b + k * ldb + jj * {w}, sizeof({vt}));")
                with b.block(f"for (int ii = 0; ii < {mr}; ++ii)"):
                    b.line(f"const {t} s = a[ii * lda + k];")
                    b.line(f"const {vt} av = {{{', '.join(['s'] * w)}}};")
                    if fused:
                        b.line(f"for (int jj = 0; jj < {nv}; ++jj) "
                               f"acc[ii][jj] = TC_VFMA_{v.suffix}(av, bv[jj], acc[ii][jj]);")
                    else:
                        b.line(f"for (int jj = 0; jj < {nv}; ++jj) "
                               f"acc[ii][jj] = acc[ii][jj] + av * bv[jj];")
            b.line(f"for (int ii = 0; ii < {mr}; ++ii) for (int jj = 0; jj < {nv}; ++jj) "
                   f"memcpy(cout + ii * ldco + jj * {w}, &acc[ii][jj], sizeof({vt}));")
        b.line("")
        return name

    def emit_vector(self, out: IndentedBuffer, flavour: str, fused: bool, a: str, b: str,
                    c: str, o: str, m: int, n: int, k: int) -> None:
        """``o = c + a @ b`` (static ``m x k`` times ``k x n``) with the vector kernels."""
        v = _VECS[flavour]
        w = v.lanes
        full_rows = m - m % MR
        row_groups = []
        if full_rows:
            row_groups.append((MR, f"for (int64_t i0 = 0; i0 < {full_rows}; i0 += {MR})"))
        if m % MR:
            row_groups.append((m % MR, f"for (int64_t i0 = {full_rows}; i0 < {m}; i0 += {MR})"))
        wide = n - n % (NV * w)
        one = wide + w if n - wide >= w else wide
        for mr, header in row_groups:
            with out.block(header):
                if wide:
                    kn = self.kernel(flavour, mr, NV, fused)
                    out.line(f"for (int64_t j0 = 0; j0 < {wide}; j0 += {NV * w}) "
                             f"{kn}({k}, {a} + i0 * {k}, {k}, {b} + j0, {n}, "
                             f"{c} + i0 * {n} + j0, {n}, {o} + i0 * {n} + j0, {n});")
                if one > wide:
                    kn = self.kernel(flavour, mr, 1, fused)
                    out.line(f"{kn}({k}, {a} + i0 * {k}, {k}, {b} + {wide}, {n}, "
                             f"{c} + i0 * {n} + {wide}, {n}, {o} + i0 * {n} + {wide}, {n});")
                if n > one:
                    # the last columns, narrower than a vector: a separate multiply and add
                    # (a legal order under either policy)
                    step = f"acc = acc + {a}[(i0 + ii) * {k} + kk] * {b}[kk * {n} + j];"
                    out.line(f"for (int ii = 0; ii < {mr}; ++ii) for (int64_t j = {one}; "
                             f"j < {n}; ++j) {{ {v.ctype} acc = {c}[(i0 + ii) * {n} + j]; "
                             f"for (int64_t kk = 0; kk < {k}; ++kk) {step} "
                             f"{o}[(i0 + ii) * {n} + j] = acc; }}")
