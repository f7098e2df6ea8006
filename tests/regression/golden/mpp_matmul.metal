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
  threadgroup float *const v21_C_staging = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 4608 bytes */
  /* tilec: memory#11 at matmul.py:31:5 */
  threadgroup float *const v22_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 4608);  /* 5120 bytes */
  /* tilec: memory#12 at matmul.py:31:5 */
  threadgroup float *const v23_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 9728);  /* 4608 bytes */
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
  /* tilec: view#21 at matmul.py:33:9 */
  /* tilec: view#22 at matmul.py:33:9 */
  /* tilec: store#23 at matmul.py:33:9 */
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 288] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 289] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 290] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 291] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 576] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 577] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 578] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 579] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 864] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 865] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 866] = 0.0e+00f;
  }
  {
    v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 867] = 0.0e+00f;
  }
  /* tilec: atom.call#24 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#25 at matmul.py:33:9 */
  /* tilec: atom.call#26 at matmul.py:33:9 */
  /* the cooperative destination, resident until mpp.dest.store */
  constexpr auto tc_desc27 = mpp::tensor_ops::matmul2d_descriptor(32, 16, 16, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);
  mpp::tensor_ops::matmul2d<tc_desc27, execution_simdgroup> tc_op27;
  auto v26 = tc_op27.get_destination_cooperative_tensor<tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>, tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>, float>();
  for (uint16_t i = 0; i < v26.get_capacity(); ++i) {
    if (!v26.is_valid_element(i)) continue;
    auto at = v26.get_multidimensional_index(i);
    v26[i] = (v21_C_staging + (v24_tid >> 5) * 16)[at[1] * 36 + at[0]];
  }
  /* tilec: arith#27 at matmul.py:33:9 */
  const uint8_t v28 = (uint8_t)(0 < v25);
  /* tilec: if#28 at matmul.py:33:9 */
  if (v28) {
    /* tilec: arith#29 at matmul.py:34:25 */
    const int v29 = ((int)(v19_pm * 32));
    /* tilec: arith#30 at matmul.py:34:34 */
    /* tilec: view#31 at matmul.py:34:17 */
    /* tilec: view#32 at matmul.py:33:9 */
    /* tilec: view#33 at matmul.py:33:9 */
    /* tilec: load#34 at matmul.py:33:9 */
    float v30[8];
    {
      const int64_t a31 = (int64_t)(v29 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v24_tid * 4 & 15);
      const int c32 = (v29 + (v24_tid * 4 >> 4));
      const int c33 = (v24_tid * 4 & 15);
      if (c32 < v1_A_0_i32 && c33 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a31) & 3) == 0))) {
        device const tc_vec16<float> *const q34 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a31);
        v30[0] = q34->e[0];
        v30[1] = q34->e[1];
        v30[2] = q34->e[2];
        v30[3] = q34->e[3];
      }
      else {
        if (c32 < v1_A_0_i32 && c33 < v2_A_1_i32) v30[0] = v7_A[a31]; else v30[0] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 1 < v2_A_1_i32) v30[1] = v7_A[a31 + 1]; else v30[1] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 2 < v2_A_1_i32) v30[2] = v7_A[a31 + 2]; else v30[2] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 3 < v2_A_1_i32) v30[3] = v7_A[a31 + 3]; else v30[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a35 = (int64_t)(v29 + (v24_tid * 4 >> 4)) * v7_A_s8 + v7_A_s8 * 16 + (v24_tid * 4 & 15);
      const int c36 = (v29 + (v24_tid * 4 >> 4) + 16);
      const int c37 = (v24_tid * 4 & 15);
      if (c36 < v1_A_0_i32 && c37 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a35) & 3) == 0))) {
        device const tc_vec16<float> *const q38 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a35);
        v30[4] = q38->e[0];
        v30[5] = q38->e[1];
        v30[6] = q38->e[2];
        v30[7] = q38->e[3];
      }
      else {
        if (c36 < v1_A_0_i32 && c37 < v2_A_1_i32) v30[4] = v7_A[a35]; else v30[4] = 0.0e+00f;
        if (c36 < v1_A_0_i32 && c37 + 1 < v2_A_1_i32) v30[5] = v7_A[a35 + 1]; else v30[5] = 0.0e+00f;
        if (c36 < v1_A_0_i32 && c37 + 2 < v2_A_1_i32) v30[6] = v7_A[a35 + 2]; else v30[6] = 0.0e+00f;
        if (c36 < v1_A_0_i32 && c37 + 3 < v2_A_1_i32) v30[7] = v7_A[a35 + 3]; else v30[7] = 0.0e+00f;
      }
    }
    /* tilec: view#35 at matmul.py:33:9 */
    /* tilec: store#36 at matmul.py:33:9 */
    {
      const int a39 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
      if ((((a39) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q40 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a39);
        q40->e[0] = v30[0];
        q40->e[1] = v30[1];
        q40->e[2] = v30[2];
        q40->e[3] = v30[3];
      }
      else {
        v22_stage_0_ring[a39] = v30[0];
        v22_stage_0_ring[a39 + 1] = v30[1];
        v22_stage_0_ring[a39 + 2] = v30[2];
        v22_stage_0_ring[a39 + 3] = v30[3];
      }
    }
    {
      const int a41 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15) + 320;
      if ((((a41) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q42 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a41);
        q42->e[0] = v30[4];
        q42->e[1] = v30[5];
        q42->e[2] = v30[6];
        q42->e[3] = v30[7];
      }
      else {
        v22_stage_0_ring[a41] = v30[4];
        v22_stage_0_ring[a41 + 1] = v30[5];
        v22_stage_0_ring[a41 + 2] = v30[6];
        v22_stage_0_ring[a41 + 3] = v30[7];
      }
    }
    /* tilec: arith#37 at matmul.py:34:34 */
    /* tilec: arith#38 at matmul.py:35:33 */
    const int64_t v43 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#39 at matmul.py:35:17 */
    /* tilec: view#40 at matmul.py:33:9 */
    /* tilec: view#41 at matmul.py:33:9 */
    /* tilec: load#42 at matmul.py:33:9 */
    float v44[8];
    {
      const int64_t a45 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + (v43 + (v24_tid * 4 & 31));
      const int c46 = (v24_tid * 4 >> 5);
      const int lim47 = tc_sat32(v4_B_1 - v43);
      const int c48 = (v24_tid * 4 & 31);
      if (c46 < v3_B_0_i32 && c48 + 3 < lim47 && (tc_al_v9_B && (((a45) & 3) == 0))) {
        device const tc_vec16<float> *const q49 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a45);
        v44[0] = q49->e[0];
        v44[1] = q49->e[1];
        v44[2] = q49->e[2];
        v44[3] = q49->e[3];
      }
      else {
        if (c46 < v3_B_0_i32 && c48 < lim47) v44[0] = v9_B[a45]; else v44[0] = 0.0e+00f;
        if (c46 < v3_B_0_i32 && c48 + 1 < lim47) v44[1] = v9_B[a45 + 1]; else v44[1] = 0.0e+00f;
        if (c46 < v3_B_0_i32 && c48 + 2 < lim47) v44[2] = v9_B[a45 + 2]; else v44[2] = 0.0e+00f;
        if (c46 < v3_B_0_i32 && c48 + 3 < lim47) v44[3] = v9_B[a45 + 3]; else v44[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a50 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + v9_B_s10 * 8 + (v43 + (v24_tid * 4 & 31));
      const int c51 = ((v24_tid * 4 >> 5) + 8);
      const int lim52 = tc_sat32(v4_B_1 - v43);
      const int c53 = (v24_tid * 4 & 31);
      if (c51 < v3_B_0_i32 && c53 + 3 < lim52 && (tc_al_v9_B && (((a50) & 3) == 0))) {
        device const tc_vec16<float> *const q54 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a50);
        v44[4] = q54->e[0];
        v44[5] = q54->e[1];
        v44[6] = q54->e[2];
        v44[7] = q54->e[3];
      }
      else {
        if (c51 < v3_B_0_i32 && c53 < lim52) v44[4] = v9_B[a50]; else v44[4] = 0.0e+00f;
        if (c51 < v3_B_0_i32 && c53 + 1 < lim52) v44[5] = v9_B[a50 + 1]; else v44[5] = 0.0e+00f;
        if (c51 < v3_B_0_i32 && c53 + 2 < lim52) v44[6] = v9_B[a50 + 2]; else v44[6] = 0.0e+00f;
        if (c51 < v3_B_0_i32 && c53 + 3 < lim52) v44[7] = v9_B[a50 + 3]; else v44[7] = 0.0e+00f;
      }
    }
    /* tilec: view#43 at matmul.py:33:9 */
    /* tilec: store#44 at matmul.py:33:9 */
    {
      const int a55 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
      if ((((a55) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q56 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a55);
        q56->e[0] = v44[0];
        q56->e[1] = v44[1];
        q56->e[2] = v44[2];
        q56->e[3] = v44[3];
      }
      else {
        v23_stage_1_ring[a55] = v44[0];
        v23_stage_1_ring[a55 + 1] = v44[1];
        v23_stage_1_ring[a55 + 2] = v44[2];
        v23_stage_1_ring[a55 + 3] = v44[3];
      }
    }
    {
      const int a57 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31) + 288;
      if ((((a57) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q58 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a57);
        q58->e[0] = v44[4];
        q58->e[1] = v44[5];
        q58->e[2] = v44[6];
        q58->e[3] = v44[7];
      }
      else {
        v23_stage_1_ring[a57] = v44[4];
        v23_stage_1_ring[a57 + 1] = v44[5];
        v23_stage_1_ring[a57 + 2] = v44[6];
        v23_stage_1_ring[a57 + 3] = v44[7];
      }
    }
  }
  else {
  }
  /* tilec: serial#45 at matmul.py:33:9 */
  auto dest59 = v26;
  int m60 = 0;
  for (int64_t v61 = INT64_C(0); v61 < v25; v61 += INT64_C(1)) {
    /* tilec: atom.call#46 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#47 at matmul.py:33:9 */
    /* tilec: arith#48 at matmul.py:33:9 */
    /* tilec: arith#49 at matmul.py:33:9 */
    const int64_t v62 = ((int64_t)(v61 + (int64_t)1));
    /* tilec: arith#50 at matmul.py:33:9 */
    const uint8_t v63 = (uint8_t)(m60 == 0);
    /* tilec: arith#51 at matmul.py:33:9 */
    const int v64 = ((int)(m60 - 1));
    /* tilec: arith#52 at matmul.py:33:9 */
    const int v65 = (v63 ? 1 : v64);
    /* tilec: arith#53 at matmul.py:33:9 */
    const uint8_t v66 = (uint8_t)(v62 < v25);
    /* tilec: if#54 at matmul.py:33:9 */
    if (v66) {
      /* tilec: arith#55 at matmul.py:34:25 */
      const int v67 = ((int)(v19_pm * 32));
      /* tilec: arith#56 at matmul.py:34:34 */
      const int64_t v68 = ((int64_t)(v62 * (int64_t)16));
      /* tilec: view#57 at matmul.py:34:17 */
      /* tilec: view#58 at matmul.py:33:9 */
      /* tilec: view#59 at matmul.py:33:9 */
      /* tilec: load#60 at matmul.py:33:9 */
      float v69[8];
      {
        const int64_t a70 = (int64_t)(v67 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v68 + (v24_tid * 4 & 15));
        const int c71 = (v67 + (v24_tid * 4 >> 4));
        const int64_t c72 = (v68 + (v24_tid * 4 & 15));
        if (c71 < v1_A_0_i32 && c72 >= 0 && c72 + 3 < v2_A_1 && (tc_al_v7_A && (((a70) & 3) == 0))) {
          device const tc_vec16<float> *const q73 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a70);
          v69[0] = q73->e[0];
          v69[1] = q73->e[1];
          v69[2] = q73->e[2];
          v69[3] = q73->e[3];
        }
        else {
          if (c71 < v1_A_0_i32 && c72 >= 0 && c72 < v2_A_1) v69[0] = v7_A[a70]; else v69[0] = 0.0e+00f;
          if (c71 < v1_A_0_i32 && c72 + 1 >= 0 && c72 + 1 < v2_A_1) v69[1] = v7_A[a70 + 1]; else v69[1] = 0.0e+00f;
          if (c71 < v1_A_0_i32 && c72 + 2 >= 0 && c72 + 2 < v2_A_1) v69[2] = v7_A[a70 + 2]; else v69[2] = 0.0e+00f;
          if (c71 < v1_A_0_i32 && c72 + 3 >= 0 && c72 + 3 < v2_A_1) v69[3] = v7_A[a70 + 3]; else v69[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a74 = (int64_t)(v67 + (v24_tid * 4 >> 4)) * v7_A_s8 + v7_A_s8 * 16 + (v68 + (v24_tid * 4 & 15));
        const int c75 = (v67 + (v24_tid * 4 >> 4) + 16);
        const int64_t c76 = (v68 + (v24_tid * 4 & 15));
        if (c75 < v1_A_0_i32 && c76 >= 0 && c76 + 3 < v2_A_1 && (tc_al_v7_A && (((a74) & 3) == 0))) {
          device const tc_vec16<float> *const q77 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a74);
          v69[4] = q77->e[0];
          v69[5] = q77->e[1];
          v69[6] = q77->e[2];
          v69[7] = q77->e[3];
        }
        else {
          if (c75 < v1_A_0_i32 && c76 >= 0 && c76 < v2_A_1) v69[4] = v7_A[a74]; else v69[4] = 0.0e+00f;
          if (c75 < v1_A_0_i32 && c76 + 1 >= 0 && c76 + 1 < v2_A_1) v69[5] = v7_A[a74 + 1]; else v69[5] = 0.0e+00f;
          if (c75 < v1_A_0_i32 && c76 + 2 >= 0 && c76 + 2 < v2_A_1) v69[6] = v7_A[a74 + 2]; else v69[6] = 0.0e+00f;
          if (c75 < v1_A_0_i32 && c76 + 3 >= 0 && c76 + 3 < v2_A_1) v69[7] = v7_A[a74 + 3]; else v69[7] = 0.0e+00f;
        }
      }
      /* tilec: view#61 at matmul.py:33:9 */
      /* tilec: store#62 at matmul.py:33:9 */
      {
        const int a78 = v65 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
        if ((((a78) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q79 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a78);
          q79->e[0] = v69[0];
          q79->e[1] = v69[1];
          q79->e[2] = v69[2];
          q79->e[3] = v69[3];
        }
        else {
          v22_stage_0_ring[a78] = v69[0];
          v22_stage_0_ring[a78 + 1] = v69[1];
          v22_stage_0_ring[a78 + 2] = v69[2];
          v22_stage_0_ring[a78 + 3] = v69[3];
        }
      }
      {
        const int a80 = v65 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15) + 320;
        if ((((a80) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q81 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a80);
          q81->e[0] = v69[4];
          q81->e[1] = v69[5];
          q81->e[2] = v69[6];
          q81->e[3] = v69[7];
        }
        else {
          v22_stage_0_ring[a80] = v69[4];
          v22_stage_0_ring[a80 + 1] = v69[5];
          v22_stage_0_ring[a80 + 2] = v69[6];
          v22_stage_0_ring[a80 + 3] = v69[7];
        }
      }
      /* tilec: arith#63 at matmul.py:34:34 */
      const int64_t v82 = ((int64_t)(v62 * (int64_t)16));
      /* tilec: arith#64 at matmul.py:35:33 */
      const int64_t v83 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#65 at matmul.py:35:17 */
      /* tilec: view#66 at matmul.py:33:9 */
      /* tilec: view#67 at matmul.py:33:9 */
      /* tilec: load#68 at matmul.py:33:9 */
      float v84[8];
      {
        const int64_t a85 = (int64_t)(v82 + (v24_tid * 4 >> 5)) * v9_B_s10 + (v83 + (v24_tid * 4 & 31));
        const int64_t c86 = (v82 + (v24_tid * 4 >> 5));
        const int lim87 = tc_sat32(v4_B_1 - v83);
        const int c88 = (v24_tid * 4 & 31);
        if (c86 >= 0 && c86 < v3_B_0 && c88 + 3 < lim87 && (tc_al_v9_B && (((a85) & 3) == 0))) {
          device const tc_vec16<float> *const q89 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a85);
          v84[0] = q89->e[0];
          v84[1] = q89->e[1];
          v84[2] = q89->e[2];
          v84[3] = q89->e[3];
        }
        else {
          if (c86 >= 0 && c86 < v3_B_0 && c88 < lim87) v84[0] = v9_B[a85]; else v84[0] = 0.0e+00f;
          if (c86 >= 0 && c86 < v3_B_0 && c88 + 1 < lim87) v84[1] = v9_B[a85 + 1]; else v84[1] = 0.0e+00f;
          if (c86 >= 0 && c86 < v3_B_0 && c88 + 2 < lim87) v84[2] = v9_B[a85 + 2]; else v84[2] = 0.0e+00f;
          if (c86 >= 0 && c86 < v3_B_0 && c88 + 3 < lim87) v84[3] = v9_B[a85 + 3]; else v84[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a90 = (int64_t)(v82 + (v24_tid * 4 >> 5)) * v9_B_s10 + v9_B_s10 * 8 + (v83 + (v24_tid * 4 & 31));
        const int64_t c91 = (v82 + (v24_tid * 4 >> 5) + 8);
        const int lim92 = tc_sat32(v4_B_1 - v83);
        const int c93 = (v24_tid * 4 & 31);
        if (c91 >= 0 && c91 < v3_B_0 && c93 + 3 < lim92 && (tc_al_v9_B && (((a90) & 3) == 0))) {
          device const tc_vec16<float> *const q94 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a90);
          v84[4] = q94->e[0];
          v84[5] = q94->e[1];
          v84[6] = q94->e[2];
          v84[7] = q94->e[3];
        }
        else {
          if (c91 >= 0 && c91 < v3_B_0 && c93 < lim92) v84[4] = v9_B[a90]; else v84[4] = 0.0e+00f;
          if (c91 >= 0 && c91 < v3_B_0 && c93 + 1 < lim92) v84[5] = v9_B[a90 + 1]; else v84[5] = 0.0e+00f;
          if (c91 >= 0 && c91 < v3_B_0 && c93 + 2 < lim92) v84[6] = v9_B[a90 + 2]; else v84[6] = 0.0e+00f;
          if (c91 >= 0 && c91 < v3_B_0 && c93 + 3 < lim92) v84[7] = v9_B[a90 + 3]; else v84[7] = 0.0e+00f;
        }
      }
      /* tilec: view#69 at matmul.py:33:9 */
      /* tilec: store#70 at matmul.py:33:9 */
      {
        const int a95 = v65 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
        if ((((a95) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q96 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a95);
          q96->e[0] = v84[0];
          q96->e[1] = v84[1];
          q96->e[2] = v84[2];
          q96->e[3] = v84[3];
        }
        else {
          v23_stage_1_ring[a95] = v84[0];
          v23_stage_1_ring[a95 + 1] = v84[1];
          v23_stage_1_ring[a95 + 2] = v84[2];
          v23_stage_1_ring[a95 + 3] = v84[3];
        }
      }
      {
        const int a97 = v65 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31) + 288;
        if ((((a97) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q98 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a97);
          q98->e[0] = v84[4];
          q98->e[1] = v84[5];
          q98->e[2] = v84[6];
          q98->e[3] = v84[7];
        }
        else {
          v23_stage_1_ring[a97] = v84[4];
          v23_stage_1_ring[a97 + 1] = v84[5];
          v23_stage_1_ring[a97 + 2] = v84[6];
          v23_stage_1_ring[a97 + 3] = v84[7];
        }
      }
    }
    else {
    }
    /* tilec: view#71 at matmul.py:33:9 */
    /* tilec: view#72 at matmul.py:33:9 */
    /* tilec: arith#73 at matmul.py:34:25 */
    const int v99 = ((int)(v19_pm * 32));
    /* tilec: arith#74 at matmul.py:34:34 */
    const int64_t v100 = ((int64_t)(v61 * (int64_t)16));
    /* tilec: arith#75 at matmul.py:35:33 */
    const int64_t v101 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#76 at matmul.py:36:19 */
    /* tilec: view#77 at matmul.py:36:19 */
    /* tilec: atom.call#78 at matmul.py:36:19 */
    {
      constexpr auto tc_desc102 = mpp::tensor_ops::matmul2d_descriptor(32, 16, 16, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);
      mpp::tensor_ops::matmul2d<tc_desc102, execution_simdgroup> tc_op102;
      auto tc_ta103 = tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>(v22_stage_0_ring + m60 * 640, dextents<int32_t, 2>(16, 32), array<int32_t, 2>{1, 20});
      auto tc_tb103 = tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>(v23_stage_1_ring + m60 * 576 + (v24_tid >> 5) * 16, dextents<int32_t, 2>(16, 16), array<int32_t, 2>{1, 36});
      tc_op102.run(tc_ta103, tc_tb103, dest59);
    }
    /* tilec: arith#79 at matmul.py:33:9 */
    const int v104 = ((int)(m60 + 1));
    /* tilec: constant#80 at matmul.py:33:9 */
    /* tilec: arith#81 at matmul.py:33:9 */
    const uint8_t v105 = (uint8_t)(v104 == 2);
    /* tilec: arith#82 at matmul.py:33:9 */
    const int v106 = (v105 ? 0 : v104);
    const int y107 = v106;
    m60 = y107;
  }
  /* tilec: view#83 at matmul.py:33:9 */
  /* tilec: atom.call#84 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#85 at matmul.py:33:9 */
  /* tilec: atom.call#86 at matmul.py:33:9 */
  for (uint16_t i = 0; i < dest59.get_capacity(); ++i) {
    if (!dest59.is_valid_element(i)) continue;
    auto at = dest59.get_multidimensional_index(i);
    (v21_C_staging + (v24_tid >> 5) * 16)[at[1] * 36 + at[0]] = dest59[i];
  }
  /* tilec: atom.call#87 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#88 at matmul.py:33:9 */
  /* tilec: load#89 at matmul.py:33:9 */
  float v108[16];
  {
    v108[0] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)];
  }
  {
    v108[1] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1];
  }
  {
    v108[2] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2];
  }
  {
    v108[3] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3];
  }
  {
    v108[4] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 288];
  }
  {
    v108[5] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 289];
  }
  {
    v108[6] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 290];
  }
  {
    v108[7] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 291];
  }
  {
    v108[8] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 576];
  }
  {
    v108[9] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 577];
  }
  {
    v108[10] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 578];
  }
  {
    v108[11] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 579];
  }
  {
    v108[12] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 864];
  }
  {
    v108[13] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 865];
  }
  {
    v108[14] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 866];
  }
  {
    v108[15] = v21_C_staging[((v24_tid & 31) >> 2) * 36 + ((v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 867];
  }
  /* tilec: arith#90 at matmul.py:37:17 */
  const int v109 = ((int)(v19_pm * 32));
  /* tilec: arith#91 at matmul.py:37:26 */
  const int64_t v110 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#92 at matmul.py:37:9 */
  /* tilec: view#93 at matmul.py:37:9 */
  /* tilec: store#94 at matmul.py:37:9 */
  {
    const int c111 = (v109 + ((v24_tid & 31) >> 2));
    const int64_t c112 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c111 < v5_C_0_i32 && c112 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v108[0];
  }
  {
    const int c113 = (v109 + ((v24_tid & 31) >> 2));
    const int64_t c114 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c113 < v5_C_0_i32 && c114 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v108[1];
  }
  {
    const int c115 = (v109 + ((v24_tid & 31) >> 2));
    const int64_t c116 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c115 < v5_C_0_i32 && c116 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v108[2];
  }
  {
    const int c117 = (v109 + ((v24_tid & 31) >> 2));
    const int64_t c118 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c117 < v5_C_0_i32 && c118 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v108[3];
  }
  {
    const int c119 = (v109 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c120 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c119 < v5_C_0_i32 && c120 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v108[4];
  }
  {
    const int c121 = (v109 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c122 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c121 < v5_C_0_i32 && c122 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v108[5];
  }
  {
    const int c123 = (v109 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c124 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c123 < v5_C_0_i32 && c124 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v108[6];
  }
  {
    const int c125 = (v109 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c126 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c125 < v5_C_0_i32 && c126 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v108[7];
  }
  {
    const int c127 = (v109 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c128 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c127 < v5_C_0_i32 && c128 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v108[8];
  }
  {
    const int c129 = (v109 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c130 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c129 < v5_C_0_i32 && c130 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v108[9];
  }
  {
    const int c131 = (v109 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c132 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c131 < v5_C_0_i32 && c132 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v108[10];
  }
  {
    const int c133 = (v109 + ((v24_tid & 31) >> 2) + 16);
    const int64_t c134 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c133 < v5_C_0_i32 && c134 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v108[11];
  }
  {
    const int c135 = (v109 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c136 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c135 < v5_C_0_i32 && c136 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4)] = v108[12];
  }
  {
    const int c137 = (v109 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c138 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c137 < v5_C_0_i32 && c138 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v108[13];
  }
  {
    const int c139 = (v109 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c140 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c139 < v5_C_0_i32 && c140 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v108[14];
  }
  {
    const int c141 = (v109 + ((v24_tid & 31) >> 2) + 24);
    const int64_t c142 = (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c141 < v5_C_0_i32 && c142 < v6_C_1) v11_C[(int64_t)(v109 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v110 + (v24_tid >> 5) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v108[15];
  }
}
