"""Issue: zero-size torch tensors were refused on cuda as "not C-contiguous".

Frameworks give empty tensors any strides (torch: ``(1, 1)`` for shape ``(3, 0)``,
0 for expanded axes); the launcher's contiguity test compared them with row-major
strides. An empty array is contiguous, and nothing is ever read from or written to
it, so its address needs no alignment either. A call with an empty array runs a
grid of zero programs (or programs whose loops over the empty extent run zero times)
on every target; the host targets are checked here on empty numpy views into
sentinel buffers, the launcher on fake device arrays (the GPU run is in
``tests/device/test_cuda_zero_size.py``).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import matmul
from tilec.lib.reductions import row_sum
from tilec.lib.transpose import transpose
from tilec.lower import lower_to_machine
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.cuda.runtime import (
    as_device_array,
    bind_arguments,
    check_aligned16,
    shape_bindings,
)

TARGETS = ["reference", "cpu", "cuda:sm_90", "cuda:sm_80", "metal:m1"]
MM = {"BM": 16, "BN": 16, "BK": 8}


def run(target: str, kernel, *args, **cx) -> None:
    if target == "reference":
        tc.interpret(kernel, *args, **cx)
    elif target == "cpu":
        tc.compile(kernel, *args, target="cpu", **cx)(*args)
    else:
        tc.simulate(kernel, *args, target=target, **cx)


class Sentinels:
    """Empty views into the middle of buffers of 7s: writing through one changes a 7."""

    def __init__(self) -> None:
        self.buffers: list[np.ndarray] = []

    def empty(self, shape: tuple[int, ...]) -> np.ndarray:
        rows, cols = shape
        base = np.full((rows + 2, cols + 2), 7.0, np.float32)
        self.buffers.append(base)
        return base[1:1 + rows, 1:1 + cols] if rows and cols else (
            base[1:1, 1:1 + cols] if not rows else base[1:1 + rows, 1:1])

    def untouched(self) -> bool:
        return all((b == 7.0).all() for b in self.buffers)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)], ids=lambda s: "x".join(map(str, s)))
def test_transpose_of_an_empty_array_touches_nothing(target: str, shape) -> None:
    s = Sentinels()
    x, y = s.empty(shape), s.empty(shape[::-1])
    assert x.size == 0 and y.size == 0
    run(target, transpose, x, y)
    assert s.untouched()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mnk", [(0, 20, 12), (20, 0, 12), (0, 0, 0)], ids=str)
def test_matmul_with_an_empty_output_runs_no_program(target: str, mnk) -> None:
    m, n, k = mnk
    s = Sentinels()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32) if m and k else s.empty((m, k))
    b = rng.standard_normal((k, n)).astype(np.float32) if k and n else s.empty((k, n))
    run(target, matmul, a, b, s.empty((m, n)), **MM)
    assert s.untouched()


@pytest.mark.parametrize("target", TARGETS)
def test_matmul_over_an_empty_contraction_is_zero(target: str) -> None:
    s = Sentinels()
    c = np.full((20, 18), np.nan, np.float32)
    run(target, matmul, s.empty((20, 0)), s.empty((0, 18)), c, **MM)
    assert s.untouched()
    np.testing.assert_array_equal(c, np.zeros((20, 18), np.float32))
    assert not np.signbit(c).any()  # the sum of nothing is +0.0


@pytest.mark.parametrize("target", TARGETS)
def test_row_sums_of_empty_rows_are_zero(target: str) -> None:
    s = Sentinels()
    out = np.full(19, np.nan, np.float32)
    run(target, row_sum, s.empty((19, 0)), out)
    assert s.untouched()
    np.testing.assert_array_equal(out, np.zeros(19, np.float32))


# ------------------------------------------------------------------ the CUDA launcher


class FakeTensor:
    """The attributes the launcher reads of a torch CUDA tensor (never dereferenced)."""

    __module__ = "torch.fake"

    class _Device:
        type, index = "cuda", 0

    class _DType:
        def __init__(self, name: str) -> None:
            self.name = name

        def __str__(self) -> str:
            return f"torch.{self.name}"

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 dtype: str = "float32") -> None:
        self._ptr, self.shape, self._strides = ptr, shape, strides
        self.dtype, self.device = self._DType(dtype), self._Device()

    def data_ptr(self) -> int:
        return self._ptr

    def stride(self) -> tuple[int, ...]:
        return self._strides


class FakeCAI:
    """An array exposing only ``__cuda_array_interface__`` (strides in bytes)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...] | None,
                 typestr: str = "<f4") -> None:
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape,
                                         "typestr": typestr, "strides": strides, "version": 3}


def _cuda(kernel, *args, **cx):
    comp = tc.compile(kernel, *args, target="reference", **cx)
    machine = lower_to_machine(comp.module, "cuda:sm_90")
    return emit_cuda(machine, comp.fn_name, "cuda:sm_90"), shape_bindings(
        machine.lookup(comp.fn_name))


EMPTIES = [
    # what torch gives: (3, 0) -> strides (1, 1); an expanded empty axis -> 0; data_ptr 0
    lambda: FakeTensor(0, (3, 0), (1, 1)),
    lambda: FakeTensor(0, (3, 0), (0, 0)),
    lambda: FakeTensor(0x10004, (3, 0), (7, 3)),
    lambda: FakeCAI(0, (3, 0), (4, 4)),
    lambda: FakeCAI(0x10000, (3, 0), (0, 0)),
]


@pytest.mark.parametrize("make", EMPTIES, ids=range(len(EMPTIES)))
def test_an_empty_device_array_is_contiguous(make) -> None:
    assert as_device_array(make(), "x").contiguous


@pytest.mark.parametrize("make", EMPTIES, ids=range(len(EMPTIES)))
def test_a_transpose_of_empty_tensors_launches_nothing(make) -> None:
    src, binds = _cuda(transpose, np.zeros((3, 0), np.float32), np.zeros((0, 3), np.float32))
    y = FakeTensor(0x20000, (0, 3), (3, 1))
    bound = bind_arguments(src.kernel, src.params, [make(), y], binds)
    assert 0 in src.grid(bound.ints)  # the launcher runs no program for a zero extent


def test_a_contraction_over_empty_tensors_runs_programs_without_reading_them() -> None:
    bf16 = ml_dtypes.bfloat16
    src, binds = _cuda(matmul, np.zeros((64, 0), bf16), np.zeros((0, 64), bf16),
                       np.zeros((64, 64), np.float32))
    assert src.aligned16 == frozenset({0, 1})  # A and B would be copied in 16-byte chunks
    # empty operands at addresses no copy could start from: nothing is copied from them
    a = FakeTensor(0x10002, (64, 0), (1, 1), "bfloat16")
    b = FakeTensor(0x20006, (0, 64), (0, 0), "bfloat16")
    c = FakeTensor(0x30000, (64, 64), (64, 1))
    bound = bind_arguments(src.kernel, src.params, [a, b, c], binds)
    check_aligned16(src, bound)
    assert 0 not in src.grid(bound.ints)  # C is written: the programs run
