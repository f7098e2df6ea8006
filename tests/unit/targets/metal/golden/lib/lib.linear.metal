kernel void tilec_linear(
    device const float *v7_A [[buffer(0)]],
    device const float *v9_W [[buffer(1)]],
    device float *v11_C [[buffer(2)]],
    constant int64_t &v1_A_0 [[buffer(3)]],
    constant int64_t &v2_A_1 [[buffer(4)]],
    constant int64_t &v3_W_0 [[buffer(5)]],
    constant int64_t &v4_W_1 [[buffer(6)]],
    constant int64_t &v5_C_0 [[buffer(7)]],
    constant int64_t &v6_C_1 [[buffer(8)]],
    constant uint &tc_aligned [[buffer(9)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[640];  /* 10240 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_A_s8 = v2_A_1;
  const bool tc_al_v7_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v9_W_s10 = v4_W_1;
  const bool tc_al_v9_W = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v11_C_s12 = v6_C_1;
  const bool tc_al_v11_C = ((tc_aligned >> 2) & 1u) != 0u;
  const int v4_W_1_i32 = (int)(v4_W_1 < INT64_C(2147483647) ? v4_W_1 : INT64_C(2147483647));
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v2_A_1_i32 = (int)(v2_A_1 < INT64_C(2147483647) ? v2_A_1 : INT64_C(2147483647));
  const int v5_C_0_i32 = (int)(v5_C_0 < INT64_C(2147483647) ? v5_C_0 : INT64_C(2147483647));
  /* tilec: arith#1 at matmul.py */
  const uint8_t v13_ok = (uint8_t)(v4_W_1 == v2_A_1);
  /* tilec: arith#2 at matmul.py */
  const uint8_t v14_ok = (uint8_t)(v5_C_0 == v1_A_0);
  /* tilec: arith#3 at matmul.py */
  const uint8_t v15_ok = (uint8_t)(v6_C_1 == v3_W_0);
  /* tilec: arith#4 at matmul.py */
  const uint8_t v16_ok = (v14_ok & v15_ok);
  /* tilec: constant#5 at matmul.py */
  /* tilec: arith#6 at matmul.py */
  const int64_t v17 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 32)));
  /* tilec: arith#7 at matmul.py */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v3_W_0), 32)));
  /* tilec: parallel#8 at matmul.py */
  const int v19_pm = (int)tc_group.y;
  const int v20_pn = (int)tc_group.x;
  /* tilec: constant#9 at matmul.py */
  /* tilec: memory#10 at matmul.py */
  threadgroup float *const v21_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 5120 bytes */
  /* tilec: memory#11 at matmul.py */
  threadgroup float *const v22_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 5120);  /* 5120 bytes */
  /* tilec: parallel#12 at matmul.py */
  const int v23_tid = (int)tc_lane;
  /* tilec: constant#13 at matmul.py */
  /* tilec: constant#14 at matmul.py */
  /* tilec: constant#15 at matmul.py */
  /* tilec: constant#16 at matmul.py */
  /* tilec: arith#17 at matmul.py */
  const int64_t v24 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 16)));
  /* tilec: constant#18 at matmul.py */
  /* tilec: constant#19 at matmul.py */
  /* tilec: arith#20 at matmul.py */
  const uint8_t v25 = (uint8_t)(0 < v24);
  /* tilec: if#21 at matmul.py */
  if (v25) {
    /* tilec: arith#22 at matmul.py */
    /* tilec: arith#23 at matmul.py */
    const int64_t v26 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#24 at matmul.py */
    /* tilec: view#25 at matmul.py */
    /* tilec: view#26 at matmul.py */
    /* tilec: load#27 at matmul.py */
    float v27[4];
    {
      const int64_t a28 = (int64_t)(v26 + (v23_tid * 4 >> 4)) * v9_W_s10 + (v23_tid * 4 & 15);
      const int lim29 = tc_sat32(v3_W_0 - v26);
      const int c30 = (v23_tid * 4 >> 4);
      const int c31 = (v23_tid * 4 & 15);
      if (c30 < lim29 && c31 + 3 < v4_W_1_i32 && (tc_al_v9_W && (((a28) & 3) == 0))) {
        device const tc_vec16<float> *const q32 = reinterpret_cast<device const tc_vec16<float> *>(v9_W + a28);
        v27[0] = q32->e[0];
        v27[1] = q32->e[1];
        v27[2] = q32->e[2];
        v27[3] = q32->e[3];
      }
      else {
        if (c30 < lim29 && c31 < v4_W_1_i32) v27[0] = v9_W[a28]; else v27[0] = 0.0e+00f;
        if (c30 < lim29 && c31 + 1 < v4_W_1_i32) v27[1] = v9_W[a28 + 1]; else v27[1] = 0.0e+00f;
        if (c30 < lim29 && c31 + 2 < v4_W_1_i32) v27[2] = v9_W[a28 + 2]; else v27[2] = 0.0e+00f;
        if (c30 < lim29 && c31 + 3 < v4_W_1_i32) v27[3] = v9_W[a28 + 3]; else v27[3] = 0.0e+00f;
      }
    }
    /* tilec: view#28 at matmul.py */
    /* tilec: store#29 at matmul.py */
    {
      const int a33 = (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
      if ((((a33) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q34 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a33);
        q34->e[0] = v27[0];
        q34->e[1] = v27[1];
        q34->e[2] = v27[2];
        q34->e[3] = v27[3];
      }
      else {
        v21_stage_0_ring[a33] = v27[0];
        v21_stage_0_ring[a33 + 1] = v27[1];
        v21_stage_0_ring[a33 + 2] = v27[2];
        v21_stage_0_ring[a33 + 3] = v27[3];
      }
    }
    /* tilec: arith#30 at matmul.py */
    const int v35 = ((int)(v19_pm * 32));
    /* tilec: arith#31 at matmul.py */
    /* tilec: view#32 at matmul.py */
    /* tilec: view#33 at matmul.py */
    /* tilec: view#34 at matmul.py */
    /* tilec: load#35 at matmul.py */
    float v36[4];
    {
      const int64_t a37 = (int64_t)(v35 + (v23_tid * 4 >> 4)) * v7_A_s8 + (v23_tid * 4 & 15);
      const int c38 = (v35 + (v23_tid * 4 >> 4));
      const int c39 = (v23_tid * 4 & 15);
      if (c38 < v1_A_0_i32 && c39 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a37) & 3) == 0))) {
        device const tc_vec16<float> *const q40 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a37);
        v36[0] = q40->e[0];
        v36[1] = q40->e[1];
        v36[2] = q40->e[2];
        v36[3] = q40->e[3];
      }
      else {
        if (c38 < v1_A_0_i32 && c39 < v2_A_1_i32) v36[0] = v7_A[a37]; else v36[0] = 0.0e+00f;
        if (c38 < v1_A_0_i32 && c39 + 1 < v2_A_1_i32) v36[1] = v7_A[a37 + 1]; else v36[1] = 0.0e+00f;
        if (c38 < v1_A_0_i32 && c39 + 2 < v2_A_1_i32) v36[2] = v7_A[a37 + 2]; else v36[2] = 0.0e+00f;
        if (c38 < v1_A_0_i32 && c39 + 3 < v2_A_1_i32) v36[3] = v7_A[a37 + 3]; else v36[3] = 0.0e+00f;
      }
    }
    /* tilec: view#36 at matmul.py */
    /* tilec: store#37 at matmul.py */
    {
      const int a41 = (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
      if ((((a41) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q42 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a41);
        q42->e[0] = v36[0];
        q42->e[1] = v36[1];
        q42->e[2] = v36[2];
        q42->e[3] = v36[3];
      }
      else {
        v22_stage_1_ring[a41] = v36[0];
        v22_stage_1_ring[a41 + 1] = v36[1];
        v22_stage_1_ring[a41 + 2] = v36[2];
        v22_stage_1_ring[a41 + 3] = v36[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#38 at matmul.py */
  float v43[8];
  #pragma unroll
  for (int e = 0; e < 8; ++e) v43[e] = 0.0e+00f;
  int m44 = 0;
  for (int64_t v45 = INT64_C(0); v45 < v24; v45 += INT64_C(1)) {
    /* tilec: atom.call#39 at matmul.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#40 at matmul.py */
    /* tilec: arith#41 at matmul.py */
    /* tilec: arith#42 at matmul.py */
    const int64_t v46 = ((int64_t)(v45 + (int64_t)1));
    /* tilec: arith#43 at matmul.py */
    const uint8_t v47 = (uint8_t)(m44 == 0);
    /* tilec: arith#44 at matmul.py */
    const int v48 = ((int)(m44 - 1));
    /* tilec: arith#45 at matmul.py */
    const int v49 = (v47 ? 1 : v48);
    /* tilec: arith#46 at matmul.py */
    const uint8_t v50 = (uint8_t)(v46 < v24);
    /* tilec: if#47 at matmul.py */
    if (v50) {
      /* tilec: arith#48 at matmul.py */
      const int64_t v51 = ((int64_t)(v46 * (int64_t)16));
      /* tilec: arith#49 at matmul.py */
      const int64_t v52 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#50 at matmul.py */
      /* tilec: view#51 at matmul.py */
      /* tilec: view#52 at matmul.py */
      /* tilec: load#53 at matmul.py */
      float v53[4];
      {
        const int64_t a54 = (int64_t)(v52 + (v23_tid * 4 >> 4)) * v9_W_s10 + (v51 + (v23_tid * 4 & 15));
        const int lim55 = tc_sat32(v3_W_0 - v52);
        const int c56 = (v23_tid * 4 >> 4);
        const int64_t c57 = (v51 + (v23_tid * 4 & 15));
        if (c56 < lim55 && c57 >= 0 && c57 + 3 < v4_W_1 && (tc_al_v9_W && (((a54) & 3) == 0))) {
          device const tc_vec16<float> *const q58 = reinterpret_cast<device const tc_vec16<float> *>(v9_W + a54);
          v53[0] = q58->e[0];
          v53[1] = q58->e[1];
          v53[2] = q58->e[2];
          v53[3] = q58->e[3];
        }
        else {
          if (c56 < lim55 && c57 >= 0 && c57 < v4_W_1) v53[0] = v9_W[a54]; else v53[0] = 0.0e+00f;
          if (c56 < lim55 && c57 + 1 >= 0 && c57 + 1 < v4_W_1) v53[1] = v9_W[a54 + 1]; else v53[1] = 0.0e+00f;
          if (c56 < lim55 && c57 + 2 >= 0 && c57 + 2 < v4_W_1) v53[2] = v9_W[a54 + 2]; else v53[2] = 0.0e+00f;
          if (c56 < lim55 && c57 + 3 >= 0 && c57 + 3 < v4_W_1) v53[3] = v9_W[a54 + 3]; else v53[3] = 0.0e+00f;
        }
      }
      /* tilec: view#54 at matmul.py */
      /* tilec: store#55 at matmul.py */
      {
        const int a59 = v49 * 640 + (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
        if ((((a59) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q60 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a59);
          q60->e[0] = v53[0];
          q60->e[1] = v53[1];
          q60->e[2] = v53[2];
          q60->e[3] = v53[3];
        }
        else {
          v21_stage_0_ring[a59] = v53[0];
          v21_stage_0_ring[a59 + 1] = v53[1];
          v21_stage_0_ring[a59 + 2] = v53[2];
          v21_stage_0_ring[a59 + 3] = v53[3];
        }
      }
      /* tilec: arith#56 at matmul.py */
      const int v61 = ((int)(v19_pm * 32));
      /* tilec: arith#57 at matmul.py */
      const int64_t v62 = ((int64_t)(v46 * (int64_t)16));
      /* tilec: view#58 at matmul.py */
      /* tilec: view#59 at matmul.py */
      /* tilec: view#60 at matmul.py */
      /* tilec: load#61 at matmul.py */
      float v63[4];
      {
        const int64_t a64 = (int64_t)(v61 + (v23_tid * 4 >> 4)) * v7_A_s8 + (v62 + (v23_tid * 4 & 15));
        const int c65 = (v61 + (v23_tid * 4 >> 4));
        const int64_t c66 = (v62 + (v23_tid * 4 & 15));
        if (c65 < v1_A_0_i32 && c66 >= 0 && c66 + 3 < v2_A_1 && (tc_al_v7_A && (((a64) & 3) == 0))) {
          device const tc_vec16<float> *const q67 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a64);
          v63[0] = q67->e[0];
          v63[1] = q67->e[1];
          v63[2] = q67->e[2];
          v63[3] = q67->e[3];
        }
        else {
          if (c65 < v1_A_0_i32 && c66 >= 0 && c66 < v2_A_1) v63[0] = v7_A[a64]; else v63[0] = 0.0e+00f;
          if (c65 < v1_A_0_i32 && c66 + 1 >= 0 && c66 + 1 < v2_A_1) v63[1] = v7_A[a64 + 1]; else v63[1] = 0.0e+00f;
          if (c65 < v1_A_0_i32 && c66 + 2 >= 0 && c66 + 2 < v2_A_1) v63[2] = v7_A[a64 + 2]; else v63[2] = 0.0e+00f;
          if (c65 < v1_A_0_i32 && c66 + 3 >= 0 && c66 + 3 < v2_A_1) v63[3] = v7_A[a64 + 3]; else v63[3] = 0.0e+00f;
        }
      }
      /* tilec: view#62 at matmul.py */
      /* tilec: store#63 at matmul.py */
      {
        const int a68 = v49 * 640 + (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
        if ((((a68) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q69 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a68);
          q69->e[0] = v63[0];
          q69->e[1] = v63[1];
          q69->e[2] = v63[2];
          q69->e[3] = v63[3];
        }
        else {
          v22_stage_1_ring[a68] = v63[0];
          v22_stage_1_ring[a68 + 1] = v63[1];
          v22_stage_1_ring[a68 + 2] = v63[2];
          v22_stage_1_ring[a68 + 3] = v63[3];
        }
      }
    }
    else {
    }
    /* tilec: view#64 at matmul.py */
    /* tilec: view#65 at matmul.py */
    /* tilec: arith#66 at matmul.py */
    const int v70 = ((int)(v19_pm * 32));
    /* tilec: arith#67 at matmul.py */
    const int64_t v71 = ((int64_t)(v45 * (int64_t)16));
    /* tilec: arith#68 at matmul.py */
    const int64_t v72 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#69 at matmul.py */
    /* tilec: constant#70 at matmul.py */
    /* tilec: serial#71 at matmul.py */
    float v73[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) v73[e] = v43[e];
    #pragma unroll 4
    for (int v74 = 0; v74 < 4; v74 += 1) {
      /* tilec: view#72 at matmul.py */
      /* tilec: load#73 at matmul.py */
      float v75[8];
      {
        const int a76 = m44 * 640 + (((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * 20 + v74 * 4;
        threadgroup const tc_vec16<float> *const q77 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a76);
        v75[0] = q77->e[0];
        v75[1] = q77->e[1];
        v75[2] = q77->e[2];
        v75[3] = q77->e[3];
      }
      {
        const int a78 = m44 * 640 + (((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * 20 + v74 * 4 + 160;
        threadgroup const tc_vec16<float> *const q79 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a78);
        v75[4] = q79->e[0];
        v75[5] = q79->e[1];
        v75[6] = q79->e[2];
        v75[7] = q79->e[3];
      }
      /* tilec: view#74 at matmul.py */
      /* tilec: load#75 at matmul.py */
      float v80[16];
      {
        v80[0] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4];
      }
      {
        v80[1] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 20];
      }
      {
        v80[2] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 40];
      }
      {
        v80[3] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 60];
      }
      {
        v80[4] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 1];
      }
      {
        v80[5] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 21];
      }
      {
        v80[6] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 41];
      }
      {
        v80[7] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 61];
      }
      {
        v80[8] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 2];
      }
      {
        v80[9] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 22];
      }
      {
        v80[10] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 42];
      }
      {
        v80[11] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 62];
      }
      {
        v80[12] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 3];
      }
      {
        v80[13] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 23];
      }
      {
        v80[14] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 43];
      }
      {
        v80[15] = v21_stage_0_ring[m44 * 640 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) * 20 + v74 * 4 + 63];
      }
      /* tilec: reindex#76 at matmul.py */
      float v81[8];
      v81[0] = v75[0];
      v81[1] = v75[0];
      v81[2] = v75[0];
      v81[3] = v75[0];
      v81[4] = v75[4];
      v81[5] = v75[4];
      v81[6] = v75[4];
      v81[7] = v75[4];
      /* tilec: reindex#77 at matmul.py */
      float v82[8];
      v82[0] = v80[0];
      v82[1] = v80[1];
      v82[2] = v80[2];
      v82[3] = v80[3];
      v82[4] = v80[0];
      v82[5] = v80[1];
      v82[6] = v80[2];
      v82[7] = v80[3];
      /* tilec: map#78 at matmul.py */
      float v83[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v84 = v73[e];
        const float v85 = v81[e];
        const float v86 = v82[e];
        /* tilec: arith#79 */
        const float v87 = tc_fma_f32(v85, v86, v84);
        v83[e] = v87;
      }
      /* tilec: reindex#80 at matmul.py */
      float v88[8];
      v88[0] = v75[1];
      v88[1] = v75[1];
      v88[2] = v75[1];
      v88[3] = v75[1];
      v88[4] = v75[5];
      v88[5] = v75[5];
      v88[6] = v75[5];
      v88[7] = v75[5];
      /* tilec: reindex#81 at matmul.py */
      float v89[8];
      v89[0] = v80[4];
      v89[1] = v80[5];
      v89[2] = v80[6];
      v89[3] = v80[7];
      v89[4] = v80[4];
      v89[5] = v80[5];
      v89[6] = v80[6];
      v89[7] = v80[7];
      /* tilec: map#82 at matmul.py */
      float v90[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v91 = v83[e];
        const float v92 = v88[e];
        const float v93 = v89[e];
        /* tilec: arith#83 */
        const float v94 = tc_fma_f32(v92, v93, v91);
        v90[e] = v94;
      }
      /* tilec: reindex#84 at matmul.py */
      float v95[8];
      v95[0] = v75[2];
      v95[1] = v75[2];
      v95[2] = v75[2];
      v95[3] = v75[2];
      v95[4] = v75[6];
      v95[5] = v75[6];
      v95[6] = v75[6];
      v95[7] = v75[6];
      /* tilec: reindex#85 at matmul.py */
      float v96[8];
      v96[0] = v80[8];
      v96[1] = v80[9];
      v96[2] = v80[10];
      v96[3] = v80[11];
      v96[4] = v80[8];
      v96[5] = v80[9];
      v96[6] = v80[10];
      v96[7] = v80[11];
      /* tilec: map#86 at matmul.py */
      float v97[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v98 = v90[e];
        const float v99 = v95[e];
        const float v100 = v96[e];
        /* tilec: arith#87 */
        const float v101 = tc_fma_f32(v99, v100, v98);
        v97[e] = v101;
      }
      /* tilec: reindex#88 at matmul.py */
      float v102[8];
      v102[0] = v75[3];
      v102[1] = v75[3];
      v102[2] = v75[3];
      v102[3] = v75[3];
      v102[4] = v75[7];
      v102[5] = v75[7];
      v102[6] = v75[7];
      v102[7] = v75[7];
      /* tilec: reindex#89 at matmul.py */
      float v103[8];
      v103[0] = v80[12];
      v103[1] = v80[13];
      v103[2] = v80[14];
      v103[3] = v80[15];
      v103[4] = v80[12];
      v103[5] = v80[13];
      v103[6] = v80[14];
      v103[7] = v80[15];
      /* tilec: map#90 at matmul.py */
      float v104[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v105 = v97[e];
        const float v106 = v102[e];
        const float v107 = v103[e];
        /* tilec: arith#91 */
        const float v108 = tc_fma_f32(v106, v107, v105);
        v104[e] = v108;
      }
      #pragma unroll
      for (int e = 0; e < 8; ++e) v73[e] = v104[e];
    }
    /* tilec: arith#92 at matmul.py */
    const int v109 = ((int)(m44 + 1));
    /* tilec: constant#93 at matmul.py */
    /* tilec: arith#94 at matmul.py */
    const uint8_t v110 = (uint8_t)(v109 == 2);
    /* tilec: arith#95 at matmul.py */
    const int v111 = (v110 ? 0 : v109);
    const int y112 = v111;
    #pragma unroll
    for (int e = 0; e < 8; ++e) v43[e] = v73[e];
    m44 = y112;
  }
  /* tilec: arith#96 at matmul.py */
  const int v113 = ((int)(v19_pm * 32));
  /* tilec: arith#97 at matmul.py */
  const int64_t v114 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#98 at matmul.py */
  /* tilec: view#99 at matmul.py */
  /* tilec: store#100 at matmul.py */
  {
    const int c115 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c116 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4);
    if (c115 < v5_C_0_i32 && c116 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4)] = v43[0];
  }
  {
    const int c117 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c118 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 1);
    if (c117 < v5_C_0_i32 && c118 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 1] = v43[1];
  }
  {
    const int c119 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c120 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 2);
    if (c119 < v5_C_0_i32 && c120 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 2] = v43[2];
  }
  {
    const int c121 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c122 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 3);
    if (c121 < v5_C_0_i32 && c122 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 3] = v43[3];
  }
  {
    const int c123 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c124 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4);
    if (c123 < v5_C_0_i32 && c124 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4)] = v43[4];
  }
  {
    const int c125 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c126 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 1);
    if (c125 < v5_C_0_i32 && c126 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 1] = v43[5];
  }
  {
    const int c127 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c128 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 2);
    if (c127 < v5_C_0_i32 && c128 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 2] = v43[6];
  }
  {
    const int c129 = (v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c130 = (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 3);
    if (c129 < v5_C_0_i32 && c130 < v6_C_1) v11_C[(int64_t)(v113 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v114 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 3] = v43[7];
  }
}
