"""The stand-in ``<metal_stdlib>`` that emitted MSL is type-checked against off macOS.

It declares, as C++17 that clang accepts, exactly the Metal builtins the emitter and its
prelude use, with Metal's address spaces as clang address spaces, so that a pointer
converted between ``device``, ``threadgroup`` and ``thread`` memory is a compile error as it
is under the Metal compiler. Declarations only: nothing here runs, and a builtin missing
from this header is a check failure (add it here only after confirming it in the Metal
Shading Language specification). ``METAL_ATTRIBUTES`` lists the ``[[...]]`` attributes of
MSL that clang does not know; ``check.py`` rejects any other unknown attribute.
"""

from __future__ import annotations

__all__ = ["HEADER", "METAL_ATTRIBUTES", "TENSOR_HEADER", "MPP_HEADER", "MPP_INCLUDES", "INCLUDES"]

METAL_ATTRIBUTES = frozenset((
    "buffer", "threadgroup_position_in_grid", "thread_index_in_threadgroup",
    "simdgroup_index_in_threadgroup", "thread_index_in_simdgroup", "threads_per_threadgroup",
    "thread_position_in_threadgroup",  # TVM's Metal code generation (tirx:metal)
))
"""Kernel-argument attributes of MSL (specification section 5.2) the emitter may print."""

HEADER = r"""
#pragma once
#define device __attribute__((address_space(1)))
#define constant __attribute__((address_space(2)))
#define threadgroup __attribute__((address_space(3)))
#define thread
#define kernel __attribute__((annotate("metal_kernel")))

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef _Float16 half;
/* MSL has no double: any use of it is an unknown type */
#define double tc_msl_has_no_double

struct uint3 { uint x, y, z; };
struct ulong2 {
  ulong x, y;
  constexpr ulong2(ulong v = 0) : x(v), y(v) {}
  constexpr ulong2(ulong a, ulong b) : x(a), y(b) {}
};
struct alignas(16) uint4 { uint x, y, z, w; };

#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()

namespace metal {
template <typename T, typename U> T as_type(U x) {
  static_assert(sizeof(T) == sizeof(U), "as_type needs types of one size");
  return __builtin_bit_cast(T, x);
}

float fabs(float);
float floor(float);
float ceil(float);
float fma(float, float, float);
float copysign(float, float);
float ldexp(float, int);
uint clz(uint);
ulong clz(ulong);
/* used by TVM's Metal code generation (the tirx:metal route; MSL specification 6.2, 6.5,
   6.4): select(a, b, c) is c ? b : a, element-wise; max/min of any scalar type */
template <typename T> T select(T a, T b, bool c);
template <typename T> T max(T a, T b);
template <typename T> T min(T a, T b);
float sqrt(float);
namespace precise {
float sqrt(float);
float fmod(float, float);
float exp(float);
float exp2(float);
float log(float);
float log2(float);
float tanh(float);
float sin(float);
float cos(float);
float pow(float, float);
}  // namespace precise

enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
void threadgroup_barrier(mem_flags);
void simdgroup_barrier(mem_flags);

float simd_shuffle_xor(float, ushort);
int simd_shuffle_xor(int, ushort);
uint simd_shuffle_xor(uint, ushort);
short simd_shuffle_xor(short, ushort);
ushort simd_shuffle_xor(ushort, ushort);
bool simd_any(bool);

/* SIMD-group matrices (MSL specification 2.5 and 6.7): the element layout is opaque */
template <typename T, int Cols, int Rows> struct simdgroup_matrix {
  simdgroup_matrix() = default;
 private:
  T __opaque[Cols * Rows / 32];
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
template <typename T, int Cols, int Rows>
void simdgroup_load(thread simdgroup_matrix<T, Cols, Rows> &d, const threadgroup T *src,
                    ulong elements_per_row = Cols, ulong2 matrix_origin = 0,
                    bool transpose_matrix = false);
template <typename T, int Cols, int Rows>
void simdgroup_load(thread simdgroup_matrix<T, Cols, Rows> &d, const device T *src,
                    ulong elements_per_row = Cols, ulong2 matrix_origin = 0,
                    bool transpose_matrix = false);
template <typename T, int Cols, int Rows>
void simdgroup_store(thread simdgroup_matrix<T, Cols, Rows> a, threadgroup T *dst,
                     ulong elements_per_row = Cols, ulong2 matrix_origin = 0,
                     bool transpose_matrix = false);
template <typename T, int Cols, int Rows>
void simdgroup_store(thread simdgroup_matrix<T, Cols, Rows> a, device T *dst,
                     ulong elements_per_row = Cols, ulong2 matrix_origin = 0,
                     bool transpose_matrix = false);
template <typename T, int Cols, int K, int Rows>
void simdgroup_multiply_accumulate(thread simdgroup_matrix<T, Cols, Rows> &d,
                                   thread simdgroup_matrix<T, K, Rows> &a,
                                   thread simdgroup_matrix<T, Cols, K> &b,
                                   thread simdgroup_matrix<T, Cols, Rows> &c);

enum memory_order { memory_order_relaxed = 0 };
struct atomic_uint { uint __value; };
bool atomic_compare_exchange_weak_explicit(device atomic_uint *, thread uint *, uint,
                                           memory_order, memory_order);
bool atomic_compare_exchange_weak_explicit(threadgroup atomic_uint *, thread uint *, uint,
                                           memory_order, memory_order);
uint atomic_exchange_explicit(device atomic_uint *, uint, memory_order);
uint atomic_exchange_explicit(threadgroup atomic_uint *, uint, memory_order);
void atomic_store_explicit(device atomic_uint *, uint, memory_order);
}  // namespace metal

"""

