"""MPP ``matmul2d`` with direct operands (A and B read as device tensors over the loads'
windows, no group-memory staging: ``forward_snapshots`` on a metal:m1 MPP plan).
Differential tests against the reference interpreter (outputs poisoned first) in the SIMT
simulator and on every path, the refusals with their reasons, the cost basis, the clang
check and a golden GEMM."""

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

GOLDEN = Path(__file__).parent / "golden" / "mpp_direct_matmul.metal"
TILE = {"BM": 32, "BN": 32, "BK": 16}


def _opts(mode: str = "only", threads: int | None = None, forward: bool = True
          ) -> LowerOptions:
    return LowerOptions(planner=PlannerOptions(metal_mpp=mode, threads=threads,
                                               forward_snapshots=forward))


def _f32(r: np.random.Generator, *shape: int) -> np.ndarray:
    return r.standard_normal(shape).astype(np.float32)


def _notes(res) -> str:
    return "\n".join(n for g in res.groups for n in g.notes)


def _operand_spaces(res) -> set[tuple[str, str]]:
    """The memory spaces of the A and B operands of every matmul2d of the Machine form (one
    operation, or the run of a resident destination)."""
    return {(op.operand(0).type.space, op.operand(1).type.space) for op in res.machine.walk()
            if op.name == "atom.call" and op.attr("catalog_id") in ("mpp.matmul2d", "mpp.run")}


def _direct(res) -> None:
    """The plan issues matmul2d on device tensors and stages neither operand."""
    assert _operand_spaces(res) == {("global", "global")}, _operand_spaces(res)
    assert "reads A and B from their source windows" in _notes(res)


