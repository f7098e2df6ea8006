"""The ``gemm`` program family (``gen_gemm``): whole GEMM grid nests whose tiles reach the
matrix realizations of large tiles, with symbolic grids and trip counts; off by default.
A small campaign runs them on the simulator with the producer-warpgroup variant."""

from __future__ import annotations

import collections

import pytest

import tilec as tc
from tilec.lower import LowerOptions, lower
from tilec.lower.options import LoweringError
from tilec.testing.fuzz.__main__ import _weights
from tilec.testing.fuzz.campaign import program_seed, run_campaign
from tilec.testing.fuzz.choices import ChoiceStream
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
from tilec.testing.fuzz.program import load_kernel


def _programs(n: int, seed: int = 7):
    w = _weights("gemm")
    return [generate(ChoiceStream(program_seed(seed, i)), w) for i in range(n)]


def test_the_family_is_off_by_default_and_named_gets_weight_one() -> None:
    assert DEFAULT_WEIGHTS["gemm"] == 0
    w = _weights("gemm")
    assert w["gemm"] == 1 and sum(w.values()) == 1
    # the default campaign draws no gemm program
    progs = [generate(ChoiceStream(program_seed(3, i)), dict(DEFAULT_WEIGHTS))
             for i in range(30)]
    assert not any("tc.cdiv(" in p.source().splitlines()[5] for p in progs)


def test_programs_are_grid_nests_with_symbolic_extents(tmp_path) -> None:
    from types import SimpleNamespace

    from tilec.testing.fuzz.runner import run_program

    for prog in _programs(12):
        src = prog.source()
        head = src.splitlines()[5]
        assert head.startswith("    for p0, p1 in tc.parallel(tc.cdiv(Y0.shape[0], ")
        assert "tc.serial(tc.cdiv(X0.shape[1], " in src and "tc.mma(" in src
        # the symbolic extents equal the grid the model walks
        names = {p.name: SimpleNamespace(shape=p.shape) for p in prog.params}
        cdiv = SimpleNamespace(cdiv=lambda a, b: -(-a // b))
        assert tuple(eval(e, {"tc": cdiv, **names}) for e in prog.grid_source) == prog.grid
        # and the reference agrees with the model
        res = run_program(prog, ["reference"], str(tmp_path))
        assert res.outcomes["reference"].kind == "ok", (src, res.outcomes["reference"])


def test_most_programs_reach_warpgroup_instructions_and_some_a_producer(tmp_path) -> None:
    seen: collections.Counter = collections.Counter()
    for prog in _programs(30):
        kernel, _ = load_kernel(prog.source(), str(tmp_path))
        module = tc.compile(kernel, *prog.make_args(), target="reference").module
        try:
            res = lower(module, "cuda:sm_90", LowerOptions(warp_specialized=True))
        except LoweringError as e:  # a clean rejection (128 x 256 tiles with a cast out of
            assert "shared memory" in str(e)  # the accumulator do not fit shared memory)
            seen["rejected"] += 1
            continue
        text = str(res.machine)
        seen["wgmma"] += "wgmma" in text
        seen["producer"] += 'roles = ["producer", "consumer"]' in text
    assert seen["wgmma"] >= 12, seen
    assert seen["producer"] >= 6, seen


@pytest.mark.parametrize("paths", [("reference", "simt:cuda:sm_90+ws",
                                    "simt:cuda:sm_90+grouped:2+ws")])
def test_a_small_gemm_campaign_on_the_simulator(tmp_path, monkeypatch, paths) -> None:
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    camp = run_campaign(16, 20261204, paths, _weights("gemm"), out_dir=str(tmp_path / "f"),
                        jobs=1, timeout=300, shrink_trials=10, shrink_seconds=30,
                        max_shrinks=1)
    print(camp.table())
    bad = {p: (c.mismatch, sum(c.internal.values()), c.timeout) for p, c in camp.counts.items()
           if c.mismatch or c.internal or c.timeout}
    assert camp.programs == 16 and not bad, bad


def test_small_gemm_programs_meet_the_metal_matrix_families(tmp_path) -> None:
    """``small_gemm`` (off by default, no draw unless named): f32 nests with tiles a metal:m1
    group holds; with the ``mpp`` path word most of them issue MPP ``matmul2d``."""
    from tilec.testing.fuzz.paths import split_path

    assert DEFAULT_WEIGHTS["small_gemm"] == 0
    assert split_path("simt:metal:m1+mpp") == ("simt:metal:m1", {"metal_mpp": "only"})
    assert split_path("metal+families") == ("metal", {"metal_mpp": "auto"})
    w = _weights("small_gemm")
    used = 0
    for i in range(12):
        prog = generate(ChoiceStream(program_seed(20, i)), w)
        kernel, _ = load_kernel(prog.source(), str(tmp_path))
        args = prog.make_args()
        src = tc.compile(kernel, *args, target="metal:m1", variant={"metal_mpp": "only"}).source
        used += "mpp::tensor_ops::matmul2d<" in src
    assert used >= 6


def test_bias_epilogues_are_drawn_only_when_named(tmp_path) -> None:
    """``bias_epilogue`` (off by default, so it draws nothing otherwise and every recorded
    gemm stream replays): most gemm programs then add a bias row and/or a residual tile to
    the accumulator and apply an activation, which the scalar-epilogue proof fuses."""
    assert DEFAULT_WEIGHTS["bias_epilogue"] == 0
    plain = _programs(20)
    w = _weights("gemm=20,bias_epilogue")
    drawn = [generate(ChoiceStream(program_seed(7, i)), w) for i in range(20)]
    stores = [p.source().rstrip().splitlines()[-1] for p in drawn if "tc.mma(" in p.source()]
    assert not any("[None, :]" in p.source().rstrip().splitlines()[-1] for p in plain)
    bias = sum("[None, :]" in s for s in stores)
    residual = sum(s.count(".tile((p0 * ") == 2 for s in stores)
    assert bias >= 4 and residual >= 3, stores
    from tilec.testing.fuzz.runner import run_program

    fused = 0
    for prog in drawn[:8]:
        if "tc.mma(" not in prog.source():
            continue
        res = run_program(prog, ["reference"], str(tmp_path))
        assert res.outcomes["reference"].kind == "ok", (prog.source(), res.outcomes)
        kernel, _ = load_kernel(prog.source(), str(tmp_path))
        comp = tc.compile(kernel, *prog.make_args(), target="cuda:sm_90")
        fused += "direct output through the scalar epilogue" in comp.plan.render()
    assert fused >= 3, fused
