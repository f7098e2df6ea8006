kernel void tilec_einsum_matmul(
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
  const int64_t v7_A_s8 = v2_A_1;
  const bool tc_al_v7_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v9_B_s10 = v4_B_1;
  const bool tc_al_v9_B = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v11_C_s12 = v6_C_1;
  const bool tc_al_v11_C = ((tc_aligned >> 2) & 1u) != 0u;
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v5_C_0_i32 = (int)(v5_C_0 < INT64_C(2147483647) ? v5_C_0 : INT64_C(2147483647));
  /* tilec: arith#1 at einsum.py */
  const uint8_t v13_ok = (uint8_t)(v3_B_0 == v2_A_1);
  /* tilec: arith#2 at einsum.py */
  const uint8_t v14_ok = (uint8_t)(v5_C_0 == v1_A_0);
  /* tilec: arith#3 at einsum.py */
  const uint8_t v15_ok = (uint8_t)(v6_C_1 == v4_B_1);
  /* tilec: arith#4 at einsum.py */
  const uint8_t v16_ok = (v14_ok & v15_ok);
  /* tilec: constant#5 at einsum.py */
  /* tilec: arith#6 at einsum.py */
  const int64_t v17 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 16)));
  /* tilec: arith#7 at einsum.py */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v4_B_1), 16)));
  /* tilec: parallel#8 at einsum.py */
  const int v19_pm = (int)tc_group.y;
  const int v20_pn = (int)tc_group.x;
  /* tilec: constant#9 at einsum.py */
  /* tilec: parallel#10 at einsum.py */
  const int v21_tid = (int)tc_lane;
  /* tilec: constant#11 at einsum.py */
  /* tilec: constant#12 at einsum.py */
  /* tilec: constant#13 at einsum.py */
  /* tilec: constant#14 at einsum.py */
  /* tilec: arith#15 at einsum.py */
  const int64_t v22 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 8)));
  /* tilec: constant#16 at einsum.py */
  /* tilec: constant#17 at einsum.py */
  /* tilec: serial#18 at einsum.py */
  float v23[1];
  v23[0] = 0.0e+00f;
  for (int64_t v24 = INT64_C(0); v24 < v22; v24 += INT64_C(1)) {
    /* tilec: arith#19 at einsum.py */
    const int v25 = ((int)(v19_pm * 16));
    /* tilec: arith#20 at einsum.py */
    const int64_t v26 = ((int64_t)(v24 * (int64_t)8));
    /* tilec: view#21 at einsum.py */
    /* tilec: arith#22 at einsum.py */
    const int64_t v27 = ((int64_t)((int64_t)v20_pn * (int64_t)16));
    /* tilec: view#23 at einsum.py */
    /* tilec: view#24 at einsum.py */
    /* tilec: load#25 at einsum.py */
    float v28[8];
    {
      const int64_t a29 = (int64_t)(v25 + (v21_tid >> 4)) * v7_A_s8 + v26;
      const int c30 = (v25 + (v21_tid >> 4));
      const int lim31 = tc_sat32(v2_A_1 - v26);
      const int c32 = 0;
      if (c30 < v1_A_0_i32 && c32 + 3 < lim31 && (tc_al_v7_A && (((a29) & 3) == 0))) {
        device const tc_vec16<float> *const q33 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a29);
        v28[0] = q33->e[0];
        v28[1] = q33->e[1];
        v28[2] = q33->e[2];
        v28[3] = q33->e[3];
      }
      else {
        if (c30 < v1_A_0_i32 && c32 < lim31) v28[0] = v7_A[a29]; else v28[0] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c32 + 1 < lim31) v28[1] = v7_A[a29 + 1]; else v28[1] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c32 + 2 < lim31) v28[2] = v7_A[a29 + 2]; else v28[2] = 0.0e+00f;
        if (c30 < v1_A_0_i32 && c32 + 3 < lim31) v28[3] = v7_A[a29 + 3]; else v28[3] = 0.0e+00f;
      }
    }
    {
      const int64_t a34 = (int64_t)(v25 + (v21_tid >> 4)) * v7_A_s8 + v26 + 4;
      const int c35 = (v25 + (v21_tid >> 4));
      const int lim36 = tc_sat32(v2_A_1 - v26);
      const int c37 = 4;
      if (c35 < v1_A_0_i32 && c37 + 3 < lim36 && (tc_al_v7_A && (((a34) & 3) == 0))) {
        device const tc_vec16<float> *const q38 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a34);
        v28[4] = q38->e[0];
        v28[5] = q38->e[1];
        v28[6] = q38->e[2];
        v28[7] = q38->e[3];
      }
      else {
        if (c35 < v1_A_0_i32 && c37 < lim36) v28[4] = v7_A[a34]; else v28[4] = 0.0e+00f;
        if (c35 < v1_A_0_i32 && c37 + 1 < lim36) v28[5] = v7_A[a34 + 1]; else v28[5] = 0.0e+00f;
        if (c35 < v1_A_0_i32 && c37 + 2 < lim36) v28[6] = v7_A[a34 + 2]; else v28[6] = 0.0e+00f;
        if (c35 < v1_A_0_i32 && c37 + 3 < lim36) v28[7] = v7_A[a34 + 3]; else v28[7] = 0.0e+00f;
      }
    }
    /* tilec: view#26 at einsum.py */
    /* tilec: load#27 at einsum.py */
    float v39[8];
    {
      const int64_t c40 = v26;
      const int64_t c41 = (v27 + (v21_tid & 15));
      if (c40 < v3_B_0 && c41 < v4_B_1) v39[0] = v9_B[(int64_t)v26 * v9_B_s10 + (v27 + (v21_tid & 15))]; else v39[0] = 0.0e+00f;
    }
    {
      const int64_t c42 = (v26 + 1);
      const int64_t c43 = (v27 + (v21_tid & 15));
      if (c42 < v3_B_0 && c43 < v4_B_1) v39[1] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 + (v27 + (v21_tid & 15))]; else v39[1] = 0.0e+00f;
    }
    {
      const int64_t c44 = (v26 + 2);
      const int64_t c45 = (v27 + (v21_tid & 15));
      if (c44 < v3_B_0 && c45 < v4_B_1) v39[2] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 2 + (v27 + (v21_tid & 15))]; else v39[2] = 0.0e+00f;
    }
    {
      const int64_t c46 = (v26 + 3);
      const int64_t c47 = (v27 + (v21_tid & 15));
      if (c46 < v3_B_0 && c47 < v4_B_1) v39[3] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 3 + (v27 + (v21_tid & 15))]; else v39[3] = 0.0e+00f;
    }
    {
      const int64_t c48 = (v26 + 4);
      const int64_t c49 = (v27 + (v21_tid & 15));
      if (c48 < v3_B_0 && c49 < v4_B_1) v39[4] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 4 + (v27 + (v21_tid & 15))]; else v39[4] = 0.0e+00f;
    }
    {
      const int64_t c50 = (v26 + 5);
      const int64_t c51 = (v27 + (v21_tid & 15));
      if (c50 < v3_B_0 && c51 < v4_B_1) v39[5] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 5 + (v27 + (v21_tid & 15))]; else v39[5] = 0.0e+00f;
    }
    {
      const int64_t c52 = (v26 + 6);
      const int64_t c53 = (v27 + (v21_tid & 15));
      if (c52 < v3_B_0 && c53 < v4_B_1) v39[6] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 6 + (v27 + (v21_tid & 15))]; else v39[6] = 0.0e+00f;
    }
    {
      const int64_t c54 = (v26 + 7);
      const int64_t c55 = (v27 + (v21_tid & 15));
      if (c54 < v3_B_0 && c55 < v4_B_1) v39[7] = v9_B[(int64_t)v26 * v9_B_s10 + v9_B_s10 * 7 + (v27 + (v21_tid & 15))]; else v39[7] = 0.0e+00f;
    }
    /* tilec: map#28 at einsum.py */
    float v56[8];
    #pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float v57 = v28[e];
      const float v58 = v39[e];
      /* tilec: arith#29 at einsum.py */
      const float v59 = (v57 * v58);
      v56[e] = v59;
    }
    /* tilec: constant#30 at einsum.py */
    /* tilec: reindex#31 at einsum.py */
    float v60[8];
    v60[0] = v56[0];
    v60[1] = v56[1];
    v60[2] = v56[2];
    v60[3] = v56[3];
    v60[4] = v56[4];
    v60[5] = v56[5];
    v60[6] = v56[6];
    v60[7] = v56[7];
    /* tilec: reduce#32 at einsum.py */
    float v61[1];
    const float p62 = (v60[0] + v60[1]);
    const float p63 = (v60[2] + v60[3]);
    const float p64 = (v60[4] + v60[5]);
    const float p65 = (v60[6] + v60[7]);
    const float p66 = (p62 + p63);
    const float p67 = (p64 + p65);
    const float p68 = (p66 + p67);
    v61[0] = (0.0e+00f + p68);
    /* tilec: map#33 at einsum.py */
    float v69[1];
    {
      const float v70_acc = v23[0];
      const float v71 = v61[0];
      /* tilec: arith#34 at einsum.py */
      const float v72 = (v70_acc + v71);
      v69[0] = v72;
    }
    /* tilec: atom.call#35 at einsum.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v23[0] = v69[0];
  }
  /* tilec: arith#36 at einsum.py */
  const int v73 = ((int)(v19_pm * 16));
  /* tilec: arith#37 at einsum.py */
  const int64_t v74 = ((int64_t)((int64_t)v20_pn * (int64_t)16));
  /* tilec: view#38 at einsum.py */
  /* tilec: view#39 at einsum.py */
  /* tilec: store#40 at einsum.py */
  {
    const int c75 = (v73 + (v21_tid >> 4));
    const int64_t c76 = (v74 + (v21_tid & 15));
    if (c75 < v5_C_0_i32 && c76 < v6_C_1) v11_C[(int64_t)(v73 + (v21_tid >> 4)) * v11_C_s12 + (v74 + (v21_tid & 15))] = v23[0];
  }
}
