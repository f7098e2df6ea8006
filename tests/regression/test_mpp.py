"""The metal:m1 MPP realizations of ``mma`` (``mpp::tensor_ops::matmul2d``, subgroup and
whole-group scope): differential tests against the reference interpreter in the SIMT
simulator (outputs poisoned first), the descriptor rules and their reasons in the plan, the
clang check of the emitted MSL, a golden GEMM and cross-family selection."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from tilec import lib
from tilec.lower import lower
from tilec.lower.options import LowerOptions
from tilec.plan import PlannerOptions, plan_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from unit.lower.lowering_cases import differential  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "mpp_matmul.metal"


def _opts(mode: str = "only", threads: int | None = None) -> LowerOptions:
    return LowerOptions(planner=PlannerOptions(metal_mpp=mode, threads=threads))


def _f32(r: np.random.Generator, *shape: int) -> np.ndarray:
    return r.standard_normal(shape).astype(np.float32)


def _scopes(result) -> set[str]:
    text = str(result.machine)
    found = set(re.findall(r'catalog_id = "mpp\.(?:matmul2d|run)", k = \d+, m = \d+, '
                           r'n = \d+, scope = "(\w+)"', text))
    assert found, "no MPP operation was chosen"
    return found


def _checked(kernel, args, constexprs, variant) -> str:
    from tilec.targets.metal.check import check_msl, checker_unavailable

    exe = tc.compile(kernel, *args, target="metal:m1", variant=variant,
                     **constexprs).executable()
    if checker_unavailable() is None:
        check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    return exe.source


@pytest.mark.parametrize("threads", [None, 32, 64, 128])
@pytest.mark.parametrize("shape", [(64, 64, 64), (40, 48, 24), (33, 70, 17), (5, 9, 3)])
def test_matmul(shape: tuple[int, int, int], threads: int | None) -> None:
    """Ragged M / N / K included: the staging's fill and the bounded store handle the
    tails; every thread count the planner may take (one, two, four SIMD-groups)."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape))
    res = differential(lib.matmul, [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32)],
                       [2], "metal:m1", {"BM": 32, "BN": 32, "BK": 16},
                       options=_opts(threads=threads))
    _scopes(res)


def test_both_scopes_are_realized_and_simulated() -> None:
    """Two SIMD-groups: one operation per SIMD-group; four: one of the whole group (the v3
    basis's prior for the collective) — each checked against the reference."""
    r = np.random.default_rng(1)
    args = [_f32(r, 50, 40), _f32(r, 40, 45), np.zeros((50, 45), np.float32)]
    c = {"BM": 32, "BN": 32, "BK": 16}
    assert _scopes(differential(lib.matmul, args, [2], "metal:m1", c,
                                options=_opts(threads=64))) == {"subgroup"}
    assert _scopes(differential(lib.matmul, args, [2], "metal:m1", c,
                                options=_opts(threads=128))) == {"group"}


@pytest.mark.parametrize("bk", [8, 24])
def test_dynamic_k_tails(bk: int) -> None:
    """A K tile that is not a multiple of 16 is issued with a dynamic K (the descriptor's
    tail case): simulated, and printed as ``dynamic_length_v``."""
    r = np.random.default_rng(bk)
    args = [_f32(r, 40, 50), _f32(r, 50, 32), np.zeros((40, 32), np.float32)]
    c = {"BM": 32, "BN": 32, "BK": bk}
    _scopes(differential(lib.matmul, args, [2], "metal:m1", c, options=_opts(threads=64)))
    src = _checked(lib.matmul, args, c, {"metal_mpp": "only", "threads": 64})
    assert "dynamic_length_v<int>" in src


def test_linear_reads_a_k_major_b() -> None:
    """``A @ W.T``: B's staged tensor is K-major, passed with ``transpose_right``."""
    r = np.random.default_rng(4)
    args = [_f32(r, 40, 48), _f32(r, 24, 48), np.zeros((40, 24), np.float32)]
    c = {"BM": 32, "BN": 32, "BK": 16}
    _scopes(differential(lib.linear, args, [2], "metal:m1", c, options=_opts(threads=64)))
    src = _checked(lib.linear, args, c, {"metal_mpp": "only", "threads": 64})
    assert re.search(r"matmul2d_descriptor\(\d+, \d+, \d+, false, true, false", src)


