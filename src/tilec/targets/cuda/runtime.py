"""Device arrays, pre-launch validation, the launch itself and ``CUDAExecutable``.

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
element of it is ever accessed. Arguments are bound once per *signature* (a torch
tensor's shape, strides, dtype and device; a number's type: ``signature``); a later call
with the same signature re-checks only what depends on addresses and values
(``CUDAExecutable``).

The launch goes through the driver API (``cudriver``: ``cuModuleLoadData``, ``cuLaunchKernel``
through ``ctypes``; ``cuda.bindings`` is not imported, ``cuda.core`` only for DLPack arrays) on
the caller's
stream: ``stream=`` when given, else the current torch (or cupy) stream of the arguments,
else the legacy default stream; so it is ordered after the framework's work on the inputs
and can be captured into a CUDA graph (``torch.cuda.graph``). A call allocates, frees,
copies and waits for nothing; every driver call is checked; with ``sync=True`` (or
``TILEC_CUDA_SYNC=1``, for debugging) the launch is waited for and checked completely.
Dynamic shared memory above the 48 KB default is requested from the driver once per
kernel (``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``). An asynchronous fault of the
kernel surfaces at the caller's next synchronization, as with any library kernel.

A kernel that copies with TMA takes tensor maps (``ParamInfo(kind="tmap")``, after the user
parameters): each is a 128-byte value in a 64-byte-aligned buffer of the plan, encoded from
its array's address and shape by the launcher's ``tensor_maps.TensorMaps`` (a cache) and
rewritten only when the array's address changes; its array must be 16-byte aligned, as
``cp.async`` sources are.

A kernel with device checks (``CUDASource.checks``) writes its first failed
check into a small device record the launcher owns (one per loaded kernel);
every launch of such a kernel is synchronous: the launcher copies the record
back and synchronizes the stream, so a failure is raised by the call that
launched it (``CheckInfo.failure``: the same ``KernelAssertionError`` as every
target), and the record is cleared for the next launch. A launch into a stream that is
being captured is not waited for (it runs at replay): its device checks still stop the
kernel, and a failure is reported by the next uncaptured launch of the kernel. Kernels
whose checks are all host checks launch asynchronously.
"""

from __future__ import annotations

import ctypes
import functools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import interop_checks as checks
from tilec.targets.cuda.fast_launch import make_fast
from tilec.targets.cuda.launcher import Launcher, LaunchError
from tilec.targets.cuda.source import LAUNCH_SCHEMA, CUDASource, ParamInfo
from tilec.targets.cuda.tensor_maps import TMAP_BYTES
from tilec.targets.interop_checks import InteropError, shape_bindings
from tilec.targets.kernel_checks import HostChecks

__all__ = ["LaunchError", "InteropError", "DeviceArray", "as_device_array", "shape_bindings",
           "BoundLaunch", "bind_arguments", "signature", "check_aligned16", "aligned16",
           "entry_params", "Launcher",
           "CUDAExecutable", "stream_handle", "ELEM_BYTES"]

ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
              "i64": 8, "u8": 1, "u16": 2, "u32": 4, "index": 8}
"""Bytes per element of each TileIR scalar type in memory."""

_TORCH_NAMES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
                "uint8": "u8", "uint16": "u16", "uint32": "u32"}
_NP_NAMES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
             "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
             "uint8": "u8", "uint16": "u16", "uint32": "u32"}
