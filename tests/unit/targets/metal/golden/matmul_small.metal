kernel void tilec_matmul_small(
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
  threadgroup uint4 tc_smem4[24];  /* 384 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_A_s8 = v2_A_1;
  const bool tc_al_v7_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v9_B_s10 = v4_B_1;
  const bool tc_al_v9_B = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v11_C_s12 = v6_C_1;
  const bool tc_al_v11_C = ((tc_aligned >> 2) & 1u) != 0u;
  const int v1_A_0_i32 = (int)(v1_A_0 < INT64_C(2147483647) ? v1_A_0 : INT64_C(2147483647));
  const int v5_C_0_i32 = (int)(v5_C_0 < INT64_C(2147483647) ? v5_C_0 : INT64_C(2147483647));
  /* tilec: constant#1 at metal_kernels.py:48:31 */
  /* tilec: arith#2 at metal_kernels.py:48:31 */
  const int64_t v13 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 8)));
  /* tilec: constant#3 at metal_kernels.py:48:47 */
  /* tilec: arith#4 at metal_kernels.py:48:47 */
  const int64_t v14 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v4_B_1), 16)));
  /* tilec: parallel#5 at metal_kernels.py:48:5 */
  const int v15_pm = (int)tc_group.y;
  const int v16_pn = (int)tc_group.x;
  /* tilec: constant#6 at metal_kernels.py:48:5 */
  /* tilec: memory#7 at metal_kernels.py:48:5 */
  threadgroup float *const v17_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 384 bytes */
  /* tilec: parallel#8 at metal_kernels.py:48:5 */
  const int v18_tid = (int)tc_lane;
  /* tilec: constant#9 at metal_kernels.py:48:31 */
  /* tilec: constant#10 at metal_kernels.py:48:47 */
  /* tilec: constant#11 at metal_kernels.py:48:5 */
  /* tilec: constant#12 at metal_kernels.py:49:15 */
  /* tilec: constant#13 at metal_kernels.py:50:28 */
  /* tilec: arith#14 at metal_kernels.py:50:28 */
  const int64_t v19 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 4)));
  /* tilec: constant#15 at metal_kernels.py:50:9 */
  /* tilec: constant#16 at metal_kernels.py:50:9 */
  /* tilec: serial#17 at metal_kernels.py:50:9 */
  float v20[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v20[e] = 0.0e+00f;
  for (int64_t v21 = INT64_C(0); v21 < v19; v21 += INT64_C(1)) {
    /* tilec: arith#18 at metal_kernels.py:51:25 */
    const int v22 = ((int)(v15_pm * 8));
    /* tilec: arith#19 at metal_kernels.py:51:34 */
    const int64_t v23 = ((int64_t)(v21 * (int64_t)4));
    /* tilec: view#20 at metal_kernels.py:51:17 */
    /* tilec: arith#21 at metal_kernels.py:52:33 */
    const int64_t v24 = ((int64_t)((int64_t)v16_pn * (int64_t)16));
    /* tilec: view#22 at metal_kernels.py:52:17 */
    /* tilec: view#23 at metal_kernels.py:53:26 */
    /* tilec: load#24 at metal_kernels.py:53:26 */
    float v25[4];
    {
      const int64_t a26 = (int64_t)(v22 + v18_tid) * v7_A_s8 + v23;
      const int c27 = (v22 + v18_tid);
      const int lim28 = tc_sat32(v2_A_1 - v23);
      const int c29 = 0;
      const int c30 = v18_tid;
      if (c27 < v1_A_0_i32 && c29 + 3 < lim28 && c30 < 8 && (tc_al_v7_A && (((a26) & 3) == 0))) {
        device const tc_vec16<float> *const q31 = reinterpret_cast<device const tc_vec16<float> *>(v7_A + a26);
        v25[0] = q31->e[0];
        v25[1] = q31->e[1];
        v25[2] = q31->e[2];
        v25[3] = q31->e[3];
      }
      else {
        if (c27 < v1_A_0_i32 && c29 < lim28 && c30 < 8) v25[0] = v7_A[a26]; else v25[0] = 0.0e+00f;
        if (c27 < v1_A_0_i32 && c29 + 1 < lim28 && c30 < 8) v25[1] = v7_A[a26 + 1]; else v25[1] = 0.0e+00f;
        if (c27 < v1_A_0_i32 && c29 + 2 < lim28 && c30 < 8) v25[2] = v7_A[a26 + 2]; else v25[2] = 0.0e+00f;
        if (c27 < v1_A_0_i32 && c29 + 3 < lim28 && c30 < 8) v25[3] = v7_A[a26 + 3]; else v25[3] = 0.0e+00f;
      }
    }
    /* tilec: view#25 at metal_kernels.py:53:29 */
    /* tilec: load#26 at metal_kernels.py:53:29 */
    float v32[4];
    {
      const int64_t a33 = (int64_t)(v23 + (v18_tid * 4 >> 4)) * v9_B_s10 + (v24 + (v18_tid * 4 & 15));
      const int lim34 = tc_sat32(v3_B_0 - v23);
      const int c35 = (v18_tid * 4 >> 4);
      const int lim36 = tc_sat32(v4_B_1 - v24);
      const int c37 = (v18_tid * 4 & 15);
      const int c38 = (v18_tid * 4 >> 4);
      const int c39 = (v18_tid * 4 & 15);
      if (c35 < lim34 && c37 + 3 < lim36 && c38 < 4 && c39 + 3 < 16 && (tc_al_v9_B && (((a33) & 3) == 0))) {
        device const tc_vec16<float> *const q40 = reinterpret_cast<device const tc_vec16<float> *>(v9_B + a33);
        v32[0] = q40->e[0];
        v32[1] = q40->e[1];
        v32[2] = q40->e[2];
        v32[3] = q40->e[3];
      }
      else {
        if (c35 < lim34 && c37 < lim36 && c38 < 4) v32[0] = v9_B[a33]; else v32[0] = 0.0e+00f;
        if (c35 < lim34 && c37 + 1 < lim36 && c38 < 4 && c39 + 1 < 16) v32[1] = v9_B[a33 + 1]; else v32[1] = 0.0e+00f;
        if (c35 < lim34 && c37 + 2 < lim36 && c38 < 4 && c39 + 2 < 16) v32[2] = v9_B[a33 + 2]; else v32[2] = 0.0e+00f;
        if (c35 < lim34 && c37 + 3 < lim36 && c38 < 4 && c39 + 3 < 16) v32[3] = v9_B[a33 + 3]; else v32[3] = 0.0e+00f;
      }
    }
    /* tilec: view#27 at metal_kernels.py:53:19 */
    /* tilec: view#28 at metal_kernels.py:53:19 */
    /* tilec: store#29 at metal_kernels.py:53:19 */
    {
      const int a41 = v18_tid * 4;
      const int c42 = v18_tid;
      if (c42 < 8) {
        threadgroup tc_vec16<float> *const q43 = reinterpret_cast<threadgroup tc_vec16<float> *>(v17_scratch_f32 + a41);
        q43->e[0] = v25[0];
        q43->e[1] = v25[1];
        q43->e[2] = v25[2];
        q43->e[3] = v25[3];
      }
      else {
        if (c42 < 8) v17_scratch_f32[a41] = v25[0];
        if (c42 < 8) v17_scratch_f32[a41 + 1] = v25[1];
        if (c42 < 8) v17_scratch_f32[a41 + 2] = v25[2];
        if (c42 < 8) v17_scratch_f32[a41 + 3] = v25[3];
      }
    }
    /* tilec: view#30 at metal_kernels.py:53:19 */
    /* tilec: atom.call#31 at metal_kernels.py:53:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: view#32 at metal_kernels.py:53:19 */
    /* tilec: store#33 at metal_kernels.py:53:19 */
    {
      const int a44 = (((v18_tid * 4 >> 4) * 16 + (v18_tid * 4 & 15)) + 32);
      const int c45 = (v18_tid * 4 >> 4);
      const int c46 = (v18_tid * 4 & 15);
      if (c45 < 4 && c46 + 3 < 16 && (((a44) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q47 = reinterpret_cast<threadgroup tc_vec16<float> *>(v17_scratch_f32 + a44);
        q47->e[0] = v32[0];
        q47->e[1] = v32[1];
        q47->e[2] = v32[2];
        q47->e[3] = v32[3];
      }
      else {
        if (c45 < 4) v17_scratch_f32[a44] = v32[0];
        if (c45 < 4 && c46 + 1 < 16) v17_scratch_f32[a44 + 1] = v32[1];
        if (c45 < 4 && c46 + 2 < 16) v17_scratch_f32[a44 + 2] = v32[2];
        if (c45 < 4 && c46 + 3 < 16) v17_scratch_f32[a44 + 3] = v32[3];
      }
    }
    /* tilec: atom.call#34 at metal_kernels.py:53:19 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: constant#35 at metal_kernels.py:53:19 */
    /* tilec: constant#36 at metal_kernels.py:53:19 */
    /* tilec: serial#37 at metal_kernels.py:53:19 */
    float v48[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v48[e] = v20[e];
    for (int v49 = 0; v49 < 4; v49 += 1) {
      /* tilec: view#38 at metal_kernels.py:53:19 */
      /* tilec: load#39 at metal_kernels.py:53:19 */
      float v50[4];
      {
        v50[0] = v17_scratch_f32[(v49 + (v18_tid * 4 >> 4) * 4)];
      }
      {
        v50[1] = v17_scratch_f32[(v49 + ((v18_tid * 4 + 1) >> 4) * 4)];
      }
      {
        v50[2] = v17_scratch_f32[(v49 + ((v18_tid * 4 + 2) >> 4) * 4)];
      }
      {
        v50[3] = v17_scratch_f32[(v49 + ((v18_tid * 4 + 3) >> 4) * 4)];
      }
      /* tilec: view#40 at metal_kernels.py:53:19 */
      /* tilec: load#41 at metal_kernels.py:53:19 */
      float v51[4];
      {
        const int a52 = ((v49 * 16 + (v18_tid * 4 & 15)) + 32);
        if ((((a52) & 3) == 0)) {
          threadgroup const tc_vec16<float> *const q53 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v17_scratch_f32 + a52);
          v51[0] = q53->e[0];
          v51[1] = q53->e[1];
          v51[2] = q53->e[2];
          v51[3] = q53->e[3];
        }
        else {
          v51[0] = v17_scratch_f32[a52];
          v51[1] = v17_scratch_f32[a52 + 1];
          v51[2] = v17_scratch_f32[a52 + 2];
          v51[3] = v17_scratch_f32[a52 + 3];
        }
      }
      /* tilec: map#42 at metal_kernels.py:53:19 */
      float v54[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v55 = v48[e];
        const float v56 = v50[e];
        const float v57 = v51[e];
        /* tilec: arith#43 */
        const float v58 = (v56 * v57);
        /* tilec: arith#44 */
        const float v59 = (v55 + v58);
        v54[e] = v59;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v48[e] = v54[e];
    }
    /* tilec: atom.call#45 at metal_kernels.py:50:9 */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    #pragma unroll
    for (int e = 0; e < 4; ++e) v20[e] = v48[e];
  }
  /* tilec: arith#46 at metal_kernels.py:54:17 */
  const int v60 = ((int)(v15_pm * 8));
  /* tilec: arith#47 at metal_kernels.py:54:26 */
  const int64_t v61 = ((int64_t)((int64_t)v16_pn * (int64_t)16));
  /* tilec: view#48 at metal_kernels.py:54:9 */
  /* tilec: view#49 at metal_kernels.py:54:9 */
  /* tilec: store#50 at metal_kernels.py:54:9 */
  {
    const int64_t a62 = (int64_t)(v60 + (v18_tid * 4 >> 4)) * v11_C_s12 + (v61 + (v18_tid * 4 & 15));
    const int c63 = (v60 + (v18_tid * 4 >> 4));
    const int lim64 = tc_sat32(v6_C_1 - v61);
    const int c65 = (v18_tid * 4 & 15);
    if (c63 < v5_C_0_i32 && c65 + 3 < lim64 && (tc_al_v11_C && (((a62) & 3) == 0))) {
      device tc_vec16<float> *const q66 = reinterpret_cast<device tc_vec16<float> *>(v11_C + a62);
      q66->e[0] = v20[0];
      q66->e[1] = v20[1];
      q66->e[2] = v20[2];
      q66->e[3] = v20[3];
    }
    else {
      if (c63 < v5_C_0_i32 && c65 < lim64) v11_C[a62] = v20[0];
      if (c63 < v5_C_0_i32 && c65 + 1 < lim64) v11_C[a62 + 1] = v20[1];
      if (c63 < v5_C_0_i32 && c65 + 2 < lim64) v11_C[a62 + 2] = v20[2];
      if (c63 < v5_C_0_i32 && c65 + 3 < lim64) v11_C[a62 + 3] = v20[3];
    }
  }
}
