"""Cross-check: the CUDA backend's own hand-written Machine samples run right in the simulator.

Those samples were written independently against lowering.md for the CUDA
emitter; agreeing with their numpy oracles here checks that the simulator
and the emitter read the Machine conventions the same way.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tilec.targets.reference.simt import simulate_module

_PATH = Path(__file__).parents[1] / "cuda" / "cuda_machine_ir.py"


def _cuda_samples() -> ModuleType | None:
    if not _PATH.exists():
        return None
    spec = importlib.util.spec_from_file_location("_cuda_machine_ir_for_simt", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod if hasattr(mod, "SAMPLES") and hasattr(mod, "sample") else None


_MOD = _cuda_samples()
_NAMES = sorted(_MOD.SAMPLES) if _MOD is not None else []


@pytest.mark.skipif(_MOD is None, reason="the CUDA backend's Machine samples are not present")
@pytest.mark.parametrize("name", _NAMES)
def test_cuda_backend_samples_match_their_oracles(name: str) -> None:
    s = _MOD.sample(name)
    args = s.make_args(np.random.default_rng(0))
    want = s.reference(*[a.copy() for a in args])
    simulate_module(s.module(), s.name, args)
    got = args[-1].astype(np.float64)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=s.rtol, atol=s.atol)
