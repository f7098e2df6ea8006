"""Warpgroup matrix instructions (``wgmma``): plan, lowering, simulation and CUDA emission.

The planner realizes a 16-bit rectangle whose warps each own one 16-row band
(``gn = 1``, ``rm = 1``, whole warpgroups, N and K multiples of 64) with
``wgmma.m64nNk16`` on ``cuda:sm_90``; the lowering stages both operands in
128-byte swizzled shared buffers and issues one instruction per 16-wide K
step. The SIMT simulator reads the operands *through the matrix descriptor*
(start, strides, swizzle), not through the view, so a staged layout that
disagrees with the descriptor gives a wrong product here as on the GPU.
"""

from __future__ import annotations

import dataclasses
import re

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.ir as ir
import tilec.lower as lower
from tilec.lib.matmul import matmul
from tilec.lower.options import LowerOptions
from tilec.plan.options import PlannerOptions
from tilec.plan.report import plan_module
from tilec.targets.clike import UnsupportedError
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module
from tilec.targets.reference.simt_memory import Storage

NPDT = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}


def _compiled(m: int, n: int, k: int, tile: tuple[int, int, int], dtype: str = "bf16",
              seed: int = 0) -> tuple[object, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(NPDT[dtype])
    b = rng.standard_normal((k, n)).astype(NPDT[dtype])
    c = np.full((m, n), np.nan, np.float32)
    bm, bn, bk = tile
    comp = tilec.compile(matmul, a, b, c, target="reference", BM=bm, BN=bn, BK=bk)
    return comp, [a, b, c]


def _machine(comp: object, target: str = "cuda:sm_90", **opts: object) -> ir.Module:
    plain = LowerOptions(warp_specialized=False)  # the ordinary ring unless opts say
    return lower.lower_to_machine(comp.module, target,  # type: ignore[attr-defined]
                                  dataclasses.replace(plain, **opts))


def _atoms(m: ir.Module, prefix: str) -> list[ir.Operation]:
    return [op for op in m.walk() if op.name == "atom.call"
            and str(op.attr("catalog_id")).startswith(prefix)]


def _want(args: list[np.ndarray]) -> np.ndarray:
    return args[0].astype(np.float64) @ args[1].astype(np.float64)


# ------------------------------------------------------------------------------ planner


def _selected(tile: tuple[int, int, int], target: str = "cuda:sm_90") -> object:
    comp, _ = _compiled(4096, 4096, 4096, tile)
    shapes = {s: 4096 for s in ("A_0", "A_1", "B_0", "B_1", "C_0", "C_1")}
    mp = plan_module(comp.module, target, shapes=shapes)  # type: ignore[attr-defined]
    return mp.groups[0].selected.choices[0].candidate, mp


def test_planner_picks_wgmma_for_a_64_deep_bf16_tile() -> None:
    cand, _ = _selected((128, 128, 64))
    assert cand.realization == "wgmma"
    d = cand.distribution
    assert (cand.threads, d.gm, d.gn, d.rm, d.rn) == (256, 8, 1, 1, 16)
    assert cand.fragment_scalars == 64  # accumulators only: A and B stay in shared memory


def test_planner_states_why_a_32_deep_tile_has_no_wgmma() -> None:
    cand, mp = _selected((128, 128, 32))
    assert cand.realization == "rectangle"
    reasons = {r.reason for g in mp.groups for r in g.rejected if r.realization == "wgmma"}
    assert any("K = 32 must be a multiple of 64" in r for r in reasons), reasons


def test_sm80_has_no_wgmma() -> None:
    cand, _ = _selected((128, 128, 64), "cuda:sm_80")
    assert cand.realization == "rectangle"


# ----------------------------------------------------------------------------- lowering


def test_lowering_stages_swizzled_rings_and_waits_every_step() -> None:
    comp, _ = _compiled(256, 256, 256, (128, 128, 64))
    m = _machine(comp)
    rings = [op for op in m.walk() if op.name == "memory" and op.attr("swizzle")]
    assert len(rings) == 2 and all(op.attr("swizzle") == 128 for op in rings)
    assert all(op.attr("versions") == 3 for op in rings)  # the plain ring's default
    calls = _atoms(m, "wgmma.m64k16.bf16")
    assert len(calls) == 4 and {c.attr("n") for c in calls} == {128}
    assert {(c.attr("a_sbo"), c.attr("b_sbo"), c.attr("b_lbo")) for c in calls} \
        == {(1024, 1024, 64 * 128)}
    names = [str(op.attr("catalog_id")) for op in _atoms(m, "")]
    first = names.index("wgmma.fence")
    assert names[first:first + 7] == ["wgmma.fence"] + ["wgmma.m64k16.bf16"] * 4 \
        + ["wgmma.commit", "wgmma.wait"]
    # every thread waits for the version's tensor copies (its barrier's phase), then fences
    # the cp.async copies it saw land (the fallback) for the async proxy before the barrier
    at = names.index("cp.async.wait")
    assert names[at + 1:at + 3] == ["mbarrier.wait", "fence.proxy.async"]
    grid = next(op for op in m.walk() if op.name == "parallel" and op.attr("level") == "grid")
    assert grid.attr("min_groups") == 2  # 99 KB of rings and 64 accumulators: two per SM


def test_verifier_rejects_a_malformed_wgmma() -> None:
    comp, _ = _compiled(128, 128, 64, (128, 128, 64))
    m = _machine(comp)
    call = _atoms(m, "wgmma.m64k16")[0]
    call.attributes["n"] = 64  # the fragments say 128
    with pytest.raises(ir.VerificationError, match="takes two shared views and 8"):
        ir.verify(m, "machine")


# ---------------------------------------------------------------------------- simulator


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("shape,tile", [((256, 256, 192), (128, 128, 64)),
                                        ((200, 136, 200), (128, 128, 64)),
                                        ((130, 300, 70), (128, 256, 64)),
                                        ((64, 64, 128), (64, 64, 64))],
                         ids=lambda x: "x".join(map(str, x)))
def test_simulated_wgmma_plans_match_numpy(dtype: str, shape: tuple[int, int, int],
                                           tile: tuple[int, int, int]) -> None:
    comp, args = _compiled(*shape, tile, dtype, seed=sum(shape))
    m = _machine(comp)
    assert _atoms(m, "wgmma.m64k16"), "the plan realizes the mma with wgmma"
    simulate_module(m, comp.fn_name, args, verify=True)
    want = _want(args)
    assert not np.isnan(args[2]).any()
    assert np.abs(args[2] - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max()))


