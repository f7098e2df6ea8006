kernel void tilec_rmsnorm(
    device const float *v6_X [[buffer(0)]],
    device const float *v8_W [[buffer(1)]],
    device float *v9_Y [[buffer(2)]],
    constant float &v11_eps [[buffer(3)]],
    constant int64_t &v1_X_0 [[buffer(4)]],
    constant int64_t &v2_X_1 [[buffer(5)]],
    constant int64_t &v3_W_0 [[buffer(6)]],
    constant int64_t &v4_Y_0 [[buffer(7)]],
    constant int64_t &v5_Y_1 [[buffer(8)]],
    constant uint &tc_aligned [[buffer(9)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const int64_t v6_X_s7 = v2_X_1;
  const bool tc_al_v6_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v8_W = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v9_Y_s10 = v5_Y_1;
  const bool tc_al_v9_Y = ((tc_aligned >> 2) & 1u) != 0u;
  const int v2_X_1_i32 = (int)(v2_X_1 < INT64_C(2147483647) ? v2_X_1 : INT64_C(2147483647));
  const int v3_W_0_i32 = (int)(v3_W_0 < INT64_C(2147483647) ? v3_W_0 : INT64_C(2147483647));
  const int v5_Y_1_i32 = (int)(v5_Y_1 < INT64_C(2147483647) ? v5_Y_1 : INT64_C(2147483647));
  /* tilec: constant#1 at norms.py */
  /* tilec: arith#2 at norms.py */
  const uint8_t v12_ok = (uint8_t)(v2_X_1_i32 <= 128);
  /* tilec: arith#3 at norms.py */
  const uint8_t v13_ok = (uint8_t)(v3_W_0 == v2_X_1);
  /* tilec: arith#4 at norms.py */
  const uint8_t v14_ok = (uint8_t)(v4_Y_0 == v1_X_0);
  /* tilec: arith#5 at norms.py */
  const uint8_t v15_ok = (uint8_t)(v5_Y_1 == v2_X_1);
  /* tilec: arith#6 at norms.py */
  const uint8_t v16_ok = (v14_ok & v15_ok);
  /* tilec: arith#7 at norms.py */
  const float v17_n = ((float)v2_X_1);
  /* tilec: constant#8 at norms.py */
  /* tilec: arith#9 at norms.py */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 4)));
  /* tilec: parallel#10 at norms.py */
  const int v19_pm = (int)tc_group.x;
  /* tilec: constant#11 at norms.py */
  /* tilec: parallel#12 at norms.py */
  const int v20_tid = (int)tc_lane;
  /* tilec: constant#13 at norms.py */
  /* tilec: arith#14 at norms.py */
  const float v21_n = ((float)v2_X_1);
  /* tilec: constant#15 at norms.py */
  /* tilec: arith#16 at norms.py */
  const int64_t v22 = ((int64_t)((int64_t)v19_pm * (int64_t)4));
  /* tilec: view#17 at norms.py */
  /* tilec: view#18 at norms.py */
  /* tilec: load#19 at norms.py */
  float v23[4];
  {
    const int64_t a24 = (int64_t)(v22 + (v20_tid >> 5)) * v6_X_s7 + (v20_tid & 31) * 4;
    const int lim25 = tc_sat32(v1_X_0 - v22);
    const int c26 = (v20_tid >> 5);
    const int c27 = (v20_tid & 31) * 4;
    if (c26 < lim25 && c27 + 3 < v2_X_1_i32 && (tc_al_v6_X && (((a24) & 3) == 0))) {
      device const tc_vec16<float> *const q28 = reinterpret_cast<device const tc_vec16<float> *>(v6_X + a24);
      v23[0] = q28->e[0];
      v23[1] = q28->e[1];
      v23[2] = q28->e[2];
      v23[3] = q28->e[3];
    }
    else {
      if (c26 < lim25 && c27 < v2_X_1_i32) v23[0] = v6_X[a24]; else v23[0] = 0.0e+00f;
      if (c26 < lim25 && c27 + 1 < v2_X_1_i32) v23[1] = v6_X[a24 + 1]; else v23[1] = 0.0e+00f;
      if (c26 < lim25 && c27 + 2 < v2_X_1_i32) v23[2] = v6_X[a24 + 2]; else v23[2] = 0.0e+00f;
      if (c26 < lim25 && c27 + 3 < v2_X_1_i32) v23[3] = v6_X[a24 + 3]; else v23[3] = 0.0e+00f;
    }
  }
  /* tilec: map#20 at norms.py */
  float v29[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v30_x = v23[e];
    /* tilec: arith#21 at norms.py */
    const float v31 = (v30_x * v30_x);
    v29[e] = v31;
  }
  /* tilec: constant#22 at norms.py */
  /* tilec: reindex#23 at norms.py */
  float v32[4];
  v32[0] = v29[0];
  v32[1] = v29[1];
  v32[2] = v29[2];
  v32[3] = v29[3];
  /* tilec: constant#24 at norms.py */
  /* tilec: reduce#25 at norms.py */
  float v33[1];
  const float p34 = (v32[0] + v32[1]);
  const float p35 = (v32[2] + v32[3]);
  const float p36 = (p34 + p35);
  v33[0] = p36;
  /* tilec: constant#26 at norms.py */
  /* tilec: atom.call#27 at norms.py */
  float v37[1];
  v37[0] = tc_shfl_xor(v33[0], (ushort)(INT64_C(1)));
  /* tilec: map#28 at norms.py */
  float v38[1];
  {
    const float v39 = v33[0];
    const float v40 = v37[0];
    /* tilec: arith#29 */
    const float v41 = (v39 + v40);
    v38[0] = v41;
  }
  /* tilec: constant#30 at norms.py */
  /* tilec: atom.call#31 at norms.py */
  float v42[1];
  v42[0] = tc_shfl_xor(v38[0], (ushort)(INT64_C(2)));
  /* tilec: map#32 at norms.py */
  float v43[1];
  {
    const float v44 = v38[0];
    const float v45 = v42[0];
    /* tilec: arith#33 */
    const float v46 = (v44 + v45);
    v43[0] = v46;
  }
  /* tilec: constant#34 at norms.py */
  /* tilec: atom.call#35 at norms.py */
  float v47[1];
  v47[0] = tc_shfl_xor(v43[0], (ushort)(INT64_C(4)));
  /* tilec: map#36 at norms.py */
  float v48[1];
  {
    const float v49 = v43[0];
    const float v50 = v47[0];
    /* tilec: arith#37 */
    const float v51 = (v49 + v50);
    v48[0] = v51;
  }
  /* tilec: constant#38 at norms.py */
  /* tilec: atom.call#39 at norms.py */
  float v52[1];
  v52[0] = tc_shfl_xor(v48[0], (ushort)(INT64_C(8)));
  /* tilec: map#40 at norms.py */
  float v53[1];
  {
    const float v54 = v48[0];
    const float v55 = v52[0];
    /* tilec: arith#41 */
    const float v56 = (v54 + v55);
    v53[0] = v56;
  }
  /* tilec: constant#42 at norms.py */
  /* tilec: atom.call#43 at norms.py */
  float v57[1];
  v57[0] = tc_shfl_xor(v53[0], (ushort)(INT64_C(16)));
  /* tilec: map#44 at norms.py */
  float v58[1];
  {
    const float v59 = v53[0];
    const float v60 = v57[0];
    /* tilec: arith#45 */
    const float v61 = (v59 + v60);
    v58[0] = v61;
  }
  /* tilec: map#46 at norms.py */
  float v62[1];
  {
    const float v63 = v58[0];
    /* tilec: arith#47 */
    const float v64 = (0.0e+00f + v63);
    v62[0] = v64;
  }
  /* tilec: map#48 at norms.py */
  float v65[1];
  {
    const float v66 = v62[0];
    /* tilec: arith#49 at norms.py */
    const float v67 = (v66 / v21_n);
    /* tilec: arith#50 at norms.py */
    const float v68 = (v67 + v11_eps);
    /* tilec: arith#51 at norms.py */
    const float v69 = tc_rsqrt_f32(v68);
    v65[0] = v69;
  }
  /* tilec: view#52 at norms.py */
  /* tilec: view#53 at norms.py */
  /* tilec: view#54 at norms.py */
  /* tilec: load#55 at norms.py */
  float v70[4];
  {
    const int a71 = (v20_tid & 31) * 4;
    const int c72 = (v20_tid & 31) * 4;
    if (c72 + 3 < v3_W_0_i32 && tc_al_v8_W) {
      device const tc_vec16<float> *const q73 = reinterpret_cast<device const tc_vec16<float> *>(v8_W + a71);
      v70[0] = q73->e[0];
      v70[1] = q73->e[1];
      v70[2] = q73->e[2];
      v70[3] = q73->e[3];
    }
    else {
      if (c72 < v3_W_0_i32) v70[0] = v8_W[a71]; else v70[0] = 0.0e+00f;
      if (c72 + 1 < v3_W_0_i32) v70[1] = v8_W[a71 + 1]; else v70[1] = 0.0e+00f;
      if (c72 + 2 < v3_W_0_i32) v70[2] = v8_W[a71 + 2]; else v70[2] = 0.0e+00f;
      if (c72 + 3 < v3_W_0_i32) v70[3] = v8_W[a71 + 3]; else v70[3] = 0.0e+00f;
    }
  }
  /* tilec: reindex#56 at norms.py */
  float v74[4];
  v74[0] = v65[0];
  v74[1] = v65[0];
  v74[2] = v65[0];
  v74[3] = v65[0];
  /* tilec: map#57 at norms.py */
  float v75[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v76_x = v23[e];
    const float v77 = v74[e];
    const float v78 = v70[e];
    /* tilec: arith#58 at norms.py */
    const float v79 = (v76_x * v77);
    /* tilec: arith#59 at norms.py */
    const float v80 = (v79 * v78);
    v75[e] = v80;
  }
  /* tilec: view#60 at norms.py */
  /* tilec: store#61 at norms.py */
  {
    const int64_t a81 = (int64_t)(v22 + (v20_tid >> 5)) * v9_Y_s10 + (v20_tid & 31) * 4;
    const int lim82 = tc_sat32(v4_Y_0 - v22);
    const int c83 = (v20_tid >> 5);
    const int c84 = (v20_tid & 31) * 4;
    if (c83 < lim82 && c84 + 3 < v5_Y_1_i32 && (tc_al_v9_Y && (((a81) & 3) == 0))) {
      device tc_vec16<float> *const q85 = reinterpret_cast<device tc_vec16<float> *>(v9_Y + a81);
      q85->e[0] = v75[0];
      q85->e[1] = v75[1];
      q85->e[2] = v75[2];
      q85->e[3] = v75[3];
    }
    else {
      if (c83 < lim82 && c84 < v5_Y_1_i32) v9_Y[a81] = v75[0];
      if (c83 < lim82 && c84 + 1 < v5_Y_1_i32) v9_Y[a81 + 1] = v75[1];
      if (c83 < lim82 && c84 + 2 < v5_Y_1_i32) v9_Y[a81 + 2] = v75[2];
      if (c83 < lim82 && c84 + 3 < v5_Y_1_i32) v9_Y[a81 + 3] = v75[3];
    }
  }
}
