"""Issue 16: the oracles take what the cpu target takes: torch CPU tensors and DLPack objects.

``tc.interpret`` and ``tc.simulate`` bind arrays through the launchers' DLPack
helper (``interop_checks.as_host_array``), so a torch CPU tensor is viewed,
not copied, and the kernel's writes land in the caller's tensor. Three gaps
are closed here:

* the SIMT simulator wrote through a flat view of each argument, which for an
  argument that is not C-contiguous (a transposed numpy array or tensor) is a
  copy: its writes were silently lost. It now works on a contiguous copy of
  such an argument and writes it back after the run, also when the kernel
  stops with an error (what it stored before stays stored);
* an object with ``__dlpack__`` but no ``shape``/``dtype`` was refused by the
  specialization ("expected an array or a scalar") on every target;
* the simulator's race reports named a numpy argument (``%Y``) but not a
  tensor ("(an argument)").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, SIMULATED, HostTensor, poisoned, run

torch = pytest.importorskip("torch")


@tc.kernel
def affine(X, Y, s, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """``Y = X * s + 1`` by row blocks."""
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=0)
        Y.tile((p * BM, 0), (BM, BN)).store(x * s + 1)


@tc.kernel
def stops_in_program_one(X, Y, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """Each program stores its block, then program 1 fails an assert."""
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM, 0), (BM, BN)).store(X.tile((p * BM, 0), (BM, BN)) * 2.0)
        assert p != 1, "program 1 stops"


@tc.kernel
def overlapping(X, Y):
    """Both programs store to Y[0:4]: a race the simulator reports."""
    for p in tc.parallel(2):
        Y.tile((0,), (4,)).store(X.tile((p * 4,), (4,)))


def _expected(x: np.ndarray, s: Any) -> np.ndarray:
    """``affine`` on the reference, with numpy arguments and a NaN- (or -7-) poisoned output."""
    want = poisoned(*x.shape, dtype=x.dtype)
    tc.interpret(affine, x, want, s)
    return want


def _poisoned_tensor(shape: tuple[int, ...], dtype: Any) -> Any:
    return torch.full(shape, float("nan") if dtype.is_floating_point else -7, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int32"])
@pytest.mark.parametrize("target", PATHS)
def test_torch_tensors_are_written_in_place(target: str, dtype: str) -> None:
    dt = getattr(torch, dtype)
    x = (torch.arange(8 * 8) - 20).reshape(8, 8).to(dt)
    y = _poisoned_tensor((8, 8), dt)
    ptr = y.data_ptr()
    run(target, affine, x, y, 3)
    assert y.data_ptr() == ptr  # the caller's tensor, written in place
    want = _expected(x.float().numpy().astype(np.float32), 3).astype(np.float64)
    np.testing.assert_array_equal(y.double().numpy(), want)


@pytest.mark.parametrize("target", PATHS)
def test_objects_with_only_dlpack_are_taken(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8) - 7.5
    y = poisoned(8, 8)
    run(target, affine, HostTensor(x), HostTensor(y), 0.5)
    np.testing.assert_array_equal(y, _expected(x, 0.5))


@pytest.mark.parametrize("target", ["reference", *SIMULATED])
@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_strided_arguments_are_read_and_written(target: str, kind: str) -> None:
    base = np.arange(64, dtype=np.float32).reshape(8, 8) - 7.5
    want = _expected(np.ascontiguousarray(base.T), 2.0)
    if kind == "numpy":
        x, y = base.T, poisoned(8, 8).T
    else:
        x, y = torch.from_numpy(base).T, _poisoned_tensor((8, 8), torch.float32).T
    run(target, affine, x, y, 2.0)
    np.testing.assert_array_equal(np.asarray(y), want)


def test_the_cpu_target_refuses_strided_tensors() -> None:
    base = torch.zeros(8, 8)
    with pytest.raises(tc.ArgumentError, match="not C-contiguous"):
        run("cpu", affine, base.T, torch.zeros(8, 8), 1.0)


@pytest.mark.parametrize("target", SIMULATED)
def test_what_was_stored_before_a_failure_is_written_back(target: str) -> None:
    x = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    y = _poisoned_tensor((8, 8), torch.float32).T
    with pytest.raises(tc.KernelAssertionError, match="program 1 stops"):
        run(target, stops_in_program_one, x, y)
    np.testing.assert_array_equal(y.numpy(), x.numpy() * 2.0)  # both programs stored first


@pytest.mark.parametrize("target", ["reference", *SIMULATED])
def test_a_tensor_on_another_device_is_refused(target: str) -> None:
    x = HostTensor(np.zeros((8, 8), np.float32), (2, 1))
    with pytest.raises(tc.ArgumentError, match=r"argument 0 \('X'\) of @affine lives on "
                                                r"cuda:1; the target needs host memory"):
        run(target, affine, x, np.zeros((8, 8), np.float32), 1.0)


@pytest.mark.parametrize("target", PATHS)
def test_an_output_aliasing_an_input_tensor_is_refused(target: str) -> None:
    buf = torch.zeros(8, 8)
    with pytest.raises(tc.ArgumentError, match=r"argument 1 \('Y'\) of @affine .* overlaps "
                                                r"argument 0 \('X'\)"):
        run(target, affine, buf, buf[:, :], 1.0)


@pytest.mark.parametrize("target", PATHS)
def test_a_tensor_that_requires_grad_is_refused(target: str) -> None:
    x = torch.zeros(8, 8, requires_grad=True)
    with pytest.raises(tc.ArgumentError, match=r"argument 0 \('X'\) of @affine cannot be viewed "
                                                r"as a numpy array through DLPack"):
        run(target, affine, x, torch.zeros(8, 8), 1.0)


@pytest.mark.parametrize("target", SIMULATED)
def test_a_race_names_the_tensor(target: str) -> None:
    with pytest.raises(tc.SimulationError, match="global memory %Y element"):
        run(target, overlapping, torch.arange(8, dtype=torch.float32), torch.zeros(4))