def test_simulator_reads_through_the_descriptor_not_the_view() -> None:
    """A B stride that disagrees with the staged layout reads other elements, and the
    product is wrong; a start that leaves the buffer is an error."""
    comp, args = _compiled(128, 256, 64, (128, 256, 64))
    m = _machine(comp)
    for c in _atoms(m, "wgmma.m64k16"):
        c.attributes["b_lbo"] = 1024  # the layout has 64-row column blocks: 8192 bytes
    simulate_module(m, comp.fn_name, args)
    assert np.abs(args[2] - _want(args)).max() > 1.0
    m2 = _machine(comp)
    for c in _atoms(m2, "wgmma.m64k16"):
        c.attributes["a_sbo"] = 1 << 17
    with pytest.raises(SimulationError, match="reaches past the buffer"):
        simulate_module(m2, comp.fn_name, args)


def test_swizzle_permutes_whole_chunks_inside_1024_byte_blocks() -> None:
    st = Storage(np.zeros(4096, ml_dtypes.bfloat16), "shared", "s", swizzle=128)
    flat = np.arange(4096)
    phys = st.physical(flat)
    assert sorted(phys.tolist()) == flat.tolist()  # a bijection
    assert (phys // 512 == flat // 512).all()  # inside each 1024-byte block
    chunks = phys.reshape(-1, 8)
    assert (np.diff(chunks, axis=1) == 1).all() and (chunks[:, 0] % 8 == 0).all()
    row3 = phys[3 * 64:4 * 64].reshape(8, 8)[:, 0] // 8 % 8  # row 3: chunk c at c ^ 3
    assert row3.tolist() == [c ^ 3 for c in range(8)]


# --------------------------------------------------------------------------------- CUDA


def test_cuda_source_issues_wgmma_for_sm90a() -> None:
    comp, _ = _compiled(4096, 4096, 4096, (128, 128, 64))
    src = emit_cuda(_machine(comp), comp.fn_name, "cuda:sm_90")  # type: ignore[attr-defined]
    assert (src.min_sm, src.arch_suffix) == (90, "a")
    text = src.text
    assert "__launch_bounds__(256, 2)" in text
    assert text.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 4
    assert "tc_wgmma_desc(" in text and "fence.proxy.async.shared::cta" in text
    assert "tc_swz128<2>(" in text  # copies into the rings go through the swizzle
    # rings, alignment slack, one 8-byte barrier per version
    assert src.shared_bytes == 3 * 2 * 128 * 64 * 2 + 1024 + 3 * 8


def test_cuda_emitter_refuses_wgmma_for_sm80() -> None:
    comp, _ = _compiled(256, 256, 256, (128, 128, 64))
    m = _machine(comp)
    # the ring's barriers come first: tensor copies need sm_90 too
    with pytest.raises(UnsupportedError, match="needs sm_90"):
        emit_cuda(m, comp.fn_name, "cuda:sm_80")  # type: ignore[attr-defined]


@pytest.mark.skipif(nvrtc_available() is not None, reason=f"NVRTC: {nvrtc_available()}")
@pytest.mark.parametrize("tile", [(128, 128, 64), (128, 256, 64)],
                         ids=lambda t: "x".join(map(str, t)))
def test_wgmma_kernel_compiles_for_sm90a_without_spills(tile: tuple[int, int, int]) -> None:
    comp, _ = _compiled(4096, 4096, 4096, tile)
    src = emit_cuda(_machine(comp), comp.fn_name, "cuda:sm_90")  # type: ignore[attr-defined]
    cub = compile_cubin(src.text, "sm_90" + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    assert cub.arch == "sm_90a"
    if cub.resources.reported:
        assert cub.resources.spill_stores == 0 and cub.resources.spill_loads == 0


def test_large_tiles_get_fewer_ring_versions_to_fit_shared_memory() -> None:
    """128x192x128: three versions would need 245 KB of the 227 KB a group may use; the
    schedule keeps two, the lowering succeeds and the product is right (128-deep K tiles span
    two swizzled column blocks of A, 192 columns three of B)."""
    comp, args = _compiled(128, 192, 256, (128, 192, 128), seed=3)
    m = _machine(comp)
    rings = [op for op in m.walk() if op.name == "memory" and op.attr("swizzle")]
    assert {op.attr("versions") for op in rings} == {2}
    calls = _atoms(m, "wgmma.m64k16")
    assert len(calls) == 8 and {c.attr("n") for c in calls} == {192}
    simulate_module(m, comp.fn_name, args)
    want = _want(args)
    assert np.abs(args[2] - want).max() <= 1e-5 * float(np.abs(want).max())


def test_unpipelined_wgmma_operands_are_fenced_for_the_async_proxy() -> None:
    """Without double buffering the operands are stored by every thread, then fenced for
    the asynchronous proxy, then a barrier, then the instructions read them."""
    comp, args = _compiled(128, 128, 128, (64, 64, 64), seed=4)
    m = _machine(comp, double_buffer=False)
    names = [str(op.attr("catalog_id")) for op in _atoms(m, "")]
    first = names.index("wgmma.fence")
    assert names[first - 2:first] == ["fence.proxy.async", "barrier.group"], names[:first + 1]
    simulate_module(m, comp.fn_name, args)
    want = _want(args)
    assert np.abs(args[2] - want).max() <= 1e-5 * float(np.abs(want).max())


def test_pipeline_loops_stage_wgmma_operands_swizzled() -> None:
    """In a ``pipeline`` the loaded tiles reach the mma through a stage hand-off; their rings
    are swizzled all the same, and the product is right."""
    from tilec.lib.matmul import pipelined_matmul

    rng = np.random.default_rng(6)
    a = rng.standard_normal((130, 200)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((200, 128)).astype(ml_dtypes.bfloat16)
    c = np.full((130, 128), np.nan, np.float32)
    comp = tilec.compile(pipelined_matmul, a, b, c, target="reference", BM=128, BN=128, BK=64)
    m = _machine(comp)
    assert _atoms(m, "wgmma.m64k16")
    assert all(op.attr("swizzle") == 128 for op in m.walk()
               if op.name == "memory" and "ring" in str(op.attr("role")))
    emit_cuda(m, comp.fn_name, "cuda:sm_90")  # type: ignore[attr-defined]
    simulate_module(m, comp.fn_name, [a, b, c])
    want = _want([a, b, c])
    assert np.abs(c - want).max() <= 1e-5 * float(np.abs(want).max())


def test_wgmma_needs_registers_beside_its_accumulators() -> None:
    """256x256x64 at 512 threads would hold 128 accumulators in 128 registers per lane (ptxas
    refuses it); the planner rejects it with the reason and plans something else."""
    comp, _ = _compiled(4096, 4096, 4096, (256, 256, 64))
    mp = plan_module(comp.module, "cuda:sm_90")  # type: ignore[attr-defined]
    sel = mp.groups[0].selected
    if sel is not None:
        cand = sel.choices[0].candidate
        assert not (cand.realization == "wgmma" and cand.threads == 512)
    reasons = [r.reason for g in mp.groups for r in g.rejected
               if r.realization == "wgmma" and r.threads == 512]
    assert any("128 accumulators + 64 other registers" in r for r in reasons), reasons


def test_planner_option_turns_wgmma_off() -> None:
    from tilec.plan.options import PlannerOptions

    comp, _ = _compiled(4096, 4096, 4096, (128, 128, 64))
    shapes = {s: 4096 for s in ("A_0", "A_1", "B_0", "B_1", "C_0", "C_1")}
    mp = plan_module(comp.module, "cuda:sm_90", PlannerOptions(warpgroup_mma=False),
                     shapes=shapes)  # type: ignore[attr-defined]
    assert mp.groups[0].selected.choices[0].candidate.realization != "wgmma"


def test_an_accumulator_from_outside_the_loop_is_not_updated_in_place() -> None:
    """``r = mma(a, b, d)`` in a loop with ``d`` loaded before it: every iteration starts from
    ``d``, so the emitted wgmma must work on a copy of ``d``'s registers."""
    import tilec as tc

    @tc.kernel
    def reuse(A, B, D, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64):
        for pm in tc.parallel(tc.cdiv(A.shape[0], BM)):
            d = D.tile((pm * BM, 0), (BM, BN), fill=0.0).load()
            a = A.tile((pm * BM, 0), (BM, 64), fill=0.0).load()
            for j in tc.serial(tc.cdiv(B.shape[1], BN)):
                b = B.tile((0, j * BN), (64, BN), fill=0.0)
                r = tc.mma(a, b, d)
                C.tile((pm * BM, j * BN), (BM, BN)).store(r)

    rng = np.random.default_rng(8)
    a = rng.standard_normal((64, 64)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((64, 192)).astype(ml_dtypes.bfloat16)
    d = rng.standard_normal((64, 64)).astype(np.float32)
    c = np.full((64, 192), np.nan, np.float32)
    comp = tilec.compile(reuse, a, b, d, c, target="reference")
    # one 64x64 group: cuda_mma_v3 gives it 16 warps of mma.sync (4 warps alone on an SM
    # do not hide latency); v2 plans the warpgroup instruction this test is about
    m = _machine(comp, planner=PlannerOptions(cost_basis="cuda_mma_v2"))
    calls = _atoms(m, "wgmma.m64k16")
    assert calls, "planned with wgmma"
    src = emit_cuda(m, comp.fn_name, "cuda:sm_90").text  # type: ignore[attr-defined]
    # the first instruction of the loop body reads d's registers through a fresh copy
    first = calls[0]
    d_val = first.operand(2)
    assert d_val.defining_op is None or d_val.defining_op.parent is not first.parent
    simulate_module(m, comp.fn_name, [a, b, d, c])
    for j in range(3):
        want = a.astype(np.float64) @ b[:, 64 * j:64 * (j + 1)].astype(np.float64) + d
        assert np.abs(c[:, 64 * j:64 * (j + 1)] - want).max() <= 1e-4
    assert src.count("wgmma.mma_async") == 4
    # the first instruction's accumulator array is declared inside the loop, not d's own
    lines = src.splitlines()
    at = next(i for i, ln in enumerate(lines) if "wgmma.mma_async" in ln)
    arr = re.search(r'"\+f"\((\w+)\[0\]\)', lines[at + 1]).group(1)
    decl = next(i for i, ln in enumerate(lines) if re.match(rf"\s*float {arr}\[4\];", ln))
    loop = max(i for i, ln in enumerate(lines[:at]) if ln.lstrip().startswith("for (int64_t"))
    assert decl > loop, (arr, decl, loop)


def test_descriptor_reuse_and_in_place_accumulators_are_decided_over_the_ir() -> None:
    """``wgmma_facts``: within one fenced group, the later K steps of an operand derive their
    descriptor from the first (a whole number of 16-byte units further on), a fence ends
    the reuse, and an accumulator defined in the block with no other use is updated in
    place; the printed kernel follows those decisions."""
    from tilec.targets.cuda.wgmma_facts import analyze_wgmma

    comp, _ = _compiled(4096, 4096, 4096, (128, 128, 64))
    m = _machine(comp)
    fn = m.lookup(comp.fn_name)  # type: ignore[attr-defined]
    facts = analyze_wgmma(fn)
    calls = _atoms(m, "wgmma.m64")
    assert len(calls) == 4  # one per 16-deep K step of the 64-deep tile
    fences = [op for op in fn.walk() if op.name == "atom.call"
              and op.attr("catalog_id") == "wgmma.fence"]
    assert fences
    for k in (0, 1):
        first = facts.descriptor_from(calls[0], k)
        assert first is None  # the group's first instruction builds both descriptors
        steps = [facts.descriptor_from(c, k) for c in calls[1:]]
        assert all(s is not None and s.op is calls[0] and s.operand == k for s in steps)
        assert len({s.step for s in steps}) == 3 and all(s.step != 0 for s in steps)
    # the chained accumulators die at the next instruction: all but the first in place
    assert [facts.updates_in_place(c, 0) for c in calls[1:]] == [True] * 3
    text = emit_cuda(m, comp.fn_name, "cuda:sm_90").text  # type: ignore[attr-defined]
    assert text.count("= tc_wgmma_desc(") == 2  # two built, six derived
    assert len(re.findall(r"= desc\w* \+ -?\d+ull;", text)) == 6


# ---------------------------------------------------------------- groups left in flight


def _loop_atoms(m: ir.Module) -> tuple[list[str], list[str], list[str]]:
    """Catalog ids before, inside and after the staged K loop (in walk order)."""
    loop = next(op for op in m.walk() if op.name == "serial"
                and any(c.name == "atom.call" and c.attr("catalog_id") == "wgmma.commit"
                        for c in op.walk()))
    inside = {id(op) for op in loop.walk()}
    before, within, after = [], [], []
    seen_loop = False
    for op in m.walk():
        if op is loop:
            seen_loop = True
        if op.name != "atom.call":
            continue
        cid = str(op.attr("catalog_id"))
        (within if id(op) in inside else after if seen_loop else before).append(cid)
    return before, within, after


def _waits(m: ir.Module) -> list[int]:
    return [op.attr("pending") for op in m.walk() if op.name == "atom.call"
            and op.attr("catalog_id") == "wgmma.wait"]


def test_a_staged_loop_leaves_one_wgmma_group_in_flight() -> None:
    """With three ring versions and the accumulators carried straight through the loop, each
    iteration waits with one group pending and the first thing after the loop with none
    (the last group), the ring is issued one
    iteration ahead instead of two, and the product is right; ``wgmma_in_flight=0`` (the
    default) gives the protocol that waits every iteration, which differs."""
    comp, args = _compiled(256, 256, 320, (128, 128, 64), seed=11)
    m = _machine(comp, wgmma_in_flight=1)
    loop = next(op for op in m.walk() if op.name == "serial" and any(
        c.name == "atom.call" and str(c.attr("catalog_id")).startswith("wgmma.m64")
        for c in op.walk()))
    before, within, after = _loop_atoms(m)
    assert before.count("cp.async.commit") == 1  # W - 1 - L = 1 iteration ahead
    assert "wgmma.wait" not in before and after[0] == "wgmma.wait"
    assert "wgmma.wait" not in after[1:]
    assert within.count("wgmma.wait") == 1
    assert _waits(m) == [1, 0]  # every iteration's, then the drain after the loop
    cp_waits = [op.attr("pending") for op in loop.walk() if op.name == "atom.call"
                and op.attr("catalog_id") == "cp.async.wait"]
    assert cp_waits == [0]
    simulate_module(m, comp.fn_name, args, verify=True)
    assert np.abs(args[2] - _want(args)).max() <= 1e-5 * float(np.abs(_want(args)).max())

    m0 = _machine(comp)
    before0, _, _ = _loop_atoms(m0)
    assert before0.count("cp.async.commit") == 2 and _waits(m0) == [0]
    args[2][:] = np.nan
    simulate_module(m0, comp.fn_name, args, verify=True)
    assert np.abs(args[2] - _want(args)).max() <= 1e-5 * float(np.abs(_want(args)).max())


def test_the_schedule_says_why_groups_cannot_stay_in_flight() -> None:
    """Two ring versions leave none to spare; an accumulator read inside the loop must be
    complete there. Both loops wait every iteration, the report says why, and the products
    are right."""
    comp, args = _compiled(128, 192, 256, (128, 192, 128), seed=3)
    m = _machine(comp, wgmma_in_flight=1)
    assert _waits(m) == [0]
    from tilec.lower.schedule import schedule_module

    _, groups = schedule_module(comp.module, "cuda:sm_90",  # type: ignore[attr-defined]
                                LowerOptions(warp_specialized=False, wgmma_in_flight=1))
    text = "\n".join(n for g in groups for n in g.notes)
    assert "2 ring versions leave none to spare" in text, text

    import tilec as tc

    @tc.kernel
    def scaled(A, B, C, BM: tc.constexpr = 128, BN: tc.constexpr = 128,
               BK: tc.constexpr = 64):
        for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
            acc = tc.zeros((BM, BN), tc.float32)
            for k in tc.serial(tc.cdiv(A.shape[1], BK)):
                a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
                b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
                acc = tc.mma(a, b, acc) * 0.5
            C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)

    rng = np.random.default_rng(12)
    a = rng.standard_normal((128, 192)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((192, 128)).astype(ml_dtypes.bfloat16)
    c = np.full((128, 128), np.nan, np.float32)
    comp2 = tilec.compile(scaled, a, b, c, target="reference")
    m2 = _machine(comp2, wgmma_in_flight=1)
    assert _atoms(m2, "wgmma.m64") and _waits(m2) == [0]
    simulate_module(m2, comp2.fn_name, [a, b, c])
    want = np.zeros((128, 128))
    for k in range(3):
        want = (want + a[:, 64 * k:64 * k + 64].astype(np.float64)
                @ b[64 * k:64 * k + 64].astype(np.float64)) * 0.5
    assert np.abs(c - want).max() <= 1e-4


def test_simulator_reports_a_ring_refilled_under_an_instruction_in_flight(monkeypatch) -> None:
    """Refilling the version the previous iteration's instructions read (the distance of the
    protocol without groups in flight) while leaving them in flight is a race on the GPU; the
    simulator reports it instead of computing the product it would have had."""
    from tilec.lower import machine_pipeline

    comp, args = _compiled(256, 256, 320, (128, 128, 64), seed=13)
    init = machine_pipeline.Staging.__init__

    def too_far_ahead(self, g, loop):  # type: ignore[no-untyped-def]
        init(self, g, loop)
        self.ahead = self.versions - 1  # the wait still leaves self.lag groups in flight

    monkeypatch.setattr(machine_pipeline.Staging, "__init__", too_far_ahead)
    m = _machine(comp, wgmma_in_flight=1)
    monkeypatch.undo()
    with pytest.raises(SimulationError, match="may still read it") as e:
        simulate_module(m, comp.fn_name, args)
    assert e.value.kind == "race"


def test_simulator_reports_accumulators_read_before_their_group_retires() -> None:
    """Without the last iteration's full wait the epilogue reads registers an instruction is
    still writing; the simulator says so (and a group never waited for is a hang)."""
    comp, args = _compiled(128, 128, 192, (128, 128, 64), seed=14)
    m = _machine(comp, wgmma_in_flight=1)
    for op in m.walk():
        if op.name == "atom.call" and op.attr("catalog_id") == "wgmma.wait":
            op.attributes["pending"] = 1
    with pytest.raises(SimulationError, match="still writing") as e:
        simulate_module(m, comp.fn_name, args)
    assert e.value.kind == "race"


@pytest.mark.skipif(nvrtc_available() is not None, reason=f"NVRTC: {nvrtc_available()}")
@pytest.mark.parametrize("in_flight", [0, 1])
def test_groups_in_flight_are_not_serialized_by_ptxas(in_flight: int) -> None:
    """ptxas serializes every warpgroup instruction of a kernel (warning C7515) when an
    ordinary instruction defines accumulator registers while a group is in flight, and
    injects a full wait into every iteration (remark C7517) where it cannot follow which
    groups are in flight: the loop waits with the same count every iteration and once
    with 0 after it."""
    comp, _ = _compiled(4096, 4096, 4096, (128, 128, 64))
    m = _machine(comp, wgmma_in_flight=in_flight)
    assert sorted(set(_waits(m))) == sorted({0, in_flight})
    src = emit_cuda(m, comp.fn_name, "cuda:sm_90")  # type: ignore[attr-defined]
    cub = compile_cubin(src.text, "sm_90" + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    if not cub.log:
        pytest.skip("the compile cache held this kernel without its ptxas log")
    assert "C7515" not in cub.log and "serialized" not in cub.log, cub.log
    assert "C7517" not in cub.log, cub.log