@pytest.mark.parametrize("name", ["pipelined_matmul", "batched_matmul", "gemm_bias_act"])
def test_library_gemms(name: str) -> None:
    r = np.random.default_rng(len(name))
    if name == "batched_matmul":
        args = [_f32(r, 3, 20, 24), _f32(r, 3, 24, 18), np.zeros((3, 20, 18), np.float32)]
        c = {"BM": 16, "BN": 16, "BK": 16}
    elif name == "gemm_bias_act":
        args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32)]
        c = {"BM": 32, "BN": 32, "BK": 16}
    else:
        args = [_f32(r, 45, 70), _f32(r, 70, 33), np.zeros((45, 33), np.float32)]
        c = {"BM": 32, "BN": 32, "BK": 16}
    _scopes(differential(getattr(lib, name), args, [len(args) - 1], "metal:m1", c,
                         options=_opts()))


@pytest.mark.parametrize("shape", [(33, 70, 17), (64, 48, 40)])
def test_every_path_agrees_and_the_public_api_runs_mpp(shape: tuple[int, int, int]) -> None:
    """The reference, cpu and the three simulators (outputs poisoned first), and the
    simulator through ``tc.compile(..., target="simt:metal:m1", variant=...)`` with MPP only
    and with cross-family selection, all against numpy."""
    from paths import PATHS, poisoned, run

    m, k, n = shape
    r = np.random.default_rng(m * n)
    a, b = _f32(r, m, k), _f32(r, k, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    c = {"BM": 32, "BN": 32, "BK": 16}
    outs = {}
    for path in PATHS:
        args = [a.copy(), b.copy(), poisoned(m, n)]
        run(path, lib.matmul, *args, **c)
        outs[path] = args[2]
    for mode in ("only", "auto"):
        args = [a.copy(), b.copy(), poisoned(m, n)]
        exe = tc.compile(lib.matmul, *args, target="simt:metal:m1",
                         variant={"metal_mpp": mode}, **c)
        assert re.search(r'"mpp\.(matmul2d|run)"', exe.after("allocate"))
        exe(*args)
        outs[mode] = args[2]
    for path, got in outs.items():
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), path


def _plan(bm: int, bn: int, bk: int, mode: str, threads: int | None = None):
    r = np.random.default_rng(0)
    comp = tc.compile(lib.matmul, _f32(r, 64, 64), _f32(r, 64, 64),
                      np.zeros((64, 64), np.float32), target="reference", BM=bm, BN=bn, BK=bk)
    mp = plan_module(comp.module, "metal:m1", PlannerOptions(metal_mpp=mode, threads=threads))
    (g,) = mp.groups
    return comp, g


def test_descriptor_rules_reject_with_the_reason_and_fall_back() -> None:
    """An 8x8 tile has no legal MPP descriptor (M or N must be a multiple of 16): the plan
    records the rule's reason for every MPP candidate and falls back to the SIMD-group
    family, which the lowering then realizes."""
    comp, g = _plan(8, 8, 16, "only")
    assert g.cost_basis == "metal_simdgroup_reference_v1"
    assert g.replaced is not None
    reasons = {r.reason for r in g.replaced.rejected if r.atom and "mpp" in r.atom}
    assert any("M or N must be a multiple of 16" in x for x in reasons), reasons
    assert any("no legal MPP plan" in d for d in g.diagnostics)
    res = lower(comp.module, "metal:m1", _opts())
    assert '"mpp.' not in str(res.machine)
    # a 16x8 subgroup rectangle is legal where an 8x8 one is not
    _, g = _plan(16, 16, 16, "only", threads=64)
    sub = [r.reason for r in g.rejected if r.atom == "mpp.matmul2d.f32.subgroup"]
    assert all("multiple of 16" in x for x in sub if x and "descriptor" in x)
    assert g.selected is not None and g.selected.choices[0].candidate.realization == "mpp"


def test_cross_family_selection_picks_each_family_with_its_reason() -> None:
    """``metal_mpp = "auto"``: MPP, SIMD-group and scalar priced together; each wins on
    some GEMM tile, and the plan says why (each family's best score)."""
    chosen = {}
    for tile in ((32, 32, 16), (8, 8, 64), (4, 4, 4)):
        _, g = _plan(*tile, "auto")
        assert g.cost_basis == "metal_cross_family_v1"
        (line,) = [d for d in g.diagnostics if d.startswith("cross-family selection")]
        fam = re.search(r"chose (\w+)", line).group(1)
        assert "best per family: mpp" in line
        chosen[tile] = (fam, line)
    assert chosen[(32, 32, 16)][0] == "mpp"
    assert chosen[(8, 8, 64)][0] == "simdgroup"
    assert "mpp none legal" in chosen[(8, 8, 64)][1]
    assert chosen[(4, 4, 4)][0] == "scalar"
    assert "simdgroup none legal" in chosen[(4, 4, 4)][1]
    with pytest.raises(ValueError, match="metal_mpp"):
        PlannerOptions(metal_mpp="sometimes")
    assert PlannerOptions(metal_mpp=True).metal_mpp == "only"
    assert PlannerOptions(metal_mpp=False).metal_mpp == "off"


