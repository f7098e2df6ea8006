"""Issue 16: coordinate tiles, ``tc.arange``, and a causal mask written with them.

``tc.arange(stop)`` / ``tc.arange(start, stop, step=1, dtype=tc.int32)`` is one
``iota`` operation (tileir.md). Every path computes it from the element's
coordinates: the reference with numpy, ``cpu`` as a C loop, the GPU lowering as
one per-thread ``iota`` per register part (the distribution's coordinates,
the thread id a symbol), which the simulators run and the CUDA and Metal
emitters print. A static view of it (``tc.arange(BM)[:, None]``, a broadcast)
is captured as an ``iota`` too. Outputs start NaN- (or -7-) poisoned; every path
must equal the reference, which must equal numpy. The GPU run is
``tests/device/test_cuda_arange.py``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    CUDA_TARGETS,
    PATHS,
    assert_located,
    cubin,
    cuda_source,
    needs_nvrtc,
    poisoned,
    run,
)
from tilec.targets.metal.check import check_msl, checker_unavailable


@tc.kernel
def ramps(Out, off, B: tc.constexpr = 8, DT: tc.constexpr = tc.int32):
    """Row p: ``tc.arange(B)``, then ``tc.arange(5, 5 - 3 * B, -3)``, then ``tc.arange(m0, m0 +
    B)`` with a runtime ``m0 = off + p * B``, each converted to ``DT``."""
    for p in tc.parallel(2):
        m0 = off + p * B
        Out.tile((p, 0), (1, B)).store(tc.arange(B, dtype=DT)[None, :])
        Out.tile((p, B), (1, B)).store(tc.arange(5, 5 - 3 * B, -3, dtype=DT)[None, :])
        Out.tile((p, 2 * B), (1, B)).store(tc.arange(m0, m0 + B, dtype=DT)[None, :])


def _ramps(off: int, dt: Any, b: int = 8) -> np.ndarray:
    out = np.zeros((2, 3 * b), np.int64)
    for p in range(2):
        out[p, :b] = np.arange(b)
        out[p, b:2 * b] = np.arange(5, 5 - 3 * b, -3)
        out[p, 2 * b:] = np.arange(off + p * b, off + p * b + b)
    return out.astype(dt)


@tc.kernel
def grid_coords(Out, BM: tc.constexpr = 4, BN: tc.constexpr = 16):
    """``Out[i, j] = i * 100 + j`` from a row and a column coordinate tile (broadcast)."""
    M, N = Out.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        rows = tc.arange(pm * BM, pm * BM + BM)[:, None]
        cols = tc.arange(pn * BN, pn * BN + BN)[None, :]
        Out.tile((pm * BM, pn * BN), (BM, BN)).store(rows * 100 + cols)


@tc.kernel
def causal_scores(S, Out, BM: tc.constexpr = 8, BN: tc.constexpr = 8):
    """A causal mask: ``S[i, j]`` where ``j <= i``, ``-inf`` above the diagonal; then each
    row's softmax over its block of columns (masked entries give exact zeros)."""
    M, N = S.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        rows = tc.arange(pm * BM, pm * BM + BM)[:, None]
        cols = tc.arange(pn * BN, pn * BN + BN)[None, :]
        s = S.tile((pm * BM, pn * BN), (BM, BN), fill=0.0)
        masked = tc.where(rows >= cols, s, float("-inf"))
        top = tc.maximum(masked.max(1), -1e30)  # a fully masked row stays finite
        e = tc.exp(masked - top[:, None])
        Out.tile((pm * BM, pn * BN), (BM, BN)).store(e / tc.maximum(e.sum(1), 1e-30)[:, None])


@tc.kernel
def before_the_nest(Out, B: tc.constexpr = 8):
    """A coordinate tile named before the nest is computed in it (frontend/nest_sinking.py)."""
    cols = tc.arange(B, dtype=tc.float32)
    for p in tc.parallel(2):
        Out.tile((p * B,), (B,)).store(cols * 0.5 + p)


DTYPES = [(tc.int32, np.int32), (tc.int64, np.int64), (tc.int16, np.int16),
          (tc.float32, np.float32), (tc.float16, np.float16), (tc.bfloat16, ml_dtypes.bfloat16),
          (tc.float64, np.float64)]


@pytest.mark.parametrize("dt,npdt", DTYPES, ids=[d.name for d, _ in DTYPES])
@pytest.mark.parametrize("target", PATHS)
def test_ramps(target: str, dt: Any, npdt: Any) -> None:
    want = _ramps(37, npdt)
    ref = poisoned(2, 24, dtype=npdt)
    tc.interpret(ramps, ref, 37, DT=dt)
    np.testing.assert_array_equal(ref, want)
    out = poisoned(2, 24, dtype=npdt)
    if target == "sim:metal:m1" and npdt is np.float64:  # the profile has no f64
        with pytest.raises(tc.UserError, match="metal:m1 has no 64-bit floating point"):
            run(target, ramps, out, 37, DT=dt)
        return
    run(target, ramps, out, 37, DT=dt)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", PATHS)
def test_runtime_values_wrap_like_a_cast(target: str) -> None:
    """An ``int8`` ramp whose runtime start leaves ``int8`` wraps as ``tc.int8(x)`` would."""
    out = poisoned(2, 24, dtype=np.int8)
    run(target, ramps, out, 120, DT=tc.int8)
    np.testing.assert_array_equal(out, _ramps(120, np.int64).astype(np.int8))


