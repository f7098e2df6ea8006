kernel void tilec_row_mean_strict(
    device const float *v4_X [[buffer(0)]],
    device float *v6_out [[buffer(1)]],
    constant int64_t &v1_X_0 [[buffer(2)]],
    constant int64_t &v2_X_1 [[buffer(3)]],
    constant int64_t &v3_out_0 [[buffer(4)]],
    constant uint &tc_aligned [[buffer(5)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[256];  /* 4096 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v4_X_s5 = v2_X_1;
  const bool tc_al_v4_X = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v6_out = ((tc_aligned >> 1) & 1u) != 0u;
  const int v2_X_1_i32 = (int)(v2_X_1 < INT64_C(2147483647) ? v2_X_1 : INT64_C(2147483647));
  /* tilec: constant#1 at reductions.py */
  /* tilec: arith#2 at reductions.py */
  const uint8_t v7_ok = (uint8_t)(v2_X_1_i32 <= 128);
  /* tilec: arith#3 at reductions.py */
  const uint8_t v8_ok = (uint8_t)(v3_out_0 == v1_X_0);
  /* tilec: constant#4 at reductions.py */
  /* tilec: arith#5 at reductions.py */
  const int64_t v9 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 8)));
  /* tilec: parallel#6 at reductions.py */
  const int v10_pm = (int)tc_group.x;
  /* tilec: constant#7 at reductions.py */
  /* tilec: memory#8 at reductions.py */
  threadgroup float *const v11_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 4096 bytes */
  /* tilec: parallel#9 at reductions.py */
  const int v12_tid = (int)tc_lane;
  /* tilec: constant#10 at reductions.py */
  /* tilec: constant#11 at reductions.py */
  /* tilec: arith#12 at reductions.py */
  const int64_t v13 = ((int64_t)((int64_t)v10_pm * (int64_t)8));
  /* tilec: view#13 at reductions.py */
  /* tilec: view#14 at reductions.py */
  /* tilec: load#15 at reductions.py */
  float v14[4];
  {
    const int64_t a15 = (int64_t)(v13 + (v12_tid * 4 >> 7)) * v4_X_s5 + (v12_tid * 4 & 127);
    const int lim16 = tc_sat32(v1_X_0 - v13);
    const int c17 = (v12_tid * 4 >> 7);
    const int c18 = (v12_tid * 4 & 127);
    if (c17 < lim16 && c18 + 3 < v2_X_1_i32 && (tc_al_v4_X && (((a15) & 3) == 0))) {
      device const tc_vec16<float> *const q19 = reinterpret_cast<device const tc_vec16<float> *>(v4_X + a15);
      v14[0] = q19->e[0];
      v14[1] = q19->e[1];
      v14[2] = q19->e[2];
      v14[3] = q19->e[3];
    }
    else {
      if (c17 < lim16 && c18 < v2_X_1_i32) v14[0] = v4_X[a15]; else v14[0] = 0.0e+00f;
      if (c17 < lim16 && c18 + 1 < v2_X_1_i32) v14[1] = v4_X[a15 + 1]; else v14[1] = 0.0e+00f;
      if (c17 < lim16 && c18 + 2 < v2_X_1_i32) v14[2] = v4_X[a15 + 2]; else v14[2] = 0.0e+00f;
      if (c17 < lim16 && c18 + 3 < v2_X_1_i32) v14[3] = v4_X[a15 + 3]; else v14[3] = 0.0e+00f;
    }
  }
  /* tilec: constant#16 at reductions.py */
  /* tilec: view#17 at reductions.py */
  /* tilec: view#18 at reductions.py */
  /* tilec: store#19 at reductions.py */
  {
    const int a20 = ((v12_tid * 4 >> 7) * 128 + (v12_tid * 4 & 127));
    if ((((a20) & 3) == 0)) {
      threadgroup tc_vec16<float> *const q21 = reinterpret_cast<threadgroup tc_vec16<float> *>(v11_scratch_f32 + a20);
      q21->e[0] = v14[0];
      q21->e[1] = v14[1];
      q21->e[2] = v14[2];
      q21->e[3] = v14[3];
    }
    else {
      v11_scratch_f32[a20] = v14[0];
      v11_scratch_f32[a20 + 1] = v14[1];
      v11_scratch_f32[a20 + 2] = v14[2];
      v11_scratch_f32[a20 + 3] = v14[3];
    }
  }
  /* tilec: atom.call#20 at reductions.py */
  threadgroup_barrier(mem_flags::mem_threadgroup);
  /* tilec: map#21 at reductions.py */
  float v22[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    v22[e] = 0.0e+00f;
  }
  /* tilec: constant#22 at reductions.py */
  /* tilec: constant#23 at reductions.py */
  /* tilec: serial#24 at reductions.py */
  float v23[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v23[e] = v22[e];
  for (int v24 = 0; v24 < 128; v24 += 1) {
    /* tilec: view#25 at reductions.py */
    /* tilec: load#26 at reductions.py */
    float v25[4];
    {
      const int c26 = v12_tid * 4;
      if (c26 < 8) v25[0] = v11_scratch_f32[(v24 + v12_tid * 512)]; else v25[0] = ((float)NAN);
    }
    {
      const int c27 = (v12_tid * 4 + 1);
      if (c27 < 8) v25[1] = v11_scratch_f32[((v24 + v12_tid * 512) + 128)]; else v25[1] = ((float)NAN);
    }
    {
      const int c28 = (v12_tid * 4 + 2);
      if (c28 < 8) v25[2] = v11_scratch_f32[((v24 + v12_tid * 512) + 256)]; else v25[2] = ((float)NAN);
    }
    {
      const int c29 = (v12_tid * 4 + 3);
      if (c29 < 8) v25[3] = v11_scratch_f32[((v24 + v12_tid * 512) + 384)]; else v25[3] = ((float)NAN);
    }
    /* tilec: map#27 at reductions.py */
    float v30[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v31_acc = v23[e];
      const float v32_x = v25[e];
      /* tilec: arith#28 at reductions.py */
      const float v33 = (v31_acc + v32_x);
      v30[e] = v33;
    }
    #pragma unroll
    for (int e = 0; e < 4; ++e) v23[e] = v30[e];
  }
  /* tilec: view#29 at reductions.py */
  /* tilec: arith#30 at reductions.py */
  const float v34 = ((float)v2_X_1);
  /* tilec: map#31 at reductions.py */
  float v35[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v36_total = v23[e];
    /* tilec: arith#32 at reductions.py */
    const float v37 = (v36_total / v34);
    v35[e] = v37;
  }
  /* tilec: view#33 at reductions.py */
  /* tilec: store#34 at reductions.py */
  {
    const int64_t a38 = (v13 + v12_tid * 4);
    const int lim39 = tc_sat32(v3_out_0 - v13);
    const int c40 = v12_tid * 4;
    const int c41 = v12_tid * 4;
    if (c40 + 3 < lim39 && c41 + 3 < 8 && tc_al_v6_out) {
      device tc_vec16<float> *const q42 = reinterpret_cast<device tc_vec16<float> *>(v6_out + a38);
      q42->e[0] = v35[0];
      q42->e[1] = v35[1];
      q42->e[2] = v35[2];
      q42->e[3] = v35[3];
    }
    else {
      if (c40 < lim39 && c41 < 8) v6_out[a38] = v35[0];
      if (c40 + 1 < lim39 && c41 + 1 < 8) v6_out[a38 + 1] = v35[1];
      if (c40 + 2 < lim39 && c41 + 2 < 8) v6_out[a38 + 2] = v35[2];
      if (c40 + 3 < lim39 && c41 + 3 < 8) v6_out[a38 + 3] = v35[3];
    }
  }
}
