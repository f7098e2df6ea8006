"""The ``tirx:*`` targets: TileIR -> ``tvm.tirx`` PrimFunc -> ``tvm.compile``.

``tirx:llvm`` builds for the CPU with TVM's LLVM (cached: ``cache``), ``tirx:cuda`` for an
NVIDIA GPU (TVM's CUDA source, built with NVRTC: ``device``), ``tirx:metal`` TVM's Metal
source only (checked with the Metal target's checker). The probes say why a target cannot
build or run here (TVM is an optional extra: ``pip install 'tilec[tvm]'``);
``make_backend`` gives the backend the compile driver runs: ``emit`` builds the PrimFunc
(``exporter``, in its GPU form for the GPU routes: ``gpu``; its ``text`` is the
TVMScript), ``build`` compiles it and wraps it. A ``tirx:cuda`` kernel runs without TVM
(``launch``: its launch record, ``launch_record``/``load_launch`` here, ``launch.save``
and ``launch.load`` for files).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

__all__ = ["TirxBackend", "TirxSource", "make_backend", "probe", "probe_cuda", "build_cuda_probe",
           "probe_metal", "build_metal_probe", "TVM_VERSION"]

TVM_VERSION = "0.27"
"""The TVM release line the bridge is written against (``tvm.tirx`` is new in 0.27)."""


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None when TVM's ``tvm.tirx`` and its LLVM backend import here, else the reason."""
    try:
        import tvm
        import tvm.tirx  # noqa: F401
        from tvm.script.ir_builder import IRBuilder  # noqa: F401
    except ImportError as e:
        return (f"Apache TVM is not importable ({e}); install the extra: "
                f"pip install 'tilec[tvm]' (apache-tvm {TVM_VERSION})")
    except Exception as e:  # a broken install: say so rather than crash the listing
        return f"Apache TVM failed to import: {type(e).__name__}: {e}"
    if not hasattr(tvm, "compile"):
        return f"Apache TVM {tvm.__version__} has no tvm.compile (the bridge needs {TVM_VERSION})"
    try:
        if not tvm.runtime.enabled("llvm"):
            return f"Apache TVM {tvm.__version__} was built without LLVM"
    except Exception:  # noqa: BLE001 - older runtimes lack ``enabled``; compiling will tell
        pass
    return None


@functools.lru_cache(maxsize=1)
def build_cuda_probe() -> str | None:
    """None when ``tirx:cuda`` kernels can be built here (TVM, and NVRTC from the
    ``cuda-bindings`` package, which TVM compiles CUDA with), else the reason."""
    why = probe()
    if why is not None:
        return why
    try:
        from cuda.bindings import nvrtc  # noqa: F401
    except ImportError as e:
        return f"NVRTC is not importable ({e}); TVM compiles CUDA with it: pip install " \
               f"cuda-bindings"
    return None


def probe_cuda() -> str | None:
    """None when ``tirx:cuda`` kernels can be compiled and run here (TVM and NVRTC build them;
    tilec's CUDA runtime runs them on a device of compute capability 8.0 or newer), else the
    reason. A saved kernel runs without TVM: ``launch.launch_probe``."""
    why = build_cuda_probe()
    if why is not None:
        return why
    from .launch import launch_probe

    return launch_probe()


def build_metal_probe() -> str | None:
    """None when ``tirx:metal`` source can be generated here (TVM is all it needs)."""
    return probe()


def probe_metal() -> str | None:
    """Why ``tirx:metal`` kernels never run: the route emits source only."""
    return "source only: the TVM route to Metal emits source (tc.compile(...).source); run " \
           "kernels on macOS with tilec's own 'metal' target"


@dataclass
class TirxSource:
    """The emit stage's product: the PrimFunc and what its failures report."""

    export: Any
    """The ``exporter.Export``."""

    @property
    def text(self) -> str:
        """The PrimFunc as TVMScript."""
        return self.export.text


class TirxBackend:
    """Compiles Candidate TileIR functions through TVM's ``tvm.tirx`` and LLVM."""

    pipeline = ("emit", "build")
    """The stages the compile driver runs: the exporter reads Candidate TileIR as it is
    (nothing is planned; ``threads`` decides which ``parallel`` runs on threads)."""

    profile = None
    """No hardware profile: nothing is planned."""

    def __init__(self, name: str = "tirx:llvm") -> None:
        self.name = name
        """The target name."""

    def emit(self, module: ir.Module, fn_name: str) -> TirxSource:
        """The PrimFunc of ``fn_name`` (TVM must import, which the runtime's ``require``
        checks before a backend is used; nothing is compiled)."""
        from .exporter import export

        return TirxSource(export(module, fn_name, self.name))

    def build(self, module: ir.Module, fn_name: str, src: TirxSource) -> Any:
        """Compile ``src`` with ``tvm.compile`` for the target and wrap it: LLVM (cached),
        CUDA (``device.build_cuda``) or Metal source (``device.build_metal``, checked)."""
        fn = module.lookup(fn_name)
        assert fn is not None
        if self.name == "tirx:cuda":
            from .device import TirxDeviceExecutable, build_cuda

            return TirxDeviceExecutable(module, fn, src.export,
                                        build_cuda(src.export, fn, self.name))
        if self.name == "tirx:metal":
            from .device import TirxSourceOnly, build_metal

            text = build_metal(src.export, fn, self.name)
            _check_metal(text, fn, self.name)
            return TirxSourceOnly(fn, src.export, text, self.name)
        from .runtime import TirxExecutable, build_prim_func

        return TirxExecutable(module, fn, src.export, build_prim_func(src.export, fn))

    # -- launch records (``tilec.driver.launch_record``/``load_launch``) -----------------
    def launch_record(self, exe: Any) -> dict[str, Any] | None:
        """A ``tirx:cuda`` kernel's launch record (JSON, self-contained: the CUDA source,
        TVM's host code, the parameters and host checks; ``launch.TirxLaunch``), or None for
        the other routes."""
        from .launch import TirxCudaKernel

        return exe.launch.to_json() if isinstance(exe, TirxCudaKernel) else None

    def load_launch(self, record: dict[str, Any]) -> Any:
        """The ``tirx:cuda`` kernel a ``launch_record`` describes (no TVM is imported), or
        None when it is not one this tilec reads."""
        from .launch import ArtifactError, TirxCudaKernel, TirxLaunch

        if self.name != "tirx:cuda":
            return None
        try:
            return TirxCudaKernel(TirxLaunch.from_json(record))
        except ArtifactError:
            return None

    def compile(self, module: ir.Module, fn_name: str) -> Any:
        """Verify, emit and build ``fn_name``."""
        if module.lookup(fn_name) is None:
            known = ", ".join(f"@{f.name}" for f in module)
            raise KeyError(f"no function @{fn_name} in the module (it has {known})")
        ir.verify(module)
        return self.build(module, fn_name, self.emit(module, fn_name))


def make_backend(target_name: str = "tirx:llvm") -> TirxBackend:
    """The registry factory for ``tirx:llvm``, ``tirx:cuda`` and ``tirx:metal``."""
    return TirxBackend(target_name)


def _check_metal(text: str, fn: ir.Function, target: str) -> None:
    """TVM's Metal source through the Metal target's check (when libclang is here)."""
    from tilec.targets.metal.check import MSLCheckError, check_msl, checker_unavailable

    if checker_unavailable() is not None:
        return
    try:
        check_msl(text)
    except MSLCheckError as e:
        from tilec.targets.clike import UnsupportedError

        raise UnsupportedError(target, None, f"TVM's Metal source for @{fn.name} fails the "
                                             f"Metal check: {e}") from None
