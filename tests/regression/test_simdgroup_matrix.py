"""The metal:m1 ``simdgroup`` realization of ``mma`` (MSL ``simdgroup_matrix`` on opaque
fragments): differential tests against the reference interpreter in the SIMT simulator, whose
fragments hold their elements in a random order per launch, the clang check of every library
kernel's MSL with the realization forced, a golden GEMM, and the planner's choice."""

from __future__ import annotations

import os
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

ONLY = LowerOptions(planner=PlannerOptions(simdgroup_matrix="only"))
GOLDEN = Path(__file__).parent / "golden" / "simdgroup_matmul.metal"


def _f32(r: np.random.Generator, *shape: int) -> np.ndarray:
    return r.standard_normal(shape).astype(np.float32)


def _sg(result) -> str:
    text = str(result.machine)
    assert "simdgroup.mma" in text, "the simdgroup realization was not chosen"
    return text


@pytest.mark.parametrize("shape", [(64, 64, 64), (40, 48, 24), (33, 70, 17), (5, 9, 3)])
def test_matmul(shape: tuple[int, int, int]) -> None:
    """Ragged M / N / K included: the staging's fill and the bounded store handle the tails."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape))
    _sg(differential(lib.matmul, [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32)],
                     [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 16}, options=ONLY))


def test_matmul_deep_k_tiles() -> None:
    r = np.random.default_rng(3)
    _sg(differential(lib.matmul, [_f32(r, 50, 130), _f32(r, 130, 40),
                                  np.zeros((50, 40), np.float32)],
                     [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 32}, options=ONLY))


def test_linear_reads_a_k_major_b() -> None:
    """``A @ W.T``: B's blocks are column-major in their staging (a transposed load in MSL)."""
    r = np.random.default_rng(4)
    _sg(differential(lib.linear, [_f32(r, 40, 48), _f32(r, 24, 48),
                                  np.zeros((40, 24), np.float32)],
                     [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 16}, options=ONLY))


def test_pipelined_matmul() -> None:
    r = np.random.default_rng(5)
    _sg(differential(lib.pipelined_matmul, [_f32(r, 45, 70), _f32(r, 70, 33),
                                            np.zeros((45, 33), np.float32)],
                     [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 16}, options=ONLY))


def test_batched_matmul() -> None:
    r = np.random.default_rng(6)
    _sg(differential(lib.batched_matmul, [_f32(r, 3, 20, 24), _f32(r, 3, 24, 18),
                                          np.zeros((3, 20, 18), np.float32)],
                     [2], "metal:m1", {"BM": 16, "BN": 16, "BK": 8}, options=ONLY))


def test_gemm_bias_act() -> None:
    r = np.random.default_rng(7)
    args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32)]
    _sg(differential(lib.gemm_bias_act, args, [3], "metal:m1",
                     {"BM": 32, "BN": 32, "BK": 8}, options=ONLY))


def _atoms_in_loops(machine, cid: str) -> tuple[int, int]:
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


@pytest.mark.parametrize("shape", [(64, 96, 64), (45, 70, 33), (16, 8, 16), (40, 0, 24)])
def test_accumulator_fragments_stay_resident_across_the_k_loop(shape) -> None:
    """A closed recurrence keeps the accumulator in its fragments across the K loop: the
    fragments are loaded once before it and stored once after it (no simdgroup.store in the
    loop), the loop carries them, and the result matches the reference under the
    simulator's random fragment layout (several K tiles, a ragged K, one tile, none)."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape) + 1)
    res = differential(lib.matmul, [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32)],
                       [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 16}, options=ONLY)
    text = _sg(res)
    assert _atoms_in_loops(res.machine, "simdgroup.store") == (0, 4)
    inside, before = _atoms_in_loops(res.machine, "simdgroup.load")
    assert before == 4 and inside > 0  # C fragments once; A and B fragments every step
    loops = [op for fn in res.machine.functions for op in fn.walk() if op.name == "serial"]
    carried = [str(v.type) for op in loops for v in op.results]
    assert carried.count(str(ir.TileType((2,), ir.f32))) == 4, carried  # rm * rn fragments
    assert text


def test_an_observed_accumulator_is_not_kept_in_fragments() -> None:
    """An accumulator read elementwise inside the loop is no closed recurrence: it crosses
    through the staging in every execution instead (stores inside the loop)."""
    r = np.random.default_rng(21)
    res = differential(_scaled_in_loop, [_f32(r, 40, 24), _f32(r, 24, 40),
                                         np.zeros((40, 40), np.float32)], [2], "metal:m1",
                       options=ONLY, rtol=1e-3)
    inside, _ = _atoms_in_loops(res.machine, "simdgroup.store")
    assert inside > 0


@tc.kernel
def _scaled_in_loop(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                    BK: tc.constexpr = 8):
    """Reads the accumulator elementwise inside the K loop (a row-dependent scale after
    every product): the accumulator's layout between operations is observed."""
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


