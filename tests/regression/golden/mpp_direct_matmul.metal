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
  threadgroup uint4 tc_smem4[288];  /* 4608 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_A_s8 = v2_A_1;
  const bool tc_al_v7_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v9_B_s10 = v4_B_1;
  const bool tc_al_v9_B = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v11_C_s12 = v6_C_1;
  const bool tc_al_v11_C = ((tc_aligned >> 2) & 1u) != 0u;
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
  /* tilec: parallel#11 at matmul.py:31:5 */
  const int v22_tid = (int)tc_lane;
  /* tilec: constant#12 at matmul.py:31:31 */
  /* tilec: constant#13 at matmul.py:31:5 */
  /* tilec: constant#14 at matmul.py:32:15 */
  /* tilec: constant#15 at matmul.py:33:28 */
  /* tilec: arith#16 at matmul.py:33:28 */
  const int64_t v23 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 16)));
  /* tilec: constant#17 at matmul.py:33:9 */
  /* tilec: constant#18 at matmul.py:33:9 */
  /* tilec: serial#19 at matmul.py:33:9 */
  float v24[16];
  #pragma unroll
  for (int e = 0; e < 16; ++e) v24[e] = 0.0e+00f;
  for (int64_t v25 = INT64_C(0); v25 < v23; v25 += INT64_C(1)) {
    /* tilec: arith#20 at matmul.py:34:25 */
    const int v26 = ((int)(v19_pm * 32));
    /* tilec: arith#21 at matmul.py:34:34 */
    const int64_t v27 = ((int64_t)(v25 * (int64_t)16));
    /* tilec: view#22 at matmul.py:34:17 */
    /* tilec: arith#23 at matmul.py:35:33 */
    const int64_t v28 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#24 at matmul.py:35:17 */
    /* tilec: view#25 at matmul.py:36:19 */
    /* tilec: view#26 at matmul.py:36:19 */
    /* tilec: store#27 at matmul.py:36:19 */
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)] = v24[0];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1] = v24[1];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2] = v24[2];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3] = v24[3];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 288] = v24[4];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 289] = v24[5];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 290] = v24[6];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 291] = v24[7];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 576] = v24[8];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 577] = v24[9];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 578] = v24[10];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 579] = v24[11];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 864] = v24[12];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 865] = v24[13];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 866] = v24[14];
    }
    {
      v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 867] = v24[15];
    }
    /* tilec: atom.call#28 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: atom.call#29 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#30 at matmul.py:36:19 */
    /* tilec: view#31 at matmul.py:36:19 */
    /* tilec: view#32 at matmul.py:36:19 */
    /* tilec: atom.call#33 at matmul.py:36:19 */
    {
      const int64_t tc_oa30 = v26;
      const int64_t tc_oa31 = v27;
      const int tc_ea32 = (int)max((int64_t)0, (int64_t)(min((int64_t)(32), (int64_t)(v1_A_0 - tc_oa30))));
      const int tc_ea33 = (int)max((int64_t)0, (int64_t)(min((int64_t)(16), (int64_t)(v2_A_1 - tc_oa31))));
      const int64_t tc_ob34 = v27;
      const int64_t tc_ob35 = (v28 + (v22_tid >> 5) * 16);
      const int tc_eb36 = (int)max((int64_t)0, (int64_t)(min((int64_t)(16), (int64_t)(v3_B_0 - tc_ob34))));
      const int tc_eb37 = (int)max((int64_t)0, (int64_t)(min((int64_t)(16), (int64_t)(v4_B_1 - tc_ob35))));
      constexpr auto tc_desc29 = mpp::tensor_ops::matmul2d_descriptor(32, 16, 16, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);
      mpp::tensor_ops::matmul2d<tc_desc29, execution_simdgroup> tc_op29;
      auto tc_ct29 = tc_op29.get_destination_cooperative_tensor<tensor<device const float, dextents<int32_t, 2>, tensor_inline>, tensor<device const float, dextents<int32_t, 2>, tensor_inline>, float>();
      for (uint16_t i = 0; i < tc_ct29.get_capacity(); ++i) {
        if (!tc_ct29.is_valid_element(i)) continue;
        auto at = tc_ct29.get_multidimensional_index(i);
        tc_ct29[i] = (v21_C_staging + (v22_tid >> 5) * 16)[at[1] * 36 + at[0]];
      }
      if (tc_oa30 >= 0 && tc_oa30 < v1_A_0 && tc_oa31 >= 0 && tc_oa31 < v2_A_1 && tc_ob34 >= 0 && tc_ob34 < v3_B_0 && tc_ob35 >= 0 && tc_ob35 < v4_B_1 && tc_ea32 > 0 && tc_ea33 > 0 && tc_eb37 > 0 && tc_ea33 == tc_eb36) {
        auto tc_ta29 = tensor<device const float, dextents<int32_t, 2>, tensor_inline>(v7_A + (int64_t)v26 * v7_A_s8 + v27, dextents<int32_t, 2>(tc_ea33, tc_ea32), array<int32_t, 2>{1, (int32_t)(v7_A_s8)});
        auto tc_tb29 = tensor<device const float, dextents<int32_t, 2>, tensor_inline>(v9_B + (int64_t)v27 * v9_B_s10 + (v28 + (v22_tid >> 5) * 16), dextents<int32_t, 2>(tc_eb37, tc_eb36), array<int32_t, 2>{1, (int32_t)(v9_B_s10)});
        tc_op29.run(tc_ta29, tc_tb29, tc_ct29);
      } else {
        /* an empty or uneven rectangle: each lane sums its own elements over K (+0.0 outside the windows) */
        for (uint16_t i = 0; i < tc_ct29.get_capacity(); ++i) {
          if (!tc_ct29.is_valid_element(i)) continue;
          auto at = tc_ct29.get_multidimensional_index(i);
          for (int kk = 0; kk < 16; ++kk) { const float p = (((tc_oa30 + at[1]) >= 0 && (tc_oa30 + at[1]) < v1_A_0 && (tc_oa31 + kk) >= 0 && (tc_oa31 + kk) < v2_A_1) ? v7_A[(int64_t)v26 * v7_A_s8 + v27 + (int64_t)at[1] * v7_A_s8 + (int64_t)kk * 1] : 0.0f) * (((tc_ob34 + kk) >= 0 && (tc_ob34 + kk) < v3_B_0 && (tc_ob35 + at[0]) >= 0 && (tc_ob35 + at[0]) < v4_B_1) ? v9_B[(int64_t)v27 * v9_B_s10 + (v28 + (v22_tid >> 5) * 16) + (int64_t)kk * v9_B_s10 + (int64_t)at[0] * 1] : 0.0f); tc_ct29[i] = tc_ct29[i] + p; }
        }
      }
      for (uint16_t i = 0; i < tc_ct29.get_capacity(); ++i) {
        if (!tc_ct29.is_valid_element(i)) continue;
        auto at = tc_ct29.get_multidimensional_index(i);
        (v21_C_staging + (v22_tid >> 5) * 16)[at[1] * 36 + at[0]] = tc_ct29[i];
      }
    }
    /* tilec: atom.call#34 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#35 at matmul.py:36:19 */
    /* tilec: load#36 at matmul.py:36:19 */
    float v38[16];
    {
      v38[0] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)];
    }
    {
      v38[1] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1];
    }
    {
      v38[2] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2];
    }
    {
      v38[3] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3];
    }
    {
      v38[4] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 288];
    }
    {
      v38[5] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 289];
    }
    {
      v38[6] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 290];
    }
    {
      v38[7] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 291];
    }
    {
      v38[8] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 576];
    }
    {
      v38[9] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 577];
    }
    {
      v38[10] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 578];
    }
    {
      v38[11] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 579];
    }
    {
      v38[12] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 864];
    }
    {
      v38[13] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 865];
    }
    {
      v38[14] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 866];
    }
    {
      v38[15] = v21_C_staging[((v22_tid & 31) >> 2) * 36 + ((v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 867];
    }
    /* tilec: atom.call#37 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    #pragma unroll
    for (int e = 0; e < 16; ++e) v24[e] = v38[e];
  }
  /* tilec: arith#38 at matmul.py:37:17 */
  const int v39 = ((int)(v19_pm * 32));
  /* tilec: arith#39 at matmul.py:37:26 */
  const int64_t v40 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#40 at matmul.py:37:9 */
  /* tilec: view#41 at matmul.py:37:9 */
  /* tilec: store#42 at matmul.py:37:9 */
  {
    const int c41 = (v39 + ((v22_tid & 31) >> 2));
    const int64_t c42 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4);
    if (c41 < v5_C_0_i32 && c42 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)] = v24[0];
  }
  {
    const int c43 = (v39 + ((v22_tid & 31) >> 2));
    const int64_t c44 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 1);
    if (c43 < v5_C_0_i32 && c44 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1] = v24[1];
  }
  {
    const int c45 = (v39 + ((v22_tid & 31) >> 2));
    const int64_t c46 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 2);
    if (c45 < v5_C_0_i32 && c46 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2] = v24[2];
  }
  {
    const int c47 = (v39 + ((v22_tid & 31) >> 2));
    const int64_t c48 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 3);
    if (c47 < v5_C_0_i32 && c48 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3] = v24[3];
  }
  {
    const int c49 = (v39 + ((v22_tid & 31) >> 2) + 8);
    const int64_t c50 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4);
    if (c49 < v5_C_0_i32 && c50 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)] = v24[4];
  }
  {
    const int c51 = (v39 + ((v22_tid & 31) >> 2) + 8);
    const int64_t c52 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 1);
    if (c51 < v5_C_0_i32 && c52 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1] = v24[5];
  }
  {
    const int c53 = (v39 + ((v22_tid & 31) >> 2) + 8);
    const int64_t c54 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 2);
    if (c53 < v5_C_0_i32 && c54 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2] = v24[6];
  }
  {
    const int c55 = (v39 + ((v22_tid & 31) >> 2) + 8);
    const int64_t c56 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 3);
    if (c55 < v5_C_0_i32 && c56 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3] = v24[7];
  }
  {
    const int c57 = (v39 + ((v22_tid & 31) >> 2) + 16);
    const int64_t c58 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4);
    if (c57 < v5_C_0_i32 && c58 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)] = v24[8];
  }
  {
    const int c59 = (v39 + ((v22_tid & 31) >> 2) + 16);
    const int64_t c60 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 1);
    if (c59 < v5_C_0_i32 && c60 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1] = v24[9];
  }
  {
    const int c61 = (v39 + ((v22_tid & 31) >> 2) + 16);
    const int64_t c62 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 2);
    if (c61 < v5_C_0_i32 && c62 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2] = v24[10];
  }
  {
    const int c63 = (v39 + ((v22_tid & 31) >> 2) + 16);
    const int64_t c64 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 3);
    if (c63 < v5_C_0_i32 && c64 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 16 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3] = v24[11];
  }
  {
    const int c65 = (v39 + ((v22_tid & 31) >> 2) + 24);
    const int64_t c66 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4);
    if (c65 < v5_C_0_i32 && c66 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4)] = v24[12];
  }
  {
    const int c67 = (v39 + ((v22_tid & 31) >> 2) + 24);
    const int64_t c68 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 1);
    if (c67 < v5_C_0_i32 && c68 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 1] = v24[13];
  }
  {
    const int c69 = (v39 + ((v22_tid & 31) >> 2) + 24);
    const int64_t c70 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 2);
    if (c69 < v5_C_0_i32 && c70 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 2] = v24[14];
  }
  {
    const int c71 = (v39 + ((v22_tid & 31) >> 2) + 24);
    const int64_t c72 = (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4 + 3);
    if (c71 < v5_C_0_i32 && c72 < v6_C_1) v11_C[(int64_t)(v39 + ((v22_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 24 + (v40 + (v22_tid >> 5) * 16 + ((v22_tid & 31) & 3) * 4) + 3] = v24[15];
  }
}