_SCALAR_NP = {"f16": np.float32, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
              "i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
              "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "index": np.int64}


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
    """Kernel arguments in parameter order (pointers as ``np.uint64``, scalars typed; None
    for a tensor map, encoded at launch from its array)."""
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
        if p.kind == "tmap":  # encoded at launch (Launcher.tensor_maps): it needs the driver
            if arrays[p.source[0]] is None:
                raise InteropError(f"{kernel}: tensor map {p.name} maps scalar argument "
                                   f"{p.source[0]}")
            values.append(None)
            ints.append(0)
            continue
        if p.kind == "workspace":  # allocated at launch for the grid (Launcher.workspace)
            values.append(None)
            ints.append(0)
            continue
        if p.kind == "symbol":
            v = by_name[p.name]
        else:
            a = arrays[p.source[0]]
            assert a is not None
            v = a.shape[p.source[1]]
        values.append(np.int64(v))
        ints.append(int(v))
    return BoundLaunch(values, arrays, ints, device, objects)


def aligned16(src: CUDASource) -> list[int]:
    """The user parameters whose base address must be 16-byte aligned: ``src.aligned16``
    (sources of ``cp.async``) and the arrays of tensor maps (TMA's rule), in order."""
    return sorted(set(src.aligned16) | {p.source[0] for p in src.params if p.kind == "tmap"})


def entry_params(src: CUDASource) -> list[int]:
    """The kernel parameters that are entry arguments (what the host checks read: the user
    parameters and the shape symbols), in order."""
    return [k for k, p in enumerate(src.params) if p.kind in ("mem", "scalar", "symbol")]


def check_aligned16(src: CUDASource, bound: BoundLaunch) -> None:
    """Refuse arrays the kernel copies with 16-byte ``cp.async`` or TMA unless their base
    address is 16-byte aligned (the copies would fault or read the wrong bytes)."""
    user = [p for p in src.params if p.kind in ("mem", "scalar")]
    for i in aligned16(src):
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


# ------------------------------------------------------------------ streams


def stream_handle(stream: Any) -> int:
    """The raw ``CUstream`` handle of ``stream``: an int, a torch or cupy stream, a cuda.core
    stream (``__cuda_stream__``) or a ``cuda.bindings`` ``CUstream`` (``int()`` of it)."""
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    for attr in ("cuda_stream", "ptr", "handle"):  # torch, cupy, cuda.core
        h = getattr(stream, attr, None)
        if h is not None:
            return int(h)
    return int(stream)


def _current_stream(objects: Sequence[Any], device: int) -> int:
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


def _torch_stream_of(device: int) -> Callable[[], int] | None:
    """A function giving torch's current raw stream on ``device`` (None without one)."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        return None
    return functools.partial(raw, device)


# ------------------------------------------------------------------ parameter slots


_SLOT_TYPES = {"f16": ctypes.c_float, "bf16": ctypes.c_float, "f32": ctypes.c_float,
               "f64": ctypes.c_double, "i1": ctypes.c_uint8, "i8": ctypes.c_int8,
               "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
               "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
               "index": ctypes.c_int64}
"""The C type a scalar kernel parameter is passed as (narrow floats as their f32 value)."""


# ------------------------------------------------------------------ bound signatures


_TORCH_TYPES: set[type] = set()
"""Tensor types whose facts ``signature`` reads directly (torch's, seen once)."""
_OTHER_TYPES: set[type] = set()
"""Argument types that have no signature (always bound the slow way)."""


def signature(user_args: Sequence[Any]) -> tuple[Any, ...] | None:
    """What binding reads of the arguments besides their addresses and values: a torch
    tensor's shape, strides, dtype and device, a number's type. None when an argument is
    anything else (it is then bound the slow way every call). Two calls with one signature
    agree in every check but alignment, aliasing and the values (``CUDAExecutable.run``
    re-checks those)."""
    sig: list[Any] = []
    for x in user_args:
        t = type(x)
        if t in _TORCH_TYPES:
            sig.append((x.shape, x.stride(), x.dtype, x.get_device()))
        elif t is int or t is float or t is bool:
            sig.append(t)
        elif t in _OTHER_TYPES:
            return None
        elif t.__module__.startswith("torch") and hasattr(x, "data_ptr") \
                and hasattr(x, "get_device"):
            _TORCH_TYPES.add(t)
            sig.append((x.shape, x.stride(), x.dtype, x.get_device()))
        else:
            _OTHER_TYPES.add(t)
            return None
    return tuple(sig)


@dataclass
class _Plan:
    """One argument signature, bound: what every call with it shares."""

    launcher: Launcher
    """The kernel loaded on the arguments' device."""
    scalar: tuple[bool, ...]
    """Per user parameter: a scalar (else an array)."""
    dtypes: tuple[ir.ScalarType, ...]
    """Per user parameter: its (element) type."""
    itemsize: tuple[int, ...]
    """Per user parameter: its element size (0 for scalars)."""
    nbytes: tuple[int, ...]
    """Per user parameter: the bytes it spans (0 for scalars)."""
    aligned16: tuple[int, ...]
    """User parameters whose address must be 16-byte aligned (and that are not empty)."""
    written: tuple[int, ...]
    """Array parameters the kernel writes (checked against every other array for overlap)."""
    arrays: tuple[int, ...]
    """Array parameters."""
    slots: Any
    """One 8-byte slot per kernel parameter (its value), the symbols' and the record's
    filled once (a tensor map's is unused: its value is in ``tmap_buf``)."""
    views: list[Any]
    """Per user parameter: the ctypes view its value is written through."""
    params: int
    """Address of the array of pointers to the slots (``cuLaunchKernel``'s
    ``kernelParams``)."""
    keep: Any
    """That array (alive as long as the plan)."""
    ints: list[int]
    """Per kernel parameter, its integer value (scalars' filled per call)."""
    int_scalars: tuple[int, ...]
    """Integer scalar parameters (their values change the grid's host steps)."""
    config: Any
    """The launch configuration when no integer scalar decides it, else ``False``."""
    entry: list[Any]
    """The entry-argument values the host checks read (scalars filled per call)."""
    checked: bool
    """True when the host checks depend on the signature alone and passed."""
    current_stream: Callable[[], int] | None
    """torch's current stream on the device, when the arguments are torch tensors."""
    tmaps: tuple[tuple[int, int, int, ParamInfo, tuple[int, ...]], ...] = ()
    """Per tensor-map parameter: ``(kernel parameter, user parameter, address of its
    128-byte value in tmap_buf, the parameter, the array's shape)``."""
    tmap_buf: Any = None
    """The tensor maps' values, each 64-byte aligned (alive as long as the plan)."""
    tmap_ptrs: list[int] = field(default_factory=list)
    """Per tensor map: the array address its value in ``tmap_buf`` was encoded for (-1:
    none yet)."""
    workspaces: tuple[tuple[int, ParamInfo], ...] = ()
    """Per split-K workspace parameter: ``(kernel parameter, the parameter)``; its slot is
    written at every launch from ``Launcher.workspace`` (per stream and grid size)."""
    fast: Callable[..., bool] | None = None
    """The plan's launch specialized into straight-line code (``fast_launch.make_fast``;
    None: a plan of another kind takes the general path)."""


def make_plan(launcher: Launcher, bound: BoundLaunch, has_host_checks: bool) -> _Plan:
    """The plan of ``bound``'s signature on ``launcher`` (symbols, record, grid filled)."""
    src = launcher.source
    user = [p for p in src.params if p.kind in ("mem", "scalar")]
    n = len(src.params) + bool(launcher.record)
    slots = (ctypes.c_uint64 * max(n, 1))()
    base = ctypes.addressof(slots)
    views: list[Any] = []
    for k, p in enumerate(user):
        if p.kind == "scalar":
            views.append(_SLOT_TYPES[p.dtype.name].from_buffer(slots, 8 * k))
        else:
            views.append(None)
    for k in range(len(user), len(src.params)):
        if bound.values[k] is not None:  # a tensor map is written at launch
            slots[k] = int(bound.values[k]) & (2**64 - 1)
    if launcher.record:
        slots[n - 1] = launcher.record
    pointers: list[int | None] = [base + 8 * k for k in range(n)]
    tmap_params = [(k, p) for k, p in enumerate(src.params) if p.kind == "tmap"]
    tmap_buf: Any = None
    tmaps: list[tuple[int, int, int, ParamInfo, tuple[int, ...]]] = []
    if tmap_params:  # 128 bytes each, 64-byte aligned (the kernel's __grid_constant__ tc_tmap)
        tmap_buf = ctypes.create_string_buffer(TMAP_BYTES * len(tmap_params) + 63)
        start = (ctypes.addressof(tmap_buf) + 63) & ~63
        for j, (k, p) in enumerate(tmap_params):
            a = bound.arrays[p.source[0]]
            assert a is not None
            pointers[k] = start + TMAP_BYTES * j
            tmaps.append((k, p.source[0], start + TMAP_BYTES * j, p, a.shape))
    # one pointer per value, then a NULL the driver does not read (it marks the end)
    keep = (ctypes.c_void_p * (n + 1))(*pointers, None)
    arrays = bound.arrays
    scalar = tuple(p.kind == "scalar" for p in user)
    int_scalars = tuple(k for k, p in enumerate(user) if p.kind == "scalar"
                        and not p.dtype.is_float)
    config: Any = False if int_scalars else launcher.config(tuple(bound.ints))
    torch_args = any(type(x).__module__.startswith("torch") for x in bound.objects)
    dev = max(bound.device, 0)
    entry = [bound.values[k] for k in entry_params(src)]
    return _Plan(
        launcher, scalar, tuple(p.dtype for p in user),
        tuple(0 if a is None else ELEM_BYTES[a.dtype] for a in arrays),
        tuple(0 if a is None else a.nbytes for a in arrays),
        tuple(i for i in aligned16(src) if i < len(arrays)),
        tuple(i for i, p in enumerate(user) if p.kind == "mem" and p.written),
        tuple(i for i, p in enumerate(user) if p.kind == "mem"),
        slots, views, ctypes.addressof(keep), keep, list(bound.ints), int_scalars, config,
        [0 if isinstance(v, np.uint64) else v for v in entry],
        not has_host_checks or not any(scalar),
        _torch_stream_of(dev) if torch_args else None, tuple(tmaps), tmap_buf,
        [-1] * len(tmaps),
        tuple((k, p) for k, p in enumerate(src.params) if p.kind == "workspace"))


# ------------------------------------------------------------------ the executable


class CUDAExecutable:
    """A compiled kernel; call it with the user-level arguments (device arrays, scalars).

    Arguments are bound once per ``signature``: the first call with one validates
    everything (``bind_arguments``, the 16-byte alignment of ``cp.async`` sources, the host
    checks) and makes a ``_Plan``; a later call reads each tensor's address, re-checks what
    depends on addresses and values (element and 16-byte alignment, a non-null pointer,
    outputs overlapping other arrays, the scalar values, the host checks when the kernel
    has scalar parameters), writes the addresses and scalars into the plan's parameter
    slots and launches (for a plan of arrays only, through code specialized to the plan:
    ``fast_launch.make_fast``). A re-check that fails binds the slow way, which raises the
    full error."""

    takes_stream = True
    """``run`` and ``__call__`` take ``stream=``."""

    def __init__(self, src: CUDASource, cubin: Any, runnable: bool,
                 bindings: Sequence[tuple[int, int]], label: str, host_checks: HostChecks,
                 source: str | None = None) -> None:
        self.name = src.name
        """The kernel function's name."""
        self._source = source
        self.kernel = src
        """The emitted kernel (parameters, launch geometry, line origins)."""
        self.cubin = cubin
        """The compiled image."""
        self.resources: Any = cubin.resources
        """Registers, shared memory and spills reported by ptxas."""
        self._bindings = list(bindings)
        self._label = label
        self._host_checks = host_checks
        self._entry = entry_params(src)
        self.runnable = runnable
        """False when built where it cannot run (no device, or an older one): inspect only."""
        self._launchers: dict[int, Launcher] = {}
        self._plans: dict[tuple[Any, ...], _Plan] = {}
        self.bindings_made = 0
        """How many argument signatures were bound the slow way (validated in full)."""

    @property
    def source(self) -> str:
        """The generated CUDA C++ (read from the cache beside the cubin when this executable
        came from a launch record)."""
        if self._source is None:
            from tilec.targets.cuda.compiler import cached_source

            text = cached_source(self.cubin.key)
            if text is None:
                raise FileNotFoundError(f"the CUDA source of @{self.name} is no longer in the "
                                        f"cache (key {self.cubin.key[:16]}); compile it again")
            self._source = text
        return self._source

    def __call__(self, *args: Any, stream: Any = None, sync: bool | None = None) -> None:
        """Validate ``args``, launch on the caller's stream (``stream``, else the arguments'
        current torch/cupy stream), check the launch."""
        self.run(args, stream=stream, sync=sync)

    def run(self, args: Sequence[Any], prevalidate: Callable[[Sequence[Any]], None] | None
            = None, stream: Any = None, sync: bool | None = None) -> None:
        """``__call__``; ``prevalidate(args)`` runs first whenever the arguments' signature
        was not bound before (a caller's own checks, e.g. ``Compiled.check_args``)."""
        if not self.runnable:
            raise RuntimeError(f"@{self.name} was compiled for {self.cubin.arch} without a CUDA "
                               "device here; it can be inspected (source, resources), not run")
        key = signature(args)
        plan = self._plans.get(key) if key is not None else None
        if plan is not None and plan.fast is not None and sync is None \
                and plan.fast(args, None if stream is None else stream_handle(stream)):
            return
        got = self._recheck(plan, args) if plan is not None else None
        if got is None:
            if prevalidate is not None:
                prevalidate(args)
            self._slow(args, key, stream, sync)
            return
        assert plan is not None
        ptrs, values = got
        entry = None
        if not plan.checked:
            entry = list(plan.entry)
            for i, v in enumerate(values):
                if v is not None:
                    entry[i] = v
            self._host_checks.run(entry, "before")
        self._launch(plan, ptrs, values, stream, sync, args)
        if entry is not None:
            self._host_checks.run(entry, "after")

    @staticmethod
    def _recheck(plan: _Plan, args: Sequence[Any]) -> tuple[list[int], list[Any]] | None:
        """The addresses and scalar values of a call of a bound signature, re-checked; None
        when a re-check fails."""
        ptrs: list[int] = []
        values: list[Any] = []
        for i, is_scalar in enumerate(plan.scalar):
            x = args[i]
            if is_scalar:
                try:
                    values.append(checks.checked_number(x, plan.dtypes[i], ""))
                except ir.UserError:
                    return None
                ptrs.append(0)
                continue
            p = x.data_ptr()
            if plan.nbytes[i] and (p == 0 or p % plan.itemsize[i]):
                return None
            ptrs.append(p)
            values.append(None)
        for i in plan.aligned16:
            if plan.nbytes[i] and ptrs[i] % 16:
                return None
        for i in plan.written:  # an output overlapping another array (byte ranges)
            lo = ptrs[i]
            hi = lo + plan.nbytes[i]
            if lo == hi:
                continue
            for j in plan.arrays:
                q = ptrs[j]
                if j != i and plan.nbytes[j] and lo < q + plan.nbytes[j] and q < hi:
                    return None
        return ptrs, values

    def _launch(self, plan: _Plan, ptrs: list[int], values: list[Any], stream: Any,
                sync: bool | None, objects: Sequence[Any]) -> None:
        """Write the call's addresses and scalars into the plan's slots and launch on the
        caller's stream; raise a failed device check."""
        config = plan.config
        if config is False:
            ints = list(plan.ints)
            for i in plan.int_scalars:
                ints[i] = int(values[i])
            config = plan.launcher.config(tuple(ints))
        if config is None:
            return  # no program to run
        launcher = plan.launcher
        if stream is not None:
            handle = stream_handle(stream)
        elif plan.current_stream is not None:
            handle = plan.current_stream()
        else:
            handle = _current_stream(objects, launcher.device)
        with launcher.lock:
            slots, views = plan.slots, plan.views
            for i, v in enumerate(values):
                if v is None:
                    slots[i] = ptrs[i]
                else:
                    views[i].value = v
            for k, p in plan.workspaces:  # this stream's, large enough for this grid
                slots[k] = launcher.workspace(handle, p, config[0])
            if plan.tmaps:  # re-encoded (or found in the cache) only when an address moved
                done = plan.tmap_ptrs
                for j, (k, u, addr, p, shape) in enumerate(plan.tmaps):
                    if done[j] != ptrs[u]:
                        ctypes.memmove(addr, launcher.tensor_maps.get(k, p, ptrs[u], shape),
                                       TMAP_BYTES)
                        done[j] = ptrs[u]
            failed = launcher.launch(config, handle, plan.params, sync)
            if failed is not None and plan.workspaces:
                launcher.clear_counters(handle)
        if failed is not None:
            raise failed[0].failure(self.name, failed[1])

    def _slow(self, args: Sequence[Any], key: tuple[Any, ...] | None, stream: Any,
              sync: bool | None) -> None:
        """Validate everything, bind, launch; remember the signature's plan."""
        bound = bind_arguments(self.kernel.kernel, self.kernel.params, args, self._bindings,
                               self._label)
        check_aligned16(self.kernel, bound)
        entry = [bound.values[k] for k in self._entry]
        self._host_checks.run(entry, "before")
        launcher = self._launcher(max(bound.device, 0))
        plan = make_plan(launcher, bound, bool(self._host_checks))
        plan.fast = make_fast(plan)
        ptrs = [0 if a is None else a.ptr for a in bound.arrays]
        values = [None if a is not None else v for a, v in zip(bound.arrays, bound.values)]
        self._launch(plan, ptrs, values, stream, sync, bound.objects)
        self._host_checks.run(entry, "after")
        if key is not None:
            self.bindings_made += 1
            if len(self._plans) >= 256:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = plan

    def _launcher(self, dev: int) -> Launcher:
        launcher = self._launchers.get(dev)
        if launcher is None:
            launcher = Launcher(self.kernel, self.cubin.data, dev)
            self._launchers[dev] = launcher
            if not self.resources.reported:  # the compiler's log said nothing: ask the driver
                r = self.resources
                self.resources = replace(
                    r, registers=launcher.attribute("NUM_REGS"),
                    stack_frame=launcher.attribute("LOCAL_SIZE_BYTES"),
                    static_shared=launcher.attribute("SHARED_SIZE_BYTES"), origin="driver")
        return launcher

    # -- launch records (warm start) ------------------------------------------------------
    def launch_record(self) -> dict[str, Any]:
        """What ``from_launch_record`` needs to call this kernel in another process (JSON)."""
        c = self.cubin
        return {"schema": LAUNCH_SCHEMA, "source": self.kernel.launch_json(),
                "bindings": [list(b) for b in self._bindings], "label": self._label,
                "host_checks": self._host_checks.to_json(),
                "cubin": {"key": c.key, "arch": c.arch, "kernel": c.kernel}}

    @staticmethod
    def from_launch_record(d: dict[str, Any], runnable: bool) -> CUDAExecutable | None:
        """The executable ``launch_record`` described, from the cached cubin; None when the
        record is of another format or the cubin is gone."""
        from tilec.targets.cuda.compiler import load_cubin

        if d.get("schema") != LAUNCH_SCHEMA:
            return None
        src = CUDASource.from_launch_json(d["source"])
        if src is None:
            return None
        c = d["cubin"]
        cub = load_cubin(str(c["key"]), str(c["arch"]), str(c["kernel"]), src.shared_bytes)
        if cub is None:
            return None
        return CUDAExecutable(src, cub, runnable, [(int(p), int(a)) for p, a in d["bindings"]],
                              str(d["label"]), HostChecks.from_json(d["host_checks"]))

    def __repr__(self) -> str:
        return f"<CUDAExecutable @{self.name} {self.cubin.arch}: {self.resources}>"
