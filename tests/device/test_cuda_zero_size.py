"""Zero-size torch tensors on the GPU: accepted whatever their strides, never touched.

torch gives empty tensors strides a row-major check refuses (``(1, 1)`` for shape
``(3, 0)``, 0 for an expanded axis) and empty slices addresses inside another
tensor; the launcher used to refuse them as "not C-contiguous". Every empty
argument here is a view into a sentinel tensor of 7s that must stay unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest

import tilec
from tilec.lib.matmul import matmul
from tilec.lib.reductions import row_sum
from tilec.lib.transpose import transpose

pytestmark = pytest.mark.usefixtures("torch_cuda")


class Sentinels:
    """Empty CUDA tensors of several stride patterns, some inside buffers of 7s."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.buffers: list[Any] = []

    def empty(self, rows: int, cols: int, how: str, dtype: Any = None) -> Any:
        torch = self.torch
        dtype = dtype or torch.float32
        if how == "fresh":  # torch.empty(3, 0): strides (1, 1), data_ptr 0
            t = torch.empty(rows, cols, device="cuda", dtype=dtype)
        elif how == "expanded":  # an expanded axis: stride 0
            t = torch.empty(1, cols, device="cuda", dtype=dtype).expand(rows, cols) if rows \
                else torch.empty(rows, 1, device="cuda", dtype=dtype).expand(rows, cols)
        else:  # a slice two elements into a sentinel buffer: off 16-byte alignment
            base = torch.full(((rows + 2) * (cols + 2) + 1,), 7.0, device="cuda", dtype=dtype)
            self.buffers.append(base)
            t = base[1:].view(rows + 2, cols + 2)[0:rows, 1:1 + cols]
            # torch may report an empty view's address as 0 instead of its offset
            assert t.data_ptr() in (0, base.data_ptr() + 2 * base.element_size())
        assert t.numel() == 0
        return t

    def untouched(self) -> bool:
        self.torch.cuda.synchronize()
        return all(bool((b == 7.0).all()) for b in self.buffers)


HOWS = ["fresh", "expanded", "slice"]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("shape", [(3, 0), (0, 5), (0, 0)], ids=lambda s: "x".join(map(str, s)))
def test_transpose_of_empty_tensors(torch_cuda: Any, how: str, shape: tuple[int, int]) -> None:
    s = Sentinels(torch_cuda)
    x, y = s.empty(*shape, how), s.empty(*shape[::-1], how)
    tilec.compile(transpose, x, y, target="cuda")(x, y)
    assert s.untouched()


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_matmul_over_an_empty_contraction_is_zero(torch_cuda: Any, how: str, dtype: str
                                                  ) -> None:
    torch = torch_cuda
    dt = getattr(torch, dtype)
    s = Sentinels(torch)
    a, b = s.empty(130, 0, how, dt), s.empty(0, 70, how, dt)
    for tile in [(64, 64, 32), (128, 128, 64), (16, 8, 8)]:
        c = torch.full((130, 70), float("nan"), device="cuda")
        cx = dict(zip(("BM", "BN", "BK"), tile))
        tilec.compile(matmul, a, b, c, target="cuda", **cx)(a, b, c)
        torch.cuda.synchronize()
        assert torch.equal(c, torch.zeros_like(c)), tile
        assert not torch.signbit(c).any()  # +0.0
    assert s.untouched()


@pytest.mark.parametrize("how", HOWS)
def test_matmul_with_an_empty_output_launches_nothing(torch_cuda: Any, how: str) -> None:
    torch = torch_cuda
    s = Sentinels(torch)
    a = torch.randn(0, 40, device="cuda") if how != "slice" else s.empty(0, 40, how)
    b = torch.randn(40, 30, device="cuda")
    c = s.empty(0, 30, how)
    tilec.compile(matmul, a, b, c, target="cuda")(a, b, c)
    assert s.untouched()


@pytest.mark.parametrize("how", HOWS)
def test_row_sums_of_empty_rows(torch_cuda: Any, how: str) -> None:
    torch = torch_cuda
    s = Sentinels(torch)
    x = s.empty(19, 0, how)
    out = torch.full((19,), float("nan"), device="cuda")
    tilec.compile(row_sum, x, out, target="cuda")(x, out)
    assert s.untouched()
    assert torch.equal(out, torch.zeros_like(out))
