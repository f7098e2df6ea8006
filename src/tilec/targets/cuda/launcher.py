"""A kernel loaded on one device, launched through the driver API (``cudriver``).

``Launcher`` loads a cubin into the device's primary context (the one torch and cupy
use), raises the kernel's dynamic shared memory above the 48 KB default once, owns the
device-check record and the tensor maps a kernel's launches passed, and launches with one
``cuCtxSetCurrent`` and one ``cuLaunchKernel`` on the caller's stream. ``LaunchError`` is
what a failing driver call raises (the message names the kernel and the call).

``check`` (a driver result to its outputs, or a ``LaunchError``) and ``load_function`` (a
cubin's kernel in a device's primary context) are shared with the runtime of records built
elsewhere (``tirx.launch``).
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilec.support.env import getenv
from tilec.targets.cuda import cudriver
from tilec.targets.cuda.source import CUDASource
from tilec.targets.cuda.tensor_maps import TensorMaps
from tilec.targets.kernel_checks import CheckInfo, decode_bits

__all__ = ["Launcher", "LaunchError", "LoadedFunction", "check", "load_function"]

_SMEM_DEFAULT = 48 * 1024
"""The dynamic shared memory a kernel gets without asking (bytes)."""


class LaunchError(RuntimeError):
    """The driver reported an error for a launch (the message names the kernel)."""


def check(result: Any, what: str) -> Any:
    """The outputs of a driver call's result (``cudriver``: the ``CUresult`` first, a bare
    code too): none as ``[]``, one as itself, several as a list; a nonzero code is a
    ``LaunchError`` saying ``what`` failed."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise LaunchError(f"{what} failed: {err}")
    return rest[0] if len(rest) == 1 else rest


@dataclass(frozen=True)
class LoadedFunction:
    """A kernel loaded from a cubin into a device's primary context (``load_function``)."""

    context: Any
    """The device's primary context (the one torch and cupy use), as the driver gave it."""
    module: Any
    """The loaded ``CUmodule``."""
    function: Any
    """The kernel's ``CUfunction``."""
    image: Any = field(repr=False)
    """The cubin's bytes as the driver read them (kept alive while the module is loaded)."""


def load_function(driver: Any, device: int, cubin: bytes, kernel: str) -> LoadedFunction:
    """Load ``cubin`` into device ``device``'s primary context through ``driver``
    (``cudriver.driver()`` or a stand-in) and find ``kernel`` in it; the context is left
    current. A failing call is a ``LaunchError`` naming it (and the kernel)."""
    check(driver.cuInit(0), "initializing the CUDA driver")
    dev = check(driver.cuDeviceGet(device), f"opening CUDA device {device}")
    context = check(driver.cuDevicePrimaryCtxRetain(dev),
                    f"retaining device {device}'s primary context")
    check(driver.cuCtxSetCurrent(context), f"making device {device} current")
    image = ctypes.create_string_buffer(cubin, len(cubin))
    module = check(driver.cuModuleLoadData(ctypes.addressof(image)),
                   f"loading {kernel}'s cubin")
    function = check(driver.cuModuleGetFunction(module, kernel.encode()),
                     f"finding {kernel} in its cubin")
    return LoadedFunction(context, module, function, image)



