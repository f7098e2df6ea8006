"""The CUDA call path without a GPU (``paths.fake_driver``): arguments bound once per
signature and re-checked where addresses and values matter, the caller's stream, nothing
waited for or copied unless the kernel has device checks (and then not while the stream is
captured), and launch records that a new process loads instead of compiling."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import fake_driver, launchable, needs_nvrtc
from tilec.targets.cuda.runtime import InteropError

pytestmark = needs_nvrtc


@tc.kernel
def axpy(X, Y, a):
    assert a != 0.0, "a is not zero"
    for p in tc.parallel(tc.cdiv(X.shape[0], 64)):
        Y.tile((p * 64,), (64,)).store(X.tile((p * 64,), (64,), fill=0.0).load() * a)


@tc.kernel
def checked(X, Y, bad):
    for p in tc.parallel(tc.cdiv(X.shape[0], 64)):
        assert p != bad, "program bad"
        Y.tile((p * 64,), (64,)).store(X.tile((p * 64,), (64,), fill=0.0).load())


class _Device:
    type = "cuda"
    index = 0


class _DType:
    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return f"torch.{self.name}"


_DTYPES = {n: _DType(n) for n in ("float32", "float16")}
"""One object per dtype, as torch has."""


class FakeTensor:
    """What the launcher reads of a torch CUDA tensor (its memory is never touched)."""

    __module__ = "torch.fake"
    device = _Device()

    def __init__(self, ptr: int, shape: tuple[int, ...], dtype: str = "float32") -> None:
        self.ptr = ptr
        self.shape = shape
        self.dtype = _DTYPES[dtype]

    def data_ptr(self) -> int:
        return self.ptr

    def stride(self) -> tuple[int, ...]:
        return (1,) * len(self.shape)

    def get_device(self) -> int:
        return 0


@pytest.fixture
def driver_calls(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[Any]]:
    """The fake driver's calls, and each launch's ``(stream handle, slots)``."""
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()

    record = np.zeros(4, np.uint64)
    calls = fake_driver(monkeypatch, record, lambda args: None)
    launches: list[Any] = []
    fake = driver.cuLaunchKernel

    def launch(f: Any, *rest: Any) -> Any:
        out = fake(f, *rest)
        launches.append(int(rest[7]))
        return out

    monkeypatch.setattr(driver, "cuLaunchKernel", launch)
    return calls, launches


def _exe(kernel: Any, *specs: Any) -> Any:
    return launchable(kernel, *specs, target="cuda:sm_90")


def test_a_bound_signature_launches_without_binding_or_waiting(driver_calls) -> None:
    calls, streams = driver_calls
    v = tc.array((None,), np.float32)
    exe = _exe(axpy, v, v, tc.float32)
    x, y = FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,))
    exe(x, y, 2.0, stream=7)
    exe(FakeTensor(0x30000, (256,)), FakeTensor(0x40000, (256,)), 3.0, stream=9)
    assert exe.bindings_made == 1
    assert calls == ["launch", "launch"], calls  # no copy, no synchronization
    assert streams == [7, 9]
    exe(x, y, 2.0, stream=7, sync=True)
    assert calls[-2:] == ["launch", "sync"]
    with pytest.raises(tc.KernelAssertionError, match="a is not zero"):
        exe(x, y, 0.0, stream=7)  # a value: re-checked every call


def test_a_bound_signature_is_re_checked_where_addresses_matter(driver_calls) -> None:
    v = tc.array((None,), np.float32)
    exe = _exe(axpy, v, v, tc.float32)
    exe(FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,)), 2.0, stream=1)
    with pytest.raises(InteropError, match="not aligned"):
        exe(FakeTensor(0x10002, (256,)), FakeTensor(0x20000, (256,)), 2.0, stream=1)
    with pytest.raises(InteropError, match="overlaps argument 0"):
        exe(FakeTensor(0x10000, (256,)), FakeTensor(0x10000 + 64, (256,)), 2.0, stream=1)
    with pytest.raises(InteropError, match="dtype f16"):
        exe(FakeTensor(0x10000, (256,), "float16"), FakeTensor(0x20000, (256,)), 2.0,
            stream=1)
    assert exe.bindings_made == 1  # the failures bound nothing


def test_device_checks_are_not_read_back_while_capturing(driver_calls, monkeypatch) -> None:
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()

    calls, _ = driver_calls
    v = tc.array((None,), np.float32)
    exe = _exe(checked, v, v, tc.int32)
    x, y = FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,))
    exe(x, y, 99, stream=3)
    assert calls == ["clear", "launch", "copy", "sync"]  # eager: waited for, read back
    calls.clear()
    active = driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    monkeypatch.setattr(driver, "cuStreamIsCapturing",
                        lambda s: (driver.CUresult.CUDA_SUCCESS, active))
    exe(x, y, 99, stream=3)
    exe(x, y, 99, stream=3, sync=True)
    assert calls == ["launch", "launch"]  # captured: nothing copied, nothing waited for


def test_a_launch_record_rebuilds_the_executable(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_WARM_START", raising=False)
    from tilec.lib.matmul import matmul

    a = tc.array((None, None), np.float32)
    cold = tc.compile(tc.kernel(matmul.fn), a, a, a, target="cuda:sm_90", BM=64, BN=64, BK=32)
    exe = cold.executable()
    hot = tc.compile(tc.kernel(matmul.fn), a, a, a, target="cuda:sm_90", BM=64, BN=64, BK=32)
    assert hot.warm and not cold.warm
    got = hot.executable()
    assert got.kernel.launch_json() == exe.kernel.launch_json()
    assert got.cubin.data == exe.cubin.data and got.resources == exe.resources
    assert got.source == exe.source
    assert got._host_checks.to_json() == exe._host_checks.to_json()
