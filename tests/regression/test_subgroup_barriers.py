"""Independent-subgroup barriers (``PlannerOptions.elide_independent_subgroup_barriers``)
on every path: the kernels of ``tests/subgroup_kernels.py`` with the option on, at one
subgroup per group (``threads=32``: transposes become subgroup-local) and at the planner's
thread count, against the reference interpreter, outputs NaN-poisoned first. ``cpu`` has no
group barriers (the option changes nothing there; it runs for the differential). The GPU
run is ``tests/device/test_cuda_independent_subgroups.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, poisoned
from subgroup_kernels import carried, column_sums, inputs, read_own, read_transposed
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.reference.simt import simulate_module

KERNELS = [read_own, read_transposed, column_sums, carried]


def run_variant(path: str, kernel: Any, variant: dict[str, Any], *args: Any) -> None:
    """``paths.run`` with plan-variant choices (the reference takes none)."""
    if path == "reference":
        tc.interpret(kernel, *args)
    elif path == "cpu":
        why = c_compiler_problem()
        if why is not None:
            pytest.skip(f"no C compiler: {why}")
        tc.compile(kernel, *args, target="cpu", variant=variant)(*args)
    else:
        profile = path.removeprefix("sim:")
        compiled = kernel.compile(*args, target="simt:" + profile, variant=variant)
        simulate_module(compiled.executable().module, compiled.fn_name, list(args))


@pytest.mark.parametrize("threads", [32, None], ids=["one_subgroup", "planned"])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.fn.__name__)
@pytest.mark.parametrize("path", PATHS)
def test_matches_the_reference(path: str, kernel: Any, threads: int | None) -> None:
    x, out = inputs(kernel, rows=64, seed=5)
    want = poisoned(*out.shape)
    tc.interpret(kernel, x, want)
    assert not np.isnan(want).any()
    got = poisoned(*out.shape)
    run_variant(path, kernel, {"elide_independent_subgroup_barriers": True, "threads": threads},
                x, got)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_the_reference_is_numpy() -> None:
    x, out = inputs(read_transposed, rows=64, seed=5)
    tc.interpret(read_transposed, x, out)
    np.testing.assert_array_equal(out, x.reshape(-1, 16, 16).transpose(0, 2, 1).reshape(-1, 16))
    x, out = inputs(carried, rows=64, seed=5)
    tc.interpret(carried, x, out)
    blocks = x.reshape(-1, 16, 16)
    for _ in range(3):
        blocks = blocks.transpose(0, 2, 1) + np.float32(1)
    np.testing.assert_array_equal(out, blocks.reshape(-1, 16))
