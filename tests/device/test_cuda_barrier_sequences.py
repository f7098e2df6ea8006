"""Group barriers with and without dependence-aware coalescing
(``PlannerOptions.coalesce_group_barriers``) on the GPU: the row kernels, whose statistics
pass through shared scratch, match torch under both sequences (outputs poisoned with NaN),
and the reference sequence really has more barriers in its source."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib.norms import layernorm
from tilec.lib.softmax import softmax


def _barriers(kernel: Any) -> int:
    """``__syncthreads()`` calls in a compiled kernel's CUDA source."""
    return kernel.compilation("emit").source.text.count("__syncthreads")


@pytest.mark.parametrize("coalesce", [True, False], ids=["coalesced", "reference"])
@pytest.mark.parametrize("rows,cols,bn", [(64, 8192, 8192), (37, 1000, 1024)])
def test_row_kernels_match_torch(torch_cuda: Any, coalesce: bool, rows: int, cols: int,
                                 bn: int) -> None:
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(rows + cols)
    x = torch.randn(rows, cols, device="cuda", generator=gen) * 4
    w = torch.randn(cols, device="cuda", generator=gen)
    b = torch.randn(cols, device="cuda", generator=gen)
    variant = {"coalesce_group_barriers": coalesce}
    y = torch.full_like(x, float("nan"))
    ln = tc.compile(layernorm, x, w, b, y, 1e-5, target="cuda", variant=variant, BM=1, BN=bn)
    ln(x, w, b, y, 1e-5)
    torch.cuda.synchronize()
    want = torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5)
    assert float((y - want).abs().max()) <= 1e-4 * max(1.0, float(want.abs().max()))
    s = torch.full_like(x, float("nan"))
    sm = tc.compile(softmax, x, s, target="cuda", variant=variant, BM=1, BN=bn)
    sm(x, s)
    torch.cuda.synchronize()
    assert float((s - torch.softmax(x, dim=1)).abs().max()) <= 1e-5
    syncs = _barriers(ln)
    assert syncs >= 1
    if not coalesce:
        coalesced = tc.compile(layernorm, x, w, b, y, 1e-5, target="cuda", BM=1, BN=bn)
        assert syncs > _barriers(coalesced)
