"""The CUDA driver API calls tilec makes, through ``ctypes`` on the driver library itself.

The launcher (``launcher.Launcher``), the device facts of the backend, the driver's version in
the build identity and the tensor-map encoder need about twenty driver functions. Importing
``cuda.bindings.driver`` for them costs about 20 ms in a new process (its extension module
and the enums it builds), which a warm start (``docs/design/warm_start.md``) cannot afford,
and each of its calls wraps the result codes in enum objects. This module loads the driver
library with ``ctypes`` (``libcuda.so.1``; ``nvcuda.dll`` on Windows) the first time a
function is called and declares each function's prototype once.

The interface is the subset of ``cuda.bindings.driver`` that tilec uses, with the same names,
argument order and results, so that the callers read the same and a test can stand in for
any function (``monkeypatch.setattr(driver(), "cuLaunchKernel", fake)``):

* every function returns a tuple whose first item is the ``CUresult`` (an ``int``; a nonzero
  one is a ``DriverError``, which prints the driver's name for it) followed by the outputs;
* handles (contexts, modules, functions, streams) are plain integers (``CUstream(h)`` is
  ``h``), device pointers are integers;
* the enums are namespaces of integer members under the driver's names
  (``CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS``); their values are the driver ABI's
  (``cuda.h``; a unit test compares them with cuda-bindings' where that is installed);
* ``cuTensorMapEncodeTiled`` returns the map as an object with ``getPtr()`` (its 128 bytes,
  64-byte aligned).

Only functions with a stable ABI symbol are used (the ``_v2`` ones where ``cuda.h`` maps the
name to one); the plain symbols use the legacy default stream for handle 0, as torch's
default stream is.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["Driver", "DriverError", "driver"]

_c = ctypes
_P = _c.c_void_p
_U = _c.c_uint
_I = _c.c_int
_SZ = _c.c_size_t
_DPTR = _c.c_uint64  # CUdeviceptr


class DriverError(int):
    """A nonzero ``CUresult``: an ``int`` that prints as the driver's name for it."""

    name: str = ""

    def __str__(self) -> str:
        return f"{self.name or 'CUDA_ERROR'} ({int(self)})"

    __repr__ = __str__


class _Enum:
    """A namespace of integer enum members."""

    def __init__(self, **members: int) -> None:
        self.__dict__.update(members)


class _TensorMap:
    """A ``CUtensorMap``: 128 bytes at a 64-byte aligned address (``getPtr``)."""

    def __init__(self) -> None:
        self._buf = _c.create_string_buffer(128 + 64)
        base = _c.addressof(self._buf)
        self._ptr = base + (-base) % 64

    def getPtr(self) -> int:  # noqa: N802 (cuda-bindings' name)
        """The map's address."""
        return self._ptr


def _array(ctype: Any, values: Sequence[int]) -> Any:
    return (ctype * len(values))(*(int(v) for v in values))


_PROTOTYPES: dict[str, tuple[str, tuple[Any, ...]]] = {
    # name used here: (library symbol, argument types)
    "cuInit": ("cuInit", (_U,)),
    "cuDriverGetVersion": ("cuDriverGetVersion", (_P,)),
    "cuDeviceGet": ("cuDeviceGet", (_P, _I)),
    "cuDeviceGetCount": ("cuDeviceGetCount", (_P,)),
    "cuDeviceGetAttribute": ("cuDeviceGetAttribute", (_P, _I, _I)),
    "cuDeviceGetName": ("cuDeviceGetName", (_c.c_char_p, _I, _I)),
    "cuDevicePrimaryCtxRetain": ("cuDevicePrimaryCtxRetain", (_P, _I)),
    "cuCtxSetCurrent": ("cuCtxSetCurrent", (_P,)),
    "cuModuleLoadData": ("cuModuleLoadData", (_P, _P)),
    "cuModuleGetFunction": ("cuModuleGetFunction", (_P, _P, _c.c_char_p)),
    "cuFuncLoad": ("cuFuncLoad", (_P,)),
    "cuFuncSetAttribute": ("cuFuncSetAttribute", (_P, _I, _I)),
    "cuFuncGetAttribute": ("cuFuncGetAttribute", (_P, _I, _P)),
    "cuMemAlloc": ("cuMemAlloc_v2", (_P, _SZ)),
    "cuMemFree": ("cuMemFree_v2", (_DPTR,)),
    "cuMemsetD8": ("cuMemsetD8_v2", (_DPTR, _c.c_ubyte, _SZ)),
    "cuMemsetD8Async": ("cuMemsetD8Async", (_DPTR, _c.c_ubyte, _SZ, _P)),
    "cuMemcpyDtoHAsync": ("cuMemcpyDtoHAsync_v2", (_P, _DPTR, _SZ, _P)),
    "cuMemcpyHtoD": ("cuMemcpyHtoD_v2", (_DPTR, _P, _SZ)),
    "cuMemcpyDtoH": ("cuMemcpyDtoH_v2", (_P, _DPTR, _SZ)),
    "cuStreamSynchronize": ("cuStreamSynchronize", (_P,)),
    "cuStreamIsCapturing": ("cuStreamIsCapturing", (_P, _P)),
    "cuLaunchKernel": ("cuLaunchKernel", (_P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P)),
    "cuTensorMapEncodeTiled": ("cuTensorMapEncodeTiled",
                               (_P, _I, _U, _P, _P, _P, _P, _P, _I, _I, _I, _I)),
    "cuGetErrorName": ("cuGetErrorName", (_I, _P)),
}
"""The functions used, by their ``cuda.h`` name: the library symbol and the C argument types
(pointers, handles and out-parameters as ``void *``; every result is ``CUresult``)."""


