"""tilec: a tile-level kernel compiler for Python.

The public API lives here and nowhere else: ``@tilec.kernel``, ``tilec.compile``,
``tilec.interpret``, ``tilec.simulate``, the dtypes and the DSL builtins (see
``docs/guide/dsl.md``).
"""

from typing import Any

from .frontend import *  # noqa: F403
from .frontend import __all__ as _frontend_all
from .ir import ArgumentError, PerformanceWarning, UserError
from .runtime import TargetUnavailable, available_targets, default_target
from .runtime.log import configure_from_env as _configure_logging
from .runtime.records import VERSION as __version__
from .runtime.records import RecordWarning
from .targets.kernel_checks import (
    KernelArithmeticError,
    KernelAssertionError,
    KernelIndexError,
    KernelLoopError,
)
from .targets.reference.errors import SimulationError

_configure_logging()  # TILEC_LOG (runtime/log.py)


def simulate(fn: Any, *args: Any, target: str = "cuda:sm_90", **constexprs: Any) -> None:
    """Lower ``fn`` to Machine TileIR for ``target`` and run it in the SIMT simulator, in place.

    Raises ``SimulationError`` on a shared-memory race, two programs writing one
    global element (unless both with atomics), an out-of-range access or divergent
    synchronization, naming the operations involved, ``KernelAssertionError``
    when an ``assert`` of the kernel fails, ``KernelArithmeticError`` when an
    integer division has a zero divisor, ``KernelIndexError`` when a tile slice
    with a runtime start leaves its tile and ``KernelLoopError`` when a loop's step is
    not positive.
    """
    from .frontend.jit import simulate as simulate_kernel
    from .ir import UserError

    try:
        simulate_kernel(fn, args, target, constexprs)
    except UserError as e:
        raise e.with_traceback(None) from None


def tune(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Measured selection of ``fn``'s tunables for the call ``fn(*args)``: see
    ``tilec.tuning.tune`` and ``docs/guide/tuning.md``. Returns a ``TuneResult``."""
    from .ir import UserError
    from .tuning import tune as run_tune

    try:
        return run_tune(fn, *args, **kwargs)
    except UserError as e:
        raise e.with_traceback(None) from None


def __getattr__(name: str) -> Any:
    """``tilec.testing`` (``tc.testing.do_bench``), imported when first read: importing tilec
    does not import the testing tools."""
    if name == "testing":
        import importlib

        return importlib.import_module(".testing", __name__)
    if name == "torch":  # tc.torch.custom_op (torch_ops.py); importing tilec never imports torch
        import importlib

        return importlib.import_module(".torch_ops", __name__)
    raise AttributeError(f"module 'tilec' has no attribute {name!r}")


__all__ = ["__version__", "tune", "RecordWarning", "available_targets", "default_target",
           "simulate", "SimulationError",
           "ArgumentError", "TargetUnavailable", "UserError", "KernelAssertionError",
           "PerformanceWarning",
           "KernelArithmeticError", "KernelIndexError", "KernelLoopError",
           *_frontend_all]
