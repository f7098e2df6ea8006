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
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 288] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 289] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 290] = 0.0e+00f;
  }
  {
    v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 291] = 0.0e+00f;
  }
  /* tilec: atom.call#24 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#25 at matmul.py:33:9 */
  /* tilec: atom.call#26 at matmul.py:33:9 */
  simdgroup_float8x8 v26;
  simdgroup_load(v26, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
  /* tilec: view#27 at matmul.py:33:9 */
  /* tilec: atom.call#28 at matmul.py:33:9 */
  simdgroup_float8x8 v27;
  simdgroup_load(v27, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
  /* tilec: view#29 at matmul.py:33:9 */
  /* tilec: atom.call#30 at matmul.py:33:9 */
  simdgroup_float8x8 v28;
  simdgroup_load(v28, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
  /* tilec: view#31 at matmul.py:33:9 */
  /* tilec: atom.call#32 at matmul.py:33:9 */
  simdgroup_float8x8 v29;
  simdgroup_load(v29, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
  /* tilec: arith#33 at matmul.py:33:9 */
  const uint8_t v30 = (uint8_t)(0 < v25);
  /* tilec: if#34 at matmul.py:33:9 */
  if (v30) {
    /* tilec: arith#35 at matmul.py:34:25 */
    const int v31 = ((int)(v19_pm * 32));
    /* tilec: arith#36 at matmul.py:34:34 */
    /* tilec: view#37 at matmul.py:34:17 */
    /* tilec: view#38 at matmul.py:33:9 */
    /* tilec: view#39 at matmul.py:33:9 */
    /* tilec: load#40 at matmul.py:33:9 */
    float v32[4];
    {
      const int64_t a33 = (int64_t)(v31 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v24_tid * 4 & 15);
      const int c34 = (v31 + (v24_tid * 4 >> 4));
      const int c35 = (v24_tid * 4 & 15);
      if (c34 < v1_A_0_i32 && c35 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a33) & 3) == 0))) {
        device const tc_vec16<float> *const q36 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a33);
        v32[0] = q36->e[0];
        v32[1] = q36->e[1];
        v32[2] = q36->e[2];
        v32[3] = q36->e[3];
      }
      else {
        if (c34 < v1_A_0_i32 && c35 < v2_A_1_i32) v32[0] = v7_A[a33]; else v32[0] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 1 < v2_A_1_i32) v32[1] = v7_A[a33 + 1]; else v32[1] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 2 < v2_A_1_i32) v32[2] = v7_A[a33 + 2]; else v32[2] = 0.0e+00f;
        if (c34 < v1_A_0_i32 && c35 + 3 < v2_A_1_i32) v32[3] = v7_A[a33 + 3]; else v32[3] = 0.0e+00f;
      }
    }
    /* tilec: view#41 at matmul.py:33:9 */
    /* tilec: store#42 at matmul.py:33:9 */
    {
      const int a37 = (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
      if ((((a37) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q38 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a37);
        q38->e[0] = v32[0];
        q38->e[1] = v32[1];
        q38->e[2] = v32[2];
        q38->e[3] = v32[3];
      }
      else {
        v22_stage_0_ring[a37] = v32[0];
        v22_stage_0_ring[a37 + 1] = v32[1];
        v22_stage_0_ring[a37 + 2] = v32[2];
        v22_stage_0_ring[a37 + 3] = v32[3];
      }
    }
    /* tilec: arith#43 at matmul.py:34:34 */
    /* tilec: arith#44 at matmul.py:35:33 */
    const int64_t v39 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#45 at matmul.py:35:17 */
    /* tilec: view#46 at matmul.py:33:9 */
    /* tilec: view#47 at matmul.py:33:9 */
    /* tilec: load#48 at matmul.py:33:9 */
    float v40[4];
    {
      const int64_t a41 = (int64_t)(v24_tid * 4 >> 5) * v9_B_s10 + (v39 + (v24_tid * 4 & 31));
      const int c42 = (v24_tid * 4 >> 5);
      const int lim43 = tc_sat32(v4_B_1 - v39);
      const int c44 = (v24_tid * 4 & 31);
      if (c42 < v3_B_0_i32 && c44 + 3 < lim43 && (tc_al_v9_B && (((a41) & 3) == 0))) {
        device const tc_vec16<float> *const q45 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a41);
        v40[0] = q45->e[0];
        v40[1] = q45->e[1];
        v40[2] = q45->e[2];
        v40[3] = q45->e[3];
      }
      else {
        if (c42 < v3_B_0_i32 && c44 < lim43) v40[0] = v9_B[a41]; else v40[0] = 0.0e+00f;
        if (c42 < v3_B_0_i32 && c44 + 1 < lim43) v40[1] = v9_B[a41 + 1]; else v40[1] = 0.0e+00f;
        if (c42 < v3_B_0_i32 && c44 + 2 < lim43) v40[2] = v9_B[a41 + 2]; else v40[2] = 0.0e+00f;
        if (c42 < v3_B_0_i32 && c44 + 3 < lim43) v40[3] = v9_B[a41 + 3]; else v40[3] = 0.0e+00f;
      }
    }
    /* tilec: view#49 at matmul.py:33:9 */
    /* tilec: store#50 at matmul.py:33:9 */
    {
      const int a46 = (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
      if ((((a46) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q47 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a46);
        q47->e[0] = v40[0];
        q47->e[1] = v40[1];
        q47->e[2] = v40[2];
        q47->e[3] = v40[3];
      }
      else {
        v23_stage_1_ring[a46] = v40[0];
        v23_stage_1_ring[a46 + 1] = v40[1];
        v23_stage_1_ring[a46 + 2] = v40[2];
        v23_stage_1_ring[a46 + 3] = v40[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#51 at matmul.py:33:9 */
  simdgroup_float8x8 frag48 = v26;
  simdgroup_float8x8 frag49 = v27;
  simdgroup_float8x8 frag50 = v28;
  simdgroup_float8x8 frag51 = v29;
  int m52 = 0;
  for (int64_t v53 = INT64_C(0); v53 < v25; v53 += INT64_C(1)) {
    /* tilec: atom.call#52 at matmul.py:33:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#53 at matmul.py:33:9 */
    /* tilec: arith#54 at matmul.py:33:9 */
    /* tilec: arith#55 at matmul.py:33:9 */
    const int64_t v54 = ((int64_t)(v53 + (int64_t)1));
    /* tilec: arith#56 at matmul.py:33:9 */
    const uint8_t v55 = (uint8_t)(m52 == 0);
    /* tilec: arith#57 at matmul.py:33:9 */
    const int v56 = ((int)(m52 - 1));
    /* tilec: arith#58 at matmul.py:33:9 */
    const int v57 = (v55 ? 1 : v56);
    /* tilec: arith#59 at matmul.py:33:9 */
    const uint8_t v58 = (uint8_t)(v54 < v25);
    /* tilec: if#60 at matmul.py:33:9 */
    if (v58) {
      /* tilec: arith#61 at matmul.py:34:25 */
      const int v59 = ((int)(v19_pm * 32));
      /* tilec: arith#62 at matmul.py:34:34 */
      const int64_t v60 = ((int64_t)(v54 * (int64_t)16));
      /* tilec: view#63 at matmul.py:34:17 */
      /* tilec: view#64 at matmul.py:33:9 */
      /* tilec: view#65 at matmul.py:33:9 */
      /* tilec: load#66 at matmul.py:33:9 */
      float v61[4];
      {
        const int64_t a62 = (int64_t)(v59 + (v24_tid * 4 >> 4)) * v7_A_s8 + (v60 + (v24_tid * 4 & 15));
        const int c63 = (v59 + (v24_tid * 4 >> 4));
        const int64_t c64 = (v60 + (v24_tid * 4 & 15));
        if (c63 < v1_A_0_i32 && c64 >= 0 && c64 + 3 < v2_A_1 && (tc_al_v7_A && (((a62) & 3) == 0))) {
          device const tc_vec16<float> *const q65 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a62);
          v61[0] = q65->e[0];
          v61[1] = q65->e[1];
          v61[2] = q65->e[2];
          v61[3] = q65->e[3];
        }
        else {
          if (c63 < v1_A_0_i32 && c64 >= 0 && c64 < v2_A_1) v61[0] = v7_A[a62]; else v61[0] = 0.0e+00f;
          if (c63 < v1_A_0_i32 && c64 + 1 >= 0 && c64 + 1 < v2_A_1) v61[1] = v7_A[a62 + 1]; else v61[1] = 0.0e+00f;
          if (c63 < v1_A_0_i32 && c64 + 2 >= 0 && c64 + 2 < v2_A_1) v61[2] = v7_A[a62 + 2]; else v61[2] = 0.0e+00f;
          if (c63 < v1_A_0_i32 && c64 + 3 >= 0 && c64 + 3 < v2_A_1) v61[3] = v7_A[a62 + 3]; else v61[3] = 0.0e+00f;
        }
      }
      /* tilec: view#67 at matmul.py:33:9 */
      /* tilec: store#68 at matmul.py:33:9 */
      {
        const int a66 = v57 * 640 + (v24_tid * 4 >> 4) * 20 + (v24_tid * 4 & 15);
        if ((((a66) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q67 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_0_ring + a66);
          q67->e[0] = v61[0];
          q67->e[1] = v61[1];
          q67->e[2] = v61[2];
          q67->e[3] = v61[3];
        }
        else {
          v22_stage_0_ring[a66] = v61[0];
          v22_stage_0_ring[a66 + 1] = v61[1];
          v22_stage_0_ring[a66 + 2] = v61[2];
          v22_stage_0_ring[a66 + 3] = v61[3];
        }
      }
      /* tilec: arith#69 at matmul.py:34:34 */
      const int64_t v68 = ((int64_t)(v54 * (int64_t)16));
      /* tilec: arith#70 at matmul.py:35:33 */
      const int64_t v69 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#71 at matmul.py:35:17 */
      /* tilec: view#72 at matmul.py:33:9 */
      /* tilec: view#73 at matmul.py:33:9 */
      /* tilec: load#74 at matmul.py:33:9 */
      float v70[4];
      {
        const int64_t a71 = (int64_t)(v68 + (v24_tid * 4 >> 5)) * v9_B_s10 + (v69 + (v24_tid * 4 & 31));
        const int64_t c72 = (v68 + (v24_tid * 4 >> 5));
        const int lim73 = tc_sat32(v4_B_1 - v69);
        const int c74 = (v24_tid * 4 & 31);
        if (c72 >= 0 && c72 < v3_B_0 && c74 + 3 < lim73 && (tc_al_v9_B && (((a71) & 3) == 0))) {
          device const tc_vec16<float> *const q75 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a71);
          v70[0] = q75->e[0];
          v70[1] = q75->e[1];
          v70[2] = q75->e[2];
          v70[3] = q75->e[3];
        }
        else {
          if (c72 >= 0 && c72 < v3_B_0 && c74 < lim73) v70[0] = v9_B[a71]; else v70[0] = 0.0e+00f;
          if (c72 >= 0 && c72 < v3_B_0 && c74 + 1 < lim73) v70[1] = v9_B[a71 + 1]; else v70[1] = 0.0e+00f;
          if (c72 >= 0 && c72 < v3_B_0 && c74 + 2 < lim73) v70[2] = v9_B[a71 + 2]; else v70[2] = 0.0e+00f;
          if (c72 >= 0 && c72 < v3_B_0 && c74 + 3 < lim73) v70[3] = v9_B[a71 + 3]; else v70[3] = 0.0e+00f;
        }
      }
      /* tilec: view#75 at matmul.py:33:9 */
      /* tilec: store#76 at matmul.py:33:9 */
      {
        const int a76 = v57 * 576 + (v24_tid * 4 >> 5) * 36 + (v24_tid * 4 & 31);
        if ((((a76) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q77 = reinterpret_cast<threadgroup tc_vec16<float> *>(v23_stage_1_ring + a76);
          q77->e[0] = v70[0];
          q77->e[1] = v70[1];
          q77->e[2] = v70[2];
          q77->e[3] = v70[3];
        }
        else {
          v23_stage_1_ring[a76] = v70[0];
          v23_stage_1_ring[a76 + 1] = v70[1];
          v23_stage_1_ring[a76 + 2] = v70[2];
          v23_stage_1_ring[a76 + 3] = v70[3];
        }
      }
    }
    else {
    }
    /* tilec: view#77 at matmul.py:33:9 */
    /* tilec: view#78 at matmul.py:33:9 */
    /* tilec: arith#79 at matmul.py:34:25 */
    const int v78 = ((int)(v19_pm * 32));
    /* tilec: arith#80 at matmul.py:34:34 */
    const int64_t v79 = ((int64_t)(v53 * (int64_t)16));
    /* tilec: arith#81 at matmul.py:35:33 */
    const int64_t v80 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#82 at matmul.py:36:19 */
    /* tilec: atom.call#83 at matmul.py:36:19 */
    simdgroup_float8x8 v81;
    simdgroup_load(v81, v22_stage_0_ring + m52 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20, (ulong)20);
    /* tilec: view#84 at matmul.py:36:19 */
    /* tilec: atom.call#85 at matmul.py:36:19 */
    simdgroup_float8x8 v82;
    simdgroup_load(v82, v22_stage_0_ring + m52 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 160, (ulong)20);
    /* tilec: view#86 at matmul.py:36:19 */
    /* tilec: atom.call#87 at matmul.py:36:19 */
    simdgroup_float8x8 v83;
    simdgroup_load(v83, v23_stage_1_ring + m52 * 576 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
    /* tilec: view#88 at matmul.py:36:19 */
    /* tilec: atom.call#89 at matmul.py:36:19 */
    simdgroup_float8x8 v84;
    simdgroup_load(v84, v23_stage_1_ring + m52 * 576 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
    /* tilec: atom.call#90 at matmul.py:36:19 */
    simdgroup_float8x8 v85;
    simdgroup_multiply_accumulate(v85, v81, v83, frag48);
    /* tilec: atom.call#91 at matmul.py:36:19 */
    simdgroup_float8x8 v86;
    simdgroup_multiply_accumulate(v86, v81, v84, frag49);
    /* tilec: atom.call#92 at matmul.py:36:19 */
    simdgroup_float8x8 v87;
    simdgroup_multiply_accumulate(v87, v82, v83, frag50);
    /* tilec: atom.call#93 at matmul.py:36:19 */
    simdgroup_float8x8 v88;
    simdgroup_multiply_accumulate(v88, v82, v84, frag51);
    /* tilec: view#94 at matmul.py:36:19 */
    /* tilec: atom.call#95 at matmul.py:36:19 */
    simdgroup_float8x8 v89;
    simdgroup_load(v89, v22_stage_0_ring + m52 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 8, (ulong)20);
    /* tilec: view#96 at matmul.py:36:19 */
    /* tilec: atom.call#97 at matmul.py:36:19 */
    simdgroup_float8x8 v90;
    simdgroup_load(v90, v22_stage_0_ring + m52 * 640 + (((v24_tid >> 5) >> 1) * 16) * 20 + 168, (ulong)20);
    /* tilec: view#98 at matmul.py:36:19 */
    /* tilec: atom.call#99 at matmul.py:36:19 */
    simdgroup_float8x8 v91;
    simdgroup_load(v91, v23_stage_1_ring + m52 * 576 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
    /* tilec: view#100 at matmul.py:36:19 */
    /* tilec: atom.call#101 at matmul.py:36:19 */
    simdgroup_float8x8 v92;
    simdgroup_load(v92, v23_stage_1_ring + m52 * 576 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
    /* tilec: atom.call#102 at matmul.py:36:19 */
    simdgroup_float8x8 v93;
    simdgroup_multiply_accumulate(v93, v89, v91, v85);
    /* tilec: atom.call#103 at matmul.py:36:19 */
    simdgroup_float8x8 v94;
    simdgroup_multiply_accumulate(v94, v89, v92, v86);
    /* tilec: atom.call#104 at matmul.py:36:19 */
    simdgroup_float8x8 v95;
    simdgroup_multiply_accumulate(v95, v90, v91, v87);
    /* tilec: atom.call#105 at matmul.py:36:19 */
    simdgroup_float8x8 v96;
    simdgroup_multiply_accumulate(v96, v90, v92, v88);
    /* tilec: arith#106 at matmul.py:33:9 */
    const int v97 = ((int)(m52 + 1));
    /* tilec: constant#107 at matmul.py:33:9 */
    /* tilec: arith#108 at matmul.py:33:9 */
    const uint8_t v98 = (uint8_t)(v97 == 2);
    /* tilec: arith#109 at matmul.py:33:9 */
    const int v99 = (v98 ? 0 : v97);
    frag48 = v93;
    frag49 = v94;
    frag50 = v95;
    frag51 = v96;
    const int y100 = v99;
    m52 = y100;
  }
  /* tilec: view#110 at matmul.py:33:9 */
  /* tilec: atom.call#111 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#112 at matmul.py:33:9 */
  /* tilec: atom.call#113 at matmul.py:33:9 */
  simdgroup_store(frag48, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16, (ulong)36);
  /* tilec: view#114 at matmul.py:33:9 */
  /* tilec: atom.call#115 at matmul.py:33:9 */
  simdgroup_store(frag49, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 8, (ulong)36);
  /* tilec: view#116 at matmul.py:33:9 */
  /* tilec: atom.call#117 at matmul.py:33:9 */
  simdgroup_store(frag50, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 288, (ulong)36);
  /* tilec: view#118 at matmul.py:33:9 */
  /* tilec: atom.call#119 at matmul.py:33:9 */
  simdgroup_store(frag51, v21_C_staging + (((v24_tid >> 5) >> 1) * 16) * 36 + ((v24_tid >> 5) & 1) * 16 + 296, (ulong)36);
  /* tilec: atom.call#120 at matmul.py:33:9 */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#121 at matmul.py:33:9 */
  /* tilec: load#122 at matmul.py:33:9 */
  float v101[8];
  {
    v101[0] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)];
  }
  {
    v101[1] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1];
  }
  {
    v101[2] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2];
  }
  {
    v101[3] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3];
  }
  {
    v101[4] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 288];
  }
  {
    v101[5] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 289];
  }
  {
    v101[6] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 290];
  }
  {
    v101[7] = v21_C_staging[(((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * 36 + (((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 291];
  }
  /* tilec: arith#123 at matmul.py:37:17 */
  const int v102 = ((int)(v19_pm * 32));
  /* tilec: arith#124 at matmul.py:37:26 */
  const int64_t v103 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#125 at matmul.py:37:9 */
  /* tilec: view#126 at matmul.py:37:9 */
  /* tilec: store#127 at matmul.py:37:9 */
  {
    const int c104 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c105 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c104 < v5_C_0_i32 && c105 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = v101[0];
  }
  {
    const int c106 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c107 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c106 < v5_C_0_i32 && c107 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v101[1];
  }
  {
    const int c108 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c109 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c108 < v5_C_0_i32 && c109 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v101[2];
  }
  {
    const int c110 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2));
    const int64_t c111 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c110 < v5_C_0_i32 && c111 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v101[3];
  }
  {
    const int c112 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c113 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4);
    if (c112 < v5_C_0_i32 && c113 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4)] = v101[4];
  }
  {
    const int c114 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c115 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 1);
    if (c114 < v5_C_0_i32 && c115 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 1] = v101[5];
  }
  {
    const int c116 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c117 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 2);
    if (c116 < v5_C_0_i32 && c117 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 2] = v101[6];
  }
  {
    const int c118 = (v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2) + 8);
    const int64_t c119 = (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4 + 3);
    if (c118 < v5_C_0_i32 && c119 < v6_C_1) v11_C[(int64_t)(v102 + ((v24_tid >> 5) >> 1) * 16 + ((v24_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v103 + ((v24_tid >> 5) & 1) * 16 + ((v24_tid & 31) & 3) * 4) + 3] = v101[7];
  }
}
