"""The GPU routes' builds and calls: ``tirx:cuda`` (built, run on an NVIDIA GPU) and
``tirx:metal`` (source only).

``build_cuda`` runs ``tvm.compile`` for ``cuda`` with TVM's LLVM host. TVM compiles the
device source through its ``tvm_callback_cuda_compile`` hook (NVRTC by default); the bridge
replaces that hook for the length of its build with one that keeps the source and passes
``--fmad=false`` (no fused multiply-add the IR did not ask for: ``strict_fold`` and
elementwise arithmetic stay the reference's roundings), then puts TVM's back. The
architecture is the GPU's where one is visible to TVM, else ``sm_90a`` (what the source is
checked against without a GPU). ``build_metal`` runs TVM's Metal code generation (no
compiler: TVM returns the source), and ``tilec.targets.metal.check`` checks it as the Metal
target's is checked without an Apple GPU.

``TirxDeviceExecutable`` checks the arguments as the reference does (the launchers'
messages, shape symbols, aliasing, host checks), copies each array to the device, calls
TVM's host function and copies every memory argument back.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx
from tilec.targets.clike import UnsupportedError
from tilec.targets.kernel_checks import HostChecks

from .exporter import Export

__all__ = ["DEFAULT_ARCH", "build_cuda", "build_metal", "cuda_arch", "TirxDeviceExecutable",
           "TirxSourceOnly"]

DEFAULT_ARCH = "sm_90a"
"""The architecture a build targets where no GPU is visible (Hopper, as ``nvcc -arch``)."""

_HOOK = "tvm_callback_cuda_compile"
_lock = threading.Lock()


def cuda_arch() -> str:
    """``sm_XY`` of GPU 0 when TVM sees one (``sm_90a`` for Hopper), else ``DEFAULT_ARCH``."""
    try:
        import tvm

        dev = tvm.cuda(0)
        if dev.exist:
            major, minor = str(dev.compute_version).split(".")
            return f"sm_{major}{minor}" + ("a" if (major, minor) == ("9", "0") else "")
    except Exception:  # noqa: BLE001 - no CUDA runtime in this TVM: build for the default
        pass
    return DEFAULT_ARCH


def _reason(e: Exception) -> str:
    lines = str(e).strip().splitlines()
    return lines[-1] if lines else type(e).__name__


def build_cuda(export: Export, fn: ir.Function, target: str) -> tuple[Any, str, str]:
    """``(module, CUDA source, arch)`` of the PrimFunc; TVM's failures are the bridge's
    ``UnsupportedError`` (without TVM's stack)."""
    import tvm
    from tvm.support import nvcc

    arch = cuda_arch()
    seen: list[str] = []

    def compile_hook(code: str) -> Any:
        seen.append(code)
        return nvcc.compile_cuda(code, target_format="cubin", arch=arch,
                                 options=["--fmad=false"], compiler="nvrtc")

    with _lock:
        previous = tvm.get_global_func(_HOOK, allow_missing=True)
        tvm.register_global_func(_HOOK, compile_hook, override=True)
        try:
            tgt = tvm.target.Target({"kind": "cuda", "arch": arch}, host="llvm")
            lib = tvm.compile(tvm.IRModule({export.name: export.prim_func}), target=tgt)
        except Exception as e:  # a TVM or NVRTC failure: the bridge's, with the reason
            raise UnsupportedError(target, None, f"TVM could not compile @{fn.name} for "
                                                 f"CUDA ({arch}): {_reason(e)}") from None
        finally:
            if previous is not None:
                tvm.register_global_func(_HOOK, previous, override=True)
    return lib, (seen[-1] if seen else _device_source(lib)), arch


def build_metal(export: Export, fn: ir.Function, target: str) -> str:
    """The Metal Shading Language TVM generates for the PrimFunc (nothing is compiled)."""
    import tvm

    try:
        tgt = tvm.target.Target("metal", host="llvm")
        lib = tvm.compile(tvm.IRModule({export.name: export.prim_func}), target=tgt)
    except Exception as e:
        raise UnsupportedError(target, None, f"TVM could not generate Metal for @{fn.name}: "
                                             f"{_reason(e)}") from None
    return _device_source(lib)


def _device_source(lib: Any) -> str:
    mod = getattr(lib, "mod", lib)
    return "\n".join(m.inspect_source() for m in mod.imports)


_VIEW = {np.dtype(np.bool_): np.uint8, np.dtype(nx.BF16): np.uint16}
"""Arrays passed as another dtype of the same width (the PrimFunc's memory dtypes)."""


class _TirxKernel:
    """What both GPU forms of a bridged kernel answer (``function``, ``export``)."""

    function: ir.Function
    export: Export

    @property
    def name(self) -> str:
        """The kernel's name."""
        return self.function.name

    @property
    def tirx(self) -> str:
        """The PrimFunc as TVMScript."""
        return self.export.text


class TirxDeviceExecutable(_TirxKernel):
    """A ``tirx:cuda`` kernel: call it with numpy arrays (copied to the GPU and back)."""

    def __init__(self, module: ir.Module, fn: ir.Function, export: Export, lib: Any,
                 source: str, target: str, arch: str) -> None:
        self.module = module
        """The Candidate module."""
        self.function = fn
        """The entry function."""
        self.export = export
        """The PrimFunc."""
        self.lib = lib
        """TVM's compiled module (host code and the CUDA module)."""
        self.source = source
        """The CUDA C++ TVM generated (this target's source)."""
        self.target = target
        """The target name."""
        self.arch = arch
        """The architecture it was built for."""
        self.host_checks = HostChecks(fn)
        """Checks evaluated on the arguments before the call."""

    @property
    def runnable(self) -> bool:
        """Whether a GPU is here (else ``Compiled.run`` raises ``TargetUnavailable``)."""
        from .backend import probe_cuda

        return probe_cuda() is None

    def __call__(self, *args: Any) -> None:
        import tvm

        from tilec.targets.reference.backend import bind_arguments, contiguous_arguments
        from tilec.targets.reference.interpreter import MemRef

        from .backend import probe_cuda

        why = probe_cuda()
        if why is not None:  # Compiled.run raises TargetUnavailable before this
            raise RuntimeError(f"target {self.target!r} is unavailable here: {why}")
        fn = self.function
        entry = bind_arguments(fn, args)
        self.host_checks.run(entry)
        n_user = len(fn.args) - len(fn.shape_symbols)
        dev = tvm.cuda(0)
        with contiguous_arguments(entry) as work:
            argv: list[Any] = []
            back: list[tuple[np.ndarray, Any]] = []
            for p, v in zip(fn.args[:n_user], work[:n_user]):
                if isinstance(v, (MemRef, np.ndarray)):
                    host = v.root if isinstance(v, MemRef) else np.ascontiguousarray(v)
                    view = _VIEW.get(host.dtype)
                    host = host if view is None else host.view(view)
                    t = tvm.runtime.tensor(host, dev)
                    argv.append(t)
                    if isinstance(v, MemRef):
                        back.append((host, t))
                else:
                    argv.append(float(v) if p.type.is_float else int(v))
            argv += [int(s) for s in work[n_user:]]
            self.lib[self.export.name](*argv)
            dev.sync()
            for host, t in back:
                np.copyto(host, t.numpy().reshape(host.shape))

    def __repr__(self) -> str:
        return f"<TirxDeviceExecutable @{self.name} ({self.target}, {self.arch})>"


class TirxSourceOnly(_TirxKernel):
    """A ``tirx:metal`` kernel: its source; calling it is refused with the reason
    (``Compiled.run`` raises ``TargetUnavailable`` from the probe before this)."""

    def __init__(self, fn: ir.Function, export: Export, source: str, target: str) -> None:
        self.function = fn
        """The entry function."""
        self.export = export
        """The PrimFunc."""
        self.source = source
        """The Metal Shading Language TVM generated."""
        self.target = target
        """The target name."""

    runnable = False
    """Source only: ``Compiled.run`` raises ``TargetUnavailable`` with the probe's reason."""

    def __call__(self, *args: Any) -> None:
        raise RuntimeError(f"target {self.target!r} emits source only (TVM's Metal code "
                                f"generation; tilec's own 'metal' target runs on macOS)")

    def __repr__(self) -> str:
        return f"<TirxSourceOnly @{self.name} ({self.target})>"
