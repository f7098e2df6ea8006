"""Index arithmetic beyond 32 bits on the GPU, with real tensors of more than 2**31 elements.

The regression (``tests/regression/test_index_width.py``) was that an ``int`` argument
``off`` (an ``i32``) feeding a window origin was multiplied in 32 bits: ``off * 65536``
wrapped before it became an ``index``. Here every access crosses element ``2**31`` or
``2**32`` of a device tensor: loads, stores, atomics, 2-D rows whose ``row * stride`` leaves
32 bits, loops, a whole-tensor copy whose grid covers more than 2**31 elements, and the
static-shape strides the emitters multiply out. Outputs are poisoned first; expected
values are slices of the same tensors, so a wrapped address reads the wrong bytes (the
tensors hold a pattern at the low end where a wrapped origin would land).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import tilec as tc
from paths import poison

pytestmark = pytest.mark.usefixtures("torch_cuda")

OFF = 65536
"""``OFF * 65536 = 2**32``; ``(OFF // 2) * 65536 = 2**31``."""


@pytest.fixture(autouse=True)
def _free(torch_cuda: Any) -> Iterator[None]:
    """Give the few-GiB tensors of each test back to the device."""
    yield
    torch_cuda.cuda.synchronize()
    torch_cuda.cuda.empty_cache()


def pattern(torch: Any, n: int, seed: int) -> Any:
    """``n`` int8 values that differ from their neighbours and from zero."""
    return ((torch.arange(n, device="cuda", dtype=torch.int64) * 7 + seed) % 113 + 1).to(
        torch.int8)


def big(torch: Any, n: int, marks: dict[int, Any]) -> Any:
    """A zero int8 device tensor of ``n`` elements with ``marks`` (start -> values) written;
    its first elements hold a pattern too, where a wrapped origin would read."""
    x = torch.zeros(n, device="cuda", dtype=torch.int8)
    x[:512] = pattern(torch, 512, 99)
    for start, v in marks.items():
        x[start:start + v.numel()] = v
    return x


@tc.kernel
def read_at(X, Y, off, M: tc.constexpr = 65536):
    for p in tc.parallel(4):
        Y.tile((p * 64,), (64,)).store(X.tile((off * M + (p * 64 - 128),), (64,), fill=-1))


@tc.kernel
def write_at(X, Y, off, M: tc.constexpr = 65536):
    for p in tc.parallel(4):
        Y.tile((off * M + (p * 64 - 128),), (64,)).store(X.tile((p * 64,), (64,)))


@tc.kernel
def add_at(X, Y, off, M: tc.constexpr = 65536):
    for p in tc.parallel(4):
        Y.tile((off * M + (p * 64 - 128),), (64,)).atomic_add(X.tile((p * 64,), (64,)))


@tc.kernel
def sum_windows(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        acc = tc.zeros((64,), tc.int32)
        for k in tc.serial(4):
            acc = acc + X.tile((off * M + (k * 64 - 128),), (64,), fill=0).to(tc.int32)
        Y.tile((0,), (64,)).store(acc)


@tc.kernel
def read_rows(X, Y, row):
    for p in tc.parallel(2):
        Y.tile((p, 0), (1, 256)).store(X.tile((row + p, 128 * p), (1, 256), fill=-1))


@tc.kernel
def copy_all(X, Y, B: tc.constexpr = 4096):
    n = X.shape[0]
    for p in tc.parallel(tc.cdiv(n, B)):
        Y.tile((p * B,), (B,)).store(X.tile((p * B,), (B,)))


@tc.kernel
def read_constant_row(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0, 0), (1, 64)).store(X.tile((4, 0), (1, 64), fill=-1))


@tc.kernel
def read_first_column(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0, 0, 0, 0), (2, 1, 1, 1)).store(X.tile((0, 0, 0, 0), (2, 1, 1, 1), fill=-1))


