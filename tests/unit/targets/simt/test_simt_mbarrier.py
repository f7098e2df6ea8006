"""mbarrier and tma.load in the SIMT simulator: phases, waits, tags, zero fill, swizzle rules."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from simtir import find, machine

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module
from tilec.targets.reference.simt_atoms import run_atom
from tilec.targets.reference.simt_mbarrier import Mbarriers
from tilec.targets.reference.simt_memory import (
    AsyncCopies,
    GroupClock,
    LaneView,
    Storage,
    gather,
)
from tilec.targets.reference.simt_wgmma import InFlightGroups

BF16 = ml_dtypes.bfloat16
ONE = "map = #map<(d0)[s0] -> (d0 + s0)>"
ROWS = "map = #map<(d0, d1)[s0] -> (d0 + s0, d1)>"
SHARED = """
%bars = memory() : mem<2xi64, shared>
%sa = memory() {swizzle = 128} : mem<16x64xbf16, shared>
"""
PARAMS = "%x: mem<10x40xbf16, global>, %out: mem<8x64xbf16, global>"
THREADS = 8
BYTES = 8 * 64 * 2
"""One 8 x 64 bf16 box."""


def x_array() -> np.ndarray:
    """Exact bf16 values, none zero."""
    return (np.arange(400).reshape(10, 40) % 251 + 1).astype(BF16)


def window(x: np.ndarray, r0: int, c0: int, box: tuple[int, int] = (8, 64)) -> np.ndarray:
    """The box of ``x`` at ``(r0, c0)``, zero outside ``x``."""
    out = np.zeros(box, BF16)
    for i in range(box[0]):
        for j in range(box[1]):
            r, c = r0 + i, c0 + j
            if 0 <= r < x.shape[0] and 0 <= c < x.shape[1]:
                out[i, j] = x[r, c]
    return out


def on_thread0(body: str, k: str = "") -> str:
    return f"""
    %z{k} = arith(%tid, %c0) {{fn = "eq"}} : i1
    if(%z{k}) ({{
      {body}
      yield()
    }}, {{
      yield()
    }})
"""


BAR = (f"%bar = view(%bars, %c0) {{bounds = \"total\", {ONE}}} : mem<1xi64, shared>\n"
       f"%lo = view(%sa, %c0) {{bounds = \"total\", {ROWS}}} : mem<8x64xbf16, shared>\n")
"""The barrier %bars[0] and the lower 8 rows %lo of %sa."""


def init(k: str = "i") -> str:
    """Thread 0 initializes %bar for one arrival per phase."""
    return on_thread0(f'%in{k} = atom.call(%bar) {{catalog_id = "mbarrier.init", count = 1}} '
                      ': token', k)




def issue(r0: int, c0: int, k: str = "", dst: str = "%lo", nbytes: int = BYTES,
          box: str = "[8, 64]") -> str:
    """Thread 0 expects ``nbytes`` on %bar and copies the box at ``(r0, c0)`` into ``dst``."""
    return on_thread0(f"""
      %r{k} = constant() {{value = {r0}}} : index
      %q{k} = constant() {{value = {c0}}} : index
      %nb{k} = constant() {{value = {nbytes}}} : index
      %e{k} = atom.call(%bar, %nb{k}) {{catalog_id = "mbarrier.expect_tx"}} : token
      %l{k} = atom.call({dst}, %x, %bar, %r{k}, %q{k}) {{catalog_id = "tma.load",
          box = {box}, swizzle = 128}} : token""", k)


def wait(parity: int, k: str = "") -> str:
    return f"""
    %ph{k} = constant() {{value = {parity}}} : index
    atom.call(%bar, %ph{k}) {{catalog_id = "mbarrier.wait"}}
