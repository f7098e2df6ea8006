"""Tensor copies whose windows start off a 16-byte boundary, on the GPU
(``tests/regression/test_tma_alignment.py`` in the simulator).

A fuzzed program (an f16 window at column ``k * 64 - 63`` filled by tensor copies) lost
the CUDA context with an illegal instruction. Each kernel here runs with the default plan
and warp-specialized, into a NaN-poisoned output, against the reference interpreter:
misaligned constant origins, a runtime column offset (aligned and not) and a runtime
offset of the tensor-stored output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_tma_alignment import _inputs, constant_origins, runtime_origin

import tilec as tc
from paths import on_device, reference_run, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


@pytest.mark.parametrize("variant", [None, {"warp_specialized": True}], ids=["default", "ws"])
@pytest.mark.parametrize("kernel,scalars,constexprs", [
    (constant_origins, (), {}), (runtime_origin, (8,), {}), (runtime_origin, (3,), {}),
    (runtime_origin, (4,), {"LOAD": 0}), (runtime_origin, (1,), {"LOAD": 0}),
], ids=["misaligned", "shift8", "shift3", "store4", "store1"])
def test_matches_the_reference(torch_cuda: Any, kernel: Any, scalars: tuple, constexprs: dict,
                               variant: dict | None) -> None:
    args = [*_inputs(), *scalars]
    _, want = reference_run(kernel, *args, written=2, **constexprs)
    dev = on_device(torch_cuda, args, out=2)
    extra = {} if variant is None else {"variant": variant}
    c = tc.compile(kernel, *dev, target="cuda:sm_90", **extra, **constexprs)
    c(*dev)
    torch_cuda.cuda.synchronize()
    got = to_host(torch_cuda, dev[2])
    assert np.array_equal(np.isnan(want), np.isnan(got)), "written elements differ"
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-2, equal_nan=True)
