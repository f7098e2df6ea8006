#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
kernel void tilec_matmul(
    device const float *v7_A [[buffer(0)]],
    device const float *v9_B [[buffer(1)]],
    device float *v11_C [[buffer(2)]],
    constant int64_t &v1_A_0 [[buffer(3)]],
    constant int64_t &v2_A_1 [[buffer(4)]],
    constant int64_t &v3_B_0 [[buffer(5)]],
    constant int64_t &v4_B_1 [[buffer(6)]],
    constant int64_t &v5_C_0 [[buffer(7)]],
    constant int64_t &v6_C_1 [[buffer(8)]],
    constant uint &tc_aligned [[buffer(9)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[896];  /* 14336 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_A_s8 = v2_A_1;
  const bool tc_al_v7_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v9_B_s10 = v4_B_1;
  const bool tc_al_v9_B = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v11_C_s12 = v6_C_1;
  const bool tc_al_v11_C = ((tc_aligned >> 2) & 1u) != 0u;
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v2_A_1_i32 = (int)(v2_A_1 < INT64_C(2147483647) ? v2_A_1 : INT64_C(2147483647));
  const int v3_B_0_i32 = (int)(v3_B_0 < INT64_C(2147483647) ? v3_B_0 : INT64_C(2147483647));
  const int v5_C_0_i32 = (int)(v5_C_0 < INT64_C(2147483647) ? v5_C_0 : INT64_C(2147483647));
  /* tilec: arith#1 at matmul.py:29:12 */
  const uint8_t v13_ok = (uint8_t)(v3_B_0 == v2_A_1);
  /* tilec: arith#2 at matmul.py:30:12 */
  const uint8_t v14_ok = (uint8_t)(v5_C_0 == v1_A_0);
  /* tilec: arith#3 at matmul.py:30:32 */
  const uint8_t v15_ok = (uint8_t)(v6_C_1 == v4_B_1);
  /* tilec: arith#4 at matmul.py:30:12 */
  const uint8_t v16_ok = (v14_ok & v15_ok);
  /* tilec: constant#5 at matmul.py:31:31 */
  /* tilec: arith#6 at matmul.py:31:31 */
  const int64_t v17 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 32)));
  /* tilec: arith#7 at matmul.py:31:47 */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v4_B_1), 32)));
  /* tilec: parallel#8 at matmul.py:31:5 */
  const int v19_pm = (int)tc_group.y;
  const int v20_pn = (int)tc_group.x;
  /* tilec: constant#9 at matmul.py:31:5 */
  /* tilec: memory#10 at matmul.py:31:5 */
  threadgroup float *const v21_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 5120 bytes */
  /* tilec: memory#11 at matmul.py:31:5 */
  threadgroup float *const v22_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 5120);  /* 4608 bytes */
  /* tilec: memory#12 at matmul.py:31:5 */
  threadgroup float *const v23_C_staging = reinterpret_cast<threadgroup float *>(tc_smem + 9728);  /* 4608 bytes */
  /* tilec: parallel#13 at matmul.py:31:5 */
  const int v24_tid = (int)tc_lane;
  /* tilec: constant#14 at matmul.py:31:31 */
  /* tilec: constant#15 at matmul.py:31:5 */
  /* tilec: constant#16 at matmul.py:32:15 */
  /* tilec: constant#17 at matmul.py:33:28 */
  /* tilec: arith#18 at matmul.py:33:28 */
  const int64_t v25 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 16)));
  /* tilec: constant#19 at matmul.py:33:9 */
  /* tilec: constant#20 at matmul.py:33:9 */
  /* tilec: arith#21 at matmul.py:33:9 */
  const uint8_t v26 = (uint8_t)(0 < v25);
  /* tilec: if#22 at matmul.py:33:9 */
  if (v26) {
    /* tilec: arith#23 at matmul.py:34:25 */
    const int v27 = ((int)(v19_pm * 32));
    /* tilec: arith#24 at matmul.py:34:34 */
    /* tilec: view#25 at matmul.py:34:17 */
    /* tilec: view#26 at matmul.py:33:9 */
    /* tilec: view#27 at matmul.py:33:9 */
    /* tilec: load#28 at matmul.py:33:9 */
    float v28[8];
    {
      const int64_t a29 = (int64_t)(v27 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v24_tid * 4 & 15);
      const int c30 = (v27 + (v24_tid * 4 >> 4));
      const int c31 = (v24_tid * 4 & 15);
      if (c30 < v1_A_0_i32 && c31 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a29) & 3) == 0))) {
        device const tc_vec16<float> *const q32 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a29);
        v28[0] = q32->e[0];
        v28[1] = q32->e[1];
        v28[2] = q32->e[2];
        v28[3] = q32->e[3];
      }
      else {
        if (c30 < v1_A_0_i32 && c31 < v2_A_1_i32) v28[0] = v7_A[a29]; else v28[0] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c31 + 1 < v2_A_1_i32) v28[1] = v7_A[a29 + 1]; else v28[1] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c31 + 2 < v2_A_1_i32) v28[2] = v7_A[a29 + 2]; else v28[2] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c31 + 3 < v2_A_1_i32) v28[3] = v7_A[a29 + 3]; else v28[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a33 = (int64_t)(v27 + (v24_tid * 4 >> 4)) * v7_A_s8 + v7_A_s8 * 16 + (v24_tid * 4 & 15);
      const int c34 = (v27 + (v24_tid * 4 >> 4) + 16);
      const int c35 = (v24_tid * 4 & 15);
      if (c34 < v1_A_0_i32 && c35 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a33) & 3) == 0))) {
        device const tc_vec16<float> *const q36 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a33);
        v28[4] = q36->e[0];
        v28[5] = q36->e[1];
        v28[6] = q36->e[2];
        v28[7] = q36->e[3];
      }
      else {
        if (c34 < v1_A_0_i32 && c35 < v2_A_1_i32) v28[4] = v7_A[a33]; else v28[4] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 1 < v2_A_1_i32) v28[5] = v7_A[a33 + 1]; else v28[5] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 2 < v2_A_1_i32) v28[6] = v7_A[a33 + 2]; else v28[6] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 3 < v2_A_1_i32) v28[7] = v7_A[a33 + 3]; else v28[7] = 0.0e+00f;
      }
    }
    /* tilec: view#29 at matmul.py:33:9 */
    /* tilec: store#30 at matmul.py:33:9 */
    {
      const int a37 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
      if ((((a37) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q38 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a37);
        q38->e[0] = v28[0];
        q38->e[1] = v28[1];
        q38->e[2] = v28[2];
        q38->e[3] = v28[3];
      }
      else {
        v21_stage_0_ring[a37] = v28[0];
        v21_stage_0_ring[a37 + 1] = v28[1];
        v21_stage_0_ring[a37 + 2] = v28[2];
        v21_stage_0_ring[a37 + 3] = v28[3];
      }
    }
    {
      const int a39 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15) + 320;
      if ((((a39) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q40 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a39);
        q40->e[0] = v28[4];
        q40->e[1] = v28[5];
        q40->e[2] = v28[6];
        q40->e[3] = v28[7];
      }
      else {
        v21_stage_0_ring[a39] = v28[4];
        v21_stage_0_ring[a39 + 1] = v28[5];
        v21_stage_0_ring[a39 + 2] = v28[6];
        v21_stage_0_ring[a39 + 3] = v28[7];
      }
    }
    /* tilec: arith#31 at matmul.py:34:34 */
    /* tilec: arith#32 at matmul.py:35:33 */
    const int64_t v41 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#33 at matmul.py:35:17 */
    /* tilec: view#34 at matmul.py:33:9 */
    /* tilec: view#35 at matmul.py:33:9 */
    /* tilec: load#36 at matmul.py:33:9 */
    float v42[8];
    {
      const int64_t a43 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + (v41 + (v24_tid * 4 & 31));
      const int c44 = (v24_tid * 4 >> 5);
      const int lim45 = tc_sat32(v4_B_1 - v41);
      const int c46 = (v24_tid * 4 & 31);
      if (c44 < v3_B_0_i32 && c46 + 3 < lim45 && (tc_al_v9_B && (((a43) & 3) == 0))) {
        device const tc_vec16<float> *const q47 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a43);
        v42[0] = q47->e[0];
        v42[1] = q47->e[1];
        v42[2] = q47->e[2];
        v42[3] = q47->e[3];
      }
      else {
        if (c44 < v3_B_0_i32 && c46 < lim45) v42[0] = v9_B[a43]; else v42[0] = 0.0e+00f;
        if (c44 < v3_B_0_i32 && c46 + 1 < lim45) v42[1] = v9_B[a43 + 1]; else v42[1] = 0.0e+00f;
        if (c44 < v3_B_0_i32 && c46 + 2 < lim45) v42[2] = v9_B[a43 + 2]; else v42[2] = 0.0e+00f;
        if (c44 < v3_B_0_i32 && c46 + 3 < lim45) v42[3] = v9_B[a43 + 3]; else v42[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a48 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + v9_B_s10 * 8 + (v41 + (v24_tid * 4 & 31));
      const int c49 = ((v24_tid * 4 >> 5) + 8);
      const int lim50 = tc_sat32(v4_B_1 - v41);
      const int c51 = (v24_tid * 4 & 31);
      if (c49 < v3_B_0_i32 && c51 + 3 < lim50 && (tc_al_v9_B && (((a48) & 3) == 0))) {
        device const tc_vec16<float> *const q52 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a48);
        v42[4] = q52->e[0];
        v42[5] = q52->e[1];
        v42[6] = q52->e[2];
        v42[7] = q52->e[3];
      }
      else {
        if (c49 < v3_B_0_i32 && c51 < lim50) v42[4] = v9_B[a48]; else v42[4] = 0.0e+00f;
        if (c49 < v3_B_0_i32 && c51 + 1 < lim50) v42[5] = v9_B[a48 + 1]; else v42[5] = 0.0e+00f;
        if (c49 < v3_B_0_i32 && c51 + 2 < lim50) v42[6] = v9_B[a48 + 2]; else v42[6] = 0.0e+00f;
        if (c49 < v3_B_0_i32 && c51 + 3 < lim50) v42[7] = v9_B[a48 + 3]; else v42[7] = 0.0e+00f;
      }
    }
    /* tilec: view#37 at matmul.py:33:9 */
    /* tilec: store#38 at matmul.py:33:9 */
    {
      const int a53 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
      if ((((a53) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q54 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a53);
        q54->e[0] = v42[0];
        q54->e[1] = v42[1];
        q54->e[2] = v42[2];
        q54->e[3] = v42[3];
      }
      else {
        v22_stage_1_ring[a53] = v42[0];
        v22_stage_1_ring[a53 + 1] = v42[1];
        v22_stage_1_ring[a53 + 2] = v42[2];
        v22_stage_1_ring[a53 + 3] = v42[3];
      }
    }
    {
      const int a55 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31) + 288;
      if ((((a55) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q56 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a55);
        q56->e[0] = v42[4];
        q56->e[1] = v42[5];
        q56->e[2] = v42[6];
        q56->e[3] = v42[7];
      }
      else {
        v22_stage_1_ring[a55] = v42[4];
        v22_stage_1_ring[a55 + 1] = v42[5];
        v22_stage_1_ring[a55 + 2] = v42[6];
        v22_stage_1_ring[a55 + 3] = v42[7];
      }
    }
  }
  else {
  }
  /* tilec: serial#39 at matmul.py:33:9 */
  float v57[16];
  #pragma unroll
  for (int e = 0; e < 16; ++e) v57[e] = 0.0e+00f;
  int64_t m58 = INT64_C(0);
  for (int64_t v59 = INT64_C(0); v59 < v25; v59 += INT64_C(1)) {
    /* tilec: atom.call#40 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#41 at matmul.py:33:9 */
    /* tilec: arith#42 at matmul.py:33:9 */
    /* tilec: arith#43 at matmul.py:33:9 */
    const int64_t v60 = ((int64_t)(v59 + (int64_t)1));
    /* tilec: arith#44 at matmul.py:33:9 */
    const uint8_t v61 = (uint8_t)(m58 == 0);
    /* tilec: arith#45 at matmul.py:33:9 */
    const int64_t v62 = ((int64_t)(m58 - (int64_t)1));
    /* tilec: arith#46 at matmul.py:33:9 */
    const int64_t v63 = (v61 ? 1 : v62);
    /* tilec: arith#47 at matmul.py:33:9 */
    const uint8_t v64 = (uint8_t)(v60 < v25);
    /* tilec: if#48 at matmul.py:33:9 */
    if (v64) {
      /* tilec: arith#49 at matmul.py:34:25 */
      const int v65 = ((int)(v19_pm * 32));
      /* tilec: arith#50 at matmul.py:34:34 */
      const int64_t v66 = ((int64_t)(v60 * (int64_t)16));
      /* tilec: view#51 at matmul.py:34:17 */
      /* tilec: view#52 at matmul.py:33:9 */
      /* tilec: view#53 at matmul.py:33:9 */
      /* tilec: load#54 at matmul.py:33:9 */
      float v67[8];
      {
        const int64_t a68 = (int64_t)(v65 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v66 + (v24_tid * 4 & 15));
        const int c69 = (v65 + (v24_tid * 4 >> 4));
        const int64_t c70 = (v66 + (v24_tid * 4 & 15));
        if (c69 < v1_A_0_i32 && c70 >= 0 && c70 + 3 < v2_A_1 && (tc_al_v7_A && (((a68) & 3) == 0))) {
          device const tc_vec16<float> *const q71 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a68);
          v67[0] = q71->e[0];
          v67[1] = q71->e[1];
          v67[2] = q71->e[2];
          v67[3] = q71->e[3];
        }
        else {
          if (c69 < v1_A_0_i32 && c70 >= 0 && c70 < v2_A_1) v67[0] = v7_A[a68]; else v67[0] = 0.0e+00f;
          if (c69 < v1_A_0_i32 && c70 + 1 >= 0 && c70 + 1 < v2_A_1) v67[1] = v7_A[a68 + 1]; else v67[1] = 0.0e+00f;
          if (c69 < v1_A_0_i32 && c70 + 2 >= 0 && c70 + 2 < v2_A_1) v67[2] = v7_A[a68 + 2]; else v67[2] = 0.0e+00f;
          if (c69 < v1_A_0_i32 && c70 + 3 >= 0 && c70 + 3 < v2_A_1) v67[3] = v7_A[a68 + 3]; else v67[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a72 = (int64_t)(v65 + (v24_tid * 4 >> 4)) * v7_A_s8 + v7_A_s8 * 16 + (v66 + (v24_tid * 4 & 15));
        const int c73 = (v65 + (v24_tid * 4 >> 4) + 16);
        const int64_t c74 = (v66 + (v24_tid * 4 & 15));
        if (c73 < v1_A_0_i32 && c74 >= 0 && c74 + 3 < v2_A_1 && (tc_al_v7_A && (((a72) & 3) == 0))) {
          device const tc_vec16<float> *const q75 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a72);
          v67[4] = q75->e[0];
          v67[5] = q75->e[1];
          v67[6] = q75->e[2];
          v67[7] = q75->e[3];
        }
        else {
          if (c73 < v1_A_0_i32 && c74 >= 0 && c74 < v2_A_1) v67[4] = v7_A[a72]; else v67[4] = 0.0e+00f;
          if (c73 < v1_A_0_i32 && c74 + 1 >= 0 && c74 + 1 < v2_A_1) v67[5] = v7_A[a72 + 1]; else v67[5] = 0.0e+00f;
          if (c73 < v1_A_0_i32 && c74 + 2 >= 0 && c74 + 2 < v2_A_1) v67[6] = v7_A[a72 + 2]; else v67[6] = 0.0e+00f;
          if (c73 < v1_A_0_i32 && c74 + 3 >= 0 && c74 + 3 < v2_A_1) v67[7] = v7_A[a72 + 3]; else v67[7] = 0.0e+00f;
        }
      }
      /* tilec: view#55 at matmul.py:33:9 */
      /* tilec: store#56 at matmul.py:33:9 */
      {
        const int64_t a76 = (int64_t)v63 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
        if ((((a76) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q77 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a76);
          q77->e[0] = v67[0];
          q77->e[1] = v67[1];
          q77->e[2] = v67[2];
          q77->e[3] = v67[3];
        }
        else {
          v21_stage_0_ring[a76] = v67[0];
          v21_stage_0_ring[a76 + 1] = v67[1];
          v21_stage_0_ring[a76 + 2] = v67[2];
          v21_stage_0_ring[a76 + 3] = v67[3];
        }
      }
      {
        const int64_t a78 = (int64_t)v63 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15) + 320;
        if ((((a78) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q79 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a78);
          q79->e[0] = v67[4];
          q79->e[1] = v67[5];
          q79->e[2] = v67[6];
          q79->e[3] = v67[7];
        }
        else {
          v21_stage_0_ring[a78] = v67[4];
          v21_stage_0_ring[a78 + 1] = v67[5];
          v21_stage_0_ring[a78 + 2] = v67[6];
          v21_stage_0_ring[a78 + 3] = v67[7];
        }
      }
      /* tilec: arith#57 at matmul.py:34:34 */
      const int64_t v80 = ((int64_t)(v60 * (int64_t)16));
      /* tilec: arith#58 at matmul.py:35:33 */
      const int64_t v81 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#59 at matmul.py:35:17 */
      /* tilec: view#60 at matmul.py:33:9 */
      /* tilec: view#61 at matmul.py:33:9 */
      /* tilec: load#62 at matmul.py:33:9 */
      float v82[8];
      {
        const int64_t a83 = (int64_t)(v80 + (v24_tid * 4 >> 5)) * v9_B_s10 + (v81 + (v24_tid * 4 & 31));
        const int64_t c84 = (v80 + (v24_tid * 4 >> 5));
        const int lim85 = tc_sat32(v4_B_1 - v81);
        const int c86 = (v24_tid * 4 & 31);
        if (c84 >= 0 && c84 < v3_B_0 && c86 + 3 < lim85 && (tc_al_v9_B && (((a83) & 3) == 0))) {
          device const tc_vec16<float> *const q87 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a83);
          v82[0] = q87->e[0];
          v82[1] = q87->e[1];
          v82[2] = q87->e[2];
          v82[3] = q87->e[3];
        }
        else {
          if (c84 >= 0 && c84 < v3_B_0 && c86 < lim85) v82[0] = v9_B[a83]; else v82[0] = 0.0e+00f;
          if (c84 >= 0 && c84 < v3_B_0 && c86 + 1 < lim85) v82[1] = v9_B[a83 + 1]; else v82[1] = 0.0e+00f;
          if (c84 >= 0 && c84 < v3_B_0 && c86 + 2 < lim85) v82[2] = v9_B[a83 + 2]; else v82[2] = 0.0e+00f;
          if (c84 >= 0 && c84 < v3_B_0 && c86 + 3 < lim85) v82[3] = v9_B[a83 + 3]; else v82[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a88 = (int64_t)(v80 + (v24_tid * 4 >> 5)) * v9_B_s10 + v9_B_s10 * 8 + (v81 + (v24_tid * 4 & 31));
        const int64_t c89 = (v80 + (v24_tid * 4 >> 5) + 8);
        const int lim90 = tc_sat32(v4_B_1 - v81);
        const int c91 = (v24_tid * 4 & 31);
        if (c89 >= 0 && c89 < v3_B_0 && c91 + 3 < lim90 && (tc_al_v9_B && (((a88) & 3) == 0))) {
          device const tc_vec16<float> *const q92 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a88);
          v82[4] = q92->e[0];
          v82[5] = q92->e[1];
          v82[6] = q92->e[2];
          v82[7] = q92->e[3];
        }
        else {
          if (c89 >= 0 && c89 < v3_B_0 && c91 < lim90) v82[4] = v9_B[a88]; else v82[4] = 0.0e+00f;
          if (c89 >= 0 && c89 < v3_B_0 && c91 + 1 < lim90) v82[5] = v9_B[a88 + 1]; else v82[5] = 0.0e+00f;
          if (c89 >= 0 && c89 < v3_B_0 && c91 + 2 < lim90) v82[6] = v9_B[a88 + 2]; else v82[6] = 0.0e+00f;
          if (c89 >= 0 && c89 < v3_B_0 && c91 + 3 < lim90) v82[7] = v9_B[a88 + 3]; else v82[7] = 0.0e+00f;
        }
      }
      /* tilec: view#63 at matmul.py:33:9 */
      /* tilec: store#64 at matmul.py:33:9 */
      {
        const int64_t a93 = (int64_t)v63 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
        if ((((a93) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q94 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a93);
          q94->e[0] = v82[0];
          q94->e[1] = v82[1];
          q94->e[2] = v82[2];
          q94->e[3] = v82[3];
        }
        else {
          v22_stage_1_ring[a93] = v82[0];
          v22_stage_1_ring[a93 + 1] = v82[1];
          v22_stage_1_ring[a93 + 2] = v82[2];
          v22_stage_1_ring[a93 + 3] = v82[3];
        }
      }
      {
        const int64_t a95 = (int64_t)v63 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31) + 288;
        if ((((a95) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q96 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a95);
          q96->e[0] = v82[4];
          q96->e[1] = v82[5];
          q96->e[2] = v82[6];
          q96->e[3] = v82[7];
        }
        else {
          v22_stage_1_ring[a95] = v82[4];
          v22_stage_1_ring[a95 + 1] = v82[5];
          v22_stage_1_ring[a95 + 2] = v82[6];
          v22_stage_1_ring[a95 + 3] = v82[7];
        }
      }
    }
    else {
    }
    /* tilec: view#65 at matmul.py:33:9 */
    /* tilec: view#66 at matmul.py:33:9 */
    /* tilec: arith#67 at matmul.py:34:25 */
    const int v97 = ((int)(v19_pm * 32));
    /* tilec: arith#68 at matmul.py:34:34 */
    const int64_t v98 = ((int64_t)(v59 * (int64_t)16));
    /* tilec: arith#69 at matmul.py:35:33 */
    const int64_t v99 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#70 at matmul.py:36:19 */
    /* tilec: view#71 at matmul.py:36:19 */
    /* tilec: store#72 at matmul.py:36:19 */
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v57[0];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v57[1];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v57[2];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v57[3];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 288] = v57[4];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 289] = v57[5];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 290] = v57[6];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 291] = v57[7];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 576] = v57[8];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 577] = v57[9];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 578] = v57[10];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 579] = v57[11];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 864] = v57[12];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 865] = v57[13];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 866] = v57[14];
    }
    {
      v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 867] = v57[15];
    }
    /* tilec: atom.call#73 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: atom.call#74 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#75 at matmul.py:36:19 */
    /* tilec: view#76 at matmul.py:36:19 */
    /* tilec: view#77 at matmul.py:36:19 */
    /* tilec: atom.call#78 at matmul.py:36:19 */
    {
      constexpr auto tc_desc100 = mpp::tensor_ops::matmul2d_descriptor(32, 16, 16, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);
      mpp::tensor_ops::matmul2d<tc_desc100, execution_simdgroup> tc_op100;
      auto tc_ta100 = tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>(v21_stage_0_ring + (int64_t)m58 * 640, dextents<int32_t, 2>(16, 32), array<int32_t, 2>{1, 20});
      auto tc_tb100 = tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>(v22_stage_1_ring + (int64_t)m58 * 576 + (v24_tid >> 5) * 16, dextents<int32_t, 2>(16, 16), array<int32_t, 2>{1, 36});
      auto tc_ct100 = tc_op100.get_destination_cooperative_tensor<decltype(tc_ta100), decltype(tc_tb100), float>();
      for (uint16_t i = 0; i < tc_ct100.get_capacity(); ++i) {
        if (!tc_ct100.is_valid_element(i)) continue;
        auto at = tc_ct100.get_multidimensional_index(i);
        tc_ct100[i] = (v23_C_staging + (v24_tid >> 5) * 16)[at[1] * 36 + at[0]];
      }
      tc_op100.run(tc_ta100, tc_tb100, tc_ct100);
      for (uint16_t i = 0; i < tc_ct100.get_capacity(); ++i) {
        if (!tc_ct100.is_valid_element(i)) continue;
        auto at = tc_ct100.get_multidimensional_index(i);
        (v23_C_staging + (v24_tid >> 5) * 16)[at[1] * 36 + at[0]] = tc_ct100[i];
      }
    }
    /* tilec: atom.call#79 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#80 at matmul.py:36:19 */
    /* tilec: load#81 at matmul.py:36:19 */
    float v101[16];
    {
      v101[0] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)];
    }
    {
      v101[1] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1];
    }
    {
      v101[2] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2];
    }
    {
      v101[3] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3];
    }
    {
      v101[4] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 288];
    }
    {
      v101[5] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 289];
    }
    {
      v101[6] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 290];
    }
    {
      v101[7] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 291];
    }
    {
      v101[8] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 576];
    }
    {
      v101[9] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 577];
    }
    {
      v101[10] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 578];
    }
    {
      v101[11] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 579];
    }
    {
      v101[12] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 864];
    }
    {
      v101[13] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 865];
    }
    {
      v101[14] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 866];
    }
    {
      v101[15] = v23_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 867];
    }
    /* tilec: arith#82 at matmul.py:33:9 */
    const int64_t v102 = ((int64_t)(m58 + (int64_t)1));
    /* tilec: constant#83 at matmul.py:33:9 */
    /* tilec: arith#84 at matmul.py:33:9 */
    const uint8_t v103 = (uint8_t)(v102 == 2);
    /* tilec: arith#85 at matmul.py:33:9 */
    const int64_t v104 = (v103 ? 0 : v102);
    /* tilec: atom.call#86 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int64_t y105 = v104;
    #pragma unroll
    for (int e = 0; e < 16; ++e) v57[e] = v101[e];
    m58 = y105;
  }
  /* tilec: arith#87 at matmul.py:37:17 */
  const int v106 = ((int)(v19_pm * 32));
  /* tilec: arith#88 at matmul.py:37:26 */
  const int64_t v107 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#89 at matmul.py:37:9 */
  /* tilec: view#90 at matmul.py:37:9 */
  /* tilec: store#91 at matmul.py:37:9 */
  {
    const int c108 = (v106 + ((v24_tid & 31) >> 2));
    const int64_t c109 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c108 < v5_C_0_i32 && c109 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v57[0];
  }
  {
    const int c110 = (v106 + ((v24_tid & 31) >> 2));
    const int64_t c111 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c110 < v5_C_0_i32 && c111 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v57[1];
  }
  {
    const int c112 = (v106 + ((v24_tid & 31) >> 2));
    const int64_t c113 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c112 < v5_C_0_i32 && c113 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v57[2];
  }
  {
    const int c114 = (v106 + ((v24_tid & 31) >> 2));
    const int64_t c115 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c114 < v5_C_0_i32 && c115 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v57[3];
  }
  {
    const int c116 = (v106 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c117 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c116 < v5_C_0_i32 && c117 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v57[4];
  }
  {
    const int c118 = (v106 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c119 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c118 < v5_C_0_i32 && c119 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v57[5];
  }
  {
    const int c120 = (v106 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c121 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c120 < v5_C_0_i32 && c121 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v57[6];
  }
  {
    const int c122 = (v106 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c123 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c122 < v5_C_0_i32 && c123 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v57[7];
  }
  {
    const int c124 = (v106 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c125 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c124 < v5_C_0_i32 && c125 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v57[8];
  }
  {
    const int c126 = (v106 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c127 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c126 < v5_C_0_i32 && c127 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v57[9];
  }
  {
    const int c128 = (v106 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c129 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c128 < v5_C_0_i32 && c129 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v57[10];
  }
  {
    const int c130 = (v106 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c131 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c130 < v5_C_0_i32 && c131 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v57[11];
  }
  {
    const int c132 = (v106 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c133 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c132 < v5_C_0_i32 && c133 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v57[12];
  }
  {
    const int c134 = (v106 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c135 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c134 < v5_C_0_i32 && c135 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v57[13];
  }
  {
    const int c136 = (v106 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c137 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c136 < v5_C_0_i32 && c137 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v57[14];
  }
  {
    const int c138 = (v106 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c139 = (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c138 < v5_C_0_i32 && c139 < v6_C_1) v11_C[(int64_t)(v106 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v107 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v57[15];
  }
}
