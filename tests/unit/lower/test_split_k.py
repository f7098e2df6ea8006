"""Split-K (``LowerOptions.split_k``; docs/design/split_k.md).

The K loop of a matrix group runs split over ``S`` programs per output tile; each stores
its partial accumulators, the last to arrive adds them in split order and runs the
epilogue. Every case is simulated against the reference interpreter with NaN-poisoned
outputs; the legality rules are checked with the seed's counterexamples; a wrong K range
and a combine outside the last program are shown to be caught.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential, poisoned, simulate_module

import tilec as tc
import tilec.ir as ir
from tilec.lib import batched_matmul, gemm_bias_act, matmul, pipelined_matmul
from tilec.lower import LowerOptions, lower
from tilec.plan import PlannerOptions

BF16 = ml_dtypes.bfloat16
needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


@tc.kernel
def accumulate(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """``C += A @ B``: the accumulator starts from C, not from zero."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = C.tile((pm * BM, pn * BN), (BM, BN), fill=0.0).load()
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def strict(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """A product summed in source order."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc, order="strict_fold")
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def store_first(A, B, C, D, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                BK: tc.constexpr = 32):
    """A store before the K loop (it would run once per split)."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        D.tile((pm * BM, pn * BN), (BM, BN)).store(tc.zeros((BM, BN), tc.float32) + 1.0)
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def chained(A, B, E, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """A product of an accumulator's running value: each split's acc0 restarts from zero,
    so acc1 is not a sum over K that splitting may regroup."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc0 = tc.zeros((BM, BN), tc.float32)
        acc1 = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            e = E.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc0 = tc.mma(a, b, acc0)
            acc1 = tc.mma(acc0, e, acc1)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc1)


@tc.kernel
def two_products(A, B, D, E, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                 BK: tc.constexpr = 32):
    """``C = A @ B + D @ E``: two K loops; the first is split, the second runs in the
    combining program."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        other = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(D.shape[1], BK)):
            d = D.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            e = E.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            other = tc.mma(d, e, other)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + other)


def _gemm(m: int, n: int, k: int, dt: object, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            np.zeros((m, n), np.float32)]


def _tiles(bm: int, bn: int, bk: int) -> dict[str, int]:
    return {"BM": bm, "BN": bn, "BK": bk}


def _count(text: str, cid: str) -> int:
    return text.count(f'catalog_id = "{cid}"')


CASES = {
    # wgmma with tensor copies, ragged in every axis, 11 K steps over 4 splits
    "wgmma_ragged": ((200, 136, 700), BF16, (128, 128, 64), 4, "cuda:sm_90", {}),
    # N = 130: B's rows fail the tensor-map guard and fall back to cp.async
    "b_fallback": ((130, 130, 72), BF16, (128, 128, 64), 3, "cuda:sm_90", {}),
    # 2 K steps over 4 splits: two programs per tile run no step and store zeros
    "empty_splits": ((64, 64, 64), BF16, (64, 64, 32), 4, "cuda:sm_90", {}),
    # exact f32 (lane FMAs) on sm_80, 32 K steps over 5 splits (the last one shorter)
    "ffma_sm80": ((100, 60, 1000), np.float32, (32, 32, 32), 5, "cuda:sm_80", {}),
    # the mbarrier ring inside each split
    "mbarrier_ring": ((256, 128, 512), BF16, (128, 128, 64), 2, "cuda:sm_90",
                      {"mbarrier_ring": True}),
    # a grouped traversal of the output tiles beside the split axis
    "grouped": ((256, 256, 256), BF16, (64, 64, 64), 2, "cuda:sm_90",
                {"planner": PlannerOptions(bounded_store=True, program_traversal="grouped:2")}),
    # the model's pick for 128x128x8192 (32x32x64 at 256 threads, 16 splits), smaller:
    # 33 K steps (the last one ragged) over 16 splits of 3, the last five empty
    "pick_16": ((64, 40, 2100), BF16, (32, 32, 64), 16, "cuda:sm_90",
                {"planner": PlannerOptions(threads=256)}),
    # 32 splits (the tuner's variant) of 20 K steps: twelve splits per tile run no step
    "splits_32": ((40, 64, 1240), BF16, (32, 64, 64), 32, "cuda:sm_90",
                  {"planner": PlannerOptions(threads=128)}),
}


@needs_simulator
@pytest.mark.parametrize("name", list(CASES))
def test_split_k_matches_the_reference(name: str) -> None:
    (m, n, k), dt, tiles, splits, target, extra = CASES[name]
    res = differential(matmul, _gemm(m, n, k, dt, seed=m + k), [2], target, _tiles(*tiles),
                       options=LowerOptions(split_k=splits, **extra), rtol=2e-3, atol=2e-3)
    text = str(res.machine)
    assert _count(text, "split.arrive") == 1 and _count(text, "split.combine") >= 1
    assert f"split_k = {splits}" in text
    assert res.resources[0]["split_k"] == splits


@needs_simulator
def test_split_k_with_a_batch_axis_and_an_epilogue() -> None:
    r = np.random.default_rng(3)
    a = r.standard_normal((3, 40, 300)).astype(np.float32)
    b = r.standard_normal((3, 300, 24)).astype(np.float32)
    res = differential(batched_matmul, [a, b, np.zeros((3, 40, 24), np.float32)], [2],
                       "cuda:sm_90", _tiles(32, 32, 32), options=LowerOptions(split_k=3))
    assert res.resources[0]["split_k"] == 3  # a rank-4 grid (split, batch, rows, columns)
    args = _gemm(96, 80, 256, BF16, seed=4)
    bias = r.standard_normal(80).astype(np.float32)
    differential(gemm_bias_act, [args[0], args[1], bias, args[2]], [3], "cuda:sm_90",
                 {**_tiles(64, 64, 64), "ACT": "gelu"}, options=LowerOptions(split_k=2),
                 rtol=2e-3, atol=2e-3)


@needs_simulator
def test_the_first_splittable_loop_is_split() -> None:
    r = np.random.default_rng(5)
    a, b = r.standard_normal((70, 300)).astype(np.float32), r.standard_normal((300, 40))
    d, e = r.standard_normal((70, 90)).astype(np.float32), r.standard_normal((90, 40))
    args = [a, b.astype(np.float32), d, e.astype(np.float32), np.zeros((70, 40), np.float32)]
    res = differential(two_products, args, [4], "cuda:sm_90", _tiles(32, 32, 32),
                       options=LowerOptions(split_k=3))
    loops = [op for op in res.scheduled.walk() if op.name == "serial"]
    assert [op.attr("split_k") for op in loops] == [3, None]
    assert _count(str(res.machine), "split.arrive") == 1


@needs_simulator
@pytest.mark.parametrize("target,dt,tiles", [("cuda:sm_90", BF16, (64, 64, 64)),
                                             ("cuda:sm_80", np.float32, (32, 32, 32))])
def test_a_multi_stage_pipeline_is_split(target, dt, tiles) -> None:
    """``tc.pipeline`` with a load stage and a compute stage: the first stage hands the
    accumulator on, the last updates it."""
    res = differential(pipelined_matmul, _gemm(100, 70, 600, dt, seed=6), [2], target,
                       _tiles(*tiles), options=LowerOptions(split_k=3), rtol=2e-3,
                       atol=2e-3)
    assert _count(str(res.machine), "split.arrive") == 1


def _notes(kernel: object, args: list[np.ndarray], target: str = "cuda:sm_90",
           splits: int = 4) -> tuple[list[str], str]:
    module = tc.compile(kernel, *args, target="reference", **_tiles(32, 32, 32)).module
    res = lower(module, target, LowerOptions(split_k=splits))
    assert res.machine is not None
    return [n for g in res.groups for n in g.notes], str(res.machine)


@pytest.mark.parametrize("kernel,extra,why", [
    (strict, 0, 'sums in source order (order="strict_fold")'),
    (accumulate, 0, "does not start from a constant zero tile"),
    (store_first, 1, "'store' (write) before the K loop"),
    (chained, 1, "computed from an accumulator's running value"),
])
def test_an_illegal_split_is_noted_not_applied(kernel, extra, why) -> None:
    args = _gemm(64, 64, 256, np.float32)
    if kernel is chained:  # E is K x N, like B
        args = [args[0], args[1], args[1].copy(), args[2]]
    else:
        args += [np.zeros((64, 64), np.float32)] * extra
    notes, text = _notes(kernel, args)
    assert any(n.startswith("no split-K:") and why in n for n in notes), notes
    assert _count(text, "split.store") == 0 and "split_k" not in text


def test_split_k_is_a_cuda_realization() -> None:
    notes, text = _notes(matmul, _gemm(64, 64, 256, np.float32), target="metal:m1")
    assert any("metal:m1 has no split-K realization" in n for n in notes), notes
    assert _count(text, "split.store") == 0
    _, one = _notes(matmul, _gemm(64, 64, 256, np.float32), splits=1)
    assert _count(one, "split.store") == 0 and "split_k" not in one


@needs_simulator
def test_a_wrong_split_range_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every split running the whole K range adds the product S times: the differential
    test fails, so the passing cases above are evidence."""
    from tilec.lower.machine_split import SplitK

    monkeypatch.setattr(SplitK, "k_range", lambda self, g, lb, ub, step: (lb, ub))
    with pytest.raises(AssertionError, match="elements differ"):
        differential(matmul, _gemm(64, 64, 256, np.float32), [2], "cuda:sm_90",
                     _tiles(32, 32, 32), options=LowerOptions(split_k=2))


@needs_simulator
def test_a_combine_outside_the_last_program_is_reported() -> None:
    """A combining branch taken by every program (a wrong arrival count) reads partials that
    are not all stored: the simulator reports it instead of returning garbage."""
    from tilec.targets.reference.errors import SimulationError

    args = _gemm(64, 64, 256, np.float32)
    comp = tc.compile(matmul, *args, target="reference", **_tiles(32, 32, 32))
    res = lower(comp.module, "cuda:sm_90", LowerOptions(split_k=2))
    assert res.machine is not None
    (branch,) = [op for op in res.machine.walk() if op.name == "if"
                 and str(op.attr("guard", "")).startswith("split-K")]
    b = ir.Builder(ir.InsertionPoint.before_op(branch))
    always = b.create("constant", [], [ir.i1], {"value": True}).result
    branch.set_operand(0, always)
    with pytest.raises(SimulationError, match="did not arrive last") as e:
        simulate_module(res.machine, comp.fn_name, poisoned(args, [2]))
    assert e.value.kind == "hang"


def test_the_cuda_kernel_takes_its_workspaces() -> None:
    from tilec.targets.cuda.emitter import emit_cuda
    from tilec.targets.cuda.source import CUDASource

    args = _gemm(128, 128, 1024, BF16)
    comp = tc.compile(matmul, *args, target="reference", **_tiles(128, 128, 64))
    res = lower(comp.module, "cuda:sm_90", LowerOptions(split_k=8))
    assert res.machine is not None
    src = emit_cuda(res.machine, comp.fn_name, "cuda:sm_90")
    spaces = [p for p in src.params if p.kind == "workspace"]
    assert [(p.name, p.dtype, p.box) for p in spaces] == [("partials", ir.f32, (1,)),
                                                          ("counters", ir.i32, (8,))]
    regs = 128 * 128 // 256  # accumulator registers per thread (2 warpgroups)
    assert int(spaces[0].shape[0]) == regs * 256 and int(spaces[1].shape[0]) == 1
    text = src.text
    assert "float *tc_split_partials, int32_t *tc_split_counters)" in text
    assert "atomicAdd(&tc_split_counters[" in text and "== 7;" in text
    assert "__syncthreads_or(" in text and "__ldcg(&split_w" in text
    # 64 registers a thread: float4 groups, contiguous across a warp
    assert "reinterpret_cast<const float4 *>(tc_split_partials + " in text
    assert "blockIdx.z" in text  # the split axis leads the rank-3 grid
    back = CUDASource.from_launch_json(src.launch_json())
    assert back is not None and back.params == src.params


def test_why_a_split_did_not_apply_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A requested variant that the proof refuses is not silent: the schedule's note is
    logged (``TILEC_LOG=info``) and kept in the compilation's groups."""
    import logging

    args = _gemm(64, 64, 256, np.float32)
    with caplog.at_level(logging.INFO, logger="tilec"):
        k = tc.compile(strict, *args, target="simt:cuda:sm_90", variant={"split_k": 4},
                       **_tiles(32, 32, 32))
        comp = k.compilation()
    why = 'no split-K: the mma at'
    assert any(why in n for g in comp.groups for n in g.notes)
    assert any(why in r.getMessage() and "@strict schedule for simt:cuda:sm_90" in
               r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]
