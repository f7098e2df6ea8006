"""K-major B operands and operands copied once (``schedule_staging.matrix_uses``,
``invariant_loads``): ``x.T`` of a staged load read as an mma's B is staged whole in its
own layout and read K-major (``wgmma`` with ``b_major = "k"``, ``ldmatrix.x4`` without
``.trans`` for ``mma.sync``); a staged load whose window does not move with the loop keeps
one version, copied with the first iteration. The schedule's choices, the Machine TileIR,
the CUDA source, simulated differential cases (outputs poisoned with NaN) and the mutations
the simulator catches."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential, poisoned, reference

import tilec as tc
import tilec.ir as ir
from tilec.lower import LowerOptions, lower
from tilec.lower.schedule import invariant_loads, staged_loads
from tilec.lower.schedule_staging import plain_transpose

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")
BF16 = ml_dtypes.bfloat16


@tc.kernel
def a_bt(A, W, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64, BK: tc.constexpr = 64):
    """``C = A @ W.T`` (W is N x K: the layout of a linear layer's weight)."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(W.shape[0], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            acc = tc.mma(a, w.T, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def first_block(A, B, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                BK: tc.constexpr = 64):
    """``C = n * (A[:, :BK] @ B[k block])`` summed over the K blocks of B: A's window does
    not move with the loop."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        a = A.tile((pm * BM, 0), (BM, BK), fill=0.0)
        for k in tc.serial(tc.cdiv(B.shape[0], BK)):
            acc = tc.mma(a, B.tile((k * BK, pn * BN), (BK, BN), fill=0.0), acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def bt_twice(A, W, C, D, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
             BK: tc.constexpr = 64):
    """``w.T`` feeds the product and is also stored: not staged (another use)."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(W.shape[0], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            acc = tc.mma(A.tile((pm * BM, k * BK), (BM, BK), fill=0.0), w.T, acc)
            D.tile((k * BK, pn * BN), (BK, BN)).store(w.T)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def _args(m: int, n: int, k: int, seed: int = 0) -> list:
    """A (m x k), W (n x k), C (m x n)."""
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(BF16), r.standard_normal((n, k)).astype(BF16),
            np.zeros((m, n), np.float32)]


def _shape(v: ir.Value) -> tuple[int, ...]:
    return tuple(int(e) for e in v.type.shape)


def _lowered(kernel, args: list, target: str = "cuda:sm_90",
             options: LowerOptions | None = None, **tiles):
    compiled = tc.compile(kernel, *args, target="reference", **tiles)
    return compiled, lower(compiled.module, target, options or LowerOptions())


def _atoms(machine, cid: str) -> list[ir.Operation]:
    return [o for o in machine.walk() if o.name == "atom.call" and o.attr("catalog_id") == cid]


def _loop(module, name: str = "serial") -> ir.Operation:
    return next(op for op in module.walk() if op.name == name
                and any(o.name == "mma" for o in op.walk()))


# ------------------------------------------------------------------ the schedule


def test_a_transposed_window_is_a_staged_b_operand() -> None:
    compiled, res = _lowered(a_bt, _args(128, 128, 192))
    loop = _loop(compiled.module)
    staged = staged_loads(loop)
    w = next(op for op in loop.walk() if op.name == "load"
             and _shape(op.result) == (64, 64) and any(plain_transpose(u.owner)
                                                          for u in op.result.uses))
    assert [k for _, k in staged[w]] == [1]
    # its copy layout is the blocked one (16-byte vectors), not the transpose's image
    sched = next(op for op in res.scheduled.walk() if op.name == "load"
                 and any(u.owner.name == "reindex" for u in op.result.uses))
    assert sched.attr("layout").kind == "blocked" and sched.attr("mem") == "shared"


