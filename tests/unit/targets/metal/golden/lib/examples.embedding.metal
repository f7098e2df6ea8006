kernel void tilec_embed_mean(
    device const float *v7_E [[buffer(0)]],
    device const int32_t *v9_ids [[buffer(1)]],
    device const int32_t *v10_CU [[buffer(2)]],
    device float *v11_Out [[buffer(3)]],
    constant int64_t &v1_E_0 [[buffer(4)]],
    constant int64_t &v2_E_1 [[buffer(5)]],
    constant int64_t &v3_ids_0 [[buffer(6)]],
    constant int64_t &v4_CU_0 [[buffer(7)]],
    constant int64_t &v5_Out_0 [[buffer(8)]],
    constant int64_t &v6_Out_1 [[buffer(9)]],
    constant uint &tc_aligned [[buffer(10)]],
    uint3 tc_group [[threadgroup_position_in_grid]],
    uint tc_lane [[thread_index_in_threadgroup]])
{
  threadgroup uint4 tc_smem4[64];  /* 1024 bytes */
  threadgroup uchar *const tc_smem = reinterpret_cast<threadgroup uchar *>(tc_smem4);
  const int64_t v7_E_s8 = v2_E_1;
  const bool tc_al_v7_E = ((tc_aligned >> 0) & 1u) != 0u;
  const bool tc_al_v9_ids = ((tc_aligned >> 1) & 1u) != 0u;
  const bool tc_al_v10_CU = ((tc_aligned >> 2) & 1u) != 0u;
  const int64_t v11_Out_s12 = v6_Out_1;
  const bool tc_al_v11_Out = ((tc_aligned >> 3) & 1u) != 0u;
  const int v2_E_1_i32 = (int)(v2_E_1 < INT64_C(2147483647) ? v2_E_1 : INT64_C(2147483647));
  const int v4_CU_0_i32 = (int)(v4_CU_0 < INT64_C(2147483647) ? v4_CU_0 : INT64_C(2147483647));
  const int v6_Out_1_i32 = (int)(v6_Out_1 < INT64_C(2147483647) ? v6_Out_1 : INT64_C(2147483647));
  /* tilec: constant#1 at embedding.py */
  /* tilec: arith#2 at embedding.py */
  const uint8_t v13_ok = (uint8_t)(v2_E_1_i32 == 32);
  /* tilec: parallel#3 at embedding.py */
  const int v14_b = (int)tc_group.x;
  /* tilec: constant#4 at embedding.py */
  /* tilec: memory#5 at embedding.py */
  threadgroup float *const v15_scratch_f32 = reinterpret_cast<threadgroup float *>(tc_smem + 0);  /* 1024 bytes */
  /* tilec: parallel#6 at embedding.py */
  const int v16_tid = (int)tc_lane;
  /* tilec: constant#7 at embedding.py */
  /* tilec: view#8 at embedding.py */
  /* tilec: load_scalar#9 at embedding.py */
  int32_t e17 = 0;
  {
    const int c18 = v14_b;
    if (c18 < v4_CU_0_i32) e17 = v10_CU[v14_b];
  }
  const int32_t v19_CU = e17;
  /* tilec: constant#10 at embedding.py */
  /* tilec: arith#11 at embedding.py */
  const int v20 = ((int)(v14_b + 1));
  /* tilec: view#12 at embedding.py */
  /* tilec: load_scalar#13 at embedding.py */
  int32_t e21 = 0;
  {
    const int c22 = v20;
    if (c22 < v4_CU_0) e21 = v10_CU[v20];
  }
  const int32_t v23_CU = e21;
  /* tilec: arith#14 at embedding.py */
  const int32_t v24_n = ((int32_t)((uint32_t)v23_CU - (uint32_t)v19_CU));
  /* tilec: constant#15 at embedding.py */
  /* tilec: constant#16 at embedding.py */
  /* tilec: arith#17 at embedding.py */
  const int v25 = ((int64_t)v23_CU);
  /* tilec: arith#18 at embedding.py */
  const int v26 = ((int64_t)v19_CU);
  /* tilec: arith#19 at embedding.py */
  const int64_t v27 = ((int64_t)((int64_t)v25 - (int64_t)v26));
  /* tilec: constant#20 at embedding.py */
  /* tilec: arith#21 at embedding.py */
  const int v28 = ((int64_t)(-(int64_t)tc_floordiv_i64((int64_t)(-v27), 8)));
  /* tilec: serial#22 at embedding.py */
  float v29[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) v29[e] = 0.0e+00f;
  for (int v30 = 0; v30 < v28; v30 += 1) {
    /* tilec: arith#23 at embedding.py */
    const int64_t v31 = ((int64_t)((int64_t)v30 * (int64_t)8));
    /* tilec: arith#24 at embedding.py */
    const int64_t v32 = ((int64_t)((int64_t)v26 + v31));
    /* tilec: view#25 at embedding.py */
    /* tilec: iota#26 at embedding.py */
    int32_t v33[1];
    v33[0] = ((int32_t)(int64_t)((v16_tid * 4 >> 5)));
    /* tilec: view#27 at embedding.py */
    /* tilec: load#28 at embedding.py */
    int32_t v34[1];
    {
      const int64_t c35 = (v32 + (v16_tid * 4 >> 5));
      if (c35 >= 0 && c35 < v3_ids_0) v34[0] = v9_ids[(v32 + (v16_tid * 4 >> 5))]; else v34[0] = ((int32_t)-1);
    }
    /* tilec: map#29 at embedding.py */
    int32_t v36[1];
    {
      const int32_t v37 = v33[0];
      const int32_t v38_t = v34[0];
      /* tilec: arith#30 at embedding.py */
      const int32_t v39 = ((int32_t)v31);
      /* tilec: arith#31 at embedding.py */
      const int32_t v40 = ((int32_t)((uint32_t)v37 + (uint32_t)v39));
      /* tilec: arith#32 at embedding.py */
      const uint8_t v41 = (uint8_t)(v40 < v24_n);
      /* tilec: constant#33 at embedding.py */
      /* tilec: arith#34 at embedding.py */
      const int32_t v42 = (v41 ? v38_t : (-1));
      v36[0] = v42;
    }
    /* tilec: reindex#35 at embedding.py */
    int32_t v43[4];
    v43[0] = v36[0];
    v43[1] = v36[0];
    v43[2] = v36[0];
    v43[3] = v36[0];
    /* tilec: gather#36 at embedding.py */
    float v44[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v44[e] = 0.0e+00f;
    {
      {
        const int c45 = (int64_t)v43[0];
        const int c46 = (v16_tid * 4 & 31);
        if (c45 >= 0 && c45 < v1_E_0 && c46 < v2_E_1_i32) v44[0] = v7_E[(int64_t)((int64_t)v43[0]) * v7_E_s8 + (v16_tid * 4 & 31)];
      }
    }
    {
      {
        const int c47 = (int64_t)v43[1];
        const int c48 = ((v16_tid * 4 + 1) & 31);
        if (c47 >= 0 && c47 < v1_E_0 && c48 < v2_E_1_i32) v44[1] = v7_E[(int64_t)((int64_t)v43[1]) * v7_E_s8 + ((v16_tid * 4 + 1) & 31)];
      }
    }
    {
      {
        const int c49 = (int64_t)v43[2];
        const int c50 = ((v16_tid * 4 + 2) & 31);
        if (c49 >= 0 && c49 < v1_E_0 && c50 < v2_E_1_i32) v44[2] = v7_E[(int64_t)((int64_t)v43[2]) * v7_E_s8 + ((v16_tid * 4 + 2) & 31)];
      }
    }
    {
      {
        const int c51 = (int64_t)v43[3];
        const int c52 = ((v16_tid * 4 + 3) & 31);
        if (c51 >= 0 && c51 < v1_E_0 && c52 < v2_E_1_i32) v44[3] = v7_E[(int64_t)((int64_t)v43[3]) * v7_E_s8 + ((v16_tid * 4 + 3) & 31)];
      }
    }
    /* tilec: constant#37 at embedding.py */
    /* tilec: view#38 at embedding.py */
    /* tilec: view#39 at embedding.py */
    /* tilec: store#40 at embedding.py */
    {
      const int a53 = ((v16_tid * 4 >> 5) * 32 + (v16_tid * 4 & 31));
      if ((((a53) & 3) == 0)) {
        threadgroup tc_vec16<float> *const q54 = reinterpret_cast<threadgroup tc_vec16<float> *>(v15_scratch_f32 + a53);
        q54->e[0] = v44[0];
        q54->e[1] = v44[1];
        q54->e[2] = v44[2];
        q54->e[3] = v44[3];
      }
      else {
        v15_scratch_f32[a53] = v44[0];
        v15_scratch_f32[a53 + 1] = v44[1];
        v15_scratch_f32[a53 + 2] = v44[2];
        v15_scratch_f32[a53 + 3] = v44[3];
      }
    }
    /* tilec: atom.call#41 at embedding.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    /* tilec: map#42 at embedding.py */
    float v55[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      v55[e] = 0.0e+00f;
    }
    /* tilec: constant#43 at embedding.py */
    /* tilec: constant#44 at embedding.py */
    /* tilec: serial#45 at embedding.py */
    float v56[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) v56[e] = v55[e];
    for (int v57 = 0; v57 < 8; v57 += 1) {
      /* tilec: view#46 at embedding.py */
      /* tilec: load#47 at embedding.py */
      float v58[4];
      {
        const int a59 = (v57 * 32 + v16_tid * 4);
        const int c60 = v16_tid * 4;
        if (c60 + 3 < 32) {
          threadgroup const tc_vec16<float> *const q61 = reinterpret_cast<threadgroup const tc_vec16<float> *>(v15_scratch_f32 + a59);
          v58[0] = q61->e[0];
          v58[1] = q61->e[1];
          v58[2] = q61->e[2];
          v58[3] = q61->e[3];
        }
        else {
          if (c60 < 32) v58[0] = v15_scratch_f32[a59]; else v58[0] = ((float)NAN);
          if (c60 + 1 < 32) v58[1] = v15_scratch_f32[a59 + 1]; else v58[1] = ((float)NAN);
          if (c60 + 2 < 32) v58[2] = v15_scratch_f32[a59 + 2]; else v58[2] = ((float)NAN);
          if (c60 + 3 < 32) v58[3] = v15_scratch_f32[a59 + 3]; else v58[3] = ((float)NAN);
        }
      }
      /* tilec: map#48 at embedding.py */
      float v62[4];
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v63_acc = v56[e];
        const float v64_rows = v58[e];
        /* tilec: arith#49 at embedding.py */
        const float v65 = (v63_acc + v64_rows);
        v62[e] = v65;
      }
      #pragma unroll
      for (int e = 0; e < 4; ++e) v56[e] = v62[e];
    }
    /* tilec: map#50 at embedding.py */
    float v66[4];
    #pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v67_acc = v29[e];
      const float v68 = v56[e];
      /* tilec: arith#51 at embedding.py */
      const float v69 = (v67_acc + v68);
      v66[e] = v69;
    }
    /* tilec: atom.call#52 at embedding.py */
    threadgroup_barrier(mem_flags::mem_threadgroup);
    #pragma unroll
    for (int e = 0; e < 4; ++e) v29[e] = v66[e];
  }
  /* tilec: view#53 at embedding.py */
  /* tilec: constant#54 at embedding.py */
  /* tilec: arith#55 at embedding.py */
  const int32_t v70 = tc_imax_i32(v24_n, 1);
  /* tilec: arith#56 at embedding.py */
  const float v71 = ((float)v70);
  /* tilec: map#57 at embedding.py */
  float v72[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v73_acc = v29[e];
    /* tilec: arith#58 at embedding.py */
    const float v74 = (v73_acc / v71);
    v72[e] = v74;
  }
  /* tilec: view#59 at embedding.py */
  /* tilec: store#60 at embedding.py */
  {
    const int64_t a75 = (int64_t)((int64_t)v14_b + (v16_tid * 4 >> 5)) * v11_Out_s12 + (v16_tid * 4 & 31);
    const int64_t c76 = ((int64_t)v14_b + (v16_tid * 4 >> 5));
    const int c77 = (v16_tid * 4 & 31);
    const int c78 = (v16_tid * 4 >> 5);
    const int c79 = (v16_tid * 4 & 31);
    if (c76 < v5_Out_0 && c77 + 3 < v6_Out_1_i32 && c78 < 1 && c79 + 3 < 32 && (tc_al_v11_Out && (((a75) & 3) == 0))) {
      device tc_vec16<float> *const q80 = reinterpret_cast<device tc_vec16<float> *>(v11_Out + a75);
      q80->e[0] = v72[0];
      q80->e[1] = v72[1];
      q80->e[2] = v72[2];
      q80->e[3] = v72[3];
    }
    else {
      if (c76 < v5_Out_0 && c77 < v6_Out_1_i32 && c78 < 1) v11_Out[a75] = v72[0];
      if (c76 < v5_Out_0 && c77 + 1 < v6_Out_1_i32 && c78 < 1 && c79 + 1 < 32) v11_Out[a75 + 1] = v72[1];
      if (c76 < v5_Out_0 && c77 + 2 < v6_Out_1_i32 && c78 < 1 && c79 + 2 < 32) v11_Out[a75 + 2] = v72[2];
      if (c76 < v5_Out_0 && c77 + 3 < v6_Out_1_i32 && c78 < 1 && c79 + 3 < 32) v11_Out[a75 + 3] = v72[3];
    }
  }
}
