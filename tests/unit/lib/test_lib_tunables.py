"""Every library kernel declares its tunables, and every value the search can choose is
differential-tested: a covering set of configurations (each value of each tunable at
least once) runs on the reference interpreter, the cpu target and the SIMT simulator of
cuda:sm_90, each against the demo's numpy oracle, with the outputs poisoned with NaN."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from tilec.demo import _poisoned, max_error
from tilec.frontend.jit import _as_kernel
from tilec.lib import DEMOS

pytestmark = pytest.mark.usefixtures("private_cache")

TUNED = [c for c in DEMOS if _as_kernel(c.kernel).tunables]


def covering(tunables):
    """Configurations in which every value of every tunable appears at least once."""
    width = max(len(t.values) for t in tunables.values())
    return [{n: t.values[i % len(t.values)] for n, t in tunables.items()} for i in range(width)]


def test_the_library_kernels_declare_tunables():
    names = {c.kernel_name for c in TUNED}
    assert {"matmul", "pipelined_matmul", "batched_matmul", "gemm_bias_act", "softmax",
            "online_softmax", "layernorm", "rmsnorm", "flash_attention"} <= names


@pytest.mark.parametrize("case", TUNED, ids=lambda c: c.name)
@pytest.mark.parametrize("path", ["reference", "cpu", "simt:cuda:sm_90"])
def test_every_tunable_value_matches_numpy(case, path):
    k = _as_kernel(case.kernel)
    rest = {n: v for n, v in case.constexprs.items() if n not in k.tunables}
    inputs = list(case.make_inputs(np.random.default_rng(3)))
    expected = case.expected(*[a.copy() if isinstance(a, np.ndarray) else a for a in inputs])
    outs = sorted(expected)
    legal = 0
    for cfg in covering(k.tunables):
        args = _poisoned(inputs, outs)
        try:
            if path == "reference":
                tc.interpret(k, *args, **rest, **cfg)
            elif path == "cpu":
                tc.compile(k, *args, target="cpu", **rest, **cfg)(*args)
            else:
                tc.simulate(k, *args, target="cuda:sm_90", **rest, **cfg)
        except tc.KernelAssertionError as e:  # a configuration the kernel's contract refuses
            assert "assertion failed" in str(e)
            continue
        legal += 1
        for i in outs:
            err = max_error(args[i], expected[i])
            assert err <= case.rtol, f"{case.name} {cfg} on {path}: error {err:.3g}"
    assert legal >= 1


def test_attention_model_pick_skips_tiles_without_a_plan() -> None:
    """BN 128 is in flash_attention's space (measured on an H100, bf16 4x32x4096: 128x128
    ran head dimension 64 in 1.55 ms against 1.76 for 64x64). At head dimension 128 those
    tiles have a matrix plan since the planner counts one scratch pool and the register A
    operand (docs/design/planner.md); at head dimension 256 the tiles with 128 rows or
    columns have none, the model scores them None and picks another."""
    import warnings

    import ml_dtypes

    from tilec.lib.attention import flash_attention

    picks, unplanned = {}, {}
    for d in (64, 128, 256):
        q = tc.array((128, 4096, d), ml_dtypes.bfloat16)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tc.PerformanceWarning)
            got = flash_attention.resolve([q, q, q, q, np.float32(0.1)], "cuda:sm_90",
                                          HEAD_DIM=d)
        picks[d] = (got.values["BM"], got.values["BN"])
        unplanned[d] = {(s.config["BM"], s.config["BN"]) for s in got.scores
                        if s.score is None}
    assert picks[64] == (128, 128)
    assert picks[128] == (128, 128) and not unplanned[128]
    assert (128, 128) in unplanned[256] and picks[256] not in unplanned[256]
