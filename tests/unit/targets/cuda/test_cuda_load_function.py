"""Loading a cubin's kernel through the driver without a GPU (the driver calls stand-ins):
``launcher.check`` unpacks results and names a failing call, ``launcher.load_function``
makes the calls in the driver's order, and both runtimes (``Launcher`` and the
``tirx:cuda`` kernel) load through it."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from tilec.targets.cuda.cudriver import DriverError
from tilec.targets.cuda.launcher import LaunchError, LoadedFunction, check, load_function


def test_check_unpacks_a_driver_result_and_names_a_failing_call() -> None:
    assert check((0,), "x") == []
    assert check(0, "x") == []
    assert check((0, 7), "x") == 7
    assert check((0, 7, 8), "x") == [7, 8]
    bad = DriverError(300)
    bad.name = "CUDA_ERROR_INVALID_SOURCE"
    with pytest.raises(LaunchError, match=r"^loading k's cubin failed: "
                                          r"CUDA_ERROR_INVALID_SOURCE \(300\)$"):
        check((bad, None), "loading k's cubin")
    with pytest.raises(LaunchError, match=r"^syncing failed: CUDA_ERROR \(700\)$"):
        check(DriverError(700), "syncing")


class _FakeDriver:
    """The driver calls ``load_function`` makes, logged; ``fail`` names one that fails."""

    def __init__(self, fail: str = "") -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail = fail
        self.image = b""

    def _result(self, name: str, *outs: Any) -> tuple[Any, ...]:
        if name == self.fail:
            return (DriverError(1),) + (None,) * len(outs)
        return (0, *outs)

    def cuInit(self, flags: int) -> tuple[Any, ...]:  # noqa: N802
        self.calls.append(("cuInit", flags))
        return self._result("cuInit")

    def cuDeviceGet(self, n: int) -> tuple[Any, ...]:  # noqa: N802
        self.calls.append(("cuDeviceGet", n))
        return self._result("cuDeviceGet", 100 + n)

    def cuDevicePrimaryCtxRetain(self, dev: int) -> tuple[Any, ...]:  # noqa: N802
        self.calls.append(("cuDevicePrimaryCtxRetain", dev))
        return self._result("cuDevicePrimaryCtxRetain", 0xC0)

    def cuCtxSetCurrent(self, ctx: int) -> tuple[Any, ...]:  # noqa: N802
        self.calls.append(("cuCtxSetCurrent", ctx))
        return self._result("cuCtxSetCurrent")

    def cuModuleLoadData(self, image: int) -> tuple[Any, ...]:  # noqa: N802
        self.image = ctypes.string_at(image, 5)
        self.calls.append(("cuModuleLoadData",))
        return self._result("cuModuleLoadData", 0xA0)

    def cuModuleGetFunction(self, module: int, name: bytes) -> tuple[Any, ...]:  # noqa: N802
        self.calls.append(("cuModuleGetFunction", module, name))
        return self._result("cuModuleGetFunction", 0xF0)


def test_load_function_retains_the_primary_context_loads_and_finds_the_kernel() -> None:
    d = _FakeDriver()
    got = load_function(d, 1, b"CUBIN", "axpy_kernel")
    assert isinstance(got, LoadedFunction)
    assert (got.context, got.module, got.function) == (0xC0, 0xA0, 0xF0)
    assert d.calls == [("cuInit", 0), ("cuDeviceGet", 1), ("cuDevicePrimaryCtxRetain", 101),
                       ("cuCtxSetCurrent", 0xC0), ("cuModuleLoadData",),
                       ("cuModuleGetFunction", 0xA0, b"axpy_kernel")]
    assert d.image == b"CUBIN" and got.image.raw[:5] == b"CUBIN"


@pytest.mark.parametrize(("fail", "what"), [
    ("cuInit", "initializing the CUDA driver"),
    ("cuDeviceGet", "opening CUDA device 1"),
    ("cuDevicePrimaryCtxRetain", "retaining device 1's primary context"),
    ("cuCtxSetCurrent", "making device 1 current"),
    ("cuModuleLoadData", "loading axpy_kernel's cubin"),
    ("cuModuleGetFunction", "finding axpy_kernel in its cubin"),
])
def test_a_failing_load_call_is_a_launch_error_naming_it(fail: str, what: str) -> None:
    d = _FakeDriver(fail)
    with pytest.raises(LaunchError, match=f"^{what} failed"):
        load_function(d, 1, b"CUBIN", "axpy_kernel")
    assert d.calls[-1][0] == fail  # nothing after the failing call


def test_the_launcher_loads_through_load_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from tilec.targets.cuda import cudriver, launcher

    seen: list[tuple[Any, ...]] = []

    def fake(driver: Any, device: int, cubin: bytes, kernel: str) -> LoadedFunction:
        seen.append((driver, device, cubin, kernel))
        return LoadedFunction(0xC0, 0xA0, 0xF0, b"kept")

    class Source:  # what Launcher reads of a CUDASource when it has no checks
        kernel = "k"
        checks: list[Any] = []
        shared_bytes = 0

    monkeypatch.setattr(launcher, "load_function", fake)
    monkeypatch.setattr(cudriver.driver(), "cuFuncLoad", lambda f: (0,))
    one = launcher.Launcher(Source(), b"CUBIN", 0)  # type: ignore[arg-type]
    assert seen == [(cudriver.driver(), 0, b"CUBIN", "k")]
    assert (one.context, one.module, one.function) == (0xC0, 0xA0, 0xF0)