def test_cross_family_plans_simulate() -> None:
    r = np.random.default_rng(12)
    for c in ({"BM": 32, "BN": 32, "BK": 16}, {"BM": 8, "BN": 8, "BK": 8}):
        args = [_f32(r, 30, 20), _f32(r, 20, 26), np.zeros((30, 26), np.float32)]
        differential(lib.matmul, args, [2], "metal:m1", c, options=_opts("auto"))


def test_check_header_enforces_the_descriptor_rule() -> None:
    """The stand-in MPP header checks the descriptor: an 8x8 operation fails the check."""
    from tilec.targets.metal.check import MSLCheckError, check_msl, checker_unavailable

    if checker_unavailable() is not None:
        pytest.skip(str(checker_unavailable()))
    r = np.random.default_rng(2)
    args = [_f32(r, 40, 48), _f32(r, 48, 24), np.zeros((40, 24), np.float32)]
    src = _checked(lib.matmul, args, {"BM": 32, "BN": 32, "BK": 16},
                   {"metal_mpp": "only", "threads": 64})
    bad = re.sub(r"matmul2d_descriptor\(\d+, \d+,", "matmul2d_descriptor(8, 8,", src)
    assert bad != src
    with pytest.raises(MSLCheckError, match="M or N must be a multiple of 16"):
        check_msl(bad)


def _renumber(text: str) -> str:
    ids: dict[str, str] = {}
    return re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)), text)


def test_golden_mpp_gemm() -> None:
    """TILEC_UPDATE_GOLDEN=1 rewrites the file."""
    r = np.random.default_rng(11)
    args = [_f32(r, 40, 48), _f32(r, 48, 24), np.zeros((40, 24), np.float32)]
    text = tc.compile(lib.matmul, *args, target="metal:m1", BM=32, BN=32, BK=16,
                      variant={"metal_mpp": "only", "threads": 64}).source
    kernel = _renumber(text[text.index("#include <metal_tensor>"):])
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(kernel)
    assert kernel == GOLDEN.read_text(), "emitted MSL changed; review and regenerate"


def _lib_cases() -> list:
    from tilec.demo import all_cases

    return [c for c in all_cases(None) if c.name.startswith("lib.")]


@pytest.mark.parametrize("case", _lib_cases(), ids=lambda c: c.name)
def test_every_library_kernel_passes_the_check_with_mpp(case) -> None:
    """The clang check of the emitted MSL with ``metal_mpp = "only"``; the f32 GEMMs really
    issue matmul2d."""
    from tilec.targets.metal.check import checker_unavailable

    if checker_unavailable() is not None:
        pytest.skip(str(checker_unavailable()))
    args = list(case.make_inputs(np.random.default_rng(0)))
    src = _checked(case.kernel, args, case.constexprs, {"metal_mpp": "only"})
    if case.name in ("lib.matmul", "lib.pipelined_matmul", "lib.batched_matmul", "lib.linear"):
        assert "mpp::tensor_ops::matmul2d<" in src


def test_a_legal_descriptor_that_does_not_fit_says_so() -> None:
    """24x64x32: the descriptor rule holds (24x16 per SIMD-group at 128 threads, 24x64 for
    the whole group), but no MPP combination fits the 32 KiB of threadgroup memory. The
    fallback names the capacity, before the rule's rejections of other factorizations, so
    the rule is not blamed for a tile it allows."""
    _, g = _plan(24, 64, 32, "only")
    assert g.cost_basis == "metal_simdgroup_reference_v1" and g.replaced is not None
    assert g.replaced.candidates, "the descriptor rule allows MPP candidates here"
    (line,) = [d for d in g.diagnostics if d.startswith("no legal MPP plan")]
    head = line[line.index("(MPP: "):]
    assert head.startswith("(MPP: candidates obeying the descriptor rule at 32 to "), line
    assert "exceeds the group-memory capacity" in head.split("; MPP matmul2d")[0], line
    # cross-family selection: MPP's best scores lower and still loses; the plan says why
    _, g = _plan(24, 64, 32, "auto")
    (line,) = [d for d in g.diagnostics if d.startswith("cross-family selection")]
    assert "chose simdgroup" in line, line
    assert re.search(r"best per family: mpp [\d.]+ \(lost on group-memory capacity\), "
                     r"simdgroup [\d.]+, scalar", line), line
