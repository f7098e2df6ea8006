"""The GPU routes' builds: ``tirx:cuda`` (TVM generates the CUDA source; tilec's CUDA
runtime builds and runs it) and ``tirx:metal`` (source only).

``build_cuda`` runs ``tvm.compile`` for ``cuda`` with TVM's LLVM host, and keeps what a
launch needs instead of TVM's runtime module: TVM compiles the device source through its
``tvm_callback_cuda_compile`` hook, which the bridge replaces for the length of its build
with one that keeps the source, makes it self-contained (``hostsplit.self_contained``) and
compiles it with tilec's NVRTC build (``cuda.compiler.compile_cubin``: ``--fmad=false``, no
fast math; TVM's own NVRTC path adds ``--use_fast_math``, which flushes subnormals and
approximates division) so that a source NVRTC rejects fails the build; the module right
after TVM's ``SplitHostDevice`` gives the kernel's parameters and TVM's host code
(``hostsplit.record_launch``). The result is a ``launch.TirxLaunch``: the executable
(``TirxDeviceExecutable``, a ``launch.TirxCudaKernel``) runs it through the driver API, and
``launch.save`` writes it for a machine without TVM. The architecture of the build is the
GPU's where the driver sees one, else ``sm_90a``; a call compiles for its device's.

``build_metal`` runs TVM's Metal code generation (no compiler: TVM returns the source), and
``tilec.targets.metal.check`` checks it as the Metal target's is checked without an Apple
GPU.
"""

from __future__ import annotations

import threading
from typing import Any

import tilec.ir as ir
from tilec.targets.clike import UnsupportedError
from tilec.targets.interop_checks import kernel_label, shape_bindings, written_parameters
from tilec.targets.kernel_checks import HostChecks

from .exporter import Export
from .launch import ArtifactError, TirxCudaKernel, TirxLaunch, UserParam

__all__ = ["DEFAULT_ARCH", "build_cuda", "build_metal", "cuda_arch", "TirxDeviceExecutable",
           "TirxSourceOnly"]

DEFAULT_ARCH = "sm_90a"
"""The architecture a build targets where no GPU is visible (Hopper, as ``nvcc -arch``)."""

_HOOK = "tvm_callback_cuda_compile"
_lock = threading.Lock()


def cuda_arch() -> str:
    """``sm_XY`` of GPU 0 when the driver sees one (``sm_90a`` for Hopper), else
    ``DEFAULT_ARCH``."""
    from tilec.targets.cuda.backend import device_capability

    cc = device_capability(0)
    if cc is None:
        return DEFAULT_ARCH
    return f"sm_{cc[0]}{cc[1]}" + ("a" if cc == (9, 0) else "")


def _reason(e: Exception) -> str:
    lines = str(e).strip().splitlines()
    return lines[-1] if lines else type(e).__name__


def build_cuda(export: Export, fn: ir.Function, target: str) -> TirxLaunch:
    """The launch record of the PrimFunc: TVM's CUDA source (self-contained, compiled once
    here with NVRTC), its kernel's parameters and TVM's host code. TVM's and NVRTC's
    failures, and a launch the record refuses (a kernel parameter ``pack_arguments`` cannot
    pass), are the bridge's ``UnsupportedError`` (without TVM's stack)."""
    import tvm

    from .hostsplit import capture, record_launch, self_contained

    arch = cuda_arch()
    kernel = f"{export.name}_kernel"
    seen: list[str] = []

    def compile_hook(code: str) -> Any:
        # TVM calls this where its build has CUDA; elsewhere it keeps the source unbuilt
        seen.append(code)
        return bytearray(_nvrtc(code, arch, kernel, target, fn.name))

    with _lock:
        previous = tvm.get_global_func(_HOOK, allow_missing=True)
        tvm.register_global_func(_HOOK, compile_hook, override=True)
        try:
            tgt = tvm.target.Target({"kind": "cuda", "arch": arch}, host="llvm")
            with capture() as got:
                lib = tvm.compile(tvm.IRModule({export.name: export.prim_func}), target=tgt)
        except UnsupportedError:
            raise
        except Exception as e:  # a TVM failure: the bridge's, with the reason
            raise UnsupportedError(target, None, f"TVM could not compile @{fn.name} for "
                                                 f"CUDA ({arch}): {_reason(e)}") from None
        finally:
            if previous is not None:
                tvm.register_global_func(_HOOK, previous, override=True)
    raw = seen[-1] if seen else _device_source(lib)
    if "module" not in got or kernel not in raw:
        raise UnsupportedError(target, None, f"TVM generated no CUDA kernel {kernel} for "
                                             f"@{fn.name}")
    text = self_contained(raw, target, fn.name)
    _nvrtc(raw, arch, kernel, target, fn.name)  # cached: built once, here or in the hook
    rec = record_launch(got["module"], export.name, target, fn.name)
    try:
        return TirxLaunch(fn.name, kernel_label(fn), _user_params(fn), list(fn.shape_symbols),
                          shape_bindings(fn), rec["kernel"], rec["kernel_params"],
                          rec["launch_tags"], rec["inputs"], rec["host"], text, arch,
                          HostChecks(fn), export.text)
    except ArtifactError as e:  # TVM's split made a launch tilec's runtime cannot run
        raise UnsupportedError(target, None, f"TVM's CUDA launch for @{fn.name} cannot run "
                                             f"through tilec's runtime: {e}") from None


def _nvrtc(raw: str, arch: str, kernel: str, target: str, fn_name: str) -> bytes:
    """TVM's source ``raw``, made self-contained, built by tilec's NVRTC build (cached); a
    rejection is the bridge's ``UnsupportedError`` with NVRTC's messages."""
    from tilec.targets.cuda.compiler import CUDACompileError, compile_cubin

    from .hostsplit import self_contained

    try:
        return compile_cubin(self_contained(raw, target, fn_name), arch, kernel).data
    except CUDACompileError as e:
        raise UnsupportedError(target, None, f"NVRTC rejected TVM's CUDA source for "
                                             f"@{fn_name}: {e}") from None


def _user_params(fn: ir.Function) -> list[UserParam]:
    """The user parameters as a call checks them (the reference's facts)."""
    n_user = len(fn.args) - len(fn.shape_symbols)
    written = written_parameters(fn)
    out = []
    for i, a in enumerate(fn.args[:n_user]):
        t = a.type
        if isinstance(t, ir.MemoryType | ir.TileType):
            kind = "mem" if isinstance(t, ir.MemoryType) else "tile"
            out.append(UserParam(kind, t.dtype.name, tuple(d.value for d in t.shape),
                                 i in written, a.name_hint or ""))
        elif isinstance(t, ir.ScalarType):
            out.append(UserParam("scalar", t.name, (), False, a.name_hint or ""))
        else:
            raise UnsupportedError("tirx:cuda", None, f"@{fn.name}: a parameter of type {t} "
                                                      f"cannot be passed to a kernel call")
    return out


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


class TirxDeviceExecutable(TirxCudaKernel):
    """A ``tirx:cuda`` kernel built here: its launch record (run by ``TirxCudaKernel``
    through tilec's CUDA runtime), the IR and the PrimFunc it came from."""

    def __init__(self, module: ir.Module, fn: ir.Function, export: Export,
                 launch: TirxLaunch) -> None:
        super().__init__(launch)
        self.module = module
        """The Candidate module."""
        self.function = fn
        """The entry function."""
        self.export = export
        """The PrimFunc."""

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
