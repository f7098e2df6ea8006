"""Every Machine sample runs on the GPU and matches numpy, with NaN-poisoned outputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cuda_machine_ir import SAMPLES

import machine_samples as shared
from paths import poison, to_device, to_host
from tilec.targets.cuda.backend import CUDABackend, make_backend

pytestmark = pytest.mark.usefixtures("torch_cuda")


def check(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> None:
    """Equal within tolerance; NaN only where expected."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert not np.isnan(g[~np.isnan(w)]).any(), "an output element was never written (NaN)"
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_matches_numpy(torch_cuda: Any, name: str) -> None:
    torch = torch_cuda
    s = SAMPLES[name]
    args = s.make_args(np.random.default_rng(1))
    want = s.reference(*args)
    dev = [to_device(torch, a) for a in args]
    poison(torch, dev[-1])
    exe = make_backend("cuda").compile(s.module(), s.name)
    assert exe.resources.spill_stores == 0
    exe(*dev, sync=True)
    check(to_host(torch, dev[-1]), want, s.rtol, s.atol)


@pytest.mark.parametrize("name", [n for n, c in sorted(shared.SAMPLE_CASES.items())
                                  if c.outcome == "ok"])
def test_shared_machine_sample_matches_numpy(torch_cuda: Any, name: str) -> None:
    torch = torch_cuda
    case = shared.SAMPLE_CASES[name]
    exe = make_backend("cuda").compile(shared.MACHINE_SAMPLES[name](), case.fn_name)
    for shape in case.shapes:
        args = case.make_inputs(np.random.default_rng(2), **shape)
        expected = case.expected([a.copy() for a in args])
        dev = [to_device(torch, a) for a in args]
        for i in expected:
            poison(torch, dev[i])
        exe(*dev, sync=True)
        for i, want in expected.items():
            got = to_host(torch, dev[i]).astype(np.float64)
            scale = max(1.0, float(np.nanmax(np.abs(want))) if want.size else 1.0)
            assert not np.isnan(got[~np.isnan(want)]).any(), f"{name} {shape}: unwritten output"
            err = float(np.nanmax(np.abs(got - want))) if want.size else 0.0
            assert err <= case.rtol * scale, f"{name} {shape}: max error {err:.3g}"


def test_misaligned_arrays_take_the_scalar_path(torch_cuda: Any) -> None:
    """Slices one element off 16-byte alignment: the run-time check falls back, still exact."""
    torch = torch_cuda
    s = SAMPLES["add_f32"]
    exe = make_backend("cuda").compile(s.module(), s.name)
    n = 3001
    a = torch.randn(n + 1, device="cuda")[1:]
    b = torch.randn(n + 1, device="cuda")[1:]
    c = torch.full((n + 1,), float("nan"), device="cuda")[1:]
    exe(a, b, c, sync=True)
    assert torch.equal(c, a + b)


def test_sm80_profile_runs_on_this_device(torch_cuda: Any) -> None:
    torch = torch_cuda
    s = SAMPLES["gemm_mma_bf16"]
    be = CUDABackend("cuda:sm_80")
    exe = be.compile(s.module(), s.name)
    args = s.make_args(np.random.default_rng(3))
    dev = [to_device(torch, a) for a in args]
    poison(torch, dev[-1])
    exe(*dev, sync=True)
    check(to_host(torch, dev[-1]), s.reference(*args), s.rtol, s.atol)


def test_launch_on_the_callers_torch_stream(torch_cuda: Any) -> None:
    torch = torch_cuda
    s = SAMPLES["softmax_rows"]
    exe = make_backend("cuda").compile(s.module(), s.name)
    x = torch.randn(4096, 128, device="cuda")
    y = torch.full_like(x, float("nan"))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        exe(x, y)
    stream.synchronize()
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_validation_names_the_argument(torch_cuda: Any) -> None:
    torch = torch_cuda
    s = SAMPLES["add_f32"]
    exe = make_backend("cuda").compile(s.module(), s.name)
    a = torch.zeros(8, device="cuda")
    from tilec.targets.cuda.runtime import InteropError

    with pytest.raises(InteropError, match="'C'.*overlaps"):
        exe(a, torch.zeros(8, device="cuda"), a)
    with pytest.raises(InteropError, match="dtype f64"):
        exe(a, torch.zeros(8, device="cuda", dtype=torch.float64), torch.zeros(8, device="cuda"))
    with pytest.raises(InteropError, match="CUDA tensor"):
        exe(a, torch.zeros(8), torch.zeros(8, device="cuda"))
