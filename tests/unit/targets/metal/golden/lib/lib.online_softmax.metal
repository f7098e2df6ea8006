kernel void tilec_online_softmax(
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
  /* tilec: arith#1 at softmax.py */
  const uint8_t v9_ok = (uint8_t)(v3_Y_0 == v1_X_0);
  /* tilec: arith#2 at softmax.py */
  const uint8_t v10_ok = (uint8_t)(v4_Y_1 == v2_X_1);
  /* tilec: arith#3 at softmax.py */
  const uint8_t v11_ok = (v9_ok & v10_ok);
  /* tilec: constant#4 at softmax.py */
  /* tilec: arith#5 at softmax.py */
  const int64_t v12 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v1_X_0), 4)));
  /* tilec: parallel#6 at softmax.py */
  const int v13_pm = (int)tc_group.x;
  /* tilec: constant#7 at softmax.py */
  /* tilec: parallel#8 at softmax.py */
  const int v14_tid = (int)tc_lane;
  /* tilec: constant#9 at softmax.py */
  /* tilec: constant#10 at softmax.py */
  /* tilec: constant#11 at softmax.py */
  /* tilec: constant#12 at softmax.py */
  /* tilec: constant#13 at softmax.py */
  /* tilec: arith#14 at softmax.py */
  const int64_t v15 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v2_X_1), 32)));
  /* tilec: constant#15 at softmax.py */
  /* tilec: constant#16 at softmax.py */
  /* tilec: serial#17 at softmax.py */
  float v16[1];
  v16[0] = 0.0e+00f;
  float v17[1];
  v17[0] = (-(float)INFINITY);
  for (int64_t v18 = INT64_C(0); v18 < v15; v18 += INT64_C(1)) {
    /* tilec: arith#18 at softmax.py */
    const int64_t v19 = ((int64_t)((int64_t)v13_pm * (int64_t)4));
    /* tilec: arith#19 at softmax.py */
    const int64_t v20 = ((int64_t)(v18 * (int64_t)32));
    /* tilec: view#20 at softmax.py */
    /* tilec: view#21 at softmax.py */
    /* tilec: load#22 at softmax.py */
    float v21[4];
    {
      const int64_t a22 = (int64_t)(v19 + (v14_tid >> 3)) * v5_X_s6 + (v20 + (v14_tid & 7) * 4);
      const int lim23 = tc_sat32(v1_X_0 - v19);
      const int c24 = (v14_tid >> 3);
      const int lim25 = tc_sat32(v2_X_1 - v20);
      const int c26 = (v14_tid & 7) * 4;
      if (c24 < lim23 && c26 + 3 < lim25 && (tc_al_v5_X && (((a22) & 3) == 0))) {
        device const tc_vec16<float> *const q27 = reinterpret_cast<device const tc_vec16<float> *>(v5_X + a22);
        v21[0] = q27->e[0];
        v21[1] = q27->e[1];
        v21[2] = q27->e[2];
        v21[3] = q27->e[3];
      }
      else {
        if (c24 < lim23 && c26 < lim25) v21[0] = v5_X[a22]; else v21[0] = (-(float)INFINITY);
        if (c24 < lim23 && c26 + 1 < lim25) v21[1] = v5_X[a22 + 1]; else v21[1] = (-(float)INFINITY);
        if (c24 < lim23 && c26 + 2 < lim25) v21[2] = v5_X[a22 + 2]; else v21[2] = (-(float)INFINITY);
        if (c24 < lim23 && c26 + 3 < lim25) v21[3] = v5_X[a22 + 3]; else v21[3] = (-(float)INFINITY);
      }
    }
    /* tilec: constant#23 at softmax.py */
    /* tilec: reindex#24 at softmax.py */
    float v28[4];
    v28[0] = v21[0];
    v28[1] = v21[1];
    v28[2] = v21[2];
    v28[3] = v21[3];
    /* tilec: constant#25 at softmax.py */
    /* tilec: reduce#26 at softmax.py */
    float v29[1];
    const float p30 = tc_max_f32(v28[0], v28[1]);
    const float p31 = tc_max_f32(v28[2], v28[3]);
    const float p32 = tc_max_f32(p30, p31);
    v29[0] = p32;
    /* tilec: constant#27 at softmax.py */
    /* tilec: atom.call#28 at softmax.py */
    float v33[1];
    v33[0] = tc_shfl_xor(v29[0], (ushort)(INT64_C(1)));
    /* tilec: map#29 at softmax.py */
    float v34[1];
    {
      const float v35 = v29[0];
      const float v36 = v33[0];
      /* tilec: arith#30 */
      const float v37 = tc_max_f32(v35, v36);
      v34[0] = v37;
    }
    /* tilec: constant#31 at softmax.py */
    /* tilec: atom.call#32 at softmax.py */
    float v38[1];
    v38[0] = tc_shfl_xor(v34[0], (ushort)(INT64_C(2)));
    /* tilec: map#33 at softmax.py */
    float v39[1];
    {
      const float v40 = v34[0];
      const float v41 = v38[0];
      /* tilec: arith#34 */
      const float v42 = tc_max_f32(v40, v41);
      v39[0] = v42;
    }
    /* tilec: constant#35 at softmax.py */
    /* tilec: atom.call#36 at softmax.py */
    float v43[1];
    v43[0] = tc_shfl_xor(v39[0], (ushort)(INT64_C(4)));
    /* tilec: map#37 at softmax.py */
    float v44[1];
    {
      const float v45 = v39[0];
      const float v46 = v43[0];
      /* tilec: arith#38 */
      const float v47 = tc_max_f32(v45, v46);
      v44[0] = v47;
    }
    /* tilec: map#39 at softmax.py */
    float v48[1];
    {
      const float v49_m = v17[0];
      const float v50 = v44[0];
      /* tilec: arith#40 at softmax.py */
      const float v51 = tc_max_f32(v49_m, v50);
      v48[0] = v51;
    }
    /* tilec: reindex#41 at softmax.py */
    float v52[4];
    v52[0] = v48[0];
    v52[1] = v48[0];
    v52[2] = v48[0];
    v52[3] = v48[0];
    /* tilec: map#42 at softmax.py */
    float v53[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v54_x = v21[e];
      const float v55 = v52[e];
      /* tilec: arith#43 at softmax.py */
      const float v56 = (v54_x - v55);
      /* tilec: arith#44 at softmax.py */
      const float v57 = tc_exp_f32(v56);
      v53[e] = v57;
    }
    /* tilec: constant#45 at softmax.py */
    /* tilec: reindex#46 at softmax.py */
    float v58[4];
    v58[0] = v53[0];
    v58[1] = v53[1];
    v58[2] = v53[2];
    v58[3] = v53[3];
    /* tilec: constant#47 at softmax.py */
    /* tilec: reduce#48 at softmax.py */
    float v59[1];
    const float p60 = (v58[0] + v58[1]);
    const float p61 = (v58[2] + v58[3]);
    const float p62 = (p60 + p61);
    v59[0] = p62;
    /* tilec: atom.call#49 at softmax.py */
    float v63[1];
    v63[0] = tc_shfl_xor(v59[0], (ushort)(INT64_C(1)));
    /* tilec: map#50 at softmax.py */
    float v64[1];
    {
      const float v65 = v59[0];
      const float v66 = v63[0];
      /* tilec: arith#51 */
      const float v67 = (v65 + v66);
      v64[0] = v67;
    }
    /* tilec: atom.call#52 at softmax.py */
    float v68[1];
    v68[0] = tc_shfl_xor(v64[0], (ushort)(INT64_C(2)));
    /* tilec: map#53 at softmax.py */
    float v69[1];
    {
      const float v70 = v64[0];
      const float v71 = v68[0];
      /* tilec: arith#54 */
      const float v72 = (v70 + v71);
      v69[0] = v72;
    }
    /* tilec: atom.call#55 at softmax.py */
    float v73[1];
    v73[0] = tc_shfl_xor(v69[0], (ushort)(INT64_C(4)));
    /* tilec: map#56 at softmax.py */
    float v74[1];
    {
      const float v75 = v69[0];
      const float v76 = v73[0];
      /* tilec: arith#57 */
      const float v77 = (v75 + v76);
      v74[0] = v77;
    }
    /* tilec: map#58 at softmax.py */
    float v78[1];
    {
      const float v79 = v74[0];
      /* tilec: arith#59 */
      const float v80 = (0.0e+00f + v79);
      v78[0] = v80;
    }
    /* tilec: map#60 at softmax.py */
    float v81[1];
    {
      const float v82_s = v16[0];
      const float v83_m = v17[0];
      const float v84_m_new = v48[0];
      const float v85 = v78[0];
      /* tilec: arith#61 at softmax.py */
      const float v86 = (v83_m - v84_m_new);
      /* tilec: arith#62 at softmax.py */
      const float v87 = tc_exp_f32(v86);
      /* tilec: arith#63 at softmax.py */
      const float v88 = (v82_s * v87);
      /* tilec: arith#64 at softmax.py */
      const float v89 = (v88 + v85);
      v81[0] = v89;
    }
    /* tilec: atom.call#65 at softmax.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v16[0] = v81[0];
    v17[0] = v48[0];
  }
  /* tilec: serial#66 at softmax.py */
  for (int64_t v90 = INT64_C(0); v90 < v15; v90 += INT64_C(1)) {
    /* tilec: arith#67 at softmax.py */
    const int64_t v91 = ((int64_t)((int64_t)v13_pm * (int64_t)4));
    /* tilec: arith#68 at softmax.py */
    const int64_t v92 = ((int64_t)(v90 * (int64_t)32));
    /* tilec: view#69 at softmax.py */
    /* tilec: view#70 at softmax.py */
    /* tilec: view#71 at softmax.py */
    /* tilec: load#72 at softmax.py */
    float v93[4];
    {
      const int64_t a94 = (int64_t)(v91 + (v14_tid * 4 >> 5)) * v5_X_s6 + (v92 + (v14_tid * 4 & 31));
      const int lim95 = tc_sat32(v1_X_0 - v91);
      const int c96 = (v14_tid * 4 >> 5);
      const int lim97 = tc_sat32(v2_X_1 - v92);
      const int c98 = (v14_tid * 4 & 31);
      if (c96 < lim95 && c98 + 3 < lim97 && (tc_al_v5_X && (((a94) & 3) == 0))) {
        device const tc_vec16<float> *const q99 = reinterpret_cast<device const tc_vec16<float> *>(v5_X + a94);
        v93[0] = q99->e[0];
        v93[1] = q99->e[1];
        v93[2] = q99->e[2];
        v93[3] = q99->e[3];
      }
      else {
        if (c96 < lim95 && c98 < lim97) v93[0] = v5_X[a94]; else v93[0] = (-(float)INFINITY);
        if (c96 < lim95 && c98 + 1 < lim97) v93[1] = v5_X[a94 + 1]; else v93[1] = (-(float)INFINITY);
        if (c96 < lim95 && c98 + 2 < lim97) v93[2] = v5_X[a94 + 2]; else v93[2] = (-(float)INFINITY);
        if (c96 < lim95 && c98 + 3 < lim97) v93[3] = v5_X[a94 + 3]; else v93[3] = (-(float)INFINITY);
      }
    }
    /* tilec: reindex#73 at softmax.py */
    float v100[4];
    v100[0] = v17[0];
    v100[1] = v17[0];
    v100[2] = v17[0];
    v100[3] = v17[0];
    /* tilec: reindex#74 at softmax.py */
    float v101[4];
    v101[0] = v16[0];
    v101[1] = v16[0];
    v101[2] = v16[0];
    v101[3] = v16[0];
    /* tilec: map#75 at softmax.py */
    float v102[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v103_x = v93[e];
      const float v104 = v100[e];
      const float v105 = v101[e];
      /* tilec: arith#76 at softmax.py */
      const float v106 = (v103_x - v104);
      /* tilec: arith#77 at softmax.py */
      const float v107 = tc_exp_f32(v106);
      /* tilec: arith#78 at softmax.py */
      const float v108 = (v107 / v105);
      v102[e] = v108;
    }
    /* tilec: view#79 at softmax.py */
    /* tilec: store#80 at softmax.py */
    {
      const int64_t a109 = (int64_t)(v91 + (v14_tid * 4 >> 5)) * v7_Y_s8 + (v92 + (v14_tid * 4 & 31));
      const int lim110 = tc_sat32(v3_Y_0 - v91);
      const int c111 = (v14_tid * 4 >> 5);
      const int lim112 = tc_sat32(v4_Y_1 - v92);
      const int c113 = (v14_tid * 4 & 31);
      if (c111 < lim110 && c113 + 3 < lim112 && (tc_al_v7_Y && (((a109) & 3) == 0))) {
        device tc_vec16<float> *const q114 = reinterpret_cast<device tc_vec16<float> *>(v7_Y + a109);
        q114->e[0] = v102[0];
        q114->e[1] = v102[1];
        q114->e[2] = v102[2];
        q114->e[3] = v102[3];
      }
      else {
        if (c111 < lim110 && c113 < lim112) v7_Y[a109] = v102[0];
        if (c111 < lim110 && c113 + 1 < lim112) v7_Y[a109 + 1] = v102[1];
        if (c111 < lim110 && c113 + 2 < lim112) v7_Y[a109 + 2] = v102[2];
        if (c111 < lim110 && c113 + 3 < lim112) v7_Y[a109 + 3] = v102[3];
      }
    }
    /* tilec: atom.call#81 at softmax.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}
