"""Library and example kernels lowered to Machine TileIR, run on the GPU (once lowering lands)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec
from paths import to_device, to_host
from tilec.demo import max_error
from tilec.driver import lower_for
from tilec.targets.cuda.backend import make_backend

pytestmark = pytest.mark.usefixtures("torch_cuda")

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _cases() -> list[Any]:
    from tilec.lib import DEMOS

    cases = list(DEMOS)
    if str(_EXAMPLES) not in sys.path:
        sys.path.insert(0, str(_EXAMPLES))
    for name in ("matmul", "softmax", "layernorm", "attention"):
        try:
            cases += list(importlib.import_module(name).DEMOS)
        except Exception:  # an example that does not import is the examples' own test's business
            pass
    return cases


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.name)
def test_lowered_kernel_matches_numpy(torch_cuda: Any, case: Any) -> None:
    torch = torch_cuda
    args = list(case.make_inputs(np.random.default_rng(0)))
    expected = case.expected(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    compiled = tilec.compile(case.kernel, *args, target="reference", **case.constexprs)
    be = make_backend("cuda")
    try:
        machine = lower_for(compiled.module, compiled.fn_name, "cuda")
    except Exception as e:  # the lowering's own limits are its tests' business
        pytest.skip(f"lowering does not handle {case.name} yet: {type(e).__name__}: "
                    f"{str(e).splitlines()[0][:200]}")
    exe = be.compile(machine, compiled.fn_name)
    dev = [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in args]
    for i in expected:
        dev[i].fill_(float("nan") if dev[i].dtype.is_floating_point else -7)
    exe(*dev, sync=True)
    for i, want in expected.items():
        err = max_error(to_host(torch, dev[i]), want)
        assert err <= case.rtol, f"{case.name}: output {i} max error {err:.3g}"
