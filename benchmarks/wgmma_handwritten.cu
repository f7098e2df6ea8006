// Hand-written reference for tilec's wgmma lowering (not part of the compiler).
//
// The same structure as the kernel tilec lowers for lib.matmul with a 128x128xBK bf16 tile
// and the wgmma realization: a cp.async ring of W versions filled one iteration ahead, two
// warpgroups of m64n128k16, both operands read from shared memory through descriptors, one
// wgmma.wait per K step. Variants: no swizzle (the core-matrix "interleave" layout) against
// the 128-byte swizzle, and a deferred wait (one wgmma group in flight). It checks 64 sampled
// outputs against a float64 dot product and prints the best of 5 x 20 launches (cudaEvent).
//
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o wgmma_handwritten \
//       benchmarks/wgmma_handwritten.cu && for i in 0 1 2 3 4 5 6 7 8; do ./wgmma_handwritten $i; done
//
// On the H200 (2026-11-30), 4096^3: no swizzle 0.894-0.953 ms; 128-byte swizzle
// 128x128x64 with 4 versions 0.294 ms, deferred wait 0.260 ms, 3 versions (two blocks per
// SM) 0.242 ms; the variants with the two descriptor strides of B swapped compute wrong
// results (64 of 64 samples), which is how the N-major stride order was established.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cmath>
#include <vector>
__device__ __forceinline__ uint64_t desc(uint32_t a, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((a >> 4) & 0x3FFF) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}
__device__ __forceinline__ void cp16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
}
template <int BN> struct WG;
template <> struct WG<128> {
  static __device__ __forceinline__ void mma(float* d, uint64_t da, uint64_t db) {
#define R(i) "+f"(d[i])
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63},"
      " %64, %65, p, 1, 1, 0, 1;\n}"
      : R(0),R(1),R(2),R(3),R(4),R(5),R(6),R(7),R(8),R(9),R(10),R(11),R(12),R(13),R(14),R(15),R(16),R(17),R(18),R(19),R(20),R(21),R(22),R(23),R(24),R(25),R(26),R(27),R(28),R(29),R(30),R(31),
        R(32),R(33),R(34),R(35),R(36),R(37),R(38),R(39),R(40),R(41),R(42),R(43),R(44),R(45),R(46),R(47),R(48),R(49),R(50),R(51),R(52),R(53),R(54),R(55),R(56),R(57),R(58),R(59),R(60),R(61),R(62),R(63)
      : "l"(da), "l"(db), "r"(1));
  }
};
template <int BN, int BK, int W, int PAD, int SW, int DEFER, int BSWAP>
__global__ void __launch_bounds__(256) gemm(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int BM = 128, KC = BK / 8, NC = BN / 8;
  constexpr int CM = 128 + PAD;               // bytes between adjacent core matrices (contiguous dir)
  constexpr int A_BYTES = (BM / 8) * KC * 128, B_BYTES = (BK / 8) * NC * CM;
  // A: core (mi, ki) at (mi*KC + ki)*128  -> LBO (K) = 128, SBO (M) = KC*128
  // B: core (ki, ni) at ki*NC*CM + ni*CM  -> LBO (K) = NC*CM, SBO (N) = CM
  extern __shared__ __align__(128) unsigned char smem[];
  uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem) + 1023) & ~1023u;
  int t = threadIdx.x, wg = t / 128;
  int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  int KT = K / BK;
  auto issue = [&](int kt, int slot) {
    uint32_t sa = base + slot * (A_BYTES + B_BYTES), sb = sa + A_BYTES;
    #pragma unroll
    for (int i = 0; i < BM * KC / 256; ++i) {
      int c = t + i * 256, row = c / KC, kc = c % KC;
      uint32_t off = SW ? row * 128 + ((kc ^ (row % 8)) * 16) : ((row / 8) * KC + kc) * 128 + (row % 8) * 16;
      cp16(sa + off, A + (size_t)(m0 + row) * K + kt * BK + kc * 8);
    }
    #pragma unroll
    for (int i = 0; i < BK * NC / 256; ++i) {
      int c = t + i * 256, k = c / NC, nc = c % NC;
      uint32_t off = SW ? (nc / 8) * (BK * 128) + k * 128 + (((nc % 8) ^ (k % 8)) * 16) : (k / 8) * NC * CM + nc * CM + (k % 8) * 16;
      cp16(sb + off, B + (size_t)(kt * BK + k) * N + n0 + nc * 8);
    }
  };
  #pragma unroll
  for (int p = 0; p < W - 1 - DEFER; ++p) { if (p < KT) issue(p, p); asm volatile("cp.async.commit_group;" ::: "memory"); }
  float d[BN / 2];
  #pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
  constexpr int AH = W - 1 - DEFER;  // prefetch distance
  for (int j = 0; j < KT; ++j) {
    asm volatile("cp.async.wait_group %0;" :: "n"(AH - 1) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (j + AH < KT) issue(j + AH, (j + AH) % W);
    asm volatile("cp.async.commit_group;" ::: "memory");
    uint32_t sa = base + (j % W) * (A_BYTES + B_BYTES), sb = sa + A_BYTES;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      uint64_t da, db;
      if (SW) {
        da = desc(sa + wg * 64 * 128 + ks * 32, 16, 1024) | (1ull << 62);
        db = (BSWAP ? desc(sb + ks * 2048, 1024, BK * 128) : desc(sb + ks * 2048, BK * 128, 1024)) | (1ull << 62);
      } else {
        da = desc(sa + wg * 8 * KC * 128 + ks * 256, 128, KC * 128);
        db = desc(sb + ks * 2 * NC * CM, NC * CM, CM);
      }
      WG<BN>::mma(d, da, db);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (DEFER) asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    else asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int warp = (t / 32) % 4, lane = t % 32;
  #pragma unroll
  for (int jn = 0; jn < BN / 8; ++jn) {
    int row = m0 + wg * 64 + warp * 16 + lane / 4, col = n0 + jn * 8 + (lane % 4) * 2;
    *(float2*)&C[(size_t)row * N + col] = make_float2(d[jn * 4], d[jn * 4 + 1]);
    *(float2*)&C[(size_t)(row + 8) * N + col] = make_float2(d[jn * 4 + 2], d[jn * 4 + 3]);
  }
}
template <int BN, int BK, int W, int PAD, int SW, int DEFER, int BSWAP>
void run(const char* name, __nv_bfloat16* A, __nv_bfloat16* B, float* C, int S, const std::vector<float>& ha, const std::vector<float>& hb) {
  constexpr int smem = 1024 + W * ((128 / 8) * (BK / 8) * 128 + (BK / 8) * (BN / 8) * (128 + PAD));
  auto k = gemm<BN, BK, W, PAD, SW, DEFER, BSWAP>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  dim3 grid(S / BN, S / 128);
  cudaMemset(C, 0xff, (size_t)S * S * 4);
  k<<<grid, 256, smem>>>(A, B, C, S, S, S);
  cudaError_t e = cudaDeviceSynchronize();
  if (e) { printf("%s: %s\n", name, cudaGetErrorString(e)); exit(1); }
  std::vector<float> hc((size_t)S * S);
  cudaMemcpy(hc.data(), C, hc.size() * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int s = 0; s < 64; ++s) { int i = (s * 977) % S, j = (s * 613 + 5) % S; double r = 0;
    for (int kk = 0; kk < S; ++kk) r += (double)ha[(size_t)i * S + kk] * hb[(size_t)kk * S + j];
    double x = hc[(size_t)i * S + j]; if (!(fabs(x - r) <= 1e-3 * (1 + fabs(r)))) bad++; }
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) k<<<grid, 256, smem>>>(A, B, C, S, S, S);
  float best = 1e9;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); for (int i = 0; i < 20; ++i) k<<<grid, 256, smem>>>(A, B, C, S, S, S);
    cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ms /= 20; if (ms < best) best = ms; }
  int regs; cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k); regs = fa.numRegs;
  printf("%-28s smem %6d regs %3d: %.4f ms  %.0f TFLOP/s  bad %d/64\n", name, smem, regs, best, 2.0 * S * S * S / best / 1e9, bad);
}
int main(int argc, char** argv) {
  int S = 4096;
  std::vector<float> ha((size_t)S * S), hb((size_t)S * S);
  std::vector<__nv_bfloat16> ba(ha.size()), bb(hb.size());
  srand(3);
  for (size_t i = 0; i < ha.size(); ++i) { ha[i] = __bfloat162float(__float2bfloat16((rand() % 2001 - 1000) / 1000.f)); ba[i] = __float2bfloat16(ha[i]); }
  for (size_t i = 0; i < hb.size(); ++i) { hb[i] = __bfloat162float(__float2bfloat16((rand() % 2001 - 1000) / 1000.f)); bb[i] = __float2bfloat16(hb[i]); }
  __nv_bfloat16 *A, *B; float* C;
  cudaMalloc(&A, ha.size() * 2); cudaMalloc(&B, hb.size() * 2); cudaMalloc(&C, (size_t)S * S * 4);
  cudaMemcpy(A, ba.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(B, bb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  int which = atoi(argv[1]);
  switch (which) {
  case 0: run<128, 32, 4, 0, 0, 0, 0>("nosw 128x128x32 W4", A, B, C, S, ha, hb); break;
  case 1: run<128, 32, 4, 0, 0, 1, 0>("nosw 128x128x32 W4 defer", A, B, C, S, ha, hb); break;
  case 2: run<128, 64, 4, 0, 1, 0, 0>("sw128 128x128x64 W4", A, B, C, S, ha, hb); break;
  case 3: run<128, 64, 4, 0, 1, 0, 1>("sw128 128x128x64 W4 bswap", A, B, C, S, ha, hb); break;
  case 4: run<128, 64, 4, 0, 1, 1, 0>("sw128 128x128x64 W4 defer", A, B, C, S, ha, hb); break;
  case 5: run<128, 64, 4, 0, 1, 1, 1>("sw128 128x128x64 W4 defer bswap", A, B, C, S, ha, hb); break;
  case 6: run<128, 64, 3, 0, 1, 0, 0>("sw128 128x128x64 W3", A, B, C, S, ha, hb); break;
  case 7: run<128, 64, 3, 0, 1, 0, 1>("sw128 128x128x64 W3 bswap", A, B, C, S, ha, hb); break;
  case 8: run<128, 64, 4, 0, 0, 1, 0>("nosw 128x128x64 W4 defer", A, B, C, S, ha, hb); break;
  }
}
