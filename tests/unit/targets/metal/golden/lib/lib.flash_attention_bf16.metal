kernel void tilec_flash_attention(
    device const uint16_t *v13_Q [[buffer(0)]],
    device const uint16_t *v16_K [[buffer(1)]],
    device const uint16_t *v19_V [[buffer(2)]],
    device uint16_t *v22_Out [[buffer(3)]],
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
  threadgroup uint4 tc_smem4[1792];  /* 28672 bytes */
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
  const int v6_K_2_i32 = (int)(v6_K_2 < INT64_C(2147483647) ? v6_K_2 : INT64_C(2147483647));
  const int v1_Q_0_i32 = (int)(v1_Q_0 < INT64_C(2147483647) ? v1_Q_0 : INT64_C(2147483647));
  const int v7_V_0_i32 = (int)(v7_V_0 < INT64_C(2147483647) ? v7_V_0 : INT64_C(2147483647));
  const int v9_V_2_i32 = (int)(v9_V_2 < INT64_C(2147483647) ? v9_V_2 : INT64_C(2147483647));
  const int v10_Out_0_i32 = (int)(v10_Out_0 < INT64_C(2147483647) ? v10_Out_0 : INT64_C(2147483647));
  const int v12_Out_2_i32 = (int)(v12_Out_2 < INT64_C(2147483647) ? v12_Out_2 : INT64_C(2147483647));
  /* tilec: constant#1 at attention.py */
  /* tilec: arith#2 at attention.py */
  const uint8_t v26_ok = (uint8_t)(v3_Q_2_i32 <= 64);
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
  /* tilec: arith#17 at attention.py */
  const int64_t v40 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_Q_1), 64)));
  /* tilec: parallel#18 at attention.py */
  const int v41_bh = (int)tc_group.y;
  const int v42_pm = (int)tc_group.x;
  /* tilec: constant#19 at attention.py */
  /* tilec: memory#20 at attention.py */
  threadgroup uint16_t *const v43_scratch_bf16 = reinterpret_cast<threadgroup uint16_t *>(tc_smem + 0);  /* 12288 bytes */
  /* tilec: memory#21 at attention.py */
  threadgroup float *const v44_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 12288);  /* 16384 bytes */
  /* tilec: parallel#22 at attention.py */
  const int v45_tid = (int)tc_lane;
  /* tilec: constant#23 at attention.py */
  /* tilec: constant#24 at attention.py */
  /* tilec: arith#25 at attention.py */
  const float v46_scale2 = (v25_scale * 1.442695e+00f);
  /* tilec: constant#26 at attention.py */
  /* tilec: arith#27 at attention.py */
  const int64_t v47 = ((int64_t)((int64_t)v42_pm * (int64_t)64));
  /* tilec: view#28 at attention.py */
  /* tilec: constant#29 at attention.py */
  /* tilec: constant#30 at attention.py */
  /* tilec: constant#31 at attention.py */
  /* tilec: constant#32 at attention.py */
  /* tilec: arith#33 at attention.py */
  const int64_t v48 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v5_K_1), 32)));
  /* tilec: constant#34 at attention.py */
  /* tilec: constant#35 at attention.py */
  /* tilec: serial#36 at attention.py */
  float v49[1];
  v49[0] = (-(float)INFINITY);
  float v50[1];
  v50[0] = 0.0e+00f;
  float v51[16];
  #pragma unroll
  for (int e = 0; e < 16; ++e) v51[e] = 0.0e+00f;
  for (int64_t v52 = INT64_C(0); v52 < v48; v52 += INT64_C(1)) {
    /* tilec: arith#37 at attention.py */
    const int64_t v53 = ((int64_t)(v52 * (int64_t)32));
    /* tilec: view#38 at attention.py */
    /* tilec: view#39 at attention.py */
    /* tilec: view#40 at attention.py */
    /* tilec: load#41 at attention.py */
    uint16_t v54[8];
    {
      const int64_t a55 = (int64_t)v41_bh * v16_K_s17 + (int64_t)(v53 + (v45_tid * 8 >> 6)) * v16_K_s18 + (v45_tid * 8 & 63);
      const int c56 = v41_bh;
      const int lim57 = tc_sat32(v5_K_1 - v53);
      const int c58 = (v45_tid * 8 >> 6);
      const int c59 = (v45_tid * 8 & 63);
      if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 7 < v6_K_2_i32 && (tc_al_v16_K && (((a55) & 7) == 0))) {
        device const tc_vec16<uint16_t> *const q60 = reinterpret_cast<device const tc_vec16<uint16_t> *>(v16_K + a55);
        v54[0] = q60->e[0];
        v54[1] = q60->e[1];
        v54[2] = q60->e[2];
        v54[3] = q60->e[3];
        v54[4] = q60->e[4];
        v54[5] = q60->e[5];
        v54[6] = q60->e[6];
        v54[7] = q60->e[7];
      }
      else {
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 < v6_K_2_i32) v54[0] = v16_K[a55]; else v54[0] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 1 < v6_K_2_i32) v54[1] = v16_K[a55 + 1]; else v54[1] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 2 < v6_K_2_i32) v54[2] = v16_K[a55 + 2]; else v54[2] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 3 < v6_K_2_i32) v54[3] = v16_K[a55 + 3]; else v54[3] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 4 < v6_K_2_i32) v54[4] = v16_K[a55 + 4]; else v54[4] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 5 < v6_K_2_i32) v54[5] = v16_K[a55 + 5]; else v54[5] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 6 < v6_K_2_i32) v54[6] = v16_K[a55 + 6]; else v54[6] = (uint16_t)0x0000;
        if (c56 < v4_K_0_i32 && c58 < lim57 && c59 + 7 < v6_K_2_i32) v54[7] = v16_K[a55 + 7]; else v54[7] = (uint16_t)0x0000;
      }
    }
    /* tilec: view#42 at attention.py */
    /* tilec: load#43 at attention.py */
    uint16_t v61[16];
    {
      const int64_t a62 = (int64_t)v41_bh * v13_Q_s14 + (int64_t)(v47 + (v45_tid * 8 >> 6)) * v13_Q_s15 + (v45_tid * 8 & 63);
      const int c63 = v41_bh;
      const int lim64 = tc_sat32(v2_Q_1 - v47);
      const int c65 = (v45_tid * 8 >> 6);
      const int c66 = (v45_tid * 8 & 63);
      if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 7 < v3_Q_2_i32 && (tc_al_v13_Q && (((a62) & 7) == 0))) {
        device const tc_vec16<uint16_t> *const q67 = reinterpret_cast<device const tc_vec16<uint16_t> *>(v13_Q + a62);
        v61[0] = q67->e[0];
        v61[1] = q67->e[1];
        v61[2] = q67->e[2];
        v61[3] = q67->e[3];
        v61[4] = q67->e[4];
        v61[5] = q67->e[5];
        v61[6] = q67->e[6];
        v61[7] = q67->e[7];
      }
      else {
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 < v3_Q_2_i32) v61[0] = v13_Q[a62]; else v61[0] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 1 < v3_Q_2_i32) v61[1] = v13_Q[a62 + 1]; else v61[1] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 2 < v3_Q_2_i32) v61[2] = v13_Q[a62 + 2]; else v61[2] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 3 < v3_Q_2_i32) v61[3] = v13_Q[a62 + 3]; else v61[3] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 4 < v3_Q_2_i32) v61[4] = v13_Q[a62 + 4]; else v61[4] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 5 < v3_Q_2_i32) v61[5] = v13_Q[a62 + 5]; else v61[5] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 6 < v3_Q_2_i32) v61[6] = v13_Q[a62 + 6]; else v61[6] = (uint16_t)0x0000;
        if (c63 < v1_Q_0_i32 && c65 < lim64 && c66 + 7 < v3_Q_2_i32) v61[7] = v13_Q[a62 + 7]; else v61[7] = (uint16_t)0x0000;
      }
    }
    {
      const int64_t a68 = (int64_t)v41_bh * v13_Q_s14 + (int64_t)(v47 + (v45_tid * 8 >> 6)) * v13_Q_s15 + v13_Q_s15 * 32 + (v45_tid * 8 & 63);
      const int c69 = v41_bh;
      const int lim70 = tc_sat32(v2_Q_1 - v47);
      const int c71 = ((v45_tid * 8 >> 6) + 32);
      const int c72 = (v45_tid * 8 & 63);
      if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 7 < v3_Q_2_i32 && (tc_al_v13_Q && (((a68) & 7) == 0))) {
        device const tc_vec16<uint16_t> *const q73 = reinterpret_cast<device const tc_vec16<uint16_t> *>(v13_Q + a68);
        v61[8] = q73->e[0];
        v61[9] = q73->e[1];
        v61[10] = q73->e[2];
        v61[11] = q73->e[3];
        v61[12] = q73->e[4];
        v61[13] = q73->e[5];
        v61[14] = q73->e[6];
        v61[15] = q73->e[7];
      }
      else {
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 < v3_Q_2_i32) v61[8] = v13_Q[a68]; else v61[8] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 1 < v3_Q_2_i32) v61[9] = v13_Q[a68 + 1]; else v61[9] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 2 < v3_Q_2_i32) v61[10] = v13_Q[a68 + 2]; else v61[10] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 3 < v3_Q_2_i32) v61[11] = v13_Q[a68 + 3]; else v61[11] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 4 < v3_Q_2_i32) v61[12] = v13_Q[a68 + 4]; else v61[12] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 5 < v3_Q_2_i32) v61[13] = v13_Q[a68 + 5]; else v61[13] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 6 < v3_Q_2_i32) v61[14] = v13_Q[a68 + 6]; else v61[14] = (uint16_t)0x0000;
        if (c69 < v1_Q_0_i32 && c71 < lim70 && c72 + 7 < v3_Q_2_i32) v61[15] = v13_Q[a68 + 7]; else v61[15] = (uint16_t)0x0000;
      }
    }
    /* tilec: view#44 at attention.py */
    /* tilec: view#45 at attention.py */
    /* tilec: store#46 at attention.py */
    {
      const int a74 = ((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63));
      if ((((a74) & 7) == 0)) {
        threadgroup tc_vec16<uint16_t> *const q75 = reinterpret_cast<threadgroup tc_vec16<uint16_t> *>(v43_scratch_bf16 + a74);
        q75->e[0] = v54[0];
        q75->e[1] = v54[1];
        q75->e[2] = v54[2];
        q75->e[3] = v54[3];
        q75->e[4] = v54[4];
        q75->e[5] = v54[5];
        q75->e[6] = v54[6];
        q75->e[7] = v54[7];
      }
      else {
        v43_scratch_bf16[a74] = v54[0];
        v43_scratch_bf16[a74 + 1] = v54[1];
        v43_scratch_bf16[a74 + 2] = v54[2];
        v43_scratch_bf16[a74 + 3] = v54[3];
        v43_scratch_bf16[a74 + 4] = v54[4];
        v43_scratch_bf16[a74 + 5] = v54[5];
        v43_scratch_bf16[a74 + 6] = v54[6];
        v43_scratch_bf16[a74 + 7] = v54[7];
      }
    }
    /* tilec: atom.call#47 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#48 at attention.py */
    /* tilec: load#49 at attention.py */
    uint16_t v76[8];
    {
      v76[0] = v43_scratch_bf16[((v45_tid * 8 >> 5) + (v45_tid * 8 & 31) * 64)];
    }
    {
      v76[1] = v43_scratch_bf16[(((v45_tid * 8 + 1) >> 5) + ((v45_tid * 8 + 1) & 31) * 64)];
    }
    {
      v76[2] = v43_scratch_bf16[(((v45_tid * 8 + 2) >> 5) + ((v45_tid * 8 + 2) & 31) * 64)];
    }
    {
      v76[3] = v43_scratch_bf16[(((v45_tid * 8 + 3) >> 5) + ((v45_tid * 8 + 3) & 31) * 64)];
    }
    {
      v76[4] = v43_scratch_bf16[(((v45_tid * 8 + 4) >> 5) + ((v45_tid * 8 + 4) & 31) * 64)];
    }
    {
      v76[5] = v43_scratch_bf16[(((v45_tid * 8 + 5) >> 5) + ((v45_tid * 8 + 5) & 31) * 64)];
    }
    {
      v76[6] = v43_scratch_bf16[(((v45_tid * 8 + 6) >> 5) + ((v45_tid * 8 + 6) & 31) * 64)];
    }
    {
      v76[7] = v43_scratch_bf16[(((v45_tid * 8 + 7) >> 5) + ((v45_tid * 8 + 7) & 31) * 64)];
    }
    /* tilec: constant#50 at attention.py */
    /* tilec: view#51 at attention.py */
    /* tilec: atom.call#52 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#53 at attention.py */
    /* tilec: store#54 at attention.py */
    {
      const int a77 = ((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63));
      if ((((a77) & 7) == 0)) {
        threadgroup tc_vec16<uint16_t> *const q78 = reinterpret_cast<threadgroup tc_vec16<uint16_t> *>(v43_scratch_bf16 + a77);
        q78->e[0] = v61[0];
        q78->e[1] = v61[1];
        q78->e[2] = v61[2];
        q78->e[3] = v61[3];
        q78->e[4] = v61[4];
        q78->e[5] = v61[5];
        q78->e[6] = v61[6];
        q78->e[7] = v61[7];
      }
      else {
        v43_scratch_bf16[a77] = v61[0];
        v43_scratch_bf16[a77 + 1] = v61[1];
        v43_scratch_bf16[a77 + 2] = v61[2];
        v43_scratch_bf16[a77 + 3] = v61[3];
        v43_scratch_bf16[a77 + 4] = v61[4];
        v43_scratch_bf16[a77 + 5] = v61[5];
        v43_scratch_bf16[a77 + 6] = v61[6];
        v43_scratch_bf16[a77 + 7] = v61[7];
      }
    }
    {
      const int a79 = (((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63)) + 2048);
      if ((((a79) & 7) == 0)) {
        threadgroup tc_vec16<uint16_t> *const q80 = reinterpret_cast<threadgroup tc_vec16<uint16_t> *>(v43_scratch_bf16 + a79);
        q80->e[0] = v61[8];
        q80->e[1] = v61[9];
        q80->e[2] = v61[10];
        q80->e[3] = v61[11];
        q80->e[4] = v61[12];
        q80->e[5] = v61[13];
        q80->e[6] = v61[14];
        q80->e[7] = v61[15];
      }
      else {
        v43_scratch_bf16[a79] = v61[8];
        v43_scratch_bf16[a79 + 1] = v61[9];
        v43_scratch_bf16[a79 + 2] = v61[10];
        v43_scratch_bf16[a79 + 3] = v61[11];
        v43_scratch_bf16[a79 + 4] = v61[12];
        v43_scratch_bf16[a79 + 5] = v61[13];
        v43_scratch_bf16[a79 + 6] = v61[14];
        v43_scratch_bf16[a79 + 7] = v61[15];
      }
    }
    /* tilec: view#55 at attention.py */
    /* tilec: atom.call#56 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#57 at attention.py */
    /* tilec: store#58 at attention.py */
    {
      const int a81 = (((v45_tid * 8 >> 5) * 32 + (v45_tid * 8 & 31)) + 4096);
      if ((((a81) & 7) == 0)) {
        threadgroup tc_vec16<uint16_t> *const q82 = reinterpret_cast<threadgroup tc_vec16<uint16_t> *>(v43_scratch_bf16 + a81);
        q82->e[0] = v76[0];
        q82->e[1] = v76[1];
        q82->e[2] = v76[2];
        q82->e[3] = v76[3];
        q82->e[4] = v76[4];
        q82->e[5] = v76[5];
        q82->e[6] = v76[6];
        q82->e[7] = v76[7];
      }
      else {
        v43_scratch_bf16[a81] = v76[0];
        v43_scratch_bf16[a81 + 1] = v76[1];
        v43_scratch_bf16[a81 + 2] = v76[2];
        v43_scratch_bf16[a81 + 3] = v76[3];
        v43_scratch_bf16[a81 + 4] = v76[4];
        v43_scratch_bf16[a81 + 5] = v76[5];
        v43_scratch_bf16[a81 + 6] = v76[6];
        v43_scratch_bf16[a81 + 7] = v76[7];
      }
    }
    /* tilec: atom.call#59 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#60 at attention.py */
    /* tilec: constant#61 at attention.py */
    /* tilec: serial#62 at attention.py */
    float v83[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) v83[e] = 0.0e+00f;
    for (int v84 = 0; v84 < 64; v84 += 1) {
      /* tilec: view#63 at attention.py */
      /* tilec: load#64 at attention.py */
      uint16_t v85[8];
      {
        v85[0] = v43_scratch_bf16[(v84 + (v45_tid * 4 >> 5) * 64)];
      }
      {
        v85[1] = v43_scratch_bf16[(v84 + ((v45_tid * 4 + 1) >> 5) * 64)];
      }
      {
        v85[2] = v43_scratch_bf16[(v84 + ((v45_tid * 4 + 2) >> 5) * 64)];
      }
      {
        v85[3] = v43_scratch_bf16[(v84 + ((v45_tid * 4 + 3) >> 5) * 64)];
      }
      {
        v85[4] = v43_scratch_bf16[((v84 + (v45_tid * 4 >> 5) * 64) + 2048)];
      }
      {
        v85[5] = v43_scratch_bf16[((v84 + ((v45_tid * 4 + 1) >> 5) * 64) + 2048)];
      }
      {
        v85[6] = v43_scratch_bf16[((v84 + ((v45_tid * 4 + 2) >> 5) * 64) + 2048)];
      }
      {
        v85[7] = v43_scratch_bf16[((v84 + ((v45_tid * 4 + 3) >> 5) * 64) + 2048)];
      }
      /* tilec: view#65 at attention.py */
      /* tilec: load#66 at attention.py */
      uint16_t v86[8];
      {
        v86[0] = v43_scratch_bf16[((v84 * 32 + (v45_tid * 4 & 31)) + 4096)];
      }
      {
        v86[1] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 1) & 31)) + 4096)];
      }
      {
        v86[2] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 2) & 31)) + 4096)];
      }
      {
        v86[3] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 3) & 31)) + 4096)];
      }
      {
        v86[4] = v43_scratch_bf16[((v84 * 32 + (v45_tid * 4 & 31)) + 4096)];
      }
      {
        v86[5] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 1) & 31)) + 4096)];
      }
      {
        v86[6] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 2) & 31)) + 4096)];
      }
      {
        v86[7] = v43_scratch_bf16[((v84 * 32 + ((v45_tid * 4 + 3) & 31)) + 4096)];
      }
      /* tilec: map#67 at attention.py */
      float v87[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v88 = v83[e];
        const float v89 = tc_bf16_to_f32(v85[e]);
        const float v90 = tc_bf16_to_f32(v86[e]);
        /* tilec: arith#68 */
        const float v91 = v89;
        /* tilec: arith#69 */
        const float v92 = v90;
        /* tilec: arith#70 */
        const float v93 = (v91 * v92);
        /* tilec: arith#71 */
        const float v94 = (v88 + v93);
        v87[e] = v94;
      }
      #pragma unroll
      for (int e = 0; e < 8; ++e) v83[e] = v87[e];
    }
    /* tilec: map#72 at attention.py */
    float v95[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float v96 = v83[e];
      /* tilec: arith#73 at attention.py */
      const float v97 = (v96 * v46_scale2);
      v95[e] = v97;
    }
    /* tilec: arith#74 at attention.py */
    const int64_t v98 = ((int64_t)(v52 + (int64_t)1));
    /* tilec: arith#75 at attention.py */
    const int64_t v99 = ((int64_t)(v98 * (int64_t)32));
    /* tilec: arith#76 at attention.py */
    const uint8_t v100 = (uint8_t)(v99 > v5_K_1);
    /* tilec: if#77 at attention.py */
    float v101[8];
    if (v100) {
      /* tilec: iota#78 at attention.py */
      int32_t v102[8];
      v102[0] = ((int32_t)(int64_t)((v53 + (v45_tid * 4 & 31))));
      v102[1] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 1) & 31))));
      v102[2] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 2) & 31))));
      v102[3] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 3) & 31))));
      v102[4] = ((int32_t)(int64_t)((v53 + (v45_tid * 4 & 31))));
      v102[5] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 1) & 31))));
      v102[6] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 2) & 31))));
      v102[7] = ((int32_t)(int64_t)((v53 + ((v45_tid * 4 + 3) & 31))));
      /* tilec: map#79 at attention.py */
      float v103[8];
      #pragma unroll
      for (int e = 0; e < 8; ++e) {
        const int32_t v104 = v102[e];
        const float v105_s = v95[e];
        /* tilec: arith#80 at attention.py */
        const int32_t v106 = ((int32_t)v5_K_1);
        /* tilec: arith#81 at attention.py */
        const uint8_t v107 = (uint8_t)(v104 < v106);
        /* tilec: constant#82 at attention.py */
        /* tilec: arith#83 at attention.py */
        const float v108 = (v107 ? v105_s : (-(float)INFINITY));
        v103[e] = v108;
      }
      #pragma unroll
      for (int e = 0; e < 8; ++e) v101[e] = v103[e];
    }
    else {
      #pragma unroll
      for (int e = 0; e < 8; ++e) v101[e] = v95[e];
    }
    /* tilec: constant#84 at attention.py */
    /* tilec: view#85 at attention.py */
    /* tilec: view#86 at attention.py */
    /* tilec: store#87 at attention.py */
    {
      const int a109 = ((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31));
      if ((((a109) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q110 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a109);
        q110->e[0] = v101[0];
        q110->e[1] = v101[1];
        q110->e[2] = v101[2];
        q110->e[3] = v101[3];
      }
      else {
        v44_scratch_f32[a109] = v101[0];
        v44_scratch_f32[a109 + 1] = v101[1];
        v44_scratch_f32[a109 + 2] = v101[2];
        v44_scratch_f32[a109 + 3] = v101[3];
      }
    }
    {
      const int a111 = (((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31)) + 1024);
      if ((((a111) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q112 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a111);
        q112->e[0] = v101[4];
        q112->e[1] = v101[5];
        q112->e[2] = v101[6];
        q112->e[3] = v101[7];
      }
      else {
        v44_scratch_f32[a111] = v101[4];
        v44_scratch_f32[a111 + 1] = v101[5];
        v44_scratch_f32[a111 + 2] = v101[6];
        v44_scratch_f32[a111 + 3] = v101[7];
      }
    }
    /* tilec: atom.call#88 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#89 at attention.py */
    /* tilec: load#90 at attention.py */
    float v113[8];
    {
      const int a114 = ((v45_tid >> 2) * 32 + (v45_tid & 3) * 4);
      threadgroup const tc_vec16<float> *const q115 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a114);
      v113[0] = q115->e[0];
      v113[1] = q115->e[1];
      v113[2] = q115->e[2];
      v113[3] = q115->e[3];
    }
    {
      const int a116 = (((v45_tid >> 2) * 32 + (v45_tid & 3) * 4) + 16);
      threadgroup const tc_vec16<float> *const q117 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a116);
      v113[4] = q117->e[0];
      v113[5] = q117->e[1];
      v113[6] = q117->e[2];
      v113[7] = q117->e[3];
    }
    /* tilec: reindex#91 at attention.py */
    float v118[8];
    v118[0] = v113[0];
    v118[1] = v113[1];
    v118[2] = v113[2];
    v118[3] = v113[3];
    v118[4] = v113[4];
    v118[5] = v113[5];
    v118[6] = v113[6];
    v118[7] = v113[7];
    /* tilec: constant#92 at attention.py */
    /* tilec: reduce#93 at attention.py */
    float v119[1];
    const float p120 = tc_max_f32(v118[0], v118[1]);
    const float p121 = tc_max_f32(v118[2], v118[3]);
    const float p122 = tc_max_f32(v118[4], v118[5]);
    const float p123 = tc_max_f32(v118[6], v118[7]);
    const float p124 = tc_max_f32(p120, p121);
    const float p125 = tc_max_f32(p122, p123);
    const float p126 = tc_max_f32(p124, p125);
    v119[0] = p126;
    /* tilec: atom.call#94 at attention.py */
    float v127[1];
    v127[0] = tc_shfl_xor(v119[0], (ushort)(INT64_C(1)));
    /* tilec: map#95 at attention.py */
    float v128[1];
    {
      const float v129 = v119[0];
      const float v130 = v127[0];
      /* tilec: arith#96 */
      const float v131 = tc_max_f32(v129, v130);
      v128[0] = v131;
    }
    /* tilec: constant#97 at attention.py */
    /* tilec: atom.call#98 at attention.py */
    float v132[1];
    v132[0] = tc_shfl_xor(v128[0], (ushort)(INT64_C(2)));
    /* tilec: map#99 at attention.py */
    float v133[1];
    {
      const float v134 = v128[0];
      const float v135 = v132[0];
      /* tilec: arith#100 */
      const float v136 = tc_max_f32(v134, v135);
      v133[0] = v136;
    }
    /* tilec: map#101 at attention.py */
    float v137[1];
    {
      const float v138_m = v49[0];
      const float v139 = v133[0];
      /* tilec: arith#102 at attention.py */
      const float v140 = tc_max_f32(v138_m, v139);
      v137[0] = v140;
    }
    /* tilec: view#103 at attention.py */
    /* tilec: atom.call#104 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#105 at attention.py */
    /* tilec: arith#106 at attention.py */
    const int v141 = (v45_tid & 3);
    /* tilec: arith#107 at attention.py */
    const uint8_t v142 = (uint8_t)(v141 == 0);
    /* tilec: if#108 at attention.py */
    if (v142) {
      /* tilec: view#109 at attention.py */
      /* tilec: store#110 at attention.py */
      {
        v44_scratch_f32[(v45_tid >> 2)] = v137[0];
      }
    }
    else {
    }
    /* tilec: atom.call#111 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#112 at attention.py */
    /* tilec: load#113 at attention.py */
    float v143[8];
    {
      v143[0] = v44_scratch_f32[(v45_tid * 4 >> 5)];
    }
    {
      v143[1] = v44_scratch_f32[((v45_tid * 4 + 1) >> 5)];
    }
    {
      v143[2] = v44_scratch_f32[((v45_tid * 4 + 2) >> 5)];
    }
    {
      v143[3] = v44_scratch_f32[((v45_tid * 4 + 3) >> 5)];
    }
    {
      v143[4] = v44_scratch_f32[((v45_tid * 4 >> 5) + 32)];
    }
    {
      v143[5] = v44_scratch_f32[(((v45_tid * 4 + 1) >> 5) + 32)];
    }
    {
      v143[6] = v44_scratch_f32[(((v45_tid * 4 + 2) >> 5) + 32)];
    }
    {
      v143[7] = v44_scratch_f32[(((v45_tid * 4 + 3) >> 5) + 32)];
    }
    /* tilec: map#114 at attention.py */
    float v144[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float v145_s = v101[e];
      const float v146 = v143[e];
      /* tilec: arith#115 at attention.py */
      const float v147 = (v145_s - v146);
      /* tilec: arith#116 at attention.py */
      const float v148 = tc_exp2_f32(v147);
      v144[e] = v148;
    }
    /* tilec: map#117 at attention.py */
    float v149[1];
    {
      const float v150_m = v49[0];
      const float v151_m_new = v137[0];
      /* tilec: arith#118 at attention.py */
      const float v152 = (v150_m - v151_m_new);
      /* tilec: arith#119 at attention.py */
      const float v153 = tc_exp2_f32(v152);
      v149[0] = v153;
    }
    /* tilec: constant#120 at attention.py */
    /* tilec: view#121 at attention.py */
    /* tilec: atom.call#122 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#123 at attention.py */
    /* tilec: store#124 at attention.py */
    {
      const int a154 = ((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31));
      if ((((a154) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q155 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a154);
        q155->e[0] = v144[0];
        q155->e[1] = v144[1];
        q155->e[2] = v144[2];
        q155->e[3] = v144[3];
      }
      else {
        v44_scratch_f32[a154] = v144[0];
        v44_scratch_f32[a154 + 1] = v144[1];
        v44_scratch_f32[a154 + 2] = v144[2];
        v44_scratch_f32[a154 + 3] = v144[3];
      }
    }
    {
      const int a156 = (((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31)) + 1024);
      if ((((a156) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q157 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a156);
        q157->e[0] = v144[4];
        q157->e[1] = v144[5];
        q157->e[2] = v144[6];
        q157->e[3] = v144[7];
      }
      else {
        v44_scratch_f32[a156] = v144[4];
        v44_scratch_f32[a156 + 1] = v144[5];
        v44_scratch_f32[a156 + 2] = v144[6];
        v44_scratch_f32[a156 + 3] = v144[7];
      }
    }
    /* tilec: atom.call#125 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#126 at attention.py */
    /* tilec: load#127 at attention.py */
    float v158[8];
    {
      const int a159 = ((v45_tid >> 2) * 32 + (v45_tid & 3) * 4);
      threadgroup const tc_vec16<float> *const q160 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a159);
      v158[0] = q160->e[0];
      v158[1] = q160->e[1];
      v158[2] = q160->e[2];
      v158[3] = q160->e[3];
    }
    {
      const int a161 = (((v45_tid >> 2) * 32 + (v45_tid & 3) * 4) + 16);
      threadgroup const tc_vec16<float> *const q162 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a161);
      v158[4] = q162->e[0];
      v158[5] = q162->e[1];
      v158[6] = q162->e[2];
      v158[7] = q162->e[3];
    }
    /* tilec: reindex#128 at attention.py */
    float v163[8];
    v163[0] = v158[0];
    v163[1] = v158[1];
    v163[2] = v158[2];
    v163[3] = v158[3];
    v163[4] = v158[4];
    v163[5] = v158[5];
    v163[6] = v158[6];
    v163[7] = v158[7];
    /* tilec: constant#129 at attention.py */
    /* tilec: reduce#130 at attention.py */
    float v164[1];
    const float p165 = (v163[0] + v163[1]);
    const float p166 = (v163[2] + v163[3]);
    const float p167 = (v163[4] + v163[5]);
    const float p168 = (v163[6] + v163[7]);
    const float p169 = (p165 + p166);
    const float p170 = (p167 + p168);
    const float p171 = (p169 + p170);
    v164[0] = p171;
    /* tilec: atom.call#131 at attention.py */
    float v172[1];
    v172[0] = tc_shfl_xor(v164[0], (ushort)(INT64_C(1)));
    /* tilec: map#132 at attention.py */
    float v173[1];
    {
      const float v174 = v164[0];
      const float v175 = v172[0];
      /* tilec: arith#133 */
      const float v176 = (v174 + v175);
      v173[0] = v176;
    }
    /* tilec: atom.call#134 at attention.py */
    float v177[1];
    v177[0] = tc_shfl_xor(v173[0], (ushort)(INT64_C(2)));
    /* tilec: map#135 at attention.py */
    float v178[1];
    {
      const float v179 = v173[0];
      const float v180 = v177[0];
      /* tilec: arith#136 */
      const float v181 = (v179 + v180);
      v178[0] = v181;
    }
    /* tilec: map#137 at attention.py */
    float v182[1];
    {
      const float v183 = v178[0];
      /* tilec: arith#138 */
      const float v184 = (0.0e+00f + v183);
      v182[0] = v184;
    }
    /* tilec: map#139 at attention.py */
    float v185[1];
    {
      const float v186_den = v50[0];
      const float v187_alpha = v149[0];
      const float v188 = v182[0];
      /* tilec: arith#140 at attention.py */
      const float v189 = (v186_den * v187_alpha);
      /* tilec: arith#141 at attention.py */
      const float v190 = (v189 + v188);
      v185[0] = v190;
    }
    /* tilec: view#142 at attention.py */
    /* tilec: load#143 at attention.py */
    uint16_t v191[8];
    {
      const int64_t a192 = (int64_t)v41_bh * v19_V_s20 + (int64_t)(v53 + (v45_tid * 8 >> 6)) * v19_V_s21 + (v45_tid * 8 & 63);
      const int c193 = v41_bh;
      const int lim194 = tc_sat32(v8_V_1 - v53);
      const int c195 = (v45_tid * 8 >> 6);
      const int c196 = (v45_tid * 8 & 63);
      if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 7 < v9_V_2_i32 && (tc_al_v19_V && (((a192) & 7) == 0))) {
        device const tc_vec16<uint16_t> *const q197 = reinterpret_cast<device const tc_vec16<uint16_t> *>(v19_V + a192);
        v191[0] = q197->e[0];
        v191[1] = q197->e[1];
        v191[2] = q197->e[2];
        v191[3] = q197->e[3];
        v191[4] = q197->e[4];
        v191[5] = q197->e[5];
        v191[6] = q197->e[6];
        v191[7] = q197->e[7];
      }
      else {
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 < v9_V_2_i32) v191[0] = v19_V[a192]; else v191[0] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 1 < v9_V_2_i32) v191[1] = v19_V[a192 + 1]; else v191[1] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 2 < v9_V_2_i32) v191[2] = v19_V[a192 + 2]; else v191[2] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 3 < v9_V_2_i32) v191[3] = v19_V[a192 + 3]; else v191[3] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 4 < v9_V_2_i32) v191[4] = v19_V[a192 + 4]; else v191[4] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 5 < v9_V_2_i32) v191[5] = v19_V[a192 + 5]; else v191[5] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 6 < v9_V_2_i32) v191[6] = v19_V[a192 + 6]; else v191[6] = (uint16_t)0x0000;
        if (c193 < v7_V_0_i32 && c195 < lim194 && c196 + 7 < v9_V_2_i32) v191[7] = v19_V[a192 + 7]; else v191[7] = (uint16_t)0x0000;
      }
    }
    /* tilec: map#144 at attention.py */
    uint16_t v198[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float v199_p = v144[e];
      /* tilec: arith#145 at attention.py */
      const float v200 = tc_round_bf16(v199_p);
      v198[e] = tc_f32_to_bf16(v199_p);
    }
    /* tilec: view#146 at attention.py */
    /* tilec: atom.call#147 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: arith#148 at attention.py */
    const int v201 = (v45_tid & 3);
    /* tilec: arith#149 at attention.py */
    const uint8_t v202 = (uint8_t)(v201 == 0);
    /* tilec: if#150 at attention.py */
    if (v202) {
      /* tilec: view#151 at attention.py */
      /* tilec: store#152 at attention.py */
      {
        v44_scratch_f32[(v45_tid >> 2)] = v149[0];
      }
    }
    else {
    }
    /* tilec: atom.call#153 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#154 at attention.py */
    /* tilec: load#155 at attention.py */
    float v203[16];
    {
      v203[0] = v44_scratch_f32[(v45_tid * 4 >> 6)];
    }
    {
      v203[1] = v44_scratch_f32[((v45_tid * 4 + 1) >> 6)];
    }
    {
      v203[2] = v44_scratch_f32[((v45_tid * 4 + 2) >> 6)];
    }
    {
      v203[3] = v44_scratch_f32[((v45_tid * 4 + 3) >> 6)];
    }
    {
      v203[4] = v44_scratch_f32[((v45_tid * 4 >> 6) + 16)];
    }
    {
      v203[5] = v44_scratch_f32[(((v45_tid * 4 + 1) >> 6) + 16)];
    }
    {
      v203[6] = v44_scratch_f32[(((v45_tid * 4 + 2) >> 6) + 16)];
    }
    {
      v203[7] = v44_scratch_f32[(((v45_tid * 4 + 3) >> 6) + 16)];
    }
    {
      v203[8] = v44_scratch_f32[((v45_tid * 4 >> 6) + 32)];
    }
    {
      v203[9] = v44_scratch_f32[(((v45_tid * 4 + 1) >> 6) + 32)];
    }
    {
      v203[10] = v44_scratch_f32[(((v45_tid * 4 + 2) >> 6) + 32)];
    }
    {
      v203[11] = v44_scratch_f32[(((v45_tid * 4 + 3) >> 6) + 32)];
    }
    {
      v203[12] = v44_scratch_f32[((v45_tid * 4 >> 6) + 48)];
    }
    {
      v203[13] = v44_scratch_f32[(((v45_tid * 4 + 1) >> 6) + 48)];
    }
    {
      v203[14] = v44_scratch_f32[(((v45_tid * 4 + 2) >> 6) + 48)];
    }
    {
      v203[15] = v44_scratch_f32[(((v45_tid * 4 + 3) >> 6) + 48)];
    }
    /* tilec: map#156 at attention.py */
    float v204[16];
    #pragma unroll
    for (int e = 0; e < 16; ++e) {
      const float v205_acc = v51[e];
      const float v206 = v203[e];
      /* tilec: arith#157 at attention.py */
      const float v207 = (v205_acc * v206);
      v204[e] = v207;
    }
    /* tilec: view#158 at attention.py */
    /* tilec: view#159 at attention.py */
    /* tilec: store#160 at attention.py */
    {
      v43_scratch_bf16[((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31))] = v198[0];
    }
    {
      v43_scratch_bf16[(((v45_tid * 4 + 1) >> 5) * 32 + ((v45_tid * 4 + 1) & 31))] = v198[1];
    }
    {
      v43_scratch_bf16[(((v45_tid * 4 + 2) >> 5) * 32 + ((v45_tid * 4 + 2) & 31))] = v198[2];
    }
    {
      v43_scratch_bf16[(((v45_tid * 4 + 3) >> 5) * 32 + ((v45_tid * 4 + 3) & 31))] = v198[3];
    }
    {
      v43_scratch_bf16[(((v45_tid * 4 >> 5) * 32 + (v45_tid * 4 & 31)) + 1024)] = v198[4];
    }
    {
      v43_scratch_bf16[((((v45_tid * 4 + 1) >> 5) * 32 + ((v45_tid * 4 + 1) & 31)) + 1024)] = v198[5];
    }
    {
      v43_scratch_bf16[((((v45_tid * 4 + 2) >> 5) * 32 + ((v45_tid * 4 + 2) & 31)) + 1024)] = v198[6];
    }
    {
      v43_scratch_bf16[((((v45_tid * 4 + 3) >> 5) * 32 + ((v45_tid * 4 + 3) & 31)) + 1024)] = v198[7];
    }
    /* tilec: view#161 at attention.py */
    /* tilec: atom.call#162 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#163 at attention.py */
    /* tilec: store#164 at attention.py */
    {
      const int a208 = (((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63)) + 2048);
      if ((((a208) & 7) == 0)) {
        threadgroup tc_vec16<uint16_t> *const q209 = reinterpret_cast<threadgroup tc_vec16<uint16_t> *>(v43_scratch_bf16 + a208);
        q209->e[0] = v191[0];
        q209->e[1] = v191[1];
        q209->e[2] = v191[2];
        q209->e[3] = v191[3];
        q209->e[4] = v191[4];
        q209->e[5] = v191[5];
        q209->e[6] = v191[6];
        q209->e[7] = v191[7];
      }
      else {
        v43_scratch_bf16[a208] = v191[0];
        v43_scratch_bf16[a208 + 1] = v191[1];
        v43_scratch_bf16[a208 + 2] = v191[2];
        v43_scratch_bf16[a208 + 3] = v191[3];
        v43_scratch_bf16[a208 + 4] = v191[4];
        v43_scratch_bf16[a208 + 5] = v191[5];
        v43_scratch_bf16[a208 + 6] = v191[6];
        v43_scratch_bf16[a208 + 7] = v191[7];
      }
    }
    /* tilec: atom.call#165 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#166 at attention.py */
    /* tilec: serial#167 at attention.py */
    float v210[16];
    #pragma unroll
    for (int e = 0; e < 16; ++e) v210[e] = v204[e];
    for (int v211 = 0; v211 < 32; v211 += 1) {
      /* tilec: view#168 at attention.py */
      /* tilec: load#169 at attention.py */
      uint16_t v212[16];
      {
        v212[0] = v43_scratch_bf16[(v211 + (v45_tid * 4 >> 6) * 32)];
      }
      {
        v212[1] = v43_scratch_bf16[(v211 + ((v45_tid * 4 + 1) >> 6) * 32)];
      }
      {
        v212[2] = v43_scratch_bf16[(v211 + ((v45_tid * 4 + 2) >> 6) * 32)];
      }
      {
        v212[3] = v43_scratch_bf16[(v211 + ((v45_tid * 4 + 3) >> 6) * 32)];
      }
      {
        v212[4] = v43_scratch_bf16[((v211 + (v45_tid * 4 >> 6) * 32) + 512)];
      }
      {
        v212[5] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 1) >> 6) * 32) + 512)];
      }
      {
        v212[6] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 2) >> 6) * 32) + 512)];
      }
      {
        v212[7] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 3) >> 6) * 32) + 512)];
      }
      {
        v212[8] = v43_scratch_bf16[((v211 + (v45_tid * 4 >> 6) * 32) + 1024)];
      }
      {
        v212[9] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 1) >> 6) * 32) + 1024)];
      }
      {
        v212[10] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 2) >> 6) * 32) + 1024)];
      }
      {
        v212[11] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 3) >> 6) * 32) + 1024)];
      }
      {
        v212[12] = v43_scratch_bf16[((v211 + (v45_tid * 4 >> 6) * 32) + 1536)];
      }
      {
        v212[13] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 1) >> 6) * 32) + 1536)];
      }
      {
        v212[14] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 2) >> 6) * 32) + 1536)];
      }
      {
        v212[15] = v43_scratch_bf16[((v211 + ((v45_tid * 4 + 3) >> 6) * 32) + 1536)];
      }
      /* tilec: view#170 at attention.py */
      /* tilec: load#171 at attention.py */
      uint16_t v213[16];
      {
        v213[0] = v43_scratch_bf16[((v211 * 64 + (v45_tid * 4 & 63)) + 2048)];
      }
      {
        v213[1] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 1) & 63)) + 2048)];
      }
      {
        v213[2] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 2) & 63)) + 2048)];
      }
      {
        v213[3] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 3) & 63)) + 2048)];
      }
      {
        v213[4] = v43_scratch_bf16[((v211 * 64 + (v45_tid * 4 & 63)) + 2048)];
      }
      {
        v213[5] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 1) & 63)) + 2048)];
      }
      {
        v213[6] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 2) & 63)) + 2048)];
      }
      {
        v213[7] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 3) & 63)) + 2048)];
      }
      {
        v213[8] = v43_scratch_bf16[((v211 * 64 + (v45_tid * 4 & 63)) + 2048)];
      }
      {
        v213[9] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 1) & 63)) + 2048)];
      }
      {
        v213[10] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 2) & 63)) + 2048)];
      }
      {
        v213[11] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 3) & 63)) + 2048)];
      }
      {
        v213[12] = v43_scratch_bf16[((v211 * 64 + (v45_tid * 4 & 63)) + 2048)];
      }
      {
        v213[13] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 1) & 63)) + 2048)];
      }
      {
        v213[14] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 2) & 63)) + 2048)];
      }
      {
        v213[15] = v43_scratch_bf16[((v211 * 64 + ((v45_tid * 4 + 3) & 63)) + 2048)];
      }
      /* tilec: map#172 at attention.py */
      float v214[16];
      #pragma unroll
      for (int e = 0; e < 16; ++e) {
        const float v215 = v210[e];
        const float v216 = tc_bf16_to_f32(v212[e]);
        const float v217 = tc_bf16_to_f32(v213[e]);
        /* tilec: arith#173 */
        const float v218 = v216;
        /* tilec: arith#174 */
        const float v219 = v217;
        /* tilec: arith#175 */
        const float v220 = (v218 * v219);
        /* tilec: arith#176 */
        const float v221 = (v215 + v220);
        v214[e] = v221;
      }
      #pragma unroll
      for (int e = 0; e < 16; ++e) v210[e] = v214[e];
    }
    /* tilec: atom.call#177 at attention.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v49[0] = v137[0];
    v50[0] = v185[0];
    #pragma unroll
    for (int e = 0; e < 16; ++e) v51[e] = v210[e];
  }
  /* tilec: view#178 at attention.py */
  /* tilec: view#179 at attention.py */
  /* tilec: constant#180 at attention.py */
  /* tilec: arith#181 at attention.py */
  const int v222 = (v45_tid & 3);
  /* tilec: arith#182 at attention.py */
  const uint8_t v223 = (uint8_t)(v222 == 0);
  /* tilec: if#183 at attention.py */
  if (v223) {
    /* tilec: view#184 at attention.py */
    /* tilec: store#185 at attention.py */
    {
      v44_scratch_f32[(v45_tid >> 2)] = v50[0];
    }
  }
  else {
  }
  /* tilec: atom.call#186 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#187 at attention.py */
  /* tilec: load#188 at attention.py */
  float v224[16];
  {
    v224[0] = v44_scratch_f32[(v45_tid * 8 >> 6)];
  }
  {
    v224[1] = v44_scratch_f32[((v45_tid * 8 + 1) >> 6)];
  }
  {
    v224[2] = v44_scratch_f32[((v45_tid * 8 + 2) >> 6)];
  }
  {
    v224[3] = v44_scratch_f32[((v45_tid * 8 + 3) >> 6)];
  }
  {
    v224[4] = v44_scratch_f32[((v45_tid * 8 + 4) >> 6)];
  }
  {
    v224[5] = v44_scratch_f32[((v45_tid * 8 + 5) >> 6)];
  }
  {
    v224[6] = v44_scratch_f32[((v45_tid * 8 + 6) >> 6)];
  }
  {
    v224[7] = v44_scratch_f32[((v45_tid * 8 + 7) >> 6)];
  }
  {
    v224[8] = v44_scratch_f32[((v45_tid * 8 >> 6) + 32)];
  }
  {
    v224[9] = v44_scratch_f32[(((v45_tid * 8 + 1) >> 6) + 32)];
  }
  {
    v224[10] = v44_scratch_f32[(((v45_tid * 8 + 2) >> 6) + 32)];
  }
  {
    v224[11] = v44_scratch_f32[(((v45_tid * 8 + 3) >> 6) + 32)];
  }
  {
    v224[12] = v44_scratch_f32[(((v45_tid * 8 + 4) >> 6) + 32)];
  }
  {
    v224[13] = v44_scratch_f32[(((v45_tid * 8 + 5) >> 6) + 32)];
  }
  {
    v224[14] = v44_scratch_f32[(((v45_tid * 8 + 6) >> 6) + 32)];
  }
  {
    v224[15] = v44_scratch_f32[(((v45_tid * 8 + 7) >> 6) + 32)];
  }
  /* tilec: view#189 at attention.py */
  /* tilec: atom.call#190 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#191 at attention.py */
  /* tilec: store#192 at attention.py */
  {
    const int a225 = ((v45_tid * 4 >> 6) * 64 + (v45_tid * 4 & 63));
    if ((((a225) & 3) == 0)) {
      threadgroup tc_vec16<float> *const q226 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a225);
      q226->e[0] = v51[0];
      q226->e[1] = v51[1];
      q226->e[2] = v51[2];
      q226->e[3] = v51[3];
    }
    else {
      v44_scratch_f32[a225] = v51[0];
      v44_scratch_f32[a225 + 1] = v51[1];
      v44_scratch_f32[a225 + 2] = v51[2];
      v44_scratch_f32[a225 + 3] = v51[3];
    }
  }
  {
    const int a227 = (((v45_tid * 4 >> 6) * 64 + (v45_tid * 4 & 63)) + 1024);
    if ((((a227) & 3) == 0)) {
      threadgroup tc_vec16<float> *const q228 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a227);
      q228->e[0] = v51[4];
      q228->e[1] = v51[5];
      q228->e[2] = v51[6];
      q228->e[3] = v51[7];
    }
    else {
      v44_scratch_f32[a227] = v51[4];
      v44_scratch_f32[a227 + 1] = v51[5];
      v44_scratch_f32[a227 + 2] = v51[6];
      v44_scratch_f32[a227 + 3] = v51[7];
    }
  }
  {
    const int a229 = (((v45_tid * 4 >> 6) * 64 + (v45_tid * 4 & 63)) + 2048);
    if ((((a229) & 3) == 0)) {
      threadgroup tc_vec16<float> *const q230 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a229);
      q230->e[0] = v51[8];
      q230->e[1] = v51[9];
      q230->e[2] = v51[10];
      q230->e[3] = v51[11];
    }
    else {
      v44_scratch_f32[a229] = v51[8];
      v44_scratch_f32[a229 + 1] = v51[9];
      v44_scratch_f32[a229 + 2] = v51[10];
      v44_scratch_f32[a229 + 3] = v51[11];
    }
  }
  {
    const int a231 = (((v45_tid * 4 >> 6) * 64 + (v45_tid * 4 & 63)) + 3072);
    if ((((a231) & 3) == 0)) {
      threadgroup tc_vec16<float> *const q232 = reinterpret_cast<threadgroup tc_vec16<float> *>(v44_scratch_f32 + a231);
      q232->e[0] = v51[12];
      q232->e[1] = v51[13];
      q232->e[2] = v51[14];
      q232->e[3] = v51[15];
    }
    else {
      v44_scratch_f32[a231] = v51[12];
      v44_scratch_f32[a231 + 1] = v51[13];
      v44_scratch_f32[a231 + 2] = v51[14];
      v44_scratch_f32[a231 + 3] = v51[15];
    }
  }
  /* tilec: atom.call#193 at attention.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#194 at attention.py */
  /* tilec: load#195 at attention.py */
  float v233[16];
  {
    const int a234 = ((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63));
    if ((((a234) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q235 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a234);
      v233[0] = q235->e[0];
      v233[1] = q235->e[1];
      v233[2] = q235->e[2];
      v233[3] = q235->e[3];
    }
    else {
      v233[0] = v44_scratch_f32[a234];
      v233[1] = v44_scratch_f32[a234 + 1];
      v233[2] = v44_scratch_f32[a234 + 2];
      v233[3] = v44_scratch_f32[a234 + 3];
    }
  }
  {
    const int a236 = (((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63)) + 4);
    if ((((a236) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q237 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a236);
      v233[4] = q237->e[0];
      v233[5] = q237->e[1];
      v233[6] = q237->e[2];
      v233[7] = q237->e[3];
    }
    else {
      v233[4] = v44_scratch_f32[a236];
      v233[5] = v44_scratch_f32[a236 + 1];
      v233[6] = v44_scratch_f32[a236 + 2];
      v233[7] = v44_scratch_f32[a236 + 3];
    }
  }
  {
    const int a238 = (((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63)) + 2048);
    if ((((a238) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q239 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a238);
      v233[8] = q239->e[0];
      v233[9] = q239->e[1];
      v233[10] = q239->e[2];
      v233[11] = q239->e[3];
    }
    else {
      v233[8] = v44_scratch_f32[a238];
      v233[9] = v44_scratch_f32[a238 + 1];
      v233[10] = v44_scratch_f32[a238 + 2];
      v233[11] = v44_scratch_f32[a238 + 3];
    }
  }
  {
    const int a240 = (((v45_tid * 8 >> 6) * 64 + (v45_tid * 8 & 63)) + 2052);
    if ((((a240) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q241 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v44_scratch_f32 + a240);
      v233[12] = q241->e[0];
      v233[13] = q241->e[1];
      v233[14] = q241->e[2];
      v233[15] = q241->e[3];
    }
    else {
      v233[12] = v44_scratch_f32[a240];
      v233[13] = v44_scratch_f32[a240 + 1];
      v233[14] = v44_scratch_f32[a240 + 2];
      v233[15] = v44_scratch_f32[a240 + 3];
    }
  }
  /* tilec: map#196 at attention.py */
  uint16_t v242[16];
  #pragma unroll
  for (int e = 0; e < 16; ++e) {
    const float v243_acc = v233[e];
    const float v244 = v224[e];
    /* tilec: arith#197 at attention.py */
    const float v245 = (v243_acc / v244);
    /* tilec: arith#198 at attention.py */
    const float v246 = tc_round_bf16(v245);
    v242[e] = tc_f32_to_bf16(v245);
  }
  /* tilec: view#199 at attention.py */
  /* tilec: store#200 at attention.py */
  {
    const int64_t a247 = (int64_t)v41_bh * v22_Out_s23 + (int64_t)(v47 + (v45_tid * 8 >> 6)) * v22_Out_s24 + (v45_tid * 8 & 63);
    const int c248 = v41_bh;
    const int lim249 = tc_sat32(v11_Out_1 - v47);
    const int c250 = (v45_tid * 8 >> 6);
    const int c251 = (v45_tid * 8 & 63);
    if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 7 < v12_Out_2_i32 && (tc_al_v22_Out && (((a247) & 7) == 0))) {
      device tc_vec16<uint16_t> *const q252 = reinterpret_cast<device tc_vec16<uint16_t> *>(v22_Out + a247);
      q252->e[0] = v242[0];
      q252->e[1] = v242[1];
      q252->e[2] = v242[2];
      q252->e[3] = v242[3];
      q252->e[4] = v242[4];
      q252->e[5] = v242[5];
      q252->e[6] = v242[6];
      q252->e[7] = v242[7];
    }
    else {
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 < v12_Out_2_i32) v22_Out[a247] = v242[0];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 1 < v12_Out_2_i32) v22_Out[a247 + 1] = v242[1];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 2 < v12_Out_2_i32) v22_Out[a247 + 2] = v242[2];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 3 < v12_Out_2_i32) v22_Out[a247 + 3] = v242[3];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 4 < v12_Out_2_i32) v22_Out[a247 + 4] = v242[4];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 5 < v12_Out_2_i32) v22_Out[a247 + 5] = v242[5];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 6 < v12_Out_2_i32) v22_Out[a247 + 6] = v242[6];
      if (c248 < v10_Out_0_i32 && c250 < lim249 && c251 + 7 < v12_Out_2_i32) v22_Out[a247 + 7] = v242[7];
    }
  }
  {
    const int64_t a253 = (int64_t)v41_bh * v22_Out_s23 + (int64_t)(v47 + (v45_tid * 8 >> 6)) * v22_Out_s24 + v22_Out_s24 * 32 + (v45_tid * 8 & 63);
    const int c254 = v41_bh;
    const int lim255 = tc_sat32(v11_Out_1 - v47);
    const int c256 = ((v45_tid * 8 >> 6) + 32);
    const int c257 = (v45_tid * 8 & 63);
    if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 7 < v12_Out_2_i32 && (tc_al_v22_Out && (((a253) & 7) == 0))) {
      device tc_vec16<uint16_t> *const q258 = reinterpret_cast<device tc_vec16<uint16_t> *>(v22_Out + a253);
      q258->e[0] = v242[8];
      q258->e[1] = v242[9];
      q258->e[2] = v242[10];
      q258->e[3] = v242[11];
      q258->e[4] = v242[12];
      q258->e[5] = v242[13];
      q258->e[6] = v242[14];
      q258->e[7] = v242[15];
    }
    else {
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 < v12_Out_2_i32) v22_Out[a253] = v242[8];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 1 < v12_Out_2_i32) v22_Out[a253 + 1] = v242[9];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 2 < v12_Out_2_i32) v22_Out[a253 + 2] = v242[10];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 3 < v12_Out_2_i32) v22_Out[a253 + 3] = v242[11];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 4 < v12_Out_2_i32) v22_Out[a253 + 4] = v242[12];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 5 < v12_Out_2_i32) v22_Out[a253 + 5] = v242[13];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 6 < v12_Out_2_i32) v22_Out[a253 + 6] = v242[14];
      if (c254 < v10_Out_0_i32 && c256 < lim255 && c257 + 7 < v12_Out_2_i32) v22_Out[a253 + 7] = v242[15];
    }
  }
}
