"""The C prelude every generated translation unit starts with: scalar semantics as C helpers.

The helpers implement docs/design/tileir.md exactly and are written branch
free where they sit in inner loops, so that ``-O3`` vectorizes the loops that
call them:

* narrow floats are held in ``float`` registers and rounded with
  ``tc_round_bf16`` / ``tc_round_f16`` (round to nearest even, overflow to
  infinity, NaN kept); memory holds their bit patterns (``uint16_t``);
* conversions from ``f64`` or 64-bit integers to a narrow float round once:
  first *to odd* in f32 (two spare bits make the second rounding exact);
* float -> integer truncates toward zero, saturates, and maps NaN to 0; a value
  that truncates to 0 is converted as ``+0.0`` (the compiler may rewrite a float
  -> integer -> float round trip as ``trunc``, which would keep a zero's sign);
* integer ``floordiv``/``rem`` round toward negative infinity. The emitter
  tests a divisor that may be zero before the division and fails like a
  check (error 2, the launcher raises ``KernelArithmeticError``); the
  helpers' own test records the same error and yields 0, for divisions whose
  divisor was proven nonzero;
* IEEE 754-2019 ``maximum``/``minimum`` (NaN wins, ``-0.0 < +0.0``);
* float ``rem`` is Python's ``%`` (numpy's ``remainder``);
* transcendental functions are evaluated in f64 and rounded to the compute
  type (f32 for narrow floats, rounded to the type after), as the reference
  does; ``pow`` is the C library's C99 ``pow`` (the compiler is
  told not to treat it as a builtin, see ``compiler.BASE_FLAGS``).
  f32 ``exp`` (and so ``sigmoid``) uses ``tc_exp_wide``, a
  branch-free double-precision exponential (relative error about 1e-16) that
  vectorizes; its f32 rounding equals the correctly rounded one except when
  ``exp(x)`` lies within ~1e-15 relative of a rounding boundary of f32.
"""

from __future__ import annotations

from tilec.targets.clike import shift_helpers

__all__ = ["PRELUDE", "ABI_VERSION"]

ABI_VERSION = 1
"""Bumped whenever the calling convention of generated kernels changes (part of the cache key)."""

