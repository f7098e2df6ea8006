"""Device arrays, pre-launch validation and the launch itself (through ``cuda.core``).

Arrays: a torch CUDA tensor (read directly: ``data_ptr``, ``stride``, dtype,
device; this covers ``bfloat16``, which ``__cuda_array_interface__`` cannot
express), anything with ``__cuda_array_interface__`` (cupy, numba), or
anything with ``__dlpack__`` on a CUDA device (through
``cuda.core.utils.StridedMemoryView``). Host arrays are refused: a kernel
writes its outputs in place, so a silent copy would lose them.

Every check runs before the launch and names the argument: count, rank,
dtype, static extents, agreement of symbolic extents, C-contiguity, device,
writability of outputs, alignment to the element size, and aliasing (an
output's byte range overlapping any other array argument). An empty array
passes the layout and alignment checks whatever its strides and address: no
element of it is ever accessed.

The launch runs on the caller's stream: ``stream=`` when given, else the
current torch (or cupy) stream of the arguments, else the legacy default
stream; so it is ordered after the framework's work on the inputs. Every
driver call is checked; after the launch the stream is queried so that an
earlier asynchronous fault surfaces here, and with ``sync=True`` (or
``TILEC_CUDA_SYNC=1``) the launch is waited for and checked completely.
Dynamic shared memory above the 48 KB default is requested from the driver
once per kernel (``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``).

A kernel with device checks (``CUDASource.checks``) writes its first failed
check into a small device record the launcher owns (one per loaded kernel);
every launch of such a kernel is synchronous: the launcher copies the record
back and synchronizes the stream, so a failure is raised by the call that
launched it (``CheckInfo.failure``: the same ``KernelAssertionError`` as every
target), and the record is cleared for the next launch. Kernels whose checks
are all host checks launch asynchronously as before.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import interop_checks as checks
from tilec.targets.cuda.source import CUDASource, ParamInfo
from tilec.targets.interop_checks import InteropError, shape_bindings
from tilec.targets.kernel_checks import CheckInfo, decode_bits

__all__ = ["LaunchError", "InteropError", "DeviceArray", "as_device_array", "shape_bindings",
           "BoundLaunch", "bind_arguments", "argument_key", "check_aligned16", "Launcher",
           "ELEM_BYTES"]

ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
              "i64": 8, "index": 8}
"""Bytes per element of each TileIR scalar type in memory."""

_TORCH_NAMES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}
_NP_NAMES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
             "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}
_SCALAR_NP = {"f16": np.float32, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
              "i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
              "index": np.int64}
_SMEM_DEFAULT = 48 * 1024


class LaunchError(RuntimeError):
    """The driver reported an error for a launch (the message names the kernel)."""


@dataclass(frozen=True)
class DeviceArray:
    """A device array's facts, however it was passed."""

    ptr: int
    """Address of element 0."""
    shape: tuple[int, ...]
    """Extents."""
    strides: tuple[int, ...] | None
    """Strides in elements (None: C-contiguous)."""
    dtype: str
    """TileIR scalar type name, or the foreign dtype's name when it has none."""
    device: int
    """CUDA device ordinal (-1 when unknown)."""
    readonly: bool
    """True when the exporter marks it read-only."""
    kind: str
    """``torch``, ``cupy``/``cai`` or ``dlpack``."""

    @property
    def nbytes(self) -> int:
        """Bytes spanned (contiguous arrays)."""
        return math.prod(self.shape) * ELEM_BYTES.get(self.dtype, 1)

    @property
    def contiguous(self) -> bool:
        """True when the strides are row-major contiguous (size-1 axes ignored). An empty
        array is contiguous whatever its strides: it has no element to place (frameworks
        give those any strides, torch ``(1, 1)`` for shape ``(3, 0)``, expands 0)."""
        if self.strides is None or 0 in self.shape:
            return True
        want = 1
        for e, s in zip(reversed(self.shape), reversed(self.strides)):
            if e != 1 and s != want:
                return False
            want *= e
        return True