def _library_names() -> tuple[str, ...]:
    if sys.platform == "win32":
        return ("nvcuda.dll",)
    return ("libcuda.so.1", "libcuda.so")


class Driver:
    """The driver functions (loaded on first use; see the module docstring)."""

    CUresult = _Enum(CUDA_SUCCESS=0)
    CUdevice_attribute = _Enum(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76)
    CUfunction_attribute = _Enum(
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK=0, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES=1,
        CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES=2, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES=3,
        CU_FUNC_ATTRIBUTE_NUM_REGS=4, CU_FUNC_ATTRIBUTE_PTX_VERSION=5,
        CU_FUNC_ATTRIBUTE_BINARY_VERSION=6, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA=7,
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8,
        CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT=9)
    CUstreamCaptureStatus = _Enum(CU_STREAM_CAPTURE_STATUS_NONE=0,
                                  CU_STREAM_CAPTURE_STATUS_ACTIVE=1,
                                  CU_STREAM_CAPTURE_STATUS_INVALIDATED=2)
    CUtensorMapDataType = _Enum(
        CU_TENSOR_MAP_DATA_TYPE_UINT8=0, CU_TENSOR_MAP_DATA_TYPE_UINT16=1,
        CU_TENSOR_MAP_DATA_TYPE_UINT32=2, CU_TENSOR_MAP_DATA_TYPE_INT32=3,
        CU_TENSOR_MAP_DATA_TYPE_UINT64=4, CU_TENSOR_MAP_DATA_TYPE_INT64=5,
        CU_TENSOR_MAP_DATA_TYPE_FLOAT16=6, CU_TENSOR_MAP_DATA_TYPE_FLOAT32=7,
        CU_TENSOR_MAP_DATA_TYPE_FLOAT64=8, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16=9,
        CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ=10, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32=11,
        CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ=12)
    CUtensorMapInterleave = _Enum(CU_TENSOR_MAP_INTERLEAVE_NONE=0,
                                  CU_TENSOR_MAP_INTERLEAVE_16B=1,
                                  CU_TENSOR_MAP_INTERLEAVE_32B=2)
    CUtensorMapSwizzle = _Enum(CU_TENSOR_MAP_SWIZZLE_NONE=0, CU_TENSOR_MAP_SWIZZLE_32B=1,
                               CU_TENSOR_MAP_SWIZZLE_64B=2, CU_TENSOR_MAP_SWIZZLE_128B=3)
    CUtensorMapL2promotion = _Enum(CU_TENSOR_MAP_L2_PROMOTION_NONE=0,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_64B=1,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_128B=2,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B=3)
    CUtensorMapFloatOOBfill = _Enum(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA=1)

    CUstream = staticmethod(int)
    """A stream handle is its integer."""
    cuuint64_t = staticmethod(int)
    cuuint32_t = staticmethod(int)

    def __init__(self) -> None:
        self._lib: Any = None
        self._fns: dict[str, Any] = {}

    # -- loading ---------------------------------------------------------------------------
    def _load(self) -> Any:
        if self._lib is None:
            errors = []
            for name in _library_names():
                try:
                    self._lib = _c.CDLL(name)
                    break
                except OSError as e:
                    errors.append(str(e))
            else:
                raise OSError(f"the CUDA driver library cannot be loaded ({errors[0]}); is the "
                              "NVIDIA driver installed?")
        return self._lib

    def _fn(self, name: str) -> Any:
        fn = self._fns.get(name)
        if fn is None:
            symbol, argtypes = _PROTOTYPES[name]
            fn = getattr(self._load(), symbol)  # AttributeError: the driver is too old
            fn.restype = _I
            fn.argtypes = argtypes
            self._fns[name] = fn
        return fn

    def _result(self, err: int) -> int:
        if err == 0:
            return 0
        out = DriverError(err)
        name = _c.c_char_p()
        try:
            if self._fn("cuGetErrorName")(err, _c.byref(name)) == 0 and name.value:
                out.name = name.value.decode()
        except Exception:  # naming the error must not hide it
            pass
        return out

    def _call(self, name: str, *args: Any) -> tuple[Any, ...]:
        err = self._fn(name)(*args)
        return (0,) if err == 0 else (self._result(err),)

    def _out(self, name: str, ctype: Any, *args: Any) -> tuple[Any, Any]:
        """Call ``name`` with a fresh ``ctype`` out-parameter first; ``(err, its value)``."""
        v = ctype()
        err = self._result(self._fn(name)(_c.byref(v), *args))
        return err, v.value

    # -- devices and contexts --------------------------------------------------------------
    def cuInit(self, flags: int) -> tuple[Any, ...]:  # noqa: N802 (the driver's names)
        return self._call("cuInit", flags)

    def cuDriverGetVersion(self) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuDriverGetVersion", _I)

    def cuDeviceGet(self, ordinal: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuDeviceGet", _I, ordinal)

    def cuDeviceGetCount(self) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuDeviceGetCount", _I)

    def cuDeviceGetAttribute(self, attr: int, dev: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuDeviceGetAttribute", _I, attr, dev)

    def cuDeviceGetName(self, length: int, dev: int) -> tuple[Any, bytes]:  # noqa: N802
        buf = _c.create_string_buffer(length)
        err = self._result(self._fn("cuDeviceGetName")(buf, length, dev))
        return err, buf.raw

    def cuDevicePrimaryCtxRetain(self, dev: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuDevicePrimaryCtxRetain", _P, dev)

    def cuCtxSetCurrent(self, ctx: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuCtxSetCurrent", ctx)

    # -- modules and functions -------------------------------------------------------------
    def cuModuleLoadData(self, image: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuModuleLoadData", _P, image)

    def cuModuleGetFunction(self, module: int, name: bytes) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuModuleGetFunction", _P, module, name)

    def cuFuncLoad(self, fn: int) -> tuple[Any, ...]:  # noqa: N802
        try:
            f = self._fn("cuFuncLoad")
        except AttributeError:  # a driver before 12.4 loads the function with its module
            return (0,)
        return (self._result(f(fn)),)

    def cuFuncSetAttribute(self, fn: int, attr: int, value: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuFuncSetAttribute", fn, attr, value)

    def cuFuncGetAttribute(self, attr: int, fn: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuFuncGetAttribute", _I, attr, fn)

    # -- memory ----------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes: int) -> tuple[Any, Any]:  # noqa: N802
        return self._out("cuMemAlloc", _DPTR, nbytes)

    def cuMemFree(self, ptr: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuMemFree", int(ptr))

    def cuMemsetD8(self, ptr: int, value: int, n: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuMemsetD8", int(ptr), value, n)

    def cuMemsetD8Async(self, ptr: int, value: int, n: int, stream: int  # noqa: N802
                        ) -> tuple[Any, ...]:
        return self._call("cuMemsetD8Async", int(ptr), value, n, stream)

    def cuMemcpyDtoHAsync(self, dst: int, src: int, n: int, stream: int  # noqa: N802
                          ) -> tuple[Any, ...]:
        return self._call("cuMemcpyDtoHAsync", dst, int(src), n, stream)

    def cuMemcpyHtoD(self, dst: int, src: int, n: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuMemcpyHtoD", int(dst), src, n)

    def cuMemcpyDtoH(self, dst: int, src: int, n: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuMemcpyDtoH", dst, int(src), n)

    # -- streams and launches --------------------------------------------------------------
    def cuStreamSynchronize(self, stream: int) -> tuple[Any, ...]:  # noqa: N802
        return self._call("cuStreamSynchronize", stream)

    def cuStreamIsCapturing(self, stream: int) -> tuple[Any, Any]:  # noqa: N802
        status = _I()  # the out-parameter comes last here
        return self._result(self._fn("cuStreamIsCapturing")(stream, _c.byref(status))), \
            status.value

    def cuLaunchKernel(self, fn: int, gx: int, gy: int, gz: int, bx: int, by: int,  # noqa: N802
                       bz: int, shared: int, stream: int, params: int, extra: int
                       ) -> tuple[Any, ...]:
        return self._call("cuLaunchKernel", fn, gx, gy, gz, bx, by, bz, shared, stream, params,
                          extra or None)

    # -- tensor maps -----------------------------------------------------------------------
    def cuTensorMapEncodeTiled(self, data_type: int, rank: int, ptr: int,  # noqa: N802
                               dims: Sequence[int], strides: Sequence[int],
                               box: Sequence[int], element_strides: Sequence[int],
                               interleave: int, swizzle: int, l2_promotion: int,
                               oob_fill: int) -> tuple[Any, _TensorMap]:
        tmap = _TensorMap()
        err = self._fn("cuTensorMapEncodeTiled")(
            tmap.getPtr(), data_type, rank, ptr, _array(_c.c_uint64, dims),
            _array(_c.c_uint64, strides) if strides else None, _array(_c.c_uint32, box),
            _array(_c.c_uint32, element_strides), interleave, swizzle, l2_promotion, oob_fill)
        return self._result(err), tmap


_DRIVER = Driver()


def driver() -> Driver:
    """The process's driver functions (the library loads on the first call of one)."""
    return _DRIVER
