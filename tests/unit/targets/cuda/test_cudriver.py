"""The ctypes driver functions (``targets/cuda/cudriver.py``) without a GPU.

The library is replaced by ctypes callbacks with the driver's prototypes, so that every
argument and out-parameter crosses a real C call; the enum values are compared with
cuda-bindings' where it is installed.
"""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from tilec.targets.cuda import cudriver
from tilec.targets.cuda.cudriver import _PROTOTYPES, Driver, DriverError

_NAMESPACES = ("CUresult", "CUdevice_attribute", "CUfunction_attribute",
               "CUstreamCaptureStatus", "CUtensorMapDataType", "CUtensorMapInterleave",
               "CUtensorMapSwizzle", "CUtensorMapL2promotion", "CUtensorMapFloatOOBfill")


def test_enum_values_are_the_driver_abi() -> None:
    real = pytest.importorskip("cuda.bindings.driver")
    checked = 0
    for ns in _NAMESPACES:
        mine, theirs = getattr(Driver, ns), getattr(real, ns)
        for member, value in vars(mine).items():
            assert int(getattr(theirs, member)) == value, f"{ns}.{member}"
            checked += 1
    assert checked > 40


class _FakeLib:
    """C callbacks standing in for the library's symbols (by symbol name)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._keep: list[Any] = []
        symbols = {sym: args for sym, args in _PROTOTYPES.values()}
        for name, fn in self._impls().items():
            # a callback gets a c_char_p argument as a bytes copy: take the buffer's address
            args = [ctypes.c_void_p if (name, a) == ("cuDeviceGetName", ctypes.c_char_p) else a
                    for a in symbols[name]]
            proto = ctypes.CFUNCTYPE(ctypes.c_int, *args)
            cb = proto(self._recording(name, fn))
            self._keep.append(cb)
            setattr(self, name, ctypes.cast(cb, proto))

    def _recording(self, name: str, fn: Any) -> Any:
        def call(*args: Any) -> int:
            self.calls.append((name, args))
            return fn(*args)
        return call

    def _impls(self) -> dict[str, Any]:
        def put(ptr: int, ctype: Any, value: Any) -> None:
            ctype.from_address(ptr).value = value

        err_name = ctypes.c_char_p(b"CUDA_ERROR_INVALID_VALUE")
        self._keep.append(err_name)
        return {
            "cuInit": lambda flags: 0 if flags == 0 else 1,
            "cuDeviceGetCount": lambda out: put(out, ctypes.c_int, 3) or 0,
            "cuDeviceGetAttribute": lambda out, attr, dev: put(out, ctypes.c_int,
                                                               attr * 10 + dev) or 0,
            "cuDeviceGetName": lambda buf, n, dev: ctypes.memmove(buf, b"Fake GPU\0", 9) and 0,
            "cuModuleGetFunction": lambda out, mod, name: (
                put(out, ctypes.c_void_p, 0x1234 if name == b"k" and mod == 77 else 0) or 0),
            "cuMemAlloc_v2": lambda out, n: put(out, ctypes.c_uint64, 0x7000_0000 + n) or 0,
            "cuStreamIsCapturing": lambda stream, out: put(out, ctypes.c_int,
                                                           1 if stream == 9 else 0) or 0,
            "cuLaunchKernel": lambda *a: 0,
            "cuCtxSetCurrent": lambda ctx: 0 if ctx else 201,
            "cuGetErrorName": lambda err, out: put(out, ctypes.c_void_p,
                                                   ctypes.cast(err_name, ctypes.c_void_p).value)
            or 0,
            "cuTensorMapEncodeTiled": self._encode,
        }

    @staticmethod
    def _encode(out, dtype, rank, ptr, dims, strides, box, elem, inter, swz, l2, oob) -> int:
        if out % 64:
            return 1
        d = (ctypes.c_uint64 * rank).from_address(dims)
        s = (ctypes.c_uint64 * (rank - 1)).from_address(strides)
        b = (ctypes.c_uint32 * rank).from_address(box)
        words = [dtype, rank, ptr, *d, *s, *b, swz]
        data = (ctypes.c_uint64 * len(words))(*words)
        ctypes.memmove(out, data, ctypes.sizeof(data))
        return 0


@pytest.fixture
def drv() -> tuple[Driver, _FakeLib]:
    d = Driver()
    lib = _FakeLib()
    d._lib = lib
    return d, lib


def test_results_and_out_parameters_cross_the_c_call(drv) -> None:
    d, lib = drv
    assert d.cuInit(0) == (0,)
    assert d.cuDeviceGetCount() == (0, 3)
    attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    assert d.cuDeviceGetAttribute(attr, 2) == (0, 752)
    err, raw = d.cuDeviceGetName(256, 0)
    assert err == 0 and raw.split(b"\0", 1)[0] == b"Fake GPU"
    assert d.cuModuleGetFunction(77, b"k") == (0, 0x1234)
    assert d.cuMemAlloc(64) == (0, 0x7000_0040)
    assert d.cuStreamIsCapturing(9) == (0, d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE)
    assert d.cuStreamIsCapturing(0) == (0, 0)
    assert d.cuLaunchKernel(0x1234, 4, 2, 1, 128, 1, 1, 1024, 5, 0xABC0, 0) == (0,)
    name, args = lib.calls[-1]
    assert name == "cuLaunchKernel"
    assert args == (0x1234, 4, 2, 1, 128, 1, 1, 1024, 5, 0xABC0, None)


def test_an_error_is_named_by_the_driver(drv) -> None:
    d, _ = drv
    (err,) = d.cuInit(1)
    assert isinstance(err, DriverError) and int(err) == 1
    assert str(err) == "CUDA_ERROR_INVALID_VALUE (1)"
    (err,) = d.cuCtxSetCurrent(0)
    assert int(err) == 201 and "CUDA_ERROR" in f"{err}"


def test_tensor_maps_are_aligned_and_get_their_arrays(drv) -> None:
    d, _ = drv
    swz = d.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
    err, tmap = d.cuTensorMapEncodeTiled(9, 2, 0x10000, [512, 1000], [1024], [64, 128], [1, 1],
                                        0, swz, 2, 0)
    assert err == 0 and tmap.getPtr() % 64 == 0
    words = list((ctypes.c_uint64 * 9).from_address(tmap.getPtr()))
    assert words == [9, 2, 0x10000, 512, 1000, 1024, 64, 128, swz]


def test_a_missing_library_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setattr(cudriver, "_library_names", lambda: ("libcuda-not-here.so.1",))
    with pytest.raises(OSError, match="CUDA driver library cannot be loaded.*libcuda-not-here"):
        Driver().cuInit(0)


def test_cuda_bindings_is_not_imported_on_the_call_path() -> None:
    import subprocess
    import sys

    code = ("import sys, tilec.targets.cuda.runtime, tilec.targets.cuda.backend; "
            "print('cuda.bindings.driver' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
