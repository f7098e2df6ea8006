kernel void tilec_scale_add(
    device const float *v3_X [[buffer(0)]],
    device float *v4_Y [[buffer(1)]],
    constant float &v5_a [[buffer(2)]],
    constant int64_t &v1_X_0 [[buffer(3)]],
    constant int64_t &v2_Y_0 [[buffer(4)]],
    constant uint &tc_aligned [[buffer(5)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const bool tc_al_v3_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v4_Y = ((tc_aligned >> 1) & 1u) != 0u;
  /* tilec: constant#1 at metal_kernels.py:19:26 */
  /* tilec: arith#2 at metal_kernels.py:19:26 */
  const int64_t v6 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 128)));
  /* tilec: parallel#3 at metal_kernels.py:19:5 */
  const int v7_p = (int)tc_group.x;
  /* tilec: constant#4 at metal_kernels.py:19:5 */
  /* tilec: parallel#5 at metal_kernels.py:19:5 */
  const int v8_tid = (int)tc_lane;
  /* tilec: constant#6 at metal_kernels.py:19:26 */
  /* tilec: constant#7 at metal_kernels.py:19:5 */
  /* tilec: arith#8 at metal_kernels.py:20:21 */
  const int64_t v9 = ((int64_t)((int64_t)v7_p * (int64_t)128));
  /* tilec: view#9 at metal_kernels.py:20:13 */
  /* tilec: view#10 at metal_kernels.py:21:9 */
  /* tilec: view#11 at metal_kernels.py:21:38 */
  /* tilec: load#12 at metal_kernels.py:21:38 */
  float v10[4];
  {
    const int64_t a11 = (v9 + v8_tid * 4);
    const int lim12 = tc_sat32(v1_X_0 - v9);
    const int c13 = v8_tid * 4;
    if (c13 + 3 < lim12 && tc_al_v3_X) {
      device const tc_vec16<float> *const q14 = reinterpret_cast<device const tc_vec16<float> *>(v3_X + a11);
      v10[0] = q14->e[0];
      v10[1] = q14->e[1];
      v10[2] = q14->e[2];
      v10[3] = q14->e[3];
    }
    else {
      if (c13 < lim12) v10[0] = v3_X[a11]; else v10[0] = 0.0e+00f;
      if (c13 + 1 < lim12) v10[1] = v3_X[a11 + 1]; else v10[1] = 0.0e+00f;
      if (c13 + 2 < lim12) v10[2] = v3_X[a11 + 2]; else v10[2] = 0.0e+00f;
      if (c13 + 3 < lim12) v10[3] = v3_X[a11 + 3]; else v10[3] = 0.0e+00f;
    }
  }
  /* tilec: map#13 at metal_kernels.py:21:9 */
  float v15[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v16_x = v10[e];
    /* tilec: arith#14 at metal_kernels.py:21:9 */
    const float v17 = (v16_x * v5_a);
    /* tilec: constant#15 at metal_kernels.py:21:9 */
    /* tilec: arith#16 at metal_kernels.py:21:9 */
    const float v18 = (v17 + 1.0e+00f);
    v15[e] = v18;
  }
  /* tilec: view#17 at metal_kernels.py:21:9 */
  /* tilec: store#18 at metal_kernels.py:21:9 */
  {
    const int64_t a19 = (v9 + v8_tid * 4);
    const int lim20 = tc_sat32(v2_Y_0 - v9);
    const int c21 = v8_tid * 4;
    if (c21 + 3 < lim20 && tc_al_v4_Y) {
      device tc_vec16<float> *const q22 = reinterpret_cast<device tc_vec16<float> *>(v4_Y + a19);
      q22->e[0] = v15[0];
      q22->e[1] = v15[1];
      q22->e[2] = v15[2];
      q22->e[3] = v15[3];
    }
    else {
      if (c21 < lim20) v4_Y[a19] = v15[0];
      if (c21 + 1 < lim20) v4_Y[a19 + 1] = v15[1];
      if (c21 + 2 < lim20) v4_Y[a19 + 2] = v15[2];
      if (c21 + 3 < lim20) v4_Y[a19 + 3] = v15[3];
    }
  }
}
