/* tilec CUDA backend: @gemm_mma_bf16 for cuda:sm_90 */

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
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

/* ---- integers: shifts. The count is read as unsigned at the operand's width; one of at
   least the width shifts every bit out (0, or the sign fill for a signed >>, which is
   arithmetic; an unsigned >> is logical) ---- */
#define TC_SHIFTS(S, T, U, BITS)                                                          \
  TC_DEV T tc_shl_##S(T a, T c) {                                                         \
    return (U)c >= (BITS) ? (T)0 : (T)((U)a << (U)c);                                     \
  }                                                                                       \
  TC_DEV T tc_shr_##S(T a, T c) {                                                         \
    return (T)(a >> ((U)c >= (BITS) ? (BITS) - 1 : (U)c));                                \
  }
#define TC_USHIFTS(S, T, BITS)                                                            \
  TC_DEV T tc_shl_##S(T a, T c) { return c >= (BITS) ? (T)0 : (T)((uint32_t)a << c); }    \
  TC_DEV T tc_shr_##S(T a, T c) { return c >= (BITS) ? (T)0 : (T)(a >> c); }
TC_SHIFTS(i8, int8_t, uint8_t, 8)
TC_SHIFTS(i16, int16_t, uint16_t, 16)
TC_SHIFTS(i32, int32_t, uint32_t, 32)
TC_SHIFTS(i64, int64_t, uint64_t, 64)
TC_SHIFTS(index, int64_t, uint64_t, 64)
TC_USHIFTS(u8, uint8_t, 8)
TC_USHIFTS(u16, uint16_t, 16)
TC_USHIFTS(u32, uint32_t, 32)

/* ---- integers: max/min ----
   32 bits and narrower select through setp/selp written as PTX. ptxas of CUDA 13.0
   (sm_90) fuses a tree of max/min over negated values into a three-input VIMNMX3 and
   drops one negation: max(max(-a, -b), max(-c, -d)) came out as max(-a, b, -c, -d)
   on the H200 (tests/device/test_cuda_integer_minmax.py). A select it does not fuse. */
TC_DEV int32_t tc_imax_i32(int32_t a, int32_t b) {
  int32_t r;
  asm("{\n\t.reg .pred p;\n\tsetp.gt.s32 p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}"
      : "=r"(r) : "r"(a), "r"(b));
  return r;
}
TC_DEV int32_t tc_imin_i32(int32_t a, int32_t b) {
  int32_t r;
  asm("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}"
      : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#define TC_NARROW_MINMAX(S, T)                                                         \
  TC_DEV T tc_imax_##S(int32_t a, int32_t b) { return (T)tc_imax_i32(a, b); }            \
  TC_DEV T tc_imin_##S(int32_t a, int32_t b) { return (T)tc_imin_i32(a, b); }
TC_NARROW_MINMAX(i8, int8_t)
TC_NARROW_MINMAX(i16, int16_t)
TC_NARROW_MINMAX(u8, uint8_t)   /* promoted to int, never negative: a signed select */
TC_NARROW_MINMAX(u16, uint16_t)
TC_DEV uint32_t tc_imax_u32(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("{\n\t.reg .pred p;\n\tsetp.gt.u32 p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}"
      : "=r"(r) : "r"(a), "r"(b));
  return r;
}
TC_DEV uint32_t tc_imin_u32(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}"
      : "=r"(r) : "r"(a), "r"(b));
  return r;
}
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


/* ---- 16-bit register arrays: two bit patterns per 32-bit word ---- */
/* Element 2j is the low half of w[j], element 2j+1 the high half: the packing of ldmatrix
   results and of the 16-bit operands of the mma atoms, which use w[] directly. Every other
   use goes element by element through operator[]; indices are constants after unrolling,
   so an element access is one shift, mask or byte permute on a register. */
struct tc_b16_ref {
  uint32_t &w;
  const unsigned s;
  __device__ __forceinline__ tc_b16_ref(uint32_t &word, unsigned shift) : w(word), s(shift) {}
  __device__ __forceinline__ operator uint16_t() const { return (uint16_t)(w >> s); }
  __device__ __forceinline__ tc_b16_ref &operator=(uint16_t x) {
    w = (w & ~(0xffffu << s)) | ((uint32_t)x << s);
    return *this;
  }
  __device__ __forceinline__ tc_b16_ref &operator=(const tc_b16_ref &o) {
    return *this = (uint16_t)o;
  }
};
template <int N> struct tc_b16x {
  uint32_t w[(N + 1) / 2];
  __device__ __forceinline__ tc_b16_ref operator[](int i) {
    return tc_b16_ref(w[i >> 1], (unsigned)(i & 1) * 16u);
  }
  __device__ __forceinline__ uint16_t operator[](int i) const {
    return (uint16_t)(w[i >> 1] >> ((i & 1) * 16));
  }
};