@pytest.mark.parametrize("off", [OFF // 2, OFF], ids=["2^31", "2^32"])
def test_int_offset_reads_across_the_boundary(torch_cuda: Any, off: int) -> None:
    torch = torch_cuda
    edge = off * 65536
    want = pattern(torch, 256, 3)
    X = big(torch, edge + 512, {edge - 128: want})
    Y = torch.empty(256, device="cuda", dtype=torch.int8)
    poison(torch, Y)
    tc.compile(read_at, X, Y, off, target="cuda")(X, Y, off)
    assert torch.equal(Y, want), (Y[:8].tolist(), want[:8].tolist())


def test_int_offset_writes_across_2_31(torch_cuda: Any) -> None:
    torch = torch_cuda
    off, edge = OFF // 2, 2**31
    src = pattern(torch, 256, 5)
    Y = torch.empty(edge + 512, device="cuda", dtype=torch.int8)
    poison(torch, Y)
    tc.compile(write_at, src, Y, off, target="cuda")(src, Y, off)
    assert torch.equal(Y[edge - 128:edge + 128], src)
    assert (Y[:512] == -7).all() and (Y[edge - 256:edge - 128] == -7).all() \
        and (Y[edge + 128:] == -7).all(), "a store landed outside its window"


def test_int_offset_atomics_across_2_31(torch_cuda: Any) -> None:
    torch = torch_cuda
    off, edge = OFF // 2, 2**31
    src = pattern(torch, 256, 11).to(torch.int32)
    Y = torch.full((edge + 512,), 1000, device="cuda", dtype=torch.int32)
    tc.compile(add_at, src, Y, off, target="cuda")(src, Y, off)
    assert torch.equal(Y[edge - 128:edge + 128], src + 1000)
    assert (Y[:edge - 128] == 1000).all() and (Y[edge + 128:] == 1000).all()


def test_int_offset_in_a_loop_across_2_31(torch_cuda: Any) -> None:
    torch = torch_cuda
    off, edge = OFF // 2, 2**31
    vals = pattern(torch, 256, 17)
    X = big(torch, edge + 512, {edge - 128: vals})
    Y = torch.empty(64, device="cuda", dtype=torch.int32)
    poison(torch, Y)
    tc.compile(sum_windows, X, Y, off, target="cuda")(X, Y, off)
    assert torch.equal(Y, vals.to(torch.int32).reshape(4, 64).sum(0, dtype=torch.int32))


def test_rows_whose_offset_leaves_32_bits(torch_cuda: Any) -> None:
    torch = torch_cuda
    rows, cols = 2**16 + 2, 2**15  # row 2**16 starts at element 2**31
    X = torch.zeros((rows, cols), device="cuda", dtype=torch.int8)
    X[rows - 3] = pattern(torch, cols, 1)
    X[rows - 2] = pattern(torch, cols, 2)
    Y = torch.empty((2, 256), device="cuda", dtype=torch.int8)
    poison(torch, Y)
    tc.compile(read_rows, X, Y, rows - 3, target="cuda")(X, Y, rows - 3)
    assert torch.equal(Y[0], X[rows - 3, :256]) and torch.equal(Y[1], X[rows - 2, 128:384])


def test_copy_of_more_than_2_31_elements(torch_cuda: Any) -> None:
    torch = torch_cuda
    n = 2**31 + 4096 + 17
    X = pattern(torch, n, 23)
    Y = torch.empty(n, device="cuda", dtype=torch.int8)
    poison(torch, Y)
    tc.compile(copy_all, X, Y, target="cuda")(X, Y)
    bad = (Y != X).nonzero()
    assert bad.numel() == 0, f"{bad.numel()} elements differ, first at {bad[0].item()}"


def test_constant_origin_times_static_stride(torch_cuda: Any) -> None:
    torch = torch_cuda
    X = torch.zeros((5, 2**30), device="cuda", dtype=torch.int8)
    X[0, :64] = pattern(torch, 64, 29)
    X[4, :64] = pattern(torch, 64, 31)
    Y = torch.empty((1, 64), device="cuda", dtype=torch.int8)
    poison(torch, Y)
    tc.compile(read_constant_row, X, Y, target="cuda", static_shapes=True)(X, Y)
    assert torch.equal(Y[0], X[4, :64])


def test_product_of_static_extents_beyond_int(torch_cuda: Any) -> None:
    torch = torch_cuda
    X = torch.zeros((2, 65536, 65536, 1), device="cuda", dtype=torch.int8)
    X[0, 0, 0, 0] = 3
    X[1, 0, 0, 0] = 9
    Y = torch.empty((2, 1, 1, 1), device="cuda", dtype=torch.int8)
    poison(torch, Y)
    specs = (tc.array((2, 65536, 65536, None), tc.int8), tc.array((2, 1, 1, 1), tc.int8))
    tc.compile(read_first_column, *specs, target="cuda")(X, Y)
    assert Y.flatten().tolist() == [3, 9]
