"""The TF32 warpgroup instruction: its catalog rules, the operand swap that gives
``lib.matmul`` a K-major B, the lowering of its operands, and its CUDA text.

Differential results against the reference are in ``tests/regression/test_tf32_wgmma.py``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tilec
import tilec.ir as ir
import tilec.lower as lower
from tilec.ir.atoms import WGMMA_ATOMS, wgmma_for
from tilec.lib.matmul import matmul
from tilec.lower.operand_swap import swap_tf32_products, swappable
from tilec.lower.options import LowerOptions
from tilec.plan.options import PlannerOptions
from tilec.targets.cuda import ptx
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.numerics import tf32_round, tf32_truncate


def _comp(m: int, n: int, k: int, **constexprs: object) -> object:
    a = np.zeros((m, k), np.float32)
    b = np.zeros((k, n), np.float32)
    c = np.zeros((m, n), np.float32)
    return tilec.compile(matmul, a, b, c, target="reference", PRECISION="tf32", **constexprs)


def _machine(comp: object, **opts: object) -> ir.Module:
    return lower.lower_to_machine(comp.module, "cuda:sm_90",  # type: ignore[attr-defined]
                                  dataclasses.replace(LowerOptions(), **opts))


def _wgmmas(m: ir.Module) -> list[ir.Operation]:
    return [op for op in m.walk() if op.name == "atom.call"
            and op.attr("catalog_id") == "wgmma.m64k8.tf32"]


def test_catalog_entry() -> None:
    atom = WGMMA_ATOMS["wgmma.m64k8.tf32"]
    assert (atom.k, atom.a_half, atom.b_majors, atom.precision) == (8, 2, ("k",), "tf32")
    assert wgmma_for(ir.f32) is None and wgmma_for(ir.f32, "tf32") is atom
    assert wgmma_for(ir.bf16, "tf32").catalog_id == "wgmma.m64k16.bf16"


def test_shared_operands_are_truncated_registers_rounded() -> None:
    """What the simulator reads: 1 + 2^-11 + 2^-12 is 1 truncated, 1 + 2^-10 rounded."""
    x = np.array([1 + 2.0**-11 + 2.0**-12, -(1 + 2.0**-11 + 2.0**-12), np.inf, np.nan],
                 np.float32)
    cut = tf32_truncate(x)
    assert cut[0] == 1.0 and cut[1] == -1.0 and np.isinf(cut[2]) and np.isnan(cut[3])
    assert tf32_round(x)[0] == np.float32(1 + 2.0**-10)


def test_swap_rewrites_the_recurrence() -> None:
    comp = _comp(256, 128, 64, BM=256, BN=128, BK=32)
    (mma,) = [op for op in comp.module.walk() if op.name == "mma"]  # type: ignore[attr-defined]
    assert swappable(mma) is None
    new, notes = swap_tf32_products(comp.module, "cuda:sm_90",  # type: ignore[attr-defined]
                                    PlannerOptions())
    assert len(notes) == 1 and "B.T @ A.T" in notes[0]
    (swapped,) = [op for op in new.walk() if op.name == "mma"]
    assert tuple(int(e) for e in swapped.result.type.shape) == (128, 256)  # BN x BM
    assert all(o.defining_op.name == "reindex" for o in swapped.operands[:2])
    assert tuple(int(e) for e in mma.result.type.shape) == (256, 128)  # the input untouched
    for profile, opts in (("cuda:sm_80", PlannerOptions()),
                          ("cuda:sm_90", PlannerOptions(tf32_operand_swap=False)),
                          ("cuda:sm_90", PlannerOptions(warpgroup_mma=False))):
        same, none = swap_tf32_products(comp.module, profile, opts)  # type: ignore[attr-defined]
        assert same is comp.module and none == []  # type: ignore[attr-defined]


def test_exact_products_are_not_swapped() -> None:
    a = np.zeros((128, 64), np.float32)
    comp = tilec.compile(matmul, a, a.T.copy(), np.zeros((128, 128), np.float32),
                         target="reference", BM=128, BN=128, BK=32)
    (mma,) = [op for op in comp.module.walk() if op.name == "mma"]
    assert swappable(mma) == "not a TF32 product"


def test_lowering_loads_a_into_registers_and_reads_b_as_staged() -> None:
    m = _machine(_comp(256, 256, 64, BM=128, BN=128, BK=32), warp_specialized=False)
    calls = _wgmmas(m)
    assert calls and all(c.attr("a_regs") and c.attr("b_major") == "k" for c in calls)
    # the instruction rounds its register A; the shared B is read as staged (truncated)
    assert not any(op.name == "arith" and op.attr("fn") == "round_tf32" for op in m.walk())


def test_verifier_rejects_an_n_major_tf32_b() -> None:
    m = _machine(_comp(256, 256, 64, BM=128, BN=128, BK=32), warp_specialized=False)
    _wgmmas(m)[0].attributes["b_major"] = "n"
    with pytest.raises(ir.VerificationError, match="reads a K-major B only"):
        ir.verify(m, "machine")


def test_ptx_text_has_no_transpose_operands() -> None:
    lines = ptx.wgmma_lines("tf32", 64, [f"c{j}" for j in range(8)], "", "db", "k",
                            ["r0", "r1", "r2", "r3"], 8)
    text = "\n".join(lines)
    assert "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32" in text
    assert "p, 1, 1;" in text  # scale-d, imm-scale-a, imm-scale-b and nothing after
    with pytest.raises(AssertionError):
        ptx.wgmma_lines("tf32", 64, [f"c{j}" for j in range(8)], "", "db", "n",
                        ["r0", "r1", "r2", "r3"], 8)



def test_the_model_prices_a_k_major_tf32_tile_as_warpgroup_instructions() -> None:
    """The cost basis gives a TF32 tile that the planner issues as warpgroup instructions
    the default Hopper plan's terms (its producer warpgroup), as it does a 16-bit one; an
    N-major B (no instruction reads it) and exact f32 keep the warp-wide price. Before, the
    basis priced TF32 without them and picked 128x256 tiles at 2048^3 (swapped: a 256-row
    accumulator, 512 threads), measured at 0.47x torch where 256x128 ran 0.79x."""
    from tilec.exec import get_profile
    from tilec.plan.cost.cuda_mma_v2 import ring_plan, wgmma_tile
    from tilec.plan.work import MatrixWorkload

    sm90 = get_profile("cuda:sm_90")
    w = MatrixWorkload("mma#0", 128, 256, 32, dtype="f32", precision="tf32", b_major="k")
    assert wgmma_tile(sm90, 256, w) and ring_plan(sm90, 256, w)
    assert not wgmma_tile(sm90, 256, dataclasses.replace(w, b_major="n"))
    assert not wgmma_tile(sm90, 256, dataclasses.replace(w, precision="exact"))
    assert not wgmma_tile(sm90, 256, dataclasses.replace(w, k=16))  # half a swizzle row
    assert wgmma_tile(sm90, 256, dataclasses.replace(w, dtype="bf16", k=64, b_major="n"))
    assert not wgmma_tile(get_profile("cuda:sm_80"), 256, w)
    a = tilec.array((2048, 2048), tilec.float32)
    sel = matmul.resolve((a, a, a), "cuda:sm_90", False, PRECISION="tf32")
    assert (sel.values["BM"], sel.values["BN"]) == (256, 128)


@pytest.mark.parametrize("bk, depth", [(32, 4), (64, 2)])
def test_the_model_prices_the_ring_depth_the_lowering_places(bk: int, depth: int) -> None:
    """A swapped TF32 tile of 256 x 128 holds 48 KB of operands per ring version at K = 32
    and 96 KB at K = 64, so the lowering trims the default plan's four versions to two at
    64 (no group stays in flight); the basis prices that candidate without the plan's
    discount on exposed waits, and the model picks K = 32 (measured at fe78f16 on an H100,
    4096^3: 0.399 ms at 256x128x32 against 0.443 at 256x128x64)."""
    import tilec.plan as plan
    from tilec.exec import get_profile
    from tilec.plan.cost.cuda_mma_v2 import ring_depth

    sm90 = get_profile("cuda:sm_90")
    w = plan.MatrixWorkload("mma#0", 128, 256, bk, dtype="f32", precision="tf32",
                            b_major="k", executions=4096 // bk, recurrence=4096 // bk,
                            direct_output=True)
    gp = plan.plan_group(plan.GroupWorkload("g", (w,), programs=512), sm90,
                         PlannerOptions(threads=256))
    (choice,) = gp.selected.choices
    assert choice.candidate.realization == "wgmma"
    assert ring_depth(sm90, choice.candidate, w) == depth
    assert choice.feature("ring_depth") == depth
    # what the lowering places for the library call at those tiles
    from tilec.lower.schedule import schedule_module

    comp = _comp(4096, 4096, 4096, BM=256, BN=128, BK=bk)
    _, groups = schedule_module(lower.rewrite_for_planning(  # type: ignore[attr-defined]
        comp.module, "cuda:sm_90", PlannerOptions())[0], "cuda:sm_90", LowerOptions())
    text = "\n".join(n for g in groups for n in g.notes)
    assert f"{depth} ring versions" in text, text
    if bk == 32:
        a = tilec.array((4096, 4096), tilec.float32)
        sel = matmul.resolve((a, a, a), "cuda:sm_90", False, PRECISION="tf32")
        assert (sel.values["BM"], sel.values["BN"], sel.values["BK"]) == (256, 128, 32)


@pytest.mark.skipif(nvrtc_available() is not None, reason=f"NVRTC: {nvrtc_available()}")
@pytest.mark.parametrize("tiles", [(128, 128, 32), (256, 128, 32)],
                         ids=lambda t: "x".join(map(str, t)))
def test_cuda_kernel_compiles_without_serialization(tiles) -> None:
    bm, bn, bk = tiles
    comp = _comp(4096, 4096, 4096, BM=bm, BN=bn, BK=bk)
    src = emit_cuda(_machine(comp), comp.fn_name, "cuda:sm_90")  # type: ignore[attr-defined]
    assert "m64n" in src.text and "k8.f32.tf32.tf32" in src.text
    assert '"r"(tc_tf32(' in src.text  # A's registers rounded as the instruction issues
    cub = compile_cubin(src.text, "sm_90" + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    assert "serialized" not in (cub.log or "")  # every wgmma keeps its pipeline
