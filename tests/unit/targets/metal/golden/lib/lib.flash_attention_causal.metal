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
  threadgroup uint4 tc_smem4[864];  /* 13824 bytes */
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
  threadgroup float *const v43_stage_0_ring = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 4608 bytes */
  /* tilec: memory#22 at attention.py */
  threadgroup float *const v44_stage_1_ring = reinterpret_cast<threadgroup float *>(tc_smem + 4608);  /* 2304 bytes */
  /* tilec: memory#23 at attention.py */
  threadgroup float *const v45_stage_2_ring = reinterpret_cast<threadgroup float *>(tc_smem + 6912);  /* 4608 bytes */
  /* tilec: memory#24 at attention.py */
  threadgroup float *const v46_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 11520);  /* 1024 bytes */
  /* tilec: memory#25 at attention.py */
  threadgroup float *const v47_A_staging = reinterpret_cast<threadgroup float *>(tc_smem + 12544);  /* 1280 bytes */
  /* tilec: parallel#26 at attention.py */
  const int v48_tid = (int)tc_lane;
  /* tilec: constant#27 at attention.py */
  /* tilec: constant#28 at attention.py */
  /* tilec: arith#29 at attention.py */
  const float v49_scale2 = (v25_scale * 1.442695e+00f);
  /* tilec: constant#30 at attention.py */
  /* tilec: arith#31 at attention.py */
  const int64_t v50 = ((int64_t)((int64_t)v42_pm * (int64_t)16));
  /* tilec: view#32 at attention.py */
  /* tilec: constant#33 at attention.py */
  /* tilec: constant#34 at attention.py */
  /* tilec: constant#35 at attention.py */
  /* tilec: constant#36 at attention.py */
  /* tilec: arith#37 at attention.py */
  const int v51 = ((int)(v42_pm + 1));
  /* tilec: arith#38 at attention.py */
  const int64_t v52 = ((int64_t)((int64_t)v51 * (int64_t)16));
  /* tilec: arith#39 at attention.py */
  const int64_t v53_keys = tc_imin_index(v5_K_1, v52);
  /* tilec: arith#40 at attention.py */
  const int v54 = ((v53_keys + 15) >> 4);
  /* tilec: constant#41 at attention.py */
  /* tilec: arith#42 at attention.py */
  const uint8_t v55 = (uint8_t)(0 < v54);
  /* tilec: if#43 at attention.py */
  if (v55) {
    /* tilec: arith#44 at attention.py */
    /* tilec: view#45 at attention.py */
    /* tilec: view#46 at attention.py */
    /* tilec: view#47 at attention.py */
    /* tilec: load#48 at attention.py */
    float v56[4];
    {
      const int64_t a57 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v48_tid * 4 >> 5) * v16_K_s18 + (v48_tid * 4 & 31);
      const int c58 = v41_bh;
      const int c59 = (v48_tid * 4 >> 5);
      const int c60 = (v48_tid * 4 & 31);
      if (c58 < v4_K_0_i32 && c59 < v5_K_1_i32 && c60 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a57) & 3) == 0))) {
        device const tc_vec16<float> *const q61 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a57);
        v56[0] = q61->e[0];
        v56[1] = q61->e[1];
        v56[2] = q61->e[2];
        v56[3] = q61->e[3];
      }
      else {
        if (c58 < v4_K_0_i32 && c59 < v5_K_1_i32 && c60 < v6_K_2_i32) v56[0] = v16_K[a57]; else v56[0] = 0.0e+00f;
        if (c58 < v4_K_0_i32 && c59 < v5_K_1_i32 && c60 + 1 < v6_K_2_i32) v56[1] = v16_K[a57 + 1]; else v56[1] = 0.0e+00f;
        if (c58 < v4_K_0_i32 && c59 < v5_K_1_i32 && c60 + 2 < v6_K_2_i32) v56[2] = v16_K[a57 + 2]; else v56[2] = 0.0e+00f;
        if (c58 < v4_K_0_i32 && c59 < v5_K_1_i32 && c60 + 3 < v6_K_2_i32) v56[3] = v16_K[a57 + 3]; else v56[3] = 0.0e+00f;
      }
    }
    /* tilec: view#49 at attention.py */
    /* tilec: store#50 at attention.py */
    {
      const int a62 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a62) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q63 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a62);
        q63->e[0] = v56[0];
        q63->e[1] = v56[1];
        q63->e[2] = v56[2];
        q63->e[3] = v56[3];
      }
      else {
        v43_stage_0_ring[a62] = v56[0];
        v43_stage_0_ring[a62 + 1] = v56[1];
        v43_stage_0_ring[a62 + 2] = v56[2];
        v43_stage_0_ring[a62 + 3] = v56[3];
      }
    }
    /* tilec: view#51 at attention.py */
    /* tilec: view#52 at attention.py */
    /* tilec: load#53 at attention.py */
    float v64[4];
    {
      const int64_t a65 = (int64_t)v41_bh * v13_Q_s14 + (int64_t)(v50 + (v48_tid * 4 >> 5)) * v13_Q_s15 + (v48_tid * 4 & 31);
      const int c66 = v41_bh;
      const int lim67 = tc_sat32(v2_Q_1 - v50);
      const int c68 = (v48_tid * 4 >> 5);
      const int c69 = (v48_tid * 4 & 31);
      if (c66 < v1_Q_0_i32 && c68 < lim67 && c69 + 3 < v3_Q_2_i32 && (tc_al_v13_Q && (((a65) & 3) == 0))) {
        device const tc_vec16<float> *const q70 = reinterpret_cast<device const tc_vec16<float> *>(v13_Q + a65);
        v64[0] = q70->e[0];
        v64[1] = q70->e[1];
        v64[2] = q70->e[2];
        v64[3] = q70->e[3];
      }
      else {
        if (c66 < v1_Q_0_i32 && c68 < lim67 && c69 < v3_Q_2_i32) v64[0] = v13_Q[a65]; else v64[0] = 0.0e+00f;
        if (c66 < v1_Q_0_i32 && c68 < lim67 && c69 + 1 < v3_Q_2_i32) v64[1] = v13_Q[a65 + 1]; else v64[1] = 0.0e+00f;
        if (c66 < v1_Q_0_i32 && c68 < lim67 && c69 + 2 < v3_Q_2_i32) v64[2] = v13_Q[a65 + 2]; else v64[2] = 0.0e+00f;
        if (c66 < v1_Q_0_i32 && c68 < lim67 && c69 + 3 < v3_Q_2_i32) v64[3] = v13_Q[a65 + 3]; else v64[3] = 0.0e+00f;
      }
    }
    /* tilec: view#54 at attention.py */
    /* tilec: store#55 at attention.py */
    {
      const int a71 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a71) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q72 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_stage_1_ring + a71);
        q72->e[0] = v64[0];
        q72->e[1] = v64[1];
        q72->e[2] = v64[2];
        q72->e[3] = v64[3];
      }
      else {
        v44_stage_1_ring[a71] = v64[0];
        v44_stage_1_ring[a71 + 1] = v64[1];
        v44_stage_1_ring[a71 + 2] = v64[2];
        v44_stage_1_ring[a71 + 3] = v64[3];
      }
    }
    /* tilec: arith#56 at attention.py */
    /* tilec: view#57 at attention.py */
    /* tilec: view#58 at attention.py */
    /* tilec: view#59 at attention.py */
    /* tilec: load#60 at attention.py */
    float v73[4];
    {
      const int64_t a74 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v48_tid * 4 >> 5) * v19_V_s21 + (v48_tid * 4 & 31);
      const int c75 = v41_bh;
      const int c76 = (v48_tid * 4 >> 5);
      const int c77 = (v48_tid * 4 & 31);
      if (c75 < v7_V_0_i32 && c76 < v8_V_1_i32 && c77 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a74) & 3) == 0))) {
        device const tc_vec16<float> *const q78 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a74);
        v73[0] = q78->e[0];
        v73[1] = q78->e[1];
        v73[2] = q78->e[2];
        v73[3] = q78->e[3];
      }
      else {
        if (c75 < v7_V_0_i32 && c76 < v8_V_1_i32 && c77 < v9_V_2_i32) v73[0] = v19_V[a74]; else v73[0] = 0.0e+00f;
        if (c75 < v7_V_0_i32 && c76 < v8_V_1_i32 && c77 + 1 < v9_V_2_i32) v73[1] = v19_V[a74 + 1]; else v73[1] = 0.0e+00f;
        if (c75 < v7_V_0_i32 && c76 < v8_V_1_i32 && c77 + 2 < v9_V_2_i32) v73[2] = v19_V[a74 + 2]; else v73[2] = 0.0e+00f;
        if (c75 < v7_V_0_i32 && c76 < v8_V_1_i32 && c77 + 3 < v9_V_2_i32) v73[3] = v19_V[a74 + 3]; else v73[3] = 0.0e+00f;
      }
    }
    /* tilec: view#61 at attention.py */
    /* tilec: store#62 at attention.py */
    {
      const int a79 = (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
      if ((((a79) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q80 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a79);
        q80->e[0] = v73[0];
        q80->e[1] = v73[1];
        q80->e[2] = v73[2];
        q80->e[3] = v73[3];
      }
      else {
        v45_stage_2_ring[a79] = v73[0];
        v45_stage_2_ring[a79 + 1] = v73[1];
        v45_stage_2_ring[a79 + 2] = v73[2];
        v45_stage_2_ring[a79 + 3] = v73[3];
      }
    }
  }
  else {
  }
  /* tilec: serial#63 at attention.py */
  float v81[1];
  v81[0] = (-(float)INFINITY);
  float v82[1];
  v82[0] = 0.0e+00f;
  float v83[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v83[e] = 0.0e+00f;
  int m84 = 0;
  for (int64_t v85 = INT64_C(0); v85 < v54; v85 += INT64_C(1)) {
    /* tilec: atom.call#64 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#65 at attention.py */
    /* tilec: arith#66 at attention.py */
    /* tilec: arith#67 at attention.py */
    const int v86 = ((int)(v85 + 1));
    /* tilec: arith#68 at attention.py */
    const uint8_t v87 = (uint8_t)(m84 == 0);
    /* tilec: arith#69 at attention.py */
    const int v88 = ((int)(m84 - 1));
    /* tilec: arith#70 at attention.py */
    const int v89 = (v87 ? 1 : v88);
    /* tilec: arith#71 at attention.py */
    const uint8_t v90 = (uint8_t)(v86 < v54);
    /* tilec: if#72 at attention.py */
    if (v90) {
      /* tilec: arith#73 at attention.py */
      const int64_t v91 = ((int64_t)((int64_t)v86 * (int64_t)16));
      /* tilec: view#74 at attention.py */
      /* tilec: view#75 at attention.py */
      /* tilec: view#76 at attention.py */
      /* tilec: load#77 at attention.py */
      float v92[4];
      {
        const int64_t a93 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v91 + (v48_tid * 4 >> 5)) * v16_K_s18 + (v48_tid * 4 & 31);
        const int c94 = v41_bh;
        const int lim95 = tc_sat32(v5_K_1 - v91);
        const int c96 = (v48_tid * 4 >> 5);
        const int c97 = (v48_tid * 4 & 31);
        if (c94 < v4_K_0_i32 && c96 < lim95 && c97 + 3 < v6_K_2_i32 && (tc_al_v16_K && (((a93) & 3) == 0))) {
          device const tc_vec16<float> *const q98 = reinterpret_cast<device const tc_vec16<float> *>(v16_K + a93);
          v92[0] = q98->e[0];
          v92[1] = q98->e[1];
          v92[2] = q98->e[2];
          v92[3] = q98->e[3];
        }
        else {
          if (c94 < v4_K_0_i32 && c96 < lim95 && c97 < v6_K_2_i32) v92[0] = v16_K[a93]; else v92[0] = 0.0e+00f;
          if (c94 < v4_K_0_i32 && c96 < lim95 && c97 + 1 < v6_K_2_i32) v92[1] = v16_K[a93 + 1]; else v92[1] = 0.0e+00f;
          if (c94 < v4_K_0_i32 && c96 < lim95 && c97 + 2 < v6_K_2_i32) v92[2] = v16_K[a93 + 2]; else v92[2] = 0.0e+00f;
          if (c94 < v4_K_0_i32 && c96 < lim95 && c97 + 3 < v6_K_2_i32) v92[3] = v16_K[a93 + 3]; else v92[3] = 0.0e+00f;
        }
      }
      /* tilec: view#78 at attention.py */
      /* tilec: store#79 at attention.py */
      {
        const int a99 = v89 * 576 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
        if ((((a99) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q100 = reinterpret_cast<threadgroup tc_vec16<float> *>(v43_stage_0_ring + a99);
          q100->e[0] = v92[0];
          q100->e[1] = v92[1];
          q100->e[2] = v92[2];
          q100->e[3] = v92[3];
        }
        else {
          v43_stage_0_ring[a99] = v92[0];
          v43_stage_0_ring[a99 + 1] = v92[1];
          v43_stage_0_ring[a99 + 2] = v92[2];
          v43_stage_0_ring[a99 + 3] = v92[3];
        }
      }
      /* tilec: arith#80 at attention.py */
      const int64_t v101 = ((int64_t)((int64_t)v86 * (int64_t)16));
      /* tilec: view#81 at attention.py */
      /* tilec: view#82 at attention.py */
      /* tilec: view#83 at attention.py */
      /* tilec: load#84 at attention.py */
      float v102[4];
      {
        const int64_t a103 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v101 + (v48_tid * 4 >> 5)) * v19_V_s21 + (v48_tid * 4 & 31);
        const int c104 = v41_bh;
        const int lim105 = tc_sat32(v8_V_1 - v101);
        const int c106 = (v48_tid * 4 >> 5);
        const int c107 = (v48_tid * 4 & 31);
        if (c104 < v7_V_0_i32 && c106 < lim105 && c107 + 3 < v9_V_2_i32 && (tc_al_v19_V && (((a103) & 3) == 0))) {
          device const tc_vec16<float> *const q108 = reinterpret_cast<device const tc_vec16<float> *>(v19_V + a103);
          v102[0] = q108->e[0];
          v102[1] = q108->e[1];
          v102[2] = q108->e[2];
          v102[3] = q108->e[3];
        }
        else {
          if (c104 < v7_V_0_i32 && c106 < lim105 && c107 < v9_V_2_i32) v102[0] = v19_V[a103]; else v102[0] = 0.0e+00f;
          if (c104 < v7_V_0_i32 && c106 < lim105 && c107 + 1 < v9_V_2_i32) v102[1] = v19_V[a103 + 1]; else v102[1] = 0.0e+00f;
          if (c104 < v7_V_0_i32 && c106 < lim105 && c107 + 2 < v9_V_2_i32) v102[2] = v19_V[a103 + 2]; else v102[2] = 0.0e+00f;
          if (c104 < v7_V_0_i32 && c106 < lim105 && c107 + 3 < v9_V_2_i32) v102[3] = v19_V[a103 + 3]; else v102[3] = 0.0e+00f;
        }
      }
      /* tilec: view#85 at attention.py */
      /* tilec: store#86 at attention.py */
      {
        const int a109 = v89 * 576 + (v48_tid * 4 >> 5) * 36 + (v48_tid * 4 & 31);
        if ((((a109) & 3) == 0)) {
          threadgroup tc_vec16<float> *const q110 = reinterpret_cast<threadgroup tc_vec16<float> *>(v45_stage_2_ring + a109);
          q110->e[0] = v102[0];
          q110->e[1] = v102[1];
          q110->e[2] = v102[2];
          q110->e[3] = v102[3];
        }
        else {
          v45_stage_2_ring[a109] = v102[0];
          v45_stage_2_ring[a109 + 1] = v102[1];
          v45_stage_2_ring[a109 + 2] = v102[2];
          v45_stage_2_ring[a109 + 3] = v102[3];
        }
      }
    }
    else {
    }
    /* tilec: view#87 at attention.py */
    /* tilec: view#88 at attention.py */
    /* tilec: view#89 at attention.py */
    /* tilec: arith#90 at attention.py */
    const int64_t v111 = ((int64_t)((int64_t)v85 * (int64_t)16));
    /* tilec: view#91 at attention.py */
    /* tilec: constant#92 at attention.py */
    /* tilec: constant#93 at attention.py */
    /* tilec: serial#94 at attention.py */
    float v112[2];
    #pragma unroll
    for (int e = 0; e < 2; ++e) v112[e] = 0.0e+00f;
    #pragma unroll 8
    for (int v113 = 0; v113 < 8; v113 += 1) {
      /* tilec: view#95 at attention.py */
      /* tilec: load#96 at attention.py */
      float v114[4];
      {
        const int a115 = (((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2)) * 36 + v113 * 4;
        threadgroup const tc_vec16<float> *const q116 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_stage_1_ring + a115);
        v114[0] = q116->e[0];
        v114[1] = q116->e[1];
        v114[2] = q116->e[2];
        v114[3] = q116->e[3];
      }
      /* tilec: view#97 at attention.py */
      /* tilec: load#98 at attention.py */
      float v117[8];
      {
        v117[0] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4];
      }
      {
        v117[1] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 36];
      }
      {
        v117[2] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 1];
      }
      {
        v117[3] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 37];
      }
      {
        v117[4] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 2];
      }
      {
        v117[5] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 38];
      }
      {
        v117[6] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 3];
      }
      {
        v117[7] = v43_stage_0_ring[m84 * 576 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) * 36 + v113 * 4 + 39];
      }
      /* tilec: reindex#99 at attention.py */
      float v118[2];
      v118[0] = v114[0];
      v118[1] = v114[0];
      /* tilec: reindex#100 at attention.py */
      float v119[2];
      v119[0] = v117[0];
      v119[1] = v117[1];
      /* tilec: map#101 at attention.py */
      float v120[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float v121 = v112[e];
        const float v122 = v118[e];
        const float v123 = v119[e];
        /* tilec: arith#102 */
        const float v124 = tc_fma_f32(v122, v123, v121);
        v120[e] = v124;
      }
      /* tilec: reindex#103 at attention.py */
      float v125[2];
      v125[0] = v114[1];
      v125[1] = v114[1];
      /* tilec: reindex#104 at attention.py */
      float v126[2];
      v126[0] = v117[2];
      v126[1] = v117[3];
      /* tilec: map#105 at attention.py */
      float v127[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float v128 = v120[e];
        const float v129 = v125[e];
        const float v130 = v126[e];
        /* tilec: arith#106 */
        const float v131 = tc_fma_f32(v129, v130, v128);
        v127[e] = v131;
      }
      /* tilec: reindex#107 at attention.py */
      float v132[2];
      v132[0] = v114[2];
      v132[1] = v114[2];
      /* tilec: reindex#108 at attention.py */
      float v133[2];
      v133[0] = v117[4];
      v133[1] = v117[5];
      /* tilec: map#109 at attention.py */
      float v134[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float v135 = v127[e];
        const float v136 = v132[e];
        const float v137 = v133[e];
        /* tilec: arith#110 */
        const float v138 = tc_fma_f32(v136, v137, v135);
        v134[e] = v138;
      }
      /* tilec: reindex#111 at attention.py */
      float v139[2];
      v139[0] = v114[3];
      v139[1] = v114[3];
      /* tilec: reindex#112 at attention.py */
      float v140[2];
      v140[0] = v117[6];
      v140[1] = v117[7];
      /* tilec: map#113 at attention.py */
      float v141[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float v142 = v134[e];
        const float v143 = v139[e];
        const float v144 = v140[e];
        /* tilec: arith#114 */
        const float v145 = tc_fma_f32(v143, v144, v142);
        v141[e] = v145;
      }
      #pragma unroll
      for (int e = 0; e < 2; ++e) v112[e] = v141[e];
    }
    /* tilec: map#115 at attention.py */
    float v146[2];
    #pragma unroll
    for (int e = 0; e < 2; ++e) {
      const float v147 = v112[e];
      /* tilec: arith#116 at attention.py */
      const float v148 = (v147 * v49_scale2);
      v146[e] = v148;
    }
    /* tilec: arith#117 at attention.py */
    const int v149 = ((int)(v85 + 1));
    /* tilec: arith#118 at attention.py */
    const int64_t v150 = ((int64_t)((int64_t)v149 * (int64_t)16));
    /* tilec: arith#119 at attention.py */
    const int64_t v151 = ((int64_t)(v50 + (int64_t)1));
    /* tilec: arith#120 at attention.py */
    const int64_t v152 = tc_imin_index(v5_K_1, v151);
    /* tilec: arith#121 at attention.py */
    const uint8_t v153 = (uint8_t)(v150 > v152);
    /* tilec: if#122 at attention.py */
    float v154[2];
    if (v153) {
      /* tilec: iota#123 at attention.py */
      int32_t v155[2];
      v155[0] = ((int32_t)(int64_t)((v111 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2)));
      v155[1] = ((int32_t)(int64_t)((v111 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2 + 1)));
      /* tilec: iota#124 at attention.py */
      int32_t v156[2];
      v156[0] = ((int32_t)(int64_t)((v111 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2)));
      v156[1] = ((int32_t)(int64_t)((v111 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2 + 1)));
      /* tilec: iota#125 at attention.py */
      int32_t v157[2];
      v157[0] = ((int32_t)(int64_t)((v50 + ((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2))));
      v157[1] = ((int32_t)(int64_t)((v50 + ((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2))));
      /* tilec: map#126 at attention.py */
      float v158[2];
      #pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int32_t v159 = v155[e];
        const int32_t v160 = v156[e];
        const int32_t v161 = v157[e];
        const float v162_s = v146[e];
        /* tilec: arith#127 at attention.py */
        const int32_t v163 = ((int32_t)v5_K_1);
        /* tilec: arith#128 at attention.py */
        const uint8_t v164 = (uint8_t)(v159 < v163);
        /* tilec: arith#129 at attention.py */
        const uint8_t v165 = (uint8_t)(v160 <= v161);
        /* tilec: arith#130 at attention.py */
        const uint8_t v166 = (v164 & v165);
        /* tilec: constant#131 at attention.py */
        /* tilec: arith#132 at attention.py */
        const float v167 = (v166 ? v162_s : (-(float)INFINITY));
        v158[e] = v167;
      }
      #pragma unroll
      for (int e = 0; e < 2; ++e) v154[e] = v158[e];
    }
    else {
      #pragma unroll
      for (int e = 0; e < 2; ++e) v154[e] = v146[e];
    }
    /* tilec: constant#133 at attention.py */
    /* tilec: view#134 at attention.py */
    /* tilec: view#135 at attention.py */
    /* tilec: store#136 at attention.py */
    {
      v46_scratch_f32[(((v48_tid >> 5) >> 1) * 128 + ((v48_tid & 31) >> 2) * 16 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2)] = v154[0];
    }
    {
      v46_scratch_f32[((((v48_tid >> 5) >> 1) * 128 + ((v48_tid & 31) >> 2) * 16 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) + 1)] = v154[1];
    }
    /* tilec: atom.call#137 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#138 at attention.py */
    /* tilec: load#139 at attention.py */
    float v168[4];
    {
      const int a169 = ((v48_tid >> 2) * 16 + (v48_tid & 3) * 4);
      const int c170 = (v48_tid >> 2);
      if (c170 < 16) {
        threadgroup const tc_vec16<float> *const q171 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v46_scratch_f32 + a169);
        v168[0] = q171->e[0];
        v168[1] = q171->e[1];
        v168[2] = q171->e[2];
        v168[3] = q171->e[3];
      }
      else {
        if (c170 < 16) v168[0] = v46_scratch_f32[a169]; else v168[0] = ((float)NAN);
        if (c170 < 16) v168[1] = v46_scratch_f32[a169 + 1]; else v168[1] = ((float)NAN);
        if (c170 < 16) v168[2] = v46_scratch_f32[a169 + 2]; else v168[2] = ((float)NAN);
        if (c170 < 16) v168[3] = v46_scratch_f32[a169 + 3]; else v168[3] = ((float)NAN);
      }
    }
    /* tilec: reindex#140 at attention.py */
    float v172[4];
    v172[0] = v168[0];
    v172[1] = v168[1];
    v172[2] = v168[2];
    v172[3] = v168[3];
    /* tilec: constant#141 at attention.py */
    /* tilec: reduce#142 at attention.py */
    float v173[1];
    const float p174 = tc_max_f32(v172[0], v172[1]);
    const float p175 = tc_max_f32(v172[2], v172[3]);
    const float p176 = tc_max_f32(p174, p175);
    v173[0] = p176;
    /* tilec: atom.call#143 at attention.py */
    float v177[1];
    v177[0] = tc_shfl_xor(v173[0], (ushort)(INT64_C(1)));
    /* tilec: map#144 at attention.py */
    float v178[1];
    {
      const float v179 = v173[0];
      const float v180 = v177[0];
      /* tilec: arith#145 */
      const float v181 = tc_max_f32(v179, v180);
      v178[0] = v181;
    }
    /* tilec: constant#146 at attention.py */
    /* tilec: atom.call#147 at attention.py */
    float v182[1];
    v182[0] = tc_shfl_xor(v178[0], (ushort)(INT64_C(2)));
    /* tilec: map#148 at attention.py */
    float v183[1];
    {
      const float v184 = v178[0];
      const float v185 = v182[0];
      /* tilec: arith#149 */
      const float v186 = tc_max_f32(v184, v185);
      v183[0] = v186;
    }
    /* tilec: map#150 at attention.py */
    float v187[1];
    {
      const float v188_m = v81[0];
      const float v189 = v183[0];
      /* tilec: arith#151 at attention.py */
      const float v190 = tc_max_f32(v188_m, v189);
      v187[0] = v190;
    }
    /* tilec: view#152 at attention.py */
    /* tilec: atom.call#153 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#154 at attention.py */
    /* tilec: arith#155 at attention.py */
    const int v191 = (v48_tid & 3);
    /* tilec: arith#156 at attention.py */
    const uint8_t v192 = (uint8_t)(v191 == 0);
    /* tilec: constant#157 at attention.py */
    /* tilec: arith#158 at attention.py */
    const uint8_t v193 = (uint8_t)(v48_tid < 64);
    /* tilec: arith#159 at attention.py */
    const uint8_t v194 = (v192 & v193);
    /* tilec: if#160 at attention.py */
    if (v194) {
      /* tilec: view#161 at attention.py */
      /* tilec: store#162 at attention.py */
      {
        const int c195 = (v48_tid >> 2);
        if (c195 < 16) v46_scratch_f32[(v48_tid >> 2)] = v187[0];
      }
    }
    else {
    }
    /* tilec: atom.call#163 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#164 at attention.py */
    /* tilec: load#165 at attention.py */
    float v196[2];
    {
      v196[0] = v46_scratch_f32[(((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2))];
    }
    {
      v196[1] = v46_scratch_f32[(((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2))];
    }
    /* tilec: map#166 at attention.py */
    float v197[2];
    #pragma unroll
    for (int e = 0; e < 2; ++e) {
      const float v198_s = v154[e];
      const float v199 = v196[e];
      /* tilec: arith#167 at attention.py */
      const float v200 = (v198_s - v199);
      /* tilec: arith#168 at attention.py */
      const float v201 = tc_exp2_f32(v200);
      v197[e] = v201;
    }
    /* tilec: map#169 at attention.py */
    float v202[1];
    {
      const float v203_m = v81[0];
      const float v204_m_new = v187[0];
      /* tilec: arith#170 at attention.py */
      const float v205 = (v203_m - v204_m_new);
      /* tilec: arith#171 at attention.py */
      const float v206 = tc_exp2_f32(v205);
      v202[0] = v206;
    }
    /* tilec: constant#172 at attention.py */
    /* tilec: view#173 at attention.py */
    /* tilec: atom.call#174 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#175 at attention.py */
    /* tilec: store#176 at attention.py */
    {
      v46_scratch_f32[(((v48_tid >> 5) >> 1) * 128 + ((v48_tid & 31) >> 2) * 16 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2)] = v197[0];
    }
    {
      v46_scratch_f32[((((v48_tid >> 5) >> 1) * 128 + ((v48_tid & 31) >> 2) * 16 + ((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) + 1)] = v197[1];
    }
    /* tilec: atom.call#177 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#178 at attention.py */
    /* tilec: load#179 at attention.py */
    float v207[4];
    {
      const int a208 = ((v48_tid >> 2) * 16 + (v48_tid & 3) * 4);
      const int c209 = (v48_tid >> 2);
      if (c209 < 16) {
        threadgroup const tc_vec16<float> *const q210 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v46_scratch_f32 + a208);
        v207[0] = q210->e[0];
        v207[1] = q210->e[1];
        v207[2] = q210->e[2];
        v207[3] = q210->e[3];
      }
      else {
        if (c209 < 16) v207[0] = v46_scratch_f32[a208]; else v207[0] = ((float)NAN);
        if (c209 < 16) v207[1] = v46_scratch_f32[a208 + 1]; else v207[1] = ((float)NAN);
        if (c209 < 16) v207[2] = v46_scratch_f32[a208 + 2]; else v207[2] = ((float)NAN);
        if (c209 < 16) v207[3] = v46_scratch_f32[a208 + 3]; else v207[3] = ((float)NAN);
      }
    }
    /* tilec: reindex#180 at attention.py */
    float v211[4];
    v211[0] = v207[0];
    v211[1] = v207[1];
    v211[2] = v207[2];
    v211[3] = v207[3];
    /* tilec: constant#181 at attention.py */
    /* tilec: reduce#182 at attention.py */
    float v212[1];
    const float p213 = (v211[0] + v211[1]);
    const float p214 = (v211[2] + v211[3]);
    const float p215 = (p213 + p214);
    v212[0] = p215;
    /* tilec: atom.call#183 at attention.py */
    float v216[1];
    v216[0] = tc_shfl_xor(v212[0], (ushort)(INT64_C(1)));
    /* tilec: map#184 at attention.py */
    float v217[1];
    {
      const float v218 = v212[0];
      const float v219 = v216[0];
      /* tilec: arith#185 */
      const float v220 = (v218 + v219);
      v217[0] = v220;
    }
    /* tilec: atom.call#186 at attention.py */
    float v221[1];
    v221[0] = tc_shfl_xor(v217[0], (ushort)(INT64_C(2)));
    /* tilec: map#187 at attention.py */
    float v222[1];
    {
      const float v223 = v217[0];
      const float v224 = v221[0];
      /* tilec: arith#188 */
      const float v225 = (v223 + v224);
      v222[0] = v225;
    }
    /* tilec: map#189 at attention.py */
    float v226[1];
    {
      const float v227 = v222[0];
      /* tilec: arith#190 */
      const float v228 = (0.0e+00f + v227);
      v226[0] = v228;
    }
    /* tilec: map#191 at attention.py */
    float v229[1];
    {
      const float v230_den = v82[0];
      const float v231_alpha = v202[0];
      const float v232 = v226[0];
      /* tilec: arith#192 at attention.py */
      const float v233 = (v230_den * v231_alpha);
      /* tilec: arith#193 at attention.py */
      const float v234 = (v233 + v232);
      v229[0] = v234;
    }
    /* tilec: view#194 at attention.py */
    /* tilec: atom.call#195 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#196 at attention.py */
    const int v235 = (v48_tid & 3);
    /* tilec: arith#197 at attention.py */
    const uint8_t v236 = (uint8_t)(v235 == 0);
    /* tilec: arith#198 at attention.py */
    const uint8_t v237 = (uint8_t)(v48_tid < 64);
    /* tilec: arith#199 at attention.py */
    const uint8_t v238 = (v236 & v237);
    /* tilec: if#200 at attention.py */
    if (v238) {
      /* tilec: view#201 at attention.py */
      /* tilec: store#202 at attention.py */
      {
        const int c239 = (v48_tid >> 2);
        if (c239 < 16) v46_scratch_f32[(v48_tid >> 2)] = v202[0];
      }
    }
    else {
    }
    /* tilec: atom.call#203 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#204 at attention.py */
    /* tilec: load#205 at attention.py */
    float v240[4];
    {
      v240[0] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v240[1] = v46_scratch_f32[((v48_tid & 31) >> 2)];
    }
    {
      v240[2] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    {
      v240[3] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
    }
    /* tilec: map#206 at attention.py */
    float v241[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v242_acc = v83[e];
      const float v243 = v240[e];
      /* tilec: arith#207 at attention.py */
      const float v244 = (v242_acc * v243);
      v241[e] = v244;
    }
    /* tilec: view#208 at attention.py */
    /* tilec: view#209 at attention.py */
    /* tilec: store#210 at attention.py */
    {
      v47_A_staging[(((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2)) * 20 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2)] = v197[0];
    }
    {
      v47_A_staging[(((v48_tid >> 5) >> 1) * 8 + ((v48_tid & 31) >> 2)) * 20 + (((v48_tid >> 5) & 1) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v197[1];
    }
    /* tilec: atom.call#211 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: serial#212 at attention.py */
    float v245[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v245[e] = v241[e];
    #pragma unroll 4
    for (int v246 = 0; v246 < 4; v246 += 1) {
      /* tilec: view#213 at attention.py */
      /* tilec: load#214 at attention.py */
      float v247[8];
      {
        const int a248 = ((v48_tid & 31) >> 2) * 20 + v246 * 4;
        threadgroup const tc_vec16<float> *const q249 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v47_A_staging + a248);
        v247[0] = q249->e[0];
        v247[1] = q249->e[1];
        v247[2] = q249->e[2];
        v247[3] = q249->e[3];
      }
      {
        const int a250 = ((v48_tid & 31) >> 2) * 20 + v246 * 4 + 160;
        threadgroup const tc_vec16<float> *const q251 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v47_A_staging + a250);
        v247[4] = q251->e[0];
        v247[5] = q251->e[1];
        v247[6] = q251->e[2];
        v247[7] = q251->e[3];
      }
      /* tilec: view#215 at attention.py */
      /* tilec: load#216 at attention.py */
      float v252[8];
      {
        v252[0] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)];
      }
      {
        v252[1] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1];
      }
      {
        v252[2] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 36];
      }
      {
        v252[3] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 37];
      }
      {
        v252[4] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 72];
      }
      {
        v252[5] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 73];
      }
      {
        v252[6] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 108];
      }
      {
        v252[7] = v45_stage_2_ring[m84 * 576 + (v246 * 4) * 36 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 109];
      }
      /* tilec: reindex#217 at attention.py */
      float v253[4];
      v253[0] = v247[0];
      v253[1] = v247[0];
      v253[2] = v247[4];
      v253[3] = v247[4];
      /* tilec: reindex#218 at attention.py */
      float v254[4];
      v254[0] = v252[0];
      v254[1] = v252[1];
      v254[2] = v252[0];
      v254[3] = v252[1];
      /* tilec: map#219 at attention.py */
      float v255[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v256 = v245[e];
        const float v257 = v253[e];
        const float v258 = v254[e];
        /* tilec: arith#220 */
        const float v259 = tc_fma_f32(v257, v258, v256);
        v255[e] = v259;
      }
      /* tilec: reindex#221 at attention.py */
      float v260[4];
      v260[0] = v247[1];
      v260[1] = v247[1];
      v260[2] = v247[5];
      v260[3] = v247[5];
      /* tilec: reindex#222 at attention.py */
      float v261[4];
      v261[0] = v252[2];
      v261[1] = v252[3];
      v261[2] = v252[2];
      v261[3] = v252[3];
      /* tilec: map#223 at attention.py */
      float v262[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v263 = v255[e];
        const float v264 = v260[e];
        const float v265 = v261[e];
        /* tilec: arith#224 */
        const float v266 = tc_fma_f32(v264, v265, v263);
        v262[e] = v266;
      }
      /* tilec: reindex#225 at attention.py */
      float v267[4];
      v267[0] = v247[2];
      v267[1] = v247[2];
      v267[2] = v247[6];
      v267[3] = v247[6];
      /* tilec: reindex#226 at attention.py */
      float v268[4];
      v268[0] = v252[4];
      v268[1] = v252[5];
      v268[2] = v252[4];
      v268[3] = v252[5];
      /* tilec: map#227 at attention.py */
      float v269[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v270 = v262[e];
        const float v271 = v267[e];
        const float v272 = v268[e];
        /* tilec: arith#228 */
        const float v273 = tc_fma_f32(v271, v272, v270);
        v269[e] = v273;
      }
      /* tilec: reindex#229 at attention.py */
      float v274[4];
      v274[0] = v247[3];
      v274[1] = v247[3];
      v274[2] = v247[7];
      v274[3] = v247[7];
      /* tilec: reindex#230 at attention.py */
      float v275[4];
      v275[0] = v252[6];
      v275[1] = v252[7];
      v275[2] = v252[6];
      v275[3] = v252[7];
      /* tilec: map#231 at attention.py */
      float v276[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v277 = v269[e];
        const float v278 = v274[e];
        const float v279 = v275[e];
        /* tilec: arith#232 */
        const float v280 = tc_fma_f32(v278, v279, v277);
        v276[e] = v280;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v245[e] = v276[e];
    }
    /* tilec: arith#233 at attention.py */
    const int v281 = ((int)(m84 + 1));
    /* tilec: arith#234 at attention.py */
    const uint8_t v282 = (uint8_t)(v281 == 2);
    /* tilec: arith#235 at attention.py */
    const int v283 = (v282 ? 0 : v281);
    /* tilec: atom.call#236 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int y284 = v283;
    v81[0] = v187[0];
    v82[0] = v229[0];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v83[e] = v245[e];
    m84 = y284;
  }
  /* tilec: view#237 at attention.py */
  /* tilec: view#238 at attention.py */
  /* tilec: constant#239 at attention.py */
  /* tilec: arith#240 at attention.py */
  const int v285 = (v48_tid & 3);
  /* tilec: arith#241 at attention.py */
  const uint8_t v286 = (uint8_t)(v285 == 0);
  /* tilec: constant#242 at attention.py */
  /* tilec: arith#243 at attention.py */
  const uint8_t v287 = (uint8_t)(v48_tid < 64);
  /* tilec: arith#244 at attention.py */
  const uint8_t v288 = (v286 & v287);
  /* tilec: if#245 at attention.py */
  if (v288) {
    /* tilec: view#246 at attention.py */
    /* tilec: store#247 at attention.py */
    {
      const int c289 = (v48_tid >> 2);
      if (c289 < 16) v46_scratch_f32[(v48_tid >> 2)] = v82[0];
    }
  }
  else {
  }
  /* tilec: atom.call#248 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#249 at attention.py */
  /* tilec: load#250 at attention.py */
  float v290[4];
  {
    v290[0] = v46_scratch_f32[((v48_tid & 31) >> 2)];
  }
  {
    v290[1] = v46_scratch_f32[((v48_tid & 31) >> 2)];
  }
  {
    v290[2] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
  }
  {
    v290[3] = v46_scratch_f32[(((v48_tid & 31) >> 2) + 8)];
  }
  /* tilec: map#251 at attention.py */
  float v291[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v292_acc = v83[e];
    const float v293 = v290[e];
    /* tilec: arith#252 at attention.py */
    const float v294 = (v292_acc / v293);
    v291[e] = v294;
  }
  /* tilec: view#253 at attention.py */
  /* tilec: store#254 at attention.py */
  {
    const int c295 = v41_bh;
    const int64_t c296 = (v50 + ((v48_tid & 31) >> 2));
    const int c297 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2);
    if (c295 < v10_Out_0_i32 && c296 < v11_Out_1 && c297 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v291[0];
  }
  {
    const int c298 = v41_bh;
    const int64_t c299 = (v50 + ((v48_tid & 31) >> 2));
    const int c300 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1);
    if (c298 < v10_Out_0_i32 && c299 < v11_Out_1 && c300 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v291[1];
  }
  {
    const int c301 = v41_bh;
    const int64_t c302 = (v50 + ((v48_tid & 31) >> 2) + 8);
    const int c303 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2);
    if (c301 < v10_Out_0_i32 && c302 < v11_Out_1 && c303 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + v22_Out_s24 * 8 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2)] = v291[2];
  }
  {
    const int c304 = v41_bh;
    const int64_t c305 = (v50 + ((v48_tid & 31) >> 2) + 8);
    const int c306 = ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2 + 1);
    if (c304 < v10_Out_0_i32 && c305 < v11_Out_1 && c306 < v12_Out_2_i32) v22_Out[(int64_t)v41_bh * v22_Out_s23 + (int64_t)(v50 + ((v48_tid & 31) >> 2)) * v22_Out_s24 + v22_Out_s24 * 8 + ((v48_tid >> 5) * 8 + ((v48_tid & 31) & 3) * 2) + 1] = v291[3];
  }
}
