"""The macOS runner of emitted MSL: ``MTLDevice``, a compute pipeline, buffers, a dispatch.

The contract (docs/design/metal.md, ``MetalSource``) is what any host follows; this module
is one host, through PyObjC (``pip install pyobjc-framework-Metal``), imported only when a
Metal kernel is run:

* the library is compiled from the source with fast math off (a separate multiply and add
  stay separate, NaN tests stay) and the pipeline must admit ``threads`` per threadgroup;
* each user array is copied into a shared-storage ``MTLBuffer`` bound at offset 0 (so every
  binding is 16-byte aligned: ``tc_aligned`` has every bit set), and arrays the kernel
  writes are copied back after the command buffer completes; scalars and extents are
  passed with ``setBytes``; an empty array gets a 16-byte buffer (Metal has no empty ones);
* the grid is ``MetalSource.launch_grid`` threadgroups of ``threads`` threads;
* ``tc_check`` is a zeroed buffer of ``check_words`` words: a nonzero word 0 after the
  dispatch is the number of the failed device check, its values follow as (low, high)
  pairs (floats as f32 bits in the low word).

Nothing here has run in this repository's CI, which has no Apple GPU; ``probe`` says why
a machine cannot run Metal kernels.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets.cuda.source import ParamInfo
from tilec.targets.metal.source import MetalSource

__all__ = ["probe", "MetalLauncher", "MetalLaunchError"]

_PACK = {"i1": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H",
         "u32": "I", "index": "q", "f16": "f",
         "bf16": "f", "f32": "f", "f64": "d"}
"""``struct`` format of a scalar parameter (the C type the emitter declares it with; an f64
one is an unused parameter's 8 opaque bytes)."""


class MetalLaunchError(RuntimeError):
    """Metal refused to compile or run a kernel (the message names it and Metal's error)."""


def _metal() -> Any:
    import Metal  # PyObjC's framework wrapper (macOS only)

    return Metal


def probe() -> str | None:
    """None when a Metal device can run kernels here, else why not."""
    try:
        metal = _metal()
    except ImportError:
        return ("no Metal runtime here: running metal:m1 kernels needs macOS with PyObjC "
                "(pip install pyobjc-framework-Metal); emitting and checking them works "
                "anywhere (tc.compile(..., target='metal:m1').source)")
    if metal.MTLCreateSystemDefaultDevice() is None:
        return "PyObjC's Metal is importable but this machine has no Metal device"
    return None


class MetalLauncher:
    """One compiled pipeline on the system's default Metal device."""

    def __init__(self, source: MetalSource) -> None:
        metal = _metal()
        self._metal = metal
        self.source = source
        """The emitted kernel."""
        self.device = metal.MTLCreateSystemDefaultDevice()
        if self.device is None:
            raise MetalLaunchError("no Metal device")
        options = metal.MTLCompileOptions.new()
        options.setFastMathEnabled_(False)
        library, err = self.device.newLibraryWithSource_options_error_(source.text, options,
                                                                       None)
        if library is None:
            raise MetalLaunchError(f"the Metal compiler rejected {source.kernel}: {err}")
        fn = library.newFunctionWithName_(source.kernel)
        if fn is None:
            raise MetalLaunchError(f"{source.kernel} is not in its compiled library")
        pso, err = self.device.newComputePipelineStateWithFunction_error_(fn, None)
        if pso is None:
            raise MetalLaunchError(f"no compute pipeline for {source.kernel}: {err}")
        limit = int(pso.maxTotalThreadsPerThreadgroup())
        if limit < source.threads:
            raise MetalLaunchError(f"{source.kernel} needs {source.threads} threads per "
                                   f"threadgroup; this pipeline admits {limit}")
        self.pipeline = pso
        """The ``MTLComputePipelineState``."""
        self.queue = self.device.newCommandQueue()
        """The command queue every launch goes to (one at a time: each waits)."""

    def _buffer(self, data: bytes) -> Any:
        shared = self._metal.MTLResourceStorageModeShared
        n = max(16, len(data))
        return self.device.newBufferWithBytes_length_options_(data.ljust(n, b"\0"), n, shared)

    def launch(self, params: Sequence[ParamInfo], values: Sequence[Any],
               grid: tuple[int, int, int]) -> list[int] | None:
        """Dispatch with ``values`` (one per ``source.params``: numpy arrays for memories,
        numbers otherwise); written arrays are updated in place. Returns the check record
        (None when the kernel has no device checks)."""
        metal = self._metal
        src = self.source
        cmd = self.queue.commandBuffer()
        enc = cmd.computeCommandEncoder()
        enc.setComputePipelineState_(self.pipeline)
        written: list[tuple[Any, np.ndarray]] = []
        for k, (p, v) in enumerate(zip(params, values)):
            if p.kind == "mem":
                arr = np.ascontiguousarray(v)
                buf = self._buffer(arr.tobytes())
                enc.setBuffer_offset_atIndex_(buf, 0, k)
                if p.written:
                    written.append((buf, v))
            else:
                data = struct.pack("<" + _PACK[p.dtype.name], v)
                enc.setBytes_length_atIndex_(data, len(data), k)
        aligned = struct.pack("<I", 0xFFFFFFFF)  # every buffer is bound at offset 0
        enc.setBytes_length_atIndex_(aligned, 4, src.aligned_index)
        record = None
        if src.check_index is not None:
            record = self._buffer(bytes(4 * src.check_words))
            enc.setBuffer_offset_atIndex_(record, 0, src.check_index)
        enc.dispatchThreadgroups_threadsPerThreadgroup_(metal.MTLSizeMake(*grid),
                                                        metal.MTLSizeMake(src.threads, 1, 1))
        enc.endEncoding()
        cmd.commit()
        cmd.waitUntilCompleted()
        if cmd.error() is not None:
            raise MetalLaunchError(f"{src.kernel} failed: {cmd.error()}")
        for buf, arr in written:
            raw = buf.contents().as_buffer(max(16, arr.nbytes))
            arr[...] = np.frombuffer(bytes(raw)[:arr.nbytes], arr.dtype).reshape(arr.shape)
        if record is None:
            return None
        raw = bytes(record.contents().as_buffer(4 * src.check_words))
        return list(struct.unpack(f"<{src.check_words}I", raw))


def decode_record(words: Sequence[int], types: Sequence[ir.ScalarType]) -> list[Any]:
    """The values of a failed check from its record words (after word 0)."""
    out: list[Any] = []
    for k, t in enumerate(types):
        lo, hi = words[1 + 2 * k], words[2 + 2 * k]
        if t.is_float:
            out.append(float(np.array(lo, np.uint32).view(np.float32)))
        else:
            out.append(int(np.array(lo | (hi << 32), np.uint64).view(np.int64)))
    return out