"""


def read(row0: int = 0, k: str = "") -> str:
    """Thread t copies row ``row0 + t`` of %sa to row t of %out."""
    return f"""
    %rr{k} = constant() {{value = {row0}}} : index
    %ri{k} = arith(%tid, %rr{k}) {{fn = "add"}} : index
    %row{k} = view(%sa, %ri{k}) {{bounds = "total", map = #map<(d0)[s0] -> (s0, d0)>}}
        : mem<64xbf16, shared>
    %v{k} = load(%row{k}) : tile<64xbf16>
    %dst{k} = view(%out, %tid) {{bounds = "total", map = #map<(d0)[s0] -> (s0, d0)>}}
        : mem<64xbf16, global>
    store(%dst{k}, %v{k})
"""


BARRIER = 'atom.call() {catalog_id = "barrier.group"}'
INVAL = on_thread0('%iv = atom.call(%bar) {catalog_id = "mbarrier.inval"} : token', "inv")


def run(body: str, shared: str = SHARED) -> tuple[np.ndarray, np.ndarray]:
    x = x_array()
    out = np.full((8, 64), np.nan, BF16)
    m = machine(BAR + body, PARAMS, threads=THREADS, shared=shared)
    simulate_module(m, "k", [x, out])
    return x, out


def fails(body: str, kind: str, shared: str = SHARED) -> SimulationError:
    with pytest.raises(SimulationError) as info:
        run(body, shared)
    assert info.value.kind == kind, str(info.value)
    return info.value


# ------------------------------------------------------------------ whole programs


def test_tma_load_then_wait_reads_the_box_with_zero_fill_outside() -> None:
    # every thread waits, then reads rows thread 0's copy wrote: no group barrier needed
    x, out = run(init() + issue(-3, 0) + wait(0) + read() + BARRIER + INVAL)
    want = window(x, -3, 0)
    assert (want[:3] == 0).all() and (want[:, 40:] == 0).all() and want[3, 0] == x[0, 0]
    np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


def test_zero_fill_past_the_far_end_of_both_axes() -> None:
    x, out = run(init() + issue(5, 0) + wait(0) + read())
    np.testing.assert_array_equal(out.astype(np.float32), window(x, 5, 0).astype(np.float32))
    assert (out[5:] == 0).all() and out[4, 39] == x[9, 39]


def test_negative_column_origin_shifts_the_box() -> None:
    x, out = run(init() + issue(0, -8) + wait(0) + read())
    assert (out[:, :8] == 0).all() and out[0, 8] == x[0, 0] and out[7, 47] == x[7, 39]
    assert (out[:, 48:] == 0).all()


def test_reading_before_the_wait_is_a_race_naming_the_copy() -> None:
    e = fails(init() + issue(0, 0) + read(), "race")
    load_op, access = e.ops
    assert load_op.attr("catalog_id") == "tma.load" and access.name == "load"
    assert "thread 0 reads element (0, 0) of shared memory %sa" in e.reason
    assert "written by tma.load (barrier %bars[0], phase 0), before waiting for that phase " \
           "(mbarrier.wait" in e.reason


def test_a_thread_that_skips_the_wait_races_even_after_a_barrier() -> None:
    waited = on_thread0(wait(0, "w"), "w")  # only thread 0 waits
    e = fails(init() + issue(0, 0) + waited + BARRIER + read(), "race")
    assert e.reason.startswith("thread 1 reads element (1, 0) of shared memory %sa")


def test_a_store_over_copied_data_before_the_wait_is_a_race() -> None:
    store = """
    %w = view(%sa, %tid) {bounds = "total", map = #map<(d0)[s0] -> (s0 + 8, d0)>}
        : mem<64xbf16, shared>
    %zero = constant() {value = 0.0} : bf16
    %zt = map(%zero) {shape = #domain<[64]>} ({
    ^bb9(%a: bf16):
      yield(%a)
    }) : tile<64xbf16>
    store(%w, %zt)
"""
    e = fails(init() + issue(0, 0, dst="%sa", box="[16, 64]", nbytes=2 * BYTES) + store,
              "race")
    assert e.reason.startswith("thread 0 writes element (8, 0) of shared memory %sa")
    # after the wait the store replaces the copied data, and reading it back is no race
    x, out = run(init() + issue(0, 0, dst="%sa", box="[16, 64]", nbytes=2 * BYTES) + wait(0)
                 + store + read(8))
    assert (out.astype(np.float32) == 0).all()


def test_data_a_waiting_thread_overwrote_is_ordered_by_a_group_barrier() -> None:
    # only thread 0 waits; it replaces the copied rows, so the others read its stores
    overwrite = on_thread0(wait(0, "w") + """
      %up = view(%sa, %c0) {bounds = "total", map = #map<(d0, d1)[s0] -> (d0 + s0 + 8, d1)>}
          : mem<8x64xbf16, shared>
      %zero = constant() {value = 0.0} : bf16
      %zt = map(%zero) {shape = #domain<[8, 64]>} ({
      ^bb9(%a: bf16):
        yield(%a)
      }) : tile<8x64xbf16>
      store(%up, %zt)""", "w")
    body = init() + issue(0, 0, dst="%sa", box="[16, 64]", nbytes=2 * BYTES) + overwrite
    x, out = run(body + BARRIER + read(8))
    assert (out.astype(np.float32) == 0).all()
    e = fails(body + BARRIER + read(0), "race")  # rows 0-7 still hold the copy
    assert e.reason.startswith("thread 1 reads element (1, 0) of shared memory %sa")


def test_invalidating_a_barrier_with_bytes_outstanding_is_a_hang() -> None:
    e = fails(init() + issue(0, 0, nbytes=BYTES + 64) + INVAL, "hang")
    assert "barrier %bars[0] is invalidated by" in e.reason
    assert "transaction count 64 bytes (bytes are expected that no tma.load copies" in e.reason


def test_wait_on_the_phase_in_progress_hangs() -> None:
    # the wait comes before thread 0 issues the copy: phase 0 cannot complete
    e = fails(init() + wait(0) + issue(0, 0), "hang")
    assert e.ops[0].attr("catalog_id") == "mbarrier.wait"
    assert "barrier %bars[0] for the phase of parity 0, which is the phase in progress " \
           "(phase 0 in progress: 1 of 1 arrivals missing, transaction count 0 bytes" \
           in e.reason


def test_the_wrong_parity_hangs() -> None:
    e = fails(init() + issue(0, 0) + wait(1), "hang")
    assert "phase 1 in progress: 1 of 1 arrivals missing" in e.reason
    assert "1 phases completed" in e.reason


def test_too_few_bytes_copied_leaves_the_phase_open() -> None:
    e = fails(init() + issue(0, 0, nbytes=2 * BYTES) + wait(0), "hang")
    assert f"0 of 1 arrivals missing, transaction count {BYTES} bytes" in e.reason


def test_a_transaction_count_left_at_the_end_is_a_hang() -> None:
    e = fails(init() + issue(0, 0, nbytes=BYTES + 64), "hang")
    assert "is still valid when the threads finish with transaction count 64 bytes" in e.reason
    assert e.ops[0].attr("catalog_id") == "tma.load"


def test_two_phases_on_one_barrier() -> None:
    upper = ("%c8 = constant() {value = 8} : index\n"
             f"%up = view(%sa, %c8) {{bounds = \"total\", {ROWS}}} : mem<8x64xbf16, shared>\n")
    body = (upper + init() + issue(0, 0, "a") + wait(0, "a")
            + issue(2, 0, "b", dst="%up") + wait(1, "b") + read(8))
    x, out = run(body)
    np.testing.assert_array_equal(out.astype(np.float32), window(x, 2, 0).astype(np.float32))
    # reading phase 1's rows having waited for phase 0 only is a race
    e = fails(body.replace(wait(1, "b"), ""), "race")
    assert "written by tma.load (barrier %bars[0], phase 1)" in e.reason
    assert "observed 1 completed phases" in e.reason


def test_a_refill_in_the_epoch_of_other_threads_reads_races() -> None:
    again = issue(4, 0, "b") + wait(1, "b")
    e = fails(init() + issue(0, 0, "a") + wait(0, "a") + read() + again, "race")
    assert [op.name for op in e.ops] == ["load", "atom.call"]
    assert e.ops[1].attr("catalog_id") == "tma.load"
    # a barrier between the reads and the refill orders them; the new box is read after its wait
    ring = init() + issue(0, 0, "a") + wait(0, "a") + read() + BARRIER + again
    x, out = run(ring + read(k="2"))
    np.testing.assert_array_equal(out.astype(np.float32), window(x, 4, 0).astype(np.float32))


def test_init_of_a_valid_barrier_fails_and_inval_allows_it_again() -> None:
    e = fails(init() + init("j"), "unsupported")
    assert "barrier %bars[0] is already initialized" in e.reason
    assert [op.attr("catalog_id") for op in e.ops] == ["mbarrier.init", "mbarrier.init"]
    run(init() + INVAL + init("j"))


def test_ops_on_an_invalidated_barrier_fail() -> None:
    e = fails(init() + INVAL + issue(0, 0), "unsupported")
    assert "mbarrier.expect_tx: barrier %bars[0] was invalidated by" in e.reason
    e = fails(issue(0, 0), "unsupported")
    assert "barrier %bars[0] is not initialized" in e.reason


def test_destination_must_start_on_a_1024_byte_boundary() -> None:
    half = f"%mid = view(%sa, %c4) {{bounds = \"total\", {ROWS}}} : mem<8x64xbf16, shared>\n"
    e = fails(half + init() + issue(0, 0, dst="%mid"), "unsupported")
    assert f"starts at byte 512 of %sa, not on a {SWIZZLE_ALIGN}-byte boundary" in e.reason


def test_destination_must_be_swizzled_and_contiguous() -> None:
    plain = SHARED.replace(" {swizzle = 128}", "")
    e = fails(init() + issue(0, 0), "unsupported", shared=plain)
    assert "the destination %sa has swizzle 0" in e.reason
    cols = ("%half = view(%sa, %c0) {bounds = \"total\", "
            "map = #map<(d0, d1)[s0] -> (d0 + s0, d1)>} : mem<16x32xbf16, shared>\n")
    e = fails(cols + init() + issue(0, 0, dst="%half", box="[16, 32]"),
              "unsupported")
    assert "not a contiguous block of %sa" in e.reason


def test_box_elements_must_match_the_destination() -> None:
    e = fails(init() + issue(0, 0, box="[4, 64]"), "unsupported")
    assert "the box (4, 64) has 256 elements, the destination view 512" in e.reason


# ------------------------------------------------------------------ the model directly


def _ops() -> dict[str, ir.Operation]:
    m = machine(BAR + init() + issue(0, 0) + wait(0) + read(), PARAMS,
                threads=THREADS, shared=SHARED)
    ops = {cid: find(m, "atom.call", catalog_id=cid)[0]
           for cid in ("mbarrier.init", "mbarrier.expect_tx", "tma.load", "mbarrier.wait")}
    ops["load"] = find(m, "load")[0]
    ops["row"] = next(op for op in find(m, "view") if op.result.name_hint == "row")
    return ops


def _storages(lanes: int) -> tuple[Storage, Storage, Storage]:
    init = _ops()["mbarrier.init"]
    clock = GroupClock()
    bars = Storage.shared((2,), np.dtype(np.int64), "%b", init, clock)
    sa = Storage(np.zeros((16, 64), BF16), "shared", "%s", swizzle=128)
    x = Storage(x_array(), "global", "x")
    return bars, sa, x


def test_a_phase_completes_only_with_all_arrivals_and_no_bytes_left() -> None:
    ops = _ops()
    bars, sa, x = _storages(4)
    mb = Mbarriers(4)
    mb.init(ops["mbarrier.init"], bars, 1, 2)
    b = mb.lookup(bars, 1)
    assert b is not None and (b.count, b.pending, b.tx, b.phases) == (2, 2, 0, 0)
    mb.expect_tx(ops["mbarrier.expect_tx"], bars, 1, 100, 0)
    assert (b.pending, b.tx, b.phases) == (1, 100, 0)
    mb.expect_tx(ops["mbarrier.expect_tx"], bars, 1, 0, 1)   # all arrivals, bytes left
    assert (b.pending, b.tx, b.phases) == (0, 100, 0)
    with pytest.raises(SimulationError) as info:
        mb.expect_tx(ops["mbarrier.expect_tx"], bars, 1, 0, 2)
    assert "more than its count of 2 times in phase 0" in info.value.reason
    b.tx = 0
    b.pending = 2
    mb.expect_tx(ops["mbarrier.expect_tx"], bars, 1, 0, 0)
    mb.expect_tx(ops["mbarrier.expect_tx"], bars, 1, 0, 3)
    assert (b.pending, b.tx, b.phases) == (2, 0, 1)       # no bytes: done at the last arrival
    wait = ops["mbarrier.wait"]
    mb.wait(wait, bars, np.array([1, 1]), np.array([0, 2]), np.array([0, 0]))
    np.testing.assert_array_equal(mb.observed[b.number], [1, 0, 1, 0])
    with pytest.raises(SimulationError) as info:
        mb.wait(wait, bars, np.array([1]), np.array([3]), np.array([1]))
    assert info.value.kind == "hang" and "thread 3 waits on barrier %b[1]" in info.value.reason
    with pytest.raises(SimulationError) as info:
        mb.wait(wait, bars, np.array([1]), np.array([3]), np.array([2]))
    assert info.value.kind == "unsupported" and "a parity is 0 or 1" in info.value.reason


def test_model_tma_load_tags_and_wait_clears_the_race() -> None:
    ops = _ops()
    bars, sa, x = _storages(4)
    mb = Mbarriers(4)
    mb.init(ops["mbarrier.init"], bars, 0, 1)
    mb.expect_tx(ops["mbarrier.expect_tx"], bars, 0, BYTES, 0)
    dst = np.arange(8 * 64, 16 * 64)  # rows 8-15: byte 1024
    mb.tma_load(ops["tma.load"], 0, sa, dst, x, (-2, -1), (8, 64), bars, 0, 128)
    b = mb.lookup(bars, 0)
    assert b is not None and (b.phases, b.tx) == (1, 0)
    assert sa.tma is mb
    got = sa.array.reshape(-1)[sa.physical(dst)].reshape(8, 64)
    np.testing.assert_array_equal(got.astype(np.float32),
                                  window(x.array, -2, -1).astype(np.float32))
    assert got[2, 1] == x.array[0, 0] and got[1, 1] == 0 and got[2, 0] == 0
    # the copy writes the 128-byte swizzle: in row 10 (10 mod 8 = 2) 16-byte chunks 0 and 2
    # trade places
    raw = sa.array.reshape(-1)
    assert raw[10 * 64 + 16 + 1] == x.array[0, 0] and raw[10 * 64 + 1] == x.array[0, 16]
    load = ops["load"]
    view = LaneView.of(sa).view(ops["row"].attr("map"), (np.int64(0),), (64,), True, load)
    active = np.ones(4, bool)
    gather(view, active, load, 0, np.dtype(BF16))   # row 0: nothing copied there, no check
    row9 = LaneView.of(sa).view(ops["row"].attr("map"), (np.int64(9),), (64,), True, load)
    with pytest.raises(SimulationError) as info:
        gather(row9, active, load, 0, np.dtype(BF16))
    assert info.value.kind == "race"
    assert info.value.reason.startswith("thread 0 reads element (9, 0) of shared memory %s")
    mb.wait(ops["mbarrier.wait"], bars, np.array([0, 0]), np.array([0, 1]), np.array([0, 0]))
    with pytest.raises(SimulationError) as info:
        gather(row9, active, load, 0, np.dtype(BF16))
    assert info.value.reason.startswith("thread 2 reads element (9, 0)")
    mb.wait(ops["mbarrier.wait"], bars, np.array([0, 0]), np.array([2, 3]), np.array([0, 0]))
    rows = gather(row9, active, load, 0, np.dtype(BF16))
    np.testing.assert_array_equal(rows[3].astype(np.float32),
                                  window(x.array, -2, -1)[1].astype(np.float32))
    # a warpgroup instruction checks every thread of its warpgroup
    wg = Mbarriers(128)
    wg.init(ops["mbarrier.init"], bars, 1, 1)
    wg.expect_tx(ops["mbarrier.expect_tx"], bars, 1, BYTES, 0)
    wg.tma_load(ops["tma.load"], 0, sa, np.arange(8 * 64), x, (0, 0), (8, 64), bars, 1, 128)
    lanes = np.array([k for k in range(128) if k != 77])
    wg.wait(ops["mbarrier.wait"], bars, np.full(lanes.size, 1), lanes, np.zeros(lanes.size))
    with pytest.raises(SimulationError) as info:
        wg.check_warpgroup(sa, sa.physical(np.arange(64)), 0, 128, load)
    assert info.value.reason.startswith("thread 77 reads element (0, 0)")


def test_model_alignment_and_init_checks() -> None:
    ops = _ops()
    bars, sa, x = _storages(1)
    mb = Mbarriers(1)
    mb.init(ops["mbarrier.init"], bars, 0, 1)
    with pytest.raises(SimulationError) as info:
        mb.init(ops["mbarrier.init"], bars, 0, 1)
    assert info.value.kind == "unsupported" and "already initialized" in info.value.reason
    with pytest.raises(SimulationError) as info:
        mb.init(ops["mbarrier.init"], bars, 1, 0)
    assert "count >= 1, got 0" in info.value.reason
    with pytest.raises(SimulationError) as info:
        local = Storage(np.zeros((1, 2), np.int64), "local", "%l")
        mb.init(ops["mbarrier.init"], local, 0, 1)
    assert "lives in shared memory" in info.value.reason
    with pytest.raises(SimulationError) as info:  # 64 elements = 128 bytes in
        mb.tma_load(ops["tma.load"], 0, sa, np.arange(64, 64 + 512), x, (0, 0), (8, 64), bars,
                    0, 128)
    assert "starts at byte 128 of %s, not on a 1024-byte boundary" in info.value.reason
    with pytest.raises(SimulationError) as info:
        mb.tma_load(ops["tma.load"], 0, sa, np.arange(512), x, (0, 0), (8, 64), bars, 0, 64)
    assert "its swizzle is 64" in info.value.reason
    b = mb.lookup(bars, 0)
    assert b is not None and b.tx == 0 and sa.tma is None  # nothing was issued or tagged


def test_a_copy_into_a_pending_cp_async_destination_races() -> None:
    ops = _ops()
    bars, sa, x = _storages(2)
    sa.pending = np.zeros(sa.array.size, np.int32)
    sa.pending[5] = 1
    mb = Mbarriers(2)
    mb.init(ops["mbarrier.init"], bars, 0, 1)
    with pytest.raises(SimulationError) as info:
        mb.tma_load(ops["tma.load"], 1, sa, np.arange(512), x, (0, 0), (8, 64), bars, 0, 128,
                    AsyncCopies(2))
    assert info.value.kind == "race" and "thread 1 accesses it with" in info.value.reason


class _Ctx:
    """The group context an atom implementation sees."""

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes
        self.clock = GroupClock()
        self.copies = AsyncCopies(lanes)
        self.wgmma = InFlightGroups(max(lanes // 128, 1))
        self.mbarriers = Mbarriers(lanes)

    def divergence_cause(self) -> None:
        return None


def test_run_atom_drives_the_model_with_real_ops() -> None:
    ops = _ops()
    ctx = _Ctx(4)
    bars = Storage.shared((2,), np.dtype(np.int64), "%b", ops["mbarrier.init"], ctx.clock)
    sa = Storage(np.zeros((16, 64), BF16), "shared", "%s", swizzle=128)
    x = Storage(x_array(), "global", "x")
    bar = LaneView(bars, (1,))
    one = np.array([True, False, False, False])
    everyone = np.ones(4, bool)
    run_atom(ctx, ops["mbarrier.init"], [bar], one)
    run_atom(ctx, ops["mbarrier.expect_tx"], [bar, np.full(4, BYTES)], one)
    coords = [np.full(4, 1), np.full(4, 0)]
    assert run_atom(ctx, ops["tma.load"], [LaneView(sa, (8, 64)), LaneView.of(x), bar, *coords],
                    one) == [None]
    b = ctx.mbarriers.lookup(bars, 0)
    assert b is not None and b.phases == 1
    assert run_atom(ctx, ops["mbarrier.wait"], [bar, np.zeros(4, np.int64)], everyone) == []
    np.testing.assert_array_equal(ctx.mbarriers.observed[b.number], [1, 1, 1, 1])
    got = sa.array.reshape(-1)[sa.physical(np.arange(512))].reshape(8, 64)
    np.testing.assert_array_equal(got.astype(np.float32), window(x.array, 1, 0).astype(np.float32))
    with pytest.raises(SimulationError) as info:
        run_atom(ctx, ops["mbarrier.wait"], [bar, np.ones(4, np.int64)], everyone)
    assert info.value.kind == "hang" and "thread 0 waits" in info.value.reason


# ------------------------------------------------------------------ releases by arrival

EMPTY = (f"%emp = view(%bars, %c1) {{bounds = \"total\", {ONE}}} : mem<1xi64, shared>\n")
"""The second barrier %bars[1]: the readers release the buffer on it."""


def init_empty(count: int) -> str:
    return on_thread0(f'%ie = atom.call(%emp) {{catalog_id = "mbarrier.init", count = {count}}} '
                      ': token', "ie")


def arrive(below: int = THREADS, k: str = "") -> str:
    """Threads ``tid < below`` arrive on %emp."""
    return f"""
    %bl{k} = constant() {{value = {below}}} : index
    %ar{k} = arith(%tid, %bl{k}) {{fn = "lt"}} : i1
    if(%ar{k}) ({{
      %at{k} = atom.call(%emp) {{catalog_id = "mbarrier.arrive"}} : token
      yield()
    }}, {{
      yield()
    }})
"""


def released_refill() -> str:
    """Thread 0 waits for %emp's first phase, then refills the rows the threads read."""
    return on_thread0("""
      %pe = constant() {value = 0} : index
      atom.call(%emp, %pe) {catalog_id = "mbarrier.wait"}""", "rw") + issue(4, 0, "b")


def test_a_refill_after_every_reader_arrived_needs_no_group_barrier() -> None:
    # the ring protocol of machine_ring: readers arrive on an empty barrier, the producer
    # waits for it and refills; the arrivals order the reads before the copy
    body = (EMPTY + init() + init_empty(THREADS) + BARRIER + issue(0, 0, "a") + wait(0, "a")
            + read() + arrive() + released_refill() + wait(1, "b") + read(k="2"))
    x, out = run(body)
    np.testing.assert_array_equal(out.astype(np.float32), window(x, 4, 0).astype(np.float32))


def test_a_reader_that_did_not_arrive_races_with_the_refill() -> None:
    # the barrier counts 7 arrivals; thread 7 never arrives, so its read is unordered
    body = (EMPTY + init() + init_empty(THREADS - 1) + BARRIER + issue(0, 0, "a")
            + wait(0, "a") + read() + arrive(THREADS - 1) + released_refill())
    e = fails(body, "race")
    assert "thread 7" in str(e) and e.ops[-1].attr("catalog_id") == "tma.load"


def test_an_arrival_before_the_read_does_not_order_it() -> None:
    body = (EMPTY + init() + init_empty(THREADS) + BARRIER + issue(0, 0, "a") + wait(0, "a")
            + arrive() + read() + released_refill())
    fails(body, "race")


def test_a_missing_arrival_hangs_the_producer() -> None:
    body = (EMPTY + init() + init_empty(THREADS) + BARRIER + issue(0, 0, "a") + wait(0, "a")
            + read() + arrive(THREADS - 1) + released_refill())
    e = fails(body, "hang")
    assert "1 of 8 arrivals missing" in str(e)


def read_shared_row() -> str:
    """Every thread copies row 0 of %sa to its row of %out (eight readers per element)."""
    return read().replace("%ri = arith(%tid, %rr) {fn = \"add\"} : index",
                          "%ri = arith(%c0, %rr) {fn = \"add\"} : index")


def test_elements_every_thread_read_are_ordered_by_all_their_arrivals() -> None:
    # more readers than the detector remembers per element: the allocation's readers
    # all arrived after the element's latest read, so the refill is ordered
    shared = read_shared_row()
    assert "%ri = arith(%c0" in shared
    body = (EMPTY + init() + init_empty(THREADS) + BARRIER + issue(0, 0, "a") + wait(0, "a")
            + shared + arrive() + released_refill() + wait(1, "b") + read(k="2"))
    x, out = run(body)
    np.testing.assert_array_equal(out.astype(np.float32), window(x, 4, 0).astype(np.float32))
    # one reader that does not arrive leaves the refill unordered
    body = (EMPTY + init() + init_empty(THREADS - 1) + BARRIER + issue(0, 0, "a")
            + wait(0, "a") + shared + arrive(THREADS - 1) + released_refill())
    fails(body, "race")
