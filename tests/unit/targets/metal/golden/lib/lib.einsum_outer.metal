kernel void tilec_outer(
    device const float *v5_x [[buffer(0)]],
    device const float *v6_y [[buffer(1)]],
    device float *v7_Z [[buffer(2)]],
    constant int64_t &v1_x_0 [[buffer(3)]],
    constant int64_t &v2_y_0 [[buffer(4)]],
    constant int64_t &v3_Z_0 [[buffer(5)]],
    constant int64_t &v4_Z_1 [[buffer(6)]],
    constant uint &tc_aligned [[buffer(7)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const bool tc_al_v5_x = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v6_y = ((tc_aligned >> 1) & 1u) != 0u;
  const int64_t v7_Z_s8 = v4_Z_1;
  const bool tc_al_v7_Z = ((tc_aligned >> 2) & 1u) != 0u;
  const int v1_x_0_i32 = (int)(v1_x_0 < INT64_C(2147483647) ? v1_x_0 : INT64_C(2147483647));
  const int v3_Z_0_i32 = (int)(v3_Z_0 < INT64_C(2147483647) ? v3_Z_0 : INT64_C(2147483647));
  /* tilec: arith#1 at einsum.py */
  const uint8_t v9_ok = (uint8_t)(v3_Z_0 == v1_x_0);
  /* tilec: arith#2 at einsum.py */
  const uint8_t v10_ok = (uint8_t)(v4_Z_1 == v2_y_0);
  /* tilec: arith#3 at einsum.py */
  const uint8_t v11_ok = (v9_ok & v10_ok);
  /* tilec: constant#4 at einsum.py */
  /* tilec: arith#5 at einsum.py */
  const int64_t v12 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_x_0), 32)));
  /* tilec: arith#6 at einsum.py */
  const int64_t v13 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_y_0), 32)));
  /* tilec: parallel#7 at einsum.py */
  const int v14_pm = (int)tc_group.y;
  const int v15_pn = (int)tc_group.x;
  /* tilec: constant#8 at einsum.py */
  /* tilec: parallel#9 at einsum.py */
  const int v16_tid = (int)tc_lane;
  /* tilec: constant#10 at einsum.py */
  /* tilec: constant#11 at einsum.py */
  /* tilec: arith#12 at einsum.py */
  const int v17 = ((int)(v14_pm * 32));
  /* tilec: view#13 at einsum.py */
  /* tilec: arith#14 at einsum.py */
  const int64_t v18 = ((int64_t)((int64_t)v15_pn * (int64_t)32));
  /* tilec: view#15 at einsum.py */
  /* tilec: view#16 at einsum.py */
  /* tilec: view#17 at einsum.py */
  /* tilec: load#18 at einsum.py */
  float v19[1];
  {
    const int c20 = (v17 + (v16_tid * 4 >> 5));
    if (c20 < v1_x_0_i32) v19[0] = v5_x[(v17 + (v16_tid * 4 >> 5))]; else v19[0] = 0.0e+00f;
  }
  /* tilec: view#19 at einsum.py */
  /* tilec: load#20 at einsum.py */
  float v21[4];
  {
    const int64_t a22 = (v18 + (v16_tid * 4 & 31));
    const int lim23 = tc_sat32(v2_y_0 - v18);
    const int c24 = (v16_tid * 4 & 31);
    if (c24 + 3 < lim23 && (tc_al_v6_y && (((a22) & 3) == 0))) {
      device const tc_vec16<float> *const q25 = reinterpret_cast<device const tc_vec16<float> *>(v6_y + a22);
      v21[0] = q25->e[0];
      v21[1] = q25->e[1];
      v21[2] = q25->e[2];
      v21[3] = q25->e[3];
    }
    else {
      if (c24 < lim23) v21[0] = v6_y[a22]; else v21[0] = 0.0e+00f;
      if (c24 + 1 < lim23) v21[1] = v6_y[a22 + 1]; else v21[1] = 0.0e+00f;
      if (c24 + 2 < lim23) v21[2] = v6_y[a22 + 2]; else v21[2] = 0.0e+00f;
      if (c24 + 3 < lim23) v21[3] = v6_y[a22 + 3]; else v21[3] = 0.0e+00f;
    }
  }
  /* tilec: reindex#21 at einsum.py */
  float v26[4];
  v26[0] = v19[0];
  v26[1] = v19[0];
  v26[2] = v19[0];
  v26[3] = v19[0];
  /* tilec: map#22 at einsum.py */
  float v27[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v28 = v26[e];
    const float v29 = v21[e];
    /* tilec: arith#23 at einsum.py */
    const float v30 = (v28 * v29);
    v27[e] = v30;
  }
  /* tilec: view#24 at einsum.py */
  /* tilec: store#25 at einsum.py */
  {
    const int64_t a31 = (int64_t)(v17 + (v16_tid * 4 >> 5)) * v7_Z_s8 + (v18 + (v16_tid * 4 & 31));
    const int c32 = (v17 + (v16_tid * 4 >> 5));
    const int lim33 = tc_sat32(v4_Z_1 - v18);
    const int c34 = (v16_tid * 4 & 31);
    if (c32 < v3_Z_0_i32 && c34 + 3 < lim33 && (tc_al_v7_Z && (((a31) & 3) == 0))) {
      device tc_vec16<float> *const q35 = reinterpret_cast<device tc_vec16<float> *>(v7_Z + a31);
      q35->e[0] = v27[0];
      q35->e[1] = v27[1];
      q35->e[2] = v27[2];
      q35->e[3] = v27[3];
    }
    else {
      if (c32 < v3_Z_0_i32 && c34 < lim33) v7_Z[a31] = v27[0];
      if (c32 < v3_Z_0_i32 && c34 + 1 < lim33) v7_Z[a31 + 1] = v27[1];
      if (c32 < v3_Z_0_i32 && c34 + 2 < lim33) v7_Z[a31 + 2] = v27[2];
      if (c32 < v3_Z_0_i32 && c34 + 3 < lim33) v7_Z[a31 + 3] = v27[3];
    }
  }
}
