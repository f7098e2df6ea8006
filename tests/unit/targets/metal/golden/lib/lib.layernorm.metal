kernel void tilec_layernorm(
    device const float *v7_X [[buffer(0)]],
    device const float *v9_W [[buffer(1)]],
    device const float *v10_B [[buffer(2)]],
    device float *v11_Y [[buffer(3)]],
    constant float &v13_eps [[buffer(4)]],
    constant int64_t &v1_X_0 [[buffer(5)]],
    constant int64_t &v2_X_1 [[buffer(6)]],
    constant int64_t &v3_W_0 [[buffer(7)]],
    constant int64_t &v4_B_0 [[buffer(8)]],
    constant int64_t &v5_Y_0 [[buffer(9)]],
    constant int64_t &v6_Y_1 [[buffer(10)]],
    constant uint &tc_aligned [[buffer(11)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[32];  /* 512 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_X_s8 = v2_X_1;
  const bool tc_al_v7_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v9_W = ((tc_aligned >> 1) & 1u) != 0u;
  const bool tc_al_v10_B = ((tc_aligned >> 2) & 1u) != 0u;
  const int64_t v11_Y_s12 = v6_Y_1;
  const bool tc_al_v11_Y = ((tc_aligned >> 3) & 1u) != 0u;
  const int v2_X_1_i32 = (int)(v2_X_1 < INT64_C(2147483647) ? v2_X_1 : INT64_C(2147483647));
  const int v3_W_0_i32 = (int)(v3_W_0 < INT64_C(2147483647) ? v3_W_0 : INT64_C(2147483647));
  const int v4_B_0_i32 = (int)(v4_B_0 < INT64_C(2147483647) ? v4_B_0 : INT64_C(2147483647));
  const int v6_Y_1_i32 = (int)(v6_Y_1 < INT64_C(2147483647) ? v6_Y_1 : INT64_C(2147483647));
  /* tilec: constant#1 at norms.py */
  /* tilec: arith#2 at norms.py */
  const uint8_t v14_ok = (uint8_t)(v2_X_1_i32 <= 128);
  /* tilec: arith#3 at norms.py */
  const uint8_t v15_ok = (uint8_t)(v3_W_0 == v2_X_1);
  /* tilec: arith#4 at norms.py */
  const uint8_t v16_ok = (uint8_t)(v4_B_0 == v2_X_1);
  /* tilec: arith#5 at norms.py */
  const uint8_t v17_ok = (v15_ok & v16_ok);
  /* tilec: arith#6 at norms.py */
  const uint8_t v18_ok = (uint8_t)(v5_Y_0 == v1_X_0);
  /* tilec: arith#7 at norms.py */
  const uint8_t v19_ok = (uint8_t)(v6_Y_1 == v2_X_1);
  /* tilec: arith#8 at norms.py */
  const uint8_t v20_ok = (v18_ok & v19_ok);
  /* tilec: arith#9 at norms.py */
  const float v21_n = ((float)v2_X_1);
  /* tilec: constant#10 at norms.py */
  /* tilec: arith#11 at norms.py */
  const int64_t v22 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 4)));
  /* tilec: parallel#12 at norms.py */
  const int v23_pm = (int)tc_group.x;
  /* tilec: constant#13 at norms.py */
  /* tilec: memory#14 at norms.py */
  threadgroup float *const v24_memory_scratch = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 512 bytes */
  /* tilec: parallel#15 at norms.py */
  const int v25_tid = (int)tc_lane;
  /* tilec: constant#16 at norms.py */
  /* tilec: arith#17 at norms.py */
  const float v26_n = ((float)v2_X_1);
  /* tilec: constant#18 at norms.py */
  /* tilec: constant#19 at norms.py */
  /* tilec: arith#20 at norms.py */
  const int64_t v27 = ((int64_t)((int64_t)v23_pm * (int64_t)4));
  /* tilec: view#21 at norms.py */
  /* tilec: view#22 at norms.py */
  /* tilec: load#23 at norms.py */
  float v28[4];
  {
    const int64_t a29 = (int64_t)(v27 + (v25_tid >> 5)) * v7_X_s8 + (v25_tid & 31) * 4;
    const int lim30 = tc_sat32(v1_X_0 - v27);
    const int c31 = (v25_tid >> 5);
    const int c32 = (v25_tid & 31) * 4;
    if (c31 < lim30 && c32 + 3 < v2_X_1_i32 && (tc_al_v7_X && (((a29) & 3) == 0))) {
      device const tc_vec16<float> *const q33 = reinterpret_cast<device const tc_vec16<float> *>(v7_X + a29);
      v28[0] = q33->e[0];
      v28[1] = q33->e[1];
      v28[2] = q33->e[2];
      v28[3] = q33->e[3];
    }
    else {
      if (c31 < lim30 && c32 < v2_X_1_i32) v28[0] = v7_X[a29]; else v28[0] = 0.0e+00f;
      if (c31 < lim30 && c32 + 1 < v2_X_1_i32) v28[1] = v7_X[a29 + 1]; else v28[1] = 0.0e+00f;
      if (c31 < lim30 && c32 + 2 < v2_X_1_i32) v28[2] = v7_X[a29 + 2]; else v28[2] = 0.0e+00f;
      if (c31 < lim30 && c32 + 3 < v2_X_1_i32) v28[3] = v7_X[a29 + 3]; else v28[3] = 0.0e+00f;
    }
  }
  /* tilec: constant#24 at norms.py */
  /* tilec: reindex#25 at norms.py */
  float v34[4];
  v34[0] = v28[0];
  v34[1] = v28[1];
  v34[2] = v28[2];
  v34[3] = v28[3];
  /* tilec: constant#26 at norms.py */
  /* tilec: reduce#27 at norms.py */
  float v35[1];
  const float p36 = (v34[0] + v34[1]);
  const float p37 = (v34[2] + v34[3]);
  const float p38 = (p36 + p37);
  v35[0] = p38;
  /* tilec: constant#28 at norms.py */
  /* tilec: atom.call#29 at norms.py */
  float v39[1];
  v39[0] = tc_shfl_xor(v35[0], (ushort)(INT64_C(1)));
  /* tilec: map#30 at norms.py */
  float v40[1];
  {
    const float v41 = v35[0];
    const float v42 = v39[0];
    /* tilec: arith#31 */
    const float v43 = (v41 + v42);
    v40[0] = v43;
  }
  /* tilec: constant#32 at norms.py */
  /* tilec: atom.call#33 at norms.py */
  float v44[1];
  v44[0] = tc_shfl_xor(v40[0], (ushort)(INT64_C(2)));
  /* tilec: map#34 at norms.py */
  float v45[1];
  {
    const float v46 = v40[0];
    const float v47 = v44[0];
    /* tilec: arith#35 */
    const float v48 = (v46 + v47);
    v45[0] = v48;
  }
  /* tilec: constant#36 at norms.py */
  /* tilec: atom.call#37 at norms.py */
  float v49[1];
  v49[0] = tc_shfl_xor(v45[0], (ushort)(INT64_C(4)));
  /* tilec: map#38 at norms.py */
  float v50[1];
  {
    const float v51 = v45[0];
    const float v52 = v49[0];
    /* tilec: arith#39 */
    const float v53 = (v51 + v52);
    v50[0] = v53;
  }
  /* tilec: constant#40 at norms.py */
  /* tilec: atom.call#41 at norms.py */
  float v54[1];
  v54[0] = tc_shfl_xor(v50[0], (ushort)(INT64_C(8)));
  /* tilec: map#42 at norms.py */
  float v55[1];
  {
    const float v56 = v50[0];
    const float v57 = v54[0];
    /* tilec: arith#43 */
    const float v58 = (v56 + v57);
    v55[0] = v58;
  }
  /* tilec: constant#44 at norms.py */
  /* tilec: atom.call#45 at norms.py */
  float v59[1];
  v59[0] = tc_shfl_xor(v55[0], (ushort)(INT64_C(16)));
  /* tilec: map#46 at norms.py */
  float v60[1];
  {
    const float v61 = v55[0];
    const float v62 = v59[0];
    /* tilec: arith#47 */
    const float v63 = (v61 + v62);
    v60[0] = v63;
  }
  /* tilec: map#48 at norms.py */
  float v64[1];
  {
    const float v65 = v60[0];
    /* tilec: arith#49 */
    const float v66 = (0.0e+00f + v65);
    v64[0] = v66;
  }
  /* tilec: map#50 at norms.py */
  float v67[1];
  {
    const float v68 = v64[0];
    /* tilec: arith#51 at norms.py */
    const float v69 = (v68 / v26_n);
    v67[0] = v69;
  }
  /* tilec: constant#52 at masks.py */
  /* tilec: view#53 at masks.py */
  /* tilec: store#54 at masks.py */
  {
    const int a70 = v25_tid * 4;
    const int c71 = v25_tid * 4;
    if (c71 + 3 < 128) {
      threadgroup tc_vec16<float> *const q72 = reinterpret_cast<threadgroup tc_vec16<float> *>(v24_memory_scratch + a70);
      q72->e[0] = 1.0e+00f;
      q72->e[1] = 1.0e+00f;
      q72->e[2] = 1.0e+00f;
      q72->e[3] = 1.0e+00f;
    }
    else {
      if (c71 < 128) v24_memory_scratch[a70] = 1.0e+00f;
      if (c71 + 1 < 128) v24_memory_scratch[a70 + 1] = 1.0e+00f;
      if (c71 + 2 < 128) v24_memory_scratch[a70 + 2] = 1.0e+00f;
      if (c71 + 3 < 128) v24_memory_scratch[a70 + 3] = 1.0e+00f;
    }
  }
  /* tilec: arith#55 at masks.py */
  const int v73 = tc_imin_i32(v2_X_1, 128);
  /* tilec: arith#56 at masks.py */
  const int v74 = ((int)(128 - v73));
  /* tilec: view#57 at masks.py */
  /* tilec: atom.call#58 at masks.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: view#59 at masks.py */
  /* tilec: load#60 at masks.py */
  float v75[4];
  {
    const int a76 = (v74 + (v25_tid & 31) * 4);
    const int c77 = (v74 + (v25_tid & 31) * 4);
    if (c77 + 3 < 128 && (((a76) & 3) == 0)) {
      threadgroup const tc_vec16<float> *const q78 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v24_memory_scratch + a76);
      v75[0] = q78->e[0];
      v75[1] = q78->e[1];
      v75[2] = q78->e[2];
      v75[3] = q78->e[3];
    }
    else {
      if (c77 < 128) v75[0] = v24_memory_scratch[a76]; else v75[0] = 0.0e+00f;
      if (c77 + 1 < 128) v75[1] = v24_memory_scratch[a76 + 1]; else v75[1] = 0.0e+00f;
      if (c77 + 2 < 128) v75[2] = v24_memory_scratch[a76 + 2]; else v75[2] = 0.0e+00f;
      if (c77 + 3 < 128) v75[3] = v24_memory_scratch[a76 + 3]; else v75[3] = 0.0e+00f;
    }
  }
  /* tilec: reindex#61 at norms.py */
  float v79[4];
  v79[0] = v67[0];
  v79[1] = v67[0];
  v79[2] = v67[0];
  v79[3] = v67[0];
  /* tilec: map#62 at norms.py */
  float v80[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v81_x = v28[e];
    const float v82 = v79[e];
    const float v83 = v75[e];
    /* tilec: arith#63 at norms.py */
    const float v84 = (v81_x - v82);
    /* tilec: arith#64 at norms.py */
    const float v85 = (v84 * v83);
    v80[e] = v85;
  }
  /* tilec: map#65 at norms.py */
  float v86[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v87_xc = v80[e];
    /* tilec: arith#66 at norms.py */
    const float v88 = (v87_xc * v87_xc);
    v86[e] = v88;
  }
  /* tilec: reindex#67 at norms.py */
  float v89[4];
  v89[0] = v86[0];
  v89[1] = v86[1];
  v89[2] = v86[2];
  v89[3] = v86[3];
  /* tilec: constant#68 at norms.py */
  /* tilec: reduce#69 at norms.py */
  float v90[1];
  const float p91 = (v89[0] + v89[1]);
  const float p92 = (v89[2] + v89[3]);
  const float p93 = (p91 + p92);
  v90[0] = p93;
  /* tilec: atom.call#70 at norms.py */
  float v94[1];
  v94[0] = tc_shfl_xor(v90[0], (ushort)(INT64_C(1)));
  /* tilec: map#71 at norms.py */
  float v95[1];
  {
    const float v96 = v90[0];
    const float v97 = v94[0];
    /* tilec: arith#72 */
    const float v98 = (v96 + v97);
    v95[0] = v98;
  }
  /* tilec: atom.call#73 at norms.py */
  float v99[1];
  v99[0] = tc_shfl_xor(v95[0], (ushort)(INT64_C(2)));
  /* tilec: map#74 at norms.py */
  float v100[1];
  {
    const float v101 = v95[0];
    const float v102 = v99[0];
    /* tilec: arith#75 */
    const float v103 = (v101 + v102);
    v100[0] = v103;
  }
  /* tilec: atom.call#76 at norms.py */
  float v104[1];
  v104[0] = tc_shfl_xor(v100[0], (ushort)(INT64_C(4)));
  /* tilec: map#77 at norms.py */
  float v105[1];
  {
    const float v106 = v100[0];
    const float v107 = v104[0];
    /* tilec: arith#78 */
    const float v108 = (v106 + v107);
    v105[0] = v108;
  }
  /* tilec: atom.call#79 at norms.py */
  float v109[1];
  v109[0] = tc_shfl_xor(v105[0], (ushort)(INT64_C(8)));
  /* tilec: map#80 at norms.py */
  float v110[1];
  {
    const float v111 = v105[0];
    const float v112 = v109[0];
    /* tilec: arith#81 */
    const float v113 = (v111 + v112);
    v110[0] = v113;
  }
  /* tilec: atom.call#82 at norms.py */
  float v114[1];
  v114[0] = tc_shfl_xor(v110[0], (ushort)(INT64_C(16)));
  /* tilec: map#83 at norms.py */
  float v115[1];
  {
    const float v116 = v110[0];
    const float v117 = v114[0];
    /* tilec: arith#84 */
    const float v118 = (v116 + v117);
    v115[0] = v118;
  }
  /* tilec: map#85 at norms.py */
  float v119[1];
  {
    const float v120 = v115[0];
    /* tilec: arith#86 */
    const float v121 = (0.0e+00f + v120);
    v119[0] = v121;
  }
  /* tilec: view#87 at norms.py */
  /* tilec: view#88 at norms.py */
  /* tilec: map#89 at norms.py */
  float v122[1];
  {
    const float v123 = v119[0];
    /* tilec: arith#90 at norms.py */
    const float v124 = (v123 / v26_n);
    /* tilec: arith#91 at norms.py */
    const float v125 = (v124 + v13_eps);
    /* tilec: arith#92 at norms.py */
    const float v126 = tc_rsqrt_f32(v125);
    v122[0] = v126;
  }
  /* tilec: view#93 at norms.py */
  /* tilec: load#94 at norms.py */
  float v127[4];
  {
    const int a128 = (v25_tid & 31) * 4;
    const int c129 = (v25_tid & 31) * 4;
    if (c129 + 3 < v3_W_0_i32 && tc_al_v9_W) {
      device const tc_vec16<float> *const q130 = reinterpret_cast<device const tc_vec16<float> *>(v9_W + a128);
      v127[0] = q130->e[0];
      v127[1] = q130->e[1];
      v127[2] = q130->e[2];
      v127[3] = q130->e[3];
    }
    else {
      if (c129 < v3_W_0_i32) v127[0] = v9_W[a128]; else v127[0] = 0.0e+00f;
      if (c129 + 1 < v3_W_0_i32) v127[1] = v9_W[a128 + 1]; else v127[1] = 0.0e+00f;
      if (c129 + 2 < v3_W_0_i32) v127[2] = v9_W[a128 + 2]; else v127[2] = 0.0e+00f;
      if (c129 + 3 < v3_W_0_i32) v127[3] = v9_W[a128 + 3]; else v127[3] = 0.0e+00f;
    }
  }
  /* tilec: view#95 at norms.py */
  /* tilec: load#96 at norms.py */
  float v131[4];
  {
    const int a132 = (v25_tid & 31) * 4;
    const int c133 = (v25_tid & 31) * 4;
    if (c133 + 3 < v4_B_0_i32 && tc_al_v10_B) {
      device const tc_vec16<float> *const q134 = reinterpret_cast<device const tc_vec16<float> *>(v10_B + a132);
      v131[0] = q134->e[0];
      v131[1] = q134->e[1];
      v131[2] = q134->e[2];
      v131[3] = q134->e[3];
    }
    else {
      if (c133 < v4_B_0_i32) v131[0] = v10_B[a132]; else v131[0] = 0.0e+00f;
      if (c133 + 1 < v4_B_0_i32) v131[1] = v10_B[a132 + 1]; else v131[1] = 0.0e+00f;
      if (c133 + 2 < v4_B_0_i32) v131[2] = v10_B[a132 + 2]; else v131[2] = 0.0e+00f;
      if (c133 + 3 < v4_B_0_i32) v131[3] = v10_B[a132 + 3]; else v131[3] = 0.0e+00f;
    }
  }
  /* tilec: reindex#97 at norms.py */
  float v135[4];
  v135[0] = v122[0];
  v135[1] = v122[0];
  v135[2] = v122[0];
  v135[3] = v122[0];
  /* tilec: map#98 at norms.py */
  float v136[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v137_xc = v80[e];
    const float v138 = v135[e];
    const float v139 = v127[e];
    const float v140 = v131[e];
    /* tilec: arith#99 at norms.py */
    const float v141 = (v137_xc * v138);
    /* tilec: arith#100 at norms.py */
    const float v142 = (v141 * v139);
    /* tilec: arith#101 at norms.py */
    const float v143 = (v142 + v140);
    v136[e] = v143;
  }
  /* tilec: view#102 at norms.py */
  /* tilec: view#103 at norms.py */
  /* tilec: store#104 at norms.py */
  {
    const int64_t a144 = (int64_t)(v27 + (v25_tid >> 5)) * v11_Y_s12 + (v25_tid & 31) * 4;
    const int lim145 = tc_sat32(v5_Y_0 - v27);
    const int c146 = (v25_tid >> 5);
    const int c147 = (v25_tid & 31) * 4;
    if (c146 < lim145 && c147 + 3 < v6_Y_1_i32 && (tc_al_v11_Y && (((a144) & 3) == 0))) {
      device tc_vec16<float> *const q148 = reinterpret_cast<device tc_vec16<float> *>(v11_Y + a144);
      q148->e[0] = v136[0];
      q148->e[1] = v136[1];
      q148->e[2] = v136[2];
      q148->e[3] = v136[3];
    }
    else {
      if (c146 < lim145 && c147 < v6_Y_1_i32) v11_Y[a144] = v136[0];
      if (c146 < lim145 && c147 + 1 < v6_Y_1_i32) v11_Y[a144 + 1] = v136[1];
      if (c146 < lim145 && c147 + 2 < v6_Y_1_i32) v11_Y[a144 + 2] = v136[2];
      if (c146 < lim145 && c147 + 3 < v6_Y_1_i32) v11_Y[a144 + 3] = v136[3];
    }
  }
}