def test_wgmma_reads_the_staged_tile_k_major() -> None:
    _, res = _lowered(a_bt, _args(128, 128, 192))
    mmas = _atoms(res.machine, "wgmma.m64k16.bf16")
    assert mmas and {o.attr("b_major") for o in mmas} == {"k"}
    # laid out like A: 8-row groups 1024 bytes apart, the leading stride unused
    assert {(o.attr("b_lbo"), o.attr("b_sbo")) for o in mmas} == {(16, 1024)}
    # both operands arrive by tensor copies: no transposing copy through registers
    assert len(_atoms(res.machine, "tma.load")) >= 2
    assert "B staging" not in str(res.machine)


def test_an_n_major_b_keeps_the_transpose_bit() -> None:
    from tilec.lib import matmul

    args = [np.zeros((128, 64), BF16), np.zeros((64, 128), BF16),
            np.zeros((128, 128), np.float32)]
    _, res = _lowered(matmul, args, BM=64, BN=64, BK=64)
    assert {o.attr("b_major") for o in _atoms(res.machine, "wgmma.m64k16.bf16")} == {"n"}


def test_mma_sync_reads_a_k_major_b_with_ldmatrix_untransposed() -> None:
    _, res = _lowered(a_bt, _args(128, 128, 192), "cuda:sm_80")
    assert _atoms(res.machine, "ldmatrix.x4")
    assert not _atoms(res.machine, "ldmatrix.x4.trans")


def test_a_transpose_with_another_use_is_not_staged() -> None:
    args = _args(64, 64, 128) + [np.zeros((128, 64), BF16)]
    compiled, res = _lowered(bt_twice, args)
    w = next(op for op in _loop(compiled.module).walk() if op.name == "load"
             and _shape(op.result) == (64, 64)
             and any(plain_transpose(u.owner) for u in op.result.uses))
    assert w not in staged_loads(_loop(compiled.module))
    assert {o.attr("b_major") for o in _atoms(res.machine, "wgmma.m64k16.bf16")} == {"n"}


def test_plain_transpose_is_the_axis_swap_only() -> None:
    @tc.kernel
    def views(X, Y, Z):
        for _ in tc.parallel(1):
            x = X.tile((0, 0), (16, 32))
            Y.tile((0, 0), (32, 16)).store(x.T)
            Z.tile((0,), (16,)).store(x[:, 3])

    args = [np.zeros((16, 32), np.float32), np.zeros((32, 16), np.float32),
            np.zeros(16, np.float32)]
    module = tc.compile(views, *args, target="reference").module
    found = [plain_transpose(op) for op in module.walk() if op.name == "reindex"]
    assert found.count(True) == 1 and found.count(False) >= 1


def test_a_window_that_does_not_move_is_copied_once() -> None:
    args = [np.zeros((128, 64), BF16), np.zeros((256, 128), BF16),
            np.zeros((128, 128), np.float32)]
    compiled, res = _lowered(first_block, args)
    loop = _loop(compiled.module)
    (once,) = invariant_loads(loop)
    assert _shape(once.result) == (64, 64) and len(staged_loads(loop)) == 2
    rings = {op.attr("role"): op.result.type for op in res.machine.walk()
             if op.name == "memory" and "ring" in str(op.attr("role"))}
    # one ring without a version axis (A's), one with its versions (B's)
    assert sorted(t.rank for t in rings.values()) == [1, 2], rings
    # A's tensor copy is issued with the prologue's first iteration only
    loops = [op for op in res.machine.walk() if op.name == "serial"
             and _atoms(op, "wgmma.m64k16.bf16")]
    a_ring = next(n for n, t in rings.items() if t.rank == 1)
    inside = [o for o in loops[0].walk() if o.attr("catalog_id") == "tma.load"
              and a_ring.replace(" ", "_") in str(o.operand(0))]
    assert not inside


def test_a_loop_that_writes_copies_every_iteration() -> None:
    args = _args(64, 64, 128) + [np.zeros((128, 64), BF16)]
    compiled, _ = _lowered(bt_twice, args)
    assert invariant_loads(_loop(compiled.module)) == set()


# ------------------------------------------------------------------ numerics


