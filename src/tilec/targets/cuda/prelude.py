"""The CUDA prelude every generated translation unit starts with: scalar semantics on the GPU.

It is self-contained on purpose: no ``#include`` is needed under NVRTC, so a
kernel compiles with nothing but ``libnvrtc`` (CI has no CUDA toolkit headers
on NVRTC's search path, and ``cuda_bf16.h`` alone costs more compile time
than most kernels). The narrow-float conversions are the PTX instructions
``cuda_bf16.h`` / ``cuda_fp16.h`` wrap (``cvt.rn.bf16.f32``,
``cvt.rn.f16.f32``, ``cvt.f32.f16``), and ``cvt.rna.tf32.f32`` rounds TF32
operands exactly as docs/design/tileir.md says (to nearest, ties away).
Under ``nvcc`` (which includes ``cuda_runtime.h`` itself) the integer types
come from ``<stdint.h>``.

Semantics (docs/design/tileir.md), as in the C prelude:

* narrow floats live in registers as their bit patterns (``uint16_t``) and
  are computed in ``float``; every narrow result is rounded once;
* float -> integer truncates toward zero, saturates, maps NaN to 0;
* integer ``floordiv``/``rem`` round toward negative infinity. A zero
  divisor is the lowering's to report (a uniform ``check`` before the
  division, or a group vote after an elementwise one, lowering.md) and a
  lowered kernel never passes one here; the helpers still return 0 for it
  (hand-written Machine IR) rather than trap;
* ``max``/``min`` are IEEE 754-2019 ``maximum``/``minimum`` (NaN wins,
  ``-0.0 < +0.0``), not ``fmaxf``/``fminf``;
* transcendental functions call CUDA's accurate (non-fast-math) library,
  within 2 ulp of the f64 result the reference rounds; tests compare them
  with a tolerance, as the contract allows. Their special cases are exact
  (``powf``/``pow`` follow C99: ``pow(-0.0, 0.5) = +0.0``,
  ``pow(-inf, 0.5) = +inf``; NVRTC keeps them library calls, never ``sqrt``).

Kernels are compiled with ``--fmad=false``: a separate multiply and add in
the IR stay separate (bit-identical to the reference); fused multiply-add
appears only where a policy permits it, written as ``__fmaf_rn``.
"""

from __future__ import annotations

from tilec.targets.clike import shift_helpers

__all__ = ["PRELUDE", "ABI_VERSION"]


def _select_minmax(suffix: str, ctype: str, ptx: str) -> str:
    """``tc_imax_<suffix>`` / ``tc_imin_<suffix>`` on ``ctype`` as a PTX compare (``setp`` on
    the PTX type ``ptx``) and select, which ptxas does not fuse (see the max/min note below)."""
    return "\n".join(rf"""TC_DEV {ctype} tc_i{fn}_{suffix}({ctype} a, {ctype} b) {{
  {ctype} r;
  asm("{{\n\t.reg .pred p;\n\tsetp.{cmp}.{ptx} p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}}"
      : "=r"(r) : "r"(a), "r"(b));
  return r;
}}""" for fn, cmp in (("max", "gt"), ("min", "lt")))

ABI_VERSION = 1
"""Bumped whenever generated kernels' calling convention or helpers change (in the cache key)."""

FIXED_WIDTH_TYPES = """typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
"""
"""The fixed-width integer types under NVRTC, which has no ``<stdint.h>`` without the
toolkit's headers (this prelude's, and the TIRx bridge's for TVM's source)."""

