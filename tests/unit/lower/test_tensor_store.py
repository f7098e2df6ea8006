"""Tensor stores of a warp-specialized group's output tile (``LowerOptions.tensor_store``):
the schedule's choice and its notes, the Machine TileIR and CUDA source, simulated
differential cases against the reference (outputs poisoned with NaN) and the broken
protocols the simulator reports."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential, poisoned
from lowering_cases import notes as _notes

import tilec as tc
from paths import cubin, needs_nvrtc
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")

TWO = {"BM": 128, "BN": 128, "BK": 64}
WIDE = {"BM": 128, "BN": 256, "BK": 64}
ONE = {"BM": 64, "BN": 64, "BK": 64}
WS = LowerOptions(warp_specialized=True)


def _args(m: int, n: int, k: int, out: object = np.float32, seed: int = 0) -> list:
    r = np.random.default_rng(seed)
    bf16 = ml_dtypes.bfloat16
    return [r.standard_normal((m, k)).astype(bf16), r.standard_normal((k, n)).astype(bf16),
            np.zeros((m, n), out)]


def _lowered(tiles: dict, args: list, options: LowerOptions = WS):
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    return compiled, lower(compiled.module, "cuda:sm_90", options)


def _cids(region) -> list[str]:
    return [o.attr("catalog_id") for o in region.walk() if o.name == "atom.call"]


def _staged(machine):
    """The ``if`` of every tensor-stored tile (the output's tensor-map guard)."""
    return [op for op in machine.walk() if op.name == "if"
            and "tensor stores" in str(op.attr("guard"))]


# ------------------------------------------------------------------ the schedule


def test_a_warp_specialized_store_goes_through_tensor_stores() -> None:
    _, res = _lowered(WIDE, _args(256, 512, 128, ml_dtypes.bfloat16))
    assert "through 2 swizzled shared buffers and tensor stores" in _notes(res)
    store = next(op for op in res.scheduled.walk() if op.name == "store")
    assert store.attr("tensor_store") == 2
    (staged,) = _staged(res.machine)
    cids = _cids(staged.regions[0])
    # 256 bf16 columns: four 64-column chunks, each fenced, met and stored
    assert cids.count("tma.store") == 4 and cids.count("bulk.commit") == 4
    assert cids.count("fence.proxy.async") == 4
    assert cids.count("bulk.wait") == 4 and "tma.store" not in _cids(staged.regions[1])
    buf = next(op for op in res.machine.walk() if op.name == "memory"
               and op.attr("role") == "tensor store")
    assert tuple(int(e) for e in buf.result.type.shape) == (2, 128, 64)
    assert buf.attr("swizzle") == 128
    # one wait for every store after the consumers' last tile
    waits = [o for o in res.machine.walk() if o.attr("catalog_id") == "bulk.wait"
             and not o.attr("read")]
    assert len(waits) == 1


def test_the_option_turns_it_off_and_the_report_says_why_not() -> None:
    from tilec.frontend.tunables import apply_variant

    assert apply_variant(LowerOptions(), {"tensor_store": False}).tensor_store is False
    _, res = _lowered(WIDE, _args(256, 512, 128), LowerOptions(warp_specialized=True,
                                                               tensor_store=False))
    assert "tma.store" not in str(res.machine) and not _staged(res.machine)
    # 8-byte elements: no tensor store here
    _, res = _lowered(TWO, _args(256, 256, 128, np.float64))
    assert "stored from registers, not through tensor stores: f64 elements" in _notes(res)
    assert "tma.store" not in str(res.machine)
    # no producer warpgroup: the store stays where it was
    _, res = _lowered(TWO, _args(256, 256, 128), LowerOptions(warp_specialized=False))
    assert "tma.store" not in str(res.machine)


def test_the_cuda_source_issues_tensor_stores() -> None:
    from tilec.driver import compile_module
    from tilec.targets.cuda.emitter import emit_cuda

    compiled, _ = _lowered(WIDE, _args(256, 512, 128, ml_dtypes.bfloat16))
    texts = {}
    for on in (None, False):
        comp = compile_module(compiled.module, "matmul", "cuda:sm_90", "allocate",
                              LowerOptions(tensor_store=on))
        texts[on] = emit_cuda(comp.module, "matmul", "cuda:sm_90")
    src = texts[None]
    assert src.text.count("tc_tma_store_2d(&tc_tmap2") == 4
    assert "cp.async.bulk.wait_group.read 0;" in src.text
    assert "cp.async.bulk.wait_group 0;" in src.text
    assert "cp.async.bulk.commit_group;" in src.text
    tmaps = [p for p in src.params if p.kind == "tmap"]
    assert [p.box for p in tmaps][-1] == (128, 64)  # C's map: one chunk per box
    assert "tc_tma_store_2d(&" not in texts[False].text
    # two 128 x 64 bf16 buffers, aligned to 1024 bytes after the ring's barriers
    assert 2 * 128 * 128 <= src.shared_bytes - texts[False].shared_bytes < 2 * 128 * 128 + 1024


def test_more_buffers_let_more_stores_read_at_each_chunk() -> None:
    """``tensor_store_buffers = n``: ``n`` chunk buffers, chunk ``c`` in buffer ``c mod n``,
    and each chunk's wait leaves ``n - 2`` stores reading; a chunk count that ``n`` does not
    divide starts each tile with a wait for every read and a meeting. The option is checked
    where it is given, and buffers that do not fit beside the ring are reported."""
    from tilec.frontend.tunables import apply_variant

    args = _args(256, 512, 128, ml_dtypes.bfloat16)
    for n, first_wait in ((4, False), (3, True), (2, False)):
        _, res = _lowered(WIDE, args, LowerOptions(warp_specialized=True, wgmma_stages=3,
                                                   tensor_store_buffers=n))
        assert f"through {n} swizzled shared buffers and tensor stores" in _notes(res)
        assert next(op for op in res.scheduled.walk()
                    if op.name == "store").attr("tensor_store") == n
        buf = next(op for op in res.machine.walk() if op.name == "memory"
                   and op.attr("role") == "tensor store")
        assert tuple(int(e) for e in buf.result.type.shape) == (n, 128, 64)
        (staged,) = _staged(res.machine)
        waits = [o.attr("pending") for o in staged.regions[0].walk()
                 if o.attr("catalog_id") == "bulk.wait"]
        # four chunks of 64 bf16 columns: one wait each, and one before the first for n = 3
        assert waits == ([0] if first_wait else []) + [n - 2] * 4
        stores = [o for o in staged.regions[0].walk() if o.attr("catalog_id") == "tma.store"]
        assert [int(o.operand(1).defining_op.attr("map").results[0].constant)
                for o in stores] == [c % n for c in range(4)]
    assert apply_variant(LowerOptions(), {"tensor_store_buffers": 3}).tensor_store_buffers == 3
    for bad in (1, 17, True, 2.0):
        with pytest.raises(ValueError, match="tensor_store_buffers must be an integer"):
            LowerOptions(tensor_store_buffers=bad)
    # eight 32 KB buffers do not fit beside a four-version ring of 48 KB versions
    _, res = _lowered(WIDE, args, LowerOptions(warp_specialized=True, wgmma_stages=4,
                                               tensor_store_buffers=8))
    assert "stored from registers, not through tensor stores: its" in _notes(res)


# ------------------------------------------------------------------ the simulator


@needs_simulator
@pytest.mark.parametrize("tiles", [TWO, WIDE, ONE], ids=["two", "wide", "one"])
@pytest.mark.parametrize("shape,out,persistent", [
    ((200, 136, 192), np.float32, None),                 # ragged: boxes clip at both edges
    ((200, 600, 128), ml_dtypes.bfloat16, 2),             # persistent: chunks across tiles
    ((256, 256, 64), np.float32, 3),                      # one trip per tile
    ((130, 130, 72), np.float32, None),                   # no tensor map: the fallback stores
], ids=["ragged", "persistent_bf16", "one_trip", "fallback"])
def test_tensor_stored_tiles_match_the_reference(tiles, shape, out, persistent) -> None:
    m, n, k = shape
    res = differential(matmul, _args(m, n, k, out, seed=m + n + k), [2], "cuda:sm_90", tiles,
                       options=LowerOptions(warp_specialized=True, persistent=persistent),
                       rtol=1e-2, atol=1e-2)
    assert _staged(res.machine)  # (the fallback shape runs the copy without them)


@needs_simulator
@pytest.mark.parametrize("buffers", [3, 4])
@pytest.mark.parametrize("shape,out", [
    ((200, 600, 128), ml_dtypes.bfloat16),   # four chunks a tile, tiles across programs
    ((256, 512, 64), np.float32),            # eight f32 chunks a tile
], ids=["bf16", "f32"])
def test_tiles_through_more_buffers_match_the_reference(buffers, shape, out) -> None:
    """Three buffers (a count the chunks do not divide: each tile starts with a wait) and
    four, in a persistent group whose programs walk several tiles, so that stores of one
    tile are still reading while the next tile's chunks are written."""
    m, n, k = shape
    res = differential(matmul, _args(m, n, k, out, seed=m + n + k + buffers), [2],
                       "cuda:sm_90", WIDE,
                       options=LowerOptions(warp_specialized=True, persistent=2,
                                            wgmma_stages=3, tensor_store_buffers=buffers),
                       rtol=1e-2, atol=1e-2)
    (staged,) = _staged(res.machine)
    assert max(o.attr("pending") for o in staged.regions[0].walk()
               if o.attr("catalog_id") == "bulk.wait") == buffers - 2


@needs_simulator
def test_a_wait_that_leaves_one_store_too_many_reading_is_a_race() -> None:
    """With three buffers, waiting for all but two stores (instead of one) lets chunk
    ``c + 1`` overwrite the buffer that chunk ``c - 2``'s store may still read."""
    from tilec.targets.reference.errors import SimulationError
    from tilec.targets.reference.simt import simulate_module

    args = _args(256, 512, 128)
    compiled, res = _lowered(WIDE, args, LowerOptions(warp_specialized=True, persistent=4,
                                                      wgmma_stages=3, tensor_store_buffers=3))
    waits = [o for s in _staged(res.machine) for o in s.regions[0].walk()
             if o.attr("catalog_id") == "bulk.wait" and o.attr("pending") == 1]
    assert waits
    for o in waits:
        o.attributes["pending"] = 2
    with pytest.raises(SimulationError) as info:
        simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))
    assert info.value.kind == "race"


