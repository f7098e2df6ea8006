"""Clusters in the SIMT simulator (simt_cluster): two groups co-simulated, barrier.cluster,
mbarrier.arrive.peer and multicast tma.load, and the race detector across groups.

The kernel: each group of a cluster of two (8 threads) initializes a ``full`` barrier (one
arrival) and an ``empty`` barrier (both groups' threads), meets its peer, and waits for a box
that rank 0 multicasts into both groups' buffers; every thread copies its row out, releases
the buffer on both groups' ``empty`` barriers, and rank 0 refills both buffers once its own
``empty`` phase completes; the threads read the second box and the groups meet again."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from simtir import find, machine

import tilec.ir as ir
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

BF16 = ml_dtypes.bfloat16
THREADS = 8
BYTES = 8 * 64 * 2
ONE = "map = #map<(d0)[s0] -> (d0 + s0)>"
ROWS = "map = #map<(d0, d1)[s0] -> (d0 + s0, d1)>"
SHARED = """
%bars = memory() : mem<2xi64, shared>
%sa = memory() {swizzle = 128} : mem<16x64xbf16, shared>
"""
PARAMS = "%x: mem<10x40xbf16, global>, %out: mem<16x64xbf16, global>"

HEAD = f"""
%rank = arith(%p, %c2) {{fn = "rem"}} : index
%peer = arith(%c1, %rank) {{fn = "sub"}} : index
%first = arith(%rank, %c0) {{fn = "eq"}} : i1
%t0 = arith(%tid, %c0) {{fn = "eq"}} : i1
%issuer = arith(%first, %t0) {{fn = "and"}} : i1
%bar = view(%bars, %c0) {{bounds = "total", {ONE}}} : mem<1xi64, shared>
%emp = view(%bars, %c1) {{bounds = "total", {ONE}}} : mem<1xi64, shared>
%lo = view(%sa, %c0) {{bounds = "total", {ROWS}}} : mem<8x64xbf16, shared>
%nb = constant() {{value = {BYTES}}} : index
"""
MEET = 'atom.call() {catalog_id = "barrier.cluster"}\n'


def when(cond: str, body: str) -> str:
    return f"if({cond}) ({{\n{body}\nyield()\n}}, {{\nyield()\n}})\n"


def init(empty_count: int = 2 * THREADS) -> str:
    return when("%t0", f"""
      %i0 = atom.call(%bar) {{catalog_id = "mbarrier.init", count = 1}} : token
      %i1 = atom.call(%emp) {{catalog_id = "mbarrier.init", count = {empty_count}}} : token""")


def fill(row: int, k: str) -> str:
    """Thread 0 of each group expects the box's bytes; rank 0 multicasts the box of ``x`` at
    row ``row`` into both groups' ``%lo``."""
    return when("%t0", f'%e{k} = atom.call(%bar, %nb) {{catalog_id = "mbarrier.expect_tx"}} '
                ": token") + when("%issuer", f"""
      %r{k} = constant() {{value = {row}}} : index
      %l{k} = atom.call(%lo, %x, %bar, %r{k}, %c0) {{catalog_id = "tma.load", box = [8, 64],
          multicast = 2, swizzle = 128}} : token""")


def wait(bar: str, parity: int, k: str) -> str:
    return f"""
    %ph{k} = constant() {{value = {parity}}} : index
    atom.call({bar}, %ph{k}) {{catalog_id = "mbarrier.wait"}}
"""


def read(k: str) -> str:
    """Thread t of program p copies row t of %sa to row 8 p + t of %out."""
    return f"""
    %row{k} = view(%sa, %tid) {{bounds = "total", map = #map<(d0)[s0] -> (s0, d0)>}}
        : mem<64xbf16, shared>
    %v{k} = load(%row{k}) : tile<64xbf16>
    %o8{k} = constant() {{value = 8}} : index
    %ob{k} = arith(%p, %o8{k}) {{fn = "mul"}} : index
    %oi{k} = arith(%ob{k}, %tid) {{fn = "add"}} : index
    %dst{k} = view(%out, %oi{k}) {{bounds = "total", map = #map<(d0)[s0] -> (s0, d0)>}}
        : mem<64xbf16, global>
    store(%dst{k}, %v{k})
"""


def release(own: bool = True, peer: bool = True, rank: str = "%peer", k: str = "") -> str:
    out = f'%ra{k} = atom.call(%emp) {{catalog_id = "mbarrier.arrive"}} : token\n' if own else ""
    if peer:
        out += (f'%rp{k} = atom.call(%emp, {rank}) {{catalog_id = "mbarrier.arrive.peer"}} '
                ": token\n")
    return out


def refill() -> str:
    """Rank 0's thread 0 waits for its ``empty`` phase, then both groups take the next box."""
    return when("%issuer", wait("%emp", 0, "e")) + fill(2, "b") + wait("%bar", 1, "b")


def protocol(empty_count: int = 2 * THREADS, rel: str | None = None, early: bool = False,
             meets: tuple[str, str] = (MEET, MEET)) -> str:
    """``early``: rank 1's threads release the first box before they read it."""
    rel = release() if rel is None else rel
    first = [wait("%bar", 0, "a"), read("a"), rel]
    if early:
        first = [wait("%bar", 0, "a"), f"""
        if(%first) ({{
          {read("a")}
          {release(k="x")}
          yield()
        }}, {{
          {release(k="y")}
          {read("c")}
          yield()
        }})"""]
    return (HEAD + init(empty_count) + meets[0] + fill(0, "a") + "".join(first) + refill()
            + read("b") + meets[1])