PRELUDE = r"""
#ifdef __CUDACC_RTC__
""" + FIXED_WIDTH_TYPES + r"""typedef unsigned long long uintptr_t;
#else
#include <stdint.h>
#endif
#ifndef INT64_C
#define INT64_C(c) c##LL
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fc00000)
#endif
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

#define TC_DEV static __device__ __forceinline__

/* 16-byte vector of any element type: one LDG.128 / STG.128 / LDS.128 */
template <typename T> struct __align__(16) tc_vec16 { T e[16 / sizeof(T)]; };
/* N-element vector of 4 or 8 bytes (a fragment's pairs: one STG.64 instead of two STG.32) */
template <typename T, int N> struct alignas(sizeof(T) * N) tc_vec { T e[N]; };

/* ---- narrow floats (bit patterns in registers) ---- */
TC_DEV float tc_bf16_to_f32(uint16_t b) { return __uint_as_float(((uint32_t)b) << 16); }
TC_DEV uint16_t tc_f32_to_bf16(float x) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
  return r;
}
TC_DEV float tc_round_bf16(float x) { return tc_bf16_to_f32(tc_f32_to_bf16(x)); }
TC_DEV float tc_f16_to_f32(uint16_t h) {
  float r;
  asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
  return r;
}
TC_DEV uint16_t tc_f32_to_f16(float x) {
  uint16_t r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
  return r;
}
TC_DEV float tc_round_f16(float x) { return tc_f16_to_f32(tc_f32_to_f16(x)); }
TC_DEV uint32_t tc_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
TC_DEV float tc_round_tf32(float x) { return __uint_as_float(tc_tf32(x)); }
TC_DEV uint32_t tc_pack16(uint16_t lo, uint16_t hi) {
  return (uint32_t)lo | ((uint32_t)hi << 16);
}

/* f64 -> f32 rounded to odd (the last bit records inexactness): one later rounding to a
   narrow type is then a correct rounding of the f64 value */
TC_DEV float tc_f64_to_f32_odd(double x) {
  float t = __double2float_rz(x);
  uint32_t u = __float_as_uint(t);
  u |= (uint32_t)(((double)t != x) && (x - x == 0.0));
  return __uint_as_float(u);
}
TC_DEV double tc_i64_to_f64_odd(int64_t x) {
  double t = __ll2double_rz(x);
  uint64_t u = (uint64_t)__double_as_longlong(t);
  u |= (uint64_t)(__double2ll_rz(t) != x);
  return __longlong_as_double((long long)u);
}

/* float -> integer: truncate toward zero, saturate, NaN -> 0 */
#define TC_F2I(name, T, LO, HI, LIM)                                                  \
  TC_DEV T name(double x) {                                                             \
    return x != x ? (T)0 : x >= (LIM) ? (T)(HI) : x < -(LIM) ? (T)(LO) : (T)x;          \
  }
TC_F2I(tc_f2i_i8, int8_t, -128, 127, 128.0)
TC_F2I(tc_f2i_i16, int16_t, -32768, 32767, 32768.0)
TC_F2I(tc_f2i_i32, int32_t, (-2147483647 - 1), 2147483647, 2147483648.0)
TC_F2I(tc_f2i_i64, int64_t, (-INT64_C(9223372036854775807) - 1), INT64_C(9223372036854775807),
       9223372036854775808.0)
/* float -> unsigned: the same, saturating at 0 below (cvt.rzi.sat.u32 semantics) */
#define TC_F2U(name, T, HI, LIM)                                                          \
  TC_DEV T name(double x) {                                                               \
    return x != x ? (T)0 : x >= (LIM) ? (T)(HI) : x <= -1.0 ? (T)0 : (T)x;                \
  }
TC_F2U(tc_f2i_u8, uint8_t, 255u, 256.0)
TC_F2U(tc_f2i_u16, uint16_t, 65535u, 65536.0)
TC_F2U(tc_f2i_u32, uint32_t, 4294967295u, 4294967296.0)

""" + shift_helpers("TC_DEV") + r"""
/* ---- integers: max/min ----
   32 bits and narrower select through setp/selp written as PTX. ptxas of CUDA 13.0
   (sm_90) fuses a tree of max/min over negated values into a three-input VIMNMX3 and
   drops one negation: max(max(-a, -b), max(-c, -d)) came out as max(-a, b, -c, -d)
   on the H200 (tests/device/test_cuda_integer_minmax.py). A select it does not fuse. */
""" + _select_minmax("i32", "int32_t", "s32") + r"""
#define TC_NARROW_MINMAX(S, T)                                                         \
  TC_DEV T tc_imax_##S(int32_t a, int32_t b) { return (T)tc_imax_i32(a, b); }            \
  TC_DEV T tc_imin_##S(int32_t a, int32_t b) { return (T)tc_imin_i32(a, b); }
TC_NARROW_MINMAX(i8, int8_t)
TC_NARROW_MINMAX(i16, int16_t)
TC_NARROW_MINMAX(u8, uint8_t)   /* promoted to int, never negative: a signed select */
TC_NARROW_MINMAX(u16, uint16_t)
""" + _select_minmax("u32", "uint32_t", "u32") + r"""
#define TC_WIDE_MINMAX(S)                                                               \
  TC_DEV int64_t tc_imax_##S(int64_t a, int64_t b) { return a > b ? a : b; }             \
  TC_DEV int64_t tc_imin_##S(int64_t a, int64_t b) { return a < b ? a : b; }
TC_WIDE_MINMAX(i64)
TC_WIDE_MINMAX(index)

/* ---- integers: Python division; a zero divisor gives 0 ---- */
TC_DEV int64_t tc_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return q - (int64_t)((a % b != 0) && ((a < 0) != (b < 0)));
}
TC_DEV int64_t tc_rem_i64(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* index arithmetic: floor division / modulo by a positive constant */
TC_DEV uint64_t tc_cdiv_u64(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : a / b + (uint64_t)(a % b != 0);
}
TC_DEV int64_t tc_fdiv(int64_t a, int64_t c) {
  int64_t q = a / c;
  return q - (int64_t)((a % c) < 0);
}
TC_DEV int64_t tc_fmod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
/* x saturated to 32 bits: for int x in [INT32_MIN, INT32_MAX - 1], x < y iff x < tc_sat32(y) */
TC_DEV int tc_sat32(int64_t x) {
  return x < -INT64_C(2147483648) ? (int)(-2147483647 - 1) : x > INT64_C(2147483647) ? 2147483647
                                                                                       : (int)x;
}

/* ---- floats ---- */
TC_DEV bool tc_neg_f32(float x) { return (__float_as_uint(x) >> 31) != 0u; }
TC_DEV bool tc_neg_f64(double x) { return __double_as_longlong(x) < 0; }
/* IEEE 754-2019 maximum/minimum: NaN if either operand is, -0.0 below +0.0. f32 has one
   instruction for it (sm_80 on); f64 compares and selects. */
TC_DEV float tc_max_f32(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
TC_DEV float tc_min_f32(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
TC_DEV double tc_max_f64(double a, double b) {
  double r = a > b ? a : b;
  r = (a == b && tc_neg_f64(b)) ? a : r;
  return (a != a || b != b) ? a + b : r;
}
TC_DEV double tc_min_f64(double a, double b) {
  double r = a < b ? a : b;
  r = (a == b && tc_neg_f64(a)) ? a : r;
  return (a != a || b != b) ? a + b : r;
}
#define TC_FLOAT_BASICS(S, T, ABS, FLOOR, CEIL, SQRT, FMOD, COPYSIGN, FMA)           \
  TC_DEV T tc_abs_##S(T x) { return ABS(x); }                                          \
  TC_DEV T tc_floor_##S(T x) { return FLOOR(x); }                                      \
  TC_DEV T tc_ceil_##S(T x) { return CEIL(x); }                                        \
  TC_DEV T tc_sqrt_##S(T x) { return SQRT(x); }                                        \
  TC_DEV T tc_rsqrt_##S(T x) { return (T)1 / SQRT(x); }                                \
  TC_DEV T tc_fma_##S(T a, T b, T c) { return FMA(a, b, c); }                          \
  TC_DEV T tc_rem_##S(T a, T b) {                                                      \
    T m = FMOD(a, b);                                                                    \
    if (b == 0) return m;                                                                \
    if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = COPYSIGN((T)0, b); }     \
    return m;                                                                            \
  }
TC_FLOAT_BASICS(f32, float, fabsf, floorf, ceilf, sqrtf, fmodf, copysignf, __fmaf_rn)
TC_FLOAT_BASICS(f64, double, fabs, floor, ceil, sqrt, fmod, copysign, __fma_rn)

TC_DEV float tc_exp_f32(float x) { return expf(x); }
/* 2^x in one MUFU.EX2: at most 2 ulp from the exact result (PTX ISA, ex2.approx), inside the
   transcendental tolerance (tileir.md); a result below the smallest normal float flushes to
   +0. exp2f scales such inputs around the same instruction, three more instructions per
   element: a fifth of the softmax of flash_attention's key loop. */
TC_DEV float tc_exp2_f32(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
TC_DEV float tc_log_f32(float x) { return logf(x); }
TC_DEV float tc_log2_f32(float x) { return log2f(x); }
TC_DEV float tc_tanh_f32(float x) { return tanhf(x); }
TC_DEV float tc_erf_f32(float x) { return erff(x); }
TC_DEV float tc_sin_f32(float x) { return sinf(x); }
TC_DEV float tc_cos_f32(float x) { return cosf(x); }
TC_DEV float tc_pow_f32(float a, float b) { return powf(a, b); }
TC_DEV float tc_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
TC_DEV double tc_exp_f64(double x) { return exp(x); }
TC_DEV double tc_exp2_f64(double x) { return exp2(x); }
TC_DEV double tc_log_f64(double x) { return log(x); }
TC_DEV double tc_log2_f64(double x) { return log2(x); }
TC_DEV double tc_tanh_f64(double x) { return tanh(x); }
TC_DEV double tc_erf_f64(double x) { return erf(x); }
TC_DEV double tc_sin_f64(double x) { return sin(x); }
TC_DEV double tc_cos_f64(double x) { return cos(x); }
TC_DEV double tc_pow_f64(double a, double b) { return pow(a, b); }
TC_DEV double tc_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }

/* ---- atomics on floats: compare-and-swap loops on the bit patterns ---- */
TC_DEV void tc_atomic_max_f32(float *p, float v) {
  unsigned int *q = (unsigned int *)p, old = *q, seen;
  do { seen = old; old = atomicCAS(q, seen, __float_as_uint(tc_max_f32(__uint_as_float(seen), v)));
  } while (old != seen);
}
TC_DEV void tc_atomic_min_f32(float *p, float v) {
  unsigned int *q = (unsigned int *)p, old = *q, seen;
  do { seen = old; old = atomicCAS(q, seen, __float_as_uint(tc_min_f32(__uint_as_float(seen), v)));
  } while (old != seen);
}
TC_DEV void tc_atomic_max_f64(double *p, double v) {
  unsigned long long *q = (unsigned long long *)p, old = *q, seen;
  do { seen = old; old = atomicCAS(q, seen, (unsigned long long)__double_as_longlong(
           tc_max_f64(__longlong_as_double((long long)seen), v)));
  } while (old != seen);
}
TC_DEV void tc_atomic_min_f64(double *p, double v) {
  unsigned long long *q = (unsigned long long *)p, old = *q, seen;
  do { seen = old; old = atomicCAS(q, seen, (unsigned long long)__double_as_longlong(
           tc_min_f64(__longlong_as_double((long long)seen), v)));
  } while (old != seen);
}

/* ---- exchange and compare-and-swap on the bit pattern of a 4- or 8-byte element ---- */
template <int N> struct tc_word;
template <> struct tc_word<4> { typedef unsigned int type; };
template <> struct tc_word<8> { typedef unsigned long long type; };
template <typename T> TC_DEV T tc_atomic_xchg(T *p, T v) {
  typedef typename tc_word<sizeof(T)>::type U;
  U nv, o;
  memcpy(&nv, &v, sizeof nv);
  o = atomicExch((U *)p, nv);
  T r;
  memcpy(&r, &o, sizeof r);
  return r;
}
template <typename T> TC_DEV T tc_atomic_cas(T *p, T c, T v) {
  typedef typename tc_word<sizeof(T)>::type U;
  U e, nv, o;
  memcpy(&e, &c, sizeof e);
  memcpy(&nv, &v, sizeof nv);
  o = atomicCAS((U *)p, e, nv);
  T r;
  memcpy(&r, &o, sizeof r);
  return r;
}

/* ---- shared-memory addresses for PTX ---- */
TC_DEV uint32_t tc_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
TC_DEV bool tc_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0u; }
template <int B> TC_DEV bool tc_aligned(const void *p) { return ((uintptr_t)p & (B - 1u)) == 0u; }
/* the 128-byte swizzle of an element offset (ES-byte elements): 16-byte chunk c of each
   128-byte row r is stored at chunk c ^ (r mod 8) */
template <int ES, typename T> TC_DEV T tc_swz128(T x) {
  constexpr int row = ES == 1 ? 7 : ES == 2 ? 6 : ES == 4 ? 5 : 4;
  return x ^ (((x >> row) & (T)7) << (row - 3));
}
"""
