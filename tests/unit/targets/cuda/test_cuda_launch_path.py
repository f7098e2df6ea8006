"""The CUDA call path without a GPU (``paths.fake_driver``): arguments bound once per
signature and re-checked where addresses and values matter, the caller's stream, nothing
waited for or copied unless the kernel has device checks (and then not while the stream is
captured), and launch records that a new process loads instead of compiling."""

from __future__ import annotations

import ctypes
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


@tc.kernel
def copy(X, Y):
    for p in tc.parallel(tc.cdiv(X.shape[0], 64)):
        Y.tile((p * 64,), (64,)).store(X.tile((p * 64,), (64,), fill=0.0).load())


def test_an_all_array_signature_launches_through_its_specialized_code(driver_calls,
                                                                     monkeypatch) -> None:
    """A plan of arrays only gets straight-line launch code (``fast_launch``); it re-checks
    alignment and overlap like the general path, hands a synchronized call to it, and the
    slots and stream it launches with are the call's."""
    calls, streams = driver_calls
    v = tc.array((None,), np.float32)
    exe = _exe(copy, v, v)
    x, y = FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,))
    exe(x, y, stream=5)
    (plan,) = exe._plans.values()
    assert plan.fast is not None and "def fast(args, handle)" in plan.fast.__doc__
    exe(FakeTensor(0x30000, (256,)), FakeTensor(0x40000, (256,)), stream=6)
    assert exe.bindings_made == 1 and calls == ["launch", "launch"] and streams == [5, 6]
    assert list(plan.slots)[:2] == [0x30000, 0x40000]
    with pytest.raises(InteropError, match="not aligned"):
        exe(FakeTensor(0x10002, (256,)), y, stream=5)
    with pytest.raises(InteropError, match="overlaps argument 0"):
        exe(x, FakeTensor(0x10000 + 1020, (256,)), stream=5)
    exe(x, FakeTensor(0x10000 + 1024, (256,)), stream=5)  # adjacent: no overlap
    calls.clear()
    monkeypatch.setenv("TILEC_CUDA_SYNC", "1")
    exe(x, y, stream=5)
    assert calls == ["launch", "sync"]  # the general path waited for it
    monkeypatch.delenv("TILEC_CUDA_SYNC")
    calls.clear()
    exe(x, y, stream=5, sync=True)
    assert calls == ["launch", "sync"]
    assert exe.bindings_made == 1


def test_plans_with_scalars_or_device_checks_take_the_general_path(driver_calls) -> None:
    v = tc.array((None,), np.float32)
    exe = _exe(axpy, v, v, tc.float32)
    exe(FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,)), 2.0, stream=1)
    assert all(p.fast is None for p in exe._plans.values())
    exe2 = _exe(checked, v, v, tc.int32)
    exe2(FakeTensor(0x10000, (256,)), FakeTensor(0x20000, (256,)), 99, stream=1)
    assert all(p.fast is None for p in exe2._plans.values())


def test_the_specialized_launch_re_encodes_a_tensor_map_only_when_its_array_moves(
        driver_calls, monkeypatch) -> None:
    from tilec.lib.matmul import matmul
    from tilec.targets.cuda import tensor_maps

    encoded: list[int] = []

    def encode(drv: Any, args: Any, what: str = "") -> bytes:
        encoded.append(args.ptr)
        return args.ptr.to_bytes(8, "little") * 16

    monkeypatch.setattr(tensor_maps, "encode", encode)
    _DTYPES.setdefault("bfloat16", _DType("bfloat16"))
    v = tc.array((None, None), tc.bfloat16)
    o = tc.array((None, None), tc.float32)
    exe = tc.compile(matmul, v, v, o, target="cuda:sm_90", BM=128, BN=128, BK=64).executable()
    exe.runnable = True

    class T2(FakeTensor):
        __module__ = "torch.fake"

        def stride(self) -> tuple[int, ...]:
            return (self.shape[1], 1)

    a, b = T2(0x100000, (256, 256), "bfloat16"), T2(0x200000, (256, 256), "bfloat16")
    c = T2(0x300000, (256, 256))
    exe(a, b, c, stream=1)
    (plan,) = exe._plans.values()
    # A's and B's maps for the ring, C's for the tensor stores of the output
    assert plan.fast is not None and plan.tmaps
    assert sorted(encoded) == [0x100000, 0x200000, 0x300000]
    exe(a, b, c, stream=1)
    assert len(encoded) == 3  # nothing moved
    exe(T2(0x500000, (256, 256), "bfloat16"), b, c, stream=1)
    assert encoded[3:] == [0x500000]
    addr = next(t[2] for t in plan.tmaps if t[1] == 0)
    assert ctypes.string_at(addr, 8) == (0x500000).to_bytes(8, "little")
    assert exe.bindings_made == 1