def _broken(change, tiles: dict = TWO) -> None:
    """Simulate a persistent warp-specialized GEMM of two tiles per program after
    ``change(machine)`` (which returns how many operations it changed)."""
    from tilec.targets.reference.simt import simulate_module

    args = _args(256, 512, 128)
    compiled, res = _lowered(tiles, args, LowerOptions(warp_specialized=True, persistent=4))
    assert change(res.machine)
    simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))


def _erase_in_stores(cid: str, pick=lambda o: True):
    def change(machine) -> int:
        ops = [o for s in _staged(machine) for o in s.regions[0].walk()
               if o.attr("catalog_id") == cid and pick(o)]
        for o in ops:
            o.erase()
        return len(ops)
    return change


@needs_simulator
def test_a_store_source_written_again_before_the_wait_is_a_race() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase_in_stores("bulk.wait"))
    assert info.value.kind == "race" and "no bulk.wait" in str(info.value)


@needs_simulator
def test_an_unfenced_source_is_a_race() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase_in_stores("fence.proxy.async"))
    assert info.value.kind == "race" and "fence.proxy.async" in str(info.value)


@needs_simulator
def test_a_store_issued_before_the_writers_meet_is_a_race() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase_in_stores("barrier.named"))
    assert info.value.kind == "race" and "tma.store" in str(info.value)


