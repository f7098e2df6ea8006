"""On the GPU, a K loop after a warp-specialized one (its buffers shared by the consumers'
two unswitched copies, tests/regression/test_loops_after_producer.py) computes both
products; and a pipeline with a window of four (its versions counted by the planner,
tests/unit/plan/test_pipeline_rings.py) computes its product."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from test_loops_after_producer import _args, after_producer

import tilec as tc
from paths import on_device, to_host
from tilec.lib.matmul import pipelined_matmul

pytestmark = pytest.mark.usefixtures("torch_cuda")


@pytest.mark.parametrize("shape", [(256, 256, 256), (384, 256, 320)])
def test_loop_after_producer(torch_cuda: Any, shape: tuple[int, int, int]) -> None:
    want = _args(*shape)
    tc.interpret(after_producer, *want)
    args = on_device(torch_cuda, _args(*shape))
    tc.compile(after_producer, *args, target="cuda")(*args)
    torch_cuda.cuda.synchronize()
    for i in (3, 4):
        np.testing.assert_allclose(to_host(torch_cuda, args[i]), want[i], rtol=2e-3, atol=2e-2)


def test_pipeline_window_four(torch_cuda: Any) -> None:
    rng = np.random.default_rng(9)
    bf = ml_dtypes.bfloat16
    a = rng.standard_normal((512, 320)).astype(bf)
    b = rng.standard_normal((320, 512)).astype(bf)
    out = np.full((512, 512), np.nan, np.float32)
    args = on_device(torch_cuda, [a, b, out])
    bind = dict(BM=128, BN=256, BK=64, WINDOW=4)
    tc.compile(pipelined_matmul, *args, target="cuda", **bind)(*args)
    torch_cuda.cuda.synchronize()
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(to_host(torch_cuda, args[2]), want, rtol=2e-3, atol=2e-2)
