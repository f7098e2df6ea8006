"""A proved scalar epilogue run on the MPP cooperative destination's own elements
(``lower/machine_mpp.py``, "Epilogue on the destination's elements"): differential tests
against the reference interpreter in the SIMT simulator, whose destinations spread their
elements over the lanes at random per launch (outputs poisoned first; ragged M / N so edge
elements are exercised), the structure (a loop over the destination's slots, no C staging
on the way out), the clang check of the MSL, the switch (``fuse_matrix_epilogues`` off
restores the staged path) and the counterexamples (no proved epilogue: the staged path)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from epilogue_kernels import product
from tilec import lib
from tilec.lower.options import LowerOptions
from tilec.plan import PlannerOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from unit.lower.lowering_cases import differential  # noqa: E402

C = {"BM": 32, "BN": 32, "BK": 16}


def _opts(threads: int | None = None, fuse: bool = True) -> LowerOptions:
    return LowerOptions(planner=PlannerOptions(metal_mpp="only", threads=threads,
                                               fuse_matrix_epilogues=fuse))


def _f32(r: np.random.Generator, *shape: int) -> np.ndarray:
    return r.standard_normal(shape).astype(np.float32)


def _atoms(machine) -> dict[str, list]:
    """Atom catalog id -> its operations, with whether each sits inside a serial loop."""
    out: dict[str, list] = {}
    for fn in machine.functions:
        for op in fn.walk():
            if op.name != "atom.call":
                continue
            blk, looped = op.parent, False
            while blk is not None and blk.parent_op is not None:
                looped |= blk.parent_op.name == "serial"
                blk = blk.parent_op.parent
            out.setdefault(op.attr("catalog_id"), []).append(looped)
    return out


def _on_destination(res) -> None:
    """The epilogue runs on the destination's elements: one element loop after the K loop,
    the destination never stored to the C staging."""
    got = _atoms(res.machine)
    assert "mpp.dest.store" not in got
    assert got.get("mpp.dest.capacity") == [False]
    assert got.get("mpp.dest.element") == [True]
    assert got.get("mpp.run") == [True]


def _staged(res) -> None:
    """Today's path: the destination leaves through the C staging and the lane layout."""
    got = _atoms(res.machine)
    assert got.get("mpp.dest.store") == [False]
    assert "mpp.dest.element" not in got and "mpp.dest.capacity" not in got


@tc.kernel
def _epilogue(A, B, bias, C, alpha, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
              BK: tc.constexpr = 16):
    """``C = cast(relu(alpha * (A @ B) + bias[None, :]))``: a scale, a bias row, an
    activation and a cast to C's type, all in one proved scalar epilogue."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        bb = bias.tile((pn * BN,), (BN,), fill=0.0)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(
            tc.maximum(acc * alpha + bb[None, :], 0.0).to(C.dtype))


def _args(r: np.random.Generator, m: int, k: int, n: int, out=np.float32) -> list:
    return [_f32(r, m, k), _f32(r, k, n), _f32(r, n), np.zeros((m, n), out), 1.5]


@pytest.mark.parametrize("threads", [32, 64, 128])
@pytest.mark.parametrize("shape", [(64, 48, 64), (37, 40, 29), (5, 16, 3), (45, 70, 33)])
def test_scale_bias_relu_on_the_destination(shape, threads) -> None:
    """One, two and four SIMD-groups (subgroup and whole-group scope), square and ragged
    tiles (edge elements outside the output are not stored; poisoned elements inside it
    must all be written)."""
    m, k, n = shape
    r = np.random.default_rng(sum(shape) + threads)
    res = differential(_epilogue, _args(r, m, k, n), [3], "metal:m1", C,
                       options=_opts(threads))
    _on_destination(res)


@pytest.mark.parametrize("out", [np.float16, np.int32])
def test_a_cast_to_the_output_type(out) -> None:
    """The cast to a 16-bit float or an integer output is part of the epilogue."""
    r = np.random.default_rng(7)
    args = _args(r, 40, 32, 24, out)
    res = differential(_epilogue, args, [3], "metal:m1", C, options=_opts(64), rtol=1e-3,
                       atol=1e-3)
    _on_destination(res)


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_every_element_assignment(seed, monkeypatch) -> None:
    """Three fixed draws of the simulator's element-to-lane spread: the coordinates come
    from the destination, so each draw gives the reference's answer."""
    monkeypatch.setenv("TILEC_SIMDGROUP_LAYOUT_SEED", seed)
    r = np.random.default_rng(int(seed))
    _on_destination(differential(_epilogue, _args(r, 33, 40, 47), [3], "metal:m1", C,
                                 options=_opts(64)))


def test_the_library_bias_activation_gemm() -> None:
    r = np.random.default_rng(3)
    args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32)]
    _on_destination(differential(lib.gemm_bias_act, args, [3], "metal:m1", C,
                                 options=_opts(64)))


