kernel void tilec_flash_attention(
    device const float *v13_Q [[buffer(0)]],
    device const float *v16_K [[buffer(1)]],
    device const float *v19_V [[buffer(2)]],
    device float *v22_Out [[buffer(3)]],
    constant float &v25_scale [[buffer(4)]],
    constant int64_t &v1_Q_0 [[buffer(5)]],
    constant int64_t &v2_Q_1 [[buffer(6)]],
    constant int64_t &v3_Q_2 [[buffer(7)]],
    constant int64_t &v4_K_0 [[buffer(8)]],
    constant int64_t &v5_K_1 [[buffer(9)]],
    constant int64_t &v6_K_2 [[buffer(10)]],
    constant int64_t &v7_V_0 [[buffer(11)]],
    constant int64_t &v8_V_1 [[buffer(12)]],
    constant int64_t &v9_V_2 [[buffer(13)]],
    constant int64_t &v10_Out_0 [[buffer(14)]],
    constant int64_t &v11_Out_1 [[buffer(15)]],
    constant int64_t &v12_Out_2 [[buffer(16)]],
    constant uint &tc_aligned [[buffer(17)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[1568];  /* 25088 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v13_Q_s14 = v2_Q_1 * v3_Q_2;
  const int64_t v13_Q_s15 = v3_Q_2;
  const bool tc_al_v13_Q = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v16_K_s17 = v5_K_1 * v6_K_2;
  const int64_t v16_K_s18 = v6_K_2;
  const bool tc_al_v16_K = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v19_V_s20 = v8_V_1 * v9_V_2;
  const int64_t v19_V_s21 = v9_V_2;
  const bool tc_al_v19_V = ((tc_aligned >> 2) & 1u) != 0u;
  const int64_t v22_Out_s23 = v11_Out_1 * v12_Out_2;
  const int64_t v22_Out_s24 = v12_Out_2;
  const bool tc_al_v22_Out = ((tc_aligned >> 3) & 1u) != 0u;
  const int v3_Q_2_i32 = (int)(v3_Q_2 < INT64_C(2147483647) ? v3_Q_2 : INT64_C(2147483647));
  const int v4_K_0_i32 = (int)(v4_K_0 < INT64_C(2147483647) ? v4_K_0 : INT64_C(2147483647));
  const int v5_K_1_i32 = (int)(v5_K_1 < INT64_C(2147483647) ? v5_K_1 : INT64_C(2147483647));
  const int v6_K_2_i32 = (int)(v6_K_2 < INT64_C(2147483647) ? v6_K_2 : INT64_C(2147483647));
  const int v1_Q_0_i32 = (int)(v1_Q_0 < INT64_C(2147483647) ? v1_Q_0 : INT64_C(2147483647));
  const int v7_V_0_i32 = (int)(v7_V_0 < INT64_C(2147483647) ? v7_V_0 : INT64_C(2147483647));
  const int v8_V_1_i32 = (int)(v8_V_1 < INT64_C(2147483647) ? v8_V_1 : INT64_C(2147483647));
  const int v9_V_2_i32 = (int)(v9_V_2 < INT64_C(2147483647) ? v9_V_2 : INT64_C(2147483647));
  const int v10_Out_0_i32 = (int)(v10_Out_0 < INT64_C(2147483647) ? v10_Out_0 : INT64_C(2147483647));
  const int v12_Out_2_i32 = (int)(v12_Out_2 < INT64_C(2147483647) ? v12_Out_2 : INT64_C(2147483647));
  /* tilec: constant#1 at attention.py */
  /* tilec: arith#2 at attention.py */
  const uint8_t v26_ok = (uint8_t)(v3_Q_2_i32 <= 32);
  /* tilec: arith#3 at attention.py */
  const uint8_t v27_ok = (uint8_t)(v4_K_0 == v1_Q_0);
  /* tilec: arith#4 at attention.py */
  const uint8_t v28_ok = (uint8_t)(v7_V_0 == v1_Q_0);
  /* tilec: arith#5 at attention.py */
  const uint8_t v29_ok = (v27_ok & v28_ok);
  /* tilec: arith#6 at attention.py */
  const uint8_t v30_ok = (uint8_t)(v6_K_2 == v3_Q_2);
  /* tilec: arith#7 at attention.py */
  const uint8_t v31_ok = (uint8_t)(v9_V_2 == v3_Q_2);
  /* tilec: arith#8 at attention.py */
  const uint8_t v32_ok = (v30_ok & v31_ok);
  /* tilec: arith#9 at attention.py */
  const uint8_t v33_ok = (uint8_t)(v8_V_1 == v5_K_1);
  /* tilec: arith#10 at attention.py */
  const uint8_t v34_ok = (uint8_t)(v10_Out_0 == v1_Q_0);
  /* tilec: arith#11 at attention.py */
  const uint8_t v35_ok = (uint8_t)(v11_Out_1 == v2_Q_1);
  /* tilec: arith#12 at attention.py */
  const uint8_t v36_ok = (uint8_t)(v12_Out_2 == v3_Q_2);
  /* tilec: arith#13 at attention.py */
  const uint8_t v37_ok = (v34_ok & v35_ok);
  /* tilec: arith#14 at attention.py */
  const uint8_t v38_ok = (v37_ok & v36_ok);
  /* tilec: constant#15 at attention.py */
  /* tilec: arith#16 at attention.py */
  const float v39_scale2 = (v25_scale * 1.442695e+00f);
  /* tilec: constant#17 at attention.py */
  /* tilec: arith#18 at attention.py */
  const int64_t v40 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_Q_1), 16)));
  /* tilec: parallel#19 at attention.py */
  const int v41_bh = (int)tc_group.y;
  const int v42_pm = (int)tc_group.x;
  /* tilec: constant#20 at attention.py */
  /* tilec: memory#21 at attention.py */
  threadgroup float *const v43_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 9216 bytes */
  /* tilec: memory#22 at attention.py */
  threadgroup float *const v44_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 9216);  /* 2304 bytes */
  /* tilec: memory#23 at attention.py */
  threadgroup float *const v45_stage_2_ring = reinterpret_cast<threadgroup float *>(tc_smem + 11520);  /* 9216 bytes */
  /* tilec: memory#24 at attention.py */
  threadgroup float *const v46_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 20736);  /* 2048 bytes */
  /* tilec: memory#25 at attention.py */
  threadgroup float *const v47_A_staging = reinterpret_cast<threadgroup float *>(tc_smem + 22784);  /* 2304 bytes */
  /* tilec: parallel#26 at attention.py */
  const int v48_tid = (int)tc_lane;
  /* tilec: constant#27 at attention.py */
  /* tilec: constant#28 at attention.py */
  /* tilec: constant#29 at attention.py */
  /* tilec: arith#30 at attention.py */
  const float v49_scale2 = (v25_scale * 1.442695e+00f);
  /* tilec: constant#31 at attention.py */
  /* tilec: arith#32 at attention.py */
  const int64_t v50 = ((int64_t)((int64_t)v42_pm * (int64_t)16));
  /* tilec: view#33 at attention.py */
  /* tilec: constant#34 at attention.py */
  /* tilec: constant#35 at attention.py */
  /* tilec: constant#36 at attention.py */
  /* tilec: arith#37 at attention.py */
  const int64_t v51 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v5_K_1), 32)));
  /* tilec: constant#38 at attention.py */
  /* tilec: constant#39 at attention.py */
  /* tilec: arith#40 at attention.py */
  const uint8_t v52 = (uint8_t)(0 < v51);
  /* tilec: if#41 at attention.py */
  if (v52) {
    /* tilec: arith#42 at attention.py */
    /* tilec: view#43 at attention.py */
    /* tilec: view#44 at attention.py */
    /* tilec: view#45 at attention.py */
    /* tilec: load#46 at attention.py */
    float v53[8];
    {
      const int64_t a54 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v48_tid * 4 >> 5) * v16_K_s18 + (v48_tid * 4 & 31);
      const int c55 = v41_bh;
      const int c56 = (v48_tid * 4 >> 5);
      const int c57 = (v48_tid * 4 & 31);
      if (c55 < v4_K_0_i32 && c56 < v5_K_1_i32 && c57 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a54) & 3) == 0))) {
        device const tc_vec16<float> *const q58 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a54);
        v53[0] = q58->e[0];
        v53[1] = q58->e[1];
        v53[2] = q58->e[2];
        v53[3] = q58->e[3];
      }
      else {
        if (c55 < v4_K_0_i32 && c56 < v5_K_1_i32 && c57 < v6_K_2_i32) v53[0] = v16_K[a54]; else v53[0] = 0.0e+00f;
        if (c55 < v4_K_0_i32 && c56 < v5_K_1_i32 && c57 + 1 < v6_K_2_i32) v53[1] = v16_K[a54 + 1]; else v53[1] = 0.0e+00f;
        if (c55 < v4_K_0_i32 && c56 < v5_K_1_i32 && c57 + 2 < v6_K_2_i32) v53[2] = v16_K[a54 + 2]; else v53[2] = 0.0e+00f;
        if (c55 < v4_K_0_i32 && c56 < v5_K_1_i32 && c57 + 3 < v6_K_2_i32) v53[3] = v16_K[a54 + 3]; else v53[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a59 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v48_tid * 4 >> 5) * v16_K_s18 + v16_K_s18 * 16 + (v48_tid * 4 & 31);
      const int c60 = v41_bh;
      const int c61 = ((v48_tid * 4 >> 5) + 16);
      const int c62 = (v48_tid * 4 & 31);
      if (c60 < v4_K_0_i32 && c61 < v5_K_1_i32 && c62 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a59) & 3) == 0))) {
        device const tc_vec16<float> *const q63 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a59);
        v53[4] = q63->e[0];
        v53[5] = q63->e[1];
        v53[6] = q63->e[2];
        v53[7] = q63->e[3];
      }
      else {
        if (c60 < v4_K_0_i32 && c61 < v5_K_1_i32 && c62 < v6_K_2_i32) v53[4] = v16_K[a59]; else v53[4] = 0.0e+00f;
        if (c60 < v4_K_0_i32 && c61 < v5_K_1_i32 && c62 + 1 < v6_K_2_i32) v53[5] = v16_K[a59 + 1]; else v53[5] = 0.0e+00f;
        if (c60 < v4_K_0_i32 && c61 < v5_K_1_i32 && c62 + 2 < v6_K_2_i32) v53[6] = v16_K[a59 + 2]; else v53[6] = 0.0e+00f;
        if (c60 < v4_K_0_i32 && c61 < v5_K_1_i32 && c62 + 3 < v6_K_2_i32) v53[7] = v16_K[a59 + 3]; else v53[7] = 0.0e+00f;
      }
    }
    /* tilec: view#47 at attention.py */
    /* tilec: store#48 at attention.py */
    {
      const int a64 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a64) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q65 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a64);
        q65->e[0] = v53[0];
        q65->e[1] = v53[1];
        q65->e[2] = v53[2];
        q65->e[3] = v53[3];
      }
      else {
        v43_stage_0_ring[a64] = v53[0];
        v43_stage_0_ring[a64 + 1] = v53[1];
        v43_stage_0_ring[a64 + 2] = v53[2];
        v43_stage_0_ring[a64 + 3] = v53[3];
      }
    }
    {
      const int a66 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31) + 576;
      if ((((a66) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q67 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a66);
        q67->e[0] = v53[4];
        q67->e[1] = v53[5];
        q67->e[2] = v53[6];
        q67->e[3] = v53[7];
      }
      else {
        v43_stage_0_ring[a66] = v53[4];
        v43_stage_0_ring[a66 + 1] = v53[5];
        v43_stage_0_ring[a66 + 2] = v53[6];
        v43_stage_0_ring[a66 + 3] = v53[7];
      }
    }
    /* tilec: view#49 at attention.py */
    /* tilec: view#50 at attention.py */
    /* tilec: load#51 at attention.py */
    float v68[4];
    {
      const int64_t a69 = (int64_t)v41_bh * v13_Q_s14 + (int64_t)(v50 + (v48_tid * 4 >> 5)) * v13_Q_s15 + (v48_tid * 4 & 31);
      const int c70 = v41_bh;
      const int lim71 = tc_sat32(v2_Q_1 - v50);
      const int c72 = (v48_tid * 4 >> 5);
      const int c73 = (v48_tid * 4 & 31);
      if (c70 < v1_Q_0_i32 && c72 < lim71 && c73 + 3 < v3_Q_2_i32 && (tc_al_v13_Q && (((a69) & 3) == 0))) {
        device const tc_vec16<float> *const q74 = reinterpret_cast<device const tc_vec16<float> *>(v13_Q + a69);
        v68[0] = q74->e[0];
        v68[1] = q74->e[1];
        v68[2] = q74->e[2];
        v68[3] = q74->e[3];
      }
      else {
        if (c70 < v1_Q_0_i32 && c72 < lim71 && c73 < v3_Q_2_i32) v68[0] = v13_Q[a69]; else v68[0] = 0.0e+00f;
        if (c70 < v1_Q_0_i32 && c72 < lim71 && c73 + 1 < v3_Q_2_i32) v68[1] = v13_Q[a69 + 1]; else v68[1] = 0.0e+00f;
        if (c70 < v1_Q_0_i32 && c72 < lim71 && c73 + 2 < v3_Q_2_i32) v68[2] = v13_Q[a69 + 2]; else v68[2] = 0.0e+00f;
        if (c70 < v1_Q_0_i32 && c72 < lim71 && c73 + 3 < v3_Q_2_i32) v68[3] = v13_Q[a69 + 3]; else v68[3] = 0.0e+00f;
      }
    }
    /* tilec: view#52 at attention.py */
    /* tilec: store#53 at attention.py */
    {
      const int a75 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a75) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q76 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_stage_1_ring + a75);
        q76->e[0] = v68[0];
        q76->e[1] = v68[1];
        q76->e[2] = v68[2];
        q76->e[3] = v68[3];
      }
      else {
        v44_stage_1_ring[a75] = v68[0];
        v44_stage_1_ring[a75 + 1] = v68[1];
        v44_stage_1_ring[a75 + 2] = v68[2];
        v44_stage_1_ring[a75 + 3] = v68[3];
      }
    }
    /* tilec: arith#54 at attention.py */
    /* tilec: view#55 at attention.py */
    /* tilec: view#56 at attention.py */
    /* tilec: view#57 at attention.py */
    /* tilec: load#58 at attention.py */
    float v77[8];
    {
      const int64_t a78 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v48_tid * 4 >> 5) * v19_V_s21 + (v48_tid * 4 & 31);
      const int c79 = v41_bh;
      const int c80 = (v48_tid * 4 >> 5);
      const int c81 = (v48_tid * 4 & 31);
      if (c79 < v7_V_0_i32 && c80 < v8_V_1_i32 && c81 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a78) & 3) == 0))) {
        device const tc_vec16<float> *const q82 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a78);
        v77[0] = q82->e[0];
        v77[1] = q82->e[1];
        v77[2] = q82->e[2];
        v77[3] = q82->e[3];
      }
      else {
        if (c79 < v7_V_0_i32 && c80 < v8_V_1_i32 && c81 < v9_V_2_i32) v77[0] = v19_V[a78]; else v77[0] = 0.0e+00f;
        if (c79 < v7_V_0_i32 && c80 < v8_V_1_i32 && c81 + 1 < v9_V_2_i32) v77[1] = v19_V[a78 + 1]; else v77[1] = 0.0e+00f;
        if (c79 < v7_V_0_i32 && c80 < v8_V_1_i32 && c81 + 2 < v9_V_2_i32) v77[2] = v19_V[a78 + 2]; else v77[2] = 0.0e+00f;
        if (c79 < v7_V_0_i32 && c80 < v8_V_1_i32 && c81 + 3 < v9_V_2_i32) v77[3] = v19_V[a78 + 3]; else v77[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a83 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v48_tid * 4 >> 5) * v19_V_s21 + v19_V_s21 * 16 + (v48_tid * 4 & 31);
      const int c84 = v41_bh;
      const int c85 = ((v48_tid * 4 >> 5) + 16);
      const int c86 = (v48_tid * 4 & 31);
      if (c84 < v7_V_0_i32 && c85 < v8_V_1_i32 && c86 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a83) & 3) == 0))) {
        device const tc_vec16<float> *const q87 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a83);
        v77[4] = q87->e[0];
        v77[5] = q87->e[1];
        v77[6] = q87->e[2];
        v77[7] = q87->e[3];
      }
      else {
        if (c84 < v7_V_0_i32 && c85 < v8_V_1_i32 && c86 < v9_V_2_i32) v77[4] = v19_V[a83]; else v77[4] = 0.0e+00f;
        if (c84 < v7_V_0_i32 && c85 < v8_V_1_i32 && c86 + 1 < v9_V_2_i32) v77[5] = v19_V[a83 + 1]; else v77[5] = 0.0e+00f;
        if (c84 < v7_V_0_i32 && c85 < v8_V_1_i32 && c86 + 2 < v9_V_2_i32) v77[6] = v19_V[a83 + 2]; else v77[6] = 0.0e+00f;
        if (c84 < v7_V_0_i32 && c85 < v8_V_1_i32 && c86 + 3 < v9_V_2_i32) v77[7] = v19_V[a83 + 3]; else v77[7] = 0.0e+00f;
      }
    }
    /* tilec: view#59 at attention.py */
    /* tilec: store#60 at attention.py */
    {
      const int a88 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a88) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q89 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a88);
        q89->e[0] = v77[0];
        q89->e[1] = v77[1];
        q89->e[2] = v77[2];
        q89->e[3] = v77[3];
      }
      else {
        v45_stage_2_ring[a88] = v77[0];
        v45_stage_2_ring[a88 + 1] = v77[1];
        v45_stage_2_ring[a88 + 2] = v77[2];
        v45_stage_2_ring[a88 + 3] = v77[3];
      }
    }
    {
      const int a90 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31) + 576;
      if ((((a90) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q91 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a90);
        q91->e[0] = v77[4];
        q91->e[1] = v77[5];
        q91->e[2] = v77[6];
        q91->e[3] = v77[7];
      }
      else {
        v45_stage_2_ring[a90] = v77[4];
        v45_stage_2_ring[a90 + 1] = v77[5];
        v45_stage_2_ring[a90 + 2] = v77[6];
        v45_stage_2_ring[a90 + 3] = v77[7];
      }
    }
  }
  else {
  }
  /* tilec: serial#61 at attention.py */
  float v92[1];
  v92[0] = (-(float)INFINITY);
  float v93[1];
  v93[0] = 0.0e+00f;
  float v94[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v94[e] = 0.0e+00f;
  int m95 = 0;
  for (int64_t v96 = INT64_C(0); v96 < v51; v96 += INT64_C(1)) {
    /* tilec: atom.call#62 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#63 at attention.py */
    /* tilec: arith#64 at attention.py */
    /* tilec: arith#65 at attention.py */
    const int64_t v97 = ((int64_t)(v96 + (int64_t)1));
    /* tilec: arith#66 at attention.py */
    const uint8_t v98 = (uint8_t)(m95 == 0);
    /* tilec: arith#67 at attention.py */
    const int v99 = ((int)(m95 - 1));
    /* tilec: arith#68 at attention.py */
    const int v100 = (v98 ? 1 : v99);
    /* tilec: arith#69 at attention.py */
    const uint8_t v101 = (uint8_t)(v97 < v51);
    /* tilec: if#70 at attention.py */
    if (v101) {
      /* tilec: arith#71 at attention.py */
      const int64_t v102 = ((int64_t)(v97 * (int64_t)32));
      /* tilec: view#72 at attention.py */
      /* tilec: view#73 at attention.py */
      /* tilec: view#74 at attention.py */
      /* tilec: load#75 at attention.py */
      float v103[8];
      {
        const int64_t a104 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v102 + (v48_tid * 4 >> 5)) * v16_K_s18 + (v48_tid * 4 & 31);
        const int c105 = v41_bh;
        const int64_t c106 = (v102 + (v48_tid * 4 >> 5));
        const int c107 = (v48_tid * 4 & 31);
        if (c105 < v4_K_0_i32 && c106 >= 0 && c106 < v5_K_1 && c107 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a104) & 3) == 0))) {
          device const tc_vec16<float> *const q108 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a104);
          v103[0] = q108->e[0];
          v103[1] = q108->e[1];
          v103[2] = q108->e[2];
          v103[3] = q108->e[3];
        }
        else {
          if (c105 < v4_K_0_i32 && c106 >= 0 && c106 < v5_K_1 && c107 < v6_K_2_i32) v103[0] = v16_K[a104]; else v103[0] = 0.0e+00f;
          if (c105 < v4_K_0_i32 && c106 >= 0 && c106 < v5_K_1 && c107 + 1 < v6_K_2_i32) v103[1] = v16_K[a104 + 1]; else v103[1] = 0.0e+00f;
          if (c105 < v4_K_0_i32 && c106 >= 0 && c106 < v5_K_1 && c107 + 2 < v6_K_2_i32) v103[2] = v16_K[a104 + 2]; else v103[2] = 0.0e+00f;
          if (c105 < v4_K_0_i32 && c106 >= 0 && c106 < v5_K_1 && c107 + 3 < v6_K_2_i32) v103[3] = v16_K[a104 + 3]; else v103[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a109 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v102 + (v48_tid * 4 >> 5)) * v16_K_s18 + v16_K_s18 * 16 + (v48_tid * 4 & 31);
        const int c110 = v41_bh;
        const int64_t c111 = (v102 + (v48_tid * 4 >> 5) + 16);
        const int c112 = (v48_tid * 4 & 31);
        if (c110 < v4_K_0_i32 && c111 >= 0 && c111 < v5_K_1 && c112 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a109) & 3) == 0))) {
          device const tc_vec16<float> *const q113 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a109);
          v103[4] = q113->e[0];
          v103[5] = q113->e[1];
          v103[6] = q113->e[2];
          v103[7] = q113->e[3];
        }
        else {
          if (c110 < v4_K_0_i32 && c111 >= 0 && c111 < v5_K_1 && c112 < v6_K_2_i32) v103[4] = v16_K[a109]; else v103[4] = 0.0e+00f;
          if (c110 < v4_K_0_i32 && c111 >= 0 && c111 < v5_K_1 && c112 + 1 < v6_K_2_i32) v103[5] = v16_K[a109 + 1]; else v103[5] = 0.0e+00f;
          if (c110 < v4_K_0_i32 && c111 >= 0 && c111 < v5_K_1 && c112 + 2 < v6_K_2_i32) v103[6] = v16_K[a109 + 2]; else v103[6] = 0.0e+00f;
          if (c110 < v4_K_0_i32 && c111 >= 0 && c111 < v5_K_1 && c112 + 3 < v6_K_2_i32) v103[7] = v16_K[a109 + 3]; else v103[7] = 0.0e+00f;
        }
      }
      /* tilec: view#76 at attention.py */
      /* tilec: store#77 at attention.py */
      {
        const int a114 = v100 * 1152 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
        if ((((a114) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q115 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a114);
          q115->e[0] = v103[0];
          q115->e[1] = v103[1];
          q115->e[2] = v103[2];
          q115->e[3] = v103[3];
        }
        else {
          v43_stage_0_ring[a114] = v103[0];
          v43_stage_0_ring[a114 + 1] = v103[1];
          v43_stage_0_ring[a114 + 2] = v103[2];
          v43_stage_0_ring[a114 + 3] = v103[3];
        }
      }
      {
        const int a116 = v100 * 1152 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31) + 576;
        if ((((a116) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q117 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a116);
          q117->e[0] = v103[4];
          q117->e[1] = v103[5];
          q117->e[2] = v103[6];
          q117->e[3] = v103[7];
        }
        else {
          v43_stage_0_ring[a116] = v103[4];
          v43_stage_0_ring[a116 + 1] = v103[5];
          v43_stage_0_ring[a116 + 2] = v103[6];
          v43_stage_0_ring[a116 + 3] = v103[7];
        }
      }
      /* tilec: arith#78 at attention.py */
      const int64_t v118 = ((int64_t)(v97 * (int64_t)32));
      /* tilec: view#79 at attention.py */
      /* tilec: view#80 at attention.py */
      /* tilec: view#81 at attention.py */
      /* tilec: load#82 at attention.py */
      float v119[8];
      {
        const int64_t a120 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v118 + (v48_tid * 4 >> 5)) * v19_V_s21 + (v48_tid * 4 & 31);
        const int c121 = v41_bh;
        const int64_t c122 = (v118 + (v48_tid * 4 >> 5));
        const int c123 = (v48_tid * 4 & 31);
        if (c121 < v7_V_0_i32 && c122 >= 0 && c122 < v8_V_1 && c123 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a120) & 3) == 0))) {
          device const tc_vec16<float> *const q124 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a120);
          v119[0] = q124->e[0];
          v119[1] = q124->e[1];
          v119[2] = q124->e[2];
          v119[3] = q124->e[3];
        }
        else {
          if (c121 < v7_V_0_i32 && c122 >= 0 && c122 < v8_V_1 && c123 < v9_V_2_i32) v119[0] = v19_V[a120]; else v119[0] = 0.0e+00f;
          if (c121 < v7_V_0_i32 && c122 >= 0 && c122 < v8_V_1 && c123 + 1 < v9_V_2_i32) v119[1] = v19_V[a120 + 1]; else v119[1] = 0.0e+00f;
          if (c121 < v7_V_0_i32 && c122 >= 0 && c122 < v8_V_1 && c123 + 2 < v9_V_2_i32) v119[2] = v19_V[a120 + 2]; else v119[2] = 0.0e+00f;
          if (c121 < v7_V_0_i32 && c122 >= 0 && c122 < v8_V_1 && c123 + 3 < v9_V_2_i32) v119[3] = v19_V[a120 + 3]; else v119[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a125 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v118 + (v48_tid * 4 >> 5)) * v19_V_s21 + v19_V_s21 * 16 + (v48_tid * 4 & 31);
        const int c126 = v41_bh;
        const int64_t c127 = (v118 + (v48_tid * 4 >> 5) + 16);
        const int c128 = (v48_tid * 4 & 31);
        if (c126 < v7_V_0_i32 && c127 >= 0 && c127 < v8_V_1 && c128 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a125) & 3) == 0))) {
          device const tc_vec16<float> *const q129 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a125);
          v119[4] = q129->e[0];
          v119[5] = q129->e[1];
          v119[6] = q129->e[2];
          v119[7] = q129->e[3];
        }
        else {
          if (c126 < v7_V_0_i32 && c127 >= 0 && c127 < v8_V_1 && c128 < v9_V_2_i32) v119[4] = v19_V[a125]; else v119[4] = 0.0e+00f;
          if (c126 < v7_V_0_i32 && c127 >= 0 && c127 < v8_V_1 && c128 + 1 < v9_V_2_i32) v119[5] = v19_V[a125 + 1]; else v119[5] = 0.0e+00f;
          if (c126 < v7_V_0_i32 && c127 >= 0 && c127 < v8_V_1 && c128 + 2 < v9_V_2_i32) v119[6] = v19_V[a125 + 2]; else v119[6] = 0.0e+00f;
          if (c126 < v7_V_0_i32 && c127 >= 0 && c127 < v8_V_1 && c128 + 3 < v9_V_2_i32) v119[7] = v19_V[a125 + 3]; else v119[7] = 0.0e+00f;
        }
      }
      /* tilec: view#83 at attention.py */
      /* tilec: store#84 at attention.py */
      {
        const int a130 = v100 * 1152 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
        if ((((a130) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q131 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a130);
          q131->e[0] = v119[0];
          q131->e[1] = v119[1];
          q131->e[2] = v119[2];
          q131->e[3] = v119[3];
        }
        else {
          v45_stage_2_ring[a130] = v119[0];
          v45_stage_2_ring[a130 + 1] = v119[1];
          v45_stage_2_ring[a130 + 2] = v119[2];
          v45_stage_2_ring[a130 + 3] = v119[3];
        }
      }
      {
        const int a132 = v100 * 1152 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31) + 576;
        if ((((a132) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q133 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a132);
          q133->e[0] = v119[4];
          q133->e[1] = v119[5];
          q133->e[2] = v119[6];
          q133->e[3] = v119[7];
        }
        else {
          v45_stage_2_ring[a132] = v119[4];
          v45_stage_2_ring[a132 + 1] = v119[5];
          v45_stage_2_ring[a132 + 2] = v119[6];
          v45_stage_2_ring[a132 + 3] = v119[7];
        }
      }
    }
    else {
    }
    /* tilec: view#85 at attention.py */
    /* tilec: view#86 at attention.py */
    /* tilec: view#87 at attention.py */
    /* tilec: arith#88 at attention.py */
    const int64_t v134 = ((int64_t)(v96 * (int64_t)32));
    /* tilec: view#89 at attention.py */
    /* tilec: constant#90 at attention.py */
    /* tilec: constant#91 at attention.py */
    /* tilec: serial#92 at attention.py */
    float v135[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v135[e] = 0.0e+00f;
    #pragma unroll 8
    for (int v136 = 0; v136 < 8; v136 += 1) {
      /* tilec: view#93 at attention.py */
      /* tilec: load#94 at attention.py */
      float v137[8];
      {
        const int a138 = ((v48_tid & 31) >> 2) * 36 + v136 * 4;
        threadgroup const tc_vec16<float> *const q139 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_stage_1_ring + a138);
        v137[0] = q139->e[0];
        v137[1] = q139->e[1];
        v137[2] = q139->e[2];
        v137[3] = q139->e[3];
      }
      {
        const int a140 = ((v48_tid & 31) >> 2) * 36 + v136 * 4 + 288;
        threadgroup const tc_vec16<float> *const q141 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_stage_1_ring + a140);
        v137[4] = q141->e[0];
        v137[5] = q141->e[1];
        v137[6] = q141->e[2];
        v137[7] = q141->e[3];
      }
      /* tilec: view#95 at attention.py */
      /* tilec: load#96 at attention.py */
      float v142[8];
      {
        v142[0] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4];
      }
      {
        v142[1] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 36];
      }
      {
        v142[2] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 1];
      }
      {
        v142[3] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 37];
      }
      {
        v142[4] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 2];
      }
      {
        v142[5] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 38];
      }
      {
        v142[6] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 3];
      }
      {
        v142[7] = v43_stage_0_ring[m95 * 1152 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v136 * 4 + 39];
      }
      /* tilec: reindex#97 at attention.py */
      float v143[4];
      v143[0] = v137[0];
      v143[1] = v137[0];
      v143[2] = v137[4];
      v143[3] = v137[4];
      /* tilec: reindex#98 at attention.py */
      float v144[4];
      v144[0] = v142[0];
      v144[1] = v142[1];
      v144[2] = v142[0];
      v144[3] = v142[1];
      /* tilec: map#99 at attention.py */
      float v145[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v146 = v135[e];
        const float v147 = v143[e];
        const float v148 = v144[e];
        /* tilec: arith#100 */
        const float v149 = tc_fma_f32(v147, v148, v146);
        v145[e] = v149;
      }
      /* tilec: reindex#101 at attention.py */
      float v150[4];
      v150[0] = v137[1];
      v150[1] = v137[1];
      v150[2] = v137[5];
      v150[3] = v137[5];
      /* tilec: reindex#102 at attention.py */
      float v151[4];
      v151[0] = v142[2];
      v151[1] = v142[3];
      v151[2] = v142[2];
      v151[3] = v142[3];
      /* tilec: map#103 at attention.py */
      float v152[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v153 = v145[e];
        const float v154 = v150[e];
        const float v155 = v151[e];
        /* tilec: arith#104 */
        const float v156 = tc_fma_f32(v154, v155, v153);
        v152[e] = v156;
      }
      /* tilec: reindex#105 at attention.py */
      float v157[4];
      v157[0] = v137[2];
      v157[1] = v137[2];
      v157[2] = v137[6];
      v157[3] = v137[6];
      /* tilec: reindex#106 at attention.py */
      float v158[4];
      v158[0] = v142[4];
      v158[1] = v142[5];
      v158[2] = v142[4];
      v158[3] = v142[5];
      /* tilec: map#107 at attention.py */
      float v159[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v160 = v152[e];
        const float v161 = v157[e];
        const float v162 = v158[e];
        /* tilec: arith#108 */
        const float v163 = tc_fma_f32(v161, v162, v160);
        v159[e] = v163;
      }
      /* tilec: reindex#109 at attention.py */
      float v164[4];
      v164[0] = v137[3];
      v164[1] = v137[3];
      v164[2] = v137[7];
      v164[3] = v137[7];
      /* tilec: reindex#110 at attention.py */
      float v165[4];
      v165[0] = v142[6];
      v165[1] = v142[7];
      v165[2] = v142[6];
      v165[3] = v142[7];
      /* tilec: map#111 at attention.py */
      float v166[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v167 = v159[e];
        const float v168 = v164[e];
        const float v169 = v165[e];
        /* tilec: arith#112 */
        const float v170 = tc_fma_f32(v168, v169, v167);
        v166[e] = v170;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v135[e] = v166[e];
    }
    /* tilec: map#113 at attention.py */
    float v171[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v172 = v135[e];
      /* tilec: arith#114 at attention.py */
      const float v173 = (v172 * v49_scale2);
      v171[e] = v173;
    }
    /* tilec: arith#115 at attention.py */
    const int64_t v174 = ((int64_t)(v96 + (int64_t)1));
    /* tilec: arith#116 at attention.py */
    const int64_t v175 = ((int64_t)(v174 * (int64_t)32));
    /* tilec: arith#117 at attention.py */
    const uint8_t v176 = (uint8_t)(v175 > v5_K_1);
    /* tilec: if#118 at attention.py */
    float v177[4];
    if (v176) {
      /* tilec: iota#119 at attention.py */
      int32_t v178[4];
      v178[0] = ((int32_t)(int64_t)((v134 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)));
      v178[1] = ((int32_t)(int64_t)((v134 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1)));
      v178[2] = ((int32_t)(int64_t)((v134 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)));
      v178[3] = ((int32_t)(int64_t)((v134 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1)));
      /* tilec: map#120 at attention.py */
      float v179[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int32_t v180 = v178[e];
        const float v181_s = v171[e];
        /* tilec: arith#121 at attention.py */
        const int32_t v182 = ((int32_t)v5_K_1);
        /* tilec: arith#122 at attention.py */
        const uint8_t v183 = (uint8_t)(v180 < v182);
        /* tilec: constant#123 at attention.py */
        /* tilec: arith#124 at attention.py */
        const float v184 = (v183 ? v181_s : (-(float)INFINITY));
        v179[e] = v184;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v177[e] = v179[e];
    }
    else {
      #pragma unroll
      for (int e = 0; e < 4; ++e) v177[e] = v171[e];
    }
    /* tilec: constant#125 at attention.py */
    /* tilec: view#126 at attention.py */
    /* tilec: view#127 at attention.py */
    /* tilec: store#128 at attention.py */
    {
      v46_scratch_f32[(((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v177[0];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1)] = v177[1];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 256)] = v177[2];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 257)] = v177[3];
    }
    /* tilec: atom.call#129 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#130 at attention.py */
    /* tilec: load#131 at attention.py */
    float v185[4];
    {
      const int a186 = ((v48_tid >> 3) * 32 + (v48_tid & 7) * 4);
      threadgroup const tc_vec16<float> *const q187 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v46_scratch_f32 + a186);
      v185[0] = q187->e[0];
      v185[1] = q187->e[1];
      v185[2] = q187->e[2];
      v185[3] = q187->e[3];
    }
    /* tilec: reindex#132 at attention.py */
    float v188[4];
    v188[0] = v185[0];
    v188[1] = v185[1];
    v188[2] = v185[2];
    v188[3] = v185[3];
    /* tilec: constant#133 at attention.py */
    /* tilec: reduce#134 at attention.py */
    float v189[1];
    const float p190 = tc_max_f32(v188[0], v188[1]);
    const float p191 = tc_max_f32(v188[2], v188[3]);
    const float p192 = tc_max_f32(p190, p191);
    v189[0] = p192;
    /* tilec: atom.call#135 at attention.py */
    float v193[1];
    v193[0] = tc_shfl_xor(v189[0], (ushort)(INT64_C(1)));
    /* tilec: map#136 at attention.py */
    float v194[1];
    {
      const float v195 = v189[0];
      const float v196 = v193[0];
      /* tilec: arith#137 */
      const float v197 = tc_max_f32(v195, v196);
      v194[0] = v197;
    }
    /* tilec: constant#138 at attention.py */
    /* tilec: atom.call#139 at attention.py */
    float v198[1];
    v198[0] = tc_shfl_xor(v194[0], (ushort)(INT64_C(2)));
    /* tilec: map#140 at attention.py */
    float v199[1];
    {
      const float v200 = v194[0];
      const float v201 = v198[0];
      /* tilec: arith#141 */
      const float v202 = tc_max_f32(v200, v201);
      v199[0] = v202;
    }
    /* tilec: constant#142 at attention.py */
    /* tilec: atom.call#143 at attention.py */
    float v203[1];
    v203[0] = tc_shfl_xor(v199[0], (ushort)(INT64_C(4)));
    /* tilec: map#144 at attention.py */
    float v204[1];
    {
      const float v205 = v199[0];
      const float v206 = v203[0];
      /* tilec: arith#145 */
      const float v207 = tc_max_f32(v205, v206);
      v204[0] = v207;
    }
    /* tilec: map#146 at attention.py */
    float v208[1];
    {
      const float v209_m = v92[0];
      const float v210 = v204[0];
      /* tilec: arith#147 at attention.py */
      const float v211 = tc_max_f32(v209_m, v210);
      v208[0] = v211;
    }
    /* tilec: view#148 at attention.py */
    /* tilec: atom.call#149 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#150 at attention.py */
    const int v212 = (v48_tid & 7);
    /* tilec: arith#151 at attention.py */
    const uint8_t v213 = (uint8_t)(v212 == 0);
    /* tilec: if#152 at attention.py */
    if (v213) {
      /* tilec: view#153 at attention.py */
      /* tilec: store#154 at attention.py */
      {
        v46_scratch_f32[(v48_tid >> 3)] = v208[0];
      }
    }
    else {
    }
    /* tilec: atom.call#155 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#156 at attention.py */
    /* tilec: load#157 at attention.py */
    float v214[4];
    {
      v214[0] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v214[1] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v214[2] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    {
      v214[3] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    /* tilec: map#158 at attention.py */
    float v215[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v216_s = v177[e];
      const float v217 = v214[e];
      /* tilec: arith#159 at attention.py */
      const float v218 = (v216_s - v217);
      /* tilec: arith#160 at attention.py */
      const float v219 = tc_exp2_f32(v218);
      v215[e] = v219;
    }
    /* tilec: map#161 at attention.py */
    float v220[1];
    {
      const float v221_m = v92[0];
      const float v222_m_new = v208[0];
      /* tilec: arith#162 at attention.py */
      const float v223 = (v221_m - v222_m_new);
      /* tilec: arith#163 at attention.py */
      const float v224 = tc_exp2_f32(v223);
      v220[0] = v224;
    }
    /* tilec: constant#164 at attention.py */
    /* tilec: view#165 at attention.py */
    /* tilec: atom.call#166 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#167 at attention.py */
    /* tilec: store#168 at attention.py */
    {
      v46_scratch_f32[(((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v215[0];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1)] = v215[1];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 256)] = v215[2];
    }
    {
      v46_scratch_f32[((((v48_tid & 31) >> 2) * 32 + (v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 257)] = v215[3];
    }
    /* tilec: atom.call#169 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#170 at attention.py */
    /* tilec: load#171 at attention.py */
    float v225[4];
    {
      const int a226 = ((v48_tid >> 3) * 32 + (v48_tid & 7) * 4);
      threadgroup const tc_vec16<float> *const q227 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v46_scratch_f32 + a226);
      v225[0] = q227->e[0];
      v225[1] = q227->e[1];
      v225[2] = q227->e[2];
      v225[3] = q227->e[3];
    }
    /* tilec: reindex#172 at attention.py */
    float v228[4];
    v228[0] = v225[0];
    v228[1] = v225[1];
    v228[2] = v225[2];
    v228[3] = v225[3];
    /* tilec: constant#173 at attention.py */
    /* tilec: reduce#174 at attention.py */
    float v229[1];
    const float p230 = (v228[0] + v228[1]);
    const float p231 = (v228[2] + v228[3]);
    const float p232 = (p230 + p231);
    v229[0] = p232;
    /* tilec: atom.call#175 at attention.py */
    float v233[1];
    v233[0] = tc_shfl_xor(v229[0], (ushort)(INT64_C(1)));
    /* tilec: map#176 at attention.py */
    float v234[1];
    {
      const float v235 = v229[0];
      const float v236 = v233[0];
      /* tilec: arith#177 */
      const float v237 = (v235 + v236);
      v234[0] = v237;
    }
    /* tilec: atom.call#178 at attention.py */
    float v238[1];
    v238[0] = tc_shfl_xor(v234[0], (ushort)(INT64_C(2)));
    /* tilec: map#179 at attention.py */
    float v239[1];
    {
      const float v240 = v234[0];
      const float v241 = v238[0];
      /* tilec: arith#180 */
      const float v242 = (v240 + v241);
      v239[0] = v242;
    }
    /* tilec: atom.call#181 at attention.py */
    float v243[1];
    v243[0] = tc_shfl_xor(v239[0], (ushort)(INT64_C(4)));
    /* tilec: map#182 at attention.py */
    float v244[1];
    {
      const float v245 = v239[0];
      const float v246 = v243[0];
      /* tilec: arith#183 */
      const float v247 = (v245 + v246);
      v244[0] = v247;
    }
    /* tilec: map#184 at attention.py */
    float v248[1];
    {
      const float v249 = v244[0];
      /* tilec: arith#185 */
      const float v250 = (0.0e+00f + v249);
      v248[0] = v250;
    }
    /* tilec: map#186 at attention.py */
    float v251[1];
    {
      const float v252_den = v93[0];
      const float v253_alpha = v220[0];
      const float v254 = v248[0];
      /* tilec: arith#187 at attention.py */
      const float v255 = (v252_den * v253_alpha);
      /* tilec: arith#188 at attention.py */
      const float v256 = (v255 + v254);
      v251[0] = v256;
    }
    /* tilec: view#189 at attention.py */
    /* tilec: atom.call#190 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#191 at attention.py */
    const int v257 = (v48_tid & 7);
    /* tilec: arith#192 at attention.py */
    const uint8_t v258 = (uint8_t)(v257 == 0);
    /* tilec: if#193 at attention.py */
    if (v258) {
      /* tilec: view#194 at attention.py */
      /* tilec: store#195 at attention.py */
      {
        v46_scratch_f32[(v48_tid >> 3)] = v220[0];
      }
    }
    else {
    }
    /* tilec: atom.call#196 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#197 at attention.py */
    /* tilec: load#198 at attention.py */
    float v259[4];
    {
      v259[0] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v259[1] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v259[2] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    {
      v259[3] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    /* tilec: map#199 at attention.py */
    float v260[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v261_acc = v94[e];
      const float v262 = v259[e];
      /* tilec: arith#200 at attention.py */
      const float v263 = (v261_acc * v262);
      v260[e] = v263;
    }
    /* tilec: view#201 at attention.py */
    /* tilec: view#202 at attention.py */
    /* tilec: store#203 at attention.py */
    {
      v47_A_staging[((v48_tid & 31) >> 2) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v215[0];
    }
    {
      v47_A_staging[((v48_tid & 31) >> 2) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v215[1];
    }
    {
      v47_A_staging[((v48_tid & 31) >> 2) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 288] = v215[2];
    }
    {
      v47_A_staging[((v48_tid & 31) >> 2) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 289] = v215[3];
    }
    /* tilec: atom.call#204 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: serial#205 at attention.py */
    float v264[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v264[e] = v260[e];
    #pragma unroll 8
    for (int v265 = 0; v265 < 8; v265 += 1) {
      /* tilec: view#206 at attention.py */
      /* tilec: load#207 at attention.py */
      float v266[8];
      {
        const int a267 = ((v48_tid & 31) >> 2) * 36 + v265 * 4;
        threadgroup const tc_vec16<float> *const q268 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v47_A_staging + a267);
        v266[0] = q268->e[0];
        v266[1] = q268->e[1];
        v266[2] = q268->e[2];
        v266[3] = q268->e[3];
      }
      {
        const int a269 = ((v48_tid & 31) >> 2) * 36 + v265 * 4 + 288;
        threadgroup const tc_vec16<float> *const q270 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v47_A_staging + a269);
        v266[4] = q270->e[0];
        v266[5] = q270->e[1];
        v266[6] = q270->e[2];
        v266[7] = q270->e[3];
      }
      /* tilec: view#208 at attention.py */
      /* tilec: load#209 at attention.py */
      float v271[8];
      {
        v271[0] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)];
      }
      {
        v271[1] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1];
      }
      {
        v271[2] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 36];
      }
      {
        v271[3] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 37];
      }
      {
        v271[4] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 72];
      }
      {
        v271[5] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 73];
      }
      {
        v271[6] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 108];
      }
      {
        v271[7] = v45_stage_2_ring[m95 * 1152 + (v265 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 109];
      }
      /* tilec: reindex#210 at attention.py */
      float v272[4];
      v272[0] = v266[0];
      v272[1] = v266[0];
      v272[2] = v266[4];
      v272[3] = v266[4];
      /* tilec: reindex#211 at attention.py */
      float v273[4];
      v273[0] = v271[0];
      v273[1] = v271[1];
      v273[2] = v271[0];
      v273[3] = v271[1];
      /* tilec: map#212 at attention.py */
      float v274[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v275 = v264[e];
        const float v276 = v272[e];
        const float v277 = v273[e];
        /* tilec: arith#213 */
        const float v278 = tc_fma_f32(v276, v277, v275);
        v274[e] = v278;
      }
      /* tilec: reindex#214 at attention.py */
      float v279[4];
      v279[0] = v266[1];
      v279[1] = v266[1];
      v279[2] = v266[5];
      v279[3] = v266[5];
      /* tilec: reindex#215 at attention.py */
      float v280[4];
      v280[0] = v271[2];
      v280[1] = v271[3];
      v280[2] = v271[2];
      v280[3] = v271[3];
      /* tilec: map#216 at attention.py */
      float v281[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v282 = v274[e];
        const float v283 = v279[e];
        const float v284 = v280[e];
        /* tilec: arith#217 */
        const float v285 = tc_fma_f32(v283, v284, v282);
        v281[e] = v285;
      }
      /* tilec: reindex#218 at attention.py */
      float v286[4];
      v286[0] = v266[2];
      v286[1] = v266[2];
      v286[2] = v266[6];
      v286[3] = v266[6];
      /* tilec: reindex#219 at attention.py */
      float v287[4];
      v287[0] = v271[4];
      v287[1] = v271[5];
      v287[2] = v271[4];
      v287[3] = v271[5];
      /* tilec: map#220 at attention.py */
      float v288[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v289 = v281[e];
        const float v290 = v286[e];
        const float v291 = v287[e];
        /* tilec: arith#221 */
        const float v292 = tc_fma_f32(v290, v291, v289);
        v288[e] = v292;
      }
      /* tilec: reindex#222 at attention.py */
      float v293[4];
      v293[0] = v266[3];
      v293[1] = v266[3];
      v293[2] = v266[7];
      v293[3] = v266[7];
      /* tilec: reindex#223 at attention.py */
      float v294[4];
      v294[0] = v271[6];
      v294[1] = v271[7];
      v294[2] = v271[6];
      v294[3] = v271[7];
      /* tilec: map#224 at attention.py */
      float v295[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v296 = v288[e];
        const float v297 = v293[e];
        const float v298 = v294[e];
        /* tilec: arith#225 */
        const float v299 = tc_fma_f32(v297, v298, v296);
        v295[e] = v299;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v264[e] = v295[e];
    }
    /* tilec: arith#226 at attention.py */
    const int v300 = ((int)(m95 + 1));
    /* tilec: arith#227 at attention.py */
    const uint8_t v301 = (uint8_t)(v300 == 2);
    /* tilec: arith#228 at attention.py */
    const int v302 = (v301 ? 0 : v300);
    /* tilec: atom.call#229 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int y303 = v302;
    v92[0] = v208[0];
    v93[0] = v251[0];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v94[e] = v264[e];
    m95 = y303;
  }
  /* tilec: view#230 at attention.py */
  /* tilec: view#231 at attention.py */
  /* tilec: constant#232 at attention.py */
  /* tilec: arith#233 at attention.py */
  const int v304 = (v48_tid & 7);
  /* tilec: arith#234 at attention.py */
  const uint8_t v305 = (uint8_t)(v304 == 0);
  /* tilec: if#235 at attention.py */
  if (v305) {
    /* tilec: view#236 at attention.py */
    /* tilec: store#237 at attention.py */
    {
      v46_scratch_f32[(v48_tid >> 3)] = v93[0];
    }
  }
  else {
  }
  /* tilec: atom.call#238 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#239 at attention.py */
  /* tilec: load#240 at attention.py */
  float v306[4];
  {
    v306[0] = v46_scratch_f32[((v48_tid & 31) >> 2)];
  }
  {
    v306[1] = v46_scratch_f32[((v48_tid & 31) >> 2)];
  }
  {
    v306[2] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
  }
  {
    v306[3] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
  }
  /* tilec: map#241 at attention.py */
  float v307[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v308_acc = v94[e];
    const float v309 = v306[e];
    /* tilec: arith#242 at attention.py */
    const float v310 = (v308_acc / v309);
    v307[e] = v310;
  }
  /* tilec: view#243 at attention.py */
  /* tilec: store#244 at attention.py */
  {
    const int c311 = v41_bh;
    const int64_t c312 = (v50 + ((v48_tid & 31) >> 2));
    const int c313 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2);
    if (c311 < v10_Out_0_i32 && c312 < v11_Out_1 && c313 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v307[0];
  }
  {
    const int c314 = v41_bh;
    const int64_t c315 = (v50 + ((v48_tid & 31) >> 2));
    const int c316 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1);
    if (c314 < v10_Out_0_i32 && c315 < v11_Out_1 && c316 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v307[1];
  }
  {
    const int c317 = v41_bh;
    const int64_t c318 = (v50 + ((v48_tid & 31) >> 2) + 8);
    const int c319 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2);
    if (c317 < v10_Out_0_i32 && c318 < v11_Out_1 && c319 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + v22_Out_s24 * 8 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v307[2];
  }
  {
    const int c320 = v41_bh;
    const int64_t c321 = (v50 + ((v48_tid & 31) >> 2) + 8);
    const int c322 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1);
    if (c320 < v10_Out_0_i32 && c321 < v11_Out_1 && c322 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + v22_Out_s24 * 8 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v307[3];
  }
}
