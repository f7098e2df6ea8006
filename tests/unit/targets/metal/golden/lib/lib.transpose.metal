kernel void tilec_transpose(
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
  const int v1_X_0_i32 = (int)(v1_X_0 < INT64_C(2147483647) ? v1_X_0 : INT64_C(2147483647));
  const int v4_Y_1_i32 = (int)(v4_Y_1 < INT64_C(2147483647) ? v4_Y_1 : INT64_C(2147483647));
  /* tilec: arith#1 at transpose.py */
  const uint8_t v9_ok = (uint8_t)(v3_Y_0 == v2_X_1);
  /* tilec: arith#2 at transpose.py */
  const uint8_t v10_ok = (uint8_t)(v4_Y_1 == v1_X_0);
  /* tilec: arith#3 at transpose.py */
  const uint8_t v11_ok = (v9_ok & v10_ok);
  /* tilec: constant#4 at transpose.py */
  /* tilec: arith#5 at transpose.py */
  const int64_t v12 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 32)));
  /* tilec: arith#6 at transpose.py */
  const int64_t v13 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_X_1), 32)));
  /* tilec: parallel#7 at transpose.py */
  const int v14_pm = (int)tc_group.y;
  const int v15_pn = (int)tc_group.x;
  /* tilec: constant#8 at transpose.py */
  /* tilec: parallel#9 at transpose.py */
  const int v16_tid = (int)tc_lane;
  /* tilec: constant#10 at transpose.py */
  /* tilec: constant#11 at transpose.py */
  /* tilec: arith#12 at transpose.py */
  const int v17 = ((int)(v14_pm * 32));
  /* tilec: arith#13 at transpose.py */
  const int64_t v18 = ((int64_t)((int64_t)v15_pn * (int64_t)32));
  /* tilec: view#14 at transpose.py */
  /* tilec: view#15 at transpose.py */
  /* tilec: view#16 at transpose.py */
  /* tilec: load#17 at transpose.py */
  float v19[4];
  {
    const int c20 = (v17 + (v16_tid * 4 & 31));
    const int64_t c21 = (v18 + (v16_tid * 4 >> 5));
    if (c20 < v1_X_0_i32 && c21 < v2_X_1) v19[0] = v5_X[(int64_t)(v17 + (v16_tid * 4 & 31)) * v5_X_s6 + (v18 + (v16_tid * 4 >> 5))]; else v19[0] = 0.0e+00f;
  }
  {
    const int c22 = (v17 + ((v16_tid * 4 + 1) & 31));
    const int64_t c23 = (v18 + ((v16_tid * 4 + 1) >> 5));
    if (c22 < v1_X_0_i32 && c23 < v2_X_1) v19[1] = v5_X[(int64_t)(v17 + ((v16_tid * 4 + 1) & 31)) * v5_X_s6 + (v18 + ((v16_tid * 4 + 1) >> 5))]; else v19[1] = 0.0e+00f;
  }
  {
    const int c24 = (v17 + ((v16_tid * 4 + 2) & 31));
    const int64_t c25 = (v18 + ((v16_tid * 4 + 2) >> 5));
    if (c24 < v1_X_0_i32 && c25 < v2_X_1) v19[2] = v5_X[(int64_t)(v17 + ((v16_tid * 4 + 2) & 31)) * v5_X_s6 + (v18 + ((v16_tid * 4 + 2) >> 5))]; else v19[2] = 0.0e+00f;
  }
  {
    const int c26 = (v17 + ((v16_tid * 4 + 3) & 31));
    const int64_t c27 = (v18 + ((v16_tid * 4 + 3) >> 5));
    if (c26 < v1_X_0_i32 && c27 < v2_X_1) v19[3] = v5_X[(int64_t)(v17 + ((v16_tid * 4 + 3) & 31)) * v5_X_s6 + (v18 + ((v16_tid * 4 + 3) >> 5))]; else v19[3] = 0.0e+00f;
  }
  /* tilec: view#18 at transpose.py */
  /* tilec: store#19 at transpose.py */
  {
    const int64_t a28 = (int64_t)(v18 + (v16_tid * 4 >> 5)) * v7_Y_s8 + (v17 + (v16_tid * 4 & 31));
    const int lim29 = tc_sat32(v3_Y_0 - v18);
    const int c30 = (v16_tid * 4 >> 5);
    const int c31 = (v17 + (v16_tid * 4 & 31));
    if (c30 < lim29 && c31 + 3 < v4_Y_1_i32 && (tc_al_v7_Y && (((a28) & 3) == 0))) {
      device tc_vec16<float> *const q32 = reinterpret_cast<device tc_vec16<float> *>(v7_Y + a28);
      q32->e[0] = v19[0];
      q32->e[1] = v19[1];
      q32->e[2] = v19[2];
      q32->e[3] = v19[3];
    }
    else {
      if (c30 < lim29 && c31 < v4_Y_1_i32) v7_Y[a28] = v19[0];
      if (c30 < lim29 && c31 + 1 < v4_Y_1_i32) v7_Y[a28 + 1] = v19[1];
      if (c30 < lim29 && c31 + 2 < v4_Y_1_i32) v7_Y[a28 + 2] = v19[2];
      if (c30 < lim29 && c31 + 3 < v4_Y_1_i32) v7_Y[a28 + 3] = v19[3];
    }
  }
}