TENSOR_HEADER = r"""
#pragma once
#include <metal_stdlib>
namespace metal {
/* Tensors (<metal_tensor>), execution scopes and cooperative tensors
   (<metal_cooperative_tensor>), as the MetalPerformancePrimitives headers use them */
typedef unsigned long size_t;
template <typename T, size_t N> struct array {
  T __elems[N];
  thread T &operator[](size_t i) { return __elems[i]; }
  const thread T &operator[](size_t i) const { return __elems[i]; }
};
template <typename IndexType, size_t Rank> struct dextents {
  template <typename... I> constexpr dextents(I... e) : __e{static_cast<IndexType>(e)...} {
    static_assert(sizeof...(I) == Rank, "dextents: one extent per dimension");
  }
  IndexType __e[Rank];
};
struct tensor_inline {};
struct tensor_handle {};
template <typename ElementType, typename Extents, typename Descriptor = tensor_handle,
          typename... Tags>
struct tensor;
/* tensor_inline over a pointer of any address space: (data, extents, strides), dimension 0
   innermost */
template <typename ElementType, typename IndexType, size_t Rank>
struct tensor<ElementType, dextents<IndexType, Rank>, tensor_inline> {
  tensor(ElementType *data, dextents<IndexType, Rank> extents,
         array<IndexType, Rank> strides);
 private:
  ElementType *__data;
};
template <size_t Size> struct execution_simdgroups {
  static_assert(Size != 0, "execution_simdgroups<0> is not supported");
};
using execution_simdgroup = execution_simdgroups<1>;
template <typename ElementType, typename Extents, typename Layout> struct cooperative_tensor {
  uint16_t get_capacity() const;
  bool is_valid_element(uint16_t idx) const;
  array<int, 2> get_multidimensional_index(uint16_t idx) const;
  thread ElementType &operator[](uint16_t idx);
  const thread ElementType &operator[](uint16_t idx) const;
 private:
  ElementType __opaque[1];
};
}  // namespace metal
"""
"""The stand-in ``<metal_tensor>`` (with ``<metal_cooperative_tensor>``'s declarations): inline
tensors, ``dextents``, ``array``, the SIMD-group execution scopes and the members of a
cooperative tensor the MPP printer uses (docs/design/metal.md says where each is from)."""

MPP_HEADER = r"""
#pragma once
#include <metal_tensor>
/* MetalPerformancePrimitives tensor operations (MPPTensorOpsMatMul2d.h) */
namespace mpp {
namespace tensor_ops {
template <typename T> constexpr T dynamic_length_v = static_cast<T>(~0u >> 1);
struct matmul2d_descriptor {
  enum class mode { multiply, multiply_accumulate };
  int m, n, k;
  bool transpose_left, transpose_right;
  bool relaxed_precision;
  mode matmul_mode;
  constexpr matmul2d_descriptor(int m_, int n_, int k_ = dynamic_length_v<int>,
                                bool transpose_left_ = false, bool transpose_right_ = false,
                                bool relaxed_precision_ = false, mode mode_ = mode::multiply)
      : m(m_), n(n_), k(k_), transpose_left(transpose_left_),
        transpose_right(transpose_right_), relaxed_precision(relaxed_precision_),
        matmul_mode(mode_) {}
  /* Metal takes the descriptor itself as matmul2d's template argument (a class-type
     non-type template parameter, which C++17 does not have): this stand-in passes it
     packed into an integer instead, so that matmul2d can check its rules */
  constexpr operator unsigned long long() const {
    return (unsigned long long)(unsigned)m | ((unsigned long long)(unsigned)n << 16)
           | ((unsigned long long)(unsigned)k << 32)
           | ((unsigned long long)transpose_left << 63);
  }
};
template <unsigned long long Descriptor, typename Scope> struct __destination_layout {};
template <unsigned long long Descriptor, typename Scope> class matmul2d {
  static constexpr int __m = Descriptor & 0xffff, __n = (Descriptor >> 16) & 0xffff;
  static constexpr int __k = (Descriptor >> 32) & 0x7fffffff;
  /* tilec's FP32 descriptor rule (the seed's probe of the macOS 26.5 headers) */
  static_assert(__m % 8 == 0 && __n % 8 == 0, "matmul2d: M and N must be multiples of 8");
  static_assert(__m % 16 == 0 || __n % 16 == 0, "matmul2d: M or N must be a multiple of 16");
  static_assert(__k == dynamic_length_v<int> || __k % 16 == 0,
                "matmul2d: a static K must be a multiple of 16");
  static_assert(!(Descriptor >> 63), "tilec never transposes the left operand");

 public:
  template <typename LeftOperandType, typename RightOperandType, typename ElementType>
  metal::cooperative_tensor<ElementType, metal::dextents<int, 2>,
                            __destination_layout<Descriptor, Scope>>
  get_destination_cooperative_tensor() const;
  template <typename LeftOperandType, typename RightOperandType,
            typename DestinationOperandType>
  void run(thread LeftOperandType &left, thread RightOperandType &right,
           thread DestinationOperandType &destination) const;
};
}  // namespace tensor_ops
}  // namespace mpp
"""
"""The stand-in ``<MetalPerformancePrimitives/MetalPerformancePrimitives.h>``: ``matmul2d``,
its descriptor and its destination cooperative tensor, with the descriptor rule checked
(docs/design/metal.md)."""

MPP_INCLUDES = ("metal_tensor", "MetalPerformancePrimitives/MetalPerformancePrimitives.h")
"""What a kernel using MPP includes after ``<metal_stdlib>``."""

INCLUDES = {"metal_stdlib": HEADER, "metal_tensor": TENSOR_HEADER,
            "MetalPerformancePrimitives/MetalPerformancePrimitives.h": MPP_HEADER}
"""Every stand-in header, by the name the emitted source includes."""