def as_device_array(x: Any, what: str) -> DeviceArray:
    """``x``'s device-array facts (``InteropError`` for host arrays and unknown objects)."""
    mod = type(x).__module__
    if mod.startswith("torch") and hasattr(x, "data_ptr"):
        dev = x.device
        if dev.type != "cuda":
            raise InteropError(f"{what} is a torch tensor on {dev}; target 'cuda' needs a CUDA "
                               "tensor (tensor.cuda())")
        name = str(x.dtype).replace("torch.", "")
        return DeviceArray(int(x.data_ptr()), tuple(int(e) for e in x.shape),
                           tuple(int(s) for s in x.stride()), _TORCH_NAMES.get(name, name),
                           int(dev.index if dev.index is not None else 0), False, "torch")
    if isinstance(x, np.ndarray):
        raise InteropError(f"{what} is a numpy array in host memory; target 'cuda' needs device "
                           "arrays (torch CUDA tensors or cupy arrays)")
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        ptr, ro = cai["data"]
        dt = np.dtype(cai["typestr"])
        shape = tuple(int(e) for e in cai["shape"])
        strides = cai.get("strides")
        if strides is not None:
            strides = tuple(int(s) // dt.itemsize for s in strides)
        dev = getattr(getattr(x, "device", None), "id", -1)
        return DeviceArray(int(ptr or 0), shape, strides, _NP_NAMES.get(dt.name, dt.name),
                           int(dev), bool(ro), "cai")
    if hasattr(x, "__dlpack__"):
        try:
            from cuda.core.utils import StridedMemoryView

            v = StridedMemoryView.from_dlpack(x, stream_ptr=-1)
        except Exception as e:
            raise InteropError(f"{what} cannot be viewed through DLPack: {e}") from None
        if not v.is_device_accessible or v.device_id < 0:
            raise InteropError(f"{what} lives in host memory; target 'cuda' needs device arrays")
        dt = np.dtype(v.dtype)
        return DeviceArray(int(v.ptr), tuple(v.shape), tuple(v.strides) if v.strides else None,
                           _NP_NAMES.get(dt.name, dt.name), int(v.device_id), bool(v.readonly),
                           "dlpack")
    raise InteropError(f"{what} must be a device array (torch CUDA tensor, cupy array, or an "
                       f"object with __cuda_array_interface__ / __dlpack__), got "
                       f"{type(x).__name__}")


def _scalar(x: Any, t: ir.ScalarType, what: str) -> Any:
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if hasattr(x, "item") and not isinstance(x, numbers.Number):
        x = x.item()  # 0-d torch tensors
    return _SCALAR_NP[t.name](checks.checked_number(x, t, what))


@dataclass
class BoundLaunch:
    """Validated launch arguments."""

    values: list[Any]
    """Kernel arguments in parameter order (pointers as ``np.uint64``, scalars typed)."""
    arrays: list[DeviceArray | None]
    """Per user parameter: its array facts (None for scalars)."""
    ints: list[int]
    """Per kernel parameter: its integer value where it has one (for the grid's host steps)."""
    device: int
    """The device every array lives on (-1: none known)."""
    objects: list[Any]
    """The user's array objects (kept alive over the launch; stream discovery)."""


def bind_arguments(kernel: str, params: Sequence[ParamInfo], user_args: Sequence[Any],
                   bindings: Sequence[tuple[int, int]], label: str | None = None
                   ) -> BoundLaunch:
    """Validate ``user_args`` against the kernel's parameters; build the launch values.

    ``label`` names the kernel in the aliasing error (``interop_checks.kernel_label``, as
    on every target); by default the kernel symbol."""
    user = [p for p in params if p.kind in ("mem", "scalar")]
    checks.check_count(kernel, user, user_args)
    arrays: list[DeviceArray | None] = []
    values: list[Any] = []
    ints: list[int] = []
    objects: list[Any] = []
    device = -1
    for i, (p, x) in enumerate(zip(user, user_args)):
        what = f"argument {i} ('{p.name}') of {kernel}"
        if p.kind == "scalar":
            v = _scalar(x, p.dtype, what)
            arrays.append(None)
            values.append(v)
            ints.append(int(v) if not p.dtype.is_float else 0)
            continue
        a = as_device_array(x, what)
        _check_array(a, p, what)
        if a.device >= 0:
            if device >= 0 and a.device != device:
                raise InteropError(f"{what} is on device {a.device} but another argument is on "
                                   f"device {device}; pass arrays of one device")
            device = a.device
        arrays.append(a)
        objects.append(x)
        values.append(np.uint64(a.ptr))
        ints.append(0)
    by_name: dict[str, int] = {}
    for p, (pi, axis) in zip([q for q in params if q.kind == "symbol"], bindings):
        a = arrays[pi]
        if a is None:
            raise InteropError(f"{kernel}: shape symbol {p.name} is bound to scalar argument {pi}")
        by_name[p.name] = a.shape[axis]
    shapes = [None if a is None else a.shape for a in arrays]
    checks.check_symbol_extents(kernel, user, shapes, by_name)
    checks.check_aliasing(label or kernel, user, arrays)
    for p in params[len(user):]:
        if p.kind == "symbol":
            v = by_name[p.name]
        else:
            a = arrays[p.source[0]]
            assert a is not None
            v = a.shape[p.source[1]]
        values.append(np.int64(v))
        ints.append(int(v))
    return BoundLaunch(values, arrays, ints, device, objects)


def argument_key(user_args: Sequence[Any]) -> tuple[Any, ...] | None:
    """Everything ``bind_arguments`` reads from ``user_args``, when that is cheap to get.

    Torch tensors (address, shape, strides, dtype, device) and Python numbers (type, value)
    give a key; any other argument gives None. Two calls with equal keys validate and
    bind identically (every check is a function of these facts), so an executable may
    reuse the earlier ``BoundLaunch``'s values for the later call.
    """
    key: list[Any] = []
    for x in user_args:
        t = type(x)
        if t.__module__.startswith("torch") and hasattr(x, "data_ptr"):
            key.append((x.data_ptr(), x.shape, x.stride(), x.dtype, x.device))
        elif t in (int, float, bool):
            key.append((t, x))
        else:
            return None
    return tuple(key)


def check_aligned16(src: CUDASource, bound: BoundLaunch) -> None:
    """Refuse arrays the kernel copies with 16-byte ``cp.async`` unless their base address
    is 16-byte aligned (the copies would fault or read the wrong bytes)."""
    user = [p for p in src.params if p.kind in ("mem", "scalar")]
    for i in sorted(src.aligned16):
        a = bound.arrays[i] if i < len(bound.arrays) else None
        if a is not None and a.nbytes and a.ptr % 16:  # nothing is copied from an empty one
            raise InteropError(
                f"argument {i} ('{user[i].name}') of {src.kernel} starts at {a.ptr:#x}, which is "
                "not 16-byte aligned; this kernel copies it in 16-byte chunks (cp.async). "
                "Pass an array that starts on a 16-byte boundary (e.g. a fresh allocation or "
                ".clone())")


def _check_array(a: DeviceArray, p: ParamInfo, what: str) -> None:
    checks.check_rank(what, a.shape, p)
    if a.dtype != p.dtype.name:
        raise InteropError(f"{what} has dtype {a.dtype}; expected {p.dtype} (convert it first: "
                           "outputs are written in place, so nothing is converted implicitly)")
    checks.check_static_extents(what, a.shape, p)
    if not a.contiguous:
        raise InteropError(f"{what} is not C-contiguous (strides {a.strides} elements); the "
                           "kernel takes row-major contiguous arrays (.contiguous() makes one)")
    if a.nbytes and a.ptr % ELEM_BYTES[p.dtype.name]:  # an empty array has no element
        raise InteropError(f"{what} is not aligned to its element size (address {a.ptr:#x})")
    checks.check_writable(what, a.shape, p, a.readonly, a.ptr != 0)


def _check(result: Any, what: str) -> Any:
    """Unpack a ``cuda.bindings`` return tuple, raising ``LaunchError`` on an error code."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise LaunchError(f"{what} failed: {err}")
    return rest[0] if len(rest) == 1 else rest


def _stream_handle(objects: Sequence[Any], device: int) -> int:
    """The current stream of the arguments' framework (0: the legacy default stream)."""
    for x in objects:
        mod = type(x).__module__
        if mod.startswith("torch"):
            import torch

            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            if raw is not None and device >= 0:  # the handle without a Stream object
                return int(raw(device))
            return int(torch.cuda.current_stream(x.device).cuda_stream)
        if mod.startswith("cupy"):
            import cupy

            return int(cupy.cuda.get_current_stream().ptr)
    return 0


class Launcher:
    """A loaded kernel on one device; launches it with validated arguments."""

    def __init__(self, source: CUDASource, cubin: bytes, device: int) -> None:
        from cuda.core import Device, ObjectCode

        self.source = source
        """The emitted kernel."""
        self.device = Device(device)
        """The cuda.core device."""
        self.device.set_current()
        self.kernel = ObjectCode.from_cubin(cubin, name=source.kernel).get_kernel(source.kernel)
        """The cuda.core kernel."""
        self._streams: dict[int, Any] = {}
        self._configs: dict[tuple[int, ...], Any] = {}
        """Launch configuration per integer-parameter values (None: nothing to run); the grid
        is a function of those values (the host steps)."""
        self._record: Any = None
        """The device address of the failure record (kernels with device checks only)."""
        self._record_host = np.zeros(1 + max((len(c.labels) for c in source.checks),
                                             default=0), np.uint64)
        """The record's host copy: the failed check's number (0: none), then its values."""
        if source.checks:
            from cuda.bindings import driver

            what = f"allocating {source.kernel}'s check record"
            self._record = _check(driver.cuMemAlloc(self._record_host.nbytes), what)
            _check(driver.cuMemsetD8(self._record, 0, self._record_host.nbytes), what)
        if source.shared_bytes > _SMEM_DEFAULT:
            from cuda.bindings import driver

            attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            handle = self.kernel.handle
            what = (f"raising {source.kernel}'s dynamic shared memory to "
                    f"{source.shared_bytes} bytes")
            if isinstance(handle, driver.CUkernel):  # library-loaded: set it per device
                _check(driver.cuKernelSetAttribute(attr, source.shared_bytes, handle,
                                                   driver.CUdevice(self.device.device_id)), what)
            else:
                _check(driver.cuFuncSetAttribute(handle, attr, source.shared_bytes), what)

    def __del__(self) -> None:
        record, self._record = getattr(self, "_record", None), None
        if record is not None:
            try:
                from cuda.bindings import driver

                driver.cuMemFree(record)
            except Exception:  # the driver may be gone at interpreter exit
                pass

    def attribute(self, name: str) -> int:
        """An integer attribute of the loaded kernel (``NUM_REGS``, ``LOCAL_SIZE_BYTES``,
        ``SHARED_SIZE_BYTES`` ...; the ``CU_FUNC_ATTRIBUTE_`` suffix) from the driver."""
        from cuda.bindings import driver

        attr = getattr(driver.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
        handle = self.kernel.handle
        what = f"reading {self.source.kernel}'s {name}"
        if isinstance(handle, driver.CUkernel):
            return int(_check(driver.cuKernelGetAttribute(
                attr, handle, driver.CUdevice(self.device.device_id)), what))
        return int(_check(driver.cuFuncGetAttribute(attr, handle), what))

    def _stream(self, handle: int, stream_type: Any) -> Any:
        """The ``cuda.core`` stream wrapping ``handle`` (made once per handle)."""
        st = self._streams.get(handle)
        if st is None:
            st = stream_type.from_handle(handle)
            self._streams[handle] = st
        return st

    def _config(self, ints: Sequence[int], config_type: Any) -> Any:
        """The launch configuration for integer-parameter values ``ints`` (None: an empty
        grid); a grid CUDA cannot launch is an error."""
        src = self.source
        extents = src.grid(ints)
        if any(e <= 0 for e in extents):  # an empty nest (negative extents too) runs nothing
            return None
        grid = src.launch_grid(extents)
        if grid[0] >= 2**31 or grid[1] > 65535 or grid[2] > 65535:
            raise LaunchError(f"{src.kernel}: grid {grid} exceeds CUDA's limits (x < 2^31, "
                              "y, z <= 65535); the lowering should linearize this grid")
        return config_type(grid=grid, block=(src.threads, 1, 1), shmem_size=src.shared_bytes)

    def launch(self, bound: BoundLaunch, stream: Any = None, sync: bool | None = None,
               objects: Sequence[Any] | None = None) -> tuple[CheckInfo, list[Any]] | None:
        """Launch on ``stream`` (default: the current stream of the arguments, ``objects`` or
        else ``bound.objects``) and check errors; returns the failed device check with its
        values, if any (then the launch was waited for)."""
        from cuda.bindings import driver
        from cuda.core import LEGACY_DEFAULT_STREAM, LaunchConfig, Stream, launch

        src = self.source
        ints = tuple(bound.ints)
        if ints in self._configs:
            config = self._configs[ints]
        else:
            config = self._config(bound.ints, LaunchConfig)
            if len(self._configs) < 64:
                self._configs[ints] = config
        if config is None:
            return None  # no instance to run
        self.device.set_current()
        if stream is None:
            handle = _stream_handle(bound.objects if objects is None else objects,
                                    bound.device)
            stream = LEGACY_DEFAULT_STREAM if handle == 0 else self._stream(handle, Stream)
        elif isinstance(stream, int):
            stream = LEGACY_DEFAULT_STREAM if stream == 0 else self._stream(stream, Stream)
        extra = [np.uint64(int(self._record))] if self._record is not None else []
        try:
            launch(stream, config, self.kernel, *bound.values, *extra)
        except Exception as e:
            raise LaunchError(f"launching {src.kernel} (grid {config.grid}, block {src.threads}, "
                              f"{src.shared_bytes} B dynamic shared memory) failed: {e}") from None
        handle = stream.handle
        if self._record is not None:
            return self._read_record(handle)
        if sync if sync is not None else os.environ.get("TILEC_CUDA_SYNC") == "1":
            _check(driver.cuStreamSynchronize(handle), f"{src.kernel} (synchronized)")
        else:
            (err,) = driver.cuStreamQuery(handle)
            if int(err) not in (0, int(driver.CUresult.CUDA_ERROR_NOT_READY)):
                raise LaunchError(f"{src.kernel}: the stream reports {err} after the launch")
        return None

    def _read_record(self, handle: Any) -> tuple[CheckInfo, list[Any]] | None:
        """Wait for the launch, read the failure record and clear it after a failure."""
        from cuda.bindings import driver

        src, host, n = self.source, self._record_host, self._record_host.nbytes
        _check(driver.cuMemcpyDtoHAsync(host.ctypes.data, self._record, n, handle),
               f"{src.kernel}: reading the check record")
        _check(driver.cuStreamSynchronize(handle), f"{src.kernel} (synchronized)")
        k = int(host[0])
        if not k:
            return None
        _check(driver.cuMemsetD8Async(self._record, 0, n, handle),
               f"{src.kernel}: clearing the check record")
        _check(driver.cuStreamSynchronize(handle), f"{src.kernel}: clearing the check record")
        if not 1 <= k <= len(src.checks):
            raise LaunchError(f"{src.kernel}: the check record names check {k}, which the kernel "
                              f"does not have")
        info = src.checks[k - 1]
        return info, [decode_bits(int(w), t) for w, t in zip(host[1:], info.types)]
