kernel void tilec_row_dot(
    device const float *v6_A [[buffer(0)]],
    device const float *v8_B [[buffer(1)]],
    device float *v10_out [[buffer(2)]],
    constant int64_t &v1_A_0 [[buffer(3)]],
    constant int64_t &v2_A_1 [[buffer(4)]],
    constant int64_t &v3_B_0 [[buffer(5)]],
    constant int64_t &v4_B_1 [[buffer(6)]],
    constant int64_t &v5_out_0 [[buffer(7)]],
    constant uint &tc_aligned [[buffer(8)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  const int64_t v6_A_s7 = v2_A_1;
  const bool tc_al_v6_A = ((tc_aligned >> 0) & 1u) != 0u;
  const int64_t v8_B_s9 = v4_B_1;
  const bool tc_al_v8_B = ((tc_aligned >> 1) & 1u) != 0u;
  const bool tc_al_v10_out = ((tc_aligned >> 2) & 1u) != 0u;
  /* tilec: arith#1 at einsum.py */
  const uint8_t v11_ok = (uint8_t)(v3_B_0 == v1_A_0);
  /* tilec: arith#2 at einsum.py */
  const uint8_t v12_ok = (uint8_t)(v4_B_1 == v2_A_1);
  /* tilec: arith#3 at einsum.py */
  const uint8_t v13_ok = (v11_ok & v12_ok);
  /* tilec: arith#4 at einsum.py */
  const uint8_t v14_ok = (uint8_t)(v5_out_0 == v1_A_0);
  /* tilec: constant#5 at einsum.py */
  /* tilec: arith#6 at einsum.py */
  const int64_t v15 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_A_0), 16)));
  /* tilec: parallel#7 at einsum.py */
  const int v16_pm = (int)tc_group.x;
  /* tilec: constant#8 at einsum.py */
  /* tilec: parallel#9 at einsum.py */
  const int v17_tid = (int)tc_lane;
  /* tilec: constant#10 at einsum.py */
  /* tilec: constant#11 at einsum.py */
  /* tilec: constant#12 at einsum.py */
  /* tilec: constant#13 at einsum.py */
  /* tilec: arith#14 at einsum.py */
  const int64_t v18 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_A_1), 32)));
  /* tilec: constant#15 at einsum.py */
  /* tilec: constant#16 at einsum.py */
  /* tilec: serial#17 at einsum.py */
  float v19[1];
  v19[0] = 0.0e+00f;
  for (int64_t v20 = INT64_C(0); v20 < v18; v20 += INT64_C(1)) {
    /* tilec: arith#18 at einsum.py */
    const int64_t v21 = ((int64_t)((int64_t)v16_pm * (int64_t)16));
    /* tilec: arith#19 at einsum.py */
    const int64_t v22 = ((int64_t)(v20 * (int64_t)32));
    /* tilec: view#20 at einsum.py */
    /* tilec: view#21 at einsum.py */
    /* tilec: view#22 at einsum.py */
    /* tilec: load#23 at einsum.py */
    float v23[4];
    {
      const int64_t a24 = (int64_t)(v21 + (v17_tid >> 3)) * v6_A_s7 + (v22 + (v17_tid & 7) * 4);
      const int lim25 = tc_sat32(v1_A_0 - v21);
      const int c26 = (v17_tid >> 3);
      const int lim27 = tc_sat32(v2_A_1 - v22);
      const int c28 = (v17_tid & 7) * 4;
      if (c26 < lim25 && c28 + 3 < lim27 && (tc_al_v6_A && (((a24) & 3) == 0))) {
        device const tc_vec16<float> *const q29 = reinterpret_cast<device const tc_vec16<float> *>(v6_A + a24);
        v23[0] = q29->e[0];
        v23[1] = q29->e[1];
        v23[2] = q29->e[2];
        v23[3] = q29->e[3];
      }
      else {
        if (c26 < lim25 && c28 < lim27) v23[0] = v6_A[a24]; else v23[0] = 0.0e+00f;
        if (c26 < lim25 && c28 + 1 < lim27) v23[1] = v6_A[a24 + 1]; else v23[1] = 0.0e+00f;
        if (c26 < lim25 && c28 + 2 < lim27) v23[2] = v6_A[a24 + 2]; else v23[2] = 0.0e+00f;
        if (c26 < lim25 && c28 + 3 < lim27) v23[3] = v6_A[a24 + 3]; else v23[3] = 0.0e+00f;
      }
    }
    /* tilec: view#24 at einsum.py */
    /* tilec: load#25 at einsum.py */
    float v30[4];
    {
      const int64_t a31 = (int64_t)(v21 + (v17_tid >> 3)) * v8_B_s9 + (v22 + (v17_tid & 7) * 4);
      const int lim32 = tc_sat32(v3_B_0 - v21);
      const int c33 = (v17_tid >> 3);
      const int lim34 = tc_sat32(v4_B_1 - v22);
      const int c35 = (v17_tid & 7) * 4;
      if (c33 < lim32 && c35 + 3 < lim34 && (tc_al_v8_B && (((a31) & 3) == 0))) {
        device const tc_vec16<float> *const q36 = reinterpret_cast<device const tc_vec16<float> *>(v8_B + a31);
        v30[0] = q36->e[0];
        v30[1] = q36->e[1];
        v30[2] = q36->e[2];
        v30[3] = q36->e[3];
      }
      else {
        if (c33 < lim32 && c35 < lim34) v30[0] = v8_B[a31]; else v30[0] = 0.0e+00f;
        if (c33 < lim32 && c35 + 1 < lim34) v30[1] = v8_B[a31 + 1]; else v30[1] = 0.0e+00f;
        if (c33 < lim32 && c35 + 2 < lim34) v30[2] = v8_B[a31 + 2]; else v30[2] = 0.0e+00f;
        if (c33 < lim32 && c35 + 3 < lim34) v30[3] = v8_B[a31 + 3]; else v30[3] = 0.0e+00f;
      }
    }
    /* tilec: map#26 at einsum.py */
    float v37[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v38_a = v23[e];
      const float v39_b = v30[e];
      /* tilec: arith#27 at einsum.py */
      const float v40 = (v38_a * v39_b);
      v37[e] = v40;
    }
    /* tilec: constant#28 at einsum.py */
    /* tilec: reindex#29 at einsum.py */
    float v41[4];
    v41[0] = v37[0];
    v41[1] = v37[1];
    v41[2] = v37[2];
    v41[3] = v37[3];
    /* tilec: constant#30 at einsum.py */
    /* tilec: reduce#31 at einsum.py */
    float v42[1];
    const float p43 = (v41[0] + v41[1]);
    const float p44 = (v41[2] + v41[3]);
    const float p45 = (p43 + p44);
    v42[0] = p45;
    /* tilec: constant#32 at einsum.py */
    /* tilec: atom.call#33 at einsum.py */
    float v46[1];
    v46[0] = tc_shfl_xor(v42[0], (ushort)(INT64_C(1)));
    /* tilec: map#34 at einsum.py */
    float v47[1];
    {
      const float v48 = v42[0];
      const float v49 = v46[0];
      /* tilec: arith#35 */
      const float v50 = (v48 + v49);
      v47[0] = v50;
    }
    /* tilec: constant#36 at einsum.py */
    /* tilec: atom.call#37 at einsum.py */
    float v51[1];
    v51[0] = tc_shfl_xor(v47[0], (ushort)(INT64_C(2)));
    /* tilec: map#38 at einsum.py */
    float v52[1];
    {
      const float v53 = v47[0];
      const float v54 = v51[0];
      /* tilec: arith#39 */
      const float v55 = (v53 + v54);
      v52[0] = v55;
    }
    /* tilec: constant#40 at einsum.py */
    /* tilec: atom.call#41 at einsum.py */
    float v56[1];
    v56[0] = tc_shfl_xor(v52[0], (ushort)(INT64_C(4)));
    /* tilec: map#42 at einsum.py */
    float v57[1];
    {
      const float v58 = v52[0];
      const float v59 = v56[0];
      /* tilec: arith#43 */
      const float v60 = (v58 + v59);
      v57[0] = v60;
    }
    /* tilec: map#44 at einsum.py */
    float v61[1];
    {
      const float v62 = v57[0];
      /* tilec: arith#45 */
      const float v63 = (0.0e+00f + v62);
      v61[0] = v63;
    }
    /* tilec: map#46 at einsum.py */
    float v64[1];
    {
      const float v65_acc = v19[0];
      const float v66 = v61[0];
      /* tilec: arith#47 at einsum.py */
      const float v67 = (v65_acc + v66);
      v64[0] = v67;
    }
    /* tilec: atom.call#48 at einsum.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v19[0] = v64[0];
  }
  /* tilec: arith#49 at einsum.py */
  const int64_t v68 = ((int64_t)((int64_t)v16_pm * (int64_t)16));
  /* tilec: view#50 at einsum.py */
  /* tilec: constant#51 at einsum.py */
  /* tilec: arith#52 at einsum.py */
  const int v69 = (v17_tid & 7);
  /* tilec: arith#53 at einsum.py */
  const uint8_t v70 = (uint8_t)(v69 == 0);
  /* tilec: if#54 at einsum.py */
  if (v70) {
    /* tilec: view#55 at einsum.py */
    /* tilec: store#56 at einsum.py */
    {
      const int64_t c71 = (v68 + (v17_tid >> 3));
      if (c71 < v5_out_0) v10_out[(v68 + (v17_tid >> 3))] = v19[0];
    }
  }
  else {
  }
}
