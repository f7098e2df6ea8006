kernel void tilec_pipelined_matmul(
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
  threadgroup uint4 tc_smem4[608];  /* 9728 bytes */
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
  /* tilec: arith#1 at matmul.py */
  const uint8_t v13_ok = (uint8_t)(v3_B_0 == v2_A_1);
  /* tilec: arith#2 at matmul.py */
  const uint8_t v14_ok = (uint8_t)(v5_C_0 == v1_A_0);
  /* tilec: arith#3 at matmul.py */
  const uint8_t v15_ok = (uint8_t)(v6_C_1 == v4_B_1);
  /* tilec: arith#4 at matmul.py */
  const uint8_t v16_ok = (v14_ok & v15_ok);
  /* tilec: constant#5 at matmul.py */
  /* tilec: arith#6 at matmul.py */
  const int64_t v17 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 32)));
  /* tilec: arith#7 at matmul.py */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v4_B_1), 32)));
  /* tilec: parallel#8 at matmul.py */
  const int v19_pm = (int)tc_group.y;
  const int v20_pn = (int)tc_group.x;
  /* tilec: constant#9 at matmul.py */
  /* tilec: memory#10 at matmul.py */
  threadgroup float *const v21_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 5120 bytes */
  /* tilec: memory#11 at matmul.py */
  threadgroup float *const v22_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 5120);  /* 4608 bytes */
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
    const int v26 = ((int)(v19_pm * 32));
    /* tilec: arith#23 at matmul.py */
    /* tilec: view#24 at matmul.py */
    /* tilec: view#25 at matmul.py */
    /* tilec: view#26 at matmul.py */
    /* tilec: load#27 at matmul.py */
    float v27[4];
    {
      const int64_t a28 = (int64_t)(v26 + (v23_tid * 4 >> 4)) * v7_A_s8 + (v23_tid * 4 & 15);
      const int c29 = (v26 + (v23_tid * 4 >> 4));
      const int c30 = (v23_tid * 4 & 15);
      if (c29 < v1_A_0_i32 && c30 + 3 < v2_A_1_i32 && (tc_al_v7_A && (((a28) & 3) == 0))) {
        device const tc_vec16<float> *const q31 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a28);
        v27[0] = q31->e[0];
        v27[1] = q31->e[1];
        v27[2] = q31->e[2];
        v27[3] = q31->e[3];
      }
      else {
        if (c29 < v1_A_0_i32 && c30 < v2_A_1_i32) v27[0] = v7_A[a28]; else v27[0] = 0.0e+00f;
        if (c29 < v1_A_0_i32 && c30 + 1 < v2_A_1_i32) v27[1] = v7_A[a28 + 1]; else v27[1] = 0.0e+00f;
        if (c29 < v1_A_0_i32 && c30 + 2 < v2_A_1_i32) v27[2] = v7_A[a28 + 2]; else v27[2] = 0.0e+00f;
        if (c29 < v1_A_0_i32 && c30 + 3 < v2_A_1_i32) v27[3] = v7_A[a28 + 3]; else v27[3] = 0.0e+00f;
      }
    }
    /* tilec: view#28 at matmul.py */
    /* tilec: store#29 at matmul.py */
    {
      const int a32 = (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
      if ((((a32) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q33 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a32);
        q33->e[0] = v27[0];
        q33->e[1] = v27[1];
        q33->e[2] = v27[2];
        q33->e[3] = v27[3];
      }
      else {
        v21_stage_0_ring[a32] = v27[0];
        v21_stage_0_ring[a32 + 1] = v27[1];
        v21_stage_0_ring[a32 + 2] = v27[2];
        v21_stage_0_ring[a32 + 3] = v27[3];
      }
    }
    /* tilec: arith#30 at matmul.py */
    /* tilec: arith#31 at matmul.py */
    const int64_t v34 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
    /* tilec: view#32 at matmul.py */
    /* tilec: view#33 at matmul.py */
    /* tilec: view#34 at matmul.py */
    /* tilec: load#35 at matmul.py */
    float v35[4];
    {
      const int64_t a36 = (int64_t)(v23_tid * 4 >> 5) * v9_B_s10 + (v34 + (v23_tid * 4 & 31));
      const int c37 = (v23_tid * 4 >> 5);
      const int lim38 = tc_sat32(v4_B_1 - v34);
      const int c39 = (v23_tid * 4 & 31);
      if (c37 < v3_B_0_i32 && c39 + 3 < lim38 && (tc_al_v9_B && (((a36) & 3) == 0))) {
        device const tc_vec16<float> *const q40 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a36);
        v35[0] = q40->e[0];
        v35[1] = q40->e[1];
        v35[2] = q40->e[2];
        v35[3] = q40->e[3];
      }
      else {
        if (c37 < v3_B_0_i32 && c39 < lim38) v35[0] = v9_B[a36]; else v35[0] = 0.0e+00f;
        if (c37 < v3_B_0_i32 && c39 + 1 < lim38) v35[1] = v9_B[a36 + 1]; else v35[1] = 0.0e+00f;
        if (c37 < v3_B_0_i32 && c39 + 2 < lim38) v35[2] = v9_B[a36 + 2]; else v35[2] = 0.0e+00f;
        if (c37 < v3_B_0_i32 && c39 + 3 < lim38) v35[3] = v9_B[a36 + 3]; else v35[3] = 0.0e+00f;
      }
    }
    /* tilec: view#36 at matmul.py */
    /* tilec: store#37 at matmul.py */
    {
      const int a41 = (v23_tid * 4 >> 5) * 36 + (v23_tid * 4 & 31);
      if ((((a41) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q42 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a41);
        q42->e[0] = v35[0];
        q42->e[1] = v35[1];
        q42->e[2] = v35[2];
        q42->e[3] = v35[3];
      }
      else {
        v22_stage_1_ring[a41] = v35[0];
        v22_stage_1_ring[a41 + 1] = v35[1];
        v22_stage_1_ring[a41 + 2] = v35[2];
        v22_stage_1_ring[a41 + 3] = v35[3];
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
      const int v51 = ((int)(v19_pm * 32));
      /* tilec: arith#49 at matmul.py */
      const int64_t v52 = ((int64_t)(v46 * (int64_t)16));
      /* tilec: view#50 at matmul.py */
      /* tilec: view#51 at matmul.py */
      /* tilec: view#52 at matmul.py */
      /* tilec: load#53 at matmul.py */
      float v53[4];
      {
        const int64_t a54 = (int64_t)(v51 + (v23_tid * 4 >> 4)) * v7_A_s8 + (v52 + (v23_tid * 4 & 15));
        const int c55 = (v51 + (v23_tid * 4 >> 4));
        const int64_t c56 = (v52 + (v23_tid * 4 & 15));
        if (c55 < v1_A_0_i32 && c56 >= 0 && c56 + 3 < v2_A_1 && (tc_al_v7_A && (((a54) & 3) == 0))) {
          device const tc_vec16<float> *const q57 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a54);
          v53[0] = q57->e[0];
          v53[1] = q57->e[1];
          v53[2] = q57->e[2];
          v53[3] = q57->e[3];
        }
        else {
          if (c55 < v1_A_0_i32 && c56 >= 0 && c56 < v2_A_1) v53[0] = v7_A[a54]; else v53[0] = 0.0e+00f;
          if (c55 < v1_A_0_i32 && c56 + 1 >= 0 && c56 + 1 < v2_A_1) v53[1] = v7_A[a54 + 1]; else v53[1] = 0.0e+00f;
          if (c55 < v1_A_0_i32 && c56 + 2 >= 0 && c56 + 2 < v2_A_1) v53[2] = v7_A[a54 + 2]; else v53[2] = 0.0e+00f;
          if (c55 < v1_A_0_i32 && c56 + 3 >= 0 && c56 + 3 < v2_A_1) v53[3] = v7_A[a54 + 3]; else v53[3] = 0.0e+00f;
        }
      }
      /* tilec: view#54 at matmul.py */
      /* tilec: store#55 at matmul.py */
      {
        const int a58 = v49 * 640 + (v23_tid * 4 >> 4) * 20 + (v23_tid * 4 & 15);
        if ((((a58) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q59 = reinterpret_cast<threadgroup tc_vec16<float> *>(v21_stage_0_ring + a58);
          q59->e[0] = v53[0];
          q59->e[1] = v53[1];
          q59->e[2] = v53[2];
          q59->e[3] = v53[3];
        }
        else {
          v21_stage_0_ring[a58] = v53[0];
          v21_stage_0_ring[a58 + 1] = v53[1];
          v21_stage_0_ring[a58 + 2] = v53[2];
          v21_stage_0_ring[a58 + 3] = v53[3];
        }
      }
      /* tilec: arith#56 at matmul.py */
      const int64_t v60 = ((int64_t)(v46 * (int64_t)16));
      /* tilec: arith#57 at matmul.py */
      const int64_t v61 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
      /* tilec: view#58 at matmul.py */
      /* tilec: view#59 at matmul.py */
      /* tilec: view#60 at matmul.py */
      /* tilec: load#61 at matmul.py */
      float v62[4];
      {
        const int64_t a63 = (int64_t)(v60 + (v23_tid * 4 >> 5)) * v9_B_s10 + (v61 + (v23_tid * 4 & 31));
        const int64_t c64 = (v60 + (v23_tid * 4 >> 5));
        const int lim65 = tc_sat32(v4_B_1 - v61);
        const int c66 = (v23_tid * 4 & 31);
        if (c64 >= 0 && c64 < v3_B_0 && c66 + 3 < lim65 && (tc_al_v9_B && (((a63) & 3) == 0))) {
          device const tc_vec16<float> *const q67 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a63);
          v62[0] = q67->e[0];
          v62[1] = q67->e[1];
          v62[2] = q67->e[2];
          v62[3] = q67->e[3];
        }
        else {
          if (c64 >= 0 && c64 < v3_B_0 && c66 < lim65) v62[0] = v9_B[a63]; else v62[0] = 0.0e+00f;
          if (c64 >= 0 && c64 < v3_B_0 && c66 + 1 < lim65) v62[1] = v9_B[a63 + 1]; else v62[1] = 0.0e+00f;
          if (c64 >= 0 && c64 < v3_B_0 && c66 + 2 < lim65) v62[2] = v9_B[a63 + 2]; else v62[2] = 0.0e+00f;
          if (c64 >= 0 && c64 < v3_B_0 && c66 + 3 < lim65) v62[3] = v9_B[a63 + 3]; else v62[3] = 0.0e+00f;
        }
      }
      /* tilec: view#62 at matmul.py */
      /* tilec: store#63 at matmul.py */
      {
        const int a68 = v49 * 576 + (v23_tid * 4 >> 5) * 36 + (v23_tid * 4 & 31);
        if ((((a68) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q69 = reinterpret_cast<threadgroup tc_vec16<float> *>(v22_stage_1_ring + a68);
          q69->e[0] = v62[0];
          q69->e[1] = v62[1];
          q69->e[2] = v62[2];
          q69->e[3] = v62[3];
        }
        else {
          v22_stage_1_ring[a68] = v62[0];
          v22_stage_1_ring[a68 + 1] = v62[1];
          v22_stage_1_ring[a68 + 2] = v62[2];
          v22_stage_1_ring[a68 + 3] = v62[3];
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
    /* tilec: constant#69 at matmul.py */
    /* tilec: serial#70 at matmul.py */
    float v73[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) v73[e] = v43[e];
    #pragma unroll 4
    for (int v74 = 0; v74 < 4; v74 += 1) {
      /* tilec: view#71 at matmul.py */
      /* tilec: load#72 at matmul.py */
      float v75[8];
      {
        const int a76 = m44 * 640 + (((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * 20 + v74 * 4;
        threadgroup const tc_vec16<float> *const q77 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v21_stage_0_ring + a76);
        v75[0] = q77->e[0];
        v75[1] = q77->e[1];
        v75[2] = q77->e[2];
        v75[3] = q77->e[3];
      }
      {
        const int a78 = m44 * 640 + (((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * 20 + v74 * 4 + 160;
        threadgroup const tc_vec16<float> *const q79 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v21_stage_0_ring + a78);
        v75[4] = q79->e[0];
        v75[5] = q79->e[1];
        v75[6] = q79->e[2];
        v75[7] = q79->e[3];
      }
      /* tilec: view#73 at matmul.py */
      /* tilec: load#74 at matmul.py */
      float v80[16];
      {
        const int a81 = m44 * 576 + (v74 * 4) * 36 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4);
        threadgroup const tc_vec16<float> *const q82 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a81);
        v80[0] = q82->e[0];
        v80[1] = q82->e[1];
        v80[2] = q82->e[2];
        v80[3] = q82->e[3];
      }
      {
        const int a83 = m44 * 576 + (v74 * 4) * 36 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 36;
        threadgroup const tc_vec16<float> *const q84 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a83);
        v80[4] = q84->e[0];
        v80[5] = q84->e[1];
        v80[6] = q84->e[2];
        v80[7] = q84->e[3];
      }
      {
        const int a85 = m44 * 576 + (v74 * 4) * 36 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 72;
        threadgroup const tc_vec16<float> *const q86 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a85);
        v80[8] = q86->e[0];
        v80[9] = q86->e[1];
        v80[10] = q86->e[2];
        v80[11] = q86->e[3];
      }
      {
        const int a87 = m44 * 576 + (v74 * 4) * 36 + (((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 108;
        threadgroup const tc_vec16<float> *const q88 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v22_stage_1_ring + a87);
        v80[12] = q88->e[0];
        v80[13] = q88->e[1];
        v80[14] = q88->e[2];
        v80[15] = q88->e[3];
      }
      /* tilec: reindex#75 at matmul.py */
      float v89[8];
      v89[0] = v75[0];
      v89[1] = v75[0];
      v89[2] = v75[0];
      v89[3] = v75[0];
      v89[4] = v75[4];
      v89[5] = v75[4];
      v89[6] = v75[4];
      v89[7] = v75[4];
      /* tilec: reindex#76 at matmul.py */
      float v90[8];
      v90[0] = v80[0];
      v90[1] = v80[1];
      v90[2] = v80[2];
      v90[3] = v80[3];
      v90[4] = v80[0];
      v90[5] = v80[1];
      v90[6] = v80[2];
      v90[7] = v80[3];
      /* tilec: map#77 at matmul.py */
      float v91[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v92 = v73[e];
        const float v93 = v89[e];
        const float v94 = v90[e];
        /* tilec: arith#78 */
        const float v95 = tc_fma_f32(v93, v94, v92);
        v91[e] = v95;
      }
      /* tilec: reindex#79 at matmul.py */
      float v96[8];
      v96[0] = v75[1];
      v96[1] = v75[1];
      v96[2] = v75[1];
      v96[3] = v75[1];
      v96[4] = v75[5];
      v96[5] = v75[5];
      v96[6] = v75[5];
      v96[7] = v75[5];
      /* tilec: reindex#80 at matmul.py */
      float v97[8];
      v97[0] = v80[4];
      v97[1] = v80[5];
      v97[2] = v80[6];
      v97[3] = v80[7];
      v97[4] = v80[4];
      v97[5] = v80[5];
      v97[6] = v80[6];
      v97[7] = v80[7];
      /* tilec: map#81 at matmul.py */
      float v98[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v99 = v91[e];
        const float v100 = v96[e];
        const float v101 = v97[e];
        /* tilec: arith#82 */
        const float v102 = tc_fma_f32(v100, v101, v99);
        v98[e] = v102;
      }
      /* tilec: reindex#83 at matmul.py */
      float v103[8];
      v103[0] = v75[2];
      v103[1] = v75[2];
      v103[2] = v75[2];
      v103[3] = v75[2];
      v103[4] = v75[6];
      v103[5] = v75[6];
      v103[6] = v75[6];
      v103[7] = v75[6];
      /* tilec: reindex#84 at matmul.py */
      float v104[8];
      v104[0] = v80[8];
      v104[1] = v80[9];
      v104[2] = v80[10];
      v104[3] = v80[11];
      v104[4] = v80[8];
      v104[5] = v80[9];
      v104[6] = v80[10];
      v104[7] = v80[11];
      /* tilec: map#85 at matmul.py */
      float v105[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v106 = v98[e];
        const float v107 = v103[e];
        const float v108 = v104[e];
        /* tilec: arith#86 */
        const float v109 = tc_fma_f32(v107, v108, v106);
        v105[e] = v109;
      }
      /* tilec: reindex#87 at matmul.py */
      float v110[8];
      v110[0] = v75[3];
      v110[1] = v75[3];
      v110[2] = v75[3];
      v110[3] = v75[3];
      v110[4] = v75[7];
      v110[5] = v75[7];
      v110[6] = v75[7];
      v110[7] = v75[7];
      /* tilec: reindex#88 at matmul.py */
      float v111[8];
      v111[0] = v80[12];
      v111[1] = v80[13];
      v111[2] = v80[14];
      v111[3] = v80[15];
      v111[4] = v80[12];
      v111[5] = v80[13];
      v111[6] = v80[14];
      v111[7] = v80[15];
      /* tilec: map#89 at matmul.py */
      float v112[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v113 = v105[e];
        const float v114 = v110[e];
        const float v115 = v111[e];
        /* tilec: arith#90 */
        const float v116 = tc_fma_f32(v114, v115, v113);
        v112[e] = v116;
      }
      #pragma unroll
      for (int e = 0; e < 8; ++e) v73[e] = v112[e];
    }
    /* tilec: arith#91 at matmul.py */
    const int v117 = ((int)(m44 + 1));
    /* tilec: constant#92 at matmul.py */
    /* tilec: arith#93 at matmul.py */
    const uint8_t v118 = (uint8_t)(v117 == 2);
    /* tilec: arith#94 at matmul.py */
    const int v119 = (v118 ? 0 : v117);
    const int y120 = v119;
    #pragma unroll
    for (int e = 0; e < 8; ++e) v43[e] = v73[e];
    m44 = y120;
  }
  /* tilec: arith#95 at matmul.py */
  const int v121 = ((int)(v19_pm * 32));
  /* tilec: arith#96 at matmul.py */
  const int64_t v122 = ((int64_t)((int64_t)v20_pn * (int64_t)32));
  /* tilec: view#97 at matmul.py */
  /* tilec: view#98 at matmul.py */
  /* tilec: store#99 at matmul.py */
  {
    const int c123 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c124 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4);
    if (c123 < v5_C_0_i32 && c124 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4)] = v43[0];
  }
  {
    const int c125 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c126 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 1);
    if (c125 < v5_C_0_i32 && c126 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 1] = v43[1];
  }
  {
    const int c127 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c128 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 2);
    if (c127 < v5_C_0_i32 && c128 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 2] = v43[2];
  }
  {
    const int c129 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2));
    const int64_t c130 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 3);
    if (c129 < v5_C_0_i32 && c130 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 3] = v43[3];
  }
  {
    const int c131 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c132 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4);
    if (c131 < v5_C_0_i32 && c132 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4)] = v43[4];
  }
  {
    const int c133 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c134 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 1);
    if (c133 < v5_C_0_i32 && c134 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 1] = v43[5];
  }
  {
    const int c135 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c136 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 2);
    if (c135 < v5_C_0_i32 && c136 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 2] = v43[6];
  }
  {
    const int c137 = (v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2) + 8);
    const int64_t c138 = (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4 + 3);
    if (c137 < v5_C_0_i32 && c138 < v6_C_1) v11_C[(int64_t)(v121 + ((v23_tid >> 5) >> 1) * 16 + ((v23_tid & 31) >> 2)) * v11_C_s12 + v11_C_s12 * 8 + (v122 + ((v23_tid >> 5) & 1) * 16 + ((v23_tid & 31) & 3) * 4) + 3] = v43[7];
  }
}
