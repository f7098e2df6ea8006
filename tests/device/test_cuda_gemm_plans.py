"""The GEMM plans the benchmark times are right on the GPU, and repeated calls stay checked.

``lib.matmul`` with each tile configuration of ``benchmarks/cuda_gemm.py`` (default
plan: the planner picks threads and warp tiles), on a ragged and an aligned shape, in
bf16 and exact f32, against a float64 numpy product; outputs are poisoned with NaN
first. Then the executable's cached argument binding: a repeated call with the same
tensors, a call with other tensors, and a bad call after good ones.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from test_cuda_samples import check

import tilec
from paths import poison, to_device, to_host
from tilec.driver import lower_for
from tilec.lib.matmul import matmul
from tilec.targets.cuda.backend import make_backend
from tilec.targets.cuda.runtime import InteropError

pytestmark = pytest.mark.usefixtures("torch_cuda")

TILES = ((128, 128, 32), (128, 256, 32), (128, 64, 32), (64, 128, 32), (64, 64, 32),
         (128, 128, 64), (256, 128, 32), (128, 256, 64), (256, 128, 64))
WGMMA_TILES = ((128, 128, 64), (128, 256, 64), (256, 128, 64), (64, 64, 64))
"""Tiles whose 16-bit plans are warpgroup instructions (K and N multiples of 64)."""
SHAPES = ((333, 517, 250), (256, 512, 128))


def _executable(a: np.ndarray, b: np.ndarray, c: np.ndarray, tile: tuple[int, int, int]
                ) -> Any:
    bm, bn, bk = tile
    compiled = tilec.compile(matmul, a, b, c, target="reference", BM=bm, BN=bn, BK=bk)
    return make_backend("cuda").compile(lower_for(compiled.module, compiled.fn_name, "cuda"),
                                        compiled.fn_name)


NPDT = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}


def _check_product(torch: Any, dtype: str, shape: tuple[int, ...], tile: tuple[int, int, int],
                   seed: int, rel: float, wgmma: bool = False) -> None:
    """Fresh inputs, a NaN-poisoned output, one launch, compared with a float64 product."""
    m, n, k = shape
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(NPDT[dtype])
    b = rng.standard_normal((k, n)).astype(NPDT[dtype])
    c = np.empty((m, n), np.float32)
    exe = _executable(a, b, c, tile)
    if wgmma:
        assert "wgmma.mma_async" in exe.source and exe.cubin.arch == "sm_90a"
    da, db, dc = to_device(torch, a), to_device(torch, b), to_device(torch, c)
    poison(torch, dc)
    exe(da, db, dc, sync=True)
    want = a.astype(np.float64) @ b.astype(np.float64)
    check(to_host(torch, dc), want, 0, rel * float(np.abs(want).max()))


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("tile", TILES, ids=lambda t: "x".join(map(str, t)))
def test_benchmark_tiles_match_numpy(torch_cuda: Any, dtype: str, shape: tuple[int, ...],
                                     tile: tuple[int, int, int]) -> None:
    m, n, k = shape
    _check_product(torch_cuda, dtype, shape, tile, m * 7 + n * 3 + k,
                   1e-2 if dtype == "bf16" else 1e-4)


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("shape", SHAPES + ((64, 64, 64), (1000, 1000, 1000)),
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("tile", WGMMA_TILES, ids=lambda t: "x".join(map(str, t)))
def test_wgmma_plans_match_numpy(torch_cuda: Any, dtype: str, shape: tuple[int, ...],
                                 tile: tuple[int, int, int]) -> None:
    """The warpgroup-instruction plans (sm_90a) on ragged and aligned shapes, bf16 and f16."""
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("wgmma needs an sm_90 device")
    m, n, k = shape
    _check_product(torch_cuda, dtype, shape, tile, m * 5 + n * 11 + k, 1e-3, wgmma=True)


def test_repeated_calls_reuse_checks_but_not_results(torch_cuda: Any) -> None:
    torch = torch_cuda
    rng = np.random.default_rng(5)
    a = rng.standard_normal((96, 64)).astype(np.float32)
    b = rng.standard_normal((64, 80)).astype(np.float32)
    c = np.empty((96, 80), np.float32)
    exe = _executable(a, b, c, (64, 64, 32))
    da, db, dc = to_device(torch, a), to_device(torch, b), to_device(torch, c)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for _ in range(2):  # the second call takes the cached binding
        poison(torch, dc)
        exe(da, db, dc, sync=True)
        check(to_host(torch, dc), want, 0, 1e-4 * float(np.abs(want).max()))
    # After a launch the register count is known (from ptxas' report or from the driver).
    assert exe.resources.reported and exe.resources.registers > 0, str(exe.resources)
    # Other inputs and another output: bound afresh, and right.
    a2 = rng.standard_normal((96, 64)).astype(np.float32)
    da2, dc2 = to_device(torch, a2), to_device(torch, c)
    poison(torch, dc2)
    exe(da2, db, dc2, sync=True)
    want2 = a2.astype(np.float64) @ b.astype(np.float64)
    check(to_host(torch, dc2), want2, 0, 1e-4 * float(np.abs(want2).max()))
    # A bad call after good ones is still refused before launch.
    with pytest.raises(InteropError, match="dtype"):
        exe(da, db, dc.double(), sync=True)
    buf = torch.zeros(96 * 80, device="cuda", dtype=torch.float32)
    with pytest.raises(InteropError, match="overlaps"):
        exe(buf[:96 * 64].view(96, 64), db, buf.view(96, 80), sync=True)


def test_misaligned_cp_async_source_is_refused(torch_cuda: Any) -> None:
    torch = torch_cuda
    a = np.zeros((64, 64), ml_dtypes.bfloat16)
    c = np.empty((64, 64), np.float32)
    exe = _executable(a, a, c, (64, 64, 32))
    buf = torch.zeros(64 * 64 + 8, device="cuda", dtype=torch.bfloat16)
    shifted = buf[1:1 + 64 * 64].view(64, 64)  # 2 bytes past a 16-byte boundary
    db, dc = to_device(torch, a), to_device(torch, c)
    with pytest.raises(InteropError, match="not 16-byte aligned"):
        exe(shifted, db, dc, sync=True)
    poison(torch, dc)
    exe(buf[8:8 + 64 * 64].view(64, 64), db, dc, sync=True)  # 16 bytes in: accepted
    check(to_host(torch, dc), np.zeros((64, 64)), 0, 0)


def test_one_executable_follows_the_shapes_of_each_call(torch_cuda: Any) -> None:
    """The launcher caches the grid per integer parameters: other shapes launch other grids
    (all outputs right), and going back to the first shape reuses its grid."""
    torch = torch_cuda
    rng = np.random.default_rng(11)
    shapes = ((96, 80, 64), (300, 520, 130), (96, 80, 64), (1, 700, 64))
    a0 = rng.standard_normal((96, 64)).astype(ml_dtypes.bfloat16)
    b0 = rng.standard_normal((64, 80)).astype(ml_dtypes.bfloat16)
    exe = _executable(a0, b0, np.empty((96, 80), np.float32), (128, 128, 64))
    for m, n, k in shapes:
        a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
        dc = to_device(torch, np.empty((m, n), np.float32))
        poison(torch, dc)
        exe(to_device(torch, a), to_device(torch, b), dc, sync=True)
        want = a.astype(np.float64) @ b.astype(np.float64)
        check(to_host(torch, dc), want, 0, 1e-3 * float(np.abs(want).max()))
