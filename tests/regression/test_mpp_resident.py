"""The MPP cooperative destination resident across a K loop (``mpp.dest.load`` before the
loop, ``mpp.run`` in it, ``mpp.dest.store`` after it; ``lower/machine_mpp.py``): differential
tests against the reference interpreter in the SIMT simulator, whose destinations spread
their elements over the lanes at random (outputs poisoned first), the loop structure, the
cases that keep one operation per execution, and the clang check of the MSL."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec import lib
from tilec.lower.options import LowerOptions
from tilec.plan import PlannerOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from unit.lower.lowering_cases import differential  # noqa: E402

C = {"BM": 32, "BN": 32, "BK": 16}


def _opts(threads: int | None = None, mode: str = "only") -> LowerOptions:
    return LowerOptions(planner=PlannerOptions(metal_mpp=mode, threads=threads))


def _f32(r: np.random.Generator, *shape: int) -> np.ndarray:
    return r.standard_normal(shape).astype(np.float32)


def _where(machine, cid: str) -> tuple[int, int]:
    """(inside a serial loop, outside every serial loop) counts of atom ``cid``."""
    inside = outside = 0
    for fn in machine.functions:
        for op in fn.walk():
            if op.name != "atom.call" or op.attr("catalog_id") != cid:
                continue
            blk, looped = op.parent, False
            while blk is not None and blk.parent_op is not None:
                looped |= blk.parent_op.name == "serial"
                blk = blk.parent_op.parent
            inside += looped
            outside += not looped
    return inside, outside


def _resident(res) -> set[str]:
    """Asserts the resident structure; returns the scopes of its runs."""
    assert _where(res.machine, "mpp.matmul2d") == (0, 0)
    assert _where(res.machine, "mpp.dest.load") == (0, 1)
    assert _where(res.machine, "mpp.dest.store") == (0, 1)
    assert _where(res.machine, "mpp.run")[0] == 1
    loops = [op for fn in res.machine.functions for op in fn.walk() if op.name == "serial"]
    (run,) = [op for fn in res.machine.functions for op in fn.walk()
              if op.name == "atom.call" and op.attr("catalog_id") == "mpp.run"]
    carried = [v.type for op in loops for v in op.results]
    assert run.result.type in carried  # the loop carries the destination itself
    return {run.attr("scope")}


@pytest.mark.parametrize("threads, scope", [(32, "subgroup"), (64, "subgroup"),
                                            (128, "group")])
@pytest.mark.parametrize("shape", [(64, 96, 64), (45, 70, 33), (16, 8, 16), (40, 0, 24)])
def test_the_destination_stays_resident_across_the_k_loop(shape, threads, scope) -> None:
    """Several K tiles, a ragged K, one tile and none, at one, two and four SIMD-groups
    (subgroup and whole-group scope): loaded once before the loop, stored once after it,
    carried by the loop, and equal to the reference under the simulator's random element
    assignment of each destination."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape) + threads)
    res = differential(lib.matmul, [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32)],
                       [2], "metal:m1", C, options=_opts(threads))
    assert _resident(res) == {scope}


@pytest.mark.parametrize("bk", [8, 24])
def test_dynamic_k(bk: int) -> None:
    r = np.random.default_rng(bk)
    args = [_f32(r, 40, 50), _f32(r, 50, 32), np.zeros((40, 32), np.float32)]
    _resident(differential(lib.matmul, args, [2], "metal:m1", {**C, "BK": bk},
                           options=_opts(64)))


def test_a_k_major_b_is_declared_with_transpose_right() -> None:
    """``A @ W.T``: the descriptor of all three atoms says ``transpose_b`` (the loop's run
    settles it for the mpp.dest.load printed before the loop, where B is not staged yet)."""
    r = np.random.default_rng(4)
    args = [_f32(r, 40, 48), _f32(r, 24, 48), np.zeros((40, 24), np.float32)]
    res = differential(lib.linear, args, [2], "metal:m1", C, options=_opts(64))
    _resident(res)
    flags = {op.attr("transpose_b") for fn in res.machine.functions for op in fn.walk()
             if op.name == "atom.call" and str(op.attr("catalog_id")).startswith("mpp.")}
    assert flags == {True}


@pytest.mark.parametrize("name", ["gemm_bias_act", "pipelined_matmul", "batched_matmul"])
def test_library_gemms(name: str) -> None:
    r = np.random.default_rng(len(name))
    if name == "batched_matmul":
        args = [_f32(r, 3, 20, 24), _f32(r, 3, 24, 18), np.zeros((3, 20, 18), np.float32)]
        c = {"BM": 16, "BN": 16, "BK": 16}
    elif name == "gemm_bias_act":
        args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32)]
        c = C
    else:
        args = [_f32(r, 45, 70), _f32(r, 70, 33), np.zeros((45, 33), np.float32)]
        c = C
    res = differential(getattr(lib, name), args, [len(args) - 1], "metal:m1", c,
                       options=_opts())
    ops = {op.attr("catalog_id") for fn in res.machine.functions for op in fn.walk()
           if op.name == "atom.call"}
    assert ops & {"mpp.run", "mpp.matmul2d"}