@needs_simulator
def test_a_group_that_ends_before_its_stores_have_read_is_reported() -> None:
    from tilec.targets.reference.errors import SimulationError

    def change(machine) -> int:  # the last wait, after the consumers' walk
        ops = [o for o in machine.walk() if o.attr("catalog_id") == "bulk.wait"
               and not o.attr("read")]
        for o in ops:
            o.erase()
        return len(ops)

    with pytest.raises(SimulationError) as info:
        _broken(change)
    assert info.value.kind == "race" and "when the group ends" in str(info.value)


# ------------------------------------------------------- the epilogue, chunk by chunk


def _gelu_args(m: int, n: int, k: int, seed: int = 0) -> list:
    r = np.random.default_rng(seed)
    bf16 = ml_dtypes.bfloat16
    return [r.standard_normal((m, k)).astype(bf16), r.standard_normal((k, n)).astype(bf16),
            r.standard_normal(n).astype(np.float32), np.zeros((m, n), np.float32)]


def test_a_fused_epilogue_is_computed_per_chunk() -> None:
    """GEMM+bias+GELU at 128x256x64: the planner now takes the warpgroup realization with the
    fused epilogue (the bias is read part by part), and the map and the bias load run
    inside the tensor stores' chunks, not over the whole tile before them."""
    from tilec.lib import gemm_bias_act

    args = _gelu_args(512, 512, 128)
    compiled = tc.compile(gemm_bias_act, *args, target="reference", BM=128, BN=256, BK=64,
                          ACT="gelu")
    res = lower(compiled.module, "cuda:sm_90")
    assert [ch.realization for ch in res.groups[0].mma.values()] == ["wgmma.m64k16.bf16"]
    (staged,) = _staged(res.machine)
    inside = [o for o in staged.regions[0].walk() if o.name == "map"]
    assert len(inside) == 32  # one per 2x2 part of a lane's 64 x 256 fragment
    split = next(o for o in res.machine.walk() if o.attr("roles") is not None)
    fast = next(o for o in split.regions[1].walk() if o.name == "if"
                and "consumers" in str(o.attr("guard")))
    outside = [o for o in fast.regions[0].walk() if o.name == "map"
               and not any(o is i for i in inside)]
    # the C guard's fallback stores part by part too (32 more); nothing over the tile
    assert all(int(o.results[0].type.shape[0]) == 4 for o in outside)


