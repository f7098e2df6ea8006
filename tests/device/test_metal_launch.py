"""metal:m1 kernels on an Apple GPU (macOS with PyObjC): every library and example kernel
against the reference interpreter, and the golden subjects against the SIMT simulator's
run of the same Machine TileIR. Skipped elsewhere with the reason (pytest -ra); nothing in
this file has run in this repository's CI, which has no Apple GPU."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tilec.demo import DemoCase, all_cases, run_case

_METAL_TESTS = Path(__file__).resolve().parents[1] / "unit" / "targets" / "metal"
if str(_METAL_TESTS) not in sys.path:
    sys.path.insert(0, str(_METAL_TESTS))

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module", autouse=True)
def metal_device() -> None:
    """Skip (with the reason) unless a Metal device can run kernels here."""
    from tilec.targets.metal.launcher import probe

    why = probe()
    if why is not None:
        pytest.skip(f"no Metal device: {why}")


@pytest.mark.parametrize("case", all_cases(EXAMPLES if EXAMPLES.is_dir() else None),
                         ids=lambda c: c.name)
def test_demo_case_on_metal(case: DemoCase) -> None:
    result = run_case(case, "metal:m1")
    assert result.ok, result.message


@pytest.mark.parametrize("name", ["scale_add", "row_max_small", "int_div_tile",
                                  "matmul_small"])
def test_golden_subject_matches_the_simulator(name: str) -> None:
    from metal_kernels import GOLDEN, golden_args

    import tilec as tc

    on_gpu, simulated = golden_args(name), golden_args(name)
    tc.compile(GOLDEN[name], *on_gpu, target="metal:m1")(*on_gpu)
    tc.simulate(GOLDEN[name], *simulated, target="metal:m1")
    for a, b in zip(on_gpu, simulated):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
