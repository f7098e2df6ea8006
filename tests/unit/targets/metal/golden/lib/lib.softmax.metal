kernel void tilec_softmax(
    device const float *v5_X [[buffer(0)]],
    device float *v7_Y [[buffer(1)]],
    constant int64_t &v1_X_0 [[buffer(2)]],
    constant int64_t &v2_X_1 [[buffer(3)]],
    constant int64_t &v3_Y_0 [[buffer(4)]],
    constant int64_t &v4_Y_1 [[buffer(5)]],
    constant uint &tc_aligned [[buffer(6)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const int64_t v5_X_s6 = v2_X_1;
  const bool tc_al_v5_X = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v7_Y_s8 = v4_Y_1;
  const bool tc_al_v7_Y = ((tc_aligned >> 1) & 1u) != 0u;
  const int v2_X_1_i32 = (int)(v2_X_1 < INT64_C(2147483647) ? v2_X_1 : INT64_C(2147483647));
  const int v4_Y_1_i32 = (int)(v4_Y_1 < INT64_C(2147483647) ? v4_Y_1 : INT64_C(2147483647));
  /* tilec: constant#1 at softmax.py */
  /* tilec: arith#2 at softmax.py */
  const uint8_t v9_ok = (uint8_t)(v2_X_1_i32 <= 128);
  /* tilec: arith#3 at softmax.py */
  const uint8_t v10_ok = (uint8_t)(v3_Y_0 == v1_X_0);
  /* tilec: arith#4 at softmax.py */
  const uint8_t v11_ok = (uint8_t)(v4_Y_1 == v2_X_1);
  /* tilec: arith#5 at softmax.py */
  const uint8_t v12_ok = (v10_ok & v11_ok);
  /* tilec: constant#6 at softmax.py */
  /* tilec: arith#7 at softmax.py */
  const int64_t v13 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 4)));
  /* tilec: parallel#8 at softmax.py */
  const int v14_pm = (int)tc_group.x;
  /* tilec: constant#9 at softmax.py */
  /* tilec: parallel#10 at softmax.py */
  const int v15_tid = (int)tc_lane;
  /* tilec: constant#11 at softmax.py */
  /* tilec: constant#12 at softmax.py */
  /* tilec: arith#13 at softmax.py */
  const int64_t v16 = ((int64_t)((int64_t)v14_pm * (int64_t)4));
  /* tilec: view#14 at softmax.py */
  /* tilec: view#15 at softmax.py */
  /* tilec: load#16 at softmax.py */
  float v17[4];
  {
    const int64_t a18 = (int64_t)(v16 + (v15_tid >> 5)) * v5_X_s6 + (v15_tid & 31) * 4;
    const int lim19 = tc_sat32(v1_X_0 - v16);
    const int c20 = (v15_tid >> 5);
    const int c21 = (v15_tid & 31) * 4;
    if (c20 < lim19 && c21 + 3 < v2_X_1_i32 && (tc_al_v5_X && (((a18) & 3) == 0))) {
      device const tc_vec16<float> *const q22 = reinterpret_cast<device const tc_vec16<float> *>(v5_X + a18);
      v17[0] = q22->e[0];
      v17[1] = q22->e[1];
      v17[2] = q22->e[2];
      v17[3] = q22->e[3];
    }
    else {
      if (c20 < lim19 && c21 < v2_X_1_i32) v17[0] = v5_X[a18]; else v17[0] = (-(float)INFINITY);
      if (c20 < lim19 && c21 + 1 < v2_X_1_i32) v17[1] = v5_X[a18 + 1]; else v17[1] = (-(float)INFINITY);
      if (c20 < lim19 && c21 + 2 < v2_X_1_i32) v17[2] = v5_X[a18 + 2]; else v17[2] = (-(float)INFINITY);
      if (c20 < lim19 && c21 + 3 < v2_X_1_i32) v17[3] = v5_X[a18 + 3]; else v17[3] = (-(float)INFINITY);
    }
  }
  /* tilec: constant#17 at softmax.py */
  /* tilec: reindex#18 at softmax.py */
  float v23[4];
  v23[0] = v17[0];
  v23[1] = v17[1];
  v23[2] = v17[2];
  v23[3] = v17[3];
  /* tilec: constant#19 at softmax.py */
  /* tilec: reduce#20 at softmax.py */
  float v24[1];
  const float p25 = tc_max_f32(v23[0], v23[1]);
  const float p26 = tc_max_f32(v23[2], v23[3]);
  const float p27 = tc_max_f32(p25, p26);
  v24[0] = p27;
  /* tilec: constant#21 at softmax.py */
  /* tilec: atom.call#22 at softmax.py */
  float v28[1];
  v28[0] = tc_shfl_xor(v24[0], (ushort)(INT64_C(1)));
  /* tilec: map#23 at softmax.py */
  float v29[1];
  {
    const float v30 = v24[0];
    const float v31 = v28[0];
    /* tilec: arith#24 */
    const float v32 = tc_max_f32(v30, v31);
    v29[0] = v32;
  }
  /* tilec: constant#25 at softmax.py */
  /* tilec: atom.call#26 at softmax.py */
  float v33[1];
  v33[0] = tc_shfl_xor(v29[0], (ushort)(INT64_C(2)));
  /* tilec: map#27 at softmax.py */
  float v34[1];
  {
    const float v35 = v29[0];
    const float v36 = v33[0];
    /* tilec: arith#28 */
    const float v37 = tc_max_f32(v35, v36);
    v34[0] = v37;
  }
  /* tilec: constant#29 at softmax.py */
  /* tilec: atom.call#30 at softmax.py */
  float v38[1];
  v38[0] = tc_shfl_xor(v34[0], (ushort)(INT64_C(4)));
  /* tilec: map#31 at softmax.py */
  float v39[1];
  {
    const float v40 = v34[0];
    const float v41 = v38[0];
    /* tilec: arith#32 */
    const float v42 = tc_max_f32(v40, v41);
    v39[0] = v42;
  }
  /* tilec: constant#33 at softmax.py */
  /* tilec: atom.call#34 at softmax.py */
  float v43[1];
  v43[0] = tc_shfl_xor(v39[0], (ushort)(INT64_C(8)));
  /* tilec: map#35 at softmax.py */
  float v44[1];
  {
    const float v45 = v39[0];
    const float v46 = v43[0];
    /* tilec: arith#36 */
    const float v47 = tc_max_f32(v45, v46);
    v44[0] = v47;
  }
  /* tilec: constant#37 at softmax.py */
  /* tilec: atom.call#38 at softmax.py */
  float v48[1];
  v48[0] = tc_shfl_xor(v44[0], (ushort)(INT64_C(16)));
  /* tilec: map#39 at softmax.py */
  float v49[1];
  {
    const float v50 = v44[0];
    const float v51 = v48[0];
    /* tilec: arith#40 */
    const float v52 = tc_max_f32(v50, v51);
    v49[0] = v52;
  }
  /* tilec: reindex#41 at softmax.py */
  float v53[4];
  v53[0] = v49[0];
  v53[1] = v49[0];
  v53[2] = v49[0];
  v53[3] = v49[0];
  /* tilec: map#42 at softmax.py */
  float v54[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v55_x = v17[e];
    const float v56 = v53[e];
    /* tilec: arith#43 at softmax.py */
    const float v57 = (v55_x - v56);
    /* tilec: arith#44 at softmax.py */
    const float v58 = tc_exp_f32(v57);
    v54[e] = v58;
  }
  /* tilec: view#45 at softmax.py */
  /* tilec: constant#46 at softmax.py */
  /* tilec: reindex#47 at softmax.py */
  float v59[4];
  v59[0] = v54[0];
  v59[1] = v54[1];
  v59[2] = v54[2];
  v59[3] = v54[3];
  /* tilec: constant#48 at softmax.py */
  /* tilec: reduce#49 at softmax.py */
  float v60[1];
  const float p61 = (v59[0] + v59[1]);
  const float p62 = (v59[2] + v59[3]);
  const float p63 = (p61 + p62);
  v60[0] = p63;
  /* tilec: atom.call#50 at softmax.py */
  float v64[1];
  v64[0] = tc_shfl_xor(v60[0], (ushort)(INT64_C(1)));
  /* tilec: map#51 at softmax.py */
  float v65[1];
  {
    const float v66 = v60[0];
    const float v67 = v64[0];
    /* tilec: arith#52 */
    const float v68 = (v66 + v67);
    v65[0] = v68;
  }
  /* tilec: atom.call#53 at softmax.py */
  float v69[1];
  v69[0] = tc_shfl_xor(v65[0], (ushort)(INT64_C(2)));
  /* tilec: map#54 at softmax.py */
  float v70[1];
  {
    const float v71 = v65[0];
    const float v72 = v69[0];
    /* tilec: arith#55 */
    const float v73 = (v71 + v72);
    v70[0] = v73;
  }
  /* tilec: atom.call#56 at softmax.py */
  float v74[1];
  v74[0] = tc_shfl_xor(v70[0], (ushort)(INT64_C(4)));
  /* tilec: map#57 at softmax.py */
  float v75[1];
  {
    const float v76 = v70[0];
    const float v77 = v74[0];
    /* tilec: arith#58 */
    const float v78 = (v76 + v77);
    v75[0] = v78;
  }
  /* tilec: atom.call#59 at softmax.py */
  float v79[1];
  v79[0] = tc_shfl_xor(v75[0], (ushort)(INT64_C(8)));
  /* tilec: map#60 at softmax.py */
  float v80[1];
  {
    const float v81 = v75[0];
    const float v82 = v79[0];
    /* tilec: arith#61 */
    const float v83 = (v81 + v82);
    v80[0] = v83;
  }
  /* tilec: atom.call#62 at softmax.py */
  float v84[1];
  v84[0] = tc_shfl_xor(v80[0], (ushort)(INT64_C(16)));
  /* tilec: map#63 at softmax.py */
  float v85[1];
  {
    const float v86 = v80[0];
    const float v87 = v84[0];
    /* tilec: arith#64 */
    const float v88 = (v86 + v87);
    v85[0] = v88;
  }
  /* tilec: map#65 at softmax.py */
  float v89[1];
  {
    const float v90 = v85[0];
    /* tilec: arith#66 */
    const float v91 = (0.0e+00f + v90);
    v89[0] = v91;
  }
  /* tilec: reindex#67 at softmax.py */
  float v92[4];
  v92[0] = v89[0];
  v92[1] = v89[0];
  v92[2] = v89[0];
  v92[3] = v89[0];
  /* tilec: map#68 at softmax.py */
  float v93[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v94_e = v54[e];
    const float v95 = v92[e];
    /* tilec: arith#69 at softmax.py */
    const float v96 = (v94_e / v95);
    v93[e] = v96;
  }
  /* tilec: view#70 at softmax.py */
  /* tilec: store#71 at softmax.py */
  {
    const int64_t a97 = (int64_t)(v16 + (v15_tid >> 5)) * v7_Y_s8 + (v15_tid & 31) * 4;
    const int lim98 = tc_sat32(v3_Y_0 - v16);
    const int c99 = (v15_tid >> 5);
    const int c100 = (v15_tid & 31) * 4;
    if (c99 < lim98 && c100 + 3 < v4_Y_1_i32 && (tc_al_v7_Y && (((a97) & 3) == 0))) {
      device tc_vec16<float> *const q101 = reinterpret_cast<device tc_vec16<float> *>(v7_Y + a97);
      q101->e[0] = v93[0];
      q101->e[1] = v93[1];
      q101->e[2] = v93[2];
      q101->e[3] = v93[3];
    }
    else {
      if (c99 < lim98 && c100 < v4_Y_1_i32) v7_Y[a97] = v93[0];
      if (c99 < lim98 && c100 + 1 < v4_Y_1_i32) v7_Y[a97 + 1] = v93[1];
      if (c99 < lim98 && c100 + 2 < v4_Y_1_i32) v7_Y[a97 + 2] = v93[2];
      if (c99 < lim98 && c100 + 3 < v4_Y_1_i32) v7_Y[a97 + 3] = v93[3];
    }
  }
}
