kernel void tilec_int_div_tile(
    device const int32_t *v4_X [[buffer(0)]],
    device const int32_t *v5_D [[buffer(1)]],
    device int32_t *v6_Y [[buffer(2)]],
    constant int64_t &v1_X_0 [[buffer(3)]],
    constant int64_t &v2_D_0 [[buffer(4)]],
    constant int64_t &v3_Y_0 [[buffer(5)]],
    constant uint &tc_aligned [[buffer(6)]],
    device atomic_uint *tc_check [[buffer(7)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]],
    ushort tc_simd [[simdgroup_index_in_threadgroup]],
    ushort tc_simd_lane [[thread_index_in_simdgroup]])
{
  threadgroup uint tc_vote[1];
  const bool tc_al_v4_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v5_D = ((tc_aligned >> 1) & 1u) != 0u;
  const bool tc_al_v6_Y = ((tc_aligned >> 2) & 1u) != 0u;
  /* tilec: constant#1 at metal_kernels.py:37:26 */
  /* tilec: arith#2 at metal_kernels.py:37:26 */
  const int64_t v7 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 64)));
  /* tilec: parallel#3 at metal_kernels.py:37:5 */
  const int v8_p = (int)tc_group.x;
  /* tilec: constant#4 at metal_kernels.py:37:5 */
  /* tilec: parallel#5 at metal_kernels.py:37:5 */
  const int v9_tid = (int)tc_lane;
  /* tilec: constant#6 at metal_kernels.py:37:26 */
  /* tilec: constant#7 at metal_kernels.py:37:5 */
  /* tilec: arith#8 at metal_kernels.py:38:21 */
  const int64_t v10 = ((int64_t)((int64_t)v8_p * (int64_t)64));
  /* tilec: view#9 at metal_kernels.py:38:13 */
  /* tilec: view#10 at metal_kernels.py:39:13 */
  /* tilec: view#11 at metal_kernels.py:40:9 */
  /* tilec: view#12 at metal_kernels.py:40:38 */
  /* tilec: load#13 at metal_kernels.py:40:38 */
  int32_t v11[4];
  {
    const int64_t a12 = (v10 + v9_tid * 4);
    const int lim13 = tc_sat32(v1_X_0 - v10);
    const int c14 = v9_tid * 4;
    const int c15 = v9_tid * 4;
    if (c14 + 3 < lim13 && c15 + 3 < 64 && tc_al_v4_X) {
      device const tc_vec16<int32_t> *const q16 = reinterpret_cast<device const tc_vec16<int32_t> *>(v4_X + a12);
      v11[0] = q16->e[0];
      v11[1] = q16->e[1];
      v11[2] = q16->e[2];
      v11[3] = q16->e[3];
    }
    else {
      if (c14 < lim13 && c15 < 64) v11[0] = v4_X[a12]; else v11[0] = 0;
      if (c14 + 1 < lim13 && c15 + 1 < 64) v11[1] = v4_X[a12 + 1]; else v11[1] = 0;
      if (c14 + 2 < lim13 && c15 + 2 < 64) v11[2] = v4_X[a12 + 2]; else v11[2] = 0;
      if (c14 + 3 < lim13 && c15 + 3 < 64) v11[3] = v4_X[a12 + 3]; else v11[3] = 0;
    }
  }
  /* tilec: view#14 at metal_kernels.py:40:38 */
  /* tilec: load#15 at metal_kernels.py:40:38 */
  int32_t v17[4];
  {
    const int64_t a18 = (v10 + v9_tid * 4);
    const int lim19 = tc_sat32(v2_D_0 - v10);
    const int c20 = v9_tid * 4;
    const int c21 = v9_tid * 4;
    if (c20 + 3 < lim19 && c21 + 3 < 64 && tc_al_v5_D) {
      device const tc_vec16<int32_t> *const q22 = reinterpret_cast<device const tc_vec16<int32_t> *>(v5_D + a18);
      v17[0] = q22->e[0];
      v17[1] = q22->e[1];
      v17[2] = q22->e[2];
      v17[3] = q22->e[3];
    }
    else {
      if (c20 < lim19 && c21 < 64) v17[0] = v5_D[a18]; else v17[0] = 1;
      if (c20 + 1 < lim19 && c21 + 1 < 64) v17[1] = v5_D[a18 + 1]; else v17[1] = 1;
      if (c20 + 2 < lim19 && c21 + 2 < 64) v17[2] = v5_D[a18 + 2]; else v17[2] = 1;
      if (c20 + 3 < lim19 && c21 + 3 < 64) v17[3] = v5_D[a18 + 3]; else v17[3] = 1;
    }
  }
  /* tilec: constant#16 at metal_kernels.py:40:9 */
  /* tilec: reindex#17 at metal_kernels.py:40:9 */
  uint8_t splat23[1];
  splat23[0] = 1;
  uint8_t v24[4];
  v24[0] = ((v9_tid * 4 >> 6) < 1) ? splat23[(v9_tid * 4 >> 6) * 1] : 0;
  v24[1] = (((v9_tid * 4 + 1) >> 6) < 1) ? splat23[((v9_tid * 4 + 1) >> 6) * 1] : 0;
  v24[2] = (((v9_tid * 4 + 2) >> 6) < 1) ? splat23[((v9_tid * 4 + 2) >> 6) * 1] : 0;
  v24[3] = (((v9_tid * 4 + 3) >> 6) < 1) ? splat23[((v9_tid * 4 + 3) >> 6) * 1] : 0;
  /* tilec: map#18 at metal_kernels.py:40:9 */
  int32_t v25[4];
  uint8_t v26[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int32_t v27_x = v11[e];
    const int32_t v28_d = v17[e];
    const uint8_t v29_valid = v24[e];
    /* tilec: constant#19 at metal_kernels.py:40:9 */
    /* tilec: constant#20 at metal_kernels.py:40:9 */
    /* tilec: arith#21 at metal_kernels.py:40:9 */
    const uint8_t v30 = (uint8_t)(v28_d == 0);
    /* tilec: arith#22 at metal_kernels.py:40:9 */
    const int32_t v31 = (v30 ? 1 : v28_d);
    /* tilec: arith#23 at metal_kernels.py:40:9 */
    const uint8_t v32 = (v30 & v29_valid);
    /* tilec: arith#24 at metal_kernels.py:40:9 */
    const int32_t v33 = ((int32_t)tc_floordiv_i64(v27_x, v31));
    v25[e] = v33;
    v26[e] = v32;
  }
  /* tilec: atom.call#25 at metal_kernels.py:40:9 */
  const bool mine34 = simd_any((v26[0] | v26[1] | v26[2] | v26[3]) != 0);
  threadgroup_barrier(mem_flags::mem_threadgroup);  /* the last vote is read */
  if (tc_simd_lane == 0) tc_vote[tc_simd] = mine34 ? 1u : 0u;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint any35 = 0u;
  for (int s = 0; s < 1; ++s) any35 |= tc_vote[s];
  const uint8_t v36 = (uint8_t)(any35 != 0u);
  /* tilec: arith#26 at metal_kernels.py:40:9 */
  const uint8_t v37 = (v36 ^ 1);
  /* tilec: check#27 at metal_kernels.py:40:9 */
  if (!(v37)) {
    uint seen38 = 0u;
    bool won39 = false;
    while (!(won39 = atomic_compare_exchange_weak_explicit(&tc_check[0], &seen38, 1u, memory_order_relaxed, memory_order_relaxed)) && seen38 == 0u) {}
    if (won39) {
    }
    return;
  }
  /* tilec: view#28 at metal_kernels.py:40:9 */
  /* tilec: store#29 at metal_kernels.py:40:9 */
  {
    const int64_t a40 = (v10 + v9_tid * 4);
    const int lim41 = tc_sat32(v3_Y_0 - v10);
    const int c42 = v9_tid * 4;
    const int c43 = v9_tid * 4;
    if (c42 + 3 < lim41 && c43 + 3 < 64 && tc_al_v6_Y) {
      device tc_vec16<int32_t> *const q44 = reinterpret_cast<device tc_vec16<int32_t> *>(v6_Y + a40);
      q44->e[0] = v25[0];
      q44->e[1] = v25[1];
      q44->e[2] = v25[2];
      q44->e[3] = v25[3];
    }
    else {
      if (c42 < lim41 && c43 < 64) v6_Y[a40] = v25[0];
      if (c42 + 1 < lim41 && c43 + 1 < 64) v6_Y[a40 + 1] = v25[1];
      if (c42 + 2 < lim41 && c43 + 2 < 64) v6_Y[a40 + 2] = v25[2];
      if (c42 + 3 < lim41 && c43 + 3 < 64) v6_Y[a40 + 3] = v25[3];
    }
  }
}