class Launcher:
    """A loaded kernel on one device, launched through the driver API.

    The call path is one ``cuCtxSetCurrent`` and one ``cuLaunchKernel`` on the caller's
    stream: nothing is allocated, freed, copied or waited for, so a launch can be captured
    into a CUDA graph. The exceptions are kernels with device checks (their record is read
    back, synchronously, unless the stream is capturing) and ``sync``/``TILEC_CUDA_SYNC=1``
    (debugging: wait for the launch and check it)."""

    def __init__(self, source: CUDASource, cubin: bytes, device: int) -> None:
        driver = cudriver.driver()
        self.source = source
        """The emitted kernel."""
        self.device = device
        """The CUDA device ordinal."""
        self._driver = driver  # the module: no import statement on the call path
        loaded = load_function(driver, device, cubin, source.kernel)
        self.context = loaded.context
        """The device's primary context (the one torch and cupy use)."""
        self._image = loaded.image
        self.module = loaded.module
        """The loaded ``CUmodule``."""
        self.function = loaded.function
        """The kernel's ``CUfunction``."""
        load = getattr(driver, "cuFuncLoad", None)
        if load is not None:  # lazy module loading: load now, not in a captured launch
            load(self.function)
        self._configs: dict[tuple[int, ...], Any] = {}
        """Launch configuration ``(grid, block, shared bytes)`` per integer-parameter values
        (None: nothing to run); the grid is a function of those values (the host steps)."""
        self.lock = threading.Lock()
        """Held while a launch's parameter slots are filled and launched."""
        self._record: Any = None
        """The device address of the failure record (kernels with device checks only)."""
        self.tensor_maps = TensorMaps(driver, source.kernel)
        """The TMA tensor maps launches of this kernel passed (per parameter, address and
        shape)."""
        self._workspaces: dict[tuple[int, str], tuple[int, int]] = {}
        """Split-K workspaces per ``(stream, role)``: ``(device address, bytes)``; grown,
        never shrunk."""
        self._retired: list[int] = []
        """Workspaces a larger one replaced: kept until the launcher goes, since a captured
        graph may still hold their addresses."""
        self._record_host = np.zeros(1 + max((len(c.labels) for c in source.checks),
                                             default=0), np.uint64)
        """The record's host copy: the failed check's number (0: none), then its values."""
        if source.checks:
            what = f"allocating {source.kernel}'s check record"
            self._record = check(driver.cuMemAlloc(self._record_host.nbytes), what)
            check(driver.cuMemsetD8(self._record, 0, self._record_host.nbytes), what)
        if source.shared_bytes > _SMEM_DEFAULT:
            attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            check(driver.cuFuncSetAttribute(self.function, attr, source.shared_bytes),
                   f"raising {source.kernel}'s dynamic shared memory to "
                   f"{source.shared_bytes} bytes")

    def __del__(self) -> None:
        record, self._record = getattr(self, "_record", None), None
        spaces = [ptr for ptr, _ in getattr(self, "_workspaces", {}).values()]
        spaces += getattr(self, "_retired", [])
        for ptr in ([record] if record is not None else []) + spaces:
            try:
                cudriver.driver().cuMemFree(ptr)
            except Exception:  # the driver may be gone at interpreter exit
                pass

    def workspace(self, stream: int, p: Any, grid: tuple[int, ...]) -> int:
        """The device address of split-K workspace ``p`` (``ParamInfo(kind="workspace")``)
        for a launch of ``grid`` on ``stream``: ``shape[0]`` elements per ``box[0]``
        programs. Each stream has its own, so that launches on two streams never share
        partials or counters; counters are zeroed when allocated and each launch leaves
        them zero (a launch whose device check failed has them zeroed again:
        ``clear_counters``). A new or larger one is allocated on first need (not while the
        stream is being captured into a graph: launch once before capturing); the one it
        replaces stays allocated until the launcher goes. A captured graph keeps the
        workspace of the stream it was captured on: replaying it while launches on that
        stream (or another replay of it) run shares partials and counters with them."""
        programs = int(np.prod(grid))
        nbytes = max(-(-programs // int(p.box[0])) * int(p.shape[0].value) * p.dtype.bytes, 4)
        key = (int(stream), p.name)
        got = self._workspaces.get(key)
        if got is not None and got[1] >= nbytes:
            return got[0]
        driver = self._driver
        what = f"allocating {self.source.kernel}'s split-K {p.name} ({nbytes} bytes)"
        if _capturing(driver, stream):
            raise LaunchError(f"{what}: the stream is being captured into a graph; launch the "
                              "kernel once on it before capturing")
        if got is not None:  # kept: a captured graph may still write to it
            self._retired.append(got[0])
            del self._workspaces[key]
        check(driver.cuCtxSetCurrent(self.context), what)
        ptr = int(check(driver.cuMemAlloc(nbytes), what))
        if p.name == "counters":  # ordered before the launch on its stream
            check(driver.cuMemsetD8Async(ptr, 0, nbytes, stream), what)
        self._workspaces[key] = (ptr, nbytes)
        return ptr

    @property
    def record(self) -> int:
        """The failure record's device address (0: the kernel has no device checks)."""
        return 0 if self._record is None else int(self._record)

    def attribute(self, name: str) -> int:
        """An integer attribute of the loaded kernel (``NUM_REGS``, ``LOCAL_SIZE_BYTES``,
        ``SHARED_SIZE_BYTES`` ...; the ``CU_FUNC_ATTRIBUTE_`` suffix) from the driver."""
        driver = self._driver
        attr = getattr(driver.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
        return int(check(driver.cuFuncGetAttribute(attr, self.function),
                          f"reading {self.source.kernel}'s {name}"))

    def config(self, ints: tuple[int, ...]) -> Any:
        """``(grid, threads, shared bytes)`` for integer-parameter values ``ints`` (None: an
        empty grid); a grid CUDA cannot launch is an error."""
        got = self._configs.get(ints, False)
        if got is not False:
            return got
        src = self.source
        extents = src.grid(ints)
        if any(e <= 0 for e in extents):  # an empty nest (negative extents too) runs nothing
            cfg = None
        else:
            grid = src.launch_grid(extents)
            if grid[0] >= 2**31 or grid[1] > 65535 or grid[2] > 65535:
                raise LaunchError(f"{src.kernel}: grid {grid} exceeds CUDA's limits (x < 2^31, "
                                  "y, z <= 65535); the lowering should linearize this grid")
            cfg = (grid, src.threads, src.shared_bytes)
        if len(self._configs) < 64:
            self._configs[ints] = cfg
        return cfg

    def clear_counters(self, stream: int) -> None:
        """Zero the split-K arrival counters of ``stream`` and wait for it: after a launch
        whose device check failed, a program that stopped before arriving left its tile's
        count short, and the next launch would combine partials that were never stored."""
        got = self._workspaces.get((int(stream), "counters"))
        if got is None:
            return
        driver = self._driver
        what = f"{self.source.kernel}: clearing the split-K counters"
        check(driver.cuMemsetD8Async(got[0], 0, got[1], stream), what)
        check(driver.cuStreamSynchronize(stream), what)

    def start(self, config: Any, stream: int, params: int) -> None:
        """Make the context current and enqueue the kernel with ``config`` on ``stream``,
        the parameters at ``params``; nothing is waited for (``launch`` and the specialized
        launches of ``fast_launch`` both go through here)."""
        driver = self._driver
        (grid, threads, shared) = config
        err, = driver.cuCtxSetCurrent(self.context)
        if err == 0:
            err, = driver.cuLaunchKernel(self.function, grid[0], grid[1], grid[2], threads, 1,
                                         1, shared, stream, params, 0)
        if err != 0:
            raise LaunchError(f"launching {self.source.kernel} (grid {grid}, block {threads}, "
                              f"{shared} B dynamic shared memory) failed: {err}")

    def launch(self, config: Any, stream: Any, params: int, sync: bool | None = None
               ) -> tuple[CheckInfo, list[Any]] | None:
        """Launch with ``config`` on ``stream`` (a raw stream handle), the parameters at
        address ``params`` (an array of pointers to each value); returns the failed device
        check with its values, if any (then the launch was waited for)."""
        driver = self._driver
        src = self.source
        self.start(config, stream, params)
        want_sync = sync if sync is not None else getenv("TILEC_CUDA_SYNC") == "1"
        if self._record is None and not want_sync:
            return None
        if _capturing(driver, stream):  # captured: it runs at replay, nothing to read or wait for
            return None
        if self._record is not None:
            return self._read_record(stream)
        check(driver.cuStreamSynchronize(stream), f"{src.kernel} (synchronized)")
        return None

    def _read_record(self, stream: Any) -> tuple[CheckInfo, list[Any]] | None:
        """Wait for the launch, read the failure record and clear it after a failure."""
        driver = self._driver
        src, host, n = self.source, self._record_host, self._record_host.nbytes
        check(driver.cuMemcpyDtoHAsync(host.ctypes.data, self._record, n, stream),
               f"{src.kernel}: reading the check record")
        check(driver.cuStreamSynchronize(stream), f"{src.kernel} (synchronized)")
        k = int(host[0])
        if not k:
            return None
        check(driver.cuMemsetD8Async(self._record, 0, n, stream),
               f"{src.kernel}: clearing the check record")
        check(driver.cuStreamSynchronize(stream), f"{src.kernel}: clearing the check record")
        if not 1 <= k <= len(src.checks):
            raise LaunchError(f"{src.kernel}: the check record names check {k}, which the kernel "
                              f"does not have")
        info = src.checks[k - 1]
        return info, [decode_bits(int(w), t) for w, t in zip(host[1:], info.types)]


def _capturing(driver: Any, stream: Any) -> bool:
    """Whether ``stream`` is being captured into a graph (an error asking counts as yes: the
    legacy stream reports one while another stream captures)."""
    err, status = driver.cuStreamIsCapturing(stream)
    if int(err) != 0:
        return True
    return int(status) != int(driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)
