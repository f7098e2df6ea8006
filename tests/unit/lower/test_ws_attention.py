"""Attention's key loop with a producer warpgroup. Its scores start from zero every key
block and its probabilities are a register A operand, so no wgmma group may stay in flight;
the mbarrier ring then releases each iteration's own version (``machine_ring``:
``Staging.lag == 0``), and the query tile, the same on every key block, is copied once per
tile with the first block's copies (``ConsumerRing.produce``). Before, the ring needed a
group in flight, so 128-row attention ran the ordinary ring with a group barrier per key
block."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tilec as tc
from paths import attention_args as _args
from tilec.driver import compile_module
from tilec.lib.attention import flash_attention
from tilec.targets.reference.simt import simulate_module


def test_producer_ring_without_groups_in_flight() -> None:
    comp = tc.compile(flash_attention, *_args(4, 256, 256, 64), target="reference", BM=128,
                      BN=64, HEAD_DIM=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    (res,) = low.resources
    assert res["producer_threads"] == 128 and res["threads"] == 384
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "every wgmma group retired where it is issued" in notes
    assert "warp-specialized by default" in notes
    rings = [op for fn in low.module for op in fn.walk()
             if op.name == "memory" and str(op.attr("role")).endswith(" ring")]
    # the query tile (128 x 64) has one buffer; keys and values a version each
    assert sorted(op.attr("versions") or 1 for op in rings) == [1, 4, 4]


@pytest.mark.parametrize("causal,persistent", [(False, 2), (True, 0)])
def test_simulated_like_the_interpreter(causal: bool, persistent: int) -> None:
    """Ragged keys; with two persistent programs each walks several tiles, so the query
    buffer is refilled only after the previous tile's last key block was released."""
    want = _args(3, 130, 100, 64, seed=4)
    bind = dict(BM=128, BN=64, HEAD_DIM=64, CAUSAL=causal)
    tc.interpret(flash_attention, *want, **bind)
    got = _args(3, 130, 100, 64, seed=4)
    comp = flash_attention.compile(*got, target="simt:cuda:sm_90",
                                   variant={"persistent": persistent}, **bind)
    simulate_module(comp.executable().module, comp.fn_name, got)
    g, w = got[3].astype(np.float32), want[3].astype(np.float32)
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, w, atol=2e-3)


def test_ptxas_honours_the_register_split(tmp_path) -> None:
    """With ``__launch_bounds__(384)`` alone ptxas ignored the warpgroups' ``setmaxnreg``
    (remark C7508: the register count at entry is not determined); the kernel states one
    group per SM (checked with nvcc's ptxas where it is on PATH)."""
    import shutil
    import subprocess

    from tilec.targets.cuda.backend import CUDABackend

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    comp = tc.compile(flash_attention, *_args(4, 256, 256, 64), target="reference", BM=128,
                      BN=64, HEAD_DIM=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    src = CUDABackend("cuda:sm_90").emit(low.module, comp.fn_name)
    assert "__launch_bounds__(384, 1)" in src.text
    cu = tmp_path / "k.cu"
    cu.write_text(src.text)
    p = subprocess.run(["nvcc", "-arch=sm_90a", "-cubin", "-Xptxas", "-v", "-o",
                        str(tmp_path / "k.cubin"), str(cu)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "C7508" not in p.stderr and "0 bytes spill stores" in p.stderr, p.stderr[-1500:]
