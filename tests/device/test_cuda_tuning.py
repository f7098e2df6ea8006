"""Measured selection on the GPU: every configuration of ``lib.matmul``'s tunable space is
built, validated on the device against the reference (outputs poisoned with NaN, ragged
shrunk shapes) and timed; the choice is stored and a later call uses it; the model's pick
and the tuned kernel compute the right product at the timing shape."""

from __future__ import annotations

import pytest

import tilec as tc
from tilec.lib.matmul import gemm_bias_act, matmul

pytestmark = [pytest.mark.usefixtures("torch_cuda"), pytest.mark.usefixtures("cuda_device")]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def _inputs(torch, m, n, k, dt):
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=dt, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=dt, generator=g)
    return a, b, torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_every_configuration_validates_on_the_gpu_and_the_record_is_used(torch_cuda, dtype):
    torch = torch_cuda
    a, b, c = _inputs(torch, 1000, 1100, 700, getattr(torch, dtype))
    r = tc.tune(matmul, a, b, c, budget="all", threads_per_config=2 if dtype == "bfloat16" else 1,
                batches=2,
                replay_rounds=1, batch_ms=2.0, progress=False)
    bad = [(x.label, x.validation) for x in r.candidates if not x.ok]
    assert not bad, bad
    assert len(r.candidates) >= 32 and r.selected is not None and r.record is not None
    matmul.forget_resolutions()
    sel = matmul.compile(a, b, c).selection
    assert sel.source == "record" and dict(sel.values) == r.selected.config
    c.fill_(float("nan"))
    matmul(a, b, c)
    want = a.double() @ b.double()
    err = float(((c.double() - want).abs() / want.abs().max()).max())
    assert err < (1e-2 if dtype == "bfloat16" else 1e-4), err


def test_the_model_pick_runs_and_a_fused_epilogue_tunes(torch_cuda):
    torch = torch_cuda
    a, b, c = _inputs(torch, 512, 384, 320, torch.bfloat16)
    pick = matmul.compile(a, b, c).selection
    assert pick.source == "model"
    matmul(a, b, c)
    want = a.double() @ b.double()
    assert float(((c.double() - want).abs() / want.abs().max()).max()) < 1e-2
    bias = torch.randn(384, device="cuda", dtype=torch.float32)
    r = tc.tune(gemm_bias_act, a, b, bias, c, batches=2, replay_rounds=1, batch_ms=2.0,
                progress=False, ACT="gelu")
    assert r.selected is not None and all(x.ok for x in r.candidates), r.table()
