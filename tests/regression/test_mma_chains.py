"""Issue: chained ``mma`` accumulators crashed the lowering (AssertionError in ``_mma``).

When an mma's accumulator was another mma's result and fed a K loop, the two
realizations usually wanted different accumulator layouts (a one-atom result
seeding a resident lane-FMA rectangle, say). The schedule put the loop-carried
value, the seed and the loop's own mma into one layout class; the seeding mma's
anchor won it, so the resident accumulator was carried in the seed's layout
while the loop's initial value was converted into the mma's: the realization
received C in one layout and was scheduled to leave D in another
(``out.layout is layout_of(op.result)`` failed, or the lane micro-tile found
several register parts). Now every realization reads C in its own layout (a
repartition record where C is produced in another one), a resident
accumulator's carried slot keeps the realization's layout whatever its class
got, and the Scheduled verifier checks both (invariant 13).

The sweep runs every chain shape (an mma feeding another's accumulator, a K
loop seeded by an mma, elementwise ops on the way back, two mmas in one body
with and without a shared accumulator, consecutive and nested K loops, small
scalar-realized tiles next to atom-sized ones, a direct-output loop beside a
chain) over tile sizes 1..64 in M, N and K, f32 and bf16, on every simulated
target, against the reference interpreter. The GPU runs are in
``tests/device/test_cuda_mma_chains.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import mma_chains as chains
import tilec as tc
import tilec.ir as ir
from tilec.lower import LowerOptions, lower, lower_to_machine, matrix_candidates
from tilec.lower.machine import lower_scheduled_module
from tilec.lower.options import LoweringBug
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.reference.simt import simulate_module

TARGETS = ("cuda:sm_90", "cuda:sm_80", "metal:m1")


def _shapes(target: str, dt: str) -> list[tuple[int, int, int, int]]:
    """The fuzzer's shapes and three of the rotated ones in turn, so that every chain meets
    every shape at least twice over the (target, dtype) pairs. (When this was fixed the
    whole product ran clean, and so did M, N and BK in {1, 16, 64} with K0 in {1, 16} for
    the chains up to ``direct_side``; either takes minutes, too long for the suite.)"""
    j = TARGETS.index(target) * len(chains.DTYPES) + sorted(chains.DTYPES).index(dt)
    return chains.FUZZED + [chains.ROTATED[(3 * j + r) % len(chains.ROTATED)] for r in range(3)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", chains.FUZZ)
def test_the_fuzzer_kernels_match_the_reference(name: str, target: str) -> None:
    kernel, args = chains.fuzz_case(name)
    want = [a.copy() for a in args]
    tc.interpret(kernel, *want)
    tc.simulate(kernel, *args, target=target)
    got, ref = args[-1], want[-1]
    assert not np.isnan(got[~np.isnan(ref)]).any(), "an output element was never written"
    # every output is one f32 sum of at most 14 products of magnitude below 20
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", sorted(chains.DTYPES))
@pytest.mark.parametrize("name", sorted(chains.CHAINS))
def test_every_chain_shape_lowers_and_matches_the_reference(name: str, dt: str, target: str
                                                            ) -> None:
    failures = []
    shapes = _shapes(target, dt)
    for shape in shapes:
        case = chains.chain_case(chains.CHAINS[name], dt, shape)
        tc.simulate(chains.CHAINS[name], *case.args, target=target, **case.consts)
        why = chains.wrong(case)
        if why is not None:
            failures.append(f"{shape}: {why}")
    assert not failures, f"{len(failures)} of {len(shapes)} shapes wrong: {failures}"


# --------------------------------------------------- every realization pair forced


def _kinds(module: ir.Module, target: str) -> dict[str, dict[tuple, object]]:
    """Per mma, one candidate per (threads, atom, realization, accumulator)."""
    out: dict[str, dict[tuple, object]] = {}
    for entry in matrix_candidates(module, target):
        cand = entry["candidate"]
        key = (cand.threads, cand.atom.id if cand.atom else None, cand.realization,
               cand.accumulator)
        out.setdefault(entry["op"], {}).setdefault(key, cand)
    return out


PAIRS = [("cuda:sm_80", "bf16", (16, 16, 16, 16), 64),
         ("cuda:sm_90", "f32", (32, 8, 1, 1), 64),
         ("metal:m1", "f32", (16, 16, 8, 16), 64),
         ("metal:m1", "f32", (16, 16, 1, 8), 64),
         ("cuda:sm_90", "bf16", (64, 64, 64, 64), 128)]
"""(target, dtype, shape, threads): atom-sized seeds and loops, the fuzzer's lane-FMA case,
a scalar seed of an atom loop, warpgroup instructions."""


@pytest.mark.parametrize("target,dt,shape,threads", PAIRS, ids=lambda v: str(v))
def test_every_realization_pair_of_a_seeded_loop(target: str, dt: str,
                                                 shape: tuple[int, int, int, int],
                                                 threads: int) -> None:
    # The seeding mma and the loop's mma in every pair of realizations the planner offers
    # at one thread count (one-atom, rectangles of each accumulator mode, warpgroups).
    base = chains.chain_case(chains.seeded_loop, dt, shape, seed=3)
    module = tc.compile(chains.seeded_loop, *base.args, target="reference", **base.consts).module
    kinds = _kinds(module, target)
    seeds = [c for key, c in kinds["mma#0"].items() if key[0] == threads]
    loops = [c for key, c in kinds["mma#1"].items() if key[0] == threads]
    failures, differ = [], 0
    for first, second in itertools.product(seeds, loops):
        res = lower(module, target, LowerOptions(force_matrix={"mma#0": first,
                                                               "mma#1": second}))
        seed_choice, loop_choice = res.groups[0].mma.values()
        differ += seed_choice.layout is not loop_choice.layout
        case = chains.chain_case(chains.seeded_loop, dt, shape, seed=3)
        simulate_module(res.machine, "seeded_loop", case.args)
        why = chains.wrong(case)
        if why is not None:
            failures.append(f"{first.label} then {second.label}: {why}")
    assert not failures, failures
    assert len(loops) > 1 and differ > 1, "the pairs should hand C between different layouts"


# ---------------------------------------------- a schedule that breaks the contract


def _scheduled(kernel: object, args: list[np.ndarray], target: str) -> ir.Module:
    module = tc.compile(kernel, *args, target="reference").module
    # the contract below needs different layouts for the seed and the loop mma: the seed
    # as the one-atom reference, the loop's as a lane rectangle (what cuda_mma_v2 once
    # planned for the fuzzer's kernel)
    kinds = _kinds(module, target)
    force = {"mma#0": kinds["mma#0"][(256, "ffma", "one_atom", "nonresident")],
             "mma#1": kinds["mma#1"][(256, "ffma", "rectangle", "resident")]}
    return lower(module, target, LowerOptions(force_matrix=force), machine=False).scheduled


def _mismatched_schedule() -> ir.Module:
    """The fuzzer kernel's schedule as it was: the carried slot in the seed's layout, the
    seed converted into the loop mma's layout on entry and its result back on yield."""
    _, args = chains.fuzz_case("fuzz_layout")
    module = _scheduled(chains.fuzz_layout, args, "cuda:sm_90")
    loop = next(op for fn in module for op in fn.walk() if op.name == "serial")
    seed = loop.operand(3).defining_op
    inner = next(op for op in loop.regions[0].entry.operations if op.name == "mma")
    assert seed.name == "mma" and seed.attr("layout") is not inner.attr("layout")
    assert loop.attr("use_layouts")[3] is inner.attr("layout")
    loop.attributes["layout"] = seed.attr("layout")
    loop.regions[0].entry.terminator.attributes["use_layouts"] = (seed.attr("layout"),)
    return module


