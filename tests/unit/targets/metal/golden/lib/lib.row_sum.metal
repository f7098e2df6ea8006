kernel void tilec_row_sum(
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
  /* tilec: arith#1 at reductions.py */
  const uint8_t v7_ok = (uint8_t)(v3_out_0 == v1_X_0);
  /* tilec: constant#2 at reductions.py */
  /* tilec: arith#3 at reductions.py */
  const int64_t v8 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 8)));
  /* tilec: parallel#4 at reductions.py */
  const int v9_pm = (int)tc_group.x;
  /* tilec: constant#5 at reductions.py */
  /* tilec: parallel#6 at reductions.py */
  const int v10_tid = (int)tc_lane;
  /* tilec: constant#7 at reductions.py */
  /* tilec: constant#8 at reductions.py */
  /* tilec: constant#9 at reductions.py */
  /* tilec: constant#10 at reductions.py */
  /* tilec: arith#11 at reductions.py */
  const int64_t v11 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_X_1), 32)));
  /* tilec: constant#12 at reductions.py */
  /* tilec: constant#13 at reductions.py */
  /* tilec: serial#14 at reductions.py */
  float v12[1];
  v12[0] = 0.0e+00f;
  for (int64_t v13 = INT64_C(0); v13 < v11; v13 += INT64_C(1)) {
    /* tilec: arith#15 at reductions.py */
    const int64_t v14 = ((int64_t)((int64_t)v9_pm * (int64_t)8));
    /* tilec: arith#16 at reductions.py */
    const int64_t v15 = ((int64_t)(v13 * (int64_t)32));
    /* tilec: view#17 at reductions.py */
    /* tilec: view#18 at reductions.py */
    /* tilec: load#19 at reductions.py */
    float v16[4];
    {
      const int64_t a17 = (int64_t)(v14 + (v10_tid >> 3)) * v4_X_s5 + (v15 + (v10_tid & 7) * 4);
      const int lim18 = tc_sat32(v1_X_0 - v14);
      const int c19 = (v10_tid >> 3);
      const int lim20 = tc_sat32(v2_X_1 - v15);
      const int c21 = (v10_tid & 7) * 4;
      if (c19 < lim18 && c21 + 3 < lim20 && (tc_al_v4_X && (((a17) & 3) == 0))) {
        device const tc_vec16<float> *const q22 = reinterpret_cast<device const tc_vec16<float> *>(v4_X + a17);
        v16[0] = q22->e[0];
        v16[1] = q22->e[1];
        v16[2] = q22->e[2];
        v16[3] = q22->e[3];
      }
      else {
        if (c19 < lim18 && c21 < lim20) v16[0] = v4_X[a17]; else v16[0] = 0.0e+00f;
        if (c19 < lim18 && c21 + 1 < lim20) v16[1] = v4_X[a17 + 1]; else v16[1] = 0.0e+00f;
        if (c19 < lim18 && c21 + 2 < lim20) v16[2] = v4_X[a17 + 2]; else v16[2] = 0.0e+00f;
        if (c19 < lim18 && c21 + 3 < lim20) v16[3] = v4_X[a17 + 3]; else v16[3] = 0.0e+00f;
      }
    }
    /* tilec: constant#20 at reductions.py */
    /* tilec: reindex#21 at reductions.py */
    float v23[4];
    v23[0] = v16[0];
    v23[1] = v16[1];
    v23[2] = v16[2];
    v23[3] = v16[3];
    /* tilec: constant#22 at reductions.py */
    /* tilec: reduce#23 at reductions.py */
    float v24[1];
    const float p25 = (v23[0] + v23[1]);
    const float p26 = (v23[2] + v23[3]);
    const float p27 = (p25 + p26);
    v24[0] = p27;
    /* tilec: constant#24 at reductions.py */
    /* tilec: atom.call#25 at reductions.py */
    float v28[1];
    v28[0] = tc_shfl_xor(v24[0], (ushort)(INT64_C(1)));
    /* tilec: map#26 at reductions.py */
    float v29[1];
    {
      const float v30 = v24[0];
      const float v31 = v28[0];
      /* tilec: arith#27 */
      const float v32 = (v30 + v31);
      v29[0] = v32;
    }
    /* tilec: constant#28 at reductions.py */
    /* tilec: atom.call#29 at reductions.py */
    float v33[1];
    v33[0] = tc_shfl_xor(v29[0], (ushort)(INT64_C(2)));
    /* tilec: map#30 at reductions.py */
    float v34[1];
    {
      const float v35 = v29[0];
      const float v36 = v33[0];
      /* tilec: arith#31 */
      const float v37 = (v35 + v36);
      v34[0] = v37;
    }
    /* tilec: constant#32 at reductions.py */
    /* tilec: atom.call#33 at reductions.py */
    float v38[1];
    v38[0] = tc_shfl_xor(v34[0], (ushort)(INT64_C(4)));
    /* tilec: map#34 at reductions.py */
    float v39[1];
    {
      const float v40 = v34[0];
      const float v41 = v38[0];
      /* tilec: arith#35 */
      const float v42 = (v40 + v41);
      v39[0] = v42;
    }
    /* tilec: map#36 at reductions.py */
    float v43[1];
    {
      const float v44 = v39[0];
      /* tilec: arith#37 */
      const float v45 = (0.0e+00f + v44);
      v43[0] = v45;
    }
    /* tilec: map#38 at reductions.py */
    float v46[1];
    {
      const float v47_acc = v12[0];
      const float v48 = v43[0];
      /* tilec: arith#39 at reductions.py */
      const float v49 = (v47_acc + v48);
      v46[0] = v49;
    }
    /* tilec: atom.call#40 at reductions.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v12[0] = v46[0];
  }
  /* tilec: arith#41 at reductions.py */
  const int64_t v50 = ((int64_t)((int64_t)v9_pm * (int64_t)8));
  /* tilec: view#42 at reductions.py */
  /* tilec: constant#43 at reductions.py */
  /* tilec: arith#44 at reductions.py */
  const int v51 = (v10_tid & 7);
  /* tilec: arith#45 at reductions.py */
  const uint8_t v52 = (uint8_t)(v51 == 0);
  /* tilec: if#46 at reductions.py */
  if (v52) {
    /* tilec: view#47 at reductions.py */
    /* tilec: store#48 at reductions.py */
    {
      const int64_t c53 = (v50 + (v10_tid >> 3));
      if (c53 < v3_out_0) v6_out[(v50 + (v10_tid >> 3))] = v12[0];
    }
  }
  else {
  }
}