extern "C" __global__ void __launch_bounds__(32) tilec_gemm_mma_bf16(const uint16_t *__restrict__ v4_A, const uint16_t *__restrict__ v6_B, float *__restrict__ v8_C, int64_t v1_M, int64_t v2_N, int64_t v3_K)
{
  const int64_t v4_A_s5 = v3_K;
  const bool tc_al_v4_A = tc_aligned16(v4_A);
  const int64_t v6_B_s7 = v2_N;
  const bool tc_al_v6_B = tc_aligned16(v6_B);
  const int64_t v8_C_s9 = v2_N;
  const bool tc_al_v8_C = tc_aligned16(v8_C);
  const int v1_M_i32 = (int)(v1_M < INT64_C(2147483647) ? v1_M : INT64_C(2147483647));
  /* tilec: constant#1 */
  /* tilec: constant#2 */
  /* tilec: constant#3 */
  /* tilec: constant#4 */
  /* tilec: arith#5 */
  const int64_t v10_gm = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_M), 16)));
  /* tilec: arith#6 */
  const int64_t v11_gn = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_N), 8)));
  /* tilec: parallel#7 */
  const int v12_pm = (int)blockIdx.y;
  const int v13_pn = (int)blockIdx.x;
  /* tilec: constant#8 */
  /* tilec: parallel#9 */
  const int v14_l = (int)threadIdx.x;
  /* tilec: constant#10 */
  /* tilec: arith#11 */
  const int v15_g = (v14_l >> 2);
  /* tilec: arith#12 */
  const int v16_q = (v14_l & 3);
  /* tilec: arith#13 */
  const int v17_om = ((int)(v12_pm * 16));
  /* tilec: arith#14 */
  const int64_t v18_on = ((int64_t)((int64_t)v13_pn * (int64_t)8));
  /* tilec: constant#15 */
  /* tilec: serial#16 */
  float v19_acc[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v19_acc[e] = 0x0.0p+0f;
  for (int64_t v20_k = INT64_C(0); v20_k < v3_K; v20_k += INT64_C(16)) {
    /* tilec: view#17 */
    /* tilec: load#18 */
    tc_b16x<8> v21_a;
    {
      const int64_t a22 = (int64_t)(v17_om + v15_g) * v4_A_s5 + (v20_k + v16_q * 2);
      const int c23 = (v17_om + v15_g);
      const int lim24 = tc_sat32(v3_K - v20_k);
      const int c25 = v16_q * 2;
      if (c23 < v1_M_i32 && c25 + 1 < lim24 && tc_aligned<4>(v4_A + a22)) {
        const tc_vec<uint32_t, 1> v26 = *reinterpret_cast<const tc_vec<uint32_t, 1> *>(v4_A + a22);
        v21_a.w[0] = v26.e[0];
      }
      else {
        if (c23 < v1_M_i32 && c25 < lim24) v21_a[0] = v4_A[a22]; else v21_a[0] = (uint16_t)0x0000;
        if (c23 < v1_M_i32 && c25 + 1 < lim24) v21_a[1] = v4_A[a22 + 1]; else v21_a[1] = (uint16_t)0x0000;
      }
    }
    {
      const int64_t a27 = (int64_t)(v17_om + v15_g) * v4_A_s5 + v4_A_s5 * 8 + (v20_k + v16_q * 2);
      const int c28 = (v17_om + v15_g + 8);
      const int lim29 = tc_sat32(v3_K - v20_k);
      const int c30 = v16_q * 2;
      if (c28 < v1_M_i32 && c30 + 1 < lim29 && tc_aligned<4>(v4_A + a27)) {
        const tc_vec<uint32_t, 1> v31 = *reinterpret_cast<const tc_vec<uint32_t, 1> *>(v4_A + a27);
        v21_a.w[1] = v31.e[0];
      }
      else {
        if (c28 < v1_M_i32 && c30 < lim29) v21_a[2] = v4_A[a27]; else v21_a[2] = (uint16_t)0x0000;
        if (c28 < v1_M_i32 && c30 + 1 < lim29) v21_a[3] = v4_A[a27 + 1]; else v21_a[3] = (uint16_t)0x0000;
      }
    }
    {
      const int64_t a32 = (int64_t)(v17_om + v15_g) * v4_A_s5 + (v20_k + v16_q * 2) + 8;
      const int c33 = (v17_om + v15_g);
      const int lim34 = tc_sat32(v3_K - v20_k);
      const int c35 = (v16_q * 2 + 8);
      if (c33 < v1_M_i32 && c35 + 1 < lim34 && tc_aligned<4>(v4_A + a32)) {
        const tc_vec<uint32_t, 1> v36 = *reinterpret_cast<const tc_vec<uint32_t, 1> *>(v4_A + a32);
        v21_a.w[2] = v36.e[0];
      }
      else {
        if (c33 < v1_M_i32 && c35 < lim34) v21_a[4] = v4_A[a32]; else v21_a[4] = (uint16_t)0x0000;
        if (c33 < v1_M_i32 && c35 + 1 < lim34) v21_a[5] = v4_A[a32 + 1]; else v21_a[5] = (uint16_t)0x0000;
      }
    }
    {
      const int64_t a37 = (int64_t)(v17_om + v15_g) * v4_A_s5 + v4_A_s5 * 8 + (v20_k + v16_q * 2) + 8;
      const int c38 = (v17_om + v15_g + 8);
      const int lim39 = tc_sat32(v3_K - v20_k);
      const int c40 = (v16_q * 2 + 8);
      if (c38 < v1_M_i32 && c40 + 1 < lim39 && tc_aligned<4>(v4_A + a37)) {
        const tc_vec<uint32_t, 1> v41 = *reinterpret_cast<const tc_vec<uint32_t, 1> *>(v4_A + a37);
        v21_a.w[3] = v41.e[0];
      }
      else {
        if (c38 < v1_M_i32 && c40 < lim39) v21_a[6] = v4_A[a37]; else v21_a[6] = (uint16_t)0x0000;
        if (c38 < v1_M_i32 && c40 + 1 < lim39) v21_a[7] = v4_A[a37 + 1]; else v21_a[7] = (uint16_t)0x0000;
      }
    }
    /* tilec: view#19 */
    /* tilec: load#20 */
    tc_b16x<4> v42_b;
    {
      const int64_t c43 = (v20_k + v16_q * 2);
      const int64_t c44 = (v18_on + v15_g);
      if (c43 < v3_K && c44 < v2_N) v42_b[0] = v6_B[(int64_t)(v20_k + v16_q * 2) * v6_B_s7 + (v18_on + v15_g)]; else v42_b[0] = (uint16_t)0x0000;
    }
    {
      const int64_t c45 = (v20_k + v16_q * 2 + 1);
      const int64_t c46 = (v18_on + v15_g);
      if (c45 < v3_K && c46 < v2_N) v42_b[1] = v6_B[(int64_t)(v20_k + v16_q * 2) * v6_B_s7 + v6_B_s7 + (v18_on + v15_g)]; else v42_b[1] = (uint16_t)0x0000;
    }
    {
      const int64_t c47 = (v20_k + v16_q * 2 + 8);
      const int64_t c48 = (v18_on + v15_g);
      if (c47 < v3_K && c48 < v2_N) v42_b[2] = v6_B[(int64_t)(v20_k + v16_q * 2) * v6_B_s7 + v6_B_s7 * 8 + (v18_on + v15_g)]; else v42_b[2] = (uint16_t)0x0000;
    }
    {
      const int64_t c49 = (v20_k + v16_q * 2 + 9);
      const int64_t c50 = (v18_on + v15_g);
      if (c49 < v3_K && c50 < v2_N) v42_b[3] = v6_B[(int64_t)(v20_k + v16_q * 2) * v6_B_s7 + v6_B_s7 * 9 + (v18_on + v15_g)]; else v42_b[3] = (uint16_t)0x0000;
    }
    /* tilec: atom.call#21 */
    float v51_d[4];
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(v51_d[0]), "=f"(v51_d[1]), "=f"(v51_d[2]), "=f"(v51_d[3])
        : "r"(v21_a.w[0]), "r"(v21_a.w[1]), "r"(v21_a.w[2]), "r"(v21_a.w[3]), "r"(v42_b.w[0]), "r"(v42_b.w[1]), "f"(v19_acc[0]), "f"(v19_acc[1]), "f"(v19_acc[2]), "f"(v19_acc[3]));
    #pragma unroll
    for (int e = 0; e < 4; ++e) v19_acc[e] = v51_d[e];
  }
  /* tilec: view#22 */
  /* tilec: store#23 */
  {
    const int64_t a52 = (int64_t)(v17_om + v15_g) * v8_C_s9 + (v18_on + v16_q * 2);
    const int c53 = (v17_om + v15_g);
    const int lim54 = tc_sat32(v2_N - v18_on);
    const int c55 = v16_q * 2;
    if (c53 < v1_M_i32 && c55 + 1 < lim54 && tc_aligned<8>(v8_C + a52)) {
      tc_vec<float, 2> v56;
      v56.e[0] = v19_acc[0];
      v56.e[1] = v19_acc[1];
      *reinterpret_cast<tc_vec<float, 2> *>(v8_C + a52) = v56;
    }
    else {
      if (c53 < v1_M_i32 && c55 < lim54) v8_C[a52] = v19_acc[0];
      if (c53 < v1_M_i32 && c55 + 1 < lim54) v8_C[a52 + 1] = v19_acc[1];
    }
  }
  {
    const int64_t a57 = (int64_t)(v17_om + v15_g) * v8_C_s9 + v8_C_s9 * 8 + (v18_on + v16_q * 2);
    const int c58 = (v17_om + v15_g + 8);
    const int lim59 = tc_sat32(v2_N - v18_on);
    const int c60 = v16_q * 2;
    if (c58 < v1_M_i32 && c60 + 1 < lim59 && tc_aligned<8>(v8_C + a57)) {
      tc_vec<float, 2> v61;
      v61.e[0] = v19_acc[2];
      v61.e[1] = v19_acc[3];
      *reinterpret_cast<tc_vec<float, 2> *>(v8_C + a57) = v61;
    }
    else {
      if (c58 < v1_M_i32 && c60 < lim59) v8_C[a57] = v19_acc[2];
      if (c58 < v1_M_i32 && c60 + 1 < lim59) v8_C[a57 + 1] = v19_acc[3];
    }
  }
}
