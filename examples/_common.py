"""Shared driver for the examples: compile, print the IR, run and compare with numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

import tilec as tc
from tilec.demo import DemoCase, max_error


def run_example(case: DemoCase, show_ir: bool = True) -> bool:
    """Compile ``case`` for the default target, run it, and check it against its oracle."""
    args: list[Any] = list(case.make_inputs(np.random.default_rng(0)))
    compiled = tc.compile(case.kernel, *args, **case.constexprs)
    if show_ir:
        print(compiled.ir)
    expected = case.expected(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    compiled(*args)
    ok = True
    for i, want in expected.items():
        err = max_error(args[i], want)
        ok &= err <= case.rtol
        print(f"{case.name} on {compiled.target}: output {i} max error {err:.3g} "
              f"({'ok' if err <= case.rtol else 'FAIL'})")
    return ok