@pytest.mark.parametrize("threads", [32, 64, 128])
@pytest.mark.parametrize("shape", [(64, 64, 64), (40, 48, 24), (33, 70, 17), (5, 9, 3)])
def test_matmul(shape: tuple[int, int, int], threads: int) -> None:
    """Ragged M / N / K: bounded device tensors read +0.0 outside the windows, including
    subgroup rectangles wholly outside the arrays (5 x 3 at two and four SIMD-groups)."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape) + threads)
    res = differential(lib.matmul, [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32)],
                       [2], "metal:m1", TILE, options=_opts(threads=threads))
    _direct(res)


@pytest.mark.parametrize("bk", [8, 24])
def test_dynamic_k(bk: int) -> None:
    r = np.random.default_rng(bk)
    args = [_f32(r, 40, 50), _f32(r, 50, 32), np.zeros((40, 32), np.float32)]
    _direct(differential(lib.matmul, args, [2], "metal:m1", {**TILE, "BK": bk},
                         options=_opts(threads=64)))


def test_linear_reads_w_as_a_k_major_device_tensor() -> None:
    r = np.random.default_rng(4)
    args = [_f32(r, 40, 48), _f32(r, 24, 48), np.zeros((40, 24), np.float32)]
    _direct(differential(lib.linear, args, [2], "metal:m1", TILE, options=_opts(threads=64)))
    src = _checked(lib.linear, args, {"metal_mpp": "only", "threads": 64})
    assert re.search(r"matmul2d_descriptor\(\d+, \d+, \d+, false, true, false", src)


@pytest.mark.parametrize("name", ["pipelined_matmul", "gemm_bias_act"])
def test_library_gemms(name: str) -> None:
    r = np.random.default_rng(len(name))
    if name == "gemm_bias_act":
        args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32)]
    else:
        args = [_f32(r, 45, 70), _f32(r, 70, 33), np.zeros((45, 33), np.float32)]
    res = differential(getattr(lib, name), args, [len(args) - 1], "metal:m1", TILE,
                       options=_opts(threads=64))
    assert "mpp.matmul2d" in str(res.machine)


def test_a_window_of_a_3d_buffer_is_staged_with_the_reason() -> None:
    """``batched_matmul`` reads 2-D windows of 3-D buffers: no inline 2-D device tensor
    over them here, so the operation stays staged and the notes say why (still correct)."""
    r = np.random.default_rng(3)
    args = [_f32(r, 3, 20, 24), _f32(r, 3, 24, 18), np.zeros((3, 20, 18), np.float32)]
    res = differential(lib.batched_matmul, args, [2], "metal:m1",
                       {"BM": 16, "BN": 16, "BK": 16}, options=_opts())
    assert "MPP direct operand A: its window is not a 2-D window of a 2-D buffer" in _notes(res)
    assert _operand_spaces(res) == {("shared", "shared")}


@tc.kernel
def _nan_filled(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=-0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def test_a_negative_zero_fill_is_staged_with_the_reason() -> None:
    r = np.random.default_rng(5)
    args = [_f32(r, 40, 20), _f32(r, 20, 24), np.zeros((40, 24), np.float32)]
    res = differential(_nan_filled, args, [2], "metal:m1", None, options=_opts(threads=64))
    assert "MPP direct operand A: its load's fill is -0.0" in _notes(res)
    assert _operand_spaces(res) == {("shared", "shared")}


def test_the_cost_basis_prices_no_staging() -> None:
    """The forwarded candidate has no operand staging and no A/B bytes; it wins."""
    r = np.random.default_rng(0)
    comp = tc.compile(lib.matmul, _f32(r, 64, 64), _f32(r, 64, 64),
                      np.zeros((64, 64), np.float32), target="reference", **TILE)
    mp = plan_module(comp.module, "metal:m1",
                     PlannerOptions(metal_mpp="only", threads=64, forward_snapshots=True))
    (g,) = mp.groups
    cand = g.selected.choices[0].candidate
    assert cand.realization == "mpp" and cand.forwarded
    feats = dict(g.selected.choices[0].features)
    assert feats["operand_staging_fragments"] == 0.0
    staged = plan_module(comp.module, "metal:m1", PlannerOptions(metal_mpp="only", threads=64))
    s_choice = staged.groups[0].selected.choices[0]
    assert dict(s_choice.features)["operand_staging_fragments"] > 0
    assert cand.shared_bytes < s_choice.candidate.shared_bytes
    assert g.selected.choices[0].score < s_choice.score


@pytest.mark.parametrize("shape", [(33, 70, 17), (64, 48, 40)])
def test_every_path_agrees(shape: tuple[int, int, int]) -> None:
    """The reference, cpu and the three simulators (outputs poisoned first), and
    ``simt:metal:m1`` with MPP only and with cross-family selection, direct operands on."""
    from paths import PATHS, poisoned, run

    m, k, n = shape
    r = np.random.default_rng(m * n)
    a, b = _f32(r, m, k), _f32(r, k, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    outs = {}
    for path in PATHS:
        args = [a.copy(), b.copy(), poisoned(m, n)]
        run(path, lib.matmul, *args, **TILE)
        outs[path] = args[2]
    for mode in ("only", "auto"):
        args = [a.copy(), b.copy(), poisoned(m, n)]
        exe = tc.compile(lib.matmul, *args, target="simt:metal:m1",
                         variant={"metal_mpp": mode, "forward_snapshots": True}, **TILE)
        assert "mpp.matmul2d" in exe.after("allocate")
        assert "ring" not in exe.after("allocate")  # no operand staging at all
        exe(*args)
        outs[mode] = args[2]
    for path, got in outs.items():
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), path


def _checked(kernel, args, variant) -> str:
    from tilec.targets.metal.check import check_msl, checker_unavailable

    exe = tc.compile(kernel, *args, target="metal:m1",
                     variant={**variant, "forward_snapshots": True}, **TILE).executable()
    if checker_unavailable() is None:
        check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    return exe.source


@pytest.mark.parametrize("threads", [32, 64, 128])
def test_msl_reads_device_tensors_and_passes_the_check(threads: int) -> None:
    r = np.random.default_rng(threads)
    args = [_f32(r, 40, 33), _f32(r, 33, 50), np.zeros((40, 50), np.float32)]
    src = _checked(lib.matmul, args, {"metal_mpp": "only", "threads": threads})
    assert "tensor<device const float, dextents<int32_t, 2>, tensor_inline>(" in src
    assert "tensor<threadgroup float" not in src
    assert "an empty or uneven rectangle" in src


def test_lowering_refuses_nothing_without_the_option() -> None:
    """``forward_snapshots`` off: the staged realization, as before."""
    r = np.random.default_rng(9)
    comp = tc.compile(lib.matmul, _f32(r, 40, 33), _f32(r, 33, 50),
                      np.zeros((40, 50), np.float32), target="reference", **TILE)
    res = lower(comp.module, "metal:m1", _opts(threads=64, forward=False))
    assert _operand_spaces(res) == {("shared", "shared")}


def _renumber(text: str) -> str:
    ids: dict[str, str] = {}
    return re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)), text)


def test_golden_direct_mpp_gemm() -> None:
    """TILEC_UPDATE_GOLDEN=1 rewrites the file."""
    r = np.random.default_rng(11)
    args = [_f32(r, 40, 48), _f32(r, 48, 24), np.zeros((40, 24), np.float32)]
    text = tc.compile(lib.matmul, *args, target="metal:m1", **TILE,
                      variant={"metal_mpp": "only", "threads": 64,
                               "forward_snapshots": True}).source
    kernel = _renumber(text[text.index("#include <metal_tensor>"):])
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(kernel)
    assert kernel == GOLDEN.read_text(), "emitted MSL changed; review and regenerate"
