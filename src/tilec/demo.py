"""Demo cases: a kernel, how to make its inputs, and what it must produce.

An example module declares ``DEMOS = [DemoCase(...), ...]``. ``tilec demo``
runs each case on a target, runs the same inputs through the reference
interpreter, and compares: the target against the interpreter (the reported
error) and the interpreter against the case's numpy ``expected`` function (a
check of the kernel itself). Outputs are poisoned with NaN before every run so
elements a kernel fails to write are caught.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["DemoCase", "DemoResult", "load_file", "cases_of", "all_cases", "run_case", "max_error"]


@dataclass(frozen=True)
class DemoCase:
    """One runnable, checkable kernel invocation."""

    name: str
    """Display name."""
    kernel: Any
    """The ``@tc.kernel`` function."""
    make_inputs: Callable[[np.random.Generator], Sequence[Any]]
    """Builds the argument list (arrays and scalars) from a random generator."""
    expected: Callable[..., dict[int, np.ndarray]]
    """Numpy oracle: given the inputs, the expected value of each output argument by index."""
    constexprs: dict[str, Any] = field(default_factory=dict)
    """Constexpr values passed to the kernel."""
    rtol: float = 1e-4
    """Relative tolerance (scaled by the magnitude of the expected values)."""

    @property
    def kernel_name(self) -> str:
        """The kernel function's name."""
        return getattr(self.kernel, "__name__", str(self.kernel))


@dataclass
class DemoResult:
    """The outcome of one case on one target."""

    name: str
    """Case name."""
    target: str
    """Where it ran."""
    shape: str
    """Shapes of the array arguments."""
    max_error: float | None
    """Largest relative error of the target against the reference interpreter."""
    tolerance: float
    """The bound it was checked against."""
    ms: float | None
    """Wall time of one warm run on the target, milliseconds."""
    ok: bool
    """True when every check passed."""
    message: str = ""
    """Why it failed."""


def load_file(path: Path) -> ModuleType:
    """Import a Python file as a module (its ``__main__`` block does not run)."""
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    name = f"tilec_user_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def cases_of(mod: ModuleType) -> list[DemoCase]:
    """The ``DEMOS`` a module declares; without them, one case per ``@tc.kernel`` of the
    module when it defines ``make_inputs(rng)`` (those inputs serve every kernel, and such
    a case checks nothing: it has no ``expected``)."""
    demos = getattr(mod, "DEMOS", None)
    if demos is not None:
        return list(demos)
    make = getattr(mod, "make_inputs", None)
    if not callable(make):
        return []
    from tilec.frontend.jit import Kernel

    return [DemoCase(name=n, kernel=v, make_inputs=make, expected=_no_expectation)
            for n, v in vars(mod).items() if isinstance(v, Kernel)]


def _no_expectation(*inputs: Any) -> dict[int, np.ndarray]:
    return {}


def all_cases(examples_dir: Path | None) -> list[DemoCase]:
    """Every demo case of the bundled library and, when given, of ``examples_dir``."""
    from tilec import lib

    cases = list(getattr(lib, "DEMOS", []))
    if examples_dir is not None:
        for path in sorted(examples_dir.glob("*.py")):
            cases.extend(cases_of(load_file(path)))
    return cases


def _poisoned(inputs: Sequence[Any], outputs: Sequence[int]) -> list[Any]:
    out = []
    for i, a in enumerate(inputs):
        if isinstance(a, np.ndarray):
            a = a.copy()
            floating = np.issubdtype(a.dtype, np.floating) or a.dtype.name == "bfloat16"
            if i in outputs and floating:
                a[...] = np.nan
        out.append(a)
    return out


def max_error(got: np.ndarray, want: np.ndarray) -> float:
    """Largest ``|got - want| / max(1, |want|)``; inf where exactly one side is NaN."""
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    if g.shape != w.shape:
        return float("inf")
    if g.size == 0:
        return 0.0
    both_nan = np.isnan(g) & np.isnan(w)
    same_inf = np.isinf(g) & np.isinf(w) & (np.sign(g) == np.sign(w))
    with np.errstate(invalid="ignore"):
        err = np.abs(g - w) / np.maximum(1.0, np.abs(w))
    err = np.where(both_nan | same_inf, 0.0, err)
    err = np.where(np.isnan(err), np.inf, err)
    return float(err.max())


def run_case(case: DemoCase, target: str, seed: int = 0) -> DemoResult:
    """Run ``case`` on ``target`` and on the reference interpreter, and compare."""
    import tilec

    rng = np.random.default_rng(seed)
    inputs = list(case.make_inputs(rng))
    shape = ", ".join("x".join(map(str, a.shape)) for a in inputs if isinstance(a, np.ndarray))
    expected = case.expected(*[a.copy() if isinstance(a, np.ndarray) else a for a in inputs])
    outs = sorted(expected)
    try:
        ref_args = _poisoned(inputs, outs)
        tilec.interpret(case.kernel, *ref_args, **case.constexprs)
        oracle_err = max(max_error(ref_args[i], expected[i]) for i in outs)
        if oracle_err > case.rtol:
            return DemoResult(case.name, target, shape, oracle_err, case.rtol, None, False,
                              f"reference interpreter disagrees with numpy ({oracle_err:.3g})")
        tgt_args = _poisoned(inputs, outs)
        compiled = tilec.compile(case.kernel, *tgt_args, target=target, **case.constexprs)
        compiled(*tgt_args)
        err = max(max_error(tgt_args[i], ref_args[i]) for i in outs)
        t0 = time.perf_counter()
        compiled(*_poisoned(inputs, outs))
        ms = (time.perf_counter() - t0) * 1e3
    except Exception as e:  # a failing case is reported in the table, not raised
        return DemoResult(case.name, target, shape, None, case.rtol, None, False,
                          f"{type(e).__name__}: {e}".splitlines()[0])
    return DemoResult(case.name, compiled.target, shape, err, case.rtol, ms, err <= case.rtol,
                      "" if err <= case.rtol else "target disagrees with the reference")
