kernel void tilec_flash_attention_lse(
    device const float *v15_Q [[buffer(0)]],
    device const float *v18_K [[buffer(1)]],
    device const float *v21_V [[buffer(2)]],
    device float *v24_Out [[buffer(3)]],
    device float *v27_LSE [[buffer(4)]],
    constant float &v29_scale [[buffer(5)]],
    constant int64_t &v1_Q_0 [[buffer(6)]],
    constant int64_t &v2_Q_1 [[buffer(7)]],
    constant int64_t &v3_Q_2 [[buffer(8)]],
    constant int64_t &v4_K_0 [[buffer(9)]],
    constant int64_t &v5_K_1 [[buffer(10)]],
    constant int64_t &v6_K_2 [[buffer(11)]],
    constant int64_t &v7_V_0 [[buffer(12)]],
    constant int64_t &v8_V_1 [[buffer(13)]],
    constant int64_t &v9_V_2 [[buffer(14)]],
    constant int64_t &v10_Out_0 [[buffer(15)]],
    constant int64_t &v11_Out_1 [[buffer(16)]],
    constant int64_t &v12_Out_2 [[buffer(17)]],
    constant int64_t &v13_LSE_0 [[buffer(18)]],
    constant int64_t &v14_LSE_1 [[buffer(19)]],
    constant uint &tc_aligned [[buffer(20)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[1568];  /* 25088 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v15_Q_s16 = v2_Q_1 * v3_Q_2;
  const int64_t v15_Q_s17 = v3_Q_2;
  const bool tc_al_v15_Q = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v18_K_s19 = v5_K_1 * v6_K_2;
  const int64_t v18_K_s20 = v6_K_2;
  const bool tc_al_v18_K = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v21_V_s22 = v8_V_1 * v9_V_2;
  const int64_t v21_V_s23 = v9_V_2;
  const bool tc_al_v21_V = ((tc_aligned >> 2) & 1u) != 0u;
  const int64_t v24_Out_s25 = v11_Out_1 * v12_Out_2;
  const int64_t v24_Out_s26 = v12_Out_2;
  const bool tc_al_v24_Out = ((tc_aligned >> 3) & 1u) != 0u;
  const int64_t v27_LSE_s28 = v14_LSE_1;
  const bool tc_al_v27_LSE = ((tc_aligned >> 4) & 1u) != 0u;
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
  const int v13_LSE_0_i32 = (int)(v13_LSE_0 < INT64_C(2147483647) ? v13_LSE_0 : INT64_C(2147483647));
  /* tilec: constant#1 at attention.py */
  /* tilec: arith#2 at attention.py */
  const uint8_t v30_ok = (uint8_t)(v3_Q_2_i32 <= 32);
  /* tilec: arith#3 at attention.py */
  const uint8_t v31_ok = (uint8_t)(v4_K_0 == v1_Q_0);
  /* tilec: arith#4 at attention.py */
  const uint8_t v32_ok = (uint8_t)(v7_V_0 == v1_Q_0);
  /* tilec: arith#5 at attention.py */
  const uint8_t v33_ok = (v31_ok & v32_ok);
  /* tilec: arith#6 at attention.py */
  const uint8_t v34_ok = (uint8_t)(v6_K_2 == v3_Q_2);
  /* tilec: arith#7 at attention.py */
  const uint8_t v35_ok = (uint8_t)(v9_V_2 == v3_Q_2);
  /* tilec: arith#8 at attention.py */
  const uint8_t v36_ok = (v34_ok & v35_ok);
  /* tilec: arith#9 at attention.py */
  const uint8_t v37_ok = (uint8_t)(v8_V_1 == v5_K_1);
  /* tilec: arith#10 at attention.py */
  const uint8_t v38_ok = (uint8_t)(v10_Out_0 == v1_Q_0);
  /* tilec: arith#11 at attention.py */
  const uint8_t v39_ok = (uint8_t)(v11_Out_1 == v2_Q_1);
  /* tilec: arith#12 at attention.py */
  const uint8_t v40_ok = (uint8_t)(v12_Out_2 == v3_Q_2);
  /* tilec: arith#13 at attention.py */
  const uint8_t v41_ok = (v38_ok & v39_ok);
  /* tilec: arith#14 at attention.py */
  const uint8_t v42_ok = (v41_ok & v40_ok);
  /* tilec: arith#15 at attention.py */
  const uint8_t v43_ok = (uint8_t)(v13_LSE_0 == v1_Q_0);
  /* tilec: arith#16 at attention.py */
  const uint8_t v44_ok = (uint8_t)(v14_LSE_1 == v2_Q_1);
  /* tilec: arith#17 at attention.py */
  const uint8_t v45_ok = (v43_ok & v44_ok);
  /* tilec: constant#18 at attention.py */
  /* tilec: arith#19 at attention.py */
  const float v46_scale2 = (v29_scale * 1.442695e+00f);
  /* tilec: constant#20 at attention.py */
  /* tilec: arith#21 at attention.py */
  const int64_t v47 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_Q_1), 16)));
  /* tilec: parallel#22 at attention.py */
  const int v48_bh = (int)tc_group.y;
  const int v49_pm = (int)tc_group.x;
  /* tilec: constant#23 at attention.py */
  /* tilec: memory#24 at attention.py */
  threadgroup float *const v50_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 9216 bytes */
  /* tilec: memory#25 at attention.py */
  threadgroup float *const v51_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 9216);  /* 2304 bytes */
  /* tilec: memory#26 at attention.py */
  threadgroup float *const v52_stage_2_ring = reinterpret_cast<threadgroup float *>(tc_smem + 11520);  /* 9216 bytes */
  /* tilec: memory#27 at attention.py */
  threadgroup float *const v53_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 20736);  /* 2048 bytes */
  /* tilec: memory#28 at attention.py */
  threadgroup float *const v54_A_staging = reinterpret_cast<threadgroup float *>(tc_smem + 22784);  /* 2304 bytes */
  /* tilec: parallel#29 at attention.py */
  const int v55_tid = (int)tc_lane;
  /* tilec: constant#30 at attention.py */
  /* tilec: constant#31 at attention.py */
  /* tilec: constant#32 at attention.py */
  /* tilec: arith#33 at attention.py */
  const float v56_scale2 = (v29_scale * 1.442695e+00f);
  /* tilec: constant#34 at attention.py */
  /* tilec: arith#35 at attention.py */
  const int64_t v57 = ((int64_t)((int64_t)v49_pm * (int64_t)16));
  /* tilec: view#36 at attention.py */
  /* tilec: constant#37 at attention.py */
  /* tilec: constant#38 at attention.py */
  /* tilec: constant#39 at attention.py */
  /* tilec: arith#40 at attention.py */
  const int64_t v58 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v5_K_1), 32)));
  /* tilec: constant#41 at attention.py */
  /* tilec: constant#42 at attention.py */
  /* tilec: arith#43 at attention.py */
  const uint8_t v59 = (uint8_t)(0 < v58);
  /* tilec: if#44 at attention.py */
  if (v59) {
    /* tilec: arith#45 at attention.py */
    /* tilec: view#46 at attention.py */
    /* tilec: view#47 at attention.py */
    /* tilec: view#48 at attention.py */
    /* tilec: load#49 at attention.py */
    float v60[8];
    {
      const int64_t a61 = (int64_t)v48_bh * v18_K_s19 + (int64_t)(v55_tid * 4 >> 5) * v18_K_s20 + (v55_tid * 4 & 31);
      const int c62 = v48_bh;
      const int c63 = (v55_tid * 4 >> 5);
      const int c64 = (v55_tid * 4 & 31);
      if (c62 < v4_K_0_i32 && c63 < v5_K_1_i32 && c64 + 3 < v6_K_2_i32 && (tc_al_v18_K && (((a61) & 3) == 0))) {
        device const tc_vec16<float> *const q65 = reinterpret_cast<device const tc_vec16<float> *>(v18_K + a61);
        v60[0] = q65->e[0];
        v60[1] = q65->e[1];
        v60[2] = q65->e[2];
        v60[3] = q65->e[3];
      }
      else {
        if (c62 < v4_K_0_i32 && c63 < v5_K_1_i32 && c64 < v6_K_2_i32) v60[0] = v18_K[a61]; else v60[0] = 0.0e+00f;
        if (c62 < v4_K_0_i32 && c63 < v5_K_1_i32 && c64 + 1 < v6_K_2_i32) v60[1] = v18_K[a61 + 1]; else v60[1] = 0.0e+00f;
        if (c62 < v4_K_0_i32 && c63 < v5_K_1_i32 && c64 + 2 < v6_K_2_i32) v60[2] = v18_K[a61 + 2]; else v60[2] = 0.0e+00f;
        if (c62 < v4_K_0_i32 && c63 < v5_K_1_i32 && c64 + 3 < v6_K_2_i32) v60[3] = v18_K[a61 + 3]; else v60[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a66 = (int64_t)v48_bh * v18_K_s19 + (int64_t)(v55_tid * 4 >> 5) * v18_K_s20 + v18_K_s20 * 16 + (v55_tid * 4 & 31);
      const int c67 = v48_bh;
      const int c68 = ((v55_tid * 4 >> 5) + 16);
      const int c69 = (v55_tid * 4 & 31);
      if (c67 < v4_K_0_i32 && c68 < v5_K_1_i32 && c69 + 3 < v6_K_2_i32 && (tc_al_v18_K && (((a66) & 3) == 0))) {
        device const tc_vec16<float> *const q70 = reinterpret_cast<device const tc_vec16<float> *>(v18_K + a66);
        v60[4] = q70->e[0];
        v60[5] = q70->e[1];
        v60[6] = q70->e[2];
        v60[7] = q70->e[3];
      }
      else {
        if (c67 < v4_K_0_i32 && c68 < v5_K_1_i32 && c69 < v6_K_2_i32) v60[4] = v18_K[a66]; else v60[4] = 0.0e+00f;
        if (c67 < v4_K_0_i32 && c68 < v5_K_1_i32 && c69 + 1 < v6_K_2_i32) v60[5] = v18_K[a66 + 1]; else v60[5] = 0.0e+00f;
        if (c67 < v4_K_0_i32 && c68 < v5_K_1_i32 && c69 + 2 < v6_K_2_i32) v60[6] = v18_K[a66 + 2]; else v60[6] = 0.0e+00f;
        if (c67 < v4_K_0_i32 && c68 < v5_K_1_i32 && c69 + 3 < v6_K_2_i32) v60[7] = v18_K[a66 + 3]; else v60[7] = 0.0e+00f;
      }
    }
    /* tilec: view#50 at attention.py */
    /* tilec: store#51 at attention.py */
    {
      const int a71 = (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31);
      if ((((a71) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q72 = reinterpret_cast<threadgroup tc_vec16<float> *>(v50_stage_0_ring + a71);
        q72->e[0] = v60[0];
        q72->e[1] = v60[1];
        q72->e[2] = v60[2];
        q72->e[3] = v60[3];
      }
      else {
        v50_stage_0_ring[a71] = v60[0];
        v50_stage_0_ring[a71 + 1] = v60[1];
        v50_stage_0_ring[a71 + 2] = v60[2];
        v50_stage_0_ring[a71 + 3] = v60[3];
      }
    }
    {
      const int a73 = (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31) + 576;
      if ((((a73) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q74 = reinterpret_cast<threadgroup tc_vec16<float> *>(v50_stage_0_ring + a73);
        q74->e[0] = v60[4];
        q74->e[1] = v60[5];
        q74->e[2] = v60[6];
        q74->e[3] = v60[7];
      }
      else {
        v50_stage_0_ring[a73] = v60[4];
        v50_stage_0_ring[a73 + 1] = v60[5];
        v50_stage_0_ring[a73 + 2] = v60[6];
        v50_stage_0_ring[a73 + 3] = v60[7];
      }
    }
    /* tilec: view#52 at attention.py */
    /* tilec: view#53 at attention.py */
    /* tilec: load#54 at attention.py */
    float v75[4];
    {
      const int64_t a76 = (int64_t)v48_bh * v15_Q_s16 + (int64_t)(v57 + (v55_tid * 4 >> 5)) * v15_Q_s17 + (v55_tid * 4 & 31);
      const int c77 = v48_bh;
      const int lim78 = tc_sat32(v2_Q_1 - v57);
      const int c79 = (v55_tid * 4 >> 5);
      const int c80 = (v55_tid * 4 & 31);
      if (c77 < v1_Q_0_i32 && c79 < lim78 && c80 + 3 < v3_Q_2_i32 && (tc_al_v15_Q && (((a76) & 3) == 0))) {
        device const tc_vec16<float> *const q81 = reinterpret_cast<device const tc_vec16<float> *>(v15_Q + a76);
        v75[0] = q81->e[0];
        v75[1] = q81->e[1];
        v75[2] = q81->e[2];
        v75[3] = q81->e[3];
      }
      else {
        if (c77 < v1_Q_0_i32 && c79 < lim78 && c80 < v3_Q_2_i32) v75[0] = v15_Q[a76]; else v75[0] = 0.0e+00f;
        if (c77 < v1_Q_0_i32 && c79 < lim78 && c80 + 1 < v3_Q_2_i32) v75[1] = v15_Q[a76 + 1]; else v75[1] = 0.0e+00f;
        if (c77 < v1_Q_0_i32 && c79 < lim78 && c80 + 2 < v3_Q_2_i32) v75[2] = v15_Q[a76 + 2]; else v75[2] = 0.0e+00f;
        if (c77 < v1_Q_0_i32 && c79 < lim78 && c80 + 3 < v3_Q_2_i32) v75[3] = v15_Q[a76 + 3]; else v75[3] = 0.0e+00f;
      }
    }
    /* tilec: view#55 at attention.py */
    /* tilec: store#56 at attention.py */
    {
      const int a82 = (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31);
      if ((((a82) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q83 = reinterpret_cast<threadgroup tc_vec16<float> *>(v51_stage_1_ring + a82);
        q83->e[0] = v75[0];
        q83->e[1] = v75[1];
        q83->e[2] = v75[2];
        q83->e[3] = v75[3];
      }
      else {
        v51_stage_1_ring[a82] = v75[0];
        v51_stage_1_ring[a82 + 1] = v75[1];
        v51_stage_1_ring[a82 + 2] = v75[2];
        v51_stage_1_ring[a82 + 3] = v75[3];
      }
    }
    /* tilec: arith#57 at attention.py */
    /* tilec: view#58 at attention.py */
    /* tilec: view#59 at attention.py */
    /* tilec: view#60 at attention.py */
    /* tilec: load#61 at attention.py */
    float v84[8];
    {
      const int64_t a85 = (int64_t)v48_bh * v21_V_s22 + (int64_t)(v55_tid * 4 >> 5) * v21_V_s23 + (v55_tid * 4 & 31);
      const int c86 = v48_bh;
      const int c87 = (v55_tid * 4 >> 5);
      const int c88 = (v55_tid * 4 & 31);
      if (c86 < v7_V_0_i32 && c87 < v8_V_1_i32 && c88 + 3 < v9_V_2_i32 && (tc_al_v21_V && (((a85) & 3) == 0))) {
        device const tc_vec16<float> *const q89 = reinterpret_cast<device const tc_vec16<float> *>(v21_V + a85);
        v84[0] = q89->e[0];
        v84[1] = q89->e[1];
        v84[2] = q89->e[2];
        v84[3] = q89->e[3];
      }
      else {
        if (c86 < v7_V_0_i32 && c87 < v8_V_1_i32 && c88 < v9_V_2_i32) v84[0] = v21_V[a85]; else v84[0] = 0.0e+00f;
        if (c86 < v7_V_0_i32 && c87 < v8_V_1_i32 && c88 + 1 < v9_V_2_i32) v84[1] = v21_V[a85 + 1]; else v84[1] = 0.0e+00f;
        if (c86 < v7_V_0_i32 && c87 < v8_V_1_i32 && c88 + 2 < v9_V_2_i32) v84[2] = v21_V[a85 + 2]; else v84[2] = 0.0e+00f;
        if (c86 < v7_V_0_i32 && c87 < v8_V_1_i32 && c88 + 3 < v9_V_2_i32) v84[3] = v21_V[a85 + 3]; else v84[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a90 = (int64_t)v48_bh * v21_V_s22 + (int64_t)(v55_tid * 4 >> 5) * v21_V_s23 + v21_V_s23 * 16 + (v55_tid * 4 & 31);
      const int c91 = v48_bh;
      const int c92 = ((v55_tid * 4 >> 5) + 16);
      const int c93 = (v55_tid * 4 & 31);
      if (c91 < v7_V_0_i32 && c92 < v8_V_1_i32 && c93 + 3 < v9_V_2_i32 && (tc_al_v21_V && (((a90) & 3) == 0))) {
        device const tc_vec16<float> *const q94 = reinterpret_cast<device const tc_vec16<float> *>(v21_V + a90);
        v84[4] = q94->e[0];
        v84[5] = q94->e[1];
        v84[6] = q94->e[2];
        v84[7] = q94->e[3];
      }
      else {
        if (c91 < v7_V_0_i32 && c92 < v8_V_1_i32 && c93 < v9_V_2_i32) v84[4] = v21_V[a90]; else v84[4] = 0.0e+00f;
        if (c91 < v7_V_0_i32 && c92 < v8_V_1_i32 && c93 + 1 < v9_V_2_i32) v84[5] = v21_V[a90 + 1]; else v84[5] = 0.0e+00f;
        if (c91 < v7_V_0_i32 && c92 < v8_V_1_i32 && c93 + 2 < v9_V_2_i32) v84[6] = v21_V[a90 + 2]; else v84[6] = 0.0e+00f;
        if (c91 < v7_V_0_i32 && c92 < v8_V_1_i32 && c93 + 3 < v9_V_2_i32) v84[7] = v21_V[a90 + 3]; else v84[7] = 0.0e+00f;
      }
    }
    /* tilec: view#62 at attention.py */
    /* tilec: store#63 at attention.py */
    {
      const int a95 = (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31);
      if ((((a95) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q96 = reinterpret_cast<threadgroup tc_vec16<float> *>(v52_stage_2_ring + a95);
        q96->e[0] = v84[0];
        q96->e[1] = v84[1];
        q96->e[2] = v84[2];
        q96->e[3] = v84[3];
      }
      else {
        v52_stage_2_ring[a95] = v84[0];
        v52_stage_2_ring[a95 + 1] = v84[1];
        v52_stage_2_ring[a95 + 2] = v84[2];
        v52_stage_2_ring[a95 + 3] = v84[3];
      }
    }
    {
      const int a97 = (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31) + 576;
      if ((((a97) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q98 = reinterpret_cast<threadgroup tc_vec16<float> *>(v52_stage_2_ring + a97);
        q98->e[0] = v84[4];
        q98->e[1] = v84[5];
        q98->e[2] = v84[6];
        q98->e[3] = v84[7];
      }
      else {
        v52_stage_2_ring[a97] = v84[4];
        v52_stage_2_ring[a97 + 1] = v84[5];
        v52_stage_2_ring[a97 + 2] = v84[6];
        v52_stage_2_ring[a97 + 3] = v84[7];
      }
    }
  }
  else {
  }
  /* tilec: serial#64 at attention.py */
  float v99[1];
  v99[0] = (-(float)INFINITY);
  float v100[1];
  v100[0] = 0.0e+00f;
  float v101[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v101[e] = 0.0e+00f;
  int m102 = 0;
  for (int64_t v103 = INT64_C(0); v103 < v58; v103 += INT64_C(1)) {
    /* tilec: atom.call#65 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#66 at attention.py */
    /* tilec: arith#67 at attention.py */
    /* tilec: arith#68 at attention.py */
    const int64_t v104 = ((int64_t)(v103 + (int64_t)1));
    /* tilec: arith#69 at attention.py */
    const uint8_t v105 = (uint8_t)(m102 == 0);
    /* tilec: arith#70 at attention.py */
    const int v106 = ((int)(m102 - 1));
    /* tilec: arith#71 at attention.py */
    const int v107 = (v105 ? 1 : v106);
    /* tilec: arith#72 at attention.py */
    const uint8_t v108 = (uint8_t)(v104 < v58);
    /* tilec: if#73 at attention.py */
    if (v108) {
      /* tilec: arith#74 at attention.py */
      const int64_t v109 = ((int64_t)(v104 * (int64_t)32));
      /* tilec: view#75 at attention.py */
      /* tilec: view#76 at attention.py */
      /* tilec: view#77 at attention.py */
      /* tilec: load#78 at attention.py */
      float v110[8];
      {
        const int64_t a111 = (int64_t)v48_bh * v18_K_s19 + (int64_t)(v109 + (v55_tid * 4 >> 5)) * v18_K_s20 + (v55_tid * 4 & 31);
        const int c112 = v48_bh;
        const int64_t c113 = (v109 + (v55_tid * 4 >> 5));
        const int c114 = (v55_tid * 4 & 31);
        if (c112 < v4_K_0_i32 && c113 >= 0 && c113 < v5_K_1 && c114 + 3 < v6_K_2_i32 && (tc_al_v18_K && (((a111) & 3) == 0))) {
          device const tc_vec16<float> *const q115 = reinterpret_cast<device const tc_vec16<float> *>(v18_K + a111);
          v110[0] = q115->e[0];
          v110[1] = q115->e[1];
          v110[2] = q115->e[2];
          v110[3] = q115->e[3];
        }
        else {
          if (c112 < v4_K_0_i32 && c113 >= 0 && c113 < v5_K_1 && c114 < v6_K_2_i32) v110[0] = v18_K[a111]; else v110[0] = 0.0e+00f;
          if (c112 < v4_K_0_i32 && c113 >= 0 && c113 < v5_K_1 && c114 + 1 < v6_K_2_i32) v110[1] = v18_K[a111 + 1]; else v110[1] = 0.0e+00f;
          if (c112 < v4_K_0_i32 && c113 >= 0 && c113 < v5_K_1 && c114 + 2 < v6_K_2_i32) v110[2] = v18_K[a111 + 2]; else v110[2] = 0.0e+00f;
          if (c112 < v4_K_0_i32 && c113 >= 0 && c113 < v5_K_1 && c114 + 3 < v6_K_2_i32) v110[3] = v18_K[a111 + 3]; else v110[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a116 = (int64_t)v48_bh * v18_K_s19 + (int64_t)(v109 + (v55_tid * 4 >> 5)) * v18_K_s20 + v18_K_s20 * 16 + (v55_tid * 4 & 31);
        const int c117 = v48_bh;
        const int64_t c118 = (v109 + (v55_tid * 4 >> 5) + 16);
        const int c119 = (v55_tid * 4 & 31);
        if (c117 < v4_K_0_i32 && c118 >= 0 && c118 < v5_K_1 && c119 + 3 < v6_K_2_i32 && (tc_al_v18_K && (((a116) & 3) == 0))) {
          device const tc_vec16<float> *const q120 = reinterpret_cast<device const tc_vec16<float> *>(v18_K + a116);
          v110[4] = q120->e[0];
          v110[5] = q120->e[1];
          v110[6] = q120->e[2];
          v110[7] = q120->e[3];
        }
        else {
          if (c117 < v4_K_0_i32 && c118 >= 0 && c118 < v5_K_1 && c119 < v6_K_2_i32) v110[4] = v18_K[a116]; else v110[4] = 0.0e+00f;
          if (c117 < v4_K_0_i32 && c118 >= 0 && c118 < v5_K_1 && c119 + 1 < v6_K_2_i32) v110[5] = v18_K[a116 + 1]; else v110[5] = 0.0e+00f;
          if (c117 < v4_K_0_i32 && c118 >= 0 && c118 < v5_K_1 && c119 + 2 < v6_K_2_i32) v110[6] = v18_K[a116 + 2]; else v110[6] = 0.0e+00f;
          if (c117 < v4_K_0_i32 && c118 >= 0 && c118 < v5_K_1 && c119 + 3 < v6_K_2_i32) v110[7] = v18_K[a116 + 3]; else v110[7] = 0.0e+00f;
        }
      }
      /* tilec: view#79 at attention.py */
      /* tilec: store#80 at attention.py */
      {
        const int a121 = v107 * 1152 + (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31);
        if ((((a121) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q122 = reinterpret_cast<threadgroup tc_vec16<float> *>(v50_stage_0_ring + a121);
          q122->e[0] = v110[0];
          q122->e[1] = v110[1];
          q122->e[2] = v110[2];
          q122->e[3] = v110[3];
        }
        else {
          v50_stage_0_ring[a121] = v110[0];
          v50_stage_0_ring[a121 + 1] = v110[1];
          v50_stage_0_ring[a121 + 2] = v110[2];
          v50_stage_0_ring[a121 + 3] = v110[3];
        }
      }
      {
        const int a123 = v107 * 1152 + (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31) + 576;
        if ((((a123) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q124 = reinterpret_cast<threadgroup tc_vec16<float> *>(v50_stage_0_ring + a123);
          q124->e[0] = v110[4];
          q124->e[1] = v110[5];
          q124->e[2] = v110[6];
          q124->e[3] = v110[7];
        }
        else {
          v50_stage_0_ring[a123] = v110[4];
          v50_stage_0_ring[a123 + 1] = v110[5];
          v50_stage_0_ring[a123 + 2] = v110[6];
          v50_stage_0_ring[a123 + 3] = v110[7];
        }
      }
      /* tilec: arith#81 at attention.py */
      const int64_t v125 = ((int64_t)(v104 * (int64_t)32));
      /* tilec: view#82 at attention.py */
      /* tilec: view#83 at attention.py */
      /* tilec: view#84 at attention.py */
      /* tilec: load#85 at attention.py */
      float v126[8];
      {
        const int64_t a127 = (int64_t)v48_bh * v21_V_s22 + (int64_t)(v125 + (v55_tid * 4 >> 5)) * v21_V_s23 + (v55_tid * 4 & 31);
        const int c128 = v48_bh;
        const int64_t c129 = (v125 + (v55_tid * 4 >> 5));
        const int c130 = (v55_tid * 4 & 31);
        if (c128 < v7_V_0_i32 && c129 >= 0 && c129 < v8_V_1 && c130 + 3 < v9_V_2_i32 && (tc_al_v21_V && (((a127) & 3) == 0))) {
          device const tc_vec16<float> *const q131 = reinterpret_cast<device const tc_vec16<float> *>(v21_V + a127);
          v126[0] = q131->e[0];
          v126[1] = q131->e[1];
          v126[2] = q131->e[2];
          v126[3] = q131->e[3];
        }
        else {
          if (c128 < v7_V_0_i32 && c129 >= 0 && c129 < v8_V_1 && c130 < v9_V_2_i32) v126[0] = v21_V[a127]; else v126[0] = 0.0e+00f;
          if (c128 < v7_V_0_i32 && c129 >= 0 && c129 < v8_V_1 && c130 + 1 < v9_V_2_i32) v126[1] = v21_V[a127 + 1]; else v126[1] = 0.0e+00f;
          if (c128 < v7_V_0_i32 && c129 >= 0 && c129 < v8_V_1 && c130 + 2 < v9_V_2_i32) v126[2] = v21_V[a127 + 2]; else v126[2] = 0.0e+00f;
          if (c128 < v7_V_0_i32 && c129 >= 0 && c129 < v8_V_1 && c130 + 3 < v9_V_2_i32) v126[3] = v21_V[a127 + 3]; else v126[3] = 0.0e+00f;
        }
      }
      {
        const int64_t a132 = (int64_t)v48_bh * v21_V_s22 + (int64_t)(v125 + (v55_tid * 4 >> 5)) * v21_V_s23 + v21_V_s23 * 16 + (v55_tid * 4 & 31);
        const int c133 = v48_bh;
        const int64_t c134 = (v125 + (v55_tid * 4 >> 5) + 16);
        const int c135 = (v55_tid * 4 & 31);
        if (c133 < v7_V_0_i32 && c134 >= 0 && c134 < v8_V_1 && c135 + 3 < v9_V_2_i32 && (tc_al_v21_V && (((a132) & 3) == 0))) {
          device const tc_vec16<float> *const q136 = reinterpret_cast<device const tc_vec16<float> *>(v21_V + a132);
          v126[4] = q136->e[0];
          v126[5] = q136->e[1];
          v126[6] = q136->e[2];
          v126[7] = q136->e[3];
        }
        else {
          if (c133 < v7_V_0_i32 && c134 >= 0 && c134 < v8_V_1 && c135 < v9_V_2_i32) v126[4] = v21_V[a132]; else v126[4] = 0.0e+00f;
          if (c133 < v7_V_0_i32 && c134 >= 0 && c134 < v8_V_1 && c135 + 1 < v9_V_2_i32) v126[5] = v21_V[a132 + 1]; else v126[5] = 0.0e+00f;
          if (c133 < v7_V_0_i32 && c134 >= 0 && c134 < v8_V_1 && c135 + 2 < v9_V_2_i32) v126[6] = v21_V[a132 + 2]; else v126[6] = 0.0e+00f;
          if (c133 < v7_V_0_i32 && c134 >= 0 && c134 < v8_V_1 && c135 + 3 < v9_V_2_i32) v126[7] = v21_V[a132 + 3]; else v126[7] = 0.0e+00f;
        }
      }
      /* tilec: view#86 at attention.py */
      /* tilec: store#87 at attention.py */
      {
        const int a137 = v107 * 1152 + (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31);
        if ((((a137) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q138 = reinterpret_cast<threadgroup tc_vec16<float> *>(v52_stage_2_ring + a137);
          q138->e[0] = v126[0];
          q138->e[1] = v126[1];
          q138->e[2] = v126[2];
          q138->e[3] = v126[3];
        }
        else {
          v52_stage_2_ring[a137] = v126[0];
          v52_stage_2_ring[a137 + 1] = v126[1];
          v52_stage_2_ring[a137 + 2] = v126[2];
          v52_stage_2_ring[a137 + 3] = v126[3];
        }
      }
      {
        const int a139 = v107 * 1152 + (v55_tid * 4 >> 5) * 36 + (v55_tid * 4 & 31) + 576;
        if ((((a139) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q140 = reinterpret_cast<threadgroup tc_vec16<float> *>(v52_stage_2_ring + a139);
          q140->e[0] = v126[4];
          q140->e[1] = v126[5];
          q140->e[2] = v126[6];
          q140->e[3] = v126[7];
        }
        else {
          v52_stage_2_ring[a139] = v126[4];
          v52_stage_2_ring[a139 + 1] = v126[5];
          v52_stage_2_ring[a139 + 2] = v126[6];
          v52_stage_2_ring[a139 + 3] = v126[7];
        }
      }
    }
    else {
    }
    /* tilec: view#88 at attention.py */
    /* tilec: view#89 at attention.py */
    /* tilec: view#90 at attention.py */
    /* tilec: arith#91 at attention.py */
    const int64_t v141 = ((int64_t)(v103 * (int64_t)32));
    /* tilec: view#92 at attention.py */
    /* tilec: constant#93 at attention.py */
    /* tilec: constant#94 at attention.py */
    /* tilec: serial#95 at attention.py */
    float v142[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v142[e] = 0.0e+00f;
    #pragma unroll 8
    for (int v143 = 0; v143 < 8; v143 += 1) {
      /* tilec: view#96 at attention.py */
      /* tilec: load#97 at attention.py */
      float v144[8];
      {
        const int a145 = ((v55_tid & 31) >> 2) * 36 + v143 * 4;
        threadgroup const tc_vec16<float> *const q146 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v51_stage_1_ring + a145);
        v144[0] = q146->e[0];
        v144[1] = q146->e[1];
        v144[2] = q146->e[2];
        v144[3] = q146->e[3];
      }
      {
        const int a147 = ((v55_tid & 31) >> 2) * 36 + v143 * 4 + 288;
        threadgroup const tc_vec16<float> *const q148 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v51_stage_1_ring + a147);
        v144[4] = q148->e[0];
        v144[5] = q148->e[1];
        v144[6] = q148->e[2];
        v144[7] = q148->e[3];
      }
      /* tilec: view#98 at attention.py */
      /* tilec: load#99 at attention.py */
      float v149[8];
      {
        v149[0] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4];
      }
      {
        v149[1] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 36];
      }
      {
        v149[2] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 1];
      }
      {
        v149[3] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 37];
      }
      {
        v149[4] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 2];
      }
      {
        v149[5] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 38];
      }
      {
        v149[6] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 3];
      }
      {
        v149[7] = v50_stage_0_ring[m102 * 1152 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) * 36 + v143 * 4 + 39];
      }
      /* tilec: reindex#100 at attention.py */
      float v150[4];
      v150[0] = v144[0];
      v150[1] = v144[0];
      v150[2] = v144[4];
      v150[3] = v144[4];
      /* tilec: reindex#101 at attention.py */
      float v151[4];
      v151[0] = v149[0];
      v151[1] = v149[1];
      v151[2] = v149[0];
      v151[3] = v149[1];
      /* tilec: map#102 at attention.py */
      float v152[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v153 = v142[e];
        const float v154 = v150[e];
        const float v155 = v151[e];
        /* tilec: arith#103 */
        const float v156 = tc_fma_f32(v154, v155, v153);
        v152[e] = v156;
      }
      /* tilec: reindex#104 at attention.py */
      float v157[4];
      v157[0] = v144[1];
      v157[1] = v144[1];
      v157[2] = v144[5];
      v157[3] = v144[5];
      /* tilec: reindex#105 at attention.py */
      float v158[4];
      v158[0] = v149[2];
      v158[1] = v149[3];
      v158[2] = v149[2];
      v158[3] = v149[3];
      /* tilec: map#106 at attention.py */
      float v159[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v160 = v152[e];
        const float v161 = v157[e];
        const float v162 = v158[e];
        /* tilec: arith#107 */
        const float v163 = tc_fma_f32(v161, v162, v160);
        v159[e] = v163;
      }
      /* tilec: reindex#108 at attention.py */
      float v164[4];
      v164[0] = v144[2];
      v164[1] = v144[2];
      v164[2] = v144[6];
      v164[3] = v144[6];
      /* tilec: reindex#109 at attention.py */
      float v165[4];
      v165[0] = v149[4];
      v165[1] = v149[5];
      v165[2] = v149[4];
      v165[3] = v149[5];
      /* tilec: map#110 at attention.py */
      float v166[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v167 = v159[e];
        const float v168 = v164[e];
        const float v169 = v165[e];
        /* tilec: arith#111 */
        const float v170 = tc_fma_f32(v168, v169, v167);
        v166[e] = v170;
      }
      /* tilec: reindex#112 at attention.py */
      float v171[4];
      v171[0] = v144[3];
      v171[1] = v144[3];
      v171[2] = v144[7];
      v171[3] = v144[7];
      /* tilec: reindex#113 at attention.py */
      float v172[4];
      v172[0] = v149[6];
      v172[1] = v149[7];
      v172[2] = v149[6];
      v172[3] = v149[7];
      /* tilec: map#114 at attention.py */
      float v173[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v174 = v166[e];
        const float v175 = v171[e];
        const float v176 = v172[e];
        /* tilec: arith#115 */
        const float v177 = tc_fma_f32(v175, v176, v174);
        v173[e] = v177;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v142[e] = v173[e];
    }
    /* tilec: map#116 at attention.py */
    float v178[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v179 = v142[e];
      /* tilec: arith#117 at attention.py */
      const float v180 = (v179 * v56_scale2);
      v178[e] = v180;
    }
    /* tilec: arith#118 at attention.py */
    const int64_t v181 = ((int64_t)(v103 + (int64_t)1));
    /* tilec: arith#119 at attention.py */
    const int64_t v182 = ((int64_t)(v181 * (int64_t)32));
    /* tilec: arith#120 at attention.py */
    const uint8_t v183 = (uint8_t)(v182 > v5_K_1);
    /* tilec: if#121 at attention.py */
    float v184[4];
    if (v183) {
      /* tilec: iota#122 at attention.py */
      int32_t v185[4];
      v185[0] = ((int32_t)(int64_t)((v141 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)));
      v185[1] = ((int32_t)(int64_t)((v141 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2 + 1)));
      v185[2] = ((int32_t)(int64_t)((v141 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)));
      v185[3] = ((int32_t)(int64_t)((v141 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2 + 1)));
      /* tilec: map#123 at attention.py */
      float v186[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int32_t v187 = v185[e];
        const float v188_s = v178[e];
        /* tilec: arith#124 at attention.py */
        const int32_t v189 = ((int32_t)v5_K_1);
        /* tilec: arith#125 at attention.py */
        const uint8_t v190 = (uint8_t)(v187 < v189);
        /* tilec: constant#126 at attention.py */
        /* tilec: arith#127 at attention.py */
        const float v191 = (v190 ? v188_s : (-(float)INFINITY));
        v186[e] = v191;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v184[e] = v186[e];
    }
    else {
      #pragma unroll
      for (int e = 0; e < 4; ++e) v184[e] = v178[e];
    }
    /* tilec: constant#128 at attention.py */
    /* tilec: view#129 at attention.py */
    /* tilec: view#130 at attention.py */
    /* tilec: store#131 at attention.py */
    {
      v53_scratch_f32[(((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)] = v184[0];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1)] = v184[1];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 256)] = v184[2];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 257)] = v184[3];
    }
    /* tilec: atom.call#132 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#133 at attention.py */
    /* tilec: load#134 at attention.py */
    float v192[4];
    {
      const int a193 = ((v55_tid >> 3) * 32 + (v55_tid & 7) * 4);
      threadgroup const tc_vec16<float> *const q194 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v53_scratch_f32 + a193);
      v192[0] = q194->e[0];
      v192[1] = q194->e[1];
      v192[2] = q194->e[2];
      v192[3] = q194->e[3];
    }
    /* tilec: reindex#135 at attention.py */
    float v195[4];
    v195[0] = v192[0];
    v195[1] = v192[1];
    v195[2] = v192[2];
    v195[3] = v192[3];
    /* tilec: constant#136 at attention.py */
    /* tilec: reduce#137 at attention.py */
    float v196[1];
    const float p197 = tc_max_f32(v195[0], v195[1]);
    const float p198 = tc_max_f32(v195[2], v195[3]);
    const float p199 = tc_max_f32(p197, p198);
    v196[0] = p199;
    /* tilec: atom.call#138 at attention.py */
    float v200[1];
    v200[0] = tc_shfl_xor(v196[0], (ushort)(INT64_C(1)));
    /* tilec: map#139 at attention.py */
    float v201[1];
    {
      const float v202 = v196[0];
      const float v203 = v200[0];
      /* tilec: arith#140 */
      const float v204 = tc_max_f32(v202, v203);
      v201[0] = v204;
    }
    /* tilec: constant#141 at attention.py */
    /* tilec: atom.call#142 at attention.py */
    float v205[1];
    v205[0] = tc_shfl_xor(v201[0], (ushort)(INT64_C(2)));
    /* tilec: map#143 at attention.py */
    float v206[1];
    {
      const float v207 = v201[0];
      const float v208 = v205[0];
      /* tilec: arith#144 */
      const float v209 = tc_max_f32(v207, v208);
      v206[0] = v209;
    }
    /* tilec: constant#145 at attention.py */
    /* tilec: atom.call#146 at attention.py */
    float v210[1];
    v210[0] = tc_shfl_xor(v206[0], (ushort)(INT64_C(4)));
    /* tilec: map#147 at attention.py */
    float v211[1];
    {
      const float v212 = v206[0];
      const float v213 = v210[0];
      /* tilec: arith#148 */
      const float v214 = tc_max_f32(v212, v213);
      v211[0] = v214;
    }
    /* tilec: map#149 at attention.py */
    float v215[1];
    {
      const float v216_m = v99[0];
      const float v217 = v211[0];
      /* tilec: arith#150 at attention.py */
      const float v218 = tc_max_f32(v216_m, v217);
      v215[0] = v218;
    }
    /* tilec: view#151 at attention.py */
    /* tilec: atom.call#152 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#153 at attention.py */
    const int v219 = (v55_tid & 7);
    /* tilec: arith#154 at attention.py */
    const uint8_t v220 = (uint8_t)(v219 == 0);
    /* tilec: if#155 at attention.py */
    if (v220) {
      /* tilec: view#156 at attention.py */
      /* tilec: store#157 at attention.py */
      {
        v53_scratch_f32[(v55_tid >> 3)] = v215[0];
      }
    }
    else {
    }
    /* tilec: atom.call#158 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#159 at attention.py */
    /* tilec: load#160 at attention.py */
    float v221[4];
    {
      v221[0] = v53_scratch_f32[((v55_tid & 31) >> 2)];
    }
    {
      v221[1] = v53_scratch_f32[((v55_tid & 31) >> 2)];
    }
    {
      v221[2] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
    }
    {
      v221[3] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
    }
    /* tilec: map#161 at attention.py */
    float v222[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v223_s = v184[e];
      const float v224 = v221[e];
      /* tilec: arith#162 at attention.py */
      const float v225 = (v223_s - v224);
      /* tilec: arith#163 at attention.py */
      const float v226 = tc_exp2_f32(v225);
      v222[e] = v226;
    }
    /* tilec: map#164 at attention.py */
    float v227[1];
    {
      const float v228_m = v99[0];
      const float v229_m_new = v215[0];
      /* tilec: arith#165 at attention.py */
      const float v230 = (v228_m - v229_m_new);
      /* tilec: arith#166 at attention.py */
      const float v231 = tc_exp2_f32(v230);
      v227[0] = v231;
    }
    /* tilec: constant#167 at attention.py */
    /* tilec: view#168 at attention.py */
    /* tilec: atom.call#169 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#170 at attention.py */
    /* tilec: store#171 at attention.py */
    {
      v53_scratch_f32[(((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)] = v222[0];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1)] = v222[1];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 256)] = v222[2];
    }
    {
      v53_scratch_f32[((((v55_tid & 31) >> 2) * 32 + (v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 257)] = v222[3];
    }
    /* tilec: atom.call#172 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#173 at attention.py */
    /* tilec: load#174 at attention.py */
    float v232[4];
    {
      const int a233 = ((v55_tid >> 3) * 32 + (v55_tid & 7) * 4);
      threadgroup const tc_vec16<float> *const q234 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v53_scratch_f32 + a233);
      v232[0] = q234->e[0];
      v232[1] = q234->e[1];
      v232[2] = q234->e[2];
      v232[3] = q234->e[3];
    }
    /* tilec: reindex#175 at attention.py */
    float v235[4];
    v235[0] = v232[0];
    v235[1] = v232[1];
    v235[2] = v232[2];
    v235[3] = v232[3];
    /* tilec: constant#176 at attention.py */
    /* tilec: reduce#177 at attention.py */
    float v236[1];
    const float p237 = (v235[0] + v235[1]);
    const float p238 = (v235[2] + v235[3]);
    const float p239 = (p237 + p238);
    v236[0] = p239;
    /* tilec: atom.call#178 at attention.py */
    float v240[1];
    v240[0] = tc_shfl_xor(v236[0], (ushort)(INT64_C(1)));
    /* tilec: map#179 at attention.py */
    float v241[1];
    {
      const float v242 = v236[0];
      const float v243 = v240[0];
      /* tilec: arith#180 */
      const float v244 = (v242 + v243);
      v241[0] = v244;
    }
    /* tilec: atom.call#181 at attention.py */
    float v245[1];
    v245[0] = tc_shfl_xor(v241[0], (ushort)(INT64_C(2)));
    /* tilec: map#182 at attention.py */
    float v246[1];
    {
      const float v247 = v241[0];
      const float v248 = v245[0];
      /* tilec: arith#183 */
      const float v249 = (v247 + v248);
      v246[0] = v249;
    }
    /* tilec: atom.call#184 at attention.py */
    float v250[1];
    v250[0] = tc_shfl_xor(v246[0], (ushort)(INT64_C(4)));
    /* tilec: map#185 at attention.py */
    float v251[1];
    {
      const float v252 = v246[0];
      const float v253 = v250[0];
      /* tilec: arith#186 */
      const float v254 = (v252 + v253);
      v251[0] = v254;
    }
    /* tilec: map#187 at attention.py */
    float v255[1];
    {
      const float v256 = v251[0];
      /* tilec: arith#188 */
      const float v257 = (0.0e+00f + v256);
      v255[0] = v257;
    }
    /* tilec: map#189 at attention.py */
    float v258[1];
    {
      const float v259_den = v100[0];
      const float v260_alpha = v227[0];
      const float v261 = v255[0];
      /* tilec: arith#190 at attention.py */
      const float v262 = (v259_den * v260_alpha);
      /* tilec: arith#191 at attention.py */
      const float v263 = (v262 + v261);
      v258[0] = v263;
    }
    /* tilec: view#192 at attention.py */
    /* tilec: atom.call#193 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#194 at attention.py */
    const int v264 = (v55_tid & 7);
    /* tilec: arith#195 at attention.py */
    const uint8_t v265 = (uint8_t)(v264 == 0);
    /* tilec: if#196 at attention.py */
    if (v265) {
      /* tilec: view#197 at attention.py */
      /* tilec: store#198 at attention.py */
      {
        v53_scratch_f32[(v55_tid >> 3)] = v227[0];
      }
    }
    else {
    }
    /* tilec: atom.call#199 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#200 at attention.py */
    /* tilec: load#201 at attention.py */
    float v266[4];
    {
      v266[0] = v53_scratch_f32[((v55_tid & 31) >> 2)];
    }
    {
      v266[1] = v53_scratch_f32[((v55_tid & 31) >> 2)];
    }
    {
      v266[2] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
    }
    {
      v266[3] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
    }
    /* tilec: map#202 at attention.py */
    float v267[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v268_acc = v101[e];
      const float v269 = v266[e];
      /* tilec: arith#203 at attention.py */
      const float v270 = (v268_acc * v269);
      v267[e] = v270;
    }
    /* tilec: view#204 at attention.py */
    /* tilec: view#205 at attention.py */
    /* tilec: store#206 at attention.py */
    {
      v54_A_staging[((v55_tid & 31) >> 2) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)] = v222[0];
    }
    {
      v54_A_staging[((v55_tid & 31) >> 2) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1] = v222[1];
    }
    {
      v54_A_staging[((v55_tid & 31) >> 2) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 288] = v222[2];
    }
    {
      v54_A_staging[((v55_tid & 31) >> 2) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 289] = v222[3];
    }
    /* tilec: atom.call#207 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: serial#208 at attention.py */
    float v271[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v271[e] = v267[e];
    #pragma unroll 8
    for (int v272 = 0; v272 < 8; v272 += 1) {
      /* tilec: view#209 at attention.py */
      /* tilec: load#210 at attention.py */
      float v273[8];
      {
        const int a274 = ((v55_tid & 31) >> 2) * 36 + v272 * 4;
        threadgroup const tc_vec16<float> *const q275 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v54_A_staging + a274);
        v273[0] = q275->e[0];
        v273[1] = q275->e[1];
        v273[2] = q275->e[2];
        v273[3] = q275->e[3];
      }
      {
        const int a276 = ((v55_tid & 31) >> 2) * 36 + v272 * 4 + 288;
        threadgroup const tc_vec16<float> *const q277 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v54_A_staging + a276);
        v273[4] = q277->e[0];
        v273[5] = q277->e[1];
        v273[6] = q277->e[2];
        v273[7] = q277->e[3];
      }
      /* tilec: view#211 at attention.py */
      /* tilec: load#212 at attention.py */
      float v278[8];
      {
        v278[0] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)];
      }
      {
        v278[1] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1];
      }
      {
        v278[2] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 36];
      }
      {
        v278[3] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 37];
      }
      {
        v278[4] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 72];
      }
      {
        v278[5] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 73];
      }
      {
        v278[6] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 108];
      }
      {
        v278[7] = v52_stage_2_ring[m102 * 1152 + (v272 * 4) * 36 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 109];
      }
      /* tilec: reindex#213 at attention.py */
      float v279[4];
      v279[0] = v273[0];
      v279[1] = v273[0];
      v279[2] = v273[4];
      v279[3] = v273[4];
      /* tilec: reindex#214 at attention.py */
      float v280[4];
      v280[0] = v278[0];
      v280[1] = v278[1];
      v280[2] = v278[0];
      v280[3] = v278[1];
      /* tilec: map#215 at attention.py */
      float v281[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v282 = v271[e];
        const float v283 = v279[e];
        const float v284 = v280[e];
        /* tilec: arith#216 */
        const float v285 = tc_fma_f32(v283, v284, v282);
        v281[e] = v285;
      }
      /* tilec: reindex#217 at attention.py */
      float v286[4];
      v286[0] = v273[1];
      v286[1] = v273[1];
      v286[2] = v273[5];
      v286[3] = v273[5];
      /* tilec: reindex#218 at attention.py */
      float v287[4];
      v287[0] = v278[2];
      v287[1] = v278[3];
      v287[2] = v278[2];
      v287[3] = v278[3];
      /* tilec: map#219 at attention.py */
      float v288[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v289 = v281[e];
        const float v290 = v286[e];
        const float v291 = v287[e];
        /* tilec: arith#220 */
        const float v292 = tc_fma_f32(v290, v291, v289);
        v288[e] = v292;
      }
      /* tilec: reindex#221 at attention.py */
      float v293[4];
      v293[0] = v273[2];
      v293[1] = v273[2];
      v293[2] = v273[6];
      v293[3] = v273[6];
      /* tilec: reindex#222 at attention.py */
      float v294[4];
      v294[0] = v278[4];
      v294[1] = v278[5];
      v294[2] = v278[4];
      v294[3] = v278[5];
      /* tilec: map#223 at attention.py */
      float v295[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v296 = v288[e];
        const float v297 = v293[e];
        const float v298 = v294[e];
        /* tilec: arith#224 */
        const float v299 = tc_fma_f32(v297, v298, v296);
        v295[e] = v299;
      }
      /* tilec: reindex#225 at attention.py */
      float v300[4];
      v300[0] = v273[3];
      v300[1] = v273[3];
      v300[2] = v273[7];
      v300[3] = v273[7];
      /* tilec: reindex#226 at attention.py */
      float v301[4];
      v301[0] = v278[6];
      v301[1] = v278[7];
      v301[2] = v278[6];
      v301[3] = v278[7];
      /* tilec: map#227 at attention.py */
      float v302[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v303 = v295[e];
        const float v304 = v300[e];
        const float v305 = v301[e];
        /* tilec: arith#228 */
        const float v306 = tc_fma_f32(v304, v305, v303);
        v302[e] = v306;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v271[e] = v302[e];
    }
    /* tilec: arith#229 at attention.py */
    const int v307 = ((int)(m102 + 1));
    /* tilec: arith#230 at attention.py */
    const uint8_t v308 = (uint8_t)(v307 == 2);
    /* tilec: arith#231 at attention.py */
    const int v309 = (v308 ? 0 : v307);
    /* tilec: atom.call#232 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int y310 = v309;
    v99[0] = v215[0];
    v100[0] = v258[0];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v101[e] = v271[e];
    m102 = y310;
  }
  /* tilec: view#233 at attention.py */
  /* tilec: view#234 at attention.py */
  /* tilec: constant#235 at attention.py */
  /* tilec: arith#236 at attention.py */
  const int v311 = (v55_tid & 7);
  /* tilec: arith#237 at attention.py */
  const uint8_t v312 = (uint8_t)(v311 == 0);
  /* tilec: if#238 at attention.py */
  if (v312) {
    /* tilec: view#239 at attention.py */
    /* tilec: store#240 at attention.py */
    {
      v53_scratch_f32[(v55_tid >> 3)] = v100[0];
    }
  }
  else {
  }
  /* tilec: atom.call#241 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#242 at attention.py */
  /* tilec: load#243 at attention.py */
  float v313[4];
  {
    v313[0] = v53_scratch_f32[((v55_tid & 31) >> 2)];
  }
  {
    v313[1] = v53_scratch_f32[((v55_tid & 31) >> 2)];
  }
  {
    v313[2] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
  }
  {
    v313[3] = v53_scratch_f32[(((v55_tid & 31) >> 2) + 8)];
  }
  /* tilec: map#244 at attention.py */
  float v314[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v315_acc = v101[e];
    const float v316 = v313[e];
    /* tilec: arith#245 at attention.py */
    const float v317 = (v315_acc / v316);
    v314[e] = v317;
  }
  /* tilec: view#246 at attention.py */
  /* tilec: store#247 at attention.py */
  {
    const int c318 = v48_bh;
    const int64_t c319 = (v57 + ((v55_tid & 31) >> 2));
    const int c320 = ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2);
    if (c318 < v10_Out_0_i32 && c319 < v11_Out_1 && c320 < v12_Out_2_i32) v24_Out[(int64_t)v48_bh * v24_Out_s25 + (int64_t)(v57 + ((v55_tid & 31) >> 2)) * v24_Out_s26 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)] = v314[0];
  }
  {
    const int c321 = v48_bh;
    const int64_t c322 = (v57 + ((v55_tid & 31) >> 2));
    const int c323 = ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2 + 1);
    if (c321 < v10_Out_0_i32 && c322 < v11_Out_1 && c323 < v12_Out_2_i32) v24_Out[(int64_t)v48_bh * v24_Out_s25 + (int64_t)(v57 + ((v55_tid & 31) >> 2)) * v24_Out_s26 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1] = v314[1];
  }
  {
    const int c324 = v48_bh;
    const int64_t c325 = (v57 + ((v55_tid & 31) >> 2) + 8);
    const int c326 = ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2);
    if (c324 < v10_Out_0_i32 && c325 < v11_Out_1 && c326 < v12_Out_2_i32) v24_Out[(int64_t)v48_bh * v24_Out_s25 + (int64_t)(v57 + ((v55_tid & 31) >> 2)) * v24_Out_s26 + v24_Out_s26 * 8 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2)] = v314[2];
  }
  {
    const int c327 = v48_bh;
    const int64_t c328 = (v57 + ((v55_tid & 31) >> 2) + 8);
    const int c329 = ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2 + 1);
    if (c327 < v10_Out_0_i32 && c328 < v11_Out_1 && c329 < v12_Out_2_i32) v24_Out[(int64_t)v48_bh * v24_Out_s25 + (int64_t)(v57 + ((v55_tid & 31) >> 2)) * v24_Out_s26 + v24_Out_s26 * 8 + ((v55_tid >> 5) * 8 + ((v55_tid & 31) & 3) * 2) + 1] = v314[3];
  }
  /* tilec: view#248 at attention.py */
  /* tilec: map#249 at attention.py */
  float v330[1];
  {
    const float v331_m = v99[0];
    const float v332_den = v100[0];
    /* tilec: arith#250 at attention.py */
    const float v333 = tc_log2_f32(v332_den);
    /* tilec: arith#251 at attention.py */
    const float v334 = (v331_m + v333);
    /* tilec: constant#252 at attention.py */
    /* tilec: arith#253 at attention.py */
    const float v335 = (v334 * 6.931472e-01f);
    v330[0] = v335;
  }
  /* tilec: view#254 at attention.py */
  /* tilec: atom.call#255 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: arith#256 at attention.py */
  const int v336 = (v55_tid & 7);
  /* tilec: arith#257 at attention.py */
  const uint8_t v337 = (uint8_t)(v336 == 0);
  /* tilec: if#258 at attention.py */
  if (v337) {
    /* tilec: view#259 at attention.py */
    /* tilec: store#260 at attention.py */
    {
      v53_scratch_f32[(v55_tid >> 3)] = v330[0];
    }
  }
  else {
  }
  /* tilec: atom.call#261 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#262 at attention.py */
  /* tilec: load#263 at attention.py */
  float v338[4];
  {
    const int a339 = (v55_tid * 4 & 15);
    const int c340 = (v55_tid * 4 & 15);
    if (c340 + 3 < 16 && (((a339) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q341 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v53_scratch_f32 + a339);
      v338[0] = q341->e[0];
      v338[1] = q341->e[1];
      v338[2] = q341->e[2];
      v338[3] = q341->e[3];
    }
    else {
      v338[0] = v53_scratch_f32[a339];
      if (c340 + 1 < 16) v338[1] = v53_scratch_f32[a339 + 1]; else v338[1] = ((float)NAN);
      if (c340 + 2 < 16) v338[2] = v53_scratch_f32[a339 + 2]; else v338[2] = ((float)NAN);
      if (c340 + 3 < 16) v338[3] = v53_scratch_f32[a339 + 3]; else v338[3] = ((float)NAN);
    }
  }
  /* tilec: view#264 at attention.py */
  /* tilec: store#265 at attention.py */
  {
    const int64_t a342 = (int64_t)(v48_bh + (v55_tid * 4 >> 4)) * v27_LSE_s28 + (v57 + (v55_tid * 4 & 15));
    const int c343 = (v48_bh + (v55_tid * 4 >> 4));
    const int lim344 = tc_sat32(v14_LSE_1 - v57);
    const int c345 = (v55_tid * 4 & 15);
    const int c346 = (v55_tid * 4 >> 4);
    const int c347 = (v55_tid * 4 & 15);
    if (c343 < v13_LSE_0_i32 && c345 + 3 < lim344 && c346 < 1 && c347 + 3 < 16 && (tc_al_v27_LSE && (((a342) & 3) == 0))) {
      device tc_vec16<float> *const q348 = reinterpret_cast<device tc_vec16<float> *>(v27_LSE + a342);
      q348->e[0] = v338[0];
      q348->e[1] = v338[1];
      q348->e[2] = v338[2];
      q348->e[3] = v338[3];
    }
    else {
      if (c343 < v13_LSE_0_i32 && c345 < lim344 && c346 < 1) v27_LSE[a342] = v338[0];
      if (c343 < v13_LSE_0_i32 && c345 + 1 < lim344 && c346 < 1 && c347 + 1 < 16) v27_LSE[a342 + 1] = v338[1];
      if (c343 < v13_LSE_0_i32 && c345 + 2 < lim344 && c346 < 1 && c347 + 2 < 16) v27_LSE[a342 + 2] = v338[2];
      if (c343 < v13_LSE_0_i32 && c345 + 3 < lim344 && c346 < 1 && c347 + 3 < 16) v27_LSE[a342 + 3] = v338[3];
    }
  }
}
