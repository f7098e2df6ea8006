"""The launcher's split-K workspaces without a GPU (``paths.fake_driver``): allocated on
first need for the launch's grid, one set per stream, counters zeroed on the launch's stream
when allocated, grown for a larger grid, refused while the stream is captured, and passed
in the kernel's last parameter slots."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import fake_driver, needs_nvrtc
from tilec.lib import matmul
from tilec.targets.cuda.launcher import LaunchError

pytestmark = needs_nvrtc

from test_cuda_launch_path import FakeTensor  # noqa: E402


@tc.kernel
def divided(A, B, C, d, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """A K loop with a device check in it (an integer division by ``k - d``)."""
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            j = k + 0 * (7 // (k - d))
            a = A.tile((pm * BM, j * BK), (BM, BK), fill=0.0)
            b = B.tile((j * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


class Matrix(FakeTensor):
    """A fake row-major matrix."""

    __module__ = "torch.fake"

    def stride(self) -> tuple[int, ...]:
        return (self.shape[1], 1)


@pytest.fixture
def driver_log(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Each allocation's bytes, each memset's ``(address, bytes, stream)`` and each launch's
    parameter slots."""
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()
    ok = driver.CUresult.CUDA_SUCCESS
    log: dict[str, list[Any]] = {"alloc": [], "memset": [], "launch": [], "free": []}
    fake_driver(monkeypatch, np.zeros(4, np.uint64), lambda args: log["launch"].append(args))
    keep: list[Any] = []

    def alloc(n: int) -> tuple[Any, int]:
        buf = ctypes.create_string_buffer(n)  # host memory stands in for the device's
        keep.append(buf)
        log["alloc"].append(n)
        return ok, ctypes.addressof(buf)

    def memset(ptr: int, value: int, n: int, stream: Any = None) -> tuple[Any]:
        log["memset"].append((int(ptr), n, stream))
        ctypes.memset(int(ptr), value, n)
        return (ok,)

    monkeypatch.setattr(driver, "cuMemAlloc", alloc)
    monkeypatch.setattr(driver, "cuMemsetD8Async", memset)
    monkeypatch.setattr(driver, "cuMemFree", lambda p: (log["free"].append(int(p)), (ok,))[1])
    return log


def test_split_k_workspaces_are_per_stream_and_sized_by_the_grid(driver_log, monkeypatch
                                                                 ) -> None:
    v = tc.array((None, None), np.float32)
    exe = tc.compile(matmul, v, v, v, target="cuda:sm_90", variant={"split_k": 4},
                     BM=64, BN=64, BK=32).executable()
    exe.runnable = True
    params = exe.kernel.params
    ws = [k for k, p in enumerate(params) if p.kind == "workspace"]
    per = int(params[ws[0]].shape[0])  # partial floats per program
    a = Matrix(0x100000, (128, 256))
    b = Matrix(0x200000, (256, 64))
    c = Matrix(0x300000, (128, 64))
    exe(a, b, c, stream=5)  # 2 x 1 tiles, 4 splits: 8 programs
    assert driver_log["alloc"] == [8 * per * 4, 2 * 4]  # partials; a counter per tile
    (ptr, n, stream), = driver_log["memset"]  # the counters, on the launch's stream
    assert n == 8 and stream == 5
    slots = driver_log["launch"][-1]
    assert slots[ws[1]] == ptr and slots[ws[0]] != 0
    exe(a, b, c, stream=5)
    assert len(driver_log["alloc"]) == 2  # the stream's workspaces are reused
    exe(a, b, c, stream=6)
    assert len(driver_log["alloc"]) == 4  # another stream gets its own
    assert driver_log["launch"][-1][ws[0]] != slots[ws[0]]
    big = Matrix(0x400000, (512, 256))
    exe(big, b, Matrix(0x500000, (512, 64)), stream=5)  # 8 tiles: grown
    # grown; the old ones stay allocated (a captured graph may hold their addresses)
    assert driver_log["alloc"][-2:] == [32 * per * 4, 8 * 4] and driver_log["free"] == []
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()
    active = driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    monkeypatch.setattr(driver, "cuStreamIsCapturing",
                        lambda s: (driver.CUresult.CUDA_SUCCESS, active))
    exe(a, b, c, stream=6)  # captured with workspaces already there: fine
    with pytest.raises(LaunchError, match="launch the kernel once on it before capturing"):
        exe(a, b, c, stream=9)


def test_a_failed_device_check_zeroes_the_counters(monkeypatch) -> None:
    """A program that stopped at a failed check never arrived: its tile's count would stay
    short into the next launch, which would then combine partials never stored. The
    launcher zeroes the stream's counters after reading the failure."""
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()
    ok = driver.CUresult.CUDA_SUCCESS
    record = np.zeros(8, np.uint64)
    fail = {"now": False}
    launched: list[tuple[int, ...]] = []

    def on_launch(args: tuple[int, ...]) -> Any:
        launched.append(args)
        return [1, 0] if fail["now"] else None

    fake_driver(monkeypatch, record, on_launch)
    keep: list[Any] = []
    sets: list[tuple[int, int]] = []

    def alloc(n: int) -> tuple[Any, int]:
        buf = ctypes.create_string_buffer(n)
        keep.append(buf)
        return ok, ctypes.addressof(buf)

    def memset(ptr: int, value: int, n: int, stream: Any = None) -> tuple[Any]:
        sets.append((int(ptr), n))
        ctypes.memset(int(ptr), value, n)
        return (ok,)

    monkeypatch.setattr(driver, "cuMemAlloc", alloc)
    monkeypatch.setattr(driver, "cuMemsetD8Async", memset)
    monkeypatch.setattr(driver, "cuMemsetD8", memset)
    v = tc.array((None, None), np.float32)
    exe = tc.compile(divided, v, v, v, tc.int32, target="cuda:sm_80", variant={"split_k": 4}
                     ).executable()
    exe.runnable = True
    assert exe.kernel.checks, "the division is checked on the device"
    ws = [k for k, p in enumerate(exe.kernel.params) if p.kind == "workspace"]
    a, b, c = Matrix(0x100000, (64, 256)), Matrix(0x200000, (256, 32)), Matrix(0x300000,
                                                                                (64, 32))
    exe(a, b, c, -1, stream=3)
    cnt = launched[-1][ws[1]]  # the counters' address, as the kernel got it
    assert [x for x in sets if x[0] == cnt] == [(cnt, 2 * 4)]  # zeroed when allocated
    fail["now"] = True
    with pytest.raises(tc.KernelArithmeticError, match="zero divisor"):
        exe(a, b, c, 2, stream=3)
    assert [x for x in sets if x[0] == cnt] == [(cnt, 2 * 4)] * 2  # and after the failure
