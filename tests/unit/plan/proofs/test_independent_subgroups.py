"""The independent-subgroup proof (``plan/proofs/independent_subgroups.py``) and the option
that applies it (``PlannerOptions.elide_independent_subgroup_barriers``): positive cases (a
buffer read back by the threads that wrote it: the barrier goes; a transposed read inside
one subgroup: it becomes ``barrier.subgroup``), the seed's counterexamples (a read across
subgroups, a reduction across subgroups, a loop-carried dependence), and the simulator
catching a barrier weakened by hand where the proof keeps it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from paths import CUBIN_ARCHS, cubin, needs_nvrtc
from subgroup_kernels import carried, column_sums, inputs, read_own, read_transposed
from tilec.lower import LowerOptions, lower
from tilec.plan import PlannerOptions
from tilec.plan.proofs.independent_subgroups import KEEP, NONE, SUBGROUP
from tilec.targets.metal.check import check_msl, checker_unavailable
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

TARGETS = ("cuda:sm_90", "cuda:sm_80", "metal:m1")


def _options(elide: bool, threads: int | None = None, **planner) -> LowerOptions:
    o = LowerOptions()
    return replace(o, planner=replace(o.planner, elide_independent_subgroup_barriers=elide,
                                      threads=threads, **planner))


def _lowered(kernel, target: str, elide: bool = True, threads: int | None = None, **planner):
    x, out = inputs(kernel)
    compiled = tc.compile(kernel, x, out, target="reference")
    return lower(compiled.module, target, _options(elide, threads, **planner))


def _count(module: ir.Module, cid: str) -> int:
    return sum(1 for fn in module for op in fn.walk()
               if op.name == "atom.call" and op.attr("catalog_id") == cid)


def _sites(res) -> list[tuple[str, str]]:
    return [(s["needs"], s["reason"]) for s in res.resources[0]["independent_subgroups"]["sites"]]


def test_the_option_is_off_by_default() -> None:
    assert PlannerOptions().elide_independent_subgroup_barriers is False
    res = _lowered(read_own, "cuda:sm_90", elide=False)
    assert "independent_subgroups" not in res.resources[0]
    assert _count(res.machine, "barrier.group") == 1


@pytest.mark.parametrize("target", TARGETS)
def test_a_buffer_read_by_its_writers_needs_no_barrier(target: str) -> None:
    off = _lowered(read_own, target, elide=False)
    on = _lowered(read_own, target)
    assert _count(off.machine, "barrier.group") == 1
    assert _count(on.machine, "barrier.group") == _count(on.machine, "barrier.subgroup") == 0
    assert _sites(on) == [(NONE, "each element accessed on both sides (with a write) is one "
                                 "thread's")]
    assert on.resources[0]["group_barrier_sites"]["after"] == \
        off.resources[0]["group_barrier_sites"]["after"] - 1


@pytest.mark.parametrize("target", TARGETS)
def test_a_transpose_inside_one_subgroup_gets_a_subgroup_barrier(target: str) -> None:
    on = _lowered(read_transposed, target, threads=32)
    assert _count(on.machine, "barrier.group") == 0
    assert _count(on.machine, "barrier.subgroup") == 1
    assert on.resources[0]["subgroup_barrier_sites"] == 1
    assert _sites(on) == [(SUBGROUP, "the threads that share an element of memory_buf are in "
                                     "one subgroup")]


def test_the_subgroup_barrier_is_printed_for_each_target() -> None:
    x, out = inputs(read_transposed)
    variant = {"elide_independent_subgroup_barriers": True, "threads": 32}
    cuda = tc.compile(read_transposed, x, out, target="cuda:sm_90", variant=variant)
    src = cuda.source if isinstance(cuda.source, str) else cuda.source.text
    assert "__syncwarp();" in src and "__syncthreads();" not in src
    metal = tc.compile(read_transposed, x, out, target="metal", variant=variant)
    msl = metal.source if isinstance(metal.source, str) else metal.source.text
    assert "simdgroup_barrier(mem_flags::mem_threadgroup);" in msl
    assert "threadgroup_barrier" not in msl


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
def test_the_subgroup_barrier_compiles(target: str, arch: str) -> None:
    x, out = inputs(read_transposed)
    compiled = tc.compile(read_transposed, x, out, target=target,
                          variant={"elide_independent_subgroup_barriers": True, "threads": 32})
    src = compiled.compilation("emit").source  # the CUDASource, before any build
    assert "__syncwarp();" in src.text
    cubin(src, arch)


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
def test_the_metal_subgroup_barrier_passes_the_check() -> None:
    x, out = inputs(read_transposed)
    exe = tc.compile(read_transposed, x, out, target="metal:m1",
                     variant={"elide_independent_subgroup_barriers": True, "threads": 32}
                     ).executable()
    assert "simdgroup_barrier(mem_flags::mem_threadgroup);" in exe.source
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)


@pytest.mark.parametrize("target", TARGETS)
def test_a_read_across_subgroups_keeps_the_group_barrier(target: str) -> None:
    on = _lowered(read_transposed, target, threads=64)
    assert _count(on.machine, "barrier.group") == 1
    assert _sites(on) == [(KEEP, "threads of different subgroups share elements of "
                                 "memory_buf")]


@pytest.mark.parametrize("threads", [32, 64])
def test_a_reduction_across_subgroups_keeps_its_barrier(threads: int) -> None:
    on = _lowered(column_sums, "cuda:sm_90", threads=threads)
    needs = [n for n, _ in _sites(on)]
    assert needs[0] == NONE  # the buffer's own round trip
    assert needs[1:] == [KEEP]  # the column sums' partials, read in a loop by other threads
    assert "'serial'" in _sites(on)[1][1]


def test_a_loop_carried_dependence_keeps_the_barriers_at_the_body_edges() -> None:
    """One subgroup (every dependence is subgroup-local): the barrier inside the body
    between the read and the write still becomes a subgroup barrier, but the ones whose
    accesses reach the body's start or end stay, since the other iteration's accesses are
    not known there."""
    on = _lowered(carried, "cuda:sm_90", threads=32)
    sites = _sites(on)
    assert [n for n, _ in sites] == [KEEP, SUBGROUP, KEEP, KEEP]
    assert "previous iteration" in sites[0][1] and "next iteration" in sites[2][1]
    across = _lowered(carried, "cuda:sm_90", threads=64)
    assert [n for n, _ in _sites(across)] == [KEEP] * 4


def test_whole_subgroups_only_and_the_planner_needed() -> None:
    from tilec.plan.proofs.independent_subgroups import prove

    blk = ir.Block([ir.index], ["tid"])
    fact = prove(blk, [], 48, 32)
    assert fact.reason == "the lowering placed no group barrier of its own"
    res = _lowered(read_own, "cuda:sm_90", enabled=False)
    assert "independent_subgroups" not in res.resources[0]
    res = _lowered(read_own, "cuda:sm_90", coalesce_group_barriers=False)
    assert "independent_subgroups" not in res.resources[0]


def test_a_barrier_of_some_threads_is_a_boundary() -> None:
    """A named barrier before a fence orders one role's threads only: the accesses before it
    are not known to be ordered, so the fence after it stays (an explicit group barrier, by
    contrast, orders everything before it)."""
    from tilec.plan.proofs.independent_subgroups import prove

    for cid, attrs, kept in (("barrier.named", {"id": 1, "threads": 32}, True),
                             ("barrier.group", {}, False)):
        res = _lowered(read_transposed, "cuda:sm_90", elide=False, threads=32)
        (fence,) = [op for fn in res.machine for op in fn.walk()
                    if op.name == "atom.call" and op.attr("catalog_id") == "barrier.group"]
        blk = fence.parent
        first = next(op for op in blk.operations if op.name == "store")
        blk.insert_op(ir.Operation("atom.call", [], [], {"catalog_id": cid, **attrs}), first)
        fact = prove(blk, [fence], 32, 32)
        needs = [s.needs for s in fact.sites]
        assert needs == ([KEEP] if kept else [SUBGROUP]), (cid, fact.sites)


# ------------------------------------------------------- the simulator checks the proof


def _run(res, kernel) -> np.ndarray:
    x, out = inputs(kernel)
    out[:] = np.nan
    simulate_module(res.machine, kernel.fn.__name__, [x, out])
    return out


def _weaken(module: ir.Module, to: str | None, width: int = 32) -> int:
    """Replace every ``barrier.group`` by ``to`` (None: remove it); how many."""
    ops = [op for fn in module for op in fn.walk()
           if op.name == "atom.call" and op.attr("catalog_id") == "barrier.group"]
    for op in ops:
        if to is not None:
            op.parent.insert_op(ir.Operation("atom.call", [], [], {"catalog_id": to,
                                                                   "width": width}), op)
        op.erase()
    return len(ops)


@pytest.mark.parametrize("to", ["barrier.subgroup", None])
@pytest.mark.parametrize("kernel,threads", [(read_transposed, 64), (read_transposed, None),
                                            (carried, 64)])
def test_the_simulator_reports_a_barrier_weakened_across_subgroups(kernel, threads, to
                                                                   ) -> None:
    res = _lowered(kernel, "cuda:sm_90", elide=False, threads=threads)
    assert _weaken(res.machine, to) >= 1
    with pytest.raises(SimulationError, match="race|no barrier.group"):
        _run(res, kernel)


def test_the_simulator_reports_a_subgroup_barrier_removed_inside_one_subgroup() -> None:
    res = _lowered(read_transposed, "cuda:sm_90", threads=32)
    assert _count(res.machine, "barrier.subgroup") == 1
    want = _run(res, read_transposed)  # the proved program runs clean
    for fn in res.machine:
        for op in list(fn.walk()):
            if op.name == "atom.call" and op.attr("catalog_id") == "barrier.subgroup":
                op.erase()
    with pytest.raises(SimulationError, match="race"):
        _run(res, read_transposed)
    x, _ = inputs(read_transposed)
    np.testing.assert_array_equal(want, x.reshape(-1, 16, 16).transpose(0, 2, 1).reshape(-1, 16))


def test_the_simulator_reports_a_subgroup_barrier_some_threads_skip() -> None:
    res = _lowered(read_transposed, "cuda:sm_90", threads=32)
    (bar,) = [op for fn in res.machine for op in fn.walk()
              if op.name == "atom.call" and op.attr("catalog_id") == "barrier.subgroup"]
    blk = bar.parent
    tid = blk.args[0]
    b = ir.Builder(ir.InsertionPoint.before_op(bar))
    c = b.create("constant", [], [ir.index], {"value": 3}).result
    cond = b.create("arith", [tid, c], [ir.i1], {"fn": "lt"}).result
    then, other = ir.Block(), ir.Block()
    b.create("if", [cond], [], {}, [ir.Region([then]), ir.Region([other])])
    bar.remove_self()
    then.insert_op(bar)
    ir.Builder(ir.InsertionPoint.at_end(then)).create("yield")
    ir.Builder(ir.InsertionPoint.at_end(other)).create("yield")
    with pytest.raises(SimulationError, match="barrier.subgroup is reached by 3 of the 32"):
        _run(res, read_transposed)
