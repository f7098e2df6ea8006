"""f32 ``exp2`` on the GPU is one ``ex2.approx.ftz.f32`` (MUFU.EX2): within 2 ulp of the exact
``2^x`` wherever the result is a normal float, ``+0`` or a subnormal within the smallest
normal of it below that, and exact on the special values (``exp2(±0) = 1``, ``exp2(-inf) =
+0``, ``exp2(inf) = inf``, NaN to NaN, overflow to ``inf``). The output is poisoned first;
the reference is numpy's ``exp2`` in float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

N = 4096


@tc.kernel
def exp2_of(X, Y, B: tc.constexpr = 256):
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        Y.tile((p * B,), (B,)).store(tc.exp2(X.tile((p * B,), (B,), fill=0.0)))


def test_exp2_is_within_two_ulp_and_exact_on_specials(torch_cuda: Any) -> None:
    rng = np.random.default_rng(20261207)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, -126.0, -126.5,
                         -149.0, -149.5, -150.0, 127.99, 128.0, 200.0, -1000.0, 1.0, 0.5],
                        np.float32)
    x = np.concatenate([specials, rng.uniform(-160, 130, N - 2 * specials.size),
                        rng.uniform(-2, 2, specials.size)]).astype(np.float32)
    args = on_device(torch_cuda, [x, np.empty_like(x)])
    tc.compile(exp2_of, *args, target="cuda")(*args)
    got = to_host(torch_cuda, args[1]).astype(np.float64)
    want = np.exp2(x.astype(np.float64))
    assert not np.isnan(got[~np.isnan(x)]).any(), "an element was not written"
    assert np.array_equal(np.isnan(got), np.isnan(want))
    tiny = float(np.finfo(np.float32).tiny)
    big = float(np.finfo(np.float32).max)
    normal = (want >= tiny) & (want <= big)
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    err = np.abs(got - want)
    assert (err[normal] <= 2 * ulp[normal]).all(), float((err / ulp)[normal].max())
    low = want < tiny  # flushed to +0 or a subnormal, never off by more than the gap
    assert ((got[low] >= 0) & (err[low] <= tiny)).all()
    assert (got[want > big] == np.inf).all()
    assert (got[x == 0] == 1.0).all() and (got[x == -np.inf] == 0.0).all()
