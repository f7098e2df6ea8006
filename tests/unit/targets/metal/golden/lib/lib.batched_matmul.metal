kernel void tilec_batched_matmul(
    device const float *v10_A [[buffer(0)]],
    device const float *v13_B [[buffer(1)]],
    device float *v16_C [[buffer(2)]],
    constant int64_t &v1_A_0 [[buffer(3)]],
    constant int64_t &v2_A_1 [[buffer(4)]],
    constant int64_t &v3_A_2 [[buffer(5)]],
    constant int64_t &v4_B_0 [[buffer(6)]],
    constant int64_t &v5_B_1 [[buffer(7)]],
    constant int64_t &v6_B_2 [[buffer(8)]],
    constant int64_t &v7_C_0 [[buffer(9)]],
    constant int64_t &v8_C_1 [[buffer(10)]],
    constant int64_t &v9_C_2 [[buffer(11)]],
    constant uint &tc_aligned [[buffer(12)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[320];  /* 5120 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v10_A_s11 = v2_A_1 * v3_A_2;
  const int64_t v10_A_s12 = v3_A_2;
  const bool tc_al_v10_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v13_B_s14 = v5_B_1 * v6_B_2;
  const int64_t v13_B_s15 = v6_B_2;
  const bool tc_al_v13_B = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v16_C_s17 = v8_C_1 * v9_C_2;
  const int64_t v16_C_s18 = v9_C_2;
  const bool tc_al_v16_C = ((tc_aligned >> 2) & 1u) != 0u;
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v2_A_1_i32 = (int)(v2_A_1 < INT64_C(2147483647) ? v2_A_1 : INT64_C(2147483647));
  const int v3_A_2_i32 = (int)(v3_A_2 < INT64_C(2147483647) ? v3_A_2 : INT64_C(2147483647));
  const int v4_B_0_i32 = (int)(v4_B_0 < INT64_C(2147483647) ? v4_B_0 : INT64_C(2147483647));
  const int v5_B_1_i32 = (int)(v5_B_1 < INT64_C(2147483647) ? v5_B_1 : INT64_C(2147483647));
  const int v7_C_0_i32 = (int)(v7_C_0 < INT64_C(2147483647) ? v7_C_0 : INT64_C(2147483647));
  const int v8_C_1_i32 = (int)(v8_C_1 < INT64_C(2147483647) ? v8_C_1 : INT64_C(2147483647));
  /* tilec: arith#1 at matmul.py */
  const uint8_t v19_ok = (uint8_t)(v4_B_0 == v1_A_0);
  /* tilec: arith#2 at matmul.py */
  const uint8_t v20_ok = (uint8_t)(v5_B_1 == v3_A_2);
  /* tilec: arith#3 at matmul.py */
  const uint8_t v21_ok = (uint8_t)(v7_C_0 == v1_A_0);
  /* tilec: arith#4 at matmul.py */
  const uint8_t v22_ok = (uint8_t)(v8_C_1 == v2_A_1);
  /* tilec: arith#5 at matmul.py */
  const uint8_t v23_ok = (uint8_t)(v9_C_2 == v6_B_2);
  /* tilec: arith#6 at matmul.py */
  const uint8_t v24_ok = (v21_ok & v22_ok);
  /* tilec: arith#7 at matmul.py */
  const uint8_t v25_ok = (v24_ok & v23_ok);
  /* tilec: constant#8 at matmul.py */
  /* tilec: arith#9 at matmul.py */
  const int64_t v26 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 16)));
  /* tilec: arith#10 at matmul.py */
  const int64_t v27 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v6_B_2), 16)));
  /* tilec: parallel#11 at matmul.py */
  const int v28_b = (int)tc_group.z;
  const int v29_pm = (int)tc_group.y;
  const int v30_pn = (int)tc_group.x;
  /* tilec: constant#12 at matmul.py */
  /* tilec: memory#13 at matmul.py */
  threadgroup float *const v31_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 2560 bytes */
  /* tilec: memory#14 at matmul.py */
  threadgroup float *const v32_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 2560);  /* 2560 bytes */
  /* tilec: parallel#15 at matmul.py */
  const int v33_tid = (int)tc_lane;
  /* tilec: constant#16 at matmul.py */
  /* tilec: constant#17 at matmul.py */
  /* tilec: constant#18 at matmul.py */
  /* tilec: arith#19 at matmul.py */
  const int64_t v34 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v3_A_2), 16)));
  /* tilec: constant#20 at matmul.py */
  /* tilec: constant#21 at matmul.py */
  /* tilec: arith#22 at matmul.py */
  const uint8_t v35 = (uint8_t)(0 < v34);
  /* tilec: if#23 at matmul.py */
  if (v35) {
    /* tilec: arith#24 at matmul.py */
    const int v36 = ((int)(v29_pm * 16));
    /* tilec: arith#25 at matmul.py */
    /* tilec: view#26 at matmul.py */
    /* tilec: view#27 at matmul.py */
    /* tilec: view#28 at matmul.py */
    /* tilec: load#29 at matmul.py */
    float v37[4];
    {
      const int64_t a38 = (int64_t)v28_b * v10_A_s11 + (int64_t)(v36 + (v33_tid * 4 >> 4)) * v10_A_s12 + (v33_tid * 4 & 15);
      const int c39 = v28_b;
      const int c40 = (v36 + (v33_tid * 4 >> 4));
      const int c41 = (v33_tid * 4 & 15);
      if (c39 < v1_A_0_i32 && c40 < v2_A_1_i32 && c41 + 3 < v3_A_2_i32 && (tc_al_v10_A && (((a38) & 3) == 0))) {
        device const tc_vec16<float> *const q42 = reinterpret_cast<device const tc_vec16<float> *>(v10_A + a38);
        v37[0] = q42->e[0];
        v37[1] = q42->e[1];
        v37[2] = q42->e[2];
        v37[3] = q42->e[3];
      }
      else {
        if (c39 < v1_A_0_i32 && c40 < v2_A_1_i32 && c41 < v3_A_2_i32) v37[0] = v10_A[a38]; else v37[0] = 0.0e+00f;
        if (c39 < v1_A_0_i32 && c40 < v2_A_1_i32 && c41 + 1 < v3_A_2_i32) v37[1] = v10_A[a38 + 1]; else v37[1] = 0.0e+00f;
        if (c39 < v1_A_0_i32 && c40 < v2_A_1_i32 && c41 + 2 < v3_A_2_i32) v37[2] = v10_A[a38 + 2]; else v37[2] = 0.0e+00f;
        if (c39 < v1_A_0_i32 && c40 < v2_A_1_i32 && c41 + 3 < v3_A_2_i32) v37[3] = v10_A[a38 + 3]; else v37[3] = 0.0e+00f;
      }
    }
    /* tilec: view#30 at matmul.py */
    /* tilec: store#31 at matmul.py */
    {
      const int a43 = (v33_tid * 4 >> 4) * 20 + (v33_tid * 4 & 15);
      if ((((a43) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q44 = reinterpret_cast<threadgroup tc_vec16<float> *>(v31_stage_0_ring + a43);
        q44->e[0] = v37[0];
        q44->e[1] = v37[1];
        q44->e[2] = v37[2];
        q44->e[3] = v37[3];
      }
      else {
        v31_stage_0_ring[a43] = v37[0];
        v31_stage_0_ring[a43 + 1] = v37[1];
        v31_stage_0_ring[a43 + 2] = v37[2];
        v31_stage_0_ring[a43 + 3] = v37[3];
      }
    }
    /* tilec: arith#32 at matmul.py */
    /* tilec: arith#33 at matmul.py */
    const int64_t v45 = ((int64_t)((int64_t)v30_pn * (int64_t)16));
    /* tilec: view#34 at matmul.py */
    /* tilec: view#35 at matmul.py */
    /* tilec: view#36 at matmul.py */
    /* tilec: load#37 at matmul.py */
    float v46[4];
    {
      const int64_t a47 = (int64_t)v28_b * v13_B_s14 + (int64_t)(v33_tid * 4 >> 4) * v13_B_s15 + (v45 + (v33_tid * 4 & 15));
      const int c48 = v28_b;
      const int c49 = (v33_tid * 4 >> 4);
      const int lim50 = tc_sat32(v6_B_2 - v45);
      const int c51 = (v33_tid * 4 & 15);
      if (c48 < v4_B_0_i32 && c49 < v5_B_1_i32 && c51 + 3 < lim50 && (tc_al_v13_B && (((a47) & 3) == 0))) {
        device const tc_vec16<float> *const q52 = reinterpret_cast<device const tc_vec16<float> *>(v13_B + a47);
        v46[0] = q52->e[0];
        v46[1] = q52->e[1];
        v46[2] = q52->e[2];
        v46[3] = q52->e[3];
      }
      else {
        if (c48 < v4_B_0_i32 && c49 < v5_B_1_i32 && c51 < lim50) v46[0] = v13_B[a47]; else v46[0] = 0.0e+00f;
        if (c48 < v4_B_0_i32 && c49 < v5_B_1_i32 && c51 + 1 < lim50) v46[1] = v13_B[a47 + 1]; else v46[1] = 0.0e+00f;
        if (c48 < v4_B_0_i32 && c49 < v5_B_1_i32 && c51 + 2 < lim50) v46[2] = v13_B[a47 + 2]; else v46[2] = 0.0e+00f;
        if (c48 < v4_B_0_i32 && c49 < v5_B_1_i32 && c51 + 3 < lim50) v46[3] = v13_B[a47 + 3]; else v46[3] = 0.0e+00f;
      }
    }
    /* tilec: view#38 at matmul.py */
    /* tilec: store#39 at matmul.py */
    {
      const int a53 = (v33_tid * 4 >> 4) * 20 + (v33_tid * 4 & 15);
      if ((((a53) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q54 = reinterpret_cast<threadgroup tc_vec16<float> *>(v32_stage_1_ring + a53);
        q54->e[0] = v46[0];
        q54->e[1] = v46[1];
        q54->e[2] = v46[2];
        q54->e[3] = v46[3];
      }
      else {
        v32_stage_1_ring[a53] = v46[0];
        v32_stage_1_ring[a53 + 1] = v46[1];
        v32_stage_1_ring[a53 + 2] = v46[2];
        v32_stage_1_ring[a53 + 3] = v46[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#40 at matmul.py */
  float v55[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v55[e] = 0.0e+00f;
  int m56 = 0;
  for (int64_t v57 = INT64_C(0); v57 < v34; v57 += INT64_C(1)) {
    /* tilec: atom.call#41 at matmul.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#42 at matmul.py */
    /* tilec: arith#43 at matmul.py */
    /* tilec: arith#44 at matmul.py */
    const int64_t v58 = ((int64_t)(v57 + (int64_t)1));
    /* tilec: arith#45 at matmul.py */
    const uint8_t v59 = (uint8_t)(m56 == 0);
    /* tilec: arith#46 at matmul.py */
    const int v60 = ((int)(m56 - 1));
    /* tilec: arith#47 at matmul.py */
    const int v61 = (v59 ? 1 : v60);
    /* tilec: arith#48 at matmul.py */
    const uint8_t v62 = (uint8_t)(v58 < v34);
    /* tilec: if#49 at matmul.py */
    if (v62) {
      /* tilec: arith#50 at matmul.py */
      const int v63 = ((int)(v29_pm * 16));
      /* tilec: arith#51 at matmul.py */
      const int64_t v64 = ((int64_t)(v58 * (int64_t)16));
      /* tilec: view#52 at matmul.py */
      /* tilec: view#53 at matmul.py */
      /* tilec: view#54 at matmul.py */
      /* tilec: load#55 at matmul.py */
      float v65[4];
      {
        const int64_t a66 = (int64_t)v28_b * v10_A_s11 + (int64_t)(v63 + (v33_tid * 4 >> 4)) * v10_A_s12 + (v64 + (v33_tid * 4 & 15));
        const int c67 = v28_b;
        const int c68 = (v63 + (v33_tid * 4 >> 4));
        const int64_t c69 = (v64 + (v33_tid * 4 & 15));
        if (c67 < v1_A_0_i32 && c68 < v2_A_1_i32 && c69 >= 0 && c69 + 3 < v3_A_2 && (tc_al_v10_A && (((a66) & 3) == 0))) {
          device const tc_vec16<float> *const q70 = reinterpret_cast<device const tc_vec16<float> *>(v10_A + a66);
          v65[0] = q70->e[0];
          v65[1] = q70->e[1];
          v65[2] = q70->e[2];
          v65[3] = q70->e[3];
        }
        else {
          if (c67 < v1_A_0_i32 && c68 < v2_A_1_i32 && c69 >= 0 && c69 < v3_A_2) v65[0] = v10_A[a66]; else v65[0] = 0.0e+00f;
          if (c67 < v1_A_0_i32 && c68 < v2_A_1_i32 && c69 + 1 >= 0 && c69 + 1 < v3_A_2) v65[1] = v10_A[a66 + 1]; else v65[1] = 0.0e+00f;
          if (c67 < v1_A_0_i32 && c68 < v2_A_1_i32 && c69 + 2 >= 0 && c69 + 2 < v3_A_2) v65[2] = v10_A[a66 + 2]; else v65[2] = 0.0e+00f;
          if (c67 < v1_A_0_i32 && c68 < v2_A_1_i32 && c69 + 3 >= 0 && c69 + 3 < v3_A_2) v65[3] = v10_A[a66 + 3]; else v65[3] = 0.0e+00f;
        }
      }
      /* tilec: view#56 at matmul.py */
      /* tilec: store#57 at matmul.py */
      {
        const int a71 = v61 * 320 + (v33_tid * 4 >> 4) * 20 + (v33_tid * 4 & 15);
        if ((((a71) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q72 = reinterpret_cast<threadgroup tc_vec16<float> *>(v31_stage_0_ring + a71);
          q72->e[0] = v65[0];
          q72->e[1] = v65[1];
          q72->e[2] = v65[2];
          q72->e[3] = v65[3];
        }
        else {
          v31_stage_0_ring[a71] = v65[0];
          v31_stage_0_ring[a71 + 1] = v65[1];
          v31_stage_0_ring[a71 + 2] = v65[2];
          v31_stage_0_ring[a71 + 3] = v65[3];
        }
      }
      /* tilec: arith#58 at matmul.py */
      const int64_t v73 = ((int64_t)(v58 * (int64_t)16));
      /* tilec: arith#59 at matmul.py */
      const int64_t v74 = ((int64_t)((int64_t)v30_pn * (int64_t)16));
      /* tilec: view#60 at matmul.py */
      /* tilec: view#61 at matmul.py */
      /* tilec: view#62 at matmul.py */
      /* tilec: load#63 at matmul.py */
      float v75[4];
      {
        const int64_t a76 = (int64_t)v28_b * v13_B_s14 + (int64_t)(v73 + (v33_tid * 4 >> 4)) * v13_B_s15 + (v74 + (v33_tid * 4 & 15));
        const int c77 = v28_b;
        const int64_t c78 = (v73 + (v33_tid * 4 >> 4));
        const int lim79 = tc_sat32(v6_B_2 - v74);
        const int c80 = (v33_tid * 4 & 15);
        if (c77 < v4_B_0_i32 && c78 >= 0 && c78 < v5_B_1 && c80 + 3 < lim79 && (tc_al_v13_B && (((a76) & 3) == 0))) {
          device const tc_vec16<float> *const q81 = reinterpret_cast<device const tc_vec16<float> *>(v13_B + a76);
          v75[0] = q81->e[0];
          v75[1] = q81->e[1];
          v75[2] = q81->e[2];
          v75[3] = q81->e[3];
        }
        else {
          if (c77 < v4_B_0_i32 && c78 >= 0 && c78 < v5_B_1 && c80 < lim79) v75[0] = v13_B[a76]; else v75[0] = 0.0e+00f;
          if (c77 < v4_B_0_i32 && c78 >= 0 && c78 < v5_B_1 && c80 + 1 < lim79) v75[1] = v13_B[a76 + 1]; else v75[1] = 0.0e+00f;
          if (c77 < v4_B_0_i32 && c78 >= 0 && c78 < v5_B_1 && c80 + 2 < lim79) v75[2] = v13_B[a76 + 2]; else v75[2] = 0.0e+00f;
          if (c77 < v4_B_0_i32 && c78 >= 0 && c78 < v5_B_1 && c80 + 3 < lim79) v75[3] = v13_B[a76 + 3]; else v75[3] = 0.0e+00f;
        }
      }
      /* tilec: view#64 at matmul.py */
      /* tilec: store#65 at matmul.py */
      {
        const int a82 = v61 * 320 + (v33_tid * 4 >> 4) * 20 + (v33_tid * 4 & 15);
        if ((((a82) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q83 = reinterpret_cast<threadgroup tc_vec16<float> *>(v32_stage_1_ring + a82);
          q83->e[0] = v75[0];
          q83->e[1] = v75[1];
          q83->e[2] = v75[2];
          q83->e[3] = v75[3];
        }
        else {
          v32_stage_1_ring[a82] = v75[0];
          v32_stage_1_ring[a82 + 1] = v75[1];
          v32_stage_1_ring[a82 + 2] = v75[2];
          v32_stage_1_ring[a82 + 3] = v75[3];
        }
      }
    }
    else {
    }
    /* tilec: view#66 at matmul.py */
    /* tilec: view#67 at matmul.py */
    /* tilec: arith#68 at matmul.py */
    const int v84 = ((int)(v29_pm * 16));
    /* tilec: arith#69 at matmul.py */
    const int64_t v85 = ((int64_t)(v57 * (int64_t)16));
    /* tilec: arith#70 at matmul.py */
    const int64_t v86 = ((int64_t)((int64_t)v30_pn * (int64_t)16));
    /* tilec: constant#71 at matmul.py */
    /* tilec: serial#72 at matmul.py */
    float v87[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v87[e] = v55[e];
    #pragma unroll 4
    for (int v88 = 0; v88 < 4; v88 += 1) {
      /* tilec: view#73 at matmul.py */
      /* tilec: load#74 at matmul.py */
      float v89[8];
      {
        const int a90 = m56 * 320 + ((v33_tid & 31) >> 2) * 20 + v88 * 4;
        threadgroup const tc_vec16<float> *const q91 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v31_stage_0_ring + a90);
        v89[0] = q91->e[0];
        v89[1] = q91->e[1];
        v89[2] = q91->e[2];
        v89[3] = q91->e[3];
      }
      {
        const int a92 = m56 * 320 + ((v33_tid & 31) >> 2) * 20 + v88 * 4 + 160;
        threadgroup const tc_vec16<float> *const q93 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v31_stage_0_ring + a92);
        v89[4] = q93->e[0];
        v89[5] = q93->e[1];
        v89[6] = q93->e[2];
        v89[7] = q93->e[3];
      }
      /* tilec: view#75 at matmul.py */
      /* tilec: load#76 at matmul.py */
      float v94[8];
      {
        v94[0] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2)];
      }
      {
        v94[1] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 1];
      }
      {
        v94[2] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 20];
      }
      {
        v94[3] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 21];
      }
      {
        v94[4] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 40];
      }
      {
        v94[5] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 41];
      }
      {
        v94[6] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 60];
      }
      {
        v94[7] = v32_stage_1_ring[m56 * 320 + (v88 * 4) * 20 + ((v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 61];
      }
      /* tilec: reindex#77 at matmul.py */
      float v95[4];
      v95[0] = v89[0];
      v95[1] = v89[0];
      v95[2] = v89[4];
      v95[3] = v89[4];
      /* tilec: reindex#78 at matmul.py */
      float v96[4];
      v96[0] = v94[0];
      v96[1] = v94[1];
      v96[2] = v94[0];
      v96[3] = v94[1];
      /* tilec: map#79 at matmul.py */
      float v97[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v98 = v87[e];
        const float v99 = v95[e];
        const float v100 = v96[e];
        /* tilec: arith#80 */
        const float v101 = tc_fma_f32(v99, v100, v98);
        v97[e] = v101;
      }
      /* tilec: reindex#81 at matmul.py */
      float v102[4];
      v102[0] = v89[1];
      v102[1] = v89[1];
      v102[2] = v89[5];
      v102[3] = v89[5];
      /* tilec: reindex#82 at matmul.py */
      float v103[4];
      v103[0] = v94[2];
      v103[1] = v94[3];
      v103[2] = v94[2];
      v103[3] = v94[3];
      /* tilec: map#83 at matmul.py */
      float v104[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v105 = v97[e];
        const float v106 = v102[e];
        const float v107 = v103[e];
        /* tilec: arith#84 */
        const float v108 = tc_fma_f32(v106, v107, v105);
        v104[e] = v108;
      }
      /* tilec: reindex#85 at matmul.py */
      float v109[4];
      v109[0] = v89[2];
      v109[1] = v89[2];
      v109[2] = v89[6];
      v109[3] = v89[6];
      /* tilec: reindex#86 at matmul.py */
      float v110[4];
      v110[0] = v94[4];
      v110[1] = v94[5];
      v110[2] = v94[4];
      v110[3] = v94[5];
      /* tilec: map#87 at matmul.py */
      float v111[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v112 = v104[e];
        const float v113 = v109[e];
        const float v114 = v110[e];
        /* tilec: arith#88 */
        const float v115 = tc_fma_f32(v113, v114, v112);
        v111[e] = v115;
      }
      /* tilec: reindex#89 at matmul.py */
      float v116[4];
      v116[0] = v89[3];
      v116[1] = v89[3];
      v116[2] = v89[7];
      v116[3] = v89[7];
      /* tilec: reindex#90 at matmul.py */
      float v117[4];
      v117[0] = v94[6];
      v117[1] = v94[7];
      v117[2] = v94[6];
      v117[3] = v94[7];
      /* tilec: map#91 at matmul.py */
      float v118[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v119 = v111[e];
        const float v120 = v116[e];
        const float v121 = v117[e];
        /* tilec: arith#92 */
        const float v122 = tc_fma_f32(v120, v121, v119);
        v118[e] = v122;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v87[e] = v118[e];
    }
    /* tilec: arith#93 at matmul.py */
    const int v123 = ((int)(m56 + 1));
    /* tilec: constant#94 at matmul.py */
    /* tilec: arith#95 at matmul.py */
    const uint8_t v124 = (uint8_t)(v123 == 2);
    /* tilec: arith#96 at matmul.py */
    const int v125 = (v124 ? 0 : v123);
    const int y126 = v125;
    #pragma unroll
    for (int e = 0; e < 4; ++e) v55[e] = v87[e];
    m56 = y126;
  }
  /* tilec: arith#97 at matmul.py */
  const int v127 = ((int)(v29_pm * 16));
  /* tilec: arith#98 at matmul.py */
  const int64_t v128 = ((int64_t)((int64_t)v30_pn * (int64_t)16));
  /* tilec: view#99 at matmul.py */
  /* tilec: view#100 at matmul.py */
  /* tilec: store#101 at matmul.py */
  {
    const int c129 = v28_b;
    const int c130 = (v127 + ((v33_tid & 31) >> 2));
    const int64_t c131 = (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2);
    if (c129 < v7_C_0_i32 && c130 < v8_C_1_i32 && c131 < v9_C_2) v16_C[(int64_t)v28_b * v16_C_s17 + (int64_t)(v127 + ((v33_tid & 31) >> 2)) * v16_C_s18 + (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2)] = v55[0];
  }
  {
    const int c132 = v28_b;
    const int c133 = (v127 + ((v33_tid & 31) >> 2));
    const int64_t c134 = (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2 + 1);
    if (c132 < v7_C_0_i32 && c133 < v8_C_1_i32 && c134 < v9_C_2) v16_C[(int64_t)v28_b * v16_C_s17 + (int64_t)(v127 + ((v33_tid & 31) >> 2)) * v16_C_s18 + (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 1] = v55[1];
  }
  {
    const int c135 = v28_b;
    const int c136 = (v127 + ((v33_tid & 31) >> 2) + 8);
    const int64_t c137 = (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2);
    if (c135 < v7_C_0_i32 && c136 < v8_C_1_i32 && c137 < v9_C_2) v16_C[(int64_t)v28_b * v16_C_s17 + (int64_t)(v127 + ((v33_tid & 31) >> 2)) * v16_C_s18 + v16_C_s18 * 8 + (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2)] = v55[2];
  }
  {
    const int c138 = v28_b;
    const int c139 = (v127 + ((v33_tid & 31) >> 2) + 8);
    const int64_t c140 = (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2 + 1);
    if (c138 < v7_C_0_i32 && c139 < v8_C_1_i32 && c140 < v9_C_2) v16_C[(int64_t)v28_b * v16_C_s17 + (int64_t)(v127 + ((v33_tid & 31) >> 2)) * v16_C_s18 + v16_C_s18 * 8 + (v128 + (v33_tid >> 5) * 8 + ((v33_tid & 31) & 3) * 2) + 1] = v55[3];
  }
}