def test_every_path_agrees() -> None:
    """The reference, cpu and the three simulators (outputs poisoned first), and
    ``simt:metal:m1`` with MPP only, whose plan runs the epilogue on the destination."""
    from paths import PATHS, run

    r = np.random.default_rng(13)
    base = _args(r, 45, 40, 33)
    outs = {}
    for path in PATHS:
        args = [x.copy() if isinstance(x, np.ndarray) else x for x in base]
        args[3][:] = np.nan
        run(path, _epilogue, *args, **C)
        outs[path] = args[3]
    args = [x.copy() if isinstance(x, np.ndarray) else x for x in base]
    args[3][:] = np.nan
    exe = tc.compile(_epilogue, *args, target="simt:metal:m1",
                     variant={"metal_mpp": "only", "threads": 64}, **C)
    assert "mpp.dest.element" in exe.after("allocate")
    exe(*args)
    outs["simt:metal:m1 mpp"] = args[3]
    want = outs.pop("reference")
    assert not np.isnan(want).any()
    for path, got in outs.items():
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), path


@tc.kernel
def _write_between(A, B, bias, C, D, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                   BK: tc.constexpr = 16):
    """Another store after the K loop, before the output's: the bias load is placed at its
    use (after that store), so the epilogue still runs on the destination's elements."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        bb = bias.tile((pn * BN,), (BN,), fill=0.0)
        D.tile((pm * BM, pn * BN), (BM, BN)).store(tc.zeros((BM, BN), tc.float32))
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + bb[None, :])


def test_another_store_before_the_epilogue() -> None:
    r = np.random.default_rng(17)
    args = [_f32(r, 37, 40), _f32(r, 40, 29), _f32(r, 29), np.zeros((37, 29), np.float32),
            np.zeros((37, 29), np.float32)]
    _on_destination(differential(_write_between, args, [3, 4], "metal:m1", C,
                                 options=_opts(64)))


def test_turning_fusion_off_restores_the_staged_path() -> None:
    """``fuse_matrix_epilogues = False``: the destination leaves through the C staging, the
    epilogue runs on lane registers; both agree with the reference and their MSL differs."""
    r = np.random.default_rng(11)
    args = _args(r, 37, 40, 29)
    _staged(differential(_epilogue, args, [3], "metal:m1", C, options=_opts(64, False)))
    on = _checked(_epilogue, args, {"metal_mpp": "only", "threads": 64})
    off = _checked(_epilogue, args, {"metal_mpp": "only", "threads": 64,
                                     "fuse_matrix_epilogues": False})
    assert on != off
    # on: the destination's elements are read once after the K loop, in the epilogue loop
    slot = "get_multidimensional_index((uint16_t)"  # mpp.dest.element's per-slot access
    assert slot in on and slot not in off
    # off: the destination's elements are stored to the C staging after the loop
    assert on.count("C_staging + (") < off.count("C_staging + (")


def _checked(kernel, args, variant) -> str:
    from tilec.targets.metal.check import check_msl, checker_unavailable

    exe = tc.compile(kernel, *args, target="metal:m1", variant=variant, **C).executable()
    if checker_unavailable() is None:
        check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    return exe.source


@pytest.mark.parametrize("threads", [32, 64, 128])
def test_the_msl_passes_the_check(threads) -> None:
    r = np.random.default_rng(threads)
    src = _checked(_epilogue, _args(r, 37, 40, 29, np.float16),
                   {"metal_mpp": "only", "threads": threads})
    assert "get_multidimensional_index" in src and "mpp::tensor_ops::matmul2d" in src


# ------------------------------------------------------------------- counterexamples


@tc.kernel
def _two_stores(A, B, C, D, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                BK: tc.constexpr = 16):
    """The accumulator has two consumers: no scalar epilogue is proved."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(tc.maximum(acc, 0.0))
        D.tile((pm * BM, pn * BN), (BM, BN)).store(acc * 2.0)


@tc.kernel
def _computed_operand(A, B, R, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                      BK: tc.constexpr = 16):
    """A residual that is computed (``r * 2``), not a reindexed load: not proved."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        res = R.tile((pm * BM, pn * BN), (BM, BN), fill=0.0) * 2.0
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + res)


@tc.kernel
def _observed_result(A, B, C, D, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                     BK: tc.constexpr = 16):
    """The map's result is stored twice: not one store, not proved."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        y = tc.maximum(acc, 0.0)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(y)
        D.tile((pm * BM, pn * BN), (BM, BN)).store(y)


@pytest.mark.parametrize("kernel", [_two_stores, _computed_operand, _observed_result])
def test_without_a_proved_epilogue_the_destination_leaves_through_the_staging(kernel) -> None:
    r = np.random.default_rng(5)
    m, k, n = 37, 40, 29
    if kernel is _computed_operand:
        args, outs = [_f32(r, m, k), _f32(r, k, n), _f32(r, m, n),
                      np.zeros((m, n), np.float32)], [3]
    else:
        args, outs = [_f32(r, m, k), _f32(r, k, n), np.zeros((m, n), np.float32),
                      np.zeros((m, n), np.float32)], [2, 3]
    _staged(differential(kernel, args, outs, "metal:m1", C, options=_opts(64)))