@needs_simulator
@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("shape", [(128, 128, 192), (100, 70, 150)])
def test_simulated_a_bt_matches_the_reference(target: str, shape: tuple) -> None:
    m, n, k = shape
    differential(a_bt, _args(m, n, k, seed=k), [2], target, rtol=2e-3, atol=2e-3)


@needs_simulator
@pytest.mark.parametrize("options", [LowerOptions(), LowerOptions(mbarrier_ring=True),
                                     LowerOptions(tma=False)])
def test_simulated_first_block_matches_the_reference(options: LowerOptions) -> None:
    r = np.random.default_rng(5)
    args = [r.standard_normal((100, 64)).astype(BF16),
            r.standard_normal((300, 130)).astype(BF16), np.zeros((100, 130), np.float32)]
    differential(first_block, args, [2], "cuda:sm_90", options=options, rtol=2e-3,
                 atol=2e-3)


@needs_simulator
def test_simulated_transposed_twice_matches_the_reference() -> None:
    args = _args(64, 64, 128, seed=3) + [np.zeros((128, 64), BF16)]
    differential(bt_twice, args, [2, 3], "cuda:sm_90", rtol=2e-3, atol=2e-3)


@needs_simulator
def test_the_simulator_reads_b_as_its_attribute_says() -> None:
    """The same kernel with the attribute flipped to N-major reads the wrong elements."""
    from tilec.targets.reference.simt import simulate_module

    args = _args(128, 128, 192, seed=9)
    compiled, res = _lowered(a_bt, args)
    want = poisoned(args, [2])
    reference(compiled.module, compiled.fn_name, want)
    for op in _atoms(res.machine, "wgmma.m64k16.bf16"):
        op.attributes["b_major"] = "n"
        op.attributes["b_lbo"] = 64 * 128
    got = poisoned(args, [2])
    simulate_module(res.machine, compiled.fn_name, got)
    assert not np.allclose(got[2], want[2], rtol=2e-3, atol=2e-3)


# ------------------------------------------------------------------ the target


def test_the_cuda_source_clears_the_transpose_bit() -> None:
    from tilec.targets.cuda import ptx

    k = ptx.wgmma_lines("bf16", 64, ["c0"] * 8, "da", "db", "k")[0]
    n = ptx.wgmma_lines("bf16", 64, ["c0"] * 8, "da", "db")[0]
    assert k.endswith('p, 1, 1, 0, 0;\\n}"') and n.endswith('p, 1, 1, 0, 1;\\n}"')
    src = tc.compile(a_bt, *_args(128, 128, 192), target="cuda:sm_90").source
    assert "p, 1, 1, 0, 0;" in src and "p, 1, 1, 0, 1;" not in src


def test_the_verifier_names_a_bad_b_major() -> None:
    _, res = _lowered(a_bt, _args(128, 128, 192))
    op = _atoms(res.machine, "wgmma.m64k16.bf16")[0]
    op.attributes["b_major"] = "m"
    with pytest.raises(ir.VerificationError, match="b_major"):
        ir.verify(res.machine, "machine")


# ------------------------------------------------------------------ register A


@tc.kernel
def chained(A, B, V, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
            BK: tc.constexpr = 64):
    """``C = bf16(A @ B) @ V`` per row block: the first product's accumulator, cast, is the
    second product's A in the first's registers."""
    for pm in tc.parallel(tc.cdiv(A.shape[0], BM)):
        s = tc.dot(A.tile((pm * BM, 0), (BM, BK), fill=0.0), B.tile((0, 0), (BK, BN), fill=0.0))
        acc = tc.mma(s.to(V.dtype), V.tile((0, 0), (BN, BK), fill=0.0),
                     tc.zeros((BM, BK), tc.float32))
        C.tile((pm * BM, 0), (BM, BK)).store(acc)


def _chained_args(m: int = 128, seed: int = 2) -> list:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, 64)).astype(BF16), r.standard_normal((64, 64)).astype(BF16),
            r.standard_normal((64, 64)).astype(BF16), np.zeros((m, 64), np.float32)]


