"""The CUDA emitter on hand-written Machine TileIR: structure, golden source, analyses, errors."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from cuda_machine_ir import SAMPLES, gemm_mma_bf16

import machine_samples as shared
import tilec.ir as ir
from tilec.targets.clike import UnsupportedError
from tilec.targets.cuda.access import divisor, linear_in
from tilec.targets.cuda.emitter import CUDAEmitter, emit_cuda, kernel_name

GOLDEN = Path(__file__).parent / "golden"


def _emit(name: str):
    s = SAMPLES[name]
    return emit_cuda(s.module(), s.name)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_sample_emits_one_bounded_kernel(name: str) -> None:
    src = _emit(name)
    assert src.text.count('extern "C" __global__') == 1
    assert f"__launch_bounds__({src.threads}) {kernel_name(name)}(" in src.text
    assert "#include" not in src.text.split("#else")[1].split("#endif")[1]  # header-free
    assert ("tc_smem[]" in src.text) == (src.shared_bytes > 0)


@pytest.mark.parametrize("name", sorted(shared.MACHINE_SAMPLES))
def test_shared_machine_samples_emit(name: str) -> None:
    case = shared.SAMPLE_CASES[name]
    src = emit_cuda(shared.MACHINE_SAMPLES[name](), case.fn_name)
    assert "__launch_bounds__" in src.text


def test_golden_gemm_mma_bf16() -> None:
    """The emitted source of the small bf16 GEMM, line for line (TILEC_UPDATE_GOLDEN=1 rewrites)."""
    # operation ids are process-wide counters: the golden text numbers them from 1
    text = _renumber(_emit("gemm_mma_bf16").text)
    path = GOLDEN / "gemm_mma_bf16.cu"
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text(), "emitted CUDA changed; review and regenerate the golden file"


def _renumber(text: str) -> str:
    ids: dict[str, str] = {}
    return re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)), text)


def test_atoms_become_inline_ptx() -> None:
    gemm = _emit("gemm_smem_bf16").text
    assert gemm.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 16
    assert gemm.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 4
    assert gemm.count("cp.async.cg.shared.global") == 8
    assert "cp.async.commit_group" in gemm and "cp.async.wait_group 1" in gemm
    assert gemm.count("__syncthreads();") == 2
    # 16-bit operands: the words of packed register arrays, as ldmatrix wrote them
    assert re.search(r'"r"\(\w+\.w\[3\]\)', gemm) and '"r"(tc_pack16(' not in gemm
    assert re.search(r'"=r"\(\w+\.w\[0\]\), "=r"\(\w+\.w\[1\]\)', gemm)
    tf32 = _emit("gemm_mma_tf32").text
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in tf32
    assert '"r"(tc_tf32(' in tf32
    soft = _emit("softmax_rows").text
    assert soft.count("__shfl_xor_sync(0xffffffffu") == 10


def test_vector_accesses_where_provable() -> None:
    add = _emit("add_f32")
    assert add.stats["vector_chunks"] == 3 and add.stats["scalar_elements"] == 0
    assert "tc_vec16<float>" in add.text
    # the offset 512*p + 4*tid is a multiple of 4 elements: only the base pointer is checked
    assert "tc_al_" in add.text and not re.search(r"tc_aligned16\(\w+ \+", add.text)
    ffma = _emit("gemm_ffma_f32")  # rows of a symbolic-length matrix: a run-time check
    assert ffma.stats["vector_chunks"] == 12
    assert re.search(r"tc_aligned16\(\w+ \+", ffma.text)
    big = _emit("smem_big")  # shared memory, static offsets: unconditional 16-byte accesses
    assert big.stats["vector_chunks"] == 64 and big.shared_bytes == 65536


def test_register_arrays_are_constant_indexed() -> None:
    text = _emit("gemm_smem_bf16").text
    assert "[e]" in text  # the unrolled loops
    for line in text.splitlines():
        if "#pragma unroll" in line:
            continue
        assert "[i]" not in line or "constexpr" in text  # micro-tile loops are unrolled too


def test_host_grid_and_launch_geometry() -> None:
    add = _emit("add_f32")
    n = 5003
    values = [0, 0, 0, n]
    assert add.grid(values) == (10,)
    assert add.launch_grid((10,)) == (10, 1, 1)
    gemm = _emit("gemm_mma_bf16")
    assert gemm.grid([0, 0, 0, 45, 29, 70]) == (3, 4)
    assert gemm.launch_grid((3, 4)) == (4, 3, 1)  # last coordinate on x
    assert gemm.launch_grid((2, 3, 4, 5)) == (120, 1, 1)


def test_params_follow_tileir_convention() -> None:
    gemm = _emit("gemm_mma_bf16")
    kinds = [(p.kind, p.name, p.written) for p in gemm.params]
    assert kinds == [("mem", "A", False), ("mem", "B", False), ("mem", "C", True),
                     ("symbol", "M", False), ("symbol", "N", False), ("symbol", "K", False)]
    assert "const uint16_t *__restrict__" in gemm.text and "float *__restrict__" in gemm.text


def test_lines_map_back_to_operations() -> None:
    src = _emit("gemm_mma_bf16")
    lines = src.text.splitlines()
    k = next(i for i, line in enumerate(lines) if "mma.sync" in line) + 1
    org = src.buffer.origin_of_line(k)
    assert org is not None and org.op_name == "atom.call"
    assert f"/* tilec: atom.call#{org.op_id}" in src.text


def test_linear_forms_use_divisibility() -> None:
    # (4*s0 + 512*s1 + d0) mod 64 with d0 < 4 is linear in d0; floordiv is constant
    inner = ir.s(0) * 4 + ir.s(1) * 512 + ir.d(0)
    base, k = linear_in(inner.mod(64), (1, 1), 4)
    assert k == 1 and base == (ir.s(0) * 4 + ir.s(1) * 512).mod(64)
    base, k = linear_in(inner.floordiv(64), (1, 1), 4)
    assert k == 0
    # 2*s0 + d0: a chunk of 4 may cross a multiple of 64
    assert linear_in((ir.s(0) * 2 + ir.d(0)).mod(64), (1,), 4) is None
    # ... unless s0 is known even
    assert linear_in((ir.s(0) * 2 + ir.d(0)).mod(64), (2,), 4) is not None
    assert divisor(ir.s(0) * 6 + 12, (4,)) == 12
    assert divisor(ir.AffineExpr((), 0), ()) == 0


def test_unsupported_forms_are_located_errors() -> None:
    text = """module {
  func @k(%x: mem<4xf32, global>) -> () {form = "machine"} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb1(%p: index):
      yield()
    })
    return()
  }
}"""
    with pytest.raises(UnsupportedError, match="outside the grid parallel"):
        emit_cuda(ir.parse(text), "k")
    bad = gemm_mma_bf16.text.replace('catalog_id = "mma.m16n8k16.bf16"',
                                     'catalog_id = "mma.m16n8k16.f16"')
    with pytest.raises(UnsupportedError, match="takes f16 operands"):
        emit_cuda(ir.parse(bad), "gemm_mma_bf16")
    lanes = gemm_mma_bf16.text.replace("parallel(%c32) {level", "parallel(%c16) {level")
    with pytest.raises(UnsupportedError, match="must be the constant 32"):
        emit_cuda(ir.parse(lanes), "gemm_mma_bf16")


def test_emitter_is_a_clike_emitter() -> None:
    from tilec.targets.clike import CLikeEmitter

    assert issubclass(CUDAEmitter, CLikeEmitter)
    em = CUDAEmitter(SAMPLES["add_bf16"].module(), "add_bf16")
    assert em.reg_literal(1.0, ir.bf16) == "(uint16_t)0x3f80"
    assert em.rtype(ir.bf16) == "uint16_t" and em.ctype(ir.bf16) == "float"


def _lowered_matmul_bf16(**options):
    import ml_dtypes
    import numpy as np

    import tilec
    from tilec.lib import matmul
    from tilec.lower import LowerOptions, lower_to_machine
    from tilec.plan import PlannerOptions

    args = [np.zeros((45, 48), ml_dtypes.bfloat16), np.zeros((48, 70), ml_dtypes.bfloat16),
            np.zeros((45, 70), np.float32)]
    comp = tilec.compile(matmul, *args, target="reference", BM=32, BN=64, BK=32)
    opts = LowerOptions(planner=PlannerOptions(bounded_store=True, threads=64), **options)
    return emit_cuda(lower_to_machine(comp.module, "cuda:sm_90", opts), comp.fn_name)


def test_fragments_stay_packed_from_ldmatrix_to_mma() -> None:
    """B fragments by ldmatrix.x4.trans: each pair's words go to two mma operands as they are
    (slices copy words); staged 16-bit tiles that meet no atom stay one element a register."""
    src = _lowered_matmul_bf16().text
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in src
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in src
    pair = re.search(r'x4\.trans\.shared\.b16 \{%0, %1, %2, %3\}, \[%4\];"\n'
                     r'\s*: "=r"\((\w+)\.w\[0\]\)', src)
    assert pair, "the trans ldmatrix writes the words of a packed array"
    p = pair.group(1)
    assert re.search(rf"(\w+)\.w\[0\] = {p}\.w\[2\];\n\s*\1\.w\[1\] = {p}\.w\[3\];", src)
    assert '"r"(tc_pack16(' not in src and "& 0xffffu" not in src
    mma_operands = re.findall(r'"r"\((\w+)\.w\[\d\]\)', src)
    assert mma_operands and f"tc_b16x<8> {p};" in src
    assert re.search(r"uint16_t \w+\[\d+\];", src)  # the staging fallback's plain arrays
    off = _lowered_matmul_bf16(ldmatrix_trans=False).text
    assert ".trans" not in off and "x4.shared.b16" in off


def test_packed_and_plain_arrays_convert_element_by_element() -> None:
    from tilec.targets.cuda.forms import Regs
    from tilec.targets.cuda.tile_printers import _word_moves

    em = CUDAEmitter(SAMPLES["add_bf16"].module(), "add_bf16")
    plain = Regs("x", (4,), ir.bf16)
    packed = em.packed_regs(plain)
    assert packed.packed and em.packed_regs(packed) is packed
    other = em.declare((4,), ir.bf16, "y", packed=True)
    em.copy_regs(other, packed)
    em.copy_regs(plain, other)
    text = em.buf.getvalue()
    assert f"tc_b16x<4> {packed.name};" in text
    assert f"{packed.name}[e] = x[e];" in text  # plain -> packed: elements
    assert f"y.w[e] = {packed.name}.w[e];" in text  # packed -> packed: words
    assert "x[e] = y[e];" in text
    assert em.declare((4,), ir.f32, "z", packed=True) == Regs("z", (4,), ir.f32)  # 32-bit
    # (0, 1) <- source words; (2, 3) not aligned; (4, 5) <- (6, 7); a missing element
    assert _word_moves([0, 1, 3, 4, 6, 7, None, 2], 8) == {0: 0, 4: 3}


def test_every_catalog_atom_has_a_cuda_printer() -> None:
    """The printer table (``atom_printers.PRINTERS``) covers the Machine atom catalog exactly,
    less the Metal-only atoms (the opaque fragments ``SIMDGROUP_OPS`` and the MPP tensor
    operation ``MPP_OPS``, which only metal:m1's lowering issues): a new atom fails here
    until the CUDA target prints it."""
    from tilec.ir.atoms import CATALOG, MPP_OPS, SIMDGROUP_OPS
    from tilec.targets.cuda.atom_printers import PRINTERS

    assert set(PRINTERS) == set(CATALOG) - set(SIMDGROUP_OPS) - set(MPP_OPS)


def test_a_seed_that_is_the_identity_is_not_merged() -> None:
    """``max(-inf, x)``, ``x + -0.0`` are ``x`` bit for bit: the printer folds without the seed;
    a ``+0.0`` seed of a float sum is not the identity (``-0.0 + +0.0`` is ``+0.0``) and stays."""
    import numpy as np

    import tilec as tc

    @tc.kernel
    def rows(X, M, S):
        for p in tc.parallel(tc.cdiv(X.shape[0], 32)):
            x = X.tile((p * 32, 0), (32, 64), fill=0.0)
            M.tile((p * 32,), (32,)).store(tc.max(x, axis=1))
            S.tile((p * 32,), (32,)).store(tc.reduce(x, 1, 0.0, lambda a, b: a + b))

    args = [np.zeros((64, 64), np.float32), np.zeros(64, np.float32), np.zeros(64, np.float32)]
    src = tc.compile(rows, *args, target="cuda:sm_90").source
    assert "tc_max_f32((-(float)INFINITY)" not in src
    assert "-(float)INFINITY), " not in src.split("tc_atomic_max_f32")[-1]
    assert re.search(r"\(0x0\.0p\+0f \+ [pv]\d+\)", src), "the +0.0 seed of the sum is merged"


def test_a_cast_into_a_packed_fragment_converts_two_per_word() -> None:
    """Attention's probabilities, cast to bf16 in the registers a warpgroup instruction reads
    as A: one ``cvt.rn.bf16x2.f32`` per 32-bit word (element ``2j`` in the low half)."""
    import ml_dtypes
    import numpy as np

    import tilec as tc
    from tilec.lib.attention import flash_attention

    q = np.zeros((2, 128, 64), ml_dtypes.bfloat16)
    src = tc.compile(flash_attention, q, q, q, q.copy(), np.float32(0.1),
                     target="cuda:sm_90", BM=64, BN=64, HEAD_DIM=64).source
    lines = [ln for ln in src.splitlines() if "cvt.rn.bf16x2.f32" in ln]
    assert len(lines) == 16  # 32 probabilities per thread: 16 words
    assert re.search(r'"=r"\((\w+)\.w\[0\]\) : "f"\((\w+)\[1\]\), "f"\(\2\[0\]\)', lines[0])


def test_a_cast_to_a_16_bit_output_converts_once_two_at_a_time() -> None:
    """The cast of a warpgroup accumulator to a bf16 output (the fused epilogue's map): one
    ``cvt.rn.bf16x2.f32`` per pair into the bit-pattern registers the store reads, and an
    epilogue that casts a computed value converts it once (rounding to bf16 and then
    converting the rounded value to bits is the same single rounding)."""
    import ml_dtypes
    import numpy as np

    import tilec as tc
    from tilec.lib.matmul import gemm_bias_act, matmul

    a = np.zeros((512, 512), ml_dtypes.bfloat16)
    src = tc.compile(matmul, a, a, a.copy(), target="cuda:sm_90", BM=128, BN=256,
                     BK=64).source
    assert "tc_round_bf16(" not in src.split("extern \"C\"")[-1]
    pairs = re.findall(r'"=r"\((pair\d+)\) : "f"\((\w+)\[(\d+)\]\), "f"\(\2\[(\d+)\]\)', src)
    assert pairs and all(int(hi) == int(lo) + 1 for _, _, hi, lo in pairs)
    # each word splits into its two halves in one move (low half first), no shift or mask
    split = re.findall(r'mov\.b32 \{%0, %1\}, %2;" : "=h"\((\w+)\[(\d+)\]\), '
                       r'"=h"\(\1\[(\d+)\]\) : "r"\((pair\d+)\)', src)
    assert len(split) == len(pairs) and all(int(hi) == int(lo) + 1 for _, lo, hi, _ in split)
    assert {w for *_, w in split} == {w for w, *_ in pairs} and "& 0xffffu);" not in src
    bias = np.zeros((512,), np.float32)
    src = tc.compile(gemm_bias_act, a, a, bias, a.copy(), target="cuda:sm_90", BM=128,
                     BN=256, BK=64, ACT="gelu").source
    body = src.split("extern \"C\"")[-1]
    converted = re.findall(r"= tc_f32_to_bf16\((v\d+)\);", body)
    assert converted, "the epilogue's values are converted to bf16 bits"
    assert not [v for v in converted if f"const float {v} = tc_round_bf16(" in body]


def test_warpgroup_index_is_read_through_the_warp_number() -> None:
    """A warpgroup's index (the thread number over 128) is computed from the warp number,
    read once through a shuffle from lane 0 where every thread runs, so the descriptors of
    its shared operands are built in the uniform datapath; a kernel that never divides the
    thread number by whole warps reads no warp number."""
    import ml_dtypes
    import numpy as np

    import tilec as tc
    from tilec.lib.matmul import matmul

    a = np.zeros((512, 512), ml_dtypes.bfloat16)
    src = tc.compile(matmul, a, a, a.copy(), target="cuda:sm_90", BM=128, BN=256,
                     BK=64).source
    body = src.split("extern \"C\"")[-1]
    reads = re.findall(r"const int (\w+_tid_warp) = __shfl_sync\(0xffffffffu, "
                       r"\((\w+_tid) >> 5\), 0\);", body)
    assert len(reads) == 1 and body.count("__shfl_sync(") == 1
    warp, tid = reads[0]
    assert re.search(rf"= \({warp} >> 2\);", body), "the warpgroup index is warp / 4"
    assert f"{tid} >> 7" not in body and f"{tid} / 128" not in body
    assert body.index(f"const int {warp} =") < body.index("for (")  # before any branch
    small = tc.compile(matmul, np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32),
                       np.zeros((64, 64), np.float32), target="cuda:sm_90").source
    assert "__shfl_sync(0xffffffffu, (" not in small.split("extern \"C\"")[-1] or \
        re.search(r"_tid_warp >> |= \w+_tid_warp;", small)


def test_every_tensor_map_is_prefetched_once_before_the_body() -> None:
    """A kernel with tensor copies has one thread prefetch each of its tensor maps (a
    parameter of the kernel) before anything else runs; a kernel without them has none."""
    import ml_dtypes
    import numpy as np

    import tilec as tc
    from tilec.lib.matmul import matmul

    a = np.zeros((512, 512), ml_dtypes.bfloat16)
    body = tc.compile(matmul, a, a, a.copy(), target="cuda:sm_90", BM=128, BN=256,
                      BK=64).source.split("extern \"C\"")[-1]
    params = re.findall(r"const __grid_constant__ tc_tmap (\w+)", body)
    fetched = re.findall(r"tc_tmap_prefetch\(&(\w+)\);", body)
    assert params and sorted(fetched) == sorted(params)
    first = body.index("tc_tmap_prefetch(")
    assert "if (threadIdx.x == 0) {" in body[:first] and "for (" not in body[:first]
    f = np.zeros((64, 64), np.float32)
    plain = tc.compile(matmul, f, f, f.copy(), target="cuda:sm_90").source
    assert "tc_tmap " not in plain.split("extern \"C\"")[-1] or "tc_tmap_prefetch(&" in plain
