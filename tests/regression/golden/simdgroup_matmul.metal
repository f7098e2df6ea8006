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
    float v28[4];
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
    /* tilec: view#29 at matmul.py:33:9 */
    /* tilec: store#30 at matmul.py:33:9 */
    {
      const int a33 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
      if ((((a33) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q34 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a33);
        q34->e[0] = v28[0];
        q34->e[1] = v28[1];
        q34->e[2] = v28[2];
        q34->e[3] = v28[3];
      }
      else {
        v21_stage_0_ring[a33] = v28[0];
        v21_stage_0_ring[a33 + 1] = v28[1];
        v21_stage_0_ring[a33 + 2] = v28[2];
        v21_stage_0_ring[a33 + 3] = v28[3];
      }
    }
    /* tilec: arith#31 at matmul.py:34:34 */
    /* tilec: arith#32 at matmul.py:35:33 */
    const int64_t v35 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#33 at matmul.py:35:17 */
    /* tilec: view#34 at matmul.py:33:9 */
    /* tilec: view#35 at matmul.py:33:9 */
    /* tilec: load#36 at matmul.py:33:9 */
    float v36[4];
    {
      const int64_t a37 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + (v35 + (v24_tid * 4 & 31));
      const int c38 = (v24_tid * 4 >> 5);
      const int lim39 = tc_sat32(v4_B_1 - v35);
      const int c40 = (v24_tid * 4 & 31);
      if (c38 < v3_B_0_i32 && c40 + 3 < lim39 && (tc_al_v9_B && (((a37) & 3) == 0))) {
        device const tc_vec16<float> *const q41 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a37);
        v36[0] = q41->e[0];
        v36[1] = q41->e[1];
        v36[2] = q41->e[2];
        v36[3] = q41->e[3];
      }
      else {
        if (c38 < v3_B_0_i32 && c40 < lim39) v36[0] = v9_B[a37]; else v36[0] = 0.0e+00f;
        if (c38 < v3_B_0_i32 && c40 + 1 < lim39) v36[1] = v9_B[a37 + 1]; else v36[1] = 0.0e+00f;
        if (c38 < v3_B_0_i32 && c40 + 2 < lim39) v36[2] = v9_B[a37 + 2]; else v36[2] = 0.0e+00f;
        if (c38 < v3_B_0_i32 && c40 + 3 < lim39) v36[3] = v9_B[a37 + 3]; else v36[3] = 0.0e+00f;
      }
    }
    /* tilec: view#37 at matmul.py:33:9 */
    /* tilec: store#38 at matmul.py:33:9 */
    {
      const int a42 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
      if ((((a42) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q43 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a42);
        q43->e[0] = v36[0];
        q43->e[1] = v36[1];
        q43->e[2] = v36[2];
        q43->e[3] = v36[3];
      }
      else {
        v22_stage_1_ring[a42] = v36[0];
        v22_stage_1_ring[a42 + 1] = v36[1];
        v22_stage_1_ring[a42 + 2] = v36[2];
        v22_stage_1_ring[a42 + 3] = v36[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#39 at matmul.py:33:9 */
  float v44[8];
  #pragma unroll
  for (int e = 0; e < 8; ++e) v44[e] = 0.0e+00f;
  int64_t m45 = INT64_C(0);
  for (int64_t v46 = INT64_C(0); v46 < v25; v46 += INT64_C(1)) {
    /* tilec: atom.call#40 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#41 at matmul.py:33:9 */
    /* tilec: arith#42 at matmul.py:33:9 */
    /* tilec: arith#43 at matmul.py:33:9 */
    const int64_t v47 = ((int64_t)(v46 + (int64_t)1));
    /* tilec: arith#44 at matmul.py:33:9 */
    const uint8_t v48 = (uint8_t)(m45 == 0);
    /* tilec: arith#45 at matmul.py:33:9 */
    const int64_t v49 = ((int64_t)(m45 - (int64_t)1));
    /* tilec: arith#46 at matmul.py:33:9 */
    const int64_t v50 = (v48 ? 1 : v49);
    /* tilec: arith#47 at matmul.py:33:9 */
    const uint8_t v51 = (uint8_t)(v47 < v25);
    /* tilec: if#48 at matmul.py:33:9 */
    if (v51) {
      /* tilec: arith#49 at matmul.py:34:25 */
      const int v52 = ((int)(v19_pm * 32));
      /* tilec: arith#50 at matmul.py:34:34 */
      const int64_t v53 = ((int64_t)(v47 * (int64_t)16));
      /* tilec: view#51 at matmul.py:34:17 */
      /* tilec: view#52 at matmul.py:33:9 */
      /* tilec: view#53 at matmul.py:33:9 */
      /* tilec: load#54 at matmul.py:33:9 */
      float v54[4];
      {
        const int64_t a55 = (int64_t)(v52 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v53 + (v24_tid * 4 & 15));
        const int c56 = (v52 + (v24_tid * 4 >> 4));
        const int64_t c57 = (v53 + (v24_tid * 4 & 15));
        if (c56 < v1_A_0_i32 && c57 >= 0 && c57 + 3 < v2_A_1 && (tc_al_v7_A && (((a55) & 3) == 0))) {
          device const tc_vec16<float> *const q58 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a55);
          v54[0] = q58->e[0];
          v54[1] = q58->e[1];
          v54[2] = q58->e[2];
          v54[3] = q58->e[3];
        }
        else {
          if (c56 < v1_A_0_i32 && c57 >= 0 && c57 < v2_A_1) v54[0] = v7_A[a55]; else v54[0] = 0.0e+00f;
          if (c56 < v1_A_0_i32 && c57 + 1 >= 0 && c57 + 1 < v2_A_1) v54[1] = v7_A[a55 + 1]; else v54[1] = 0.0e+00f;
          if (c56 < v1_A_0_i32 && c57 + 2 >= 0 && c57 + 2 < v2_A_1) v54[2] = v7_A[a55 + 2]; else v54[2] = 0.0e+00f;
          if (c56 < v1_A_0_i32 && c57 + 3 >= 0 && c57 + 3 < v2_A_1) v54[3] = v7_A[a55 + 3]; else v54[3] = 0.0e+00f;
        }
      }
      /* tilec: view#55 at matmul.py:33:9 */
      /* tilec: store#56 at matmul.py:33:9 */
      {
        const int64_t a59 = (int64_t)v50 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
        if ((((a59) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q60 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a59);
          q60->e[0] = v54[0];
          q60->e[1] = v54[1];
          q60->e[2] = v54[2];
          q60->e[3] = v54[3];
        }
        else {
          v21_stage_0_ring[a59] = v54[0];
          v21_stage_0_ring[a59 + 1] = v54[1];
          v21_stage_0_ring[a59 + 2] = v54[2];
          v21_stage_0_ring[a59 + 3] = v54[3];
        }
      }
      /* tilec: arith#57 at matmul.py:34:34 */
      const int64_t v61 = ((int64_t)(v47 * (int64_t)16));
      /* tilec: arith#58 at matmul.py:35:33 */
      const int64_t v62 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#59 at matmul.py:35:17 */
      /* tilec: view#60 at matmul.py:33:9 */
      /* tilec: view#61 at matmul.py:33:9 */
      /* tilec: load#62 at matmul.py:33:9 */
      float v63[4];
      {
        const int64_t a64 = (int64_t)(v61 + (v24_tid * 4 >> 5)) * v9_B_s10 + (v62 + (v24_tid * 4 & 31));
        const int64_t c65 = (v61 + (v24_tid * 4 >> 5));
        const int lim66 = tc_sat32(v4_B_1 - v62);
        const int c67 = (v24_tid * 4 & 31);
        if (c65 >= 0 && c65 < v3_B_0 && c67 + 3 < lim66 && (tc_al_v9_B && (((a64) & 3) == 0))) {
          device const tc_vec16<float> *const q68 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a64);
          v63[0] = q68->e[0];
          v63[1] = q68->e[1];
          v63[2] = q68->e[2];
          v63[3] = q68->e[3];
        }
        else {
          if (c65 >= 0 && c65 < v3_B_0 && c67 < lim66) v63[0] = v9_B[a64]; else v63[0] = 0.0e+00f;
          if (c65 >= 0 && c65 < v3_B_0 && c67 + 1 < lim66) v63[1] = v9_B[a64 + 1]; else v63[1] = 0.0e+00f;
          if (c65 >= 0 && c65 < v3_B_0 && c67 + 2 < lim66) v63[2] = v9_B[a64 + 2]; else v63[2] = 0.0e+00f;
          if (c65 >= 0 && c65 < v3_B_0 && c67 + 3 < lim66) v63[3] = v9_B[a64 + 3]; else v63[3] = 0.0e+00f;
        }
      }
      /* tilec: view#63 at matmul.py:33:9 */
      /* tilec: store#64 at matmul.py:33:9 */
      {
        const int64_t a69 = (int64_t)v50 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
        if ((((a69) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q70 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a69);
          q70->e[0] = v63[0];
          q70->e[1] = v63[1];
          q70->e[2] = v63[2];
          q70->e[3] = v63[3];
        }
        else {
          v22_stage_1_ring[a69] = v63[0];
          v22_stage_1_ring[a69 + 1] = v63[1];
          v22_stage_1_ring[a69 + 2] = v63[2];
          v22_stage_1_ring[a69 + 3] = v63[3];
        }
      }
    }
    else {
    }
    /* tilec: view#65 at matmul.py:33:9 */
    /* tilec: view#66 at matmul.py:33:9 */
    /* tilec: arith#67 at matmul.py:34:25 */
    const int v71 = ((int)(v19_pm * 32));
    /* tilec: arith#68 at matmul.py:34:34 */
    const int64_t v72 = ((int64_t)(v46 * (int64_t)16));
    /* tilec: arith#69 at matmul.py:35:33 */
    const int64_t v73 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#70 at matmul.py:36:19 */
    /* tilec: view#71 at matmul.py:36:19 */
    /* tilec: store#72 at matmul.py:36:19 */
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = v44[0];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v44[1];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v44[2];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v44[3];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 288] = v44[4];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 289] = v44[5];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 290] = v44[6];
    }
    {
      v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 291] = v44[7];
    }
    /* tilec: atom.call#73 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#74 at matmul.py:36:19 */
    /* tilec: atom.call#75 at matmul.py:36:19 */
    simdgroup_float8x8 v74;
    simdgroup_load(v74, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
    /* tilec: view#76 at matmul.py:36:19 */
    /* tilec: atom.call#77 at matmul.py:36:19 */
    simdgroup_float8x8 v75;
    simdgroup_load(v75, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
    /* tilec: view#78 at matmul.py:36:19 */
    /* tilec: atom.call#79 at matmul.py:36:19 */
    simdgroup_float8x8 v76;
    simdgroup_load(v76, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
    /* tilec: view#80 at matmul.py:36:19 */
    /* tilec: atom.call#81 at matmul.py:36:19 */
    simdgroup_float8x8 v77;
    simdgroup_load(v77, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
    /* tilec: view#82 at matmul.py:36:19 */
    /* tilec: atom.call#83 at matmul.py:36:19 */
    simdgroup_float8x8 v78;
    simdgroup_load(v78, v21_stage_0_ring + (int64_t)m45 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20, (ulong)20);
    /* tilec: view#84 at matmul.py:36:19 */
    /* tilec: atom.call#85 at matmul.py:36:19 */
    simdgroup_float8x8 v79;
    simdgroup_load(v79, v21_stage_0_ring + (int64_t)m45 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 160, (ulong)20);
    /* tilec: view#86 at matmul.py:36:19 */
    /* tilec: atom.call#87 at matmul.py:36:19 */
    simdgroup_float8x8 v80;
    simdgroup_load(v80, v22_stage_1_ring + (int64_t)m45 * 576 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
    /* tilec: view#88 at matmul.py:36:19 */
    /* tilec: atom.call#89 at matmul.py:36:19 */
    simdgroup_float8x8 v81;
    simdgroup_load(v81, v22_stage_1_ring + (int64_t)m45 * 576 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
    /* tilec: atom.call#90 at matmul.py:36:19 */
    simdgroup_float8x8 v82;
    simdgroup_multiply_accumulate(v82, v78, v80, v74);
    /* tilec: atom.call#91 at matmul.py:36:19 */
    simdgroup_float8x8 v83;
    simdgroup_multiply_accumulate(v83, v78, v81, v75);
    /* tilec: atom.call#92 at matmul.py:36:19 */
    simdgroup_float8x8 v84;
    simdgroup_multiply_accumulate(v84, v79, v80, v76);
    /* tilec: atom.call#93 at matmul.py:36:19 */
    simdgroup_float8x8 v85;
    simdgroup_multiply_accumulate(v85, v79, v81, v77);
    /* tilec: view#94 at matmul.py:36:19 */
    /* tilec: atom.call#95 at matmul.py:36:19 */
    simdgroup_float8x8 v86;
    simdgroup_load(v86, v21_stage_0_ring + (int64_t)m45 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 8, (ulong)20);
    /* tilec: view#96 at matmul.py:36:19 */
    /* tilec: atom.call#97 at matmul.py:36:19 */
    simdgroup_float8x8 v87;
    simdgroup_load(v87, v21_stage_0_ring + (int64_t)m45 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 168, (ulong)20);
    /* tilec: view#98 at matmul.py:36:19 */
    /* tilec: atom.call#99 at matmul.py:36:19 */
    simdgroup_float8x8 v88;
    simdgroup_load(v88, v22_stage_1_ring + (int64_t)m45 * 576 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
    /* tilec: view#100 at matmul.py:36:19 */
    /* tilec: atom.call#101 at matmul.py:36:19 */
    simdgroup_float8x8 v89;
    simdgroup_load(v89, v22_stage_1_ring + (int64_t)m45 * 576 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
    /* tilec: atom.call#102 at matmul.py:36:19 */
    simdgroup_float8x8 v90;
    simdgroup_multiply_accumulate(v90, v86, v88, v82);
    /* tilec: atom.call#103 at matmul.py:36:19 */
    simdgroup_float8x8 v91;
    simdgroup_multiply_accumulate(v91, v86, v89, v83);
    /* tilec: atom.call#104 at matmul.py:36:19 */
    simdgroup_float8x8 v92;
    simdgroup_multiply_accumulate(v92, v87, v88, v84);
    /* tilec: atom.call#105 at matmul.py:36:19 */
    simdgroup_float8x8 v93;
    simdgroup_multiply_accumulate(v93, v87, v89, v85);
    /* tilec: atom.call#106 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#107 at matmul.py:36:19 */
    /* tilec: atom.call#108 at matmul.py:36:19 */
    simdgroup_store(v90, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
    /* tilec: view#109 at matmul.py:36:19 */
    /* tilec: atom.call#110 at matmul.py:36:19 */
    simdgroup_store(v91, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
    /* tilec: view#111 at matmul.py:36:19 */
    /* tilec: atom.call#112 at matmul.py:36:19 */
    simdgroup_store(v92, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
    /* tilec: view#113 at matmul.py:36:19 */
    /* tilec: atom.call#114 at matmul.py:36:19 */
    simdgroup_store(v93, v23_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
    /* tilec: atom.call#115 at matmul.py:36:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#116 at matmul.py:36:19 */
    /* tilec: load#117 at matmul.py:36:19 */
    float v94[8];
    {
      v94[0] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)];
    }
    {
      v94[1] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1];
    }
    {
      v94[2] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2];
    }
    {
      v94[3] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3];
    }
    {
      v94[4] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 288];
    }
    {
      v94[5] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 289];
    }
    {
      v94[6] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 290];
    }
    {
      v94[7] = v23_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 291];
    }
    /* tilec: arith#118 at matmul.py:33:9 */
    const int64_t v95 = ((int64_t)(m45 + (int64_t)1));
    /* tilec: constant#119 at matmul.py:33:9 */
    /* tilec: arith#120 at matmul.py:33:9 */
    const uint8_t v96 = (uint8_t)(v95 == 2);
    /* tilec: arith#121 at matmul.py:33:9 */
    const int64_t v97 = (v96 ? 0 : v95);
    /* tilec: atom.call#122 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int64_t y98 = v97;
    #pragma unroll
    for (int e = 0; e < 8; ++e) v44[e] = v94[e];
    m45 = y98;
  }
  /* tilec: arith#123 at matmul.py:37:17 */
  const int v99 = ((int)(v19_pm * 32));
  /* tilec: arith#124 at matmul.py:37:26 */
  const int64_t v100 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#125 at matmul.py:37:9 */
  /* tilec: view#126 at matmul.py:37:9 */
  /* tilec: store#127 at matmul.py:37:9 */
  {
    const int c101 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c102 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c101 < v5_C_0_i32 && c102 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = v44[0];
  }
  {
    const int c103 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c104 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c103 < v5_C_0_i32 && c104 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v44[1];
  }
  {
    const int c105 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c106 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c105 < v5_C_0_i32 && c106 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v44[2];
  }
  {
    const int c107 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c108 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c107 < v5_C_0_i32 && c108 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v44[3];
  }
  {
    const int c109 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c110 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c109 < v5_C_0_i32 && c110 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = v44[4];
  }
  {
    const int c111 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c112 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c111 < v5_C_0_i32 && c112 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v44[5];
  }
  {
    const int c113 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c114 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c113 < v5_C_0_i32 && c114 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v44[6];
  }
  {
    const int c115 = (v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c116 = (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c115 < v5_C_0_i32 && c116 < v6_C_1) v11_C[(int64_t)(v99 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v100 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v44[7];
  }
}
