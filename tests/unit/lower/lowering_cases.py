"""Shared helpers of the lowering tests: the kernel cases and a differential runner.

A case runs twice on the same fresh random inputs: the Candidate module on the
reference interpreter, and its Machine lowering on the SIMT simulator. Output
arrays are poisoned with NaN before both runs, so an element the lowering
forgets to write shows up.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

import tilec as tc
import tilec.ir as ir
from tilec.demo import DemoCase
from tilec.lib import DEMOS as LIB_DEMOS
from tilec.lower import LowerOptions, lower
from tilec.targets.reference import Interpreter, bind_arguments

try:
    from tilec.targets.reference.simt import simulate_module

    SIMULATOR_MISSING: str | None = None
except ImportError as e:  # pragma: no cover - depends on the checkout
    simulate_module = None  # type: ignore[assignment]
    SIMULATOR_MISSING = f"the SIMT simulator is not importable ({e})"

TARGETS = ("cuda:sm_90", "cuda:sm_80", "metal:m1")
"""The profiles every kernel is lowered for."""

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"tilec_lower_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EXAMPLE_CASES = [c for p in sorted(EXAMPLES.glob("*.py")) if not p.name.startswith("_")
                 for c in _load(p).DEMOS]
CASES: list[DemoCase] = [*LIB_DEMOS, *EXAMPLE_CASES]
"""Every library and example kernel with its demo inputs."""


def bf16_matmul_args(m: int, n: int, k: int, seed: int = 0) -> list[np.ndarray]:
    """Random bf16 ``A`` (m x k) and ``B`` (k x n) and a zero f32 ``C`` (m x n): the
    arguments of ``lib.matmul`` that the warpgroup-instruction tests share."""
    import ml_dtypes

    r = np.random.default_rng(seed)
    bf16 = ml_dtypes.bfloat16
    return [r.standard_normal((m, k)).astype(bf16), r.standard_normal((k, n)).astype(bf16),
            np.zeros((m, n), np.float32)]


def notes(res: Any) -> str:
    """Every schedule note of a ``Lowering``'s groups, one per line."""
    return "\n".join(n for g in res.groups for n in g.notes)


def outputs_of(case: DemoCase, args: list[Any]) -> list[int]:
    """Argument positions a case writes."""
    return list(case.expected(*[a.copy() if isinstance(a, np.ndarray) else a
                                for a in args]).keys())


def poisoned(args: list[Any], outs: list[int]) -> list[Any]:
    """Copies of ``args`` with the outputs filled with NaN (0 for integer arrays)."""
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for i in outs:
        fill = np.nan if out[i].dtype.kind == "f" or out[i].dtype.name == "bfloat16" else 0
        out[i] = np.full_like(out[i], fill)
    return out


def reference(module: ir.Module, fn_name: str, args: list[Any]) -> None:
    """Run the Candidate module on the reference interpreter (arrays written in place)."""
    fn = module.lookup(fn_name)
    Interpreter(module).run(fn, bind_arguments(fn, args))


def differential(kernel: Any, args: list[Any], outs: list[int], target: str,
                 constexprs: dict[str, Any] | None = None,
                 options: LowerOptions | None = None, rtol: float = 1e-4,
                 atol: float = 1e-5, exact: bool = False, poison: bool = True,
                 static_shapes: bool = False) -> Any:
    """Lower for ``target``, simulate, compare with the reference; returns the ``Lowering``.

    ``poison=False`` keeps the outputs' initial values (kernels that accumulate into them).
    """
    compiled = tc.compile(kernel, *args, target="reference", static_shapes=static_shapes,
                          **(constexprs or {}))
    want = poisoned(args, outs if poison else [])
    reference(compiled.module, compiled.fn_name, want)
    got = poisoned(args, outs if poison else [])
    result = lower(compiled.module, target, options)
    assert result.machine is not None
    simulate_module(result.machine, compiled.fn_name, got)
    for i in outs:
        a = np.asarray(want[i], np.float64)
        b = np.asarray(got[i], np.float64)
        assert not np.isnan(a).all(), "the reference wrote nothing"
        if exact:
            assert np.array_equal(a, b, equal_nan=True), f"output {i} differs (bit-exact)"
        else:
            scale = max(1.0, float(np.nanmax(np.abs(a))))
            bad = ~np.isclose(b, a, rtol=rtol, atol=atol * scale, equal_nan=True)
            assert not bad.any(), (f"output {i}: {int(bad.sum())} of {a.size} elements differ, "
                                   f"max error {float(np.nanmax(np.abs(a - b)))}, "
                                   f"{int(np.isnan(b).sum())} NaN")
    return result