@tc.kernel
def _scaled_in_loop(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                    BK: tc.constexpr = 16):
    """Reads the accumulator elementwise inside the K loop: it must stay in the lane layout
    between executions, so each execution has its own destination."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        rows = tc.arange(BM).reshape((BM, 1)).astype(tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc) * (1.0 + rows * 0.125)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def test_an_observed_accumulator_keeps_one_operation_per_execution() -> None:
    r = np.random.default_rng(21)
    res = differential(_scaled_in_loop, [_f32(r, 40, 40), _f32(r, 40, 40),
                                         np.zeros((40, 40), np.float32)], [2], "metal:m1",
                       options=_opts(64), rtol=1e-3)
    assert _where(res.machine, "mpp.run") == (0, 0)
    assert _where(res.machine, "mpp.matmul2d")[0] == 1


def test_direct_operands_keep_one_operation_per_execution() -> None:
    """Forwarded (device tensor) operands are not made resident (their scalar fallback for
    uneven rectangles works on one operation's destination)."""
    r = np.random.default_rng(5)
    opts = LowerOptions(planner=PlannerOptions(metal_mpp="only", forward_snapshots=True,
                                               threads=64))
    res = differential(lib.matmul, [_f32(r, 40, 48), _f32(r, 48, 24),
                                    np.zeros((40, 24), np.float32)], [2], "metal:m1", C,
                       options=opts)
    assert _where(res.machine, "mpp.run") == (0, 0)
    assert _where(res.machine, "mpp.matmul2d")[0] == 1


def test_the_simulator_assigns_destination_elements_at_random(monkeypatch) -> None:
    """Each launch draws the assignment per shape and scope; a fixed seed replays it; it is
    not row-major (what a program reading the registers in some fixed order would assume)."""
    from tilec.targets.reference import simt_mpp as sm
    from tilec.targets.reference.simt_simdgroup import SEED_VARIABLE

    class Host:
        pass

    draws = {tuple(sm.destination_slots(Host(), 32, 16, 32)) for _ in range(4)}
    assert len(draws) == 4
    slots = sm.destination_slots(Host(), 24, 16, 128)  # 384 elements, 3 per lane of 128
    assert sorted(slots.tolist()) == list(range(384))
    assert not np.array_equal(slots, np.arange(384))
    monkeypatch.setenv(SEED_VARIABLE, "7")
    assert np.array_equal(sm.destination_slots(Host(), 32, 16, 32),
                          sm.destination_slots(Host(), 32, 16, 32))
    slots = sm.destination_slots(Host(), 8, 16, 96)  # 128 elements over 96 lanes: 2 each
    assert (slots < 0).sum() == 64 and sorted(slots[slots >= 0].tolist()) == list(range(128))


@pytest.mark.parametrize("variant, kernel, shapes", [
    ({"threads": 64}, "matmul", ((40, 64), (64, 48), (40, 48))),
    ({"threads": 128}, "matmul", ((40, 64), (64, 48), (40, 48))),
    ({"threads": 64, "BK": 24}, "matmul", ((40, 50), (50, 32), (40, 32))),
    ({"threads": 64}, "linear", ((40, 48), (24, 48), (40, 24))),
], ids=["subgroup", "group", "dynamic-k", "k-major-b"])
def test_the_msl_passes_the_check(variant, kernel, shapes) -> None:
    """The destination is an ``auto`` local of the cooperative tensor type, declared before
    the loop and updated in place by ``run``; every source passes the clang check."""
    from tilec.targets.metal.check import check_msl, checker_unavailable

    r = np.random.default_rng(3)
    args = [_f32(r, *s) for s in shapes]
    c = {**C, **{k: v for k, v in variant.items() if k == "BK"}}
    v = {"metal_mpp": "only", **{k: x for k, x in variant.items() if k != "BK"}}
    exe = tc.compile(getattr(lib, kernel), *args, target="metal:m1", variant=v,
                     **c).executable()
    src = exe.source
    if checker_unavailable() is None:
        check_msl(src, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    (name,) = re.findall(r"auto (v\d+) = tc_op\d+\.get_destination_cooperative_tensor<", src)
    (carry,) = re.findall(rf"auto (dest\d+) = {name};", src)
    assert src.count("run(") == 1 and re.search(rf"\.run\(tc_ta\d+, tc_tb\d+, {carry}\);",
                                                   src)
    loop = src.index("for (int64_t")
    assert src.index(f"auto {name} =") < loop < src.index(f"{carry}.get_multidimensional")


def test_type_of_the_destination_is_its_lanes_share() -> None:
    """``tile<cap x f32>``: a subgroup destination's ``m x n`` elements over 32 lanes."""
    r = np.random.default_rng(0)
    res = differential(lib.matmul, [_f32(r, 40, 64), _f32(r, 64, 48),
                                    np.zeros((40, 48), np.float32)], [2], "metal:m1", C,
                       options=_opts(64))
    (load,) = [op for fn in res.machine.functions for op in fn.walk()
               if op.name == "atom.call" and op.attr("catalog_id") == "mpp.dest.load"]
    m, n = int(load.attr("m")), int(load.attr("n"))
    assert load.result.type == ir.TileType((m * n // 32,), ir.f32)


@tc.kernel
def _scaled_wt(A, W, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    """``C = A @ (2 W).T``: B is the transpose of a computed tile, staged as computed (its
    layout is the lowering's to choose, which the loop's run settles for the destination)."""
    M, K = A.shape
    N = W.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            acc = tc.mma(a, (w * 2.0).T, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def test_a_computed_transposed_b() -> None:
    r = np.random.default_rng(9)
    res = differential(_scaled_wt, [_f32(r, 40, 48), _f32(r, 24, 48),
                                    np.zeros((40, 24), np.float32)], [2], "metal:m1",
                       options=_opts(64))
    _resident(res)
    flags = {op.attr("transpose_b") for fn in res.machine.functions for op in fn.walk()
             if op.name == "atom.call" and str(op.attr("catalog_id")).startswith("mpp.")}
    assert flags == {False}  # staged as computed: row-major, on all three atoms
