kernel void tilec_row_max_small(
    device const float *v4_X [[buffer(0)]],
    device float *v6_out [[buffer(1)]],
    constant int64_t &v1_X_0 [[buffer(2)]],
    constant int64_t &v2_X_1 [[buffer(3)]],
    constant int64_t &v3_out_0 [[buffer(4)]],
    constant uint &tc_aligned [[buffer(5)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const int64_t v4_X_s5 = v2_X_1;
  const bool tc_al_v4_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v6_out = ((tc_aligned >> 1) & 1u) != 0u;
  const int v2_X_1_i32 = (int)(v2_X_1 < INT64_C(2147483647) ? v2_X_1 : INT64_C(2147483647));
  /* tilec: constant#1 at metal_kernels.py:28:12 */
  /* tilec: arith#2 at metal_kernels.py:28:12 */
  const uint8_t v7_ok = (uint8_t)(v2_X_1_i32 <= 64);
  /* tilec: constant#3 at metal_kernels.py:29:27 */
  /* tilec: arith#4 at metal_kernels.py:29:27 */
  const int64_t v8 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 4)));
  /* tilec: parallel#5 at metal_kernels.py:29:5 */
  const int v9_pm = (int)tc_group.x;
  /* tilec: constant#6 at metal_kernels.py:29:5 */
  /* tilec: parallel#7 at metal_kernels.py:29:5 */
  const int v10_tid = (int)tc_lane;
  /* tilec: constant#8 at metal_kernels.py:29:27 */
  /* tilec: constant#9 at metal_kernels.py:29:5 */
  /* tilec: arith#10 at metal_kernels.py:30:21 */
  const int64_t v11 = ((int64_t)((int64_t)v9_pm * (int64_t)4));
  /* tilec: view#11 at metal_kernels.py:30:13 */
  /* tilec: view#12 at metal_kernels.py:31:9 */
  /* tilec: view#13 at metal_kernels.py:31:50 */
  /* tilec: load#14 at metal_kernels.py:31:50 */
  float v12[4];
  {
    const int64_t a13 = (int64_t)(v11 + (v10_tid >> 4)) * v4_X_s5 + (v10_tid & 15) * 4;
    const int lim14 = tc_sat32(v1_X_0 - v11);
    const int c15 = (v10_tid >> 4);
    const int c16 = (v10_tid & 15) * 4;
    if (c15 < lim14 && c16 + 3 < v2_X_1_i32 && (tc_al_v4_X && (((a13) & 3) == 0))) {
      device const tc_vec16<float> *const q17 = reinterpret_cast<device const tc_vec16<float> *>(v4_X + a13);
      v12[0] = q17->e[0];
      v12[1] = q17->e[1];
      v12[2] = q17->e[2];
      v12[3] = q17->e[3];
    }
    else {
      if (c15 < lim14 && c16 < v2_X_1_i32) v12[0] = v4_X[a13]; else v12[0] = (-(float)INFINITY);
      if (c15 < lim14 && c16 + 1 < v2_X_1_i32) v12[1] = v4_X[a13 + 1]; else v12[1] = (-(float)INFINITY);
      if (c15 < lim14 && c16 + 2 < v2_X_1_i32) v12[2] = v4_X[a13 + 2]; else v12[2] = (-(float)INFINITY);
      if (c15 < lim14 && c16 + 3 < v2_X_1_i32) v12[3] = v4_X[a13 + 3]; else v12[3] = (-(float)INFINITY);
    }
  }
  /* tilec: constant#15 at metal_kernels.py:31:43 */
  /* tilec: reindex#16 at metal_kernels.py:31:43 */
  float v18[4];
  v18[0] = v12[0];
  v18[1] = v12[1];
  v18[2] = v12[2];
  v18[3] = v12[3];
  /* tilec: constant#17 at metal_kernels.py:31:43 */
  /* tilec: reduce#18 at metal_kernels.py:31:43 */
  float v19[1];
  const float p20 = tc_max_f32(v18[0], v18[1]);
  const float p21 = tc_max_f32(v18[2], v18[3]);
  const float p22 = tc_max_f32(p20, p21);
  v19[0] = p22;
  /* tilec: constant#19 at metal_kernels.py:31:43 */
  /* tilec: atom.call#20 at metal_kernels.py:31:43 */
  float v23[1];
  v23[0] = tc_shfl_xor(v19[0], (ushort)(INT64_C(1)));
  /* tilec: map#21 at metal_kernels.py:31:43 */
  float v24[1];
  {
    const float v25 = v19[0];
    const float v26 = v23[0];
    /* tilec: arith#22 */
    const float v27 = tc_max_f32(v25, v26);
    v24[0] = v27;
  }
  /* tilec: constant#23 at metal_kernels.py:31:43 */
  /* tilec: atom.call#24 at metal_kernels.py:31:43 */
  float v28[1];
  v28[0] = tc_shfl_xor(v24[0], (ushort)(INT64_C(2)));
  /* tilec: map#25 at metal_kernels.py:31:43 */
  float v29[1];
  {
    const float v30 = v24[0];
    const float v31 = v28[0];
    /* tilec: arith#26 */
    const float v32 = tc_max_f32(v30, v31);
    v29[0] = v32;
  }
  /* tilec: constant#27 at metal_kernels.py:31:43 */
  /* tilec: atom.call#28 at metal_kernels.py:31:43 */
  float v33[1];
  v33[0] = tc_shfl_xor(v29[0], (ushort)(INT64_C(4)));
  /* tilec: map#29 at metal_kernels.py:31:43 */
  float v34[1];
  {
    const float v35 = v29[0];
    const float v36 = v33[0];
    /* tilec: arith#30 */
    const float v37 = tc_max_f32(v35, v36);
    v34[0] = v37;
  }
  /* tilec: constant#31 at metal_kernels.py:31:43 */
  /* tilec: atom.call#32 at metal_kernels.py:31:43 */
  float v38[1];
  v38[0] = tc_shfl_xor(v34[0], (ushort)(INT64_C(8)));
  /* tilec: map#33 at metal_kernels.py:31:43 */
  float v39[1];
  {
    const float v40 = v34[0];
    const float v41 = v38[0];
    /* tilec: arith#34 */
    const float v42 = tc_max_f32(v40, v41);
    v39[0] = v42;
  }
  /* tilec: constant#35 at metal_kernels.py:31:9 */
  /* tilec: arith#36 at metal_kernels.py:31:9 */
  const int v43 = (v10_tid & 15);
  /* tilec: arith#37 at metal_kernels.py:31:9 */
  const uint8_t v44 = (uint8_t)(v43 == 0);
  /* tilec: if#38 at metal_kernels.py:31:9 */
  if (v44) {
    /* tilec: view#39 at metal_kernels.py:31:9 */
    /* tilec: store#40 at metal_kernels.py:31:9 */
    {
      const int64_t c45 = (v11 + (v10_tid >> 4));
      if (c45 < v3_out_0) v6_out[(v11 + (v10_tid >> 4))] = v39[0];
    }
  }
  else {
  }
}