PRELUDE = r"""
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <math.h>

#if !(defined(__GNUC__) || defined(__clang__))
#error "the tilec C backend needs a GCC- or Clang-compatible C compiler"
#endif

#ifdef _OPENMP
#include <omp.h>
#define TC_THREADS() ((int64_t)omp_get_max_threads())
#else
#define TC_THREADS() ((int64_t)1)
#endif

#define TC_INLINE static inline __attribute__((always_inline, unused))
#define TC_ALIGN __attribute__((aligned(64)))
#ifdef __FMA__
#define TC_HAS_FMA 1
#else
#define TC_HAS_FMA 0
#endif

/* ---- status: [0] error code (0 = ok), [1] id of the operation that failed; the first
   failure wins (tc_fail returns 1 to it), and a failed check then writes its values (a
   reindex leaving its source: the start read, then the axis) ---- */
enum { TC_ERR_REINDEX = 1, TC_ERR_ZERODIV = 2, TC_ERR_VIEW = 3, TC_ERR_CHECK = 4 };
static int __attribute__((noinline, unused)) tc_fail(int32_t *st, int32_t code, int32_t op) {
  int32_t expected = 0;
  if (__atomic_compare_exchange_n(&st[0], &expected, code, 0, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED)) {
    __atomic_store_n(&st[1], op, __ATOMIC_RELAXED);
    return 1;
  }
  return 0;
}

/* ---- bit casts ---- */
TC_INLINE uint32_t tc_f2u(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
TC_INLINE float tc_u2f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
TC_INLINE uint64_t tc_d2u(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
TC_INLINE double tc_u2d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* ---- narrow floats ---- */
TC_INLINE float tc_round_bf16(float x) {
  uint32_t u = tc_f2u(x);
  uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  uint32_t qnan = (u & 0x80000000u) | 0x7fc00000u;
  return tc_u2f((u & 0x7fffffffu) > 0x7f800000u ? qnan : r);
}
TC_INLINE float tc_bf16_to_f32(uint16_t b) { return tc_u2f((uint32_t)b << 16); }
TC_INLINE uint16_t tc_f32_to_bf16(float x) { return (uint16_t)(tc_f2u(tc_round_bf16(x)) >> 16); }

TC_INLINE uint16_t tc_f16_bits(float x) {
  uint32_t u = tc_f2u(x);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  uint32_t nan = sign | 0x7e00u | ((a >> 13) & 0x3ffu);
  uint32_t inf = sign | 0x7c00u;
  uint32_t normal = sign | ((a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u) >> 13);
  /* below 2^-14: scale to units of 2^-24 (exact) and round to an integer, to even */
  float scaled = tc_u2f(a < 0x38800000u ? a : 0u) * 16777216.0f;
  uint32_t sub = sign | (uint32_t)((scaled + 8388608.0f) - 8388608.0f);
  uint32_t r = a > 0x7f800000u ? nan : a >= 0x477ff000u ? inf : a >= 0x38800000u ? normal : sub;
  return (uint16_t)r;
}
TC_INLINE float tc_f16_to_f32(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  uint32_t e = ((uint32_t)h >> 10) & 0x1fu, m = (uint32_t)h & 0x3ffu;
  float sub = (float)m * 5.9604644775390625e-8f;
  uint32_t sub_bits = tc_f2u(sub) | sign;
  uint32_t special = sign | 0x7f800000u | (m << 13);
  uint32_t normal = sign | ((e + 112u) << 23) | (m << 13);
  return tc_u2f(e == 0 ? sub_bits : e == 31 ? special : normal);
}
TC_INLINE float tc_round_f16(float x) { return tc_f16_to_f32(tc_f16_bits(x)); }
TC_INLINE uint16_t tc_f32_to_f16(float x) { return tc_f16_bits(x); }

/* f64 -> f32 rounded to odd: the last bit records inexactness */
TC_INLINE float tc_f64_to_f32_odd(double x) {
  float t = (float)x;
  double back = (double)t;
  int inexact = (back != x) && (x - x == 0.0);
  uint32_t u = tc_f2u(t);
  u -= (uint32_t)(inexact && fabs(back) > fabs(x));
  u |= (uint32_t)inexact;
  return tc_u2f(u);
}
/* int64 -> f64 rounded to odd (hi * 2^32 + lo, TwoSum, then fix the last bit) */
TC_INLINE double tc_i64_to_f64_odd(int64_t x) {
  double hi = (double)(x >> 32) * 4294967296.0;
  double lo = (double)(x & INT64_C(0xffffffff));
  double s = hi + lo;
  double bb = s - hi;
  double err = (hi - (s - bb)) + (lo - bb);
  uint64_t u = tc_d2u(s);
  if (err != 0.0 && (u & 1u) == 0) s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
  return s;
}

/* float -> integer: truncate toward zero, saturate, NaN -> 0.
   A value that truncates to 0 is replaced by +0.0 before converting: under
   -fno-trapping-math GCC rewrites a float -> integer -> float round trip (float)(int)x as
   truncf(x), which keeps the sign of a zero (-0.5 -> -0.0, where the integer 0 converts to
   +0.0). Selecting on the input keeps the loops vectorizable; a select after the
   conversion would not. */
#define TC_F2I(name, T, LO, HI, LIM)                                              \
  TC_INLINE T name(double x) {                                                      \
    double y = fabs(x) < 1.0 ? 0.0 : x;                                             \
    return y != y ? (T)0 : y >= (LIM) ? (T)(HI) : y < -(LIM) ? (T)(LO) : (T)y;      \
  }
TC_F2I(tc_f2i_i8, int8_t, INT8_MIN, INT8_MAX, 128.0)
TC_F2I(tc_f2i_i16, int16_t, INT16_MIN, INT16_MAX, 32768.0)
TC_F2I(tc_f2i_i32, int32_t, INT32_MIN, INT32_MAX, 2147483648.0)
TC_F2I(tc_f2i_i64, int64_t, INT64_MIN, INT64_MAX, 9223372036854775808.0)
/* float -> unsigned: the same, saturating at 0 below */
#define TC_F2U(name, T, HI, LIM)                                                          \
  TC_INLINE T name(double x) {                                                            \
    double y = fabs(x) < 1.0 ? 0.0 : x;                                                   \
    return y != y ? (T)0 : y >= (LIM) ? (T)(HI) : y < 0.0 ? (T)0 : (T)y;                  \
  }
TC_F2U(tc_f2i_u8, uint8_t, UINT8_MAX, 256.0)
TC_F2U(tc_f2i_u16, uint16_t, UINT16_MAX, 65536.0)
TC_F2U(tc_f2i_u32, uint32_t, UINT32_MAX, 4294967296.0)

""" + shift_helpers("TC_INLINE") + r"""
/* ---- integers: Python division; a zero divisor is an error ----
   The empty asm hides the numerator's origin from the optimizer: GCC 12 -O2 with -fwrapv
   rewrites (-a) / b as -(a / b) when a / b is also computed, which is wrong for the minimum
   integer (where -a wraps to a). */
#define TC_OPAQUE(x) __asm__("" : "+r"(x))
TC_INLINE int64_t tc_floordiv_i64(int64_t a, int64_t b, int32_t *st, int32_t op) {
  TC_OPAQUE(a);
  if (b == 0) { tc_fail(st, TC_ERR_ZERODIV, op); return 0; }
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return q - (int64_t)((a % b != 0) && ((a < 0) != (b < 0)));
}
TC_INLINE int64_t tc_rem_i64(int64_t a, int64_t b, int32_t *st, int32_t op) {
  TC_OPAQUE(a);
  if (b == 0) { tc_fail(st, TC_ERR_ZERODIV, op); return 0; }
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* cdiv(a, b) = -floordiv(-a, b) with the negations wrapping at the type's width (tmin is the
   type's minimum, where -a wraps to a), written without negating a */
TC_INLINE int64_t tc_cdiv_i64(int64_t a, int64_t b, int64_t tmin, int32_t *st, int32_t op) {
  TC_OPAQUE(a);
  if (b == 0) { tc_fail(st, TC_ERR_ZERODIV, op); return 0; }
  if (a == tmin) return (int64_t)(0 - (uint64_t)tc_floordiv_i64(a, b, st, op));
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return q + (int64_t)((a % b != 0) && ((a < 0) == (b < 0)));
}
/* index arithmetic of views: floor division / modulo by a positive constant */
TC_INLINE int64_t tc_fdiv(int64_t a, int64_t c) {
  int64_t q = a / c;
  return q - (int64_t)((a % c) < 0);
}
TC_INLINE int64_t tc_fmod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
TC_INLINE int64_t tc_cdiv_pos(int64_t a, int64_t c) { return -tc_fdiv(-a, c); }
TC_INLINE int64_t tc_max_i(int64_t a, int64_t b) { return a > b ? a : b; }
TC_INLINE int64_t tc_min_i(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---- floats ---- */
#define TC_FLOAT_BASICS(S, T, ABS, FLOOR, CEIL, SQRT, FMOD, COPYSIGN, FMA)               \
  TC_INLINE T tc_max_##S(T a, T b) {                                                     \
    T r = a > b ? a : b;                                                                   \
    r = (a == b && signbit(b)) ? a : r;                                                    \
    return (a != a || b != b) ? a + b : r;                                                 \
  }                                                                                        \
  TC_INLINE T tc_min_##S(T a, T b) {                                                     \
    T r = a < b ? a : b;                                                                   \
    r = (a == b && signbit(a)) ? a : r;                                                    \
    return (a != a || b != b) ? a + b : r;                                                 \
  }                                                                                        \
  TC_INLINE T tc_abs_##S(T x) { return ABS(x); }                                         \
  TC_INLINE T tc_floor_##S(T x) { return FLOOR(x); }                                     \
  TC_INLINE T tc_ceil_##S(T x) { return CEIL(x); }                                       \
  TC_INLINE T tc_sqrt_##S(T x) { return SQRT(x); }                                       \
  TC_INLINE T tc_rsqrt_##S(T x) { return (T)1 / SQRT(x); }                               \
  TC_INLINE T tc_fma_##S(T a, T b, T c) { return FMA(a, b, c); }                         \
  TC_INLINE T tc_rem_##S(T a, T b) {                                                     \
    T m = FMOD(a, b);                                                                      \
    if (b == 0) return m;                                                                  \
    if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = COPYSIGN((T)0, b); }       \
    return m;                                                                              \
  }
TC_FLOAT_BASICS(f32, float, fabsf, floorf, ceilf, sqrtf, fmodf, copysignf, fmaf)
TC_FLOAT_BASICS(f64, double, fabs, floor, ceil, sqrt, fmod, copysign, fma)

/* exp in double precision, branch free (vectorizes); for results that are rounded to f32 */
#if TC_HAS_FMA
#define TC_MADD(a, b, c) fma(a, b, c)
#else
#define TC_MADD(a, b, c) ((a) * (b) + (c))
#endif
TC_INLINE double tc_exp_wide(double x) {
  /* exp(-150) and exp(89) already round to 0 and inf in f32: clamp there (no subnormals) */
  double xc = x < -150.0 ? -150.0 : (x > 89.0 ? 89.0 : x);
  const double shifter = 0x1.8p52;
  double n = (xc * 0x1.71547652b82fep0 + shifter) - shifter;
  double r = xc - n * 0x1.62e42fefa39efp-1;
  r = r - n * 0x1.abc9e3b39803fp-56;
  double p = 1.0 / 479001600.0;
  p = TC_MADD(p, r, 1.0 / 39916800.0);
  p = TC_MADD(p, r, 1.0 / 3628800.0);
  p = TC_MADD(p, r, 1.0 / 362880.0);
  p = TC_MADD(p, r, 1.0 / 40320.0);
  p = TC_MADD(p, r, 1.0 / 5040.0);
  p = TC_MADD(p, r, 1.0 / 720.0);
  p = TC_MADD(p, r, 1.0 / 120.0);
  p = TC_MADD(p, r, 1.0 / 24.0);
  p = TC_MADD(p, r, 1.0 / 6.0);
  p = TC_MADD(p, r, 0.5);
  p = TC_MADD(p, r, 1.0);
  p = TC_MADD(p, r, 1.0);
  /* 2^n as 2^h * 2^(n-h), both normal; the exponent bits come from the shifter trick */
  double h = (n * 0.5 + shifter) - shifter;
  uint64_t sb = tc_d2u(shifter);
  double s1 = tc_u2d((tc_d2u(h + shifter) - sb + 1023u) << 52);
  double s2 = tc_u2d((tc_d2u((n - h) + shifter) - sb + 1023u) << 52);
  double res = p * s1 * s2;
  return x != x ? x : res;
}

TC_INLINE float tc_exp_f32(float x) { return (float)tc_exp_wide((double)x); }
TC_INLINE float tc_sigmoid_f32(float x) { return 1.0f / (1.0f + tc_exp_f32(-x)); }
TC_INLINE float tc_exp2_f32(float x) { return (float)exp2((double)x); }
TC_INLINE float tc_log_f32(float x) { return (float)log((double)x); }
TC_INLINE float tc_log2_f32(float x) { return (float)log2((double)x); }
TC_INLINE float tc_tanh_f32(float x) { return (float)tanh((double)x); }
TC_INLINE float tc_erf_f32(float x) { return (float)erf((double)x); }
TC_INLINE float tc_sin_f32(float x) { return (float)sin((double)x); }
TC_INLINE float tc_cos_f32(float x) { return (float)cos((double)x); }
TC_INLINE float tc_pow_f32(float a, float b) { return (float)pow((double)a, (double)b); }
TC_INLINE double tc_exp_f64(double x) { return exp(x); }
TC_INLINE double tc_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
TC_INLINE double tc_exp2_f64(double x) { return exp2(x); }
TC_INLINE double tc_log_f64(double x) { return log(x); }
TC_INLINE double tc_log2_f64(double x) { return log2(x); }
TC_INLINE double tc_tanh_f64(double x) { return tanh(x); }
TC_INLINE double tc_erf_f64(double x) { return erf(x); }
TC_INLINE double tc_sin_f64(double x) { return sin(x); }
TC_INLINE double tc_cos_f64(double x) { return cos(x); }
TC_INLINE double tc_pow_f64(double a, double b) { return pow(a, b); }

TC_INLINE float tc_round_tf32(float x) {
  uint32_t u = tc_f2u(x);
  uint32_t r = (u + 0x1000u) & 0xffffe000u;
  return tc_u2f((u & 0x7f800000u) == 0x7f800000u ? u : r);
}

/* ---- atomics (compare-and-swap loops on the bit patterns) ---- */
#define TC_ATOMIC_FLOAT(S, T, U, D2U, U2D, OP)                                          \
  TC_INLINE void tc_atomic_##OP##_##S(T *p, T v) {                                      \
    U *q = (U *)p;                                                                      \
    U old = __atomic_load_n(q, __ATOMIC_RELAXED);                                       \
    for (;;) {                                                                          \
      T nv = tc_##OP##_##S(U2D(old), v);                                                \
      if (__atomic_compare_exchange_n(q, &old, D2U(nv), 1, __ATOMIC_RELAXED,           \
                                      __ATOMIC_RELAXED)) return;                        \
    }                                                                                   \
  }
TC_INLINE float tc_add_f32(float a, float b) { return a + b; }
TC_INLINE double tc_add_f64(double a, double b) { return a + b; }
TC_ATOMIC_FLOAT(f32, float, uint32_t, tc_f2u, tc_u2f, add)
TC_ATOMIC_FLOAT(f32, float, uint32_t, tc_f2u, tc_u2f, max)
TC_ATOMIC_FLOAT(f32, float, uint32_t, tc_f2u, tc_u2f, min)
TC_ATOMIC_FLOAT(f64, double, uint64_t, tc_d2u, tc_u2d, add)
TC_ATOMIC_FLOAT(f64, double, uint64_t, tc_d2u, tc_u2d, max)
TC_ATOMIC_FLOAT(f64, double, uint64_t, tc_d2u, tc_u2d, min)
#define TC_ATOMIC_INT_MINMAX(T)                                                          \
  TC_INLINE void tc_atomic_max_##T(T *p, T v) {                                          \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                        \
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED,     \
                                                   __ATOMIC_RELAXED)) {}                 \
  }                                                                                      \
  TC_INLINE void tc_atomic_min_##T(T *p, T v) {                                          \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                        \
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED,     \
                                                   __ATOMIC_RELAXED)) {}                 \
  }
TC_ATOMIC_INT_MINMAX(int8_t)
TC_ATOMIC_INT_MINMAX(int16_t)
TC_ATOMIC_INT_MINMAX(int32_t)
TC_ATOMIC_INT_MINMAX(int64_t)
TC_ATOMIC_INT_MINMAX(uint8_t)
TC_ATOMIC_INT_MINMAX(uint16_t)
TC_ATOMIC_INT_MINMAX(uint32_t)

/* ---- vector types for the matrix micro-kernels ---- */
typedef float tc_v8f __attribute__((vector_size(32)));
typedef double tc_v4d __attribute__((vector_size(32)));
"""
