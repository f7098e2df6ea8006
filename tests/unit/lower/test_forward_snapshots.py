"""Forwarded matrix operands (``PlannerOptions.forward_snapshots``): where the snapshot
forwarding proof holds, the planner also enumerates ``mma.sync`` rectangles whose lanes load
their fragment elements from global memory, and the lowering realizes them with no shared
staging. What the option changes in the plan and the program of a skinny-M GEMM, simulated
runs against the reference interpreter with NaN-poisoned outputs (ragged edges, a transposed
B, every mma.sync atom), the paths without the realization (cpu, metal:m1), a forced
candidate the proof refuses, and the CUDA source compiled."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential

import tilec as tc
import tilec.ir as ir
import tilec.plan as plan
from paths import cubin, needs_nvrtc, poisoned
from tilec.lib import linear, matmul, pipelined_matmul
from tilec.lower import LowerOptions, lower
from tilec.targets.cuda.emitter import emit_cuda

BF16 = ml_dtypes.bfloat16
SKINNY = {"BM": 16, "BN": 64, "BK": 64}
"""The tile of the skinny-M GEMM (16 rows: one m16n8k16 atom row)."""
ON = {"forward_snapshots": True}

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _args(m: int, n: int, k: int, dt=BF16, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            poisoned(m, n)]


def _options(on: bool) -> LowerOptions:
    o = LowerOptions()
    return replace(o, planner=replace(o.planner, forward_snapshots=on))


def _forced(kernel, args, tiles) -> LowerOptions:
    """Options forcing the planner's pick of ``kernel``, as a forwarded rectangle."""
    module = tc.compile(kernel, *args, target="reference", **tiles).module
    res = lower(module, "cuda:sm_80", _options(True))
    cand = res.groups[0].plan.selected.choices[0].candidate
    return replace(_options(True), force_matrix={"mma#0": replace(cand, forwarded=True)})


def _label(kernel, args, target: str, variant=None, **tiles) -> str:
    c = tc.compile(kernel, *args, target=target, variant=variant, **tiles)
    (choice,) = c.plan.groups[0].selected.choices
    return choice.candidate.label


# ----------------------------------------------------------------- plan and program


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90"])
def test_the_option_changes_the_plan_of_a_skinny_gemm(target: str) -> None:
    args = [np.zeros((16, 4096), BF16), np.zeros((4096, 4096), BF16),
            np.zeros((16, 4096), np.float32)]
    assert "forwarded" not in _label(matmul, args, target, **SKINNY)
    assert _label(matmul, args, target, ON, **SKINNY) == \
        "rectangle 1x4/1x2 direct forwarded @ 128"


def _shared_atoms(machine: ir.Module) -> set[str]:
    return {op.attr("catalog_id") for op in machine.walk() if op.name == "atom.call"}


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90"])
def test_the_option_changes_the_program(target: str) -> None:
    module = tc.compile(matmul, *_args(16, 4096, 4096), target="reference", **SKINNY).module
    staged, forwarded = (lower(module, target, _options(on)) for on in (False, True))
    atoms = _shared_atoms(staged.machine)
    assert "ldmatrix.x4" in atoms and any(a.startswith("cp.async") for a in atoms)
    assert staged.resources[0]["shared_bytes"] > 0
    atoms = _shared_atoms(forwarded.machine)
    assert not any(a.startswith(("ldmatrix", "cp.async")) for a in atoms)
    assert "barrier.group" not in atoms  # nothing shared: no barrier per K step
    assert forwarded.resources[0]["shared_bytes"] == 0
    assert not any(op.name == "memory" for op in forwarded.machine.walk())
    # the fragments are loaded from the parameters' windows, with the loads' fill
    frag = [op for op in forwarded.machine.walk() if op.name == "load"
            and ir.alias_root(op.operand(0)).name_hint in ("A", "B")]
    assert frag and all(op.attr("fill") == 0.0 for op in frag)
    notes = "\n".join(n for g in forwarded.groups for n in g.notes)
    assert "reads A and B from their source windows (snapshot forwarding)" in notes
    sched = [op for op in forwarded.scheduled.walk() if op.attr("forwarded")]
    assert sorted(op.name for op in sched) == ["load", "load", "mma"]


# ------------------------------------------------------------------------- results


def _differential(kernel, args, target: str, **constexprs) -> None:
    want = [a.copy() for a in args]
    tc.interpret(kernel, *want, **constexprs)
    assert not np.isnan(want[-1]).any()
    got = [a.copy() for a in args]
    tc.simulate(kernel, *got, target=target, variant=ON, **constexprs)
    scale = max(1.0, float(np.abs(want[-1]).max()))
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-3, atol=1e-4 * scale)


