kernel void tilec_gemm_bias_act(
    device const float *v8_A [[buffer(0)]],
    device const float *v10_B [[buffer(1)]],
    device const float *v12_bias [[buffer(2)]],
    device float *v13_C [[buffer(3)]],
    constant int64_t &v1_A_0 [[buffer(4)]],
    constant int64_t &v2_A_1 [[buffer(5)]],
    constant int64_t &v3_B_0 [[buffer(6)]],
    constant int64_t &v4_B_1 [[buffer(7)]],
    constant int64_t &v5_bias_0 [[buffer(8)]],
    constant int64_t &v6_C_0 [[buffer(9)]],
    constant int64_t &v7_C_1 [[buffer(10)]],
    constant uint &tc_aligned [[buffer(11)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[608];  /* 9728 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v8_A_s9 = v2_A_1;
  const bool tc_al_v8_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v10_B_s11 = v4_B_1;
  const bool tc_al_v10_B = ((tc_aligned >> 1) & 1u) != 0u;
  const bool tc_al_v12_bias = ((tc_aligned >> 2) & 1u) != 0u;
  const int64_t v13_C_s14 = v7_C_1;
  const bool tc_al_v13_C = ((tc_aligned >> 3) & 1u) != 0u;
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v2_A_1_i32 = (int)(v2_A_1 < INT64_C(2147483647) ? v2_A_1 : INT64_C(2147483647));
  const int v3_B_0_i32 = (int)(v3_B_0 < INT64_C(2147483647) ? v3_B_0 : INT64_C(2147483647));
  const int v6_C_0_i32 = (int)(v6_C_0 < INT64_C(2147483647) ? v6_C_0 : INT64_C(2147483647));
  /* tilec: arith#1 at matmul.py */
  const uint8_t v15_ok = (uint8_t)(v3_B_0 == v2_A_1);
  /* tilec: arith#2 at matmul.py */
  const uint8_t v16_ok = (uint8_t)(v5_bias_0 == v4_B_1);
  /* tilec: arith#3 at matmul.py */
  const uint8_t v17_ok = (uint8_t)(v6_C_0 == v1_A_0);
  /* tilec: arith#4 at matmul.py */
  const uint8_t v18_ok = (uint8_t)(v7_C_1 == v4_B_1);
  /* tilec: arith#5 at matmul.py */
  const uint8_t v19_ok = (v17_ok & v18_ok);
  /* tilec: constant#6 at matmul.py */
  /* tilec: arith#7 at matmul.py */
  const int64_t v20 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 32)));
  /* tilec: arith#8 at matmul.py */
  const int64_t v21 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v4_B_1), 32)));
  /* tilec: parallel#9 at matmul.py */
  const int v22_pm = (int)tc_group.y;
  const int v23_pn = (int)tc_group.x;
  /* tilec: constant#10 at matmul.py */
  /* tilec: memory#11 at matmul.py */
  threadgroup float *const v24_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 5120 bytes */
  /* tilec: memory#12 at matmul.py */
  threadgroup float *const v25_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 5120);  /* 4608 bytes */
  /* tilec: parallel#13 at matmul.py */
  const int v26_tid = (int)tc_lane;
  /* tilec: constant#14 at matmul.py */
  /* tilec: constant#15 at matmul.py */
  /* tilec: constant#16 at matmul.py */
  /* tilec: constant#17 at matmul.py */
  /* tilec: arith#18 at matmul.py */
  const int64_t v27 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 16)));
  /* tilec: constant#19 at matmul.py */
  /* tilec: constant#20 at matmul.py */
  /* tilec: arith#21 at matmul.py */
  const uint8_t v28 = (uint8_t)(0 < v27);
  /* tilec: if#22 at matmul.py */
  if (v28) {
    /* tilec: arith#23 at matmul.py */
    const int v29 = ((int)(v22_pm * 32));
    /* tilec: arith#24 at matmul.py */
    /* tilec: view#25 at matmul.py */
    /* tilec: view#26 at matmul.py */
    /* tilec: view#27 at matmul.py */
    /* tilec: load#28 at matmul.py */
    float v30[4];
    {
      const int64_t a31 = (int64_t)(v29 + (v26_tid * 4 >> 4)) * v8_A_s9 + (v26_tid * 4 & 15);
      const int c32 = (v29 + (v26_tid * 4 >> 4));
      const int c33 = (v26_tid * 4 & 15);
      if (c32 < v1_A_0_i32 && c33 + 3 < v2_A_1_i32 && (tc_al_v8_A && (((a31) & 3) == 0))) {
        device const tc_vec16<float> *const q34 = reinterpret_cast<device const tc_vec16<float> *>(v8_A + a31);
        v30[0] = q34->e[0];
        v30[1] = q34->e[1];
        v30[2] = q34->e[2];
        v30[3] = q34->e[3];
      }
      else {
        if (c32 < v1_A_0_i32 && c33 < v2_A_1_i32) v30[0] = v8_A[a31]; else v30[0] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 1 < v2_A_1_i32) v30[1] = v8_A[a31 + 1]; else v30[1] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 2 < v2_A_1_i32) v30[2] = v8_A[a31 + 2]; else v30[2] = 0.0e+00f;
        if (c32 < v1_A_0_i32 && c33 + 3 < v2_A_1_i32) v30[3] = v8_A[a31 + 3]; else v30[3] = 0.0e+00f;
      }
    }
    /* tilec: view#29 at matmul.py */
    /* tilec: store#30 at matmul.py */
    {
      const int a35 = (v26_tid * 4 >> 4) * 20 + (v26_tid * 4 & 15);
      if ((((a35) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q36 = reinterpret_cast<threadgroup tc_vec16<float> *>(v24_stage_0_ring + a35);
        q36->e[0] = v30[0];
        q36->e[1] = v30[1];
        q36->e[2] = v30[2];
        q36->e[3] = v30[3];
      }
      else {
        v24_stage_0_ring[a35] = v30[0];
        v24_stage_0_ring[a35 + 1] = v30[1];
        v24_stage_0_ring[a35 + 2] = v30[2];
        v24_stage_0_ring[a35 + 3] = v30[3];
      }
    }
    /* tilec: arith#31 at matmul.py */
    /* tilec: arith#32 at matmul.py */
    const int64_t v37 = ((int64_t)((int64_t)v23_pn * (int64_t)32));
    /* tilec: view#33 at matmul.py */
    /* tilec: view#34 at matmul.py */
    /* tilec: view#35 at matmul.py */
    /* tilec: load#36 at matmul.py */
    float v38[4];
    {
      const int64_t a39 = (int64_t)(v26_tid * 4 >> 5) * v10_B_s11 + (v37 + (v26_tid * 4 & 31));
      const int c40 = (v26_tid * 4 >> 5);
      const int lim41 = tc_sat32(v4_B_1 - v37);
      const int c42 = (v26_tid * 4 & 31);
      if (c40 < v3_B_0_i32 && c42 + 3 < lim41 && (tc_al_v10_B && (((a39) & 3) == 0))) {
        device const tc_vec16<float> *const q43 = reinterpret_cast<device const tc_vec16<float> *>(v10_B + a39);
        v38[0] = q43->e[0];
        v38[1] = q43->e[1];
        v38[2] = q43->e[2];
        v38[3] = q43->e[3];
      }
      else {
        if (c40 < v3_B_0_i32 && c42 < lim41) v38[0] = v10_B[a39]; else v38[0] = 0.0e+00f;
        if (c40 < v3_B_0_i32 && c42 + 1 < lim41) v38[1] = v10_B[a39 + 1]; else v38[1] = 0.0e+00f;
        if (c40 < v3_B_0_i32 && c42 + 2 < lim41) v38[2] = v10_B[a39 + 2]; else v38[2] = 0.0e+00f;
        if (c40 < v3_B_0_i32 && c42 + 3 < lim41) v38[3] = v10_B[a39 + 3]; else v38[3] = 0.0e+00f;
      }
    }
    /* tilec: view#37 at matmul.py */
    /* tilec: store#38 at matmul.py */
    {
      const int a44 = (v26_tid * 4 >> 5) * 36 + (v26_tid * 4 & 31);
      if ((((a44) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q45 = reinterpret_cast<threadgroup tc_vec16<float> *>(v25_stage_1_ring + a44);
        q45->e[0] = v38[0];
        q45->e[1] = v38[1];
        q45->e[2] = v38[2];
        q45->e[3] = v38[3];
      }
      else {
        v25_stage_1_ring[a44] = v38[0];
        v25_stage_1_ring[a44 + 1] = v38[1];
        v25_stage_1_ring[a44 + 2] = v38[2];
        v25_stage_1_ring[a44 + 3] = v38[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#39 at matmul.py */
  float v46[8];
  #pragma unroll
  for (int e = 0; e < 8; ++e) v46[e] = 0.0e+00f;
  int m47 = 0;
  for (int64_t v48 = INT64_C(0); v48 < v27; v48 += INT64_C(1)) {
    /* tilec: atom.call#40 at matmul.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#41 at matmul.py */
    /* tilec: arith#42 at matmul.py */
    /* tilec: arith#43 at matmul.py */
    const int64_t v49 = ((int64_t)(v48 + (int64_t)1));
    /* tilec: arith#44 at matmul.py */
    const uint8_t v50 = (uint8_t)(m47 == 0);
    /* tilec: arith#45 at matmul.py */
    const int v51 = ((int)(m47 - 1));
    /* tilec: arith#46 at matmul.py */
    const int v52 = (v50 ? 1 : v51);
    /* tilec: arith#47 at matmul.py */
    const uint8_t v53 = (uint8_t)(v49 < v27);
    /* tilec: if#48 at matmul.py */
    if (v53) {
      /* tilec: arith#49 at matmul.py */
      const int v54 = ((int)(v22_pm * 32));
      /* tilec: arith#50 at matmul.py */
      const int64_t v55 = ((int64_t)(v49 * (int64_t)16));
      /* tilec: view#51 at matmul.py */
      /* tilec: view#52 at matmul.py */
      /* tilec: view#53 at matmul.py */
      /* tilec: load#54 at matmul.py */
      float v56[4];
      {
        const int64_t a57 = (int64_t)(v54 + (v26_tid * 4 >> 4)) * v8_A_s9 + (v55 + (v26_tid * 4 & 15));
        const int c58 = (v54 + (v26_tid * 4 >> 4));
        const int64_t c59 = (v55 + (v26_tid * 4 & 15));
        if (c58 < v1_A_0_i32 && c59 >= 0 && c59 + 3 < v2_A_1 && (tc_al_v8_A && (((a57) & 3) == 0))) {
          device const tc_vec16<float> *const q60 = reinterpret_cast<device const tc_vec16<float> *>(v8_A + a57);
          v56[0] = q60->e[0];
          v56[1] = q60->e[1];
          v56[2] = q60->e[2];
          v56[3] = q60->e[3];
        }
        else {
          if (c58 < v1_A_0_i32 && c59 >= 0 && c59 < v2_A_1) v56[0] = v8_A[a57]; else v56[0] = 0.0e+00f;
          if (c58 < v1_A_0_i32 && c59 + 1 >= 0 && c59 + 1 < v2_A_1) v56[1] = v8_A[a57 + 1]; else v56[1] = 0.0e+00f;
          if (c58 < v1_A_0_i32 && c59 + 2 >= 0 && c59 + 2 < v2_A_1) v56[2] = v8_A[a57 + 2]; else v56[2] = 0.0e+00f;
          if (c58 < v1_A_0_i32 && c59 + 3 >= 0 && c59 + 3 < v2_A_1) v56[3] = v8_A[a57 + 3]; else v56[3] = 0.0e+00f;
        }
      }
      /* tilec: view#55 at matmul.py */
      /* tilec: store#56 at matmul.py */
      {
        const int a61 = v52 * 640 + (v26_tid * 4 >> 4) * 20 + (v26_tid * 4 & 15);
        if ((((a61) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q62 = reinterpret_cast<threadgroup tc_vec16<float> *>(v24_stage_0_ring + a61);
          q62->e[0] = v56[0];
          q62->e[1] = v56[1];
          q62->e[2] = v56[2];
          q62->e[3] = v56[3];
        }
        else {
          v24_stage_0_ring[a61] = v56[0];
          v24_stage_0_ring[a61 + 1] = v56[1];
          v24_stage_0_ring[a61 + 2] = v56[2];
          v24_stage_0_ring[a61 + 3] = v56[3];
        }
      }
      /* tilec: arith#57 at matmul.py */
      const int64_t v63 = ((int64_t)(v49 * (int64_t)16));
      /* tilec: arith#58 at matmul.py */
      const int64_t v64 = ((int64_t)((int64_t)v23_pn * (int64_t)32));
      /* tilec: view#59 at matmul.py */
      /* tilec: view#60 at matmul.py */
      /* tilec: view#61 at matmul.py */
      /* tilec: load#62 at matmul.py */
      float v65[4];
      {
        const int64_t a66 = (int64_t)(v63 + (v26_tid * 4 >> 5)) * v10_B_s11 + (v64 + (v26_tid * 4 & 31));
        const int64_t c67 = (v63 + (v26_tid * 4 >> 5));
        const int lim68 = tc_sat32(v4_B_1 - v64);
        const int c69 = (v26_tid * 4 & 31);
        if (c67 >= 0 && c67 < v3_B_0 && c69 + 3 < lim68 && (tc_al_v10_B && (((a66) & 3) == 0))) {
          device const tc_vec16<float> *const q70 = reinterpret_cast<device const tc_vec16<float> *>(v10_B + a66);
          v65[0] = q70->e[0];
          v65[1] = q70->e[1];
          v65[2] = q70->e[2];
          v65[3] = q70->e[3];
        }
        else {
          if (c67 >= 0 && c67 < v3_B_0 && c69 < lim68) v65[0] = v10_B[a66]; else v65[0] = 0.0e+00f;
          if (c67 >= 0 && c67 < v3_B_0 && c69 + 1 < lim68) v65[1] = v10_B[a66 + 1]; else v65[1] = 0.0e+00f;
          if (c67 >= 0 && c67 < v3_B_0 && c69 + 2 < lim68) v65[2] = v10_B[a66 + 2]; else v65[2] = 0.0e+00f;
          if (c67 >= 0 && c67 < v3_B_0 && c69 + 3 < lim68) v65[3] = v10_B[a66 + 3]; else v65[3] = 0.0e+00f;
        }
      }
      /* tilec: view#63 at matmul.py */
      /* tilec: store#64 at matmul.py */
      {
        const int a71 = v52 * 576 + (v26_tid * 4 >> 5) * 36 + (v26_tid * 4 & 31);
        if ((((a71) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q72 = reinterpret_cast<threadgroup tc_vec16<float> *>(v25_stage_1_ring + a71);
          q72->e[0] = v65[0];
          q72->e[1] = v65[1];
          q72->e[2] = v65[2];
          q72->e[3] = v65[3];
        }
        else {
          v25_stage_1_ring[a71] = v65[0];
          v25_stage_1_ring[a71 + 1] = v65[1];
          v25_stage_1_ring[a71 + 2] = v65[2];
          v25_stage_1_ring[a71 + 3] = v65[3];
        }
      }
    }
    else {
    }
    /* tilec: view#65 at matmul.py */
    /* tilec: view#66 at matmul.py */
    /* tilec: arith#67 at matmul.py */
    const int v73 = ((int)(v22_pm * 32));
    /* tilec: arith#68 at matmul.py */
    const int64_t v74 = ((int64_t)(v48 * (int64_t)16));
    /* tilec: arith#69 at matmul.py */
    const int64_t v75 = ((int64_t)((int64_t)v23_pn * (int64_t)32));
    /* tilec: constant#70 at matmul.py */
    /* tilec: serial#71 at matmul.py */
    float v76[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) v76[e] = v46[e];
    #pragma unroll 4
    for (int v77 = 0; v77 < 4; v77 += 1) {
      /* tilec: view#72 at matmul.py */
      /* tilec: load#73 at matmul.py */
      float v78[8];
      {
        const int a79 = m47 * 640 + (((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * 20 + v77 * 4;
        threadgroup const tc_vec16<float> *const q80 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v24_stage_0_ring + a79);
        v78[0] = q80->e[0];
        v78[1] = q80->e[1];
        v78[2] = q80->e[2];
        v78[3] = q80->e[3];
      }
      {
        const int a81 = m47 * 640 + (((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * 20 + v77 * 4 + 160;
        threadgroup const tc_vec16<float> *const q82 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v24_stage_0_ring + a81);
        v78[4] = q82->e[0];
        v78[5] = q82->e[1];
        v78[6] = q82->e[2];
        v78[7] = q82->e[3];
      }
      /* tilec: view#74 at matmul.py */
      /* tilec: load#75 at matmul.py */
      float v83[16];
      {
        const int a84 = m47 * 576 + (v77 * 4) * 36 + (((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4);
        threadgroup const tc_vec16<float> *const q85 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v25_stage_1_ring + a84);
        v83[0] = q85->e[0];
        v83[1] = q85->e[1];
        v83[2] = q85->e[2];
        v83[3] = q85->e[3];
      }
      {
        const int a86 = m47 * 576 + (v77 * 4) * 36 + (((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 36;
        threadgroup const tc_vec16<float> *const q87 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v25_stage_1_ring + a86);
        v83[4] = q87->e[0];
        v83[5] = q87->e[1];
        v83[6] = q87->e[2];
        v83[7] = q87->e[3];
      }
      {
        const int a88 = m47 * 576 + (v77 * 4) * 36 + (((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 72;
        threadgroup const tc_vec16<float> *const q89 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v25_stage_1_ring + a88);
        v83[8] = q89->e[0];
        v83[9] = q89->e[1];
        v83[10] = q89->e[2];
        v83[11] = q89->e[3];
      }
      {
        const int a90 = m47 * 576 + (v77 * 4) * 36 + (((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 108;
        threadgroup const tc_vec16<float> *const q91 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v25_stage_1_ring + a90);
        v83[12] = q91->e[0];
        v83[13] = q91->e[1];
        v83[14] = q91->e[2];
        v83[15] = q91->e[3];
      }
      /* tilec: reindex#76 at matmul.py */
      float v92[8];
      v92[0] = v78[0];
      v92[1] = v78[0];
      v92[2] = v78[0];
      v92[3] = v78[0];
      v92[4] = v78[4];
      v92[5] = v78[4];
      v92[6] = v78[4];
      v92[7] = v78[4];
      /* tilec: reindex#77 at matmul.py */
      float v93[8];
      v93[0] = v83[0];
      v93[1] = v83[1];
      v93[2] = v83[2];
      v93[3] = v83[3];
      v93[4] = v83[0];
      v93[5] = v83[1];
      v93[6] = v83[2];
      v93[7] = v83[3];
      /* tilec: map#78 at matmul.py */
      float v94[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v95 = v76[e];
        const float v96 = v92[e];
        const float v97 = v93[e];
        /* tilec: arith#79 */
        const float v98 = tc_fma_f32(v96, v97, v95);
        v94[e] = v98;
      }
      /* tilec: reindex#80 at matmul.py */
      float v99[8];
      v99[0] = v78[1];
      v99[1] = v78[1];
      v99[2] = v78[1];
      v99[3] = v78[1];
      v99[4] = v78[5];
      v99[5] = v78[5];
      v99[6] = v78[5];
      v99[7] = v78[5];
      /* tilec: reindex#81 at matmul.py */
      float v100[8];
      v100[0] = v83[4];
      v100[1] = v83[5];
      v100[2] = v83[6];
      v100[3] = v83[7];
      v100[4] = v83[4];
      v100[5] = v83[5];
      v100[6] = v83[6];
      v100[7] = v83[7];
      /* tilec: map#82 at matmul.py */
      float v101[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v102 = v94[e];
        const float v103 = v99[e];
        const float v104 = v100[e];
        /* tilec: arith#83 */
        const float v105 = tc_fma_f32(v103, v104, v102);
        v101[e] = v105;
      }
      /* tilec: reindex#84 at matmul.py */
      float v106[8];
      v106[0] = v78[2];
      v106[1] = v78[2];
      v106[2] = v78[2];
      v106[3] = v78[2];
      v106[4] = v78[6];
      v106[5] = v78[6];
      v106[6] = v78[6];
      v106[7] = v78[6];
      /* tilec: reindex#85 at matmul.py */
      float v107[8];
      v107[0] = v83[8];
      v107[1] = v83[9];
      v107[2] = v83[10];
      v107[3] = v83[11];
      v107[4] = v83[8];
      v107[5] = v83[9];
      v107[6] = v83[10];
      v107[7] = v83[11];
      /* tilec: map#86 at matmul.py */
      float v108[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v109 = v101[e];
        const float v110 = v106[e];
        const float v111 = v107[e];
        /* tilec: arith#87 */
        const float v112 = tc_fma_f32(v110, v111, v109);
        v108[e] = v112;
      }
      /* tilec: reindex#88 at matmul.py */
      float v113[8];
      v113[0] = v78[3];
      v113[1] = v78[3];
      v113[2] = v78[3];
      v113[3] = v78[3];
      v113[4] = v78[7];
      v113[5] = v78[7];
      v113[6] = v78[7];
      v113[7] = v78[7];
      /* tilec: reindex#89 at matmul.py */
      float v114[8];
      v114[0] = v83[12];
      v114[1] = v83[13];
      v114[2] = v83[14];
      v114[3] = v83[15];
      v114[4] = v83[12];
      v114[5] = v83[13];
      v114[6] = v83[14];
      v114[7] = v83[15];
      /* tilec: map#90 at matmul.py */
      float v115[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v116 = v108[e];
        const float v117 = v113[e];
        const float v118 = v114[e];
        /* tilec: arith#91 */
        const float v119 = tc_fma_f32(v117, v118, v116);
        v115[e] = v119;
      }
      #pragma unroll
      for (int e = 0; e < 8; ++e) v76[e] = v115[e];
    }
    /* tilec: arith#92 at matmul.py */
    const int v120 = ((int)(m47 + 1));
    /* tilec: constant#93 at matmul.py */
    /* tilec: arith#94 at matmul.py */
    const uint8_t v121 = (uint8_t)(v120 == 2);
    /* tilec: arith#95 at matmul.py */
    const int v122 = (v121 ? 0 : v120);
    const int y123 = v122;
    #pragma unroll
    for (int e = 0; e < 8; ++e) v46[e] = v76[e];
    m47 = y123;
  }
  /* tilec: arith#96 at matmul.py */
  const int64_t v124 = ((int64_t)((int64_t)v23_pn * (int64_t)32));
  /* tilec: view#97 at matmul.py */
  /* tilec: arith#98 at matmul.py */
  const int v125 = ((int)(v22_pm * 32));
  /* tilec: view#99 at matmul.py */
  /* tilec: view#100 at matmul.py */
  /* tilec: load#101 at matmul.py */
  float v126[4];
  {
    const int64_t c127 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4);
    if (c127 < v5_bias_0) v126[0] = v12_bias[(v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4)]; else v126[0] = 0.0e+00f;
  }
  {
    const int64_t c128 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 1);
    if (c128 < v5_bias_0) v126[1] = v12_bias[((v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 1)]; else v126[1] = 0.0e+00f;
  }
  {
    const int64_t c129 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 2);
    if (c129 < v5_bias_0) v126[2] = v12_bias[((v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 2)]; else v126[2] = 0.0e+00f;
  }
  {
    const int64_t c130 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 3);
    if (c130 < v5_bias_0) v126[3] = v12_bias[((v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 3)]; else v126[3] = 0.0e+00f;
  }
  /* tilec: reindex#102 at matmul.py */
  float v131[8];
  v131[0] = v126[0];
  v131[1] = v126[1];
  v131[2] = v126[2];
  v131[3] = v126[3];
  v131[4] = v126[0];
  v131[5] = v126[1];
  v131[6] = v126[2];
  v131[7] = v126[3];
  /* tilec: map#103 at matmul.py */
  float v132[8];
  #pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float v133_acc = v46[e];
    const float v134 = v131[e];
    /* tilec: constant#104 at matmul.py */
    /* tilec: arith#105 at matmul.py */
    const float v135 = (v133_acc + v134);
    /* tilec: arith#106 at matmul.py */
    const float v136 = (5.0e-01f * v135);
    /* tilec: constant#107 at matmul.py */
    /* tilec: constant#108 at matmul.py */
    /* tilec: arith#109 at matmul.py */
    const float v137 = (v135 * 7.0710677e-01f);
    /* tilec: arith#110 at matmul.py */
    const float v138 = tc_erf_f32(v137);
    /* tilec: arith#111 at matmul.py */
    const float v139 = (1.0e+00f + v138);
    /* tilec: arith#112 at matmul.py */
    const float v140 = (v136 * v139);
    v132[e] = v140;
  }
  /* tilec: view#113 at matmul.py */
  /* tilec: store#114 at matmul.py */
  {
    const int c141 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2));
    const int64_t c142 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4);
    if (c141 < v6_C_0_i32 && c142 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4)] = v132[0];
  }
  {
    const int c143 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2));
    const int64_t c144 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 1);
    if (c143 < v6_C_0_i32 && c144 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 1] = v132[1];
  }
  {
    const int c145 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2));
    const int64_t c146 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 2);
    if (c145 < v6_C_0_i32 && c146 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 2] = v132[2];
  }
  {
    const int c147 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2));
    const int64_t c148 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 3);
    if (c147 < v6_C_0_i32 && c148 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 3] = v132[3];
  }
  {
    const int c149 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2) + 8);
    const int64_t c150 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4);
    if (c149 < v6_C_0_i32 && c150 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + v13_C_s14 * 8 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4)] = v132[4];
  }
  {
    const int c151 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2) + 8);
    const int64_t c152 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 1);
    if (c151 < v6_C_0_i32 && c152 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + v13_C_s14 * 8 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 1] = v132[5];
  }
  {
    const int c153 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2) + 8);
    const int64_t c154 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 2);
    if (c153 < v6_C_0_i32 && c154 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + v13_C_s14 * 8 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 2] = v132[6];
  }
  {
    const int c155 = (v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2) + 8);
    const int64_t c156 = (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4 + 3);
    if (c155 < v6_C_0_i32 && c156 < v7_C_1) v13_C[(int64_t)(v125 + ((v26_tid >> 5) >> 1) * 16 + ((v26_tid & 31) >> 2)) * v13_C_s14 + v13_C_s14 * 8 + (v124 + ((v26_tid >> 5) & 1) * 16 + ((v26_tid & 31) & 3) * 4) + 3] = v132[7];
  }
}
