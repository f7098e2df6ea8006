"""A kernel compiled for one target (``Compiled``): its Candidate module, plan, stages and
executable, each made when first asked for, and its call path (arguments checked and bound
once per signature, then the executable's fast path). ``Kernel.compile``
(``frontend/jit.py``) makes and caches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import tilec.ir as ir
from tilec.ir import ArgumentError

from . import warm
from .dtypes import dtype_from_numpy, numpy_dtype

if TYPE_CHECKING:
    from .jit import Kernel
    from .signature import _ArgSpec
    from .tunables import Resolution

__all__ = ["Compiled"]


def _dlpack_view(name: str, a: Any) -> np.ndarray:
    """A numpy view of a DLPack producer that has no ``shape``/``dtype`` of its own (what the
    specialization reads; the target binds the object itself when it runs)."""
    try:
        return np.from_dlpack(a)
    except (TypeError, BufferError, RuntimeError, ValueError) as e:
        raise ArgumentError(f"argument {name}: a {type(a).__name__} has __dlpack__ but no "
                            f"shape and dtype, and numpy cannot view it ({e}); pass a host "
                            "array, or an object with .shape and .dtype") from None


class Compiled:
    """A kernel specialized and captured for one target: ``.ir``, ``.module``, call it to run."""

    def __init__(self, k: Kernel, module: ir.Module | None, target: str, specs: list[_ArgSpec],
                 constexprs: dict[str, Any], selection: Resolution | None = None,
                 variant: dict[str, Any] | None = None, key: tuple | None = None,
                 executable: Any = None) -> None:
        if module is None and key is None:
            raise ValueError("a Compiled without its module needs the specialization key "
                             "to capture it when asked")
        self.kernel = k
        """The kernel this was compiled from."""
        self._module = module
        self._key = key
        self.fn_name = k.fn.__name__
        """The kernel function's symbol in ``module``."""
        self.target = target
        """The target name."""
        self.specs = specs
        """What each runtime argument was specialized on."""
        self.constexprs = dict(constexprs)
        """The constexpr values baked in."""
        self.selection = selection
        """How the latest ``compile`` call that returned this object resolved the tunable
        parameters (None: the kernel has none)."""
        self.variant = dict(variant or {})
        """The plan-space choices fixed for this compilation (``tunables.VARIANT_FIELDS``;
        empty: the planner's own selection)."""
        self._compilation: Any = None
        self._plan: Any = None
        self._exe: Any = executable
        self._hot: tuple[Any, Any] | None = None
        """``(executable, its run)`` once a call of it returned: the jit entry's fast path
        (``Kernel.__call__``) while that executable is still this one's."""
        self._from_record = executable is not None
        self.warm_key: str | None = None
        """The launch entry this compilation's executable is stored under once built (None:
        warm start is off, or the kernel cannot be keyed)."""

    @property
    def module(self) -> ir.Module:
        """The Candidate TileIR module (captured on first use when the executable came from a
        warm-start launch record)."""
        if self._module is None:
            assert self._key is not None
            self._module = self.kernel.module_for(self._key, self.specs, self.constexprs)
        return self._module

    @property
    def warm(self) -> bool:
        """True when the executable came from a warm-start launch record (no stage ran to
        make it)."""
        return self._from_record

    @property
    def ir(self) -> str:
        """The printed Candidate TileIR (``tilec.ir.parse`` reads it back)."""
        return ir.print_module(self.module)

    def compilation(self, until: str | None = None) -> Any:
        """The target's pipeline run over the module, up to stage ``until`` (None: all).

        A ``tilec.driver.Compilation``: ``stages`` holds what each stage produced. Building
        does not need the device: a CUDA kernel's source, cubin and resources come from
        NVRTC alone; only running it needs the GPU."""
        if self._compilation is None:
            from tilec.driver import begin, default_options
            from tilec.runtime import load_backend

            from .tunables import apply_variant

            options = None
            if self.variant:
                options = apply_variant(default_options(load_backend(self.target)),
                                        self.variant)
            self._compilation = begin(self.module, self.fn_name, self.target, options)
        comp = self._compilation.run(until)
        if comp.complete and comp.executable is not None and comp.executable is not self._exe:
            self._exe = comp.executable  # from now on the pipeline's own (stages["build"])
            if self.warm_key is not None:  # a later process loads it from its record
                from tilec.driver import launch_record

                record = launch_record(comp)
                if record is not None:
                    warm.write("launch", self.warm_key, {"target": self.target,
                                                         "fn": self.fn_name, "record": record})
        return comp

    @property
    def stages(self) -> dict[str, Any]:
        """Every stage's product (``tilec.driver.StageRecord``), by stage name, in order."""
        return self.compilation().stages

    def after(self, stage: str) -> str:
        """The printed product of ``stage`` (IR text, plan report, source, build summary)."""
        return self.compilation("capture").after(stage)

    def executable(self) -> Any:
        """The backend's executable (compiled on first use, or loaded from its launch
        record)."""
        if self._exe is None:
            self.compilation()
        return self._exe

    @property
    def source(self) -> str:
        """The generated source of the backend executable."""
        return self.executable().source

    @property
    def tirx(self) -> str:
        """The kernel as an Apache TVM ``tvm.tirx`` PrimFunc, in TVMScript: the emitted source
        of a ``tirx:*`` target, else the bridge's export of the Candidate TileIR (needs the
        ``[tvm]`` extra; ``docs/design/tirx.md``)."""
        if self.target.startswith("tirx:"):
            return self.compilation("emit").stages["emit"].text
        from tilec.runtime import load_backend, require

        require("tirx:llvm", run=False)  # TargetUnavailable, with the reason, without TVM
        return load_backend("tirx:llvm").emit(self.module, self.fn_name).text

    @property
    def resources(self) -> Any:
        """Registers, shared memory and spills the target's compiler reported (None if none)."""
        return getattr(self.executable(), "resources", None)

    @property
    def plan(self) -> Any:
        """The planner's report for this module and target (``tilec.plan.report``): the
        pipeline's own plan when the target plans, else a plan for the target's profile."""
        comp = self.compilation("capture")
        if "plan" in comp.pipeline:
            return comp.run("plan").plan
        if self._plan is None:
            from tilec.plan.report import plan_module

            self._plan = plan_module(self.module, self.target)
        return self._plan

    def check_args(self, args: Sequence[Any]) -> None:
        """Raise ``TypeError``/``ValueError`` when ``args`` do not fit the specialization."""
        if len(args) != len(self.specs):
            raise ArgumentError(f"{self.fn_name}() takes {len(self.specs)} runtime arguments "
                            f"({', '.join(s.name for s in self.specs)}), got {len(args)}")
        for s, a in zip(self.specs, args):
            if s.kind == "array":
                if not (hasattr(a, "shape") and hasattr(a, "dtype")) and hasattr(a, "__dlpack__"):
                    a = _dlpack_view(s.name, a)
                if not (hasattr(a, "shape") and hasattr(a, "dtype")):
                    raise ArgumentError(f"argument {s.name}: expected an array, got "
                                    f"{type(a).__name__}")
                t = dtype_from_numpy(a.dtype)
                if t is not s.dtype:
                    raise ArgumentError(f"argument {s.name}: compiled for {numpy_dtype(s.dtype)} "
                                    f"arrays, got {a.dtype}")
                if len(a.shape) != len(s.shape):
                    raise ArgumentError(f"argument {s.name}: compiled for rank {len(s.shape)}, got "
                                     f"shape {tuple(a.shape)}")
                for axis, (want, got) in enumerate(zip(s.shape, a.shape)):
                    if want is not None and want != got:
                        raise ArgumentError(f"argument {s.name}: compiled for static shape "
                                         f"{s.shape}, got {tuple(a.shape)} (axis {axis})")
            else:
                if hasattr(a, "shape") and getattr(a, "shape", ()) != ():
                    raise ArgumentError(f"argument {s.name}: expected a scalar, got an array")
                if s.dtype.is_int and isinstance(a, float):
                    raise ArgumentError(f"argument {s.name}: compiled for {s.dtype}, got a float")

    def __call__(self, *args: Any, stream: Any = None) -> None:
        """Run on the target with the runtime arguments (outputs are written in place).

        On CUDA the launch goes to ``stream`` when given (a torch or cupy stream, a raw
        handle), else to the current stream of the arguments' framework."""
        try:
            self.run(args, stream)
        except ir.UserError as e:
            raise e.with_traceback(None) from None

    def run(self, args: Sequence[Any], stream: Any = None) -> None:
        """``__call__`` without the traceback trimming (for other entry points).

        The specialization is checked (``check_args``) on the first call and then whenever
        the executable binds an argument signature it has not seen (its ``run``); a call
        with a bound signature goes straight to the launch."""
        exe = self._exe
        first = exe is None
        if first:
            self.check_args(args)
            exe = self.executable()
        if not getattr(exe, "runnable", True):
            from tilec.runtime import require

            require(self.target)  # raises with the reason it cannot run here
        run = getattr(exe, "run", None)
        if run is None:  # the oracles: no binding cache
            if not first:
                self.check_args(args)
            if stream is not None:
                raise ArgumentError(f"target {self.target!r} takes no stream")
            exe(*args)
        elif stream is None:
            run(args, None if first else self.check_args)
            if self._hot is None or self._hot[0] is not exe:
                self._hot = (exe, run)
        elif getattr(exe, "takes_stream", False):
            run(args, None if first else self.check_args, stream=stream)
        else:
            raise ArgumentError(f"target {self.target!r} takes no stream (streams are CUDA's)")

    def __repr__(self) -> str:
        return f"<Compiled {self.fn_name} for {self.target}>"