def kernel(body: str, cluster: int | None = 2, groups: int = 2) -> ir.Module:
    m = machine(body, PARAMS, threads=THREADS, groups=groups, shared=SHARED)
    if cluster is not None:
        find(m, "parallel", level="grid")[0].attributes["cluster"] = cluster
    return m


def x_array() -> np.ndarray:
    return (np.arange(400).reshape(10, 40) % 251 + 1).astype(BF16)


def run(body: str, **kw) -> np.ndarray:
    out = np.full((16, 64), np.nan, BF16)
    simulate_module(kernel(body, **kw), "k", [x_array(), out])
    return out.astype(np.float32)


def fails(body: str, kind: str, **kw) -> SimulationError:
    with pytest.raises(SimulationError) as info:
        run(body, **kw)
    assert info.value.kind == kind, str(info.value)
    return info.value


def test_both_groups_read_the_multicast_boxes() -> None:
    out = run(protocol())
    want = np.zeros((8, 64), np.float32)
    want[:, :40] = x_array()[2:10].astype(np.float32)
    np.testing.assert_array_equal(out[:8], want)  # the second box, in both programs
    np.testing.assert_array_equal(out[8:], want)


def test_two_clusters_run_one_after_another() -> None:
    out = np.full((32, 64), np.nan, BF16)
    m = machine(protocol(), PARAMS.replace("16x64", "32x64"), threads=THREADS, groups=4,
                shared=SHARED)
    find(m, "parallel", level="grid")[0].attributes["cluster"] = 2
    simulate_module(m, "k", [x_array(), out])
    assert not np.isnan(out.astype(np.float32)).any()


def test_a_refill_before_the_peer_released_races() -> None:
    # the empty barrier counts this group's threads only, so rank 0 refills the peer's buffer
    # before the peer's threads waited for the first box: the copy meets its tags
    e = fails(protocol(THREADS, rel=release(peer=False)), "race")
    assert "thread 0 of program 0 writes element" in str(e) and "%sa" in str(e)


def test_a_release_before_the_read_does_not_order_it() -> None:
    # the peer's threads release, then read: rank 0's refill is unordered with their reads,
    # which the peer group's detector sees as a write by rank 0's mirror lane
    e = fails(protocol(early=True), "race")
    assert "read by thread 0 of program 1" in str(e) and "write by thread 0 of program 0" \
        in str(e) and "no barrier.cluster nor a barrier phase" in str(e)


def test_a_missing_peer_release_hangs() -> None:
    e = fails(protocol(rel=release(peer=False)), "hang")
    assert "8 of 16 arrivals missing" in str(e)


def test_a_group_that_skips_a_meeting_hangs_its_peer() -> None:
    e = fails(HEAD + MEET + when("%first", MEET), "hang")
    assert "program 0 waits at its cluster barrier number 2" in str(e) \
        and "program 1 has ended after 1 cluster barrier(s)" in str(e)
    # a peer that waits elsewhere: its own barrier's phase, which nothing completes
    e = fails(HEAD + init() + when("%first", MEET) + wait("%emp", 0, "w"), "hang")
    assert "program 1 waits elsewhere after 0 cluster barrier(s)" in str(e)


def test_a_peer_that_ends_without_the_last_meeting_races() -> None:
    # rank 1 skips the last meeting: rank 0's copies into it are not ordered before its end
    e = fails(protocol(meets=(MEET, when("%first", MEET))), "race")
    assert "reaches the shared memory of program 1, whose group then ends" in str(e)


def test_a_barrier_used_before_the_meeting_races() -> None:
    # no meeting after the initialization: rank 0 copies into the peer's buffer before the
    # peer's threads started, or into a barrier whose initialization it may not see
    e = fails(protocol(meets=("", MEET)), "race")
    assert "program 1" in str(e)


def test_no_meeting_before_the_end_races() -> None:
    e = fails(protocol(meets=(MEET, "")), "race")
    assert "with no barrier.cluster between" in str(e)


def test_a_meeting_inside_divergent_control_flow_diverges() -> None:
    e = fails(protocol(meets=(MEET, when("%t0", MEET))), "divergence")
    assert "barrier.cluster is reached by 1 of the group's 8 threads" in str(e)


def test_a_rank_outside_the_cluster_is_an_error() -> None:
    e = fails(protocol(rel=release(rank="%c2")), "unsupported")
    assert "names cluster rank 2; the cluster has ranks 0 to 1" in str(e)


def test_cluster_atoms_need_a_cluster() -> None:
    e = fails(protocol(meets=("", "")), "unsupported", cluster=None)
    assert "multicast = 2 on a grid without clusters" in str(e)
    e = fails(HEAD + init() + release(own=False), "unsupported", cluster=None)
    assert "mbarrier.arrive.peer on a grid without clusters" in str(e)
    e = fails(MEET, "unsupported", cluster=None)
    assert "barrier.cluster on a grid without clusters" in str(e)


def test_a_grid_of_partial_clusters_is_an_error() -> None:
    e = fails(protocol(), "unsupported", groups=3)
    assert "not whole clusters of 2 groups" in str(e)