@needs_simulator
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90"])
@pytest.mark.parametrize("shape", [(16, 512, 1024), (20, 130, 100)], ids=["skinny", "ragged"])
def test_simulated_results_match_the_reference(target: str, shape) -> None:
    args = _args(*shape)
    assert "forwarded" in _label(matmul, args, target, ON, **SKINNY)
    _differential(matmul, args, target, **SKINNY)


@needs_simulator
def test_a_split_k_loop_reads_forwarded_operands() -> None:
    args = _args(16, 128, 1024)
    variant = {**ON, "split_k": 4}
    assert "forwarded" in _label(matmul, args, "cuda:sm_80", variant, **SKINNY)
    want = [a.copy() for a in args]
    tc.interpret(matmul, *want, **SKINNY)
    got = [a.copy() for a in args]
    tc.simulate(matmul, *got, target="cuda:sm_80", variant=variant, **SKINNY)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-3, atol=1e-3)


def test_a_pipeline_hand_off_is_staged() -> None:
    args = _args(16, 128, 256)
    assert "forwarded" not in _label(pipelined_matmul, args, "cuda:sm_80", ON, **SKINNY)
    module = tc.compile(pipelined_matmul, *args, target="reference", **SKINNY).module
    (site,) = plan.extract_groups(module, plan.PlannerOptions(forward_snapshots=True))
    assert "A refused: it is handed from an earlier pipeline stage" in "\n".join(
        site.workload.notes)


@needs_simulator
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90"])
def test_a_transposed_b_is_read_from_its_window(target: str) -> None:
    a, b, c = _args(20, 72, 96, seed=1)
    args = [a, np.ascontiguousarray(b.T), c]
    assert "forwarded" in _label(linear, args, target, ON, **SKINNY)
    _differential(linear, args, target, **SKINNY)


@needs_simulator
@pytest.mark.parametrize("dt,precision", [(np.float16, "exact"), (np.float32, "tf32")],
                         ids=["f16", "tf32"])
def test_every_mma_sync_atom(dt, precision: str) -> None:
    # the model stages these (32-column tiles); the forwarded rectangle is forced
    args = _args(40, 96, 80, dt=dt, seed=2)
    tiles = {"BM": 32, "BN": 32, "BK": 32, "PRECISION": precision}
    res = differential(matmul, args, [2], "cuda:sm_80", tiles, _forced(matmul, args, tiles),
                       rtol=2e-3, atol=1e-3)
    mma = next(op for op in res.scheduled.walk() if op.name == "mma")
    assert mma.attr("forwarded") and mma.attr("realization").startswith("mma.m16n8k")


@needs_simulator
@pytest.mark.parametrize("target", ["cpu", "sim:metal:m1"])
def test_targets_without_the_realization_run_as_before(target: str) -> None:
    args = _args(20, 130, 100)
    want = [a.copy() for a in args]
    tc.interpret(matmul, *want, **SKINNY)
    got = [a.copy() for a in args]
    if target == "cpu":
        tc.compile(matmul, *got, target="cpu", variant=ON, **SKINNY)(*got)
    else:
        tc.simulate(matmul, *got, target="metal:m1", variant=ON, **SKINNY)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-3, atol=1e-3)


# ------------------------------------------------------------------------- safety


@tc.kernel
def rewrites_a(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 64, BK: tc.constexpr = 64):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            A.tile((pm * BM, k * BK), (BM, BK)).store(tc.zeros((BM, BK), tc.bfloat16))
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def test_a_forced_candidate_the_proof_refuses_is_staged() -> None:
    args = _args(40, 64, 128)  # one program per row block writes A
    forced = _forced(matmul, args, SKINNY)
    res = differential(rewrites_a, args, [0, 2], "cuda:sm_80", None, forced, poison=False)
    notes = "\n".join(n for g in res.groups for n in g.notes)
    assert "is staged: snapshot forwarding refused (an intervening store to A" in notes
    assert not any(op.attr("forwarded") for op in res.scheduled.walk())
    mma = next(op for op in res.scheduled.walk() if op.name == "mma")
    assert mma.attr("realization") == "mma.m16n8k16.bf16"  # the forced rectangle, staged


# ------------------------------------------------------------------------ CUDA source


@needs_nvrtc
@pytest.mark.parametrize("target,arch", [("cuda:sm_80", "sm_80"), ("cuda:sm_90", "sm_90")])
def test_the_cuda_source_compiles(target: str, arch: str) -> None:
    compiled = tc.compile(matmul, *_args(16, 4096, 4096), target="reference", **SKINNY)
    res = lower(compiled.module, target, _options(True))
    assert res.machine is not None
    src = emit_cuda(res.machine, compiled.fn_name, target)
    assert "cp.async" not in src.text
    cubin(src, arch)
