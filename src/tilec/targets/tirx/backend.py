"""The ``tirx:llvm`` target: TileIR -> ``tvm.tirx`` PrimFunc -> ``tvm.compile(target="llvm")``.

``probe`` says why the target cannot run here (TVM is an optional extra: ``pip install
'tilec[tvm]'``); ``make_backend`` gives the backend the compile driver runs: ``emit``
builds the PrimFunc (``exporter``; its ``text`` is the TVMScript), ``build`` compiles it
with TVM's LLVM and wraps it (``runtime.TirxExecutable``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

__all__ = ["TirxBackend", "TirxSource", "make_backend", "probe", "TVM_VERSION"]

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

        return TirxSource(export(module, fn_name))

    def build(self, module: ir.Module, fn_name: str, src: TirxSource) -> Any:
        """Compile ``src`` with ``tvm.compile(..., target="llvm")`` and wrap it."""
        from .runtime import TirxExecutable, build_prim_func

        fn = module.lookup(fn_name)
        assert fn is not None
        return TirxExecutable(module, fn, src.export, build_prim_func(src.export, fn))

    def compile(self, module: ir.Module, fn_name: str) -> Any:
        """Verify, emit and build ``fn_name``."""
        if module.lookup(fn_name) is None:
            known = ", ".join(f"@{f.name}" for f in module)
            raise KeyError(f"no function @{fn_name} in the module (it has {known})")
        ir.verify(module)
        return self.build(module, fn_name, self.emit(module, fn_name))


def make_backend(target_name: str = "tirx:llvm") -> TirxBackend:
    """The registry factory for ``tirx:llvm``."""
    return TirxBackend(target_name)