@needs_simulator
@pytest.mark.parametrize("shape,tiles,act", [
    ((200, 600, 128), WIDE, "gelu"),    # ragged, two tiles per program
    ((256, 256, 192), TWO, "relu"),
    ((130, 130, 72), TWO, "gelu"),      # B has no tensor map: the fallback, part by part
])
def test_chunked_epilogues_match_the_reference(shape, tiles, act) -> None:
    from tilec.lib import gemm_bias_act

    m, n, k = shape
    differential(gemm_bias_act, _gelu_args(m, n, k, seed=m + n), [3], "cuda:sm_90",
                 {**tiles, "ACT": act}, options=LowerOptions(persistent=2),
                 rtol=1e-3, atol=1e-3)


@needs_nvrtc
def test_the_chunked_epilogue_does_not_spill() -> None:
    """ptxas fits 128 accumulators and a part-by-part GELU in the warp-specialized kernel's
    168 registers (the whole bias row held beside them spilled)."""
    from tilec.lib import gemm_bias_act
    from tilec.targets.cuda.emitter import emit_cuda

    args = _gelu_args(4096, 4096, 4096)
    compiled = tc.compile(gemm_bias_act, *args, target="reference", BM=128, BN=256, BK=64,
                          ACT="gelu")
    res = lower(compiled.module, "cuda:sm_90")
    src = emit_cuda(res.machine, compiled.fn_name, "cuda:sm_90")
    got = cubin(src, "sm_90").resources
    assert got.spill_stores == 0 and got.spill_loads == 0, got