def test_the_verifier_names_a_missing_accumulator_repartition() -> None:
    with pytest.raises(ir.VerificationError, match="invariant 13: serial operand 3 arrives in "
                       "another distribution than the serial reads it in"):
        ir.verify(_mismatched_schedule(), "scheduled")


def test_the_lowering_names_the_mma_whose_accumulator_mismatches() -> None:
    with pytest.raises(LoweringBug, match=r"/mma_chains\.py:\d+:\d+: error: internal: "
                       r"the ffma mma's accumulator arrives as #dist<one_atom"):
        lower_scheduled_module(_mismatched_schedule(), LowerOptions(verify=False))


def test_the_lowering_names_a_rectangle_that_is_no_warpgroup_shape() -> None:
    # a compiler invariant (the planner's wgmma rule), named with the mma's location
    case = chains.chain_case(chains.seeded_loop, "bf16", (64, 64, 64, 64))
    module = tc.compile(chains.seeded_loop, *case.args, target="reference", **case.consts).module
    wgmma = {e["op"]: e["candidate"] for e in matrix_candidates(module, "cuda:sm_90")
             if e["candidate"].realization == "wgmma" and e["candidate"].threads == 128}
    scheduled = lower(module, "cuda:sm_90", LowerOptions(force_matrix=wgmma),
                      machine=False).scheduled
    mma = next(op for fn in scheduled for op in fn.walk() if op.name == "mma")
    assert mma.attr("realization").startswith("wgmma")
    mma.attributes["gn"] = 2
    with pytest.raises(LoweringBug, match=r"/mma_chains\.py:\d+:\d+: error: internal: a 4x2/1x8 "
                       r"rectangle is not a warpgroup shape"):
        lower_scheduled_module(scheduled, LowerOptions(verify=False))


# ------------------------------------------------------------- emitted CUDA compiles


@pytest.mark.skipif(nvrtc_available() is not None, reason=f"NVRTC: {nvrtc_available()}")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", ["fuzz_layout", "fuzz_gpu_matmul_seed", "fuzz_gpu_strict"])
def test_emitted_cuda_of_a_chain_compiles(name: str, arch: str) -> None:
    kernel, args = chains.fuzz_case(name)
    comp = tc.compile(kernel, *args, target="reference")
    src = emit_cuda(lower_to_machine(comp.module, f"cuda:{arch}"), comp.fn_name,
                    f"cuda:{arch}")
    cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes, src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF"
