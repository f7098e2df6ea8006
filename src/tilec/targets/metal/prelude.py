"""The MSL prelude every emitted Metal kernel starts with: TileIR's scalar semantics in MSL.

The helpers have the names the shared SIMT printers call (``tc_*``, as in the CUDA prelude)
with MSL bodies (docs/design/metal.md, docs/design/tileir.md):

* 16-bit floats are bit patterns (``ushort``) in registers and memory, computed in
  ``float``; ``tc_f32_to_bf16`` rounds to nearest even in integer arithmetic (a NaN stays
  a quiet NaN), ``half(x)`` rounds to nearest even;
* MSL has no ``double``: float -> integer takes the float (truncate toward zero, saturate,
  NaN -> 0); a 64-bit integer -> narrow float goes through ``tc_i64_to_f32_odd`` (rounded
  to odd, so one later rounding is correct);
* integer ``floordiv``/``rem`` round toward negative infinity (a zero divisor gives 0: the
  lowering checks divisors before dividing);
* ``max``/``min`` are IEEE 754-2019 ``maximum``/``minimum`` (NaN wins, ``-0.0 < +0.0``);
* transcendentals call ``metal::precise`` (the launcher also turns fast math off); MSL has
  no ``erf``: ``tc_erf_f32`` is a series below 0.5 and ``1 - erfc`` above, with the
  Chebyshev-fitted ``erfc`` of Press et al. (fractional error below 1.2e-7).

Helpers only the CUDA target needs (PTX conversions, shared-memory addresses, f64) have no
counterpart here; a kernel that would need them is rejected by the emitter first.
"""

from __future__ import annotations

from tilec.targets.clike import shift_helpers

__all__ = ["PRELUDE", "ABI_VERSION"]

ABI_VERSION = 1
"""Bumped whenever generated kernels' calling convention or helpers change."""