@pytest.mark.parametrize("target", PATHS)
def test_two_dimensional_coordinates(target: str) -> None:
    out = poisoned(12, 40, dtype=np.int32)  # ragged edges: bounded stores drop the rest
    run(target, grid_coords, out)
    i, j = np.indices((12, 40))
    np.testing.assert_array_equal(out, i * 100 + j)


@pytest.mark.parametrize("target", PATHS)
def test_a_causal_mask(target: str) -> None:
    rng = np.random.default_rng(5)
    s = rng.standard_normal((20, 24)).astype(np.float32)
    ref = poisoned(20, 24)
    tc.interpret(causal_scores, s, ref)
    i, j = np.indices(s.shape)
    assert (ref[j > i] == 0).all() and (ref[j <= i] > 0).all()
    out = poisoned(20, 24)
    run(target, causal_scores, s, out)
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=1e-7)  # exp on every path
    assert (out[j > i] == 0).all()


@pytest.mark.parametrize("target", PATHS)
def test_a_coordinate_tile_before_the_nest(target: str) -> None:
    out = poisoned(16)
    run(target, before_the_nest, out)
    np.testing.assert_array_equal(out, np.concatenate([np.arange(8) * 0.5, np.arange(8) * 0.5
                                                       + 1]).astype(np.float32))


# ------------------------------------------------------------------------ the IR


def test_views_of_a_coordinate_tile_are_coordinate_tiles() -> None:
    c = tc.compile(grid_coords, tc.array((None, None), np.int32), target="reference")
    ops = [op.name for op in c.module.walk()]
    assert ops.count("iota") == 2 and "reindex" not in ops
    for text in ("{map = #map<(d0, d1)[s0] -> (d0 + s0)>} : tile<4x16xi32>",
                 "{map = #map<(d0, d1)[s0] -> (d1 + s0)>} : tile<4x16xi32>"):
        assert text in c.ir, c.ir


def test_the_ir_round_trips() -> None:
    import tilec.ir as ir

    c = tc.compile(causal_scores, tc.array((None, None), np.float32),
                   tc.array((None, None), np.float32), target="reference")
    again = ir.parse(c.ir)
    assert ir.structurally_equal(c.module, again), ir.explain_difference(c.module, again)


SPECS = {ramps: (tc.array((None, None), np.int32), tc.int32),
         grid_coords: (tc.array((None, None), np.int32),),
         causal_scores: (tc.array((None, None), np.float32),) * 2}


@pytest.mark.parametrize("target", CUDA_TARGETS)
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_cuda_prints_one_value_per_register(target: str, kernel: Any) -> None:
    src = cuda_source(kernel, *SPECS[kernel], target=target)
    assert "/* tilec: iota#" in src.text and "tid" in src.text
    assert src.checks == []  # nothing to check at run time


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_the_kernels_compile_to_cubins(target: str, arch: str, kernel: Any) -> None:
    cubin(cuda_source(kernel, *SPECS[kernel], target=target), arch)


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
@pytest.mark.parametrize("kernel", list(SPECS), ids=lambda k: k.__name__)
def test_metal_source_passes_the_check(kernel: Any) -> None:
    exe = tc.compile(kernel, *SPECS[kernel], target="metal:m1").executable()
    assert "/* tilec: iota#" in exe.source
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)


# ----------------------------------------------------------------------- refused


@tc.kernel
def empty(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(0))  # err


@tc.kernel
def zero_step(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(0, 4, step=0))  # err


@tc.kernel
def step_without_start(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(4, step=2))  # err


@tc.kernel
def runtime_extent(Out, n):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(n))  # err


@tc.kernel
def runtime_step(Out, n):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(0, 8, n))  # err


@tc.kernel
def too_wide(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(126, 130, dtype=tc.int8))  # err


@tc.kernel
def bool_dtype(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(4, dtype=tc.bool_))  # err


@tc.kernel
def float_bound(Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (4,)).store(tc.arange(4.0))  # err


REFUSED = [
    (empty, "tc.arange(0)", ["arange() of an empty range (0 elements)"]),
    (zero_step, "0)", ["arange() needs a nonzero step"]),
    (step_without_start, "2)", ["arange(n) takes no step", "tc.arange(0, n, step=...)"]),
    (runtime_extent, "tc.arange(n)", ["compile-time extent", "tc.arange(m0, m0 + BM)"]),
    (runtime_step, "n)", ["the step of arange() must be a compile-time integer"]),
    (too_wide, "tc.int8", ["arange(): the value 129 does not fit in i8", "dtype=tc.int16"]),
    (bool_dtype, "tc.bool_", ["arange() makes integer or float tiles", "not i1"]),
    (float_bound, "4.0", ["arange() bounds are integers"]),
]


@pytest.mark.parametrize("kernel,needle,fragments", REFUSED, ids=[k.__name__ for k, *_ in REFUSED])
def test_bad_arange_calls_are_located_errors(kernel: Any, needle: str, fragments: list[str]
                                             ) -> None:
    args = (tc.array((None,), np.float32),)
    if kernel in (runtime_extent, runtime_step):
        args += (tc.int32,)
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, *args, target="reference")
    assert_located(info.value, kernel, needle, fragments)