def test_accumulator_read_inside_the_loop_never_sees_a_fragment() -> None:
    """The fragments never leave one mma: an accumulator read elementwise inside the loop is
    read in the documented lane layout, so forcing the realization stays correct even though
    the simulator scrambles every fragment."""
    r = np.random.default_rng(8)
    res = differential(_scaled_in_loop, [_f32(r, 40, 24), _f32(r, 24, 40),
                                         np.zeros((40, 40), np.float32)], [2], "metal:m1",
                       options=ONLY, rtol=1e-3)
    _sg(res)


def test_a_fixed_layout_reading_of_fragments_is_wrong_in_the_simulator(monkeypatch) -> None:
    """What a program that read the fragments' registers in the lane-FMA layout would get:
    the simulator's permutation is never that layout, so the identity 'reading' mismatches."""
    from tilec.targets.reference import simt_simdgroup as ss

    class Host:
        pass

    for seed in range(20):
        monkeypatch.setenv(ss.SEED_VARIABLE, str(seed))
        h = Host()
        perm = ss.block_permutation(h)
        block = np.arange(64, dtype=np.float32).reshape(8, 8)
        regs = ss._spread(perm, block)
        lane_tile = block.reshape(32, 2)  # lane l: row l // 4, columns 2 (l % 4) + i
        assert not np.array_equal(regs, lane_tile)
        assert np.array_equal(ss._assemble(perm, regs), block)


def test_simulator_draws_a_new_layout_per_launch(monkeypatch) -> None:
    from tilec.targets.reference import simt_simdgroup as ss

    monkeypatch.delenv(ss.SEED_VARIABLE, raising=False)

    class Host:
        pass

    perms = {tuple(ss.block_permutation(Host())) for _ in range(4)}
    assert len(perms) > 1


def test_planner_choice_and_variants() -> None:
    """Off by default; ``auto`` lets the cost basis choose (a deep K tile amortizes the
    accumulator's crossing into the fragments); ``off`` forbids it."""
    from tilec.lower import lower

    r = np.random.default_rng(9)
    args = [_f32(r, 64, 256), _f32(r, 256, 64), np.zeros((64, 64), np.float32)]
    c = tc.compile(lib.matmul, *args, target="reference", BM=16, BN=16, BK=64)

    def chosen(mode: str) -> str:
        res = lower(c.module, "metal:m1", LowerOptions(planner=PlannerOptions(
            simdgroup_matrix=mode)))
        return str(res.machine)

    assert "simdgroup.mma" not in chosen("off")
    assert "simdgroup.mma" in chosen("auto")
    assert "simdgroup.mma" in chosen("only")
    c16 = tc.compile(lib.matmul, *args, target="reference", BM=32, BN=32, BK=16)
    shallow = lower(c16.module, "metal:m1",
                    LowerOptions(planner=PlannerOptions(simdgroup_matrix="auto")))
    assert "simdgroup.mma" not in str(shallow.machine)  # two K steps: the lane rectangle
    with pytest.raises(ValueError, match="simdgroup_matrix"):
        PlannerOptions(simdgroup_matrix="yes")


def test_variant_forces_it_through_compile() -> None:
    r = np.random.default_rng(10)
    args = [_f32(r, 40, 48), _f32(r, 48, 24), np.zeros((40, 24), np.float32)]
    src = tc.compile(lib.matmul, *args, target="metal:m1", BM=32, BN=32, BK=16,
                     variant={"simdgroup_matrix": "only"}).source
    assert "simdgroup_multiply_accumulate(" in src and "simdgroup_load(" in src
    plain = tc.compile(lib.matmul, *args, target="metal:m1", BM=32, BN=32, BK=16).source
    assert "simdgroup_float8x8" not in plain


def _renumber(text: str) -> str:
    ids: dict[str, str] = {}
    return re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)), text)


def test_golden_simdgroup_gemm() -> None:
    """TILEC_UPDATE_GOLDEN=1 rewrites the file."""
    r = np.random.default_rng(11)
    args = [_f32(r, 40, 48), _f32(r, 48, 24), np.zeros((40, 24), np.float32)]
    text = tc.compile(lib.matmul, *args, target="metal:m1", BM=32, BN=32, BK=16,
                      variant={"simdgroup_matrix": "only"}).source
    kernel = _renumber(text[text.index("kernel void"):])
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(kernel)
    assert kernel == GOLDEN.read_text(), "emitted MSL changed; review and regenerate"


def _lib_cases() -> list:
    from tilec.demo import all_cases

    return [c for c in all_cases(None) if c.name.startswith("lib.")]


@pytest.mark.parametrize("case", _lib_cases(), ids=lambda c: c.name)
def test_every_library_kernel_passes_the_check_with_the_realization_forced(case) -> None:
    """The clang check of the emitted MSL (every simdgroup_* call against the header's
    declarations); the kernels with an f32 matrix product really use the realization."""
    from tilec.targets.metal.check import check_msl, checker_unavailable

    if checker_unavailable() is not None:
        pytest.skip(str(checker_unavailable()))
    args = list(case.make_inputs(np.random.default_rng(0)))
    exe = tc.compile(case.kernel, *args, target="metal:m1", variant={"simdgroup_matrix": "only"},
                     **case.constexprs).executable()
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    if case.name in ("lib.matmul", "lib.pipelined_matmul", "lib.batched_matmul", "lib.linear"):
        assert "simdgroup_multiply_accumulate(" in exe.source
