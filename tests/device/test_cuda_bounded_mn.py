"""Bounded M/N input views on the GPU (``tests/unit/lower/test_bounded_mn.py`` in the
simulators): with ``bounded_mn_views`` the accumulator rectangles past the arrays' edges
are skipped, and the outputs stay the reference interpreter's bit for bit, with NaN,
infinities and signed zeros at the edge rows and columns (signs compared on every non-NaN
element of the f32 path; see ``_check`` for 16-bit inputs), the option's output is the
default program's bit for bit, and the padded rows of an output longer than A still
stored."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from bounded_mn_cases import matmul_from, special

import tilec as tc
from paths import on_device, reference_run, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]
ON = {"bounded_mn_views": True}


def _check(torch_cuda: Any, target: str, args: list[np.ndarray], tiles: dict) -> None:
    """Both programs against the reference (values, NaN and infinities bit for bit) and
    against each other (every bit). The sign of a zero is compared with the reference on
    the f32 path only: a tensor-core matrix instruction (16-bit inputs) returns +0 for a
    sum whose products are all -0, where IEEE addition keeps -0 (seen on the GPU with the
    option on and off alike)."""
    _, want = reference_run(matmul_from, *args, written=2, **tiles)
    sources, outs = [], []
    tensor_core = args[0].dtype != np.float32
    for variant in (None, ON):
        dev = on_device(torch_cuda, args, out=2)
        extra = {} if variant is None else {"variant": variant}
        c = tc.compile(matmul_from, *dev, target=target, **tiles, **extra)
        sources.append(c.source)
        c(*dev)
        torch_cuda.cuda.synchronize()
        got = to_host(torch_cuda, dev[2])
        outs.append(got)
        assert np.array_equal(want, got, equal_nan=True), f"{variant}: differs"
        signed = ~np.isnan(want) & ~(tensor_core & (want == 0))
        assert np.array_equal(np.signbit(want)[signed], np.signbit(got)[signed]), \
            f"{variant}: a signed zero differs"
    assert np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32)), \
        "the option changed a stored bit"
    assert sources[0] != sources[1], "the option left the program as it was"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [np.float32, ml_dtypes.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("shape", [(40, 47, 64), (200, 136, 96), (33, 63, 29)],
                         ids=["small", "ragged", "ragged_k"])
def test_edges_match_the_reference(torch_cuda: Any, target: str, dt: Any,
                                   shape: tuple[int, int, int]) -> None:
    _check(torch_cuda, target, special(*shape, dt=dt), {})


@pytest.mark.parametrize("target", TARGETS)
def test_wider_tiles(torch_cuda: Any, target: str) -> None:
    tiles = {"BM": 64, "BN": 64, "BK": 32}
    _check(torch_cuda, target, special(70, 100, 64, dt=ml_dtypes.bfloat16), tiles)


@pytest.mark.parametrize("target", TARGETS)
def test_a_longer_output_keeps_its_padded_rows(torch_cuda: Any, target: str) -> None:
    _check(torch_cuda, target, special(40, 47, 64, out=(48, 47)), {})