PRELUDE = r"""
#include <metal_stdlib>
using namespace metal;

#ifndef INT64_C
#define INT64_C(c) c##L
#endif

#define TC_DEV static inline

/* 16-byte vector of any element type: one 128-bit load or store */
template <typename T> struct alignas(16) tc_vec16 { T e[16 / sizeof(T)]; };

/* ---- narrow floats (bit patterns in registers) ---- */
TC_DEV float tc_bf16_to_f32(ushort b) { return as_type<float>(((uint)b) << 16); }
TC_DEV ushort tc_f32_to_bf16(float x) {
  uint u = as_type<uint>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
TC_DEV float tc_round_bf16(float x) { return tc_bf16_to_f32(tc_f32_to_bf16(x)); }
TC_DEV float tc_f16_to_f32(ushort h) { return (float)as_type<half>(h); }
TC_DEV ushort tc_f32_to_f16(float x) { return as_type<ushort>((half)x); }
TC_DEV float tc_round_f16(float x) { return tc_f16_to_f32(tc_f32_to_f16(x)); }
/* TF32: 10 mantissa bits, to nearest with ties away from zero */
TC_DEV float tc_round_tf32(float x) {
  uint u = as_type<uint>(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  return as_type<float>((u + 0x1000u) & 0xffffe000u);
}

/* a 64-bit integer as a float rounded to odd (the last bit records inexactness) */
TC_DEV float tc_i64_to_f32_odd(int64_t x) {
  const uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  if (m < ((uint64_t)1 << 24)) return (float)x;
  const int drop = 40 - (int)clz(m);
  uint64_t kept = m >> drop;
  kept |= (uint64_t)((m & ((((uint64_t)1) << drop) - 1)) != 0);
  const float f = ldexp((float)(uint)kept, drop);
  return x < 0 ? -f : f;
}

/* float -> integer: truncate toward zero, saturate, NaN -> 0 */
#define TC_F2I(name, T, LO, HI, LIM)                                                  \
  TC_DEV T name(float x) {                                                              \
    return x != x ? (T)0 : x >= (LIM) ? (T)(HI) : x < -(LIM) ? (T)(LO) : (T)x;          \
  }
TC_F2I(tc_f2i_i8, int8_t, -128, 127, 128.0f)
TC_F2I(tc_f2i_i16, int16_t, -32768, 32767, 32768.0f)
TC_F2I(tc_f2i_i32, int32_t, (-2147483647 - 1), 2147483647, 2147483648.0f)
TC_F2I(tc_f2i_i64, int64_t, (-INT64_C(9223372036854775807) - 1), INT64_C(9223372036854775807),
       9223372036854775808.0f)
/* float -> unsigned: the same, saturating at 0 below */
#define TC_F2U(name, T, HI, LIM)                                                          \
  TC_DEV T name(float x) {                                                                \
    return x != x ? (T)0 : x >= (LIM) ? (T)(HI) : x <= -1.0f ? (T)0 : (T)x;               \
  }
TC_F2U(tc_f2i_u8, uint8_t, 255u, 256.0f)
TC_F2U(tc_f2i_u16, uint16_t, 65535u, 65536.0f)
TC_F2U(tc_f2i_u32, uint32_t, 4294967295u, 4294967296.0f)

""" + shift_helpers("TC_DEV") + r"""
/* ---- integers ---- */
#define TC_MINMAX(S, T, A)                                                              \
  TC_DEV T tc_imax_##S(A a, A b) { return (T)(a > b ? a : b); }                           \
  TC_DEV T tc_imin_##S(A a, A b) { return (T)(a < b ? a : b); }
TC_MINMAX(i8, int8_t, int32_t)
TC_MINMAX(i16, int16_t, int32_t)
TC_MINMAX(i32, int32_t, int32_t)
TC_MINMAX(i64, int64_t, int64_t)
TC_MINMAX(index, int64_t, int64_t)
TC_MINMAX(u8, uint8_t, int32_t)
TC_MINMAX(u16, uint16_t, int32_t)
TC_MINMAX(u32, uint32_t, uint32_t)

TC_DEV int64_t tc_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)((uint64_t)0 - (uint64_t)a);
  int64_t q = a / b;
  return q - (int64_t)((a % b != 0) && ((a < 0) != (b < 0)));
}
TC_DEV int64_t tc_rem_i64(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
TC_DEV uint64_t tc_cdiv_u64(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : a / b + (uint64_t)(a % b != 0);
}
TC_DEV int64_t tc_fdiv(int64_t a, int64_t c) {
  int64_t q = a / c;
  return q - (int64_t)((a % c) < 0);
}
TC_DEV int64_t tc_fmod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
TC_DEV int tc_sat32(int64_t x) {
  return x < -INT64_C(2147483648) ? (int)(-2147483647 - 1) : x > INT64_C(2147483647) ? 2147483647
                                                                                       : (int)x;
}

/* ---- floats ---- */
TC_DEV bool tc_neg_f32(float x) { return (as_type<uint>(x) >> 31) != 0u; }
TC_DEV float tc_max_f32(float a, float b) {
  float r = a > b ? a : b;
  r = (a == b && tc_neg_f32(b)) ? a : r;
  return (a != a || b != b) ? a + b : r;
}
TC_DEV float tc_min_f32(float a, float b) {
  float r = a < b ? a : b;
  r = (a == b && tc_neg_f32(a)) ? a : r;
  return (a != a || b != b) ? a + b : r;
}
TC_DEV float tc_abs_f32(float x) { return metal::fabs(x); }
TC_DEV float tc_floor_f32(float x) { return metal::floor(x); }
TC_DEV float tc_ceil_f32(float x) { return metal::ceil(x); }
TC_DEV float tc_sqrt_f32(float x) { return metal::precise::sqrt(x); }
TC_DEV float tc_rsqrt_f32(float x) { return 1.0f / metal::precise::sqrt(x); }
TC_DEV float tc_fma_f32(float a, float b, float c) { return metal::fma(a, b, c); }
TC_DEV float tc_mul_rn(float a, float b) { return a * b; }
TC_DEV float tc_add_rn(float a, float b) { return a + b; }
TC_DEV float tc_rem_f32(float a, float b) {
  float m = metal::precise::fmod(a, b);
  if (b == 0) return m;
  if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = metal::copysign(0.0f, b); }
  return m;
}
TC_DEV float tc_exp_f32(float x) { return metal::precise::exp(x); }
TC_DEV float tc_exp2_f32(float x) { return metal::precise::exp2(x); }
TC_DEV float tc_log_f32(float x) { return metal::precise::log(x); }
TC_DEV float tc_log2_f32(float x) { return metal::precise::log2(x); }
TC_DEV float tc_tanh_f32(float x) { return metal::precise::tanh(x); }
TC_DEV float tc_sin_f32(float x) { return metal::precise::sin(x); }
TC_DEV float tc_cos_f32(float x) { return metal::precise::cos(x); }
TC_DEV float tc_pow_f32(float a, float b) { return metal::precise::pow(a, b); }
TC_DEV float tc_sigmoid_f32(float x) { return 1.0f / (1.0f + metal::precise::exp(-x)); }
TC_DEV float tc_erf_f32(float x) {
  const float ax = metal::fabs(x);
  if (ax != ax) return x;
  if (ax < 0.5f) {  /* 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)) */
    const float z = x * x;
    float s = -1.0f / 1320.0f;
    s = s * z + 1.0f / 216.0f;
    s = s * z - 1.0f / 42.0f;
    s = s * z + 1.0f / 10.0f;
    s = s * z - 1.0f / 3.0f;
    s = s * z + 1.0f;
    return 1.1283791670955126f * x * s;
  }
  const float t = 1.0f / (1.0f + 0.5f * ax);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float erfc = t * metal::precise::exp(-ax * ax + p);
  const float r = 1.0f - erfc;
  return x < 0 ? -r : r;
}

/* ---- SIMD-group shuffles: 32-bit lanes; narrower and wider values in pieces ---- */
TC_DEV float tc_shfl_xor(float x, ushort m) { return simd_shuffle_xor(x, m); }
TC_DEV int32_t tc_shfl_xor(int32_t x, ushort m) { return simd_shuffle_xor(x, m); }
TC_DEV uint32_t tc_shfl_xor(uint32_t x, ushort m) { return simd_shuffle_xor(x, m); }
TC_DEV ushort tc_shfl_xor(ushort x, ushort m) { return simd_shuffle_xor(x, m); }
TC_DEV int16_t tc_shfl_xor(int16_t x, ushort m) { return simd_shuffle_xor(x, m); }
TC_DEV int8_t tc_shfl_xor(int8_t x, ushort m) {
  return (int8_t)simd_shuffle_xor((int32_t)x, m);
}
TC_DEV uint8_t tc_shfl_xor(uint8_t x, ushort m) {
  return (uint8_t)simd_shuffle_xor((uint32_t)x, m);
}
TC_DEV int64_t tc_shfl_xor(int64_t x, ushort m) {
  const uint64_t u = (uint64_t)x;
  const uint32_t lo = simd_shuffle_xor((uint32_t)u, m);
  const uint32_t hi = simd_shuffle_xor((uint32_t)(u >> 32), m);
  return (int64_t)(((uint64_t)hi << 32) | (uint64_t)lo);
}
"""