def _warpgroups(args: list) -> LowerOptions:
    """Both products as warpgroup instructions at 128 threads (the planner's cost model may
    prefer warp-wide atoms for this small kernel)."""
    from tilec.lower import matrix_candidates
    from tilec.plan import Realization

    module = tc.compile(chained, *args, target="reference").module
    pick = {}
    for c in matrix_candidates(module, "cuda:sm_90"):
        cand = c["candidate"]
        if cand.realization == Realization.WGMMA and cand.threads == 128:
            pick.setdefault(c["op"], cand)
    assert sorted(pick) == ["mma#0", "mma#1"], pick
    return LowerOptions(force_matrix=pick)


def test_an_accumulator_in_its_registers_is_a_register_a() -> None:
    _, res = _lowered(chained, _chained_args(), options=_warpgroups(_chained_args()))
    mmas = _atoms(res.machine, "wgmma.m64k16.bf16")
    regs = [o for o in mmas if o.attr("a_regs")]
    assert len(regs) == 4 and len(mmas) == 8
    for o in regs:  # two 4-register halves: the first operand and the last
        assert [int(o.operand(k).type.shape[0]) for k in (0, o.num_operands - 1)] == [4, 4]
    # only the first product's A (a loaded tile) is staged
    assert str(res.machine).count('role = "A staging"') == 1
    from tilec.targets.cuda.backend import CUDABackend

    src = CUDABackend("cuda:sm_90").emit(res.machine, "chained").text
    assert ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;" in src


def test_attention_feeds_its_probabilities_from_registers() -> None:
    from tilec.lib.attention import flash_attention

    q = np.zeros((2, 150, 64), BF16)
    _, res = _lowered(flash_attention, [q, q, q, q.copy(), np.float32(0.1)], BM=64, BN=64,
                      HEAD_DIM=64)
    assert len([o for o in _atoms(res.machine, "wgmma.m64k16.bf16") if o.attr("a_regs")]) == 4
    assert "A staging" not in str(res.machine)


def test_a_loaded_tile_is_still_staged() -> None:
    """A blocked layout is not the fragment layout: A goes through shared memory."""
    _, res = _lowered(a_bt, _args(128, 128, 192))
    assert not [o for o in _atoms(res.machine, "wgmma.m64k16.bf16") if o.attr("a_regs")]


@needs_simulator
@pytest.mark.parametrize("m", [128, 100])
def test_simulated_register_a_matches_the_reference(m: int) -> None:
    args = _chained_args(m, seed=m)
    res = differential(chained, args, [3], "cuda:sm_90", options=_warpgroups(args),
                       rtol=2e-2, atol=2e-2)
    assert [o for o in _atoms(res.machine, "wgmma.m64k16.bf16") if o.attr("a_regs")]


@needs_simulator
def test_the_simulator_reads_register_a_in_fragment_order() -> None:
    """Swapping the two halves of a register A is a wrong product in the simulator."""
    from tilec.targets.reference.simt import simulate_module

    args = _chained_args(seed=4)
    compiled, res = _lowered(chained, args, options=_warpgroups(args))
    want = poisoned(args, [3])
    reference(compiled.module, compiled.fn_name, want)
    for op in _atoms(res.machine, "wgmma.m64k16.bf16"):
        if op.attr("a_regs"):
            lo, hi = op.operand(0), op.operand(op.num_operands - 1)
            op.set_operand(0, hi)
            op.set_operand(op.num_operands - 1, lo)
    got = poisoned(args, [3])
    simulate_module(res.machine, compiled.fn_name, got)
    assert not np.allclose(got[3], want[3], rtol=2e-2, atol=2e-2)


def test_the_verifier_names_a_bad_register_a() -> None:
    _, res = _lowered(chained, _chained_args(), options=_warpgroups(_chained_args()))
    op = next(o for o in _atoms(res.machine, "wgmma.m64k16.bf16") if o.attr("a_regs"))
    op.attributes["a_regs"] = False
    with pytest.raises(ir.VerificationError, match="accumulator fragments"):
        ir.verify(res.machine, "machine")
