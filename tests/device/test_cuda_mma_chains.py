"""Chained ``mma`` accumulators on the GPU (the lowering crash of chains).

The fuzzer found the crash on the GPU first: an mma result (or an ``@``
product) seeding a K loop of mmas failed to lower for ``cuda``. Here every
kernel of ``tests/mma_chains.py`` runs on the device for every shape of the
simulator sweep, in f32 and bf16, and the seeded loop in every pair of
realizations the planner offers on the device's profile (warpgroup
instructions included), each against the reference interpreter with
NaN-poisoned outputs and an f32-accumulation bound.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest

import mma_chains as chains
import tilec
from paths import poison, to_device, to_host
from tilec.driver import default_options
from tilec.lower import lower, matrix_candidates
from tilec.targets.cuda.backend import make_backend

pytestmark = pytest.mark.usefixtures("torch_cuda")


def _run(torch: Any, exe: Any, args: list[np.ndarray]) -> np.ndarray:
    """One launch of ``exe`` on device copies of ``args``; the last one (poisoned) back."""
    dev = [to_device(torch, a) for a in args]
    poison(torch, dev[-1])
    exe(*dev, sync=True)
    return to_host(torch, dev[-1])


@pytest.mark.parametrize("name", chains.FUZZ)
def test_the_fuzzer_kernels_match_the_reference(torch_cuda: Any, name: str) -> None:
    kernel, args = chains.fuzz_case(name)
    want = [a.copy() for a in args]
    tilec.interpret(kernel, *want)
    dev = [to_device(torch_cuda, a) for a in args]
    poison(torch_cuda, dev[-1])
    tilec.compile(kernel, *dev, target="cuda")(*dev)
    got, ref = to_host(torch_cuda, dev[-1]), want[-1]
    assert not np.isnan(got[~np.isnan(ref)]).any(), "an output element was never written"
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dt", sorted(chains.DTYPES))
@pytest.mark.parametrize("name", sorted(chains.CHAINS))
def test_every_chain_shape_matches_the_reference(torch_cuda: Any, name: str, dt: str) -> None:
    kernel = chains.CHAINS[name]
    failures = []
    shapes = chains.FUZZED + chains.ROTATED
    for shape in shapes:
        case = chains.chain_case(kernel, dt, shape)
        dev = [to_device(torch_cuda, a) for a in case.args]
        poison(torch_cuda, dev[-1])
        tilec.compile(kernel, *dev, target="cuda", **case.consts)(*dev)
        case.args[-1] = to_host(torch_cuda, dev[-1])
        why = chains.wrong(case)
        if why is not None:
            failures.append(f"{shape}: {why}")
    assert not failures, f"{len(failures)} of {len(shapes)} shapes wrong: {failures}"


PAIRS = [("bf16", (16, 16, 16, 16), 64), ("f32", (32, 8, 1, 1), 64),
         ("bf16", (64, 64, 64, 64), 128), ("f32", (64, 64, 16, 32), 128)]
"""(dtype, shape, threads) of the seeded loop: atom-sized tiles, the fuzzer's lane-FMA
case, warpgroup instructions (sm_90) beside one-atom and rectangle seeds."""


@pytest.mark.parametrize("dt,shape,threads", PAIRS, ids=lambda v: str(v))
def test_every_realization_pair_of_a_seeded_loop(torch_cuda: Any, dt: str,
                                                 shape: tuple[int, int, int, int],
                                                 threads: int) -> None:
    be = make_backend("cuda")
    base = chains.chain_case(chains.seeded_loop, dt, shape, seed=3)
    comp = tilec.compile(chains.seeded_loop, *base.args, target="reference", **base.consts)
    module = comp.module
    kinds: dict[str, dict[tuple, Any]] = {}
    for entry in matrix_candidates(module, be.profile):
        c = entry["candidate"]
        if c.threads == threads:
            key = (c.atom.id if c.atom else None, c.realization, c.accumulator)
            kinds.setdefault(entry["op"], {}).setdefault(key, c)
    failures = []
    pairs = list(itertools.product(kinds["mma#0"].values(), kinds["mma#1"].values()))
    for first, second in pairs:
        options = dataclasses.replace(default_options(be),
                                      force_matrix={"mma#0": first, "mma#1": second})
        machine = lower(module, be.profile, options).machine
        exe = be.compile(machine, comp.fn_name)
        case = chains.chain_case(chains.seeded_loop, dt, shape, seed=3)
        case.args[-1] = _run(torch_cuda, exe, case.args)
        why = chains.wrong(case)
        if why is not None:
            failures.append(f"{first.label} then {second.label}: {why}")
    assert len(pairs) > 1
    assert not failures, f"{len(failures)} of {len(pairs)} pairs wrong: {failures}"
